// Package simtest holds what the simulated device's tests share across
// its packages: waiting on the model's own state instead of on time.
package simtest

import (
	"runtime"
	"testing"
	"time"
)

// Reached waits until cond says that a call the test started on another
// goroutine has reached its wait, and fails if the call returns first
// (its result on done). The deadline only stops a broken test from
// hanging.
func Reached[T any](t testing.TB, what string, cond func() bool, done <-chan T) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		select {
		case v := <-done:
			t.Fatalf("%s returned (%v) without waiting", what, v)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not reach its wait in a minute", what)
		}
		runtime.Gosched()
	}
}
