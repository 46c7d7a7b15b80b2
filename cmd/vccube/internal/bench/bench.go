package bench

import (
	"fmt"
	"io"
	"time"

	"github.com/vccube/vccube/report"
	"golang.org/x/sys/unix"
)

// ReportInterval is how often kmscube prints its line while running
// (drm-legacy.c, drm-atomic.c: "report_time + 2 * NSEC_PER_SEC").
const ReportInterval = 2 * time.Second

// Monotonic reads CLOCK_MONOTONIC, the clock kmscube times frames with
// (common.c get_time_ns) and the one vblank event timestamps use, as a
// duration since the clock's epoch. It does not allocate.
func Monotonic() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		// CLOCK_MONOTONIC exists on every Linux; fall back to Go's
		// monotonic reading rather than stop the program.
		return time.Duration(time.Now().UnixNano())
	}
	return time.Duration(ts.Nano())
}

// ProcessCPU reads CLOCK_PROCESS_CPUTIME_ID: the CPU time every thread of
// the process has used (clock_gettime(2)), as a duration. It does not
// allocate.
func ProcessCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		// Linux has had the clock since 2.6.12; report no CPU time
		// rather than stop the program.
		return 0
	}
	return time.Duration(ts.Nano())
}

// Recorder times the frame loop as kmscube does: frame 0 (which pays for
// the first mode set and every cold cache) is left out, the clock starts
// when frame 1 starts, and each later frame's time is the interval since
// the previous frame ended. It measures the process's CPU time over the
// same frames. Its methods do not allocate, except Line's and Report's
// output.
type Recorder struct {
	// Now reads the clock; nil means Monotonic. Tests set a fake.
	Now func() time.Duration
	// CPU reads the process's CPU time; nil means ProcessCPU. Tests set
	// a fake.
	CPU func() time.Duration

	started  bool
	start    time.Duration // when frame 1 started, moved forward by pauses
	lastEnd  time.Duration // when the previous frame ended
	report   time.Duration // when Line was last due
	frames   uint64        // frames ended after frame 0
	hist     Histogram
	pausedAt time.Duration
	paused   bool

	// CPU time, kept like the clock: at frame 1's start (moved forward
	// by what pauses used), at the last frame's end, at the pause.
	cpuStart, cpuEnd, cpuPausedAt time.Duration
}

func (r *Recorder) cpu() time.Duration {
	if r.CPU != nil {
		return r.CPU()
	}
	return ProcessCPU()
}

func (r *Recorder) now() time.Duration {
	if r.Now != nil {
		return r.Now()
	}
	return Monotonic()
}

// FrameStart is called when a frame starts; the first call after frame 0
// starts the clock.
func (r *Recorder) FrameStart(frame uint64) {
	if frame == 1 && !r.started {
		t := r.now()
		r.started, r.start, r.lastEnd, r.report = true, t, t, t
		r.cpuStart = r.cpu()
		r.cpuEnd = r.cpuStart
	}
}

// FrameEnd is called when a frame is done (shown, or rendered with
// -vsync=false). It reports whether a periodic line is due.
func (r *Recorder) FrameEnd(frame uint64) (due bool) {
	if frame == 0 || !r.started {
		return false
	}
	t := r.now()
	r.hist.Add(t - r.lastEnd)
	r.lastEnd = t
	r.cpuEnd = r.cpu()
	r.frames++
	if t > r.report+ReportInterval {
		r.report = t
		return true
	}
	return false
}

// Pause stops the clock (vkcube's space key); Resume starts it again, so
// paused time counts neither in the total nor in the next frame's time.
func (r *Recorder) Pause() {
	if !r.paused {
		r.paused, r.pausedAt = true, r.now()
		r.cpuPausedAt = r.cpu()
	}
}

// Resume restarts the clock after Pause.
func (r *Recorder) Resume() {
	if r.paused {
		d := r.now() - r.pausedAt
		c := r.cpu() - r.cpuPausedAt
		r.paused = false
		if r.started {
			r.start += d
			r.lastEnd += d
			r.report += d
			r.cpuStart += c
			r.cpuEnd += c
		}
	}
}

// Frames returns the frames counted (after frame 0).
func (r *Recorder) Frames() uint64 { return r.frames }

// Elapsed returns the time from frame 1's start to the end of the last
// frame counted, pauses excluded.
func (r *Recorder) Elapsed() time.Duration {
	if !r.started {
		return 0
	}
	return r.lastEnd - r.start
}

// CPUTime returns the process's CPU time over the same span as Elapsed:
// from frame 1's start to the end of the last frame counted, what pauses
// used excluded.
func (r *Recorder) CPUTime() time.Duration {
	if !r.started {
		return 0
	}
	return r.cpuEnd - r.cpuStart
}

// FPS returns frames per second over Elapsed (0 before a frame counted).
func (r *Recorder) FPS() float64 {
	s := r.Elapsed().Seconds()
	if s <= 0 {
		return 0
	}
	return float64(r.frames) / s
}

// Histogram returns the frame times.
func (r *Recorder) Histogram() *Histogram { return &r.hist }

// Line writes kmscube's line: "Rendered N frames in S sec (F fps)", with
// kmscube's printf formats (%u, %f, %f).
func (r *Recorder) Line(w io.Writer) error {
	_, err := fmt.Fprintf(w, "Rendered %d frames in %f sec (%f fps)\n", r.frames, r.Elapsed().Seconds(), r.FPS())
	return err
}

// FrameTimes are frame-time percentiles.
type FrameTimes struct {
	P50, P90, P99, Max time.Duration
}

// FrameTimes returns the percentiles of the frame times counted.
func (r *Recorder) FrameTimes() FrameTimes {
	h := &r.hist
	return FrameTimes{P50: h.Percentile(50), P90: h.Percentile(90), P99: h.Percentile(99), Max: h.Max()}
}

// Fill sets the report's frame numbers from the recorder.
func (r *Recorder) Fill(rep *report.Report) {
	rep.Frames = r.Frames()
	rep.Seconds = r.Elapsed().Seconds()
	rep.FPS = r.FPS()
	rep.CPUSeconds = r.CPUTime().Seconds()
	if r.frames > 0 {
		rep.CPUMsPerFrame = report.Ms(r.CPUTime()) / float64(r.frames)
	}
	ft := r.FrameTimes()
	rep.FrameTimeMs = report.Percentiles{P50: report.Ms(ft.P50), P90: report.Ms(ft.P90), P99: report.Ms(ft.P99), Max: report.Ms(ft.Max)}
}
