package sim

import (
	"errors"

	simdisplay "github.com/vccube/vccube/sim/display"
	"github.com/vccube/vccube/sim/gpu"
	"github.com/vccube/vccube/sim/hw"
)

// System is a whole simulated Raspberry Pi as a program sees it: the vc4
// kernel driver (Device) with the GPU model (sim/gpu) running its jobs and
// a monitor on HDMI-A-1 (sim/display). It is what cmd/vccube runs on when
// there is no VideoCore IV, and what its end-to-end tests look inside.
//
//	s, err := sim.NewSystem(sim.SystemOptions{})
//	conn, err := s.Open()
//	...
//	conn.Close()
//	s.Close() // the device, its display and the GPU model's workers
type System struct {
	*Device
	// GPU is the GPU model the kernel hands its jobs to.
	GPU *gpu.GPU
	// Display is the KMS display behind the device's CRTC.
	Display *simdisplay.Display
}

// SystemOptions configure a System: the device's own options and those of
// the GPU model and of the display it is composed with.
type SystemOptions struct {
	// Device configures the kernel side (board, CMA size, faults, trace).
	// Its GPU and Display must be nil: NewSystem supplies them.
	Device Options
	// GPU configures the GPU model.
	GPU gpu.Options
	// Display configures the display; its zero value is a 1080p HDMI
	// monitor on virtual time (simdisplay.VirtualClock).
	Display simdisplay.Options
	// WrapGPU, if set, is given the GPU model and returns what the kernel
	// hands its jobs to instead: the model behind a recorder
	// (jobfile.Recorder, vc4serve -record-jobs), for instance.
	WrapGPU func(hw.GPU) hw.GPU
	// UnplugAfter, if not 0, pulls the monitor out of HDMI-A-1
	// (simdisplay.Display.Unplug) after the UnplugAfter-th picture the
	// display shows: the mode set's and each completed page flip's
	// (simdisplay.Options.OnFlip, which still gets every one).
	UnplugAfter int
}

// NewSystem makes the GPU model, the display and the device that drives
// both; on failure nothing is left running.
func NewSystem(o SystemOptions) (*System, error) {
	if o.Device.GPU != nil || o.Device.Display != nil {
		return nil, errors.New("sim: SystemOptions.Device.GPU and .Display must be nil: NewSystem makes the GPU model and the display itself")
	}
	var disp *simdisplay.Display
	if o.UnplugAfter > 0 {
		unplugAfter(&o.Display, o.UnplugAfter, &disp)
	}
	g := gpu.New(o.GPU)
	disp = simdisplay.New(o.Display)
	o.Device.GPU, o.Device.Display = g, disp
	if o.WrapGPU != nil {
		o.Device.GPU = o.WrapGPU(g)
	}
	dev, err := New(o.Device)
	if err != nil {
		disp.Close()
		g.Close()
		return nil, err
	}
	return &System{Device: dev, GPU: g, Display: disp}, nil
}

// Close shuts the device down (which releases its CMA pool), then the
// display and the GPU model's workers. Files still open fail with ENODEV
// from then on. Later calls do nothing more.
func (s *System) Close() error {
	err := errors.Join(s.Device.Close(), s.Display.Close())
	s.GPU.Close()
	return err
}
