package drm

import (
	"errors"
	"unsafe"

	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// Restarting returns a Conn that makes every call of c again while it
// fails with EINTR, as File does with the system calls: an ioctl also
// after EAGAIN, as libdrm's drmIoctl does (xf86drm.c), and an event read
// after EINTR only (EAGAIN is a non-blocking read's answer that no event
// is pending). A signal that arrives while the kernel waits for a lock, a
// job or an event makes the call fail with EINTR before it has done
// anything, and the same call made again goes on where it left off
// (WAIT_SEQNO and WAIT_BO count down their timeout_ns for that,
// vc4_gem.c); nothing is lost by retrying.
//
// A File restarts its own calls and is returned as it is. Other Conns —
// the simulated device's files, whose Faults.InterruptEachCall plays the
// signal — are wrapped; the wrapper forwards SetNonblock.
func Restarting(c uapi.Conn) uapi.Conn {
	switch c.(type) {
	case *File, *restartConn:
		return c
	}
	return &restartConn{Conn: c}
}

// restartConn is Restarting's wrapper.
type restartConn struct {
	uapi.Conn
}

// Ioctl makes the call until it ends with anything but EINTR or EAGAIN.
func (r *restartConn) Ioctl(req uapi.Request, arg unsafe.Pointer) error {
	for {
		err := r.Conn.Ioctl(req, arg)
		if !errors.Is(err, unix.EINTR) && !errors.Is(err, unix.EAGAIN) {
			return err
		}
	}
}

// Read reads until the read ends with anything but EINTR.
func (r *restartConn) Read(p []byte) (int, error) {
	for {
		n, err := r.Conn.Read(p)
		if !errors.Is(err, unix.EINTR) {
			return n, err
		}
	}
}

// SetNonblock forwards to the wrapped Conn when it can switch to
// non-blocking reads.
func (r *restartConn) SetNonblock(nonblocking bool) error {
	if nb, ok := r.Conn.(interface{ SetNonblock(bool) error }); ok {
		return nb.SetNonblock(nonblocking)
	}
	return errors.New("drm: the Conn cannot switch to non-blocking reads")
}
