//go:build !race

package display_test

// raceEnabled: see race_on_test.go.
const raceEnabled = false
