package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// ReportPrefix starts every report line, so the judge finds them in a
// serial console log among the kernel's messages.
const ReportPrefix = "@@kmsprobe "

// PresentReport is what "kmsprobe present" measured: one JSON line.
// Times are in nanoseconds.
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

// SuperviseReport is what "kmsprobe supervise" saw of a guest command.
type SuperviseReport struct {
	Kind        string `json:"kind"` // "supervise"
	Command     string `json:"command"`
	ExitCode    int    `json:"exit_code"` // -1 when a signal killed it
	Killed      string `json:"killed,omitempty"`
	SigtermSent bool   `json:"sigterm_sent"`
	// ModesetSeen: a CRTC changed while the command ran (SIGTERM is sent
	// only after that, so that it lands mid-run).
	ModesetSeen  bool   `json:"modeset_seen"`
	CrtcRestored bool   `json:"crtc_restored"` // every CRTC as before the command
	Diff         string `json:"diff,omitempty"`
	WallNs       int64  `json:"wall_ns"`
	Error        string `json:"error,omitempty"`
}

// emit prints a report line.
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

// Run is one supervised run of the guest command: the supervisor's report
// and, when the command printed one before it, the command's.
type Run struct {
	Present   *PresentReport   // nil: the command printed no report
	Supervise *SuperviseReport // nil: the supervisor printed none (the log ends)
}

// ParseLog reads the report lines out of a console log and pairs them
// into runs: the supervisor reports after its command ends, so a command's
// report is the one just before its supervisor's. A report line that is
// not valid JSON of a known kind is an error.
func ParseLog(r io.Reader) (*Log, error) {
	l := &Log{}
	var pending *PresentReport
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		l.Lines = append(l.Lines, line)
		i := strings.Index(line, ReportPrefix)
		if i < 0 {
			continue
		}
		body := line[i+len(ReportPrefix):]
		var kind struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal([]byte(body), &kind); err != nil {
			return nil, fmt.Errorf("line %d: a report that is not JSON (%v): %q", n, err, body)
		}
		dec := json.NewDecoder(strings.NewReader(body))
		dec.DisallowUnknownFields()
		switch kind.Kind {
		case "present":
			p := new(PresentReport)
			if err := dec.Decode(p); err != nil {
				return nil, fmt.Errorf("line %d: present report: %v", n, err)
			}
			if pending != nil {
				l.Runs = append(l.Runs, Run{Present: pending}) // its supervisor said nothing
			}
			pending = p
		case "supervise":
			s := new(SuperviseReport)
			if err := dec.Decode(s); err != nil {
				return nil, fmt.Errorf("line %d: supervise report: %v", n, err)
			}
			l.Runs = append(l.Runs, Run{Present: pending, Supervise: s})
			pending = nil
		default:
			return nil, fmt.Errorf("line %d: a report of unknown kind %q", n, kind.Kind)
		}
	}
	if pending != nil {
		l.Runs = append(l.Runs, Run{Present: pending})
	}
	return l, sc.Err()
}
