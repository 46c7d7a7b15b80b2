package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"
)

// Criteria are the judge's pass conditions.
type Criteria struct {
	MinFlips  uint64  // at least this many completed page flips in the normal run
	MaxMissed uint64  // vblanks allowed to pass without a new frame
	Tolerance float64 // relative: measured periods against the mode's
	Sigterm   bool    // a second run, stopped with SIGTERM, is expected
}

// Judge checks a console log against the criteria and returns the list of
// failures (empty: pass) and a summary of the figures.
func Judge(l *Log, c Criteria) (failures []string, summary []string) {
	fail := func(f string, a ...any) { failures = append(failures, fmt.Sprintf(f, a...)) }
	want := 1
	if c.Sigterm {
		want = 2
	}
	if len(l.Runs) != want {
		fail("expected %d runs of the guest command, found %d (did the guest crash or the kernel panic? see the log)", want, len(l.Runs))
	}
	for i, r := range l.Runs[:min(len(l.Runs), want)] {
		name := "normal run"
		if i == 1 {
			name = "SIGTERM run"
		}
		if r.Supervise == nil {
			fail("%s: the supervisor printed no report (the guest stopped during the run?)", name)
		}
		if r.Present == nil {
			fail("%s: the command printed no report", name)
		}
		if r.Supervise == nil || r.Present == nil {
			if r.Supervise != nil {
				summary = append(summary, fmt.Sprintf("%s: the command ended with status %d%s; CRTCs restored: %v %s",
					name, r.Supervise.ExitCode, killed(r.Supervise), r.Supervise.CrtcRestored, r.Supervise.Diff))
				if !r.Supervise.CrtcRestored {
					fail("%s: the supervisor found the CRTCs changed after the command: %s", name, r.Supervise.Diff)
				}
			}
			continue
		}
		var f, s []string
		if i == 0 {
			f, s = judgeNormal(*r.Present, *r.Supervise, c)
		} else {
			f, s = judgeSigterm(*r.Present, *r.Supervise)
		}
		failures, summary = append(failures, f...), append(summary, s...)
	}
	return failures, append(summary, bootFigures(l)...)
}

// judgeNormal checks the run that ends by itself.
func judgeNormal(p PresentReport, s SuperviseReport, c Criteria) (failures, summary []string) {
	fail := func(f string, a ...any) { failures = append(failures, "normal run: "+fmt.Sprintf(f, a...)) }
	if p.Error != "" {
		fail("%s", p.Error)
	}
	if !p.ModeSet {
		fail("the mode was never set")
	}
	if p.Completed < c.MinFlips {
		fail("%d flips completed, want at least %d", p.Completed, c.MinFlips)
	}
	if p.Completed != p.Flips {
		fail("%d flips queued but %d completed by an event", p.Flips, p.Completed)
	}
	if p.Missed > c.MaxMissed || uint64(p.SeqStepsNotOne) > c.MaxMissed {
		fail("%d vblanks missed (%d sequence steps other than +1), at most %d allowed",
			p.Missed, p.SeqStepsNotOne, c.MaxMissed)
	}
	if p.Completed > 0 && uint64(p.SeqLast-p.SeqFirst) != p.Completed-1+p.Missed {
		fail("sequence %d..%d does not match %d flips and %d missed vblanks",
			p.SeqFirst, p.SeqLast, p.Completed, p.Missed)
	}
	if p.TimestampMismatches != 0 {
		fail("%d flip intervals differ from (sequence step x %v)", p.TimestampMismatches, time.Duration(p.PeriodNs))
	}
	if p.PeriodNs <= 0 {
		fail("the mode's period is unknown")
	} else {
		tol := c.Tolerance * float64(p.PeriodNs)
		if d := float64(p.VblankPeriodNs - p.PeriodNs); d > tol || d < -tol {
			fail("measured vblank period %v, the mode's is %v", time.Duration(p.VblankPeriodNs), time.Duration(p.PeriodNs))
		}
		// With every vblank flipped the mean interval is the period;
		// each missed vblank adds one period to the sum.
		if p.Completed > 1 {
			want := float64(p.PeriodNs) * float64(p.Completed-1+p.Missed) / float64(p.Completed-1)
			if d := float64(p.IntervalMeanNs) - want; d > tol || d < -tol {
				fail("mean flip interval %v, want %v (the mode's period %v, %d missed vblanks)",
					time.Duration(p.IntervalMeanNs), time.Duration(want), time.Duration(p.PeriodNs), p.Missed)
			}
		}
	}
	if p.PatternChecked != int(p.Completed)+1 || p.PatternErrors != 0 || p.ScanoutErrors != 0 {
		fail("%d of %d frames checked; %d read back wrong, %d not the buffer scanned out",
			p.PatternChecked, p.Completed+1, p.PatternErrors, p.ScanoutErrors)
	}
	if !p.Restored || p.RestoreError != "" {
		fail("the CRTC was not restored (%s)", p.RestoreError)
	}
	if s.Error != "" || s.ExitCode != 0 || s.Killed != "" {
		fail("the command ended with status %d%s %s", s.ExitCode, killed(&s), s.Error)
	}
	if !s.CrtcRestored {
		fail("the supervisor found the CRTCs changed after the command: %s", s.Diff)
	}
	steps := max(p.Completed, 1) - 1
	summary = append(summary, fmt.Sprintf("normal run: %s %s on CRTC %d (%s): mode set + %d flips, %d events, sequence %d..%d, "+
		"+1 per flip on %d of %d steps (%d missed vblanks, at flips %v)",
		p.Connector, p.Mode, p.Crtc, p.Driver, p.Flips, p.Completed, p.SeqFirst, p.SeqLast,
		steps-uint64(p.SeqStepsNotOne), steps, p.Missed, p.MissedAt))
	if p.Missed > 0 {
		summary = append(summary, fmt.Sprintf("missed vblanks: %d of flips queued late by the guest, %d of flips queued up to %v before the vblank "+
			"(a host stall between the flip and the vblank)", p.MissedQueuedLate, p.MissedQueuedOnTime,
			time.Duration(p.OnTimeMarginMaxNs).Round(time.Microsecond)))
	}
	summary = append(summary, fmt.Sprintf("flip interval by event timestamps: mean %v min %v max %v (mode period %v); by the guest clock at arrival: mean %v min %v max %v",
		time.Duration(p.IntervalMeanNs), time.Duration(p.IntervalMinNs), time.Duration(p.IntervalMaxNs), time.Duration(p.PeriodNs),
		time.Duration(p.WallMeanNs), time.Duration(p.WallMinNs), time.Duration(p.WallMaxNs)))
	summary = append(summary, fmt.Sprintf("frames read back: %d (%d rows), wrong %d; flipping took %v; CRTC restored: %v (supervisor: %v)",
		p.PatternChecked, p.RowsChecked, p.PatternErrors, time.Duration(p.TotalNs).Round(time.Millisecond), p.Restored, s.CrtcRestored))
	if n := int64(max(p.Completed, 1)); p.CopySumNs > 0 {
		summary = append(summary, fmt.Sprintf("guest CPU per frame: copy mean %v max %v; read-back check mean %v max %v",
			time.Duration(p.CopySumNs/n).Round(time.Microsecond), time.Duration(p.CopyMaxNs).Round(time.Microsecond),
			time.Duration(p.CheckSumNs/n).Round(time.Microsecond), time.Duration(p.CheckMaxNs).Round(time.Microsecond)))
	}
	return failures, summary
}

// judgeSigterm checks the run the supervisor stopped with SIGTERM.
func judgeSigterm(p PresentReport, s SuperviseReport) (failures, summary []string) {
	fail := func(f string, a ...any) { failures = append(failures, "SIGTERM run: "+fmt.Sprintf(f, a...)) }
	if !s.ModesetSeen || !s.SigtermSent {
		fail("the signal was not sent mid-run (mode set seen %v, sent %v)", s.ModesetSeen, s.SigtermSent)
	}
	want := 128 + int(syscall.SIGTERM)
	if s.Killed != "" || s.ExitCode != want {
		fail("the command ended with status %d%s, want %d (handled, 128+SIGTERM)", s.ExitCode, killed(&s), want)
	}
	if p.Signal != syscall.SIGTERM.String() {
		fail("the command reports signal %q", p.Signal)
	}
	if p.Completed == 0 || p.PatternErrors != 0 || p.ScanoutErrors != 0 {
		fail("%d flips before the signal, %d frames read back wrong, %d not scanned out",
			p.Completed, p.PatternErrors, p.ScanoutErrors)
	}
	if !p.Restored || !s.CrtcRestored {
		fail("the CRTC was not restored (command: %v %s; supervisor: %v %s)", p.Restored, p.RestoreError, s.CrtcRestored, s.Diff)
	}
	summary = append(summary, fmt.Sprintf("SIGTERM run: stopped after %d flips with status %d; CRTC restored: %v (supervisor: %v)",
		p.Completed, s.ExitCode, p.Restored, s.CrtcRestored))
	return failures, summary
}

// killed says which signal killed the command, if one did.
func killed(s *SuperviseReport) string {
	if s.Killed != "" {
		return " (killed by " + s.Killed + ")"
	}
	return ""
}

// bootFigures picks the guest's uptime marks ("T_init uptime=3.75") out of
// the log.
func bootFigures(l *Log) []string {
	var marks []string
	for _, line := range l.Lines {
		if i := strings.Index(line, "T_"); i >= 0 && strings.Contains(line[i:], " uptime=") {
			marks = append(marks, strings.TrimSpace(line[i:]))
		}
	}
	if len(marks) == 0 {
		return nil
	}
	return []string{"guest uptime marks: " + strings.Join(marks, ", ")}
}

// runJudge is "kmsprobe judge [flags] LOG": it prints the figures and
// either PASS or each failure, and exits 1 on failure.
func runJudge(args []string) int {
	fs := flag.NewFlagSet("judge", flag.ExitOnError)
	c := Criteria{}
	fs.Uint64Var(&c.MinFlips, "min-flips", 300, "completed flips the normal run needs")
	fs.Uint64Var(&c.MaxMissed, "max-missed", 0, "missed vblanks allowed in the normal run")
	fs.Float64Var(&c.Tolerance, "tolerance", 0.001, "relative tolerance of measured periods")
	fs.BoolVar(&c.Sigterm, "sigterm", true, "expect a second run stopped by SIGTERM")
	fs.Parse(args)
	var r io.Reader = os.Stdin
	if fs.NArg() > 0 {
		f, err := os.Open(fs.Arg(0))
		if err != nil {
			fmt.Fprintln(os.Stderr, "kmsprobe judge:", err)
			return 1
		}
		defer f.Close()
		r = f
	}
	l, err := ParseLog(r)
	if err != nil {
		fmt.Println("FAIL: reading the log:", err)
		return 1
	}
	failures, summary := Judge(l, c)
	for _, s := range summary {
		fmt.Println(s)
	}
	for _, f := range failures {
		fmt.Println("FAIL:", f)
	}
	if len(failures) > 0 {
		return 1
	}
	fmt.Println("all checks passed")
	return 0
}
