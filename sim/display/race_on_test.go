//go:build race

package display_test

// raceEnabled: the race detector allocates (and empties sync.Pools), so
// allocation counts mean nothing under it.
const raceEnabled = true
