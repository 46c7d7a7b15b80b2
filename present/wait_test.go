package present_test

import (
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/vccube/vccube/sim/display"
)

// A frame loop waiting for its flip parks in the Go runtime's poller
// ("IO wait"), not in a blocking poll(2) ("syscall"): a goroutine in a
// system call keeps the runtime's monitor thread waking every 20 µs to
// 10 ms for the whole wait, which cost the page-flipped run 0.3–0.4 ms of
// CPU a frame (present/wait.go). The flip here stays pending (a stepped
// clock nobody advances) until the test sees where the wait sleeps.
func TestFlipWaitParksInThePoller(t *testing.T) {
	r := newRig(t, rigOptions{monitor: tinyMonitor(), clock: display.SteppedClock})
	d := openOn(t, r.conn)
	s := dumbChain(t, d, 2)
	s.Timeout = time.Hour
	for i := 0; i < 2; i++ {
		b, err := s.Acquire()
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Present(b); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.Acquire() // waits for the pending flip
		done <- err
	}()
	state := waitingState(t, "present.(*Swapchain).poll(")
	if state != "IO wait" {
		t.Errorf("the flip wait sleeps in state %q; want it parked in the poller (IO wait)", state)
	}
	if _, err := r.disp.AdvanceToVblank(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Acquire after the vblank: %v", err)
	}
}

var goroutineHeader = regexp.MustCompile(`^goroutine \d+ \[([^,\]]+)`)

// waitingState returns the state of the goroutine whose stack holds frame
// once it is blocked (in a system call or parked in the poller), looking
// again each time it finds it still running towards the wait.
func waitingState(t *testing.T, frame string) string {
	t.Helper()
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		for _, g := range strings.Split(string(buf[:n]), "\n\n") {
			if !strings.Contains(g, frame) {
				continue
			}
			if m := goroutineHeader.FindStringSubmatch(g); m != nil && (m[1] == "syscall" || m[1] == "IO wait") {
				return m[1]
			}
		}
		runtime.Gosched()
	}
}
