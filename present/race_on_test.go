//go:build race

package present_test

// raceEnabled: the race detector's instrumentation allocates on its own,
// so allocation counts are only checked without it.
const raceEnabled = true
