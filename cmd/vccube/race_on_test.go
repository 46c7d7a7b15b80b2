//go:build race

package main

// raceEnabled: the race detector's instrumentation allocates, so the
// allocation tests do not apply.
const raceEnabled = true
