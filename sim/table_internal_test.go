package sim

import (
	"testing"

	"github.com/vccube/vccube/uapi"
)

// vc4_drm_ioctls[] has the fifteen ioctls DRM_VC4_SUBMIT_CL (0x00) to
// DRM_VC4_PERFMON_GET_VALUES (0x0e) of vc4_drm.h, with no gap; each entry
// sits at its request's number and is named as gem names it.
func TestVC4IoctlTable(t *testing.T) {
	if len(vc4Ioctls) != 15 {
		t.Fatalf("%d vc4 ioctls, want 15", len(vc4Ioctls))
	}
	for i, d := range vc4Ioctls {
		if d == nil {
			t.Errorf("no vc4 ioctl 0x%02x", i)
			continue
		}
		if d.cmd.Nr() != uapi.CommandBase+uint32(i) || d.name != uapi.IoctlName(d.cmd) {
			t.Errorf("entry %d: %s, number 0x%02x", i, d.name, d.cmd.Nr())
		}
	}
}

// A core entry with a request sits at that request's number.
func TestCoreIoctlTable(t *testing.T) {
	for nr, d := range coreIoctls {
		if d != nil && d.cmd != 0 && d.cmd.Nr() != uint32(nr) {
			t.Errorf("%s (number 0x%02x) at 0x%02x", d.name, d.cmd.Nr(), nr)
		}
	}
}
