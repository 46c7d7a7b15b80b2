package bench

import (
	"time"

	"github.com/vccube/vccube/present"
	"github.com/vccube/vccube/report"
)

// Pacing follows the page flips of a run beyond present.Stats: it checks
// each interval between completions against the mode's frame period, and
// tells the vblanks a flip missed because its frame came late from those it
// missed although it was queued in time.
//
// A flip completes at a vblank. The vblanks between the previous
// completion and this one showed no new frame (present.Flip.Missed). Each
// of them either passed before the flip was queued — the frame was not
// ready, and the display could not have shown it — or after — the flip was
// waiting and the display path let a vblank go by. The second kind is a
// fault of the kernel, the driver or the machine (a stall between the
// queueing and the vblank), never of the renderer. Telling them apart needs
// the queue time and the event timestamps on one clock: CLOCK_MONOTONIC,
// which DRM uses for event timestamps (DRM_CAP_TIMESTAMP_MONOTONIC).
//
// Its methods allocate nothing.
type Pacing struct {
	// Period is the mode's frame period (report.FramePeriod); 0 turns
	// the interval check and the split of missed vblanks off.
	Period time.Duration
	// Classify enables the split of missed vblanks: set it when the
	// queue times given to Queued are on the clock of the event
	// timestamps.
	Classify bool

	queued    time.Duration // when the last flip was queued
	hasQueued bool
	last      present.Flip
	hasLast   bool

	errMax    time.Duration
	late      uint64
	afterQ    uint64
	marginMax time.Duration
}

// Queued records that a page flip was queued at time t (read right after
// Present returned; a little late, so a miss is counted against the flip
// only when the vblank came after that).
func (p *Pacing) Queued(t time.Duration) { p.queued, p.hasQueued = t, true }

// Flip records a completed flip (a present.Swapchain's OnFlip). The flip
// completed is always the one queued last: a swapchain has at most one
// flip pending, and queues the next only after the last completed.
func (p *Pacing) Flip(f present.Flip) {
	if p.hasLast && p.Period > 0 {
		step := f.Sequence - p.last.Sequence
		e := f.Time - p.last.Time - time.Duration(step)*p.Period
		if e < 0 {
			e = -e
		}
		p.errMax = max(p.errMax, e)
		if missed := uint64(max(step, 1) - 1); missed > 0 && p.Classify && p.hasQueued {
			// The missed vblanks were at f.Time - j·Period, j = 1..missed;
			// those later than the queue time are the display's.
			after := uint64(0)
			if d := f.Time - p.queued; d > 0 {
				after = min(missed, uint64((d-1)/p.Period))
			}
			p.late += missed - after
			if after > 0 {
				p.afterQ += after
				first := f.Time - time.Duration(after)*p.Period // the earliest vblank missed after queueing
				p.marginMax = max(p.marginMax, first-p.queued)
			}
		}
	}
	p.last, p.hasLast = f, true
}

// Fill sets the report's pacing fields.
func (p *Pacing) Fill(f *report.Flips) {
	f.FramePeriodMs = report.Ms(p.Period)
	f.IntervalErrorMaxMs = report.Ms(p.errMax)
	f.MissedLate, f.MissedQueued = p.late, p.afterQ
	f.MissedQueuedMarginMaxMs = report.Ms(p.marginMax)
}
