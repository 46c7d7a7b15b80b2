// Package simrig holds the rigs that tests build on the simulated device
// through the client packages: the whole simulated Pi, closed when the
// test ends; the device served to other processes (package simserve)
// from a directory, as vc4serve serves it; BOs made and mapped through
// gem.
package simrig

import (
	"image"
	"sync"
	"syscall"
	"testing"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/gem"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/display"
	"github.com/vccube/vccube/simserve"
	"github.com/vccube/vccube/uapi"
)

// System makes a simulated Pi (sim.NewSystem: the GPU model, the display
// and the device driving both) that is closed when the test ends.
func System(t testing.TB, o sim.SystemOptions) *sim.System {
	t.Helper()
	s, err := sim.NewSystem(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Served is a device being served: Server.Dir is the directory clients
// get as VC4SIM.
type Served struct {
	*simserve.Server
	done chan error // Serve's result
	once sync.Once
	err  error
}

// Serve serves dev with opts (opts.Device is set to dev) from opts.Dir,
// or from a temporary directory of the test's, until Stop or the end of
// the test. The test fails if closing the server or serving fails.
func Serve(t testing.TB, dev *sim.Device, opts simserve.Options) *Served {
	t.Helper()
	opts.Device = dev
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	srv, err := simserve.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	s := &Served{Server: srv, done: make(chan error, 1)}
	go func() { s.done <- srv.Serve() }()
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Error(err)
		}
	})
	return s
}

// Stop closes the server and waits until it has stopped serving. It
// returns the first error of the two; later calls return the first
// call's result.
func (s *Served) Stop() error {
	s.once.Do(func() {
		s.err = s.Server.Close()
		if err := <-s.done; s.err == nil {
			s.err = err
		}
	})
	return s.err
}

// AllocBO makes a vc4 BO of size bytes on c (gem.AllocBO).
func AllocBO(t testing.TB, c uapi.Conn, size uint32) uint32 {
	t.Helper()
	h, err := gem.AllocBO(c, size)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// MapBO maps size bytes of BO h for reading and writing; the mapping is
// removed when the test ends.
func MapBO(t testing.TB, c uapi.Conn, h uint32, size int) []byte {
	t.Helper()
	off, err := gem.MapOffset(c, h)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Mmap(off, size, syscall.PROT_READ|syscall.PROT_WRITE)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Munmap(b) })
	return b
}

// FirstConnector returns the card's resources and its first connector
// (on the simulated Pi, HDMI-A-1) with its modes.
func FirstConnector(t testing.TB, c uapi.Conn) (*drm.Resources, *drm.Connector) {
	t.Helper()
	res, err := drm.GetResources(c)
	if err != nil {
		t.Fatal(err)
	}
	cn, err := drm.GetConnector(c, res.Connectors[0])
	if err != nil {
		t.Fatal(err)
	}
	return res, cn
}

// Scanout returns the picture disp scans out now (display.ReadScanout,
// converted by Frame.Image), failing the test if there is none.
func Scanout(t testing.TB, disp *display.Display) *image.RGBA {
	t.Helper()
	var fr display.Frame
	if err := disp.ReadScanout(&fr); err != nil {
		t.Fatal(err)
	}
	img, err := fr.Image()
	if err != nil {
		t.Fatal(err)
	}
	return img
}
