// Package simrig holds the rigs that tests outside sim/ build on the
// simulated device: the whole simulated Pi, closed when the test ends,
// and the device served to other processes (package simserve) from a
// directory, as vc4serve serves it.
package simrig

import (
	"sync"
	"testing"

	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/simserve"
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
