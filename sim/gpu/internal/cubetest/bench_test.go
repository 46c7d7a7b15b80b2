package cubetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/vccube/vccube/cuberender"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/gpu"
	"github.com/vccube/vccube/sim/hw"
)

// timedGPU measures the time jobs spend in the GPU model.
type timedGPU struct {
	g    *gpu.GPU
	busy time.Duration
	hung error
}

func (t *timedGPU) Run(j *hw.Job) hw.Result {
	start := time.Now()
	r := t.g.Run(j)
	t.busy += time.Since(start)
	if r.Hung && t.hung == nil {
		t.hung = r.Reason
	}
	return r
}

// newRenderer makes the renderer of a w×h frame (one buffer) on a
// simulated device whose kernel hands its jobs to g; the renderer, its
// file and the device are closed when the benchmark ends.
func newRenderer(b *testing.B, g hw.GPU, w, h int) *cuberender.Renderer {
	b.Helper()
	dev, err := sim.New(sim.Options{GPU: g})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { dev.Close() })
	f, err := dev.Open()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	r, err := cuberender.New(f, cuberender.Options{Width: w, Height: h, Buffers: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { r.Close() })
	return r
}

// BenchmarkCubeFrame renders vccube's frames through the whole simulated
// stack (renderer, kernel, GPU model) and reports frames per second and
// the milliseconds per frame spent in the GPU model.
func BenchmarkCubeFrame(b *testing.B) {
	for _, size := range [][2]int{{800, 600}, {1920, 1080}} {
		b.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(b *testing.B) {
			g := gpu.New(gpu.Options{})
			b.Cleanup(g.Close) // after the renderer and the device (cleanups run last first)
			tg := &timedGPU{g: g}
			r := newRenderer(b, tg, size[0], size[1])
			frame := func(i int) {
				seq, err := r.Render(0, float32(4*(i%90)))
				if err != nil {
					b.Fatal(err)
				}
				if err := r.Wait(seq); err != nil {
					b.Fatal(err)
				}
			}
			for i := 0; i < 5; i++ { // warm the caches and the pools
				frame(i)
			}
			tg.busy = 0
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				frame(i)
			}
			b.StopTimer()
			if tg.hung != nil {
				b.Fatal(tg.hung)
			}
			el := b.Elapsed().Seconds()
			b.ReportMetric(float64(b.N)/el, "fps")
			b.ReportMetric(tg.busy.Seconds()*1000/float64(b.N), "gpu-ms/frame")
		})
	}
}

// captureGPU keeps a copy of the last job it ran, so that a benchmark can
// run the GPU model alone on a real frame's job, without the renderer and
// the kernel model around it. The job's memory stays valid as long as no
// other job is submitted (the kernel frees its buffers into the pool, but
// nothing reuses them).
type captureGPU struct {
	g   *gpu.GPU
	job hw.Job
}

func (c *captureGPU) Run(j *hw.Job) hw.Result {
	c.job = *j
	return c.g.Run(j)
}

// BenchmarkGPUJob runs the job of one cube frame (turned 40°, three faces
// visible) on the GPU model over and over and reports frames per second of
// the model alone.
func BenchmarkGPUJob(b *testing.B) { benchGPUJob(b, gpu.Options{}) }

// BenchmarkFrameOnGeneralCode is BenchmarkGPUJob on the model's general code
// (gpu.Options.Reference), which the fast paths are held to bit for bit:
// the yardstick for what they gain, here as on Mesa's jobs
// (mesajobs.BenchmarkJobOnGeneralCode).
func BenchmarkFrameOnGeneralCode(b *testing.B) { benchGPUJob(b, gpu.Options{Reference: true}) }

func benchGPUJob(b *testing.B, opts gpu.Options) {
	for _, size := range [][2]int{{800, 600}, {1920, 1080}} {
		b.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(b *testing.B) {
			g := gpu.New(opts)
			b.Cleanup(g.Close) // after the renderer and the device (cleanups run last first)
			cg := &captureGPU{g: g}
			r := newRenderer(b, cg, size[0], size[1])
			seq, err := r.Render(0, 40)
			if err != nil {
				b.Fatal(err)
			}
			if err := r.Wait(seq); err != nil {
				b.Fatal(err)
			}
			job := cg.job
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if res := g.Run(&job); res.Hung {
					b.Fatal(res.Reason)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "fps")
		})
	}
}
