//go:build !race

package sim_test

// raceEnabled: see race_on_test.go.
const raceEnabled = false
