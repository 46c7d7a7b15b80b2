package main

import (
	"errors"
	"os"

	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/display"
	"github.com/vccube/vccube/sim/gpu"
	"github.com/vccube/vccube/uapi"
)

// simOpener opens the simulated device with the faults -sim-faults asks
// for and returns the Conn of one open file on it; closing the Conn shuts
// the whole device down.
type simOpener func(faults sim.FaultSpec) (uapi.Conn, error)

// defaultSim opens the simulated device the program runs on when there is
// no VideoCore IV: a Pi 3's vc4 with the GPU model and an HDMI monitor
// (sim.NewSystem) whose vblanks come in real time, so frames are paced as
// on a Pi, and whose kernel handles a GPU hang as Linux does
// (sim.Options.KernelHangs: a reset one to two seconds after the GPU
// stopped, a job hung in binning restarted), with the faults of
// -sim-faults (doc/testing.md#fault-injection). The program's file is
// opened as root's when it runs as root.
func defaultSim(faults sim.FaultSpec) (uapi.Conn, error) {
	o := sim.SystemOptions{
		Device:  sim.Options{}.KernelHangs(),
		Display: display.Options{Clock: display.RealClock},
		// VCCUBE_SIM_REFERENCE=1 runs the GPU model's general code
		// instead of its fast paths: the same pictures, slower; it is
		// there to check that (doc/performance.md#how-the-model-is-fast-and-stays-true).
		GPU: gpu.Options{Reference: os.Getenv("VCCUBE_SIM_REFERENCE") == "1"},
	}
	faults.Apply(&o)
	s, err := sim.NewSystem(o)
	if err != nil {
		return nil, err
	}
	// The program's file is root's when the program runs as root, as
	// it is on a Pi: what the kernel lets root alone do (GET_HANG_STATE,
	// vc4_drv.c DRM_ROOT_ONLY) the simulated kernel lets it do too.
	f, err := s.OpenWith(sim.OpenOptions{Root: os.Geteuid() == 0})
	if err != nil {
		s.Close()
		return nil, err
	}
	return &simConn{File: f, sys: s}, nil
}

// simConn is the program's file on a simulated device it owns: closing the
// file also shuts the device down.
type simConn struct {
	*sim.File
	sys *sim.System
}

// Close closes the file, then the device, its display and its GPU model.
func (c *simConn) Close() error {
	return errors.Join(c.File.Close(), c.sys.Close())
}

// KernelLog returns what the simulated kernel printed (sim.Device.KernelLog).
func (c *simConn) KernelLog() []string { return c.sys.KernelLog() }
