package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// profiles are the -cpuprofile and -memprofile files of a run.
type profiles struct {
	cpu, mem *os.File
}

// startProfiles creates the profile files, before any device is opened so
// that an unwritable path is reported first, and starts the CPU profile.
// The CPU profile covers the whole run from here, setup included: the
// frames dominate any run of more than a few, and a slow start is worth
// seeing too.
func startProfiles(cfg *config) (*profiles, error) {
	p := &profiles{}
	var err error
	if cfg.cpuProfile != "" {
		if p.cpu, err = os.Create(cfg.cpuProfile); err != nil {
			return nil, fmt.Errorf("-cpuprofile: %w; choose a writable file", err)
		}
		if err = pprof.StartCPUProfile(p.cpu); err != nil {
			p.cpu.Close()
			return nil, fmt.Errorf("-cpuprofile: %w", err)
		}
	}
	if cfg.memProfile != "" {
		if p.mem, err = os.Create(cfg.memProfile); err != nil {
			p.stop()
			return nil, fmt.Errorf("-memprofile: %w; choose a writable file", err)
		}
	}
	return p, nil
}

// stop ends the CPU profile and writes the memory profile, as go test's
// -cpuprofile and -memprofile do: the memory profile is the "allocs"
// profile after a garbage collection, so it holds every allocation of the
// run (alloc_space, alloc_objects) and what is still live at the end
// (inuse_space, inuse_objects).
func (p *profiles) stop() error {
	var errs []error
	if p.cpu != nil {
		pprof.StopCPUProfile()
		if err := p.cpu.Close(); err != nil {
			errs = append(errs, fmt.Errorf("-cpuprofile: %w", err))
		}
		p.cpu = nil
	}
	if p.mem != nil {
		runtime.GC()
		if err := pprof.Lookup("allocs").WriteTo(p.mem, 0); err != nil {
			errs = append(errs, fmt.Errorf("-memprofile: %w", err))
		}
		if err := p.mem.Close(); err != nil {
			errs = append(errs, fmt.Errorf("-memprofile: %w", err))
		}
		p.mem = nil
	}
	return errors.Join(errs...)
}
