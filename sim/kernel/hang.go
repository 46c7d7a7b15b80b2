package kernel

import (
	"errors"
	"time"

	"github.com/vccube/vccube/sim/hw"
)

// The hang check and the reset (vc4_gem.c vc4_hangcheck_elapsed,
// vc4_reset_work, vc4_reset; vc4_irq.c vc4_irq_reset).
//
// The kernel arms a timer when it starts a job on an idle GPU
// (vc4_queue_submit → vc4_queue_hangcheck) for round_jiffies_up(jiffies +
// msecs_to_jiffies(100)): 100 ms later, rounded up to a whole second. At
// each expiry it reads CT0CA and CT1CA, the two control-list threads'
// current addresses; if either moved since the last check (each job's
// last_ct0ca and last_ct1ca start at 0, so the first check after a job
// starts always sees it move) it arms the timer again, otherwise it saves
// the hang state and resets the GPU. A job that stops making progress is
// therefore reset at the second check after it stopped: between one and
// two seconds later. A slow job whose addresses keep moving is never
// reset, however long it takes.
//
// The reset (vc4_irq_reset) cancels the job in the binner, which
// vc4_cancel_bin_job puts back on the bin queue and starts again, and
// force-completes the job in the render thread (vc4_irq_finish_render_job:
// finished_seqno advances, its fence is signalled and the waiters wake):
// to user space a job hung while rendering looks finished, with whatever
// the GPU had written, and a job hung while binning is binned again from
// the start, so one that hangs every time it is binned never ends and the
// kernel logs "Resetting GPU." at every other check.
//
// The model runs a job whole (hw.GPU.Run), so it knows a job hung when Run
// returns; it then waits for the hang check as the kernel would
// (Config.HangcheckPeriod, whose checks it counts from the driver's
// creation), logs "Resetting GPU.", saves the hang state, and restarts the
// job if its binning had not finished (Config.BinHangRestarts), or
// force-completes it. The kernel puts a cancelled bin job behind any other
// queued job; here it starts again at once, which is the same when it is
// the only job queued. A restarted job keeps its last_ct0ca, so the
// kernel may reset it at the first check after it stalls again at the
// same address; the model waits for the second, as for any stall.

// KernelHangcheckPeriod is the time between the kernel's hang checks
// while a job runs: 100 ms rounded up to a whole second
// (vc4_queue_hangcheck: round_jiffies_up(jiffies + msecs_to_jiffies(100))),
// a second when the previous check was on a whole second.
const KernelHangcheckPeriod = time.Second

// GPUFaults make the GPU misbehave on chosen jobs, for tests of how a
// program survives it. Jobs are counted by seqno, from 1; 0 selects none.
// A faulty job is not given to the GPU model (which is left alone), or is
// given to it late.
type GPUFaults struct {
	// HangAt makes job HangAt hang in the render thread, at the start of
	// its render list: nothing of the frame is written, and the hang
	// check resets the GPU and force-completes the job.
	HangAt uint64
	// HangFrom makes every job from HangFrom on hang so.
	HangFrom uint64
	// StallBinAt makes the binner stall at the start of job StallBinAt's
	// bin list every time the job runs, or only its first StallBinRuns
	// runs when that is not 0. The kernel restarts a job whose binning
	// hung after each reset, so with Config.BinHangRestarts < 0 a job
	// that stalls every time never ends, and one that stalls once comes
	// out whole after a reset.
	StallBinAt   uint64
	StallBinRuns int
	// LateAt makes job LateAt take LateBy longer than it would, making
	// progress all the while: the hang check sees its control-list
	// addresses move and leaves it alone. A slow job, not a hung one.
	LateAt uint64
	LateBy time.Duration
}

// Errors the faulty jobs hang with (hw.Result.Reason), which the kernel
// log and the trace show.
var (
	errInjectedHang     = errors.New("injected fault (GPUFaults.HangAt, HangFrom): the render thread stopped at the start of the render list")
	errInjectedBinStall = errors.New("injected fault (GPUFaults.StallBinAt): the binner stopped at the start of the bin list")
)

// runJob runs job j on the GPU until it completes or the hang check gives
// up on it, and returns how its last run ended. It is called without d.mu.
func (d *Driver) runJob(j *job) hw.Result {
	for run := 1; ; run++ {
		res := d.runOnce(j, run)
		if d.cfg.OnJobDone != nil {
			n, first := j.view.Faults()
			d.cfg.OnJobDone(JobReport{Seqno: j.seqno, Run: run, Result: res, Faults: n, First: first, Job: &j.hw})
		}
		if !res.Hung {
			return res
		}
		closing := !d.awaitHangcheck(time.Now())
		binning := j.hw.BinStart != j.hw.BinEnd && res.Regs.CT0CA != res.Regs.CT0EA
		d.mu.Lock()
		d.logf("Resetting GPU. (seqno %d: %v)", j.seqno, res.Reason)
		d.saveHangState(j, &res.Regs)
		restart := binning && !closing && (d.cfg.BinHangRestarts < 0 || run <= d.cfg.BinHangRestarts)
		if restart {
			// vc4_cancel_bin_job stops the job's perfmon without
			// capturing it: the cancelled run counts nothing.
			j.counters = hw.Counters{}
		}
		d.mu.Unlock()
		if !restart {
			return res
		}
	}
}

// runOnce gives the job to the GPU for its run-th run, or plays the fault
// Config.GPUFaults chose for it.
func (d *Driver) runOnce(j *job, run int) hw.Result {
	f := &d.cfg.GPUFaults
	s := j.seqno
	h := &j.hw
	switch {
	case s == f.StallBinAt && h.BinStart != h.BinEnd && (f.StallBinRuns == 0 || run <= f.StallBinRuns):
		return hw.Result{Hung: true, Reason: errInjectedBinStall, Regs: hw.Regs{
			CT0CA: h.BinStart, CT0EA: h.BinEnd, CT1CA: h.RenderStart, CT1EA: h.RenderEnd}}
	case s == f.HangAt || (f.HangFrom != 0 && s >= f.HangFrom):
		return hw.Result{Hung: true, Reason: errInjectedHang, Regs: hw.Regs{
			CT0CA: h.BinEnd, CT0EA: h.BinEnd, CT1CA: h.RenderStart, CT1EA: h.RenderEnd}}
	case s == f.LateAt && f.LateBy > 0:
		t := time.NewTimer(f.LateBy)
		select {
		case <-t.C:
		case <-d.quit:
			t.Stop()
		}
	}
	return d.cfg.GPU.Run(h)
}

// awaitHangcheck waits, from the moment the GPU stopped, for the hang
// check that resets it: the first check after the stall finds the
// addresses where they stopped, the next finds them unmoved
// (vc4_hangcheck_elapsed). It returns false without waiting the whole
// time when the driver is closing.
func (d *Driver) awaitHangcheck(stall time.Time) bool {
	p := d.cfg.HangcheckPeriod
	if p <= 0 {
		select {
		case <-d.quit:
			return false
		default:
			return true
		}
	}
	first := (stall.Sub(d.epoch)/p + 1) * p
	t := time.NewTimer(time.Until(d.epoch.Add(first + p)))
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-d.quit:
		return false
	}
}
