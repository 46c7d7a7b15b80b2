package main

import (
	"errors"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/gpu"
)

// simOpener opens the simulated device and returns the Conn of one open
// file on it; closing the Conn shuts the whole device down.
type simOpener func() (drm.Conn, error)

// defaultSim opens the simulated device the program runs on when there is
// no VideoCore IV: a Pi 3's vc4 (package sim) with the GPU model
// (sim/gpu).
//
// TODO(sim/display owner): plug the simulated KMS display in here once
// package sim/display has landed; until then the device has no KMS (its
// mode-setting ioctls answer EOPNOTSUPP, as a driver without KMS does), so
// only -vsync=false runs on it.
func defaultSim() (drm.Conn, error) {
	g := gpu.New(gpu.Options{})
	dev, err := sim.New(sim.Options{GPU: g})
	if err != nil {
		g.Close()
		return nil, err
	}
	f, err := dev.Open()
	if err != nil {
		dev.Close()
		g.Close()
		return nil, err
	}
	return &simConn{File: f, dev: dev, gpu: g}, nil
}

// simConn is the program's file on a simulated device it owns: closing the
// file also shuts down the device and its GPU model.
type simConn struct {
	*sim.File
	dev *sim.Device
	gpu *gpu.GPU
}

// Close closes the file, then the device, then the GPU model.
func (c *simConn) Close() error {
	err := c.File.Close()
	err = errors.Join(err, c.dev.Close())
	c.gpu.Close()
	return err
}
