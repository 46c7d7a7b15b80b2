package present

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// Restorer is what RestoreOnSignal restores: a *Display, or anything that
// must undo its effect on the screen when the program is stopped.
type Restorer interface {
	Restore() error
}

// Interrupted is the cause of the context RestoreOnSignal returns once a
// signal arrived: which signal, and what the restore reported.
type Interrupted struct {
	Signal     os.Signal // SIGINT or SIGTERM (or what RestoreOnSignal was given)
	RestoreErr error     // nil when the display was put back
}

// Error says which signal stopped the program and whether the display was
// restored.
func (e *Interrupted) Error() string {
	if e.RestoreErr != nil {
		return fmt.Sprintf("stopped by %v; restoring the display failed: %v", e.Signal, e.RestoreErr)
	}
	return fmt.Sprintf("stopped by %v; the display was restored", e.Signal)
}

// Unwrap returns the restore's error, if any.
func (e *Interrupted) Unwrap() error { return e.RestoreErr }

// ExitCode is the status a program stopped by the signal reports: 128 plus
// the signal number (130 for SIGINT, 143 for SIGTERM), as shells report a
// command a signal ended, so scripts see the same either way.
func (e *Interrupted) ExitCode() int {
	if s, ok := e.Signal.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}

// RestoreOnSignal catches sigs (SIGINT and SIGTERM when none are given)
// for as long as the returned context lives. When one arrives it calls
// r.Restore at once, from its own goroutine, then stops catching (a second
// signal ends the program the default way) and cancels the context with
// an *Interrupted cause (context.Cause). See the package documentation for
// the frame loop's side of the contract.
//
// stop releases the signals and the goroutine; call it (deferred) when the
// frame loop is over. It does not restore anything.
func RestoreOnSignal(parent context.Context, r Restorer, sigs ...os.Signal) (ctx context.Context, stop func()) {
	if len(sigs) == 0 {
		sigs = []os.Signal{os.Interrupt, syscall.SIGTERM}
	}
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case s := <-ch:
			// Restore first and only then stop catching: a second
			// Ctrl-C during the restore must not kill the program
			// half way through it.
			err := r.Restore()
			signal.Stop(ch)
			cancel(&Interrupted{Signal: s, RestoreErr: err})
		case <-ctx.Done():
			signal.Stop(ch)
		}
	}()
	return ctx, func() {
		cancel(context.Canceled)
		<-done
	}
}
