package sim_test

import (
	"errors"
	"strings"
	"syscall"
	"testing"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/gem"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/gpu"
)

// A System is the device composed with the GPU model and a display: a
// file opened on it renders (the GPU answers GET_PARAM as a V3D 2.1) and
// sets modes (the display lists its connector); Close shuts all three
// down, after which the file's ioctls fail with ENODEV.
func TestSystem(t *testing.T) {
	s, err := sim.NewSystem(sim.SystemOptions{Device: sim.Options{CMASize: 32 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := gem.ProbeV3D(f); err != nil {
		t.Errorf("ProbeV3D: %v", err)
	}
	res, err := drm.GetResources(f)
	if err != nil || len(res.Connectors) != 1 {
		t.Errorf("GetResources: %+v, %v", res, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := drm.GetResources(f); !errors.Is(err, syscall.ENODEV) {
		t.Errorf("after Close: %v, want ENODEV", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	// The GPU and the display are NewSystem's own.
	if _, err := sim.NewSystem(sim.SystemOptions{Device: sim.Options{GPU: gpu.New(gpu.Options{})}}); err == nil {
		t.Error("NewSystem took a GPU of the caller's")
	}
}

// KernelLog is the tail of what the simulated kernel printed: the reason
// of an ioctl it refused (DRM_DEBUG on Linux) and its own messages, such
// as the failed CMA allocation vc4_bo_create reports with drm_err.
func TestKernelLog(t *testing.T) {
	s, err := sim.NewSystem(sim.SystemOptions{Device: sim.Options{CMASize: 32 << 20, Faults: sim.Faults{CMAExhaustedAt: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f, err := s.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if log := s.KernelLog(); len(log) != 0 {
		t.Errorf("a fresh device logged %q", log)
	}
	// Not master: the file opened second on a device with a master.
	g, err := s.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if err := drm.DropMaster(g); err == nil {
		t.Fatal("DROP_MASTER by a file that is not master succeeded")
	}
	// The first CREATE_BO takes the binner BO (allocation 1) and the BO
	// itself (allocation 2, which fails).
	if _, err := gem.NewBO(f, 4096); !errors.Is(err, syscall.ENOMEM) {
		t.Fatalf("CREATE_BO: %v, want ENOMEM", err)
	}
	log := strings.Join(s.KernelLog(), "\n")
	for _, want := range []string{"DRM_IOCTL_DROP_MASTER: EACCES: ", "Failed to allocate", "DRM_IOCTL_VC4_CREATE_BO: ENOMEM"} {
		if !strings.Contains(log, want) {
			t.Errorf("the kernel log lacks %q:\n%s", want, log)
		}
	}
	// It keeps the last 32 lines.
	for i := 0; i < 40; i++ {
		drm.DropMaster(g)
	}
	if log := s.KernelLog(); len(log) != 32 || !strings.HasPrefix(log[31], "DRM_IOCTL_DROP_MASTER") {
		t.Errorf("%d lines, the last %q", len(log), log[len(log)-1])
	}
}
