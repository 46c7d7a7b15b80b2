// Package modelbug turns a panic inside the GPU model into an error. A
// panic is a bug in the model, never the hardware's answer to a job's
// bytes: it must end the job as hung, with a reason that says so and
// where, instead of taking the whole simulated device down; and tests
// (the fuzzers above all) must be able to tell it from an ordinary hang.
package modelbug

import (
	"fmt"
	"runtime/debug"
)

// Error is a panic recovered from the model.
type Error struct {
	// Value is what the code panicked with.
	Value any
	// Stack is the panicking goroutine's stack.
	Stack []byte
}

// Error asks for a report and gives the panic and its stack.
func (e *Error) Error() string {
	return fmt.Sprintf("GPU model bug (please report): %v\n%s", e.Value, e.Stack)
}

// Recover, deferred directly (defer modelbug.Recover(&err)), turns a
// panic of the deferring function into *err = &Error{...}.
func Recover(err *error) {
	if p := recover(); p != nil {
		*err = &Error{Value: p, Stack: debug.Stack()}
	}
}
