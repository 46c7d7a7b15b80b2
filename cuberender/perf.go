package cuberender

import (
	"errors"
	"fmt"

	"github.com/vccube/vccube/gem"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// Counter is one GPU performance counter's total over every frame
// submitted since New.
type Counter struct {
	// Event is the counter's event number (uapi.Perfcnt*).
	Event uint8
	// Name is the counter's name as Mesa's vc4 driver exposes it through
	// GL_AMD_performance_monitor (uapi.PerfcntName).
	Name string
	// Value is the total.
	Value uint64
}

// counterEvents are the events the renderer counts: at most
// uapi.MaxPerfCounters (DRM_VC4_MAX_PERF_COUNTERS) per perfmon. They answer
// the questions a benchmark of the cube raises: how many primitives and
// quads reach the screen, where the QPUs spend their cycles, and how the
// texture and L2 caches do.
var counterEvents = [...]uint8{
	uapi.PerfcntFEPValidPrimsRender,
	uapi.PerfcntFEPValidQuads,
	uapi.PerfcntTLBQuadsWrittenToColorBuf,
	uapi.PerfcntPLBPrimsOutsideViewport,
	uapi.PerfcntPSEPrimsReversed,
	uapi.PerfcntQPUTotalIdleCycles,
	uapi.PerfcntQPUTotalClkCyclesVertexCoordShading,
	uapi.PerfcntQPUTotalClkCyclesFragmentShading,
	uapi.PerfcntQPUTotalClkCyclesExecValidInst,
	uapi.PerfcntQPUTotalClkCyclesWaitingTMUs,
	uapi.PerfcntQPUTotalClkCyclesWaitingScoreboard,
	uapi.PerfcntQPUTotalClkCyclesWaitingVaryings,
	uapi.PerfcntTMUTotalTextQuadsProcessed,
	uapi.PerfcntTMUTotalTextCacheMiss,
	uapi.PerfcntL2CTotalL2CacheHit,
	uapi.PerfcntL2CTotalL2CacheMiss,
}

var _ [uapi.MaxPerfCounters - len(counterEvents)]struct{} // at most 16 events

// createPerfmon makes the perfmon if the kernel has perfmons: GET_PARAM
// SUPPORTS_PERFMON is 1 since Linux 4.17, and older kernels answer EINVAL
// for the unknown parameter (vc4_drv.c vc4_get_param_ioctl), which means
// "no counters", not failure.
func (r *Renderer) createPerfmon() error {
	v, err := gem.Param(r.c, uapi.ParamSupportsPerfmon)
	if errors.Is(err, unix.EINVAL) || (err == nil && v == 0) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("render: asking for performance counter support: %w", err)
	}
	var events [len(counterEvents)]uint8
	copy(events[:], counterEvents[:])
	if r.perfmon, err = gem.NewPerfmon(r.c, events[:]...); err != nil {
		return fmt.Errorf("render: creating a performance monitor: %w", err)
	}
	return nil
}

// HasCounters reports whether the renderer counts GPU performance events
// (Options.Counters and a kernel with perfmons).
func (r *Renderer) HasCounters() bool { return r.perfmon != nil }

// Counters returns the totals of the GPU performance counters over every
// frame submitted so far (the kernel adds each job's counts to its
// perfmon: vc4_perfmon.c vc4_perfmon_stop), or nil without counters. Call
// it after waiting for the last frame; it allocates.
func (r *Renderer) Counters() ([]Counter, error) {
	if r.perfmon == nil {
		return nil, nil
	}
	vals, err := r.perfmon.Values()
	if err != nil {
		return nil, fmt.Errorf("render: reading the performance counters: %w", err)
	}
	out := make([]Counter, len(counterEvents))
	for i, e := range counterEvents {
		out[i] = Counter{Event: e, Name: uapi.PerfcntName(e)}
		if i < len(vals) {
			out[i].Value = vals[i]
		}
	}
	return out, nil
}
