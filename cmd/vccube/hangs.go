package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/vccube/vccube/cuberender"
	"github.com/vccube/vccube/gem"
	"github.com/vccube/vccube/present"
	"github.com/vccube/vccube/report"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// GPU hangs, as the program survives them.
//
// The kernel resets a VideoCore IV that stopped making progress and
// completes its job as if it had finished (vc4_gem.c
// vc4_hangcheck_elapsed, vc4_reset): the wait returns 0 and no ioctl
// fails. What tells the program, in order of authority:
//
//   - the frame's own memory (cuberender.LostFrameError): the renderer
//     marks the colour buffer's last pixel before each submit and the GPU
//     overwrites the mark when it stores the last tile; a mark still there
//     after the wait is a frame the GPU did not finish. Authoritative for
//     that frame, and what counts a frame as lost;
//   - the kernel's hang state (GET_HANG_STATE, root only): authoritative
//     that the kernel reset the GPU, and where the control lists stood,
//     but the kernel keeps only the first hang until someone reads it and
//     cannot say whose job it was. Read after a lost frame, and peeked
//     after every frame (one ioctl) so that a reset whose frame still came
//     out whole — a job whose binning hung is restarted — is seen too;
//   - on the simulated device in this process, without root, the
//     simulated kernel's log (sim.Device.KernelLog), which names the job
//     of each reset ("Resetting GPU. (seqno N: …)"): authoritative that
//     it reset the GPU while a frame was drawn, looked at only after a
//     frame that took slowFrame or more (a reset takes that long);
//   - the time a frame's job took, without root: a heuristic. The kernel
//     resets a stopped GPU a second or two after it stopped, so a frame
//     that came out whole after a second or more was either drawn slowly
//     or reset while binning and binned again; it is counted as slow
//     (report.GPUHangs.SlowFrames), not as a hang;
//   - the wait's timeout (cuberender.HangError): a job that has not finished
//     after cuberender.DefaultWaitTimeout is one the kernel keeps restarting or
//     cannot reset; no later job can run, so the run stops.
//
// A lost frame is not shown (its swapchain buffer goes back unpresented),
// recorded or captured; the run goes on with the next frame, and the
// program exits with status 1 at the end, saying what happened and what
// to do.

// maxHangLines bounds the lines printed while the run goes on; the report
// lists the hangs after that.
const maxHangLines = 5

// slowFrame is how long a frame's job may take before it counts as slow:
// a kernel resets a stopped GPU at its second hang check after the stop,
// the checks a second apart (sim/kernel KernelHangcheckPeriod), so a
// reset job takes at least about this long.
const slowFrame = time.Second

// hangWatch follows the GPU hangs of a run.
type hangWatch struct {
	conn uapi.Conn // the GPU's, not traced
	// kernelLog, on the simulated device in this process, returns what
	// its kernel printed; nil elsewhere.
	kernelLog func() []string
	// served is set on a simulated device vc4serve serves (-device
	// vc4serve:DIR): its kernel's log is the server's, out of reach.
	served  bool
	rep     report.GPUHangs
	root    bool // GET_HANG_STATE answers: the program runs as root
	peekArg uapi.GetHangState
	lost    []uint64  // the lost frames' numbers, for the messages (the first few)
	out     io.Writer // where the lines during the run go, nil while the terminal view is open
	printed int
}

// start learns whether the kernel's hang states can be read and takes any
// the kernel held from before the run, so that the ones read later are
// this run's.
func (w *hangWatch) start(conn uapi.Conn, out io.Writer) {
	w.conn, w.out = conn, out
	pending, err := gem.PeekHangState(conn, &w.peekArg)
	switch {
	case (errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM)) && w.kernelLog != nil:
		// The simulated kernel keeps Linux's rule (vc4_drv.c: the
		// ioctl is DRM_ROOT_ONLY) and opens the program's file as
		// root's only when it runs as root (defaultSim).
		w.rep.HangStateNote = "not read: the simulated kernel answers GET_HANG_STATE to root only, as Linux does; " +
			"its log, which vccube reads, names the jobs it reset"
		return
	case (errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM)) && w.served:
		w.rep.HangStateNote = "not read: vc4serve opens its clients' files as an ordinary user's, and its simulated kernel " +
			"answers GET_HANG_STATE to root only, as Linux does"
		w.rep.SlowFramesWhere = "vc4serve's simulated kernel keeps its log to itself"
		return
	case errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM):
		w.rep.HangStateNote = "not read: GET_HANG_STATE is for root only (run vccube as root to have the kernel's record of each hang here)"
		return
	case err != nil:
		w.rep.HangStateNote = fmt.Sprintf("not read: GET_HANG_STATE failed: %v", err)
		return
	}
	w.root = true
	if pending {
		w.rep.Add(report.HangEvent{What: report.HangBefore, State: w.read()})
	}
}

// read reads and clears the kernel's hang state (root only), or returns
// nil when there is none or it cannot be read.
func (w *hangWatch) read() *report.HangState {
	if !w.root {
		return nil
	}
	h, err := gem.GetHangStateReport(w.conn)
	if err != nil {
		return nil // ENOENT: none; anything else: the report says what it could
	}
	w.rep.HangStates++
	st := stateOf(h)
	_ = h.CloseBOs(w.conn) // the handles keep the hung jobs' BOs alive
	return st
}

// stateOf copies a hang state into the report's form.
func stateOf(h *gem.HangReport) *report.HangState {
	s := &h.State
	return &report.HangState{
		StartBin: s.StartBin, StartRender: s.StartRender,
		Ct0ca: s.Ct0ca, Ct0ea: s.Ct0ea, Ct1ca: s.Ct1ca, Ct1ea: s.Ct1ea, Ct0cs: s.Ct0cs, Ct1cs: s.Ct1cs,
		Ct0ra0: s.Ct0ra0, Ct1ra0: s.Ct1ra0, Bpca: s.Bpca, Bpcs: s.Bpcs, Bpoa: s.Bpoa, Bpos: s.Bpos,
		Vpmbase: s.Vpmbase, Dbge: s.Dbge, Fdbgo: s.Fdbgo, Fdbgb: s.Fdbgb, Fdbgr: s.Fdbgr, Fdbgs: s.Fdbgs,
		Errstat: s.Errstat, BOs: s.BOCount, Summary: h.Summary(),
	}
}

// whole is called after frame k (job seqno) came out whole, its job
// having taken took from submit to the end of the wait. As root it peeks
// at the kernel's hang state: one recorded now is a reset the frame
// survived. Without root a frame that took slowFrame or more is counted
// as slow. It allocates nothing when there is nothing to record.
func (w *hangWatch) whole(k, seqno uint64, took time.Duration) {
	if !w.root {
		switch {
		case took < slowFrame:
		case w.kernelLog != nil:
			w.simulatedSlowFrame(k, seqno, took)
		case w.served:
			w.rep.SlowFrames++
			w.say("vccube: frame %d (seqno %d) took %.1f s, as long as the kernel takes to reset a hung GPU: "+
				"drawn slowly, or reset and drawn again (vc4serve's simulated kernel keeps its log to itself); the run goes on\n", k, seqno, took.Seconds())
		default:
			w.rep.SlowFrames++
			w.say("vccube: frame %d (seqno %d) took %.1f s, as long as the kernel takes to reset a hung GPU: "+
				"drawn slowly, or reset and drawn again (check dmesg for \"Resetting GPU.\"); the run goes on\n", k, seqno, took.Seconds())
		}
		return
	}
	if pending, err := gem.PeekHangState(w.conn, &w.peekArg); err != nil || !pending {
		return
	}
	w.rep.Add(report.HangEvent{Frame: k, Seqno: seqno, What: report.HangReset, State: w.read()})
	w.say("vccube: frame %d (seqno %d) came out whole, but the kernel reset the GPU while it was drawn (a hang state was recorded); the run goes on\n", k, seqno)
}

// simulatedSlowFrame tells apart, on the simulated device without root,
// the two things a slow frame can be: the simulated kernel logs the seqno
// of each job it resets (sim/kernel runJob), so a reset of this frame's
// job is recorded as one (without the hang state, which is root's), and a
// frame it did not reset was drawn slowly by the simulated GPU, which
// shares this machine's CPUs: said, but not counted (SlowFrames counts the
// frames that may have been reset; this one was not).
func (w *hangWatch) simulatedSlowFrame(k, seqno uint64, took time.Duration) {
	if line, ok := resetOf(w.kernelLog(), seqno); ok {
		w.rep.Add(report.HangEvent{Frame: k, Seqno: seqno, What: report.HangReset})
		w.say("vccube: frame %d (seqno %d) came out whole, but the simulated kernel reset the GPU while it was drawn "+
			"(it logged %q); the run goes on\n", k, seqno, line)
		return
	}
	w.say("vccube: frame %d (seqno %d) took %.1f s, and the simulated kernel did not reset the GPU: "+
		"the simulated GPU drew it slowly (it runs on this machine's CPUs); the run goes on\n", k, seqno, took.Seconds())
}

// resetOf finds the simulated kernel's line for a reset of job seqno in
// its log ("Resetting GPU. (seqno N: reason)"; sim/kernel runJob).
func resetOf(log []string, seqno uint64) (string, bool) {
	prefix := fmt.Sprintf("Resetting GPU. (seqno %d: ", seqno)
	for i := len(log) - 1; i >= 0; i-- {
		if strings.HasPrefix(log[i], prefix) {
			return log[i], true
		}
	}
	return "", false
}

// lostFrame records frame k, which the GPU did not finish.
func (w *hangWatch) lostFrame(k uint64, lost *cuberender.LostFrameError) {
	w.rep.LostFrames++
	if len(w.lost) < 8 {
		w.lost = append(w.lost, k)
	}
	w.rep.Add(report.HangEvent{Frame: k, Seqno: lost.Seqno, What: report.HangLost, State: w.read()})
	w.say("vccube: frame %d (seqno %d) was lost: the GPU hung, and the kernel reset it and gave the job back undrawn; "+
		"the frame is not shown, and the run goes on\n", k, lost.Seqno)
}

// stuckFrame records frame k, which never finished.
func (w *hangWatch) stuckFrame(k uint64, hung *cuberender.HangError) {
	w.rep.Stuck = true
	w.rep.Add(report.HangEvent{Frame: k, Seqno: hung.Seqno, What: report.HangStuck, State: w.read()})
}

// say prints a line while the run goes on, the first maxHangLines times,
// unless the terminal view holds the terminal.
func (w *hangWatch) say(format string, args ...any) {
	if w.out == nil {
		return
	}
	w.printed++
	switch {
	case w.printed < maxHangLines:
		fmt.Fprintf(w.out, format, args...)
	case w.printed == maxHangLines:
		fmt.Fprintf(w.out, format, args...)
		fmt.Fprintf(w.out, "vccube: further hangs are listed in the report only\n")
	}
}

// lostFramesError is the error of a run that lost frames to GPU hangs:
// what happened and what to do.
func (p *program) lostFramesError() error {
	h := &p.hangs.rep
	var frames []string
	for _, k := range p.hangs.lost {
		frames = append(frames, fmt.Sprint(k))
	}
	which := strings.Join(frames, ", ")
	if h.LostFrames > uint64(len(frames)) {
		which += ", …"
	}
	return fmt.Errorf("%d of %d frames were lost to GPU hangs (frame %s): the GPU hung, and the kernel reset it and gave the jobs back undrawn, "+
		"so those frames were not shown; %s", h.LostFrames, p.rendered, which, p.hangAdvice())
}

// hangAdvice says what to do about a GPU hang: where the kernel's own
// account is, and what to send.
func (p *program) hangAdvice() string {
	if p.gpu.kernelLog != nil {
		var resets []string
		for _, l := range p.gpu.kernelLog() {
			if strings.HasPrefix(l, "Resetting GPU.") {
				resets = append(resets, l)
			}
		}
		if n := len(resets); n > 0 && p.cfg != nil && !p.cfg.simFaults.IsZero() && strings.Contains(resets[n-1], "injected fault") {
			return fmt.Sprintf("the simulated kernel logged %d resets, the last: %q: the fault -sim-faults injected, as asked", n, resets[n-1])
		}
		if len(resets) > 0 {
			return fmt.Sprintf("the simulated kernel logged %d resets, the last: %q. On the simulated device this is a gap of the GPU model "+
				"(or a fault a test injected): please report it with a trace of the run (-trace run.jsonl.gz)", len(resets), resets[len(resets)-1])
		}
	}
	if p.hangs.served {
		return "on the simulated device vc4serve serves this is a gap of the GPU model (or a fault a test injected): " +
			"please report it with a trace of the run (-trace run.jsonl.gz)"
	}
	advice := "check the kernel log (dmesg | grep -i -e vc4 -e 'Resetting GPU'), and please report it: run vccube -selftest and send its bundle " +
		"(vccube-selftest.tar.gz), a trace of a short run (vccube -frames 120 -trace pi-run.jsonl.gz) and this report"
	if !p.hangs.root {
		advice += "; run vccube as root to have the kernel's record of each hang in the report"
	}
	return advice
}

// stopError ends the run before it was asked to end; the report is still
// printed, with the reason (report.Report.Stopped).
type stopError struct {
	reason string // for the report: what stopped the run
	err    error  // for the person: what happened and what to do
}

func (e *stopError) Error() string { return e.err.Error() }
func (e *stopError) Unwrap() error { return e.err }

// waitFailed handles a frame whose wait failed: a lost frame is recorded
// and its buffer given back unshown, and the run goes on; a frame that
// never finished stops the run (with the report); anything else fails it.
func (p *program) waitFailed(k uint64, b *present.Buffer, err error) error {
	var lost *cuberender.LostFrameError
	var hung *cuberender.HangError
	switch {
	case errors.As(err, &lost):
		p.hangs.lostFrame(k, lost)
		if int64(k) == p.cfg.captureFrame {
			p.shotLost = true
		}
		if b != nil {
			return p.sc.Release(b)
		}
		return nil
	case errors.As(err, &hung):
		p.hangs.stuckFrame(k, hung)
		return &stopError{
			reason: fmt.Sprintf("frame %d never finished: the GPU stayed hung for %s", k, hung.Timeout),
			err:    fmt.Errorf("frame %d: %w; no later frame can be drawn before it, so the run stops; %s", k, err, p.hangAdvice()),
		}
	}
	return err
}
