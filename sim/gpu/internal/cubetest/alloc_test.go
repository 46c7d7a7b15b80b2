package cubetest

import (
	"testing"

	"github.com/vccube/vccube/cuberender"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/gpu"
)

// The GPU model allocates nothing per frame once warm: running a real
// frame's job again and again leaves the heap alone (no per-frame heap
// growth). AllocsPerRun counts the mallocs of every goroutine, so the
// render workers' are included.
func TestGPUJobDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	g := gpu.New(gpu.Options{})
	defer g.Close()
	cg := &captureGPU{g: g}
	dev, err := sim.New(sim.Options{GPU: cg})
	if err != nil {
		t.Fatal(err)
	}
	f, err := dev.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := cuberender.New(f, cuberender.Options{Width: 800, Height: 600, Buffers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	seq, err := r.Render(0, 40)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Wait(seq); err != nil {
		t.Fatal(err)
	}
	job := cg.job
	for range 3 { // warm the workers' lists and caches
		if res := g.Run(&job); res.Hung {
			t.Fatal(res.Reason)
		}
	}
	if n := testing.AllocsPerRun(20, func() {
		if res := g.Run(&job); res.Hung {
			t.Fatal(res.Reason)
		}
	}); n != 0 {
		t.Errorf("%v allocations per frame, want 0", n)
	}
}
