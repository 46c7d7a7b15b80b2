package main

import (
	"bytes"
	"flag"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/vccube/vccube/internal/imgcmp"
)

// Criteria are the judge's pass conditions.
type Criteria struct {
	// MinFlips and MaxMissed are for kmsprobe present's run: completed
	// page flips at least, vblanks without a new frame at most.
	MinFlips  uint64
	MaxMissed uint64
	// MinFrames is for vccube's normal run: frames shown at least (the
	// mode set and the flips after it). MaxMissedQueued bounds the
	// vblanks vccube's flips missed after they were queued — the display
	// path's misses; those of frames not yet rendered are the simulated
	// GPU's slowness under emulation, and are only reported.
	MinFrames       uint64
	MaxMissedQueued uint64
	// Tolerance is relative: measured periods against the mode's.
	Tolerance float64
	// Reference is the frame vccube captured in the guest as the host's
	// simulated display showed it; nil: no comparison. SaveCapture, if
	// not empty, is where the guest's capture is written for a person.
	Reference   image.Image
	SaveCapture string
	// Atomic asks for vccube's two runs a second time with -atomic
	// (atomic commits, kmscube -A's way), judged as the legacy ones are,
	// and every flip's out-fence signalled with its event.
	Atomic bool
}

// maxIntervalErrorMs is how far an interval between vccube's flips may be
// from its sequence step times the mode's frame period on VKMS: its
// vblank timestamps are the expiry times of an hrtimer running at exactly
// that period (vkms_crtc.c vkms_vblank_simulate, vkms_get_vblank_timestamp),
// and events carry them in whole microseconds, so two of them differ from
// the exact value by less than 1 µs; 2 µs allows for the rounding of the
// period itself.
const maxIntervalErrorMs = 0.002

// Judge checks a console log against the criteria and returns the list of
// failures (empty: pass) and a summary of the figures. The log must hold
// three supervised runs: kmsprobe present, vccube ending by itself, and
// vccube stopped with SIGTERM.
func Judge(l *Log, c Criteria) (failures []string, summary []string) {
	fail := func(f string, a ...any) { failures = append(failures, fmt.Sprintf(f, a...)) }
	var present, normal, term, atomicNormal, atomicTerm []Run
	for _, r := range l.Runs {
		atomic := slices.Contains(strings.Fields(r.Supervise.Command), "-atomic")
		switch prog := program(r.Supervise.Command); {
		case prog == "kmsprobe":
			present = append(present, r)
		case prog == "vccube" && r.Supervise.TermAfterNs > 0 && atomic:
			atomicTerm = append(atomicTerm, r)
		case prog == "vccube" && r.Supervise.TermAfterNs > 0:
			term = append(term, r)
		case prog == "vccube" && atomic:
			atomicNormal = append(atomicNormal, r)
		case prog == "vccube":
			normal = append(normal, r)
		default:
			fail("a run of an unexpected command: %q", r.Supervise.Command)
		}
	}
	type which struct {
		name  string
		runs  []Run
		judge func(Run, Criteria) ([]string, []string)
	}
	all := []which{
		{"kmsprobe present", present, judgePresent},
		{"vccube", normal, judgeVccube},
		{"vccube SIGTERM", term, judgeVccubeSigterm},
	}
	if c.Atomic {
		all = append(all,
			which{"vccube -atomic", atomicNormal, judgeVccubeAtomic},
			which{"vccube -atomic SIGTERM", atomicTerm, judgeVccubeAtomicSigterm})
	} else if len(atomicNormal)+len(atomicTerm) > 0 {
		fail("%d runs of vccube -atomic, which the judge was not asked for (-atomic)", len(atomicNormal)+len(atomicTerm))
	}
	for _, w := range all {
		if len(w.runs) != 1 {
			fail("%s: expected one run, found %d (did the guest crash or the kernel panic? see the log)", w.name, len(w.runs))
			continue
		}
		f, s := w.judge(w.runs[0], c)
		failures, summary = append(failures, f...), append(summary, s...)
	}
	return failures, append(summary, bootFigures(l)...)
}

// program is the base name of a command's program.
func program(command string) string {
	if f := strings.Fields(command); len(f) > 0 {
		return filepath.Base(f[0])
	}
	return ""
}

// judgeCommon checks what every run must show: the supervisor's view of
// the command's end and of the CRTCs, and that the command printed its
// report. It returns false when there is no report to judge further.
func judgeCommon(name string, r Run, wantExit int, fail func(string, ...any)) bool {
	s := r.Supervise
	if s.Error != "" {
		fail("%s: the supervisor: %s", name, s.Error)
	}
	if s.Killed != "" || s.ExitCode != wantExit {
		fail("%s: the command ended with status %d%s, want %d", name, s.ExitCode, killed(s), wantExit)
	}
	if !s.CrtcRestored {
		fail("%s: the supervisor found the CRTCs changed after the command: %s", name, s.Diff)
	}
	if r.Present == nil && r.Vccube == nil {
		fail("%s: the command printed no report (stdout: %.300q)", name, s.Stdout)
		return false
	}
	return true
}

// judgePresent checks kmsprobe present's run: the presenter alone,
// flipping frames it copies in as fast as the display takes them, every
// vblank.
func judgePresent(r Run, c Criteria) (failures, summary []string) {
	fail := func(f string, a ...any) { failures = append(failures, fmt.Sprintf(f, a...)) }
	if !judgeCommon("kmsprobe present", r, 0, fail) {
		return failures, summary
	}
	if r.Present == nil {
		fail("kmsprobe present: the command printed a report that is not kmsprobe present's")
		return failures, summary
	}
	p, s := *r.Present, *r.Supervise
	fail = func(f string, a ...any) { failures = append(failures, "kmsprobe present: "+fmt.Sprintf(f, a...)) }
	if p.Error != "" {
		fail("%s", p.Error)
	}
	// The presenter must have run on VKMS itself (DRM_IOCTL_VERSION's
	// name), as vccube's run must: a guest whose card0 were another
	// driver would judge a different display's timing.
	if p.Driver != "vkms" {
		fail("the frames were not shown on VKMS (driver %q)", p.Driver)
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
	steps := max(p.Completed, 1) - 1
	summary = append(summary, fmt.Sprintf("kmsprobe present: %s %s on CRTC %d (%s): mode set + %d flips, %d events, sequence %d..%d, "+
		"+1 per flip on %d of %d steps (%d missed vblanks, at flips %v)",
		p.Connector, p.Mode, p.Crtc, p.Driver, p.Flips, p.Completed, p.SeqFirst, p.SeqLast,
		steps-uint64(p.SeqStepsNotOne), steps, p.Missed, p.MissedAt))
	if p.Missed > 0 {
		summary = append(summary, fmt.Sprintf("kmsprobe present: missed vblanks: %d of flips queued late by the guest, %d of flips queued up to %v before the vblank "+
			"(a host stall between the flip and the vblank)", p.MissedQueuedLate, p.MissedQueuedOnTime,
			time.Duration(p.OnTimeMarginMaxNs).Round(time.Microsecond)))
	}
	summary = append(summary, fmt.Sprintf("kmsprobe present: flip interval by event timestamps: mean %v min %v max %v (mode period %v); by the guest clock at arrival: mean %v min %v max %v",
		time.Duration(p.IntervalMeanNs), time.Duration(p.IntervalMinNs), time.Duration(p.IntervalMaxNs), time.Duration(p.PeriodNs),
		time.Duration(p.WallMeanNs), time.Duration(p.WallMinNs), time.Duration(p.WallMaxNs)))
	summary = append(summary, fmt.Sprintf("kmsprobe present: frames read back: %d (%d rows), wrong %d; flipping took %v; CRTC restored: %v (supervisor: %v)",
		p.PatternChecked, p.RowsChecked, p.PatternErrors, time.Duration(p.TotalNs).Round(time.Millisecond), p.Restored, s.CrtcRestored))
	if n := int64(max(p.Completed, 1)); p.CopySumNs > 0 {
		summary = append(summary, fmt.Sprintf("kmsprobe present: guest CPU per frame: copy mean %v max %v; read-back check mean %v max %v",
			time.Duration(p.CopySumNs/n).Round(time.Microsecond), time.Duration(p.CopyMaxNs).Round(time.Microsecond),
			time.Duration(p.CheckSumNs/n).Round(time.Microsecond), time.Duration(p.CheckMaxNs).Round(time.Microsecond)))
	}
	return failures, summary
}

// judgeVccube checks vccube's run on VKMS that ends by itself: the
// simulated GPU renders, VKMS scans out (vccube -device sim -display).
func judgeVccube(r Run, c Criteria) (failures, summary []string) {
	return judgeVccubeNamed("vccube", false, r, c)
}

// judgeVccubeAtomic checks vccube -atomic's run as judgeVccube checks the
// legacy one, and that the report says atomic commits showed the frames
// with every flip's out-fence signalled by its event.
func judgeVccubeAtomic(r Run, c Criteria) (failures, summary []string) {
	return judgeVccubeNamed("vccube -atomic", true, r, c)
}

// judgeVccubeAtomicSigterm is judgeVccubeSigterm for vccube -atomic.
func judgeVccubeAtomicSigterm(r Run, c Criteria) (failures, summary []string) {
	return judgeVccubeSigtermNamed("vccube -atomic SIGTERM", r, c)
}

func judgeVccubeNamed(name string, atomic bool, r Run, c Criteria) (failures, summary []string) {
	fail := func(f string, a ...any) { failures = append(failures, fmt.Sprintf(f, a...)) }
	if !judgeCommon(name, r, 0, fail) {
		return failures, summary
	}
	fail = func(f string, a ...any) { failures = append(failures, name+": "+fmt.Sprintf(f, a...)) }
	v := r.Vccube
	if v == nil {
		fail("the command printed a report that is not vccube's")
		return failures, summary
	}
	if v.DisplayDriver != "vkms" || v.DisplayDevice == "" || !v.VSync || v.Flips == nil {
		fail("the frames were not shown on VKMS with page flips (display %q of %q, driver %q, vsync %v)",
			v.Display, v.DisplayDevice, v.DisplayDriver, v.VSync)
		return failures, summary
	}
	f := *v.Flips
	if !f.ModeSet {
		fail("the mode was never set")
	}
	if f.Atomic != atomic {
		fail("the report says atomic commits %v, want %v", f.Atomic, atomic)
	}
	if atomic && (f.OutFences != f.Completed || f.OutFencesLate != 0) {
		fail("%d flips completed, %d out-fences checked, %d not signalled with their event; want every one signalled", f.Completed, f.OutFences, f.OutFencesLate)
	}
	if atomic {
		summary = append(summary, fmt.Sprintf("%s: atomic commits; %d out-fences, %d not signalled with their flip event", name, f.OutFences, f.OutFencesLate))
	}
	if f.Queued+1 < c.MinFrames {
		fail("%d frames shown (the mode set and %d flips), want at least %d", f.Queued+1, f.Queued, c.MinFrames)
	}
	if f.Completed != f.Queued {
		fail("%d flips queued but %d completed by an event", f.Queued, f.Completed)
	}
	if f.Completed > 0 && uint64(f.LastSequence-f.FirstSequence) != f.Completed-1+f.MissedVblanks {
		fail("sequence %d..%d does not match %d flips and %d missed vblanks", f.FirstSequence, f.LastSequence, f.Completed, f.MissedVblanks)
	}
	if f.IntervalErrorMaxMs > maxIntervalErrorMs {
		fail("a flip interval is %.6f ms away from its sequence step times the mode's period (at most %.3f allowed)",
			f.IntervalErrorMaxMs, maxIntervalErrorMs)
	}
	if f.FramePeriodMs <= 0 {
		fail("the mode's frame period is unknown")
	} else {
		tol := c.Tolerance * f.FramePeriodMs
		if d := f.VblankPeriodMs - f.FramePeriodMs; d > tol || d < -tol {
			fail("measured vblank period %.6f ms, the mode's is %.6f ms", f.VblankPeriodMs, f.FramePeriodMs)
		}
		if f.Completed > 1 {
			want := f.FramePeriodMs * float64(f.Completed-1+f.MissedVblanks) / float64(f.Completed-1)
			if d := f.MeanIntervalMs - want; d > tol || d < -tol {
				fail("mean flip interval %.6f ms, want %.6f ms (the mode's period, %d missed vblanks)", f.MeanIntervalMs, want, f.MissedVblanks)
			}
		}
	}
	if f.MissedLate+f.MissedQueued != f.MissedVblanks {
		fail("%d missed vblanks, but %d late frames and %d after queueing: not told apart (event timestamps not on CLOCK_MONOTONIC?)",
			f.MissedVblanks, f.MissedLate, f.MissedQueued)
	}
	if f.MissedQueued > c.MaxMissedQueued {
		fail("%d vblanks passed after a flip was queued (the earliest %.3f ms after the queueing), at most %d allowed",
			f.MissedQueued, f.MissedQueuedMarginMaxMs, c.MaxMissedQueued)
	}
	summary = append(summary,
		fmt.Sprintf(name+": %s (%s): mode set + %d flips, %d events, sequence %d..%d; %d missed vblanks: %d with the frame not ready, %d after the flip was queued",
			v.Display, v.DisplayDriver, f.Queued, f.Completed, f.FirstSequence, f.LastSequence, f.MissedVblanks, f.MissedLate, f.MissedQueued),
		fmt.Sprintf(name+": frame time p50 %.1f ms, max %.1f ms (%.1f refresh periods): the simulated GPU under emulation; %s",
			v.FrameTimeMs.P50, v.FrameTimeMs.Max, v.FrameTimeMs.P50/max(f.FramePeriodMs, 1e-9), v.GPU),
		fmt.Sprintf(name+": flip interval by event timestamps: mean %.6f ms min %.6f ms max %.6f ms; vblank period %.6f ms (mode %.6f ms); largest error against sequence step x period %.6f ms",
			f.MeanIntervalMs, f.MinIntervalMs, f.MaxIntervalMs, f.VblankPeriodMs, f.FramePeriodMs, f.IntervalErrorMaxMs))
	if c.Reference != nil {
		f, s := judgeCapture(name, r.Supervise.Attachment, c)
		failures, summary = append(failures, f...), append(summary, s...)
	}
	summary = append(summary, fmt.Sprintf(name+": exit status %d; CRTC restored (supervisor): %v", r.Supervise.ExitCode, r.Supervise.CrtcRestored))
	return failures, summary
}

// judgeCapture compares the frame vccube captured through VKMS (read back
// from the scanout buffer GETCRTC named) with the host's capture of the
// same frame from the simulated display. Both come from the same static
// binary rendering frame K of an untouched run on the same model, so they
// must be equal, pixel for pixel.
func judgeCapture(name string, a *Attachment, c Criteria) (failures, summary []string) {
	fail := func(f string, a ...any) { failures = append(failures, name+" capture: "+fmt.Sprintf(f, a...)) }
	if a == nil || a.Error != "" || len(a.Data) == 0 {
		if a != nil {
			fail("the guest's capture could not be read: %s", a.Error)
		} else {
			fail("the supervisor attached no capture")
		}
		return failures, summary
	}
	got, err := png.Decode(bytes.NewReader(a.Data))
	if err != nil {
		fail("the guest's capture %s is not a PNG: %v", a.Path, err)
		return failures, summary
	}
	if c.SaveCapture != "" {
		path := c.SaveCapture
		if name != "vccube" {
			// vccube -atomic's capture goes beside the legacy run's.
			path = strings.TrimSuffix(path, ".png") + strings.ReplaceAll(strings.TrimPrefix(name, "vccube"), " ", "") + ".png"
		}
		if err := os.WriteFile(path, a.Data, 0o644); err != nil {
			fail("saving it: %v", err)
		}
	}
	res, err := imgcmp.Compare(got, c.Reference, 0)
	if err != nil {
		fail("%v", err)
		return failures, summary
	}
	b := got.Bounds()
	if res.Over != 0 {
		fail("the frame read back from VKMS differs from the host's simulated-display capture: %v", res)
	}
	summary = append(summary, fmt.Sprintf(name+" capture: %dx%d frame read back from the VKMS scanout buffer against the host's simulated display: %d pixels differ (largest difference %d)",
		b.Dx(), b.Dy(), res.Over, res.MaxDiff))
	return failures, summary
}

// judgeVccubeSigterm checks the vccube run the supervisor stopped with
// SIGTERM: handled (128+SIGTERM), the display put back, and the report
// still printed.
func judgeVccubeSigterm(r Run, c Criteria) (failures, summary []string) {
	return judgeVccubeSigtermNamed("vccube SIGTERM", r, c)
}

func judgeVccubeSigtermNamed(name string, r Run, c Criteria) (failures, summary []string) {
	fail := func(f string, a ...any) { failures = append(failures, fmt.Sprintf(f, a...)) }
	s := r.Supervise
	if !s.ModesetSeen || !s.SigtermSent {
		fail(name+": the signal was not sent mid-run (mode set seen %v, sent %v)", s.ModesetSeen, s.SigtermSent)
	}
	if !judgeCommon(name, r, 128+int(syscall.SIGTERM), fail) {
		return failures, summary
	}
	v := r.Vccube
	if v == nil || v.Flips == nil || !v.Flips.ModeSet {
		fail("%s: the report shows no mode set", name)
		return failures, summary
	}
	summary = append(summary, fmt.Sprintf(name+": signal %v after the mode set; stopped after the mode set and %d flips with status %d; CRTC restored (supervisor): %v",
		time.Duration(s.TermAfterNs), v.Flips.Queued, s.ExitCode, s.CrtcRestored))
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
	subcommand(fs, `reads the "@@kmsprobe " report lines from a console log (LOG, or stdin) and decides whether the presentation test passed.`)
	c := Criteria{}
	fs.Uint64Var(&c.MinFlips, "min-flips", 300, "completed flips kmsprobe present's run needs")
	fs.Uint64Var(&c.MaxMissed, "max-missed", 0, "missed vblanks allowed in kmsprobe present's run")
	fs.Uint64Var(&c.MinFrames, "min-frames", 300, "frames vccube's run needs")
	fs.Uint64Var(&c.MaxMissedQueued, "max-missed-queued", 0, "vblanks vccube's flips may miss after they were queued")
	fs.Float64Var(&c.Tolerance, "tolerance", 0.001, "relative tolerance of measured periods")
	reference := fs.String("reference", "", "`PNG`: the host's capture of the frame vccube captured in the guest")
	fs.StringVar(&c.SaveCapture, "save-capture", "", "write the guest's capture to this `PNG`")
	fs.BoolVar(&c.Atomic, "atomic", false, "also judge vccube's two runs with -atomic")
	fs.Parse(args)
	if *reference != "" {
		img, err := imgcmp.ReadPNG(*reference)
		if err != nil {
			fmt.Println("FAIL: reading the reference:", err)
			return 1
		}
		c.Reference = img
	}
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
