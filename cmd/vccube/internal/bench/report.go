package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Report is the end-of-run summary, for people (Text) and machines (JSON,
// the -json output). Durations are in milliseconds.
type Report struct {
	// Device is the GPU device ("sim" or a /dev/dri path); GPU describes
	// its 3D engine.
	Device string `json:"device"`
	GPU    string `json:"gpu"`
	// Display describes the connector, mode and CRTC frames were shown
	// on; empty with -vsync=false.
	Display string `json:"display,omitempty"`
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
	// Flips sums up the page flips; nil with -vsync=false.
	Flips *Flips `json:"flips,omitempty"`
	// Counters are the GPU's performance counters over every frame
	// submitted (frame 0 included), when the kernel offers them;
	// CountersNote says why there are none otherwise.
	Counters     []Counter `json:"gpu_counters,omitempty"`
	CountersNote string    `json:"gpu_counters_note,omitempty"`
}

// Percentiles are frame times in milliseconds.
type Percentiles struct {
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// Flips are the page flips of a run, timed by the kernel's vblank
// timestamps.
type Flips struct {
	Queued         uint64  `json:"queued"`
	Completed      uint64  `json:"completed"`
	MissedVblanks  uint64  `json:"missed_vblanks"`
	MeanIntervalMs float64 `json:"mean_interval_ms"`
	MinIntervalMs  float64 `json:"min_interval_ms"`
	MaxIntervalMs  float64 `json:"max_interval_ms"`
	VblankPeriodMs float64 `json:"vblank_period_ms"`
}

// Counter is one GPU performance counter.
type Counter struct {
	Name     string  `json:"name"`
	Total    uint64  `json:"total"`
	PerFrame float64 `json:"per_frame"`
}

// Ms converts a duration to milliseconds.
func Ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Fill sets the report's frame numbers from the recorder.
func (rep *Report) Fill(r *Recorder) {
	rep.Frames = r.Frames()
	rep.Seconds = r.Elapsed().Seconds()
	rep.FPS = r.FPS()
	ft := r.FrameTimes()
	rep.FrameTimeMs = Percentiles{P50: Ms(ft.P50), P90: Ms(ft.P90), P99: Ms(ft.P99), Max: Ms(ft.Max)}
}

// JSON writes the report as one JSON object and a newline.
func (rep *Report) JSON(w io.Writer) error {
	b, err := json.Marshal(rep)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Text writes the report for a person, after kmscube's line.
func (rep *Report) Text(w io.Writer) error {
	ew := &errWriter{w: w}
	where := rep.Display
	if where == "" {
		where = "no display (render only: submit and wait, no page flips)"
	}
	ew.printf("%dx%d on %s (%s); %s\n", rep.Width, rep.Height, rep.Device, rep.GPU, where)
	p := rep.FrameTimeMs
	ew.printf("frame time: p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, max %.3f ms\n", p.P50, p.P90, p.P99, p.Max)
	if f := rep.Flips; f != nil {
		ew.printf("page flips: %d queued, %d completed, %d missed vblanks; interval mean %.3f ms (min %.3f, max %.3f); vblank period %.3f ms",
			f.Queued, f.Completed, f.MissedVblanks, f.MeanIntervalMs, f.MinIntervalMs, f.MaxIntervalMs, f.VblankPeriodMs)
		if rep.RefreshHz > 0 {
			ew.printf(" (mode refresh %.3f Hz)", rep.RefreshHz)
		}
		ew.printf("\n")
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
