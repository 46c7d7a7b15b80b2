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
