// Package gpu is the simulated VideoCore IV 3D (V3D) of the Raspberry Pi
// 0/1/2/3: it runs the jobs the simulated vc4 kernel hands it (hw.Job) the
// way the hardware does — the binning control list on CLE thread 0 and the
// render control list on thread 1, synchronised by the CLE semaphore — and
// reports what the hardware would (hw.Result, performance counters).
//
// The units live in subpackages, one job each:
//
//	cle      the control-list executor (packet fetch, branches, sub-lists)
//	bin      binning: PTB state, clipping, culling, tile lists
//	vertex   shader state, shaded vertex formats, NV-mode vertices, assembly
//	vcd      GL-mode attribute fetch and vertex/coordinate shading on a QPU
//	raster   primitive setup, rasterisation, W/Z/varying interpolation
//	render   the rendering pass: tiles in parallel, fragment shading
//	tmu      texture and memory lookups
//	tlb      the tile buffer: Z/stencil tests, loads and stores
//	qpuexec  the QPU interpreter and the VPM
//
// # Performance counters
//
// hw.Job.Counters receives, numbered as enum drm_vc4_perfmon_event
// (uapi.Perfcnt*): QPU clocks of vertex and coordinate shading and of
// fragment shading (four clocks per instruction per QPU, [AG] §3) and
// their sum as "executing valid instructions"; FEP primitives rendered
// or not, valid quads and quads rejected by early-Z; PLB primitives
// outside the viewport and needing clipping; PSE reversed primitives; TLB
// quads passing or failing the Z and stencil tests, failing the stencil
// test, with zero and non-zero coverage, and written to the colour buffer;
// TMU texture quads processed. Counters that measure time spent waiting
// or cache behaviour (QPU idle, TMU/scoreboard/varying stalls, the
// instruction, uniform, texture and L2 caches, VPM stalls) stay zero: the
// model has no clock.
//
// # Not modelled
//
// Multisampling and decimation, the 64-bit tile buffer, VG mode and the
// coverage pipe, cube maps and child images, ETC1 without ETCFLIP and the
// S8/S16/S16F sample types, the VG mask and full-dump buffers. A job that needs one of
// them ends hung with a tlb.Unsupported or tmu.Unsupported reason rather
// than render something else.
//
// Sources: the Broadcom VideoCore IV 3D Architecture Reference Guide
// (VideoCoreIV-AG100-R, "AG"), Mesa's vc4 driver and the Linux vc4 kernel
// driver, as doc/hardware.md and doc/kernel.md state them; each
// file names its own, and next to each choice where the sources are silent
// or disagree.
package gpu

import (
	"errors"
	"fmt"
	"sync"

	"github.com/vccube/vccube/sim/gpu/bin"
	"github.com/vccube/vccube/sim/gpu/cle"
	"github.com/vccube/vccube/sim/gpu/internal/modelbug"
	"github.com/vccube/vccube/sim/gpu/qpuexec"
	"github.com/vccube/vccube/sim/gpu/render"
	"github.com/vccube/vccube/sim/gpu/vcd"
	"github.com/vccube/vccube/sim/hw"
	"github.com/vccube/vccube/uapi"
)

// Options configure a GPU.
type Options struct {
	// Workers is the number of tiles rendered concurrently; 0 means
	// runtime.GOMAXPROCS(0).
	Workers int
	// Permissive runs shaders that break the QPU's instruction
	// restrictions, recording warnings; by default (strict, what tests
	// want) such a shader fails its job.
	Permissive bool
	// Limits bound each control list's work before the job counts as
	// hung; the zero value means cle.DefaultLimits.
	Limits cle.Limits
	// Reference runs the model's general code instead of its fast paths:
	// the QPU interpreter instruction by instruction as decoded
	// (qpuexec.QPU.Reference), the TMU's request FIFO and per-element
	// sampling (tmu.Unit.Reference), the per-element depth tests. The
	// results are the same to the bit (each fast path's tests compare it
	// with the general code); this is for checking that, on whole jobs,
	// and it is slower.
	Reference bool
}

// GPU is the simulated V3D. It implements hw.GPU. Its tile buffer, clear
// values and decoded-shader cache persist from job to job, as the
// hardware's state and the shader BOs do.
type GPU struct {
	mu       sync.Mutex
	opts     Options
	cache    *qpuexec.Cache
	cs       *vcd.Unit
	binner   *bin.Binner
	renderer *render.Renderer
	sem      cle.Semaphore
	closed   bool
}

var _ hw.GPU = (*GPU)(nil)

// New returns a GPU. Close it to stop its render workers.
func New(o Options) *GPU {
	if o.Limits.Packets == 0 {
		o.Limits = cle.DefaultLimits
	}
	g := &GPU{opts: o, cache: qpuexec.NewCache()}
	g.cs = vcd.NewUnit(g.cache, 0, o.Permissive)
	g.cs.SetReference(o.Reference)
	g.binner = bin.New(g.cs)
	g.binner.SetReference(o.Reference)
	g.renderer = render.New(g.cache, render.Options{Workers: o.Workers, Permissive: o.Permissive, Limits: o.Limits, Reference: o.Reference})
	return g
}

// Close stops the GPU's workers, after the job in progress if one is
// running. A closed GPU hangs every job it is given, with ErrClosed.
func (g *GPU) Close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	g.renderer.Close()
}

// ErrClosed is the reason of a job given to a closed GPU.
var ErrClosed = errors.New("the GPU model is closed")

// ErrDeadlock is the reason of a job whose threads both wait on the
// semaphore.
var ErrDeadlock = errors.New("both control-list threads wait on the semaphore: nothing can increment it")

// Run executes a job: binning then rendering, interleaved only where the
// semaphore makes a thread wait for the other ([AG] §8 "System
// Operation"). A job that faults, runs away, deadlocks or asks for
// something the model does not implement ends hung, with the reason.
func (g *GPU) Run(job *hw.Job) (res hw.Result) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return hw.Result{Hung: true, Reason: ErrClosed}
	}
	// A panic (a *modelbug.Error) ends the job as hung.
	var bug error
	defer func() {
		if bug != nil {
			res = hw.Result{Hung: true, Reason: bug}
		}
	}()
	defer modelbug.Recover(&bug)
	v := job.Mem
	// The kernel resets the V3D after a hang (vc4_gem.c vc4_reset); we
	// start every job with the semaphore at zero.
	g.sem = cle.Semaphore{}
	g.cs.SetView(v)
	csBefore, csTex := g.cs.Instructions, g.cs.TexQuads
	hasBin := job.BinStart != job.BinEnd
	g.binner.Start(v, job.BinStart, job.BinEnd, job.Overflow, job.Counters, &g.sem, g.opts.Limits)
	g.renderer.Start(v, job.RenderStart, job.RenderEnd, job.Counters, &g.sem)
	binDone, renderDone := !hasBin, false
	var err error
	for err == nil && !(binDone && renderDone) {
		progressed := false
		if !binDone {
			pc, sem := g.binner.Thread().PC(), g.sem.Count
			var st cle.Status
			st, err = g.binner.Run()
			binDone = st == cle.Done
			progressed = binDone || pc != g.binner.Thread().PC() || sem != g.sem.Count
		}
		if err == nil && !renderDone {
			pc, sem := g.renderer.Thread().PC(), g.sem.Count
			var st cle.Status
			g.renderer.SetConcurrent(binDone)
			st, err = g.renderer.Run()
			renderDone = st == cle.Done
			progressed = progressed || renderDone || pc != g.renderer.Thread().PC() || sem != g.sem.Count
		}
		if err == nil && !progressed {
			err = ErrDeadlock
		}
	}
	if job.Counters != nil {
		job.Counters[uapi.PerfcntQPUTotalClkCyclesVertexCoordShading] += 4 * (g.cs.Instructions - csBefore)
		job.Counters[uapi.PerfcntQPUTotalClkCyclesExecValidInst] += 4 * (g.cs.Instructions - csBefore)
		job.Counters[uapi.PerfcntTMUTotalTextQuadsProcessed] += g.cs.TexQuads - csTex
	}
	res = hw.Result{Regs: hw.Regs{
		CT0CA: g.binner.Thread().PC(), CT0EA: g.binner.Thread().End(), CT0RA0: g.binner.Thread().ReturnAddr(),
		CT1CA: g.renderer.Thread().PC(), CT1EA: g.renderer.Thread().End(), CT1RA0: g.renderer.Thread().ReturnAddr(),
	}}
	if err == nil {
		// A fault the units absorbed still means the job touched memory
		// it does not own; the validator should have prevented it.
		if n, f := v.Faults(); n > 0 {
			err = fmt.Errorf("%d accesses outside the job's memory, the first: %w", n, f)
		}
	}
	if err != nil {
		res.Hung, res.Reason = true, err
	}
	return res
}
