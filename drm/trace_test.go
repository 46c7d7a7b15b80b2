package drm_test

import (
	"bytes"
	"strings"
	"syscall"
	"testing"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/drm/drmtest"
	"github.com/vccube/vccube/uapi"
)

// A traced GET_CAP shows the name, the request, the argument before and
// after (the kernel filled in the value) and the result; a refused one
// shows the errno.
func TestTrace(t *testing.T) {
	fake := drmtest.NewConn()
	drmtest.On(fake, uapi.IoctlGetCap, func(a *uapi.GetCap) error {
		if a.Capability != uapi.CapDumbBuffer {
			return syscall.EINVAL
		}
		a.Value = 1
		return nil
	})
	var log bytes.Buffer
	c := drm.Trace(fake, &log, nil)
	if v, err := drm.GetCapability(c, uapi.CapDumbBuffer); err != nil || v != 1 {
		t.Fatalf("GetCapability through the trace: %d, %v", v, err)
	}
	if _, err := drm.GetCapability(c, 0x77); err == nil {
		t.Fatal("an unknown capability was not refused")
	}
	lines := strings.Split(strings.TrimSuffix(log.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("trace has %d lines, want 2:\n%s", len(lines), log.String())
	}
	// struct drm_get_cap: u64 capability, u64 value (little-endian).
	want0 := "DRM_IOCTL_GET_CAP 0xc010640c in 01000000000000000000000000000000 out 01000000000000000100000000000000 = 0"
	if !strings.HasSuffix(lines[0], want0) {
		t.Errorf("line 1 = %q, want it to end with %q", lines[0], want0)
	}
	if !strings.HasSuffix(lines[1], " = -22 (invalid argument)") {
		t.Errorf("line 2 = %q, want EINVAL at the end", lines[1])
	}
}
