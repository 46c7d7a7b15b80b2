// Package report is vccube's end-of-run report: the one description of
// what the program measured, printed for people (Text, after kmscube's
// line) and for machines (JSON, the -json output). The VKMS test's judge
// (internal/cmd/kmsprobe) reads the JSON form through Parse, so the
// schema is described here and nowhere else.
//
// Durations are in milliseconds (float), frame numbers and counts are
// whole numbers.
package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Report is the end-of-run summary.
type Report struct {
	// Version is the vccube that made the report, as vccube -version
	// says it: the module version, the VCS revision of a build in a
	// checkout, the Go release and the platform.
	Version string `json:"version,omitempty"`
	// Device is the GPU device ("sim" or a /dev/dri path); GPU describes
	// its 3D engine.
	Device string `json:"device"`
	GPU    string `json:"gpu"`
	// Display describes the connector, mode and CRTC frames were shown
	// on; empty with -vsync=false. DisplayDevice is the card it belongs
	// to when that is not the GPU's (-display), and DisplayDriver that
	// card's driver name (DRM_IOCTL_VERSION), such as "vkms".
	Display       string `json:"display,omitempty"`
	DisplayDevice string `json:"display_device,omitempty"`
	DisplayDriver string `json:"display_driver,omitempty"`
	// Width and Height are the frame size; RefreshHz the mode's refresh
	// rate (0 without a display).
	Width     int     `json:"width"`
	Height    int     `json:"height"`
	RefreshHz float64 `json:"refresh_hz,omitempty"`
	// VSync is false for a render-only run (submit and wait, no flips).
	VSync bool `json:"vsync"`
	// Frames, Seconds and FPS are kmscube's numbers: frames after frame
	// 0, the time from frame 1's start to the last frame's end.
	Frames  uint64  `json:"frames"`
	Seconds float64 `json:"seconds"`
	FPS     float64 `json:"fps"`
	// FrameTimeMs are percentiles of the time between consecutive frame
	// ends.
	FrameTimeMs Percentiles `json:"frame_time_ms"`
	// CPUSeconds is the CPU time the whole process (every thread: the
	// program, the simulated device's workers, Go's garbage collector)
	// used over the same frames as Seconds (CLOCK_PROCESS_CPUTIME_ID);
	// CPUMsPerFrame is that over Frames. On a Pi it is the program's own
	// work (the GPU renders); on the simulated device it is mostly the
	// simulated GPU's, which is what the llvmpipe comparison in
	// bench/llvmpipe measures.
	CPUSeconds    float64 `json:"cpu_seconds"`
	CPUMsPerFrame float64 `json:"cpu_ms_per_frame"`
	// Flips sums up the page flips; nil with -vsync=false.
	Flips *Flips `json:"flips,omitempty"`
	// Terminal sums up the terminal view; nil when there was none (as
	// always with -json, which keeps stdout for the report).
	Terminal *Terminal `json:"terminal_view,omitempty"`
	// Counters are the GPU's performance counters over every frame
	// submitted (frame 0 included), when the kernel offers them;
	// CountersNote says why there are none otherwise.
	Counters     []Counter `json:"gpu_counters,omitempty"`
	CountersNote string    `json:"gpu_counters_note,omitempty"`
	// GPUHangs counts the frames the GPU lost to hangs and describes
	// each hang; always present (zero counts when there was none).
	GPUHangs GPUHangs `json:"gpu_hangs"`
	// Stopped says why the run stopped before it was asked to (the
	// display was unplugged, the GPU stayed hung); empty otherwise.
	Stopped string `json:"stopped,omitempty"`
}

// Percentiles are frame times in milliseconds.
type Percentiles struct {
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// Flips are the page flips of a run, timed by the kernel's vblank
// timestamps and counted by its vblank sequence numbers, both from the
// flip-complete events (drm_vblank.c: send_vblank_event).
type Flips struct {
	// ModeSet: the first frame was shown by setting the mode (SETCRTC);
	// every later one by a page flip.
	ModeSet bool `json:"mode_set"`
	// Atomic: the mode set and the flips were atomic commits (-atomic),
	// each flip with the CRTC's out-fence; OutFences counts the
	// out-fences checked when their flip's event arrived, OutFencesLate
	// those not signalled by then (the kernel signals both at once).
	Atomic        bool   `json:"atomic,omitempty"`
	OutFences     uint64 `json:"out_fences,omitempty"`
	OutFencesLate uint64 `json:"out_fences_late,omitempty"`
	// Queued page flips, and those Completed by an event.
	Queued    uint64 `json:"queued"`
	Completed uint64 `json:"completed"`
	// MissedVblanks counts the vblanks between consecutive completions
	// that showed no new frame: each completion's sequence step minus
	// one. MissedLate are those that passed before the flip was even
	// queued (the frame was not ready: the GPU or the program was slow);
	// MissedQueued those that passed after it was queued (the display
	// path was slow: the kernel, the driver or a stalled machine), the
	// earliest of them at most MissedQueuedMarginMaxMs after its flip
	// was queued. The split needs the event timestamps on
	// CLOCK_MONOTONIC (DRM_CAP_TIMESTAMP_MONOTONIC); without that both
	// are 0.
	MissedVblanks           uint64  `json:"missed_vblanks"`
	MissedLate              uint64  `json:"missed_late"`
	MissedQueued            uint64  `json:"missed_queued"`
	MissedQueuedMarginMaxMs float64 `json:"missed_queued_margin_max_ms"`
	// FirstSequence and LastSequence are the vblank counters of the first
	// and last completion: LastSequence-FirstSequence is Completed-1 plus
	// MissedVblanks.
	FirstSequence uint32 `json:"first_sequence"`
	LastSequence  uint32 `json:"last_sequence"`
	// Mean, Min and MaxIntervalMs are the times between consecutive
	// completions by their timestamps; VblankPeriodMs is the display's
	// refresh period they show (first to last completion over the
	// vblanks counted between them), FramePeriodMs the mode's own from
	// its timings (FramePeriod).
	MeanIntervalMs float64 `json:"mean_interval_ms"`
	MinIntervalMs  float64 `json:"min_interval_ms"`
	MaxIntervalMs  float64 `json:"max_interval_ms"`
	VblankPeriodMs float64 `json:"vblank_period_ms"`
	FramePeriodMs  float64 `json:"frame_period_ms"`
	// IntervalErrorMaxMs is the largest difference between an interval
	// and its sequence step times FramePeriodMs: 0.001 or less where the
	// timestamps come from a timer (VKMS's hrtimer, the simulated
	// display), up to the kernel's timestamp precision (20 µs by default,
	// drm_vblank.c drm_timestamp_precision) where they are worked out
	// from the scanout position (vc4).
	IntervalErrorMaxMs float64 `json:"interval_error_max_ms"`
}

// Terminal is what the terminal view (package termview) did with the
// frames: it draws the newest frame whenever the terminal has taken the
// last one, so Drawn over the run's time is the rate the terminal keeps up
// with. Every frame given to the view is either drawn or dropped: Frames
// is Drawn plus Dropped.
type Terminal struct {
	Frames        uint64 `json:"frames"`          // frames given to the view: every frame rendered while it was open
	Drawn         uint64 `json:"drawn"`           // frames put on the terminal (a frame that changed nothing is drawn by writing nothing)
	Dropped       uint64 `json:"dropped"`         // frames never put on the terminal: a newer one came first, or the terminal was already put back
	BytesPerFrame uint64 `json:"bytes_per_frame"` // mean bytes written per frame drawn
}

// Line writes the terminal view's line of the report.
func (t *Terminal) Line(w io.Writer) error {
	_, err := fmt.Fprintf(w, "terminal view: %d frames, %d drawn, %d dropped (a newer frame came before the terminal took them); %d bytes per frame drawn\n",
		t.Frames, t.Drawn, t.Dropped, t.BytesPerFrame)
	return err
}

// Counter is one GPU performance counter.
type Counter struct {
	Name     string  `json:"name"`      // Mesa's name for it, as kmscube -p shows it
	Total    uint64  `json:"total"`     // over every frame submitted, frame 0 included
	PerFrame float64 `json:"per_frame"` // Total over the frames submitted
}

// Ms converts a duration to milliseconds.
func Ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// JSON writes the report as one JSON object and a newline.
func (rep *Report) JSON(w io.Writer) error {
	b, err := json.Marshal(rep)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Parse reads a report JSON wrote. A field this package does not describe
// is an error, so that a reader never silently misses what the program
// reported.
func Parse(b []byte) (*Report, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	rep := new(Report)
	if err := dec.Decode(rep); err != nil {
		return nil, fmt.Errorf("reading vccube's report: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("reading vccube's report: more than one JSON value")
	}
	return rep, nil
}

// Text writes the report for a person, after kmscube's line.
func (rep *Report) Text(w io.Writer) error {
	ew := &errWriter{w: w}
	where := rep.Display
	if where == "" {
		where = "no display (render only: submit and wait, no page flips)"
	} else if rep.DisplayDevice != "" {
		where += " of " + rep.DisplayDevice
		if rep.DisplayDriver != "" {
			where += " (" + rep.DisplayDriver + ")"
		}
	}
	ew.printf("%dx%d on %s (%s); %s\n", rep.Width, rep.Height, rep.Device, rep.GPU, where)
	p := rep.FrameTimeMs
	ew.printf("frame time: p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, max %.3f ms\n", p.P50, p.P90, p.P99, p.Max)
	ew.printf("CPU time: %.3f ms per frame (the whole process, all threads; %.3f s over the %d frames)\n",
		rep.CPUMsPerFrame, rep.CPUSeconds, rep.Frames)
	if f := rep.Flips; f != nil {
		ew.printf("page flips: %d queued, %d completed, %d missed vblanks", f.Queued, f.Completed, f.MissedVblanks)
		if f.MissedVblanks > 0 && f.MissedLate+f.MissedQueued == f.MissedVblanks {
			ew.printf(" (%d with the frame not ready, %d after the flip was queued)", f.MissedLate, f.MissedQueued)
		}
		ew.printf("; interval mean %.3f ms (min %.3f, max %.3f); vblank period %.3f ms",
			f.MeanIntervalMs, f.MinIntervalMs, f.MaxIntervalMs, f.VblankPeriodMs)
		if rep.RefreshHz > 0 {
			ew.printf(" (mode refresh %.3f Hz)", rep.RefreshHz)
		}
		ew.printf("\n")
		if f.Atomic {
			ew.printf("atomic commits: %d out-fences, %d not signalled with their flip event\n", f.OutFences, f.OutFencesLate)
		}
	}
	if t := rep.Terminal; t != nil && ew.err == nil {
		ew.err = t.Line(w)
	}
	if ew.err == nil {
		ew.err = rep.GPUHangs.Text(w, true)
	}
	if rep.Stopped != "" {
		ew.printf("stopped early: %s\n", rep.Stopped)
	}
	if len(rep.Counters) > 0 {
		ew.printf("GPU performance counters (total, per frame):\n")
		for _, c := range rep.Counters {
			ew.printf("  %-45s %14d %14.1f\n", c.Name, c.Total, c.PerFrame)
		}
	} else if rep.CountersNote != "" {
		ew.printf("GPU performance counters: %s\n", rep.CountersNote)
	}
	return ew.err
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
