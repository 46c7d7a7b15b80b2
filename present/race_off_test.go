//go:build !race

package present_test

// raceEnabled: see race_on_test.go.
const raceEnabled = false
