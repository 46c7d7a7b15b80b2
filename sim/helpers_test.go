package sim_test

import (
	"testing"

	"github.com/vccube/vccube/gem"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/internal/simtest"
	"github.com/vccube/vccube/sim/kernel/cleargpu"
	"github.com/vccube/vccube/uapi"
)

// newDevice makes a Pi 3 device on the placeholder GPU (these tests are
// about the kernel side) with a small CMA pool.
func newDevice(t testing.TB, opts sim.Options) *sim.Device {
	t.Helper()
	if opts.GPU == nil && opts.Board == sim.BoardPi3 {
		opts.GPU = cleargpu.New()
	}
	if opts.CMASize == 0 {
		opts.CMASize = 64 << 20
	}
	d, err := sim.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func open(t testing.TB, d *sim.Device) *sim.File {
	t.Helper()
	f, err := d.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// clearBO submits igt's "cleared BO" job (lib/igt_vc4.c
// igt_vc4_get_cleared_bo): no bin CL, only a colour-write surface on the
// BO, a 1024-pixel-wide RGBA8888 target and USE_CLEAR_COLOR.
func clearBO(t testing.TB, c uapi.Conn, h uint32, size uint32, clear uint32) uint64 {
	t.Helper()
	const width = 1024
	s := simtest.ClearJob(t, []uint32{h}, width, int(size)/(width*4), clear)
	if err := gem.Submit(c, &s); err != nil {
		t.Fatal(err)
	}
	return s.Seqno
}
