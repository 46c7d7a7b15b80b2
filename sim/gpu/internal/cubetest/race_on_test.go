//go:build race

package cubetest

// raceEnabled says the race detector is on: it allocates, so allocation
// counts mean nothing then.
const raceEnabled = true
