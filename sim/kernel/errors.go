package kernel

import (
	"fmt"
	"syscall"
)

// Error is a refusal by the simulated kernel: the errno the ioctl returns
// and, in Msg, the reason the real driver prints with DRM_DEBUG (which a
// person reads in dmesg with drm.debug set, and the simulator's trace
// prints).
//
// Error unwraps to its Errno, so errors.Is(err, unix.EINVAL) works.
type Error struct {
	Errno syscall.Errno
	Msg   string
}

// Error formats the errno and the reason, e.g. "EINVAL: packet 65 invalid".
func (e *Error) Error() string {
	return errnoName(e.Errno) + ": " + e.Msg
}

// Unwrap returns the errno.
func (e *Error) Unwrap() error { return e.Errno }

// errf builds an Error. It runs on failure paths only, so its allocation
// costs nothing per frame.
func errf(errno syscall.Errno, format string, args ...any) *Error {
	return &Error{Errno: errno, Msg: fmt.Sprintf(format, args...)}
}

// Errno returns the errno an ioctl handler's error stands for: the Errno of
// an *Error, a bare syscall.Errno, or 0 for nil.
func Errno(err error) syscall.Errno {
	switch e := err.(type) {
	case nil:
		return 0
	case *Error:
		return e.Errno
	case syscall.Errno:
		return e
	}
	return syscall.EINVAL
}

func errnoName(e syscall.Errno) string {
	if n := errnoNames[e]; n != "" {
		return n
	}
	return fmt.Sprintf("errno %d", uintptr(e))
}

// errnoNames names the errnos the vc4 driver returns.
var errnoNames = map[syscall.Errno]string{
	syscall.EINVAL:     "EINVAL",
	syscall.ENOENT:     "ENOENT",
	syscall.ENOMEM:     "ENOMEM",
	syscall.EFAULT:     "EFAULT",
	syscall.ENODEV:     "ENODEV",
	syscall.EACCES:     "EACCES",
	syscall.EBUSY:      "EBUSY",
	syscall.ETIME:      "ETIME",
	syscall.EPERM:      "EPERM",
	syscall.EOPNOTSUPP: "EOPNOTSUPP",
	syscall.ENOTTY:     "ENOTTY",
	syscall.EBADF:      "EBADF",
	syscall.ENOSYS:     "ENOSYS",
	syscall.EINTR:      "EINTR",
	syscall.EAGAIN:     "EAGAIN",
}

// reason returns an error's message without the errno name.
func reason(err error) string {
	if e, ok := err.(*Error); ok {
		return e.Msg
	}
	return err.Error()
}
