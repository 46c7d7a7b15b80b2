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

// ClearJob is igt's "cleared BO" job (lib/igt_vc4.c
// igt_vc4_get_cleared_bo): no bin CL, only a colour-write surface on
// handles[0], a linear RGBA8888 target of width×height pixels (the tiles
// that cover it) and USE_CLEAR_COLOR with clear. handles stays pinned
// until the test ends.
func ClearJob(t testing.TB, handles []uint32, width, height int, clear uint32) uapi.SubmitCL {
	t.Helper()
	return uapi.SubmitCL{
		ColorWrite:     uapi.SubmitRCLSurface{HIndex: 0, Bits: 1 << 2}, // RGBA8888 linear
		ColorRead:      uapi.SubmitRCLSurface{HIndex: uapi.SurfaceAbsent},
		ZSRead:         uapi.SubmitRCLSurface{HIndex: uapi.SurfaceAbsent},
		ZSWrite:        uapi.SubmitRCLSurface{HIndex: uapi.SurfaceAbsent},
		MSAAColorWrite: uapi.SubmitRCLSurface{HIndex: uapi.SurfaceAbsent},
		MSAAZSWrite:    uapi.SubmitRCLSurface{HIndex: uapi.SurfaceAbsent},
		BOHandles:      Ptr(t, handles),
		BOHandleCount:  uint32(len(handles)),
		Width:          uint16(width),
		Height:         uint16(height),
		MaxXTile:       uint8((width+63)/64 - 1),
		MaxYTile:       uint8((height+63)/64 - 1),
		ClearColor:     [2]uint32{clear, clear},
		Flags:          uapi.SubmitUseClearColor,
	}
}
