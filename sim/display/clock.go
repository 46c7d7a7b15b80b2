package display

import (
	"math"
	"math/bits"
	"time"

	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// ClockMode says what time the display runs on.
type ClockMode int

const (
	// VirtualClock is deterministic virtual time for tests and offline
	// runs: time stands still except when the device would make its
	// caller wait, and then it jumps to the moment the wait ends. A page
	// flip is the one thing that finishes later without a wait, so under
	// VirtualClock PAGE_FLIP itself moves the clock to the next vblank and
	// completes the flip there, queueing its event before the ioctl
	// returns: N flips take exactly N refresh periods, and a program that
	// waits for each event never blocks. Flips are therefore never seen
	// pending (no EBUSY); use SteppedClock to test that.
	VirtualClock ClockMode = iota
	// SteppedClock is virtual time that the test moves with Advance and
	// AdvanceToVblank; a flip stays pending until the clock passes its
	// vblank. Calls that block in the kernel (SETCRTC and RMFB stall for a
	// pending flip, a modeset waits for its first vblank) move the clock
	// themselves, as under VirtualClock.
	SteppedClock
	// RealClock is the wall clock (CLOCK_MONOTONIC, the kernel's vblank
	// timestamp clock): vblanks happen in real time, flips complete on a
	// timer goroutine and their events make the file's Fd readable then,
	// and blocking calls sleep. For interactive runs.
	RealClock
)

// String names the mode.
func (m ClockMode) String() string {
	switch m {
	case VirtualClock:
		return "virtual"
	case SteppedClock:
		return "stepped"
	case RealClock:
		return "real"
	}
	return "ClockMode(?)"
}

// monotonicNow reads CLOCK_MONOTONIC in nanoseconds, the clock the kernel
// stamps vblank events with (DRM_CAP_TIMESTAMP_MONOTONIC is 1).
func monotonicNow() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		// CLOCK_MONOTONIC exists on every Linux; fall back to Go's own
		// monotonic reading rather than stop the display.
		return int64(time.Since(processStart))
	}
	return ts.Nano()
}

var processStart = time.Now()

// timeline is one CRTC's vblanks while it runs a mode: vblank k (k ≥ 1)
// happens at t0 + floor(k·num/den) ns, where num/den is the frame time,
// htotal·vtotal pixels at the pixel clock: num = htotal·vtotal·10⁶ and den
// = the clock in kHz (doubled for interlaced modes, whose vblanks come
// once per field, as drm_vblank.c drm_calc_timestamping_constants halves
// framedur_ns). Using the exact fraction keeps vblank k at the right time
// however large k grows; the kernel's integer framedur_ns is only its
// estimate of this.
//
// The vblank counter is base at t0 and counts every vblank since. Across
// a modeset the kernel keeps counting from where it stopped
// (drm_crtc_vblank_off saves the count, drm_crtc_vblank_on resumes it;
// vc4 has no hardware frame counter), so a new timeline starts at the old
// one's count.
type timeline struct {
	t0       int64
	base     uint64
	num, den uint64
}

// newTimeline starts the vblanks of mode m at time t0 with counter base.
func newTimeline(m *uapi.ModeModeInfo, t0 int64, base uint64) timeline {
	den := uint64(m.Clock)
	if m.Flags&uapi.ModeFlagInterlace != 0 {
		den *= 2
	}
	if den == 0 {
		den = 1 // validateBasic refuses clock 0; keep the arithmetic defined
	}
	num := uint64(m.Htotal) * uint64(m.Vtotal) * 1_000_000
	if num == 0 {
		num = 1
	}
	return timeline{t0: t0, base: base, num: num, den: den}
}

// at is the time of the timeline's k-th vblank: t0 + floor(k·num/den).
func (tl *timeline) at(k uint64) int64 {
	hi, lo := bits.Mul64(k, tl.num)
	if hi >= tl.den {
		return math.MaxInt64 // centuries away
	}
	q, _ := bits.Div64(hi, lo, tl.den)
	if q > math.MaxInt64-uint64(tl.t0) {
		return math.MaxInt64
	}
	return tl.t0 + int64(q)
}

// passed is how many of the timeline's vblanks happened at or before t:
// the largest k with at(k) ≤ t, i.e. floor(k·num/den) ≤ t−t0, which is
// k·num < (t−t0+1)·den, so k = ceil((t−t0+1)·den/num) − 1.
func (tl *timeline) passed(t int64) uint64 {
	if t < tl.t0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(t-tl.t0)+1, tl.den)
	if hi >= tl.num {
		return math.MaxUint64 >> 1
	}
	q, r := bits.Div64(hi, lo, tl.num)
	if r == 0 {
		q--
	}
	return q
}

// count is the vblank counter at time t.
func (tl *timeline) count(t int64) uint64 { return tl.base + tl.passed(t) }

// next returns the first vblank strictly after t: its counter value and
// its time.
func (tl *timeline) next(t int64) (seq uint64, at int64) {
	k := tl.passed(t) + 1
	return tl.base + k, tl.at(k)
}

// last returns the latest vblank at or before t (or the timeline's start
// when none happened yet): its counter value and time, as
// drm_vblank_count_and_time reports them.
func (tl *timeline) last(t int64) (seq uint64, at int64) {
	k := tl.passed(t)
	return tl.base + k, tl.at(k)
}
