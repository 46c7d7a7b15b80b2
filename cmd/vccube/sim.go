package main

import (
	"errors"

	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/display"
	"github.com/vccube/vccube/sim/gpu"
	"github.com/vccube/vccube/uapi"
)

// simOpener opens the simulated device and returns the Conn of one open
// file on it; closing the Conn shuts the whole device down.
type simOpener func() (uapi.Conn, error)

// defaultSim opens the simulated device the program runs on when there is
// no VideoCore IV: a Pi 3's vc4 (package sim) with the GPU model
// (sim/gpu) and an HDMI monitor (sim/display) whose vblanks come in real
// time, so frames are paced as on a Pi.
func defaultSim() (uapi.Conn, error) {
	return newSim(sim.Options{}, display.Options{Clock: display.RealClock})
}

// newSim makes a simulated device with the GPU model and a display and
// opens a file on it; closing that file shuts the device down.
func newSim(opts sim.Options, dopts display.Options) (uapi.Conn, error) {
	g := gpu.New(gpu.Options{})
	disp := display.New(dopts)
	opts.GPU, opts.Display = g, disp
	dev, err := sim.New(opts)
	if err != nil {
		disp.Close()
		g.Close()
		return nil, err
	}
	f, err := dev.Open()
	if err != nil {
		dev.Close()
		disp.Close()
		g.Close()
		return nil, err
	}
	return &simConn{File: f, dev: dev, disp: disp, gpu: g}, nil
}

// simConn is the program's file on a simulated device it owns: closing the
// file also shuts down the device, its display and its GPU model.
type simConn struct {
	*sim.File
	dev  *sim.Device
	disp *display.Display
	gpu  *gpu.GPU
}

// Close closes the file, then the device, the display and the GPU model.
func (c *simConn) Close() error {
	err := c.File.Close()
	// The device's Close releases its CMA pool (its mapping and
	// descriptor) too.
	err = errors.Join(err, c.dev.Close(), c.disp.Close())
	c.gpu.Close()
	return err
}
