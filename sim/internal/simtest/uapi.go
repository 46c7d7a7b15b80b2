package simtest

import (
	"errors"
	"runtime"
	"syscall"
	"testing"
	"unsafe"

	"github.com/vccube/vccube/uapi"
)

// Ioctl issues a raw request on a Go value, as igt's do_ioctl does: for
// the requests a test makes without the client packages, and the
// malformed ones they would not send.
func Ioctl[T any](c uapi.Conn, req uapi.Request, arg *T) error {
	return c.Ioctl(req, unsafe.Pointer(arg))
}

// WantErrno fails the test unless err is the errno want (0: success).
func WantErrno(t testing.TB, what string, err error, want syscall.Errno) {
	t.Helper()
	if want == 0 {
		if err != nil {
			t.Fatalf("%s: %v, want success", what, err)
		}
		return
	}
	if !errors.Is(err, want) {
		t.Fatalf("%s: %v, want %v", what, err, want)
	}
}

// Ptr returns the address of b's first byte as a uAPI pointer field (0
// for an empty b), and pins b until the test ends.
func Ptr[T any](t testing.TB, b []T) uint64 {
	t.Helper()
	if len(b) == 0 {
		return 0
	}
	var p runtime.Pinner
	p.Pin(&b[0])
	t.Cleanup(p.Unpin)
	return uapi.UserPointer(unsafe.Pointer(&b[0]))
}
