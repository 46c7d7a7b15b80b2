package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/vccube/vccube/report"
)

// ReportPrefix starts every supervisor's report line, so the judge finds
// them in a serial console log among the kernel's messages.
const ReportPrefix = "@@kmsprobe "

// PresentReport is what "kmsprobe present" measured: one JSON object on
// its stdout, which the supervisor carries in its report. Times are in
// nanoseconds.
type PresentReport struct {
	Kind      string `json:"kind"` // "present"
	Device    string `json:"device"`
	Driver    string `json:"driver"`
	Connector string `json:"connector"`
	Mode      string `json:"mode"`
	Crtc      uint32 `json:"crtc"`
	// PeriodNs is the mode's frame time from its timings, htotal*vtotal
	// over the pixel clock, as drm_vblank.c (drm_calc_timestamping_
	// constants) computes the vblank period.
	PeriodNs           int64 `json:"period_ns"`
	TimestampMonotonic bool  `json:"timestamp_monotonic"`

	FlipsWanted int    `json:"flips_wanted"`
	ModeSet     bool   `json:"mode_set"`
	Flips       uint64 `json:"flips"`     // PAGE_FLIPs queued
	Completed   uint64 `json:"completed"` // flip-complete events
	Missed      uint64 `json:"missed"`    // vblanks without a new frame
	SeqFirst    uint32 `json:"seq_first"`
	SeqLast     uint32 `json:"seq_last"`
	// SeqStepsNotOne counts consecutive completions whose sequence step
	// is not exactly one.
	SeqStepsNotOne int `json:"seq_steps_not_one"`
	// MissedAt lists the first flips (by number, from 1) that completed
	// after a missed vblank.
	MissedAt []uint64 `json:"missed_at,omitempty"`
	// MissedQueuedLate counts missed vblanks of flips queued after the
	// vblank that followed the previous completion (the guest was late);
	// MissedQueuedOnTime those of flips queued before it, the largest
	// margin by which one was early being OnTimeMarginMaxNs.
	MissedQueuedLate   int   `json:"missed_queued_late"`
	MissedQueuedOnTime int   `json:"missed_queued_on_time"`
	OnTimeMarginMaxNs  int64 `json:"on_time_margin_max_ns"`
	// TimestampMismatches counts consecutive completions whose timestamp
	// difference is not their sequence step times PeriodNs (within 2 µs:
	// the event's timestamp is in whole µs).
	TimestampMismatches int   `json:"timestamp_mismatches"`
	IntervalMeanNs      int64 `json:"interval_mean_ns"`
	IntervalMinNs       int64 `json:"interval_min_ns"`
	IntervalMaxNs       int64 `json:"interval_max_ns"`
	VblankPeriodNs      int64 `json:"vblank_period_ns"` // (last-first time) / (last-first sequence)
	WallMeanNs          int64 `json:"wall_mean_ns"`     // arrival of events by the wall clock, for comparison
	WallMinNs           int64 `json:"wall_min_ns"`
	WallMaxNs           int64 `json:"wall_max_ns"`

	// PatternChecked counts frames whose scanned-out buffer was read back
	// through a second mapping and compared with the frame copied in;
	// PatternErrors those that differed; ScanoutErrors those where
	// GETCRTC did not show the buffer presented.
	PatternChecked int `json:"pattern_checked"`
	RowsChecked    int `json:"rows_checked"`
	PatternErrors  int `json:"pattern_errors"`
	ScanoutErrors  int `json:"scanout_errors"`

	CheckMaxNs int64 `json:"check_max_ns"`
	CheckSumNs int64 `json:"check_sum_ns"`
	CopyMaxNs  int64 `json:"copy_max_ns"`
	CopySumNs  int64 `json:"copy_sum_ns"`

	SavedFb      uint32 `json:"saved_fb"`
	Restored     bool   `json:"restored"` // GETCRTC after Restore shows the saved state
	RestoreError string `json:"restore_error,omitempty"`

	Signal  string `json:"signal,omitempty"` // the signal that ended the run
	TotalNs int64  `json:"total_ns"`         // from the mode set to the last completion
	Error   string `json:"error,omitempty"`
}

// SuperviseReport is what "kmsprobe supervise" saw of a guest command. It
// carries the command's own report: whatever the command printed on
// stdout, kept as JSON (Report) when it is one JSON object — kmsprobe
// present's PresentReport or vccube's -json report (package
// report) — and as text (Stdout) otherwise.
type SuperviseReport struct {
	Kind        string `json:"kind"` // "supervise"
	Command     string `json:"command"`
	ExitCode    int    `json:"exit_code"` // -1 when a signal killed it
	Killed      string `json:"killed,omitempty"`
	TermAfterNs int64  `json:"term_after_ns,omitempty"` // the run was to be stopped with SIGTERM this long after the mode set
	SigtermSent bool   `json:"sigterm_sent"`
	// ModesetSeen: a CRTC changed while the command ran (SIGTERM is sent
	// only after that, so that it lands mid-run).
	ModesetSeen  bool            `json:"modeset_seen"`
	CrtcRestored bool            `json:"crtc_restored"` // every CRTC as before the command
	Diff         string          `json:"diff,omitempty"`
	Report       json.RawMessage `json:"report,omitempty"`
	Stdout       string          `json:"stdout,omitempty"`
	// Attachment is the file -attach named, read after the command ended
	// (such as the frame vccube captured), so that it reaches the host
	// through the console.
	Attachment *Attachment `json:"attachment,omitempty"`
	WallNs     int64       `json:"wall_ns"`
	Error      string      `json:"error,omitempty"`
}

// Attachment is a file of the guest, carried in a report (its bytes are
// base64 in the JSON).
type Attachment struct {
	Path  string `json:"path"`
	Data  []byte `json:"data,omitempty"`
	Error string `json:"error,omitempty"` // why it could not be read
}

// emit prints a report line for the judge.
func emit(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // the report types always marshal
	}
	fmt.Fprintf(os.Stdout, "%s%s\n", ReportPrefix, b)
}

// Log is a parsed serial console log.
type Log struct {
	Runs  []Run
	Lines []string // every line, for the boot figures
}

// Run is one supervised run of a guest command: the supervisor's report
// and the command's own, read from it — kmsprobe present's or vccube's,
// or neither when the command printed no report.
type Run struct {
	Supervise *SuperviseReport
	Present   *PresentReport
	Vccube    *report.Report
}

// ParseLog reads the supervisors' report lines out of a console log, one
// run each, and the command's report inside each. A report line that is
// not valid JSON of the known kind, or that carries a command report of
// neither known schema, is an error.
func ParseLog(r io.Reader) (*Log, error) {
	l := &Log{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 8<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		l.Lines = append(l.Lines, line)
		i := strings.Index(line, ReportPrefix)
		if i < 0 {
			continue
		}
		body := line[i+len(ReportPrefix):]
		dec := json.NewDecoder(strings.NewReader(body))
		dec.DisallowUnknownFields()
		s := new(SuperviseReport)
		if err := dec.Decode(s); err != nil {
			return nil, fmt.Errorf("line %d: a report that is not the supervisor's (%v): %.200q", n, err, body)
		}
		if s.Kind != "supervise" {
			return nil, fmt.Errorf("line %d: a report of unknown kind %q", n, s.Kind)
		}
		run := Run{Supervise: s}
		if len(s.Report) > 0 {
			var kind struct {
				Kind string `json:"kind"`
			}
			if err := json.Unmarshal(s.Report, &kind); err != nil {
				return nil, fmt.Errorf("line %d: the command's report: %v", n, err)
			}
			if kind.Kind == "present" {
				d := json.NewDecoder(bytes.NewReader(s.Report))
				d.DisallowUnknownFields()
				run.Present = new(PresentReport)
				if err := d.Decode(run.Present); err != nil {
					return nil, fmt.Errorf("line %d: kmsprobe present's report: %v", n, err)
				}
			} else {
				v, err := report.Parse(s.Report)
				if err != nil {
					return nil, fmt.Errorf("line %d: %v", n, err)
				}
				run.Vccube = v
			}
		}
		l.Runs = append(l.Runs, run)
	}
	return l, sc.Err()
}
