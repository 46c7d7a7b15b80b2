// Package hw is the interface between the simulated vc4 kernel driver
// (sim/kernel) and the simulated VideoCore IV 3D hardware (sim/gpu): a job
// as the kernel hands it to the V3D, and what the hardware reports back.
//
// On a Pi the kernel starts a job by writing the control-list executor's
// registers: CT0CA/CT0EA for the binning list and CT1CA/CT1EA for the render
// list (reference guide §10 Table 48; Linux vc4_gem.c
// vc4_submit_next_bin_job / vc4_submit_next_render_job). It supplies binner
// overflow memory through BPOA/BPOS when the binner raises OUTOMEM
// (vc4_irq.c vc4_overflow_mem_work), and reads the performance counters
// after the job (vc4_perfmon.c). Job carries exactly that.
package hw

import (
	"github.com/vccube/vccube/sim/mem"
	"github.com/vccube/vccube/uapi"
)

// Job is one SUBMIT_CL as the hardware sees it, after validation.
type Job struct {
	// Mem is the only memory the GPU may touch: the job's BOs, the exec
	// BO (validated bin CL, shader records, uniforms), the render CL BO
	// and the binner slot(s).
	Mem *mem.View

	// BinStart and BinEnd are CT0CA and CT0EA: the validated binning
	// control list. Both zero means there is no binning pass
	// (bin_cl_size == 0: a render-only job such as a clear).
	BinStart, BinEnd uint32
	// RenderStart and RenderEnd are CT1CA and CT1EA: the render control
	// list the kernel generated.
	RenderStart, RenderEnd uint32

	// Overflow is called when the binner runs out of tile allocation
	// memory (the OUTOMEM interrupt). It returns another region (already
	// added to Mem as writable) or ok == false if the kernel has none
	// ("Couldn't allocate binner overflow mem"; the binner then stalls and
	// the job hangs). May be nil.
	Overflow func() (r mem.Region, ok bool)

	// Counters, if not nil, receives the hardware performance counter
	// increments of this job, indexed by event number (the numbering of
	// enum drm_vc4_perfmon_event in vc4_drm.h, which is the V3D's own
	// PCTRS event select numbering).
	Counters *Counters
}

// NumEvents is the number of V3D performance counter events
// (VC4_PERFCNT_NUM_EVENTS in include/uapi/drm/vc4_drm.h, described in uapi).
const NumEvents = uapi.PerfcntNumEvents

// Counters holds one count per performance counter event.
type Counters [NumEvents]uint64

// Regs is the V3D register state the kernel saves on a hang for
// GET_HANG_STATE (struct drm_vc4_get_hang_state, vc4_gem.c
// vc4_save_hang_state).
type Regs struct {
	CT0CA, CT0EA, CT1CA, CT1EA uint32
	CT0CS, CT1CS               uint32
	CT0RA0, CT1RA0             uint32
	BPCA, BPCS, BPOA, BPOS     uint32
	VPMBASE                    uint32
	DBGE, FDBGO, FDBGB         uint32
	FDBGR, FDBGS, ERRSTAT      uint32
}

// Result is what the hardware reports when a job ends.
type Result struct {
	// Hung is true if the job did not complete: a control list that never
	// ends, a render thread waiting on a semaphore nobody increments, a
	// binner out of memory with no overflow, or an access outside Mem.
	// The kernel's hang check then resets the GPU and retires the job
	// anyway (vc4_gem.c vc4_hangcheck_elapsed, vc4_reset): to user space
	// a hung job looks finished, with garbage output.
	Hung bool
	// Reason says why the job hung, for the simulator's log and trace.
	Reason error
	// Regs is the register state at the end (or at the hang).
	Regs Regs
}

// GPU runs jobs. Jobs run one at a time in submission order, binning then
// rendering, like the single hardware queue of vc4_gem.c.
//
// On a Pi the binning of job N+1 overlaps the rendering of job N (the
// FLDONE interrupt moves a job from the bin list to the render list,
// vc4_irq.c). A GPU that ran the two passes separately would let the
// kernel model do the same, but binning is about 0.4% of a cube frame's
// time in the GPU model (0.13 ms of 36 ms at 800x600, measured on the
// model's own job by running its bin list alone), so the interface keeps
// one call per job.
type GPU interface {
	// Run executes the job's binning and render control lists and says
	// how the job ended.
	Run(job *Job) Result
}
