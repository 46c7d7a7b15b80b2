// Package pollwait waits for a descriptor to become readable, polling
// again for the time left when a signal interrupts the wait. The Go
// runtime signals its own threads (SIGURG preempts goroutines), and
// poll(2) is never restarted after a signal handler, SA_RESTART or not
// (signal(7), "Interruption of system calls and library functions by
// signal handlers"): a bare unix.Poll with a timeout fails now and then
// with EINTR on a loaded machine.
package pollwait

import (
	"time"

	"golang.org/x/sys/unix"
)

// Readable polls fd for POLLIN until it is readable or wait has passed.
// It reports whether fd became readable; its error is poll's, never EINTR.
func Readable(fd int, wait time.Duration) (bool, error) {
	deadline := time.Now().Add(wait)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		ms := 0 // a negative timeout would wait for ever
		if left := time.Until(deadline); left > 0 {
			ms = int((left + time.Millisecond - 1) / time.Millisecond)
		}
		n, err := unix.Poll(fds, ms)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return false, err
		}
		return n == 1 && fds[0].Revents&unix.POLLIN != 0, nil
	}
}
