package drm_test

import (
	"errors"
	"testing"
	"unsafe"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/drm/drmtest"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// Restarting makes an ioctl again after EINTR and EAGAIN, as drmIoctl
// does, and a read after EINTR only; other errors and a non-blocking
// read's EAGAIN come back at once. It allocates nothing per call.
func TestRestarting(t *testing.T) {
	f := drmtest.NewConn()
	fails := []error{unix.EINTR, unix.EAGAIN, unix.EINTR}
	drmtest.On(f, uapi.IoctlGetCap, func(a *uapi.GetCap) error {
		if len(fails) > 0 {
			err := fails[0]
			fails = fails[1:]
			return err
		}
		a.Value = 1
		return nil
	})
	c := drm.Restarting(f)
	if drm.Restarting(c) != c {
		t.Error("Restarting wraps a restarting Conn again")
	}
	v, err := drm.GetCapability(c, uapi.CapDumbBuffer)
	if err != nil || v != 1 || f.Calls(uapi.IoctlGetCap) != 4 {
		t.Errorf("GetCapability: %d, %v after %d calls; want 1 after 4", v, err, f.Calls(uapi.IoctlGetCap))
	}
	f.Fail(uapi.IoctlSetMaster, unix.EBUSY)
	if err := c.Ioctl(uapi.IoctlSetMaster, nil); !errors.Is(err, unix.EBUSY) || f.Calls(uapi.IoctlSetMaster) != 1 {
		t.Errorf("SET_MASTER: %v after %d calls", err, f.Calls(uapi.IoctlSetMaster))
	}
	if _, err := c.Read(make([]byte, 16)); !errors.Is(err, unix.EAGAIN) {
		t.Errorf("read with nothing queued: %v, want EAGAIN", err)
	}
	var arg uapi.GetCap
	if a := testing.AllocsPerRun(50, func() { _ = c.Ioctl(uapi.IoctlGetCap, unsafe.Pointer(&arg)) }); a != 0 {
		t.Errorf("%v allocations per call", a)
	}
}
