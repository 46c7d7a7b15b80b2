package uapi_test

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/vccube/vccube/uapi"
)

func TestIoctlNameOfUnknownRequests(t *testing.T) {
	if s := uapi.IoctlName(uapi.IOWR(0x4f, 24)); !strings.HasPrefix(s, "driver ioctl 0xc018644f") {
		t.Errorf("driver request: %q", s)
	}
	if s := uapi.IoctlName(uapi.IO(0x30)); !strings.HasPrefix(s, "DRM ioctl 0x00006430") {
		t.Errorf("core request: %q", s)
	}
}

func TestUserBytes(t *testing.T) {
	if uapi.UserBytes(0, 4) != nil || uapi.UserSlice[uint32](0, 4) != nil {
		t.Error("a null user pointer must give nil, not a slice at address 0")
	}
	buf := []uint32{1, 2, 3}
	p := uapi.UserPointer(unsafe.Pointer(&buf[0]))
	if s := uapi.UserSlice[uint32](p, 3); &s[0] != &buf[0] || s[2] != 3 {
		t.Error("UserSlice does not reach the memory UserPointer named")
	}
	if b := uapi.UserBytes(p, 4); len(b) != 4 || b[0] != 1 && b[3] != 1 {
		t.Errorf("UserBytes = % x", b)
	}
}

// Names as Mesa's vc4_query.c v3d_counter_names lists them, at the event
// numbers of vc4_drm.h's VC4_PERFCNT_* enum.
func TestPerfcntName(t *testing.T) {
	for e, want := range map[uint8]string{
		uapi.PerfcntFEPValidPrimsNoRender:               "FEP-valid-primitives-no-rendered-pixels",
		uapi.PerfcntQPUTotalClkCyclesVertexCoordShading: "QPU-total-clk-cycles-vertex-coord-shading",
		uapi.PerfcntQPUTotalClkCyclesFragmentShading:    "QPU-total-clk-cycles-fragment-shading",
		uapi.PerfcntL2CTotalL2CacheMiss:                 "L2C-total-cache-miss",
		uapi.PerfcntNumEvents:                           "event 30",
	} {
		if got := uapi.PerfcntName(e); got != want {
			t.Errorf("PerfcntName(%d) = %q, want %q", e, got, want)
		}
	}
}

// The four _IOC encodings of drm.h on known requests: DRM_IOCTL_SET_MASTER
// is DRM_IO(0x1e), DRM_IOCTL_GET_MAGIC DRM_IOR(0x02, struct drm_auth) (4
// bytes), DRM_IOCTL_AUTH_MAGIC DRM_IOW(0x11, struct drm_auth) and
// DRM_IOCTL_VERSION DRM_IOWR(0x00, struct drm_version) (64 bytes on a
// 64-bit kernel); the numbers as strace and libdrm show them.
func TestRequestEncodings(t *testing.T) {
	for _, c := range []struct {
		name       string
		req        uapi.Request
		want       uint32
		dir, nr, n uint32
	}{
		{"DRM_IOCTL_SET_MASTER", uapi.IO(0x1e), 0x0000641e, 0, 0x1e, 0},
		{"DRM_IOCTL_GET_MAGIC", uapi.IOR(0x02, 4), 0x80046402, 2, 0x02, 4},
		{"DRM_IOCTL_AUTH_MAGIC", uapi.IOW(0x11, 4), 0x40046411, 1, 0x11, 4},
		{"DRM_IOCTL_VERSION", uapi.IOWR(0x00, 64), 0xc0406400, 3, 0x00, 64},
	} {
		if uint32(c.req) != c.want || c.req.Dir() != c.dir || c.req.Nr() != c.nr || c.req.Size() != c.n || c.req.Type() != 'd' {
			t.Errorf("%s = %#08x (dir %d nr %#x size %d), want %#08x", c.name, uint32(c.req), c.req.Dir(), c.req.Nr(), c.req.Size(), c.want)
		}
	}
}
