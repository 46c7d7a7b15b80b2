package present

import (
	"errors"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// eventWaiter waits for the display's descriptor to turn readable in the
// Go runtime's network poller instead of in a blocking poll(2).
//
// A goroutine blocked in a system call keeps its P (the runtime's
// processor slot) busy, and while any P is busy the runtime's monitor
// thread (sysmon) wakes every 20 µs to 10 ms to see whether it should take
// that P back. A frame loop that spends most of each refresh period in
// poll(2) so paid about 35 such wake-ups a frame on the simulated device
// (strace -f -c: 10,706 nanosleep calls over 300 frames at 800x600),
// 0.3–0.4 ms of CPU a frame. Parked in the poller, the goroutine leaves
// its P idle, and sysmon sleeps until the next timer.
//
// The poller needs a descriptor of its own that it may register and
// close: a duplicate of the Conn's (F_DUPFD_CLOEXEC), which shares the
// open file, and so the O_NONBLOCK the swapchain sets on it. The duplicate
// keeps the open file alive until Display.Close closes it.
type eventWaiter struct {
	f     *os.File
	rc    syscall.RawConn
	pfd   [1]unix.PollFd
	ready func(fd uintptr) bool // made once, so that a wait does not allocate
	err   error                 // the last wait's own error, set by ready
}

// newEventWaiter returns a waiter for fd, or nil when fd cannot be waited
// on in the poller (it is blocking, or cannot be duplicated): the caller
// then uses poll(2).
func newEventWaiter(fd int) *eventWaiter {
	if fd < 0 {
		return nil
	}
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil || flags&unix.O_NONBLOCK == 0 {
		return nil
	}
	dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	// os.NewFile registers a non-blocking descriptor with the poller; one
	// epoll cannot watch (a regular file) is left out of it, and then
	// takes no deadline.
	f := os.NewFile(uintptr(dup), "display events")
	rc, err := f.SyscallConn()
	if err == nil {
		err = f.SetReadDeadline(time.Time{})
	}
	if err != nil {
		f.Close()
		return nil
	}
	w := &eventWaiter{f: f, rc: rc}
	w.ready = w.readable
	return w
}

// readable is RawConn.Read's callback: true when the descriptor has an
// event to read (or reports an error, which the caller's read then
// meets), false to wait for the poller's next wake-up.
func (w *eventWaiter) readable(fd uintptr) bool {
	w.pfd[0] = unix.PollFd{Fd: int32(fd), Events: unix.POLLIN}
	n, err := unix.Poll(w.pfd[:], 0)
	switch {
	case err == unix.EINTR:
		return false
	case err != nil:
		w.err = err
		return true
	}
	return n > 0
}

// wait blocks until the descriptor is readable or the deadline passes
// (then it returns os.ErrDeadlineExceeded).
func (w *eventWaiter) wait(deadline time.Time) (revents int16, err error) {
	if err := w.f.SetReadDeadline(deadline); err != nil {
		return 0, err
	}
	w.err = nil
	if err := w.rc.Read(w.ready); err != nil {
		return 0, err
	}
	return w.pfd[0].Revents, w.err
}

// close deregisters and closes the duplicate.
func (w *eventWaiter) close() error {
	if w == nil {
		return nil
	}
	return w.f.Close()
}

// isTimeout reports whether err is a wait's deadline passing.
func isTimeout(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }
