package main

import (
	"errors"

	"github.com/vccube/vccube/drm"
)

// simOpener opens the simulated device and returns the Conn of one open
// file on it; closing the Conn shuts the device down.
type simOpener func() (drm.Conn, error)

// defaultSim opens the simulated device the program uses.
//
// TODO(sim owner): package sim (the device behind drm.Conn) has not landed
// yet; until it does, -device sim and the fallback of -device auto fail
// with this error instead of pretending to render.
func defaultSim() (drm.Conn, error) {
	return nil, errors.New("this build of vccube has no simulated device yet (package sim is being written)")
}
