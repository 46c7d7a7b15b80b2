package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"image"
	"io"
	"os"
	"time"

	"github.com/vccube/vccube/cmd/vccube/internal/bench"
	"github.com/vccube/vccube/cmd/vccube/internal/keys"
	"github.com/vccube/vccube/cuberender"
	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/math/scene"
	"github.com/vccube/vccube/present"
	"github.com/vccube/vccube/record"
	"github.com/vccube/vccube/report"
	"github.com/vccube/vccube/termview"
	"github.com/vccube/vccube/texture"
	"github.com/vccube/vccube/texture/imagefile"
	"github.com/vccube/vccube/uapi"
)

// The terminal view's last row: the keys that work there
// (cmd/vccube/internal/keys), or only Ctrl-C when the keyboard is not the
// program's (stdin is not a terminal). termview shows printable ASCII only.
const (
	viewCaption       = "left/right: spin   space: pause   q: quit"
	viewCaptionNoKeys = "Ctrl-C: quit"
)

// Exit statuses: 0 for a run that ended as asked (frames done, q, Esc),
// 1 for an error, 2 for a bad command line, and 128 + the signal's number
// when SIGINT or SIGTERM stopped it (present.Interrupted.ExitCode).
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// restoreToCancel bounds the wait between a signal's restore of the
// display and the cancel that follows it: both happen on the signal
// handler's goroutine, one right after the other.
const restoreToCancel = 5 * time.Second

// The spin is counted in vkcube's steps of 0.2° (cube.c spin_increment,
// what one arrow key press changes), so that the default 4° per frame
// (scene.SpinDegreesPerFrame) is exactly 20 steps and frame k of an
// untouched run is turned by exactly scene.AngleForFrame(k): captures of
// frame k are deterministic.
const (
	stepsPerDegree = 5
	defaultSpin    = scene.SpinDegreesPerFrame * stepsPerDegree
	fullTurn       = 360 * stepsPerDegree
)

// run is the program: main calls it, and so do the end-to-end tests. It
// returns the exit status.
func run(ctx context.Context, args []string, e *env) int {
	cfg, err := parseArgs(args, e.stdout) // -help is asked for: it is the output
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "vccube: %v\n", err)
		return exitUsage
	}
	if cfg.version {
		fmt.Fprintln(e.stdout, version())
		return exitOK
	}
	if cfg.replay != "" || cfg.selftest {
		return runTool(ctx, cfg, e)
	}
	p := &program{cfg: cfg, env: e, args: args}
	err = p.run(ctx)
	var intr *present.Interrupted
	if errors.As(err, &intr) {
		fmt.Fprintf(e.stderr, "vccube: %v\n", intr)
		return intr.ExitCode()
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "vccube: %v\n", err)
		return exitError
	}
	return exitOK
}

// program is one run's state.
type program struct {
	cfg  *config
	env  *env
	args []string // the command line, for -trace's header

	pic        texture.Picture // -texture's picture, or none (the built-in one)
	capf       *captureFile    // -capture's file, or nil
	trace      *traceFile      // -trace's file, or nil
	gpu        *gpuDevice
	disp       *present.Display
	dispDriver string   // the display card's driver (DRM_IOCTL_VERSION)
	copies     bool     // the display is another card: frames are copied into its dumb buffers
	term       *os.File // the terminal the view draws in, or nil
	r          *cuberender.Renderer
	sc         *present.Swapchain
	rec        bench.Recorder
	pacing     bench.Pacing
	view       *termview.View // the terminal view, or nil
	gif        *record.GIF    // -record's animation, or nil
	kt         *keys.Terminal // the keyboard in raw mode, or nil
	lineOut    io.Writer      // where the periodic benchmark line goes (CRLF while the keyboard is raw)
	unseen     string         // why nothing shows the frames, when nothing does (see limitUnseenRun)
	undo       []undoStep     // what cleanup undoes, in reverse order

	keyCh     <-chan keys.Key
	spin      int // steps of 0.2° per frame
	angle     int // steps, 0 ≤ angle < fullTurn
	paused    bool
	lastBuf   int             // the colour buffer of the last frame rendered, or -1
	lastShow  *present.Buffer // with -display, the display's buffer of the last frame presented
	rendered  uint64          // frames rendered (submitted and finished)
	lastFrame uint64          // the number of the frame in lastBuf
	shot      *image.NRGBA    // the frame -capture writes
	shotFrame uint64          // its number
	shotLost  bool            // -capture-frame's frame was lost to a GPU hang

	hangs      hangWatch // the GPU hangs of the run (hangs.go)
	checkEvery uint64    // frames between two looks at the display's connector (unplug.go)
	stopped    string    // why the run stopped early (report.Report.Stopped)
}

// undoStep is one thing cleanup puts back or closes.
type undoStep struct {
	fn     func() error
	report bool   // a failure fails the run
	what   string // and is reported as "what: error" ("": as it is)
}

// onExit registers a step for cleanup whose error fails the run as
// "what: error"; with what "" its error does not matter.
func (p *program) onExit(what string, fn func() error) {
	p.undo = append(p.undo, undoStep{fn: fn, report: what != "", what: what})
}

// onExitReport registers a step whose error fails the run as it is (it
// says what failed itself).
func (p *program) onExitReport(fn func() error) {
	p.undo = append(p.undo, undoStep{fn: fn, report: true})
}

// cleanup undoes every step in reverse order and keeps the first error in
// *err if there was none yet.
func (p *program) cleanup(err *error) {
	for i := len(p.undo) - 1; i >= 0; i-- {
		s := p.undo[i]
		cerr := s.fn()
		switch {
		case cerr == nil || !s.report || *err != nil:
		case s.what == "":
			*err = cerr
		default:
			*err = fmt.Errorf("%s: %w", s.what, cerr)
		}
	}
	p.undo = nil
}

// run is the program's stages, in order. Order matters: the files are
// checked before any device is touched; the display is put back before
// the renderer frees the buffers it showed (cleanup undoes in reverse).
func (p *program) run(ctx context.Context) (err error) {
	p.lastBuf, p.spin = -1, defaultSpin
	defer p.cleanup(&err)
	if err := p.prepareFiles(); err != nil {
		return err
	}
	if err := p.openGPU(); err != nil {
		return err
	}
	if err := p.openDisplay(); err != nil {
		return err
	}
	if err := p.openView(); err != nil {
		return err
	}
	p.rawKeyboard()
	ctx = p.catchSignals(ctx)
	if err := p.newRenderer(); err != nil {
		return p.explain(err)
	}
	if p.cfg.pipeline == "nv" {
		return p.explain(p.r.SubmitNV(scene.AngleForFrame(0)))
	}
	if err := p.newSwapchain(); err != nil {
		return err
	}
	p.readKeys()
	p.limitUnseenRun()
	return p.end(ctx, p.explain(p.loop(ctx)))
}

// prepareFiles starts -cpuprofile and -memprofile, loads -texture and
// makes -capture's, -record's and -trace's files, so that a bad path is
// reported before any device is touched. The profiles are the first
// step, so cleanup stops them last: they cover the whole run.
func (p *program) prepareFiles() (err error) {
	cfg := p.cfg
	prof, err := startProfiles(cfg)
	if err != nil {
		return err
	}
	p.onExitReport(prof.stop)
	if cfg.texture != "" {
		if p.pic, err = imagefile.Load(cfg.texture, cuberender.ScanoutOrder); err != nil {
			return err
		}
	}
	if cfg.capture != "" {
		if p.capf, err = newCaptureFile(cfg.capture); err != nil {
			return err
		}
		p.onExit("", func() error { p.capf.abort(); return nil })
	}
	if cfg.record != "" {
		// record.Create makes the file now; Discard removes it unless
		// finish completed it.
		if p.gif, err = record.Create(cfg.record, record.Options{FPS: cfg.recordFPS(), Scale: cfg.recordScale}); err != nil {
			return err // "record: cannot write the animation to …"
		}
		p.onExit("", func() error { p.gif.Discard(); return nil })
	}
	if cfg.trace != "" {
		if p.trace, err = openTrace(cfg.trace, p.args); err != nil {
			return err
		}
		p.onExitReport(p.trace.Close) // the last lines (the devices' close) are written in cleanup
	}
	return nil
}

// openGPU opens the -device. A real vc4 shows the cube on its own
// display, so only the simulated device's is shown in the terminal.
func (p *program) openGPU() (err error) {
	cfg := p.cfg
	p.term = p.viewTerminal()
	// Without a VideoCore IV, a vc4 card that only displays (a Pi 4 or
	// 5) shows what the simulated GPU renders, unless the run shows
	// nothing (-vsync=false) or -display names another card.
	wantDisplay := cfg.vsync && cfg.display == "" && cfg.pipeline == "gl"
	if p.gpu, err = openGPU(p.env, cfg.device, cfg.simFaults, p.term != nil, wantDisplay); err != nil {
		return err
	}
	raw := p.gpu.conn
	p.gpu.conn = p.trace.conn(raw)
	p.onExit("closing the GPU device", p.gpu.conn.Close)
	if p.gpu.displayCard != "" {
		cfg.display = p.gpu.displayCard
		p.term = nil
	}
	if !p.gpu.sim {
		p.term = nil
	}
	if cfg.pipeline == "gl" {
		// The hang states are read past the trace: a replay makes no
		// such call, and the non-root refusal would stand in every
		// trace as a failed call.
		p.hangs.kernelLog, p.hangs.served = p.gpu.kernelLog, p.gpu.served
		p.hangs.start(raw, p.env.stderr)
	}
	return nil
}

// openDisplay opens the display frames are shown on, unless the run only
// renders (-vsync=false): the GPU's own, or the -display card. It sets
// the mode and learns how to tell missed vblanks apart.
func (p *program) openDisplay() (err error) {
	cfg := p.cfg
	if !cfg.vsync {
		return nil
	}
	dc := p.gpu.conn
	if cfg.display != "" {
		if dc, err = openDisplay(p.env, cfg.display); err != nil {
			return err
		}
		dc = p.trace.conn(dc)
		p.onExit("closing the display device", dc.Close)
		p.copies = true
	}
	if p.disp, err = present.Open(dc, present.Config{Connector: cfg.connector, Mode: p.mode()}); err != nil {
		return err
	}
	p.onExit("restoring the display", p.disp.Close)
	if cfg.atomic {
		if err := p.disp.EnableAtomic(); err != nil {
			return err
		}
	}
	if v, err := drm.GetVersion(dc); err == nil {
		p.dispDriver = v.Name
	}
	// Missed vblanks are told apart by comparing the queue time
	// (CLOCK_MONOTONIC, bench.Monotonic) with the events' timestamps,
	// which the kernel takes on that clock when it says so. (The
	// simulated display says so too; its virtual clock, which only tests
	// use, never lets a vblank pass unflipped.)
	p.pacing.Period = p.disp.Mode().FramePeriod()
	ts, err := drm.GetCapability(dc, uapi.CapTimestampMonotonic)
	p.pacing.Classify = err == nil && ts == 1
	p.checkEvery = checkInterval(p.disp.Mode().RefreshMilliHz())
	return nil
}

// mode is the mode to ask the display for: -mode, or on the simulated
// device's own display viewMode (its smallest), whether or not the
// terminal shows it, so that the frame size does not depend on where
// stdout goes; a real display's preferred mode otherwise.
func (p *program) mode() present.ModeSpec {
	if p.cfg.modeText == "" && p.gpu.sim && !p.copies {
		return viewMode
	}
	return p.cfg.mode
}

// openView opens the terminal view on p.term, if the run shows one. The
// terminal shows the simulated display; nothing else may write to stdout
// until the view is closed, which end does before the report.
func (p *program) openView() (err error) {
	if p.term == nil {
		p.noticeViewOff()
		return nil
	}
	caption := viewCaption
	if e := p.env; e.keys == nil && (e.stdin == nil || !keys.IsTerminal(int(e.stdin.Fd()))) {
		caption = viewCaptionNoKeys
	}
	if p.view, err = termview.Open(p.term, termview.Options{Caption: caption}); err != nil {
		return err
	}
	p.hangs.out = nil         // the report says it, after the view
	p.onExit("", p.closeView) // end closes it and reports its error
	return nil
}

// noticeViewOff says why the terminal does not show the cube when it
// would have but for a flag that keeps stdout for itself.
func (p *program) noticeViewOff() {
	cfg := p.cfg
	if !p.gpu.sim || !cfg.view || cfg.display != "" || !cfg.vsync || cfg.pipeline != "gl" || !p.stdoutIsTerminal() {
		return
	}
	end := "Ctrl-C ends the run"
	if cfg.frames > 0 {
		end = fmt.Sprintf("the run ends after %d frames", cfg.frames)
		if cfg.frames == 1 {
			end = "the run ends after 1 frame"
		}
	}
	switch {
	case cfg.json:
		fmt.Fprintf(p.env.stderr, "vccube: -json keeps stdout for the report, so the terminal does not show the cube; %s and prints the report\n", end)
	case cfg.dump:
		fmt.Fprintf(p.env.stderr, "vccube: -dump prints the first frame's control lists on stdout, so the terminal does not show the cube; %s\n", end)
	}
}

// rawKeyboard puts the keyboard (stdin, when it is a terminal) in raw
// mode, so that keys arrive as they are pressed; readKeys reads them.
// Tests give keys instead.
func (p *program) rawKeyboard() {
	e := p.env
	p.lineOut = e.stdout
	if e.keys != nil || e.stdin == nil || !keys.IsTerminal(int(e.stdin.Fd())) {
		return
	}
	kt, err := keys.Raw(int(e.stdin.Fd()))
	if err != nil {
		return // the keys are a convenience: run without them
	}
	p.kt = kt
	p.onExit("", kt.Restore)
	if p.stdoutIsTerminal() {
		p.lineOut = kt.CRLF(e.stdout)
	}
}

// catchSignals makes SIGINT and SIGTERM put the display, the terminal
// and the keyboard back at once and end the loop, which then returns
// through cleanup; they are caught until cleanup has freed the renderer.
func (p *program) catchSignals(ctx context.Context) context.Context {
	rs := restorers{}
	if p.disp != nil {
		rs = append(rs, p.disp)
	}
	if p.view != nil {
		rs = append(rs, p.view)
	}
	if p.kt != nil {
		rs = append(rs, p.kt)
	}
	ctx, stop := present.RestoreOnSignal(ctx, rs)
	p.onExit("", func() error { stop(); return nil })
	return ctx
}

// newRenderer makes the renderer: its buffers, shaders and texture.
func (p *program) newRenderer() (err error) {
	cfg := p.cfg
	width, height := cfg.renderOnlySize()
	if p.disp != nil {
		w, h := p.disp.Size()
		width, height = int(w), int(h)
	}
	flip := texture.FlipByGPU
	if !cfg.flipY {
		flip = texture.FlipByCPU
	}
	buffers := cfg.buffers // scanned out as they are (newSwapchain)
	if !cfg.vsync || p.copies {
		// Each frame is finished (and copied, or captured) before the
		// next is drawn: one colour buffer is enough.
		buffers = 1
	}
	if p.r, err = cuberender.New(p.gpu.conn, cuberender.Options{Width: width, Height: height, Texture: p.pic,
		Flip: flip, Buffers: buffers, Counters: cfg.benchmark, WaitTimeout: p.env.waitTimeout}); err != nil {
		return err
	}
	p.onExit("freeing the GPU buffers", func() error {
		if p.disp != nil {
			p.disp.Restore() // the framebuffers go before their BOs
		}
		return p.r.Close()
	})
	return nil
}

// readKeys starts reading the keyboard, raw since rawKeyboard, now that a
// Ctrl-C it reads (which it raises as SIGINT) is caught.
func (p *program) readKeys() {
	p.keyCh = p.env.keys
	if p.kt != nil {
		ch := make(chan keys.Key, 16)
		go keys.Read(p.env.stdin, ch)
		p.keyCh = ch
	}
}

// limitUnseenRun makes a run whose frames nothing shows finite: one full
// turn, then the report and a hint (finish). Nothing shows them when the
// run only renders (-vsync=false), or when the display is the simulated
// device's own and the terminal does not show it (stdout is not a
// terminal, or -view=false); it stays as asked when any flag says what
// the run is for (-frames, -record, -capture, -benchmark, -json, -dump,
// -trace). Without this, `vccube` in a script or CI would render unseen
// until killed.
func (p *program) limitUnseenRun() {
	cfg := p.cfg
	for _, name := range []string{"frames", "record", "capture", "benchmark", "json", "dump", "trace"} {
		if cfg.given[name] {
			return
		}
	}
	switch {
	case !cfg.vsync:
		p.unseen = "-vsync=false renders without showing"
	case !p.gpu.sim || p.copies || p.view != nil:
		return // a display or the terminal shows the frames
	case !cfg.view:
		p.unseen = "-view=false keeps the simulated display out of the terminal"
	default:
		p.unseen = "stdout is not a terminal, so nothing shows the simulated display"
	}
	cfg.frames = recordFrames
}

// end finishes the run after the loop: it lets the last flip land, puts
// the terminal back, learns whether a signal ended the run and then
// writes the capture, the animation and the report.
func (p *program) end(ctx context.Context, loopErr error) error {
	var stop *stopError
	switch {
	case p.sc != nil && loopErr == nil:
		// Let the last flip land, so that it is on screen and counted.
		loopErr = p.sc.Wait()
	case p.sc != nil && errors.As(loopErr, &stop):
		// The run stopped early, the display still flips (vc4 keeps
		// an unplugged connector's CRTC running): count the last one.
		_ = p.sc.Wait()
	}
	// The view and the keyboard go back before anything is printed: the
	// report and any error belong on the terminal's normal screen.
	if cerr := p.closeView(); cerr != nil && loopErr == nil {
		loopErr = cerr
	}
	p.kt.Restore()
	if errors.Is(loopErr, present.ErrRestored) {
		// The signal handler restores the display first and cancels
		// the context right after (present.RestoreOnSignal); the loop
		// can see the first before the second. Wait for the cancel to
		// learn which signal it was.
		select {
		case <-ctx.Done():
		case <-time.After(restoreToCancel):
		}
	}
	if p.trace != nil {
		if terr := p.trace.Err(); terr != nil && loopErr == nil {
			loopErr = terr
		}
	}
	cause := context.Cause(ctx)
	if cause == nil || ctx.Err() == nil {
		if errors.As(loopErr, &stop) {
			// The run stopped early (the display was unplugged, the
			// GPU stayed hung): the frames so far are reported and
			// captured, then the error says what happened.
			p.stopped = stop.reason
			if werr := p.finish(); werr != nil {
				fmt.Fprintf(p.env.stderr, "vccube: %v\n", werr)
			}
			return loopErr
		}
		if loopErr != nil {
			// A failed run writes no capture and no report: the error
			// is what the person needs to read.
			return loopErr
		}
		if err := p.finish(); err != nil {
			return err
		}
		if p.hangs.rep.LostFrames > 0 {
			return p.lostFramesError()
		}
		return nil
	}
	// A signal ended the run: whatever the loop reported (such as
	// present.ErrRestored) follows from it. The frames so far are still
	// reported and captured, as after q; what could not be written is
	// said before the signal is.
	if werr := p.finish(); werr != nil {
		fmt.Fprintf(p.env.stderr, "vccube: %v\n", werr)
	}
	return cause
}

// newSwapchain registers the -buffers scanout buffers: the renderer's
// colour buffers themselves on the GPU's own display (New made that many),
// or dumb buffers of the other card that frames are copied into.
func (p *program) newSwapchain() error {
	if p.disp == nil {
		return nil
	}
	bufs := make([]*present.Buffer, p.cfg.buffers)
	for i := range bufs {
		var err error
		if p.copies {
			bufs[i], err = p.disp.NewDumbBuffer()
		} else {
			rb := p.r.Buffer(i)
			bufs[i], err = p.disp.AddGEMBuffer(rb.Handle, uint32(rb.Pitch), rb.Modifier)
		}
		if err != nil {
			return err
		}
	}
	var err error
	if p.sc, err = p.disp.NewSwapchain(bufs...); err != nil {
		return err
	}
	p.sc.OnFlip = p.pacing.Flip
	if p.env.flipTimeout != 0 {
		p.sc.Timeout = p.env.flipTimeout
	}
	return nil
}

// loop draws frames until -frames is reached, q or Esc is pressed, or a
// signal arrives. It allocates nothing per frame.
func (p *program) loop(ctx context.Context) error {
	cfg, e := p.cfg, p.env
	for k := uint64(0); cfg.frames == 0 || k < cfg.frames; k++ {
		if quit, err := p.handleKeys(ctx); quit || err != nil {
			return err
		}
		p.rec.FrameStart(k)
		if err := p.frame(k); err != nil {
			return err
		}
		p.rendered = k + 1
		// (The periodic line would land in the middle of the terminal
		// view's picture: the view shows the rate instead, at the end.)
		if p.rec.FrameEnd(k) && cfg.benchmark && !cfg.json && p.view == nil {
			p.rec.Line(p.lineOut)
		}
		if p.trace != nil {
			if err := p.trace.Err(); err != nil {
				return err // the trace is incomplete: stop now
			}
		}
		p.advance()
		if e.afterFrame != nil {
			e.afterFrame(k)
		}
		if err := p.checkDisplay(k); err != nil {
			return err
		}
	}
	return nil
}

// advance turns the cube by the spin for the next frame.
func (p *program) advance() {
	p.angle = (p.angle + p.spin) % fullTurn
	if p.angle < 0 {
		p.angle += fullTurn
	}
}

// degrees is the turn of the next frame.
func (p *program) degrees() float32 { return float32(p.angle) / stepsPerDegree }

// handleKeys applies the keys pressed since the last frame; while paused
// it waits for the next key. It reports whether to quit.
func (p *program) handleKeys(ctx context.Context) (quit bool, err error) {
	for {
		if ctx.Err() != nil {
			return true, nil
		}
		if p.keyCh == nil {
			return false, nil
		}
		var k keys.Key
		var ok bool
		if p.paused {
			select {
			case k, ok = <-p.keyCh:
			case <-ctx.Done():
				return true, nil
			}
		} else {
			select {
			case k, ok = <-p.keyCh:
			default:
				return false, nil
			}
		}
		if !ok { // the input ended: keep spinning without keys
			p.keyCh = nil
			p.paused = false
			p.rec.Resume()
			continue
		}
		switch k {
		case keys.Quit:
			return true, nil
		case keys.Left:
			p.spin--
		case keys.Right:
			p.spin++
		case keys.Pause:
			p.paused = !p.paused
			if p.paused {
				p.rec.Pause()
			} else {
				p.rec.Resume()
			}
		}
	}
}

// frame renders frame k, waits for it, gives it to the terminal view and
// to -record, keeps it if -capture wants it, and shows it.
func (p *program) frame(k uint64) error {
	degrees := p.degrees()
	var b *present.Buffer
	buf := 0
	if p.sc != nil && !p.copies {
		// Drawing goes straight into a scanout buffer: one that is
		// neither on screen nor about to be.
		var err error
		if b, err = p.sc.Acquire(); err != nil {
			return err
		}
		buf = p.indexOf(b)
	}
	if err := p.r.Build(buf, degrees); err != nil {
		return err
	}
	if k == 0 && p.cfg.dump {
		if err := p.r.Dump(p.env.stdout); err != nil {
			return err
		}
	}
	submitted := bench.Monotonic()
	seqno, err := p.r.Submit()
	if err != nil {
		return err
	}
	// Never show a frame before the GPU has finished it, nor one it
	// did not finish.
	if err := p.r.Wait(seqno); err != nil {
		return p.waitFailed(k, b, err)
	}
	p.hangs.whole(k, seqno, bench.Monotonic()-submitted)
	p.lastBuf, p.lastFrame = buf, k
	if p.view != nil || p.gif != nil {
		if err := p.showAndRecord(buf); err != nil {
			return err
		}
	}
	keep := p.cfg.captureFrame >= 0 && int64(k) == p.cfg.captureFrame
	if keep && !p.copies {
		// The colour buffer is what the display scans out (or would).
		if p.shot, err = p.r.Capture(buf); err != nil {
			return err
		}
		p.shotFrame = k
	}
	if p.sc == nil {
		return nil
	}
	if p.copies {
		if b, err = p.sc.Acquire(); err != nil {
			return err
		}
		px, err := p.r.Pixels(buf)
		if err != nil {
			return err
		}
		if err := b.CopyFrom(px, p.r.Buffer(buf).Pitch); err != nil {
			return err
		}
	}
	if err := p.sc.Present(b); err != nil {
		return err
	}
	p.pacing.Queued(bench.Monotonic())
	if p.copies {
		p.lastShow = b
		if keep {
			// The frame as the other card shows it, read back from there.
			if p.shot, err = p.captureShown(b); err != nil {
				return err
			}
			p.shotFrame = k
		}
	}
	return nil
}

// showAndRecord gives the finished frame in colour buffer buf to the
// terminal view and to -record. Neither allocates once it has seen a frame
// of this size; the view only copies the frame (its own goroutine draws
// it), the GIF encodes it before it returns.
func (p *program) showAndRecord(buf int) error {
	px, err := p.r.Pixels(buf)
	if err != nil {
		return err
	}
	rb := p.r.Buffer(buf)
	if p.view != nil {
		if err := p.view.ShowXRGB(px, rb.Width, rb.Height, rb.Pitch); err != nil {
			return fmt.Errorf("the terminal view: %w", err)
		}
	}
	if p.gif != nil {
		if err := p.gif.AddXRGB(px, rb.Width, rb.Height, rb.Pitch); err != nil {
			return err // "record: writing frame k: …"
		}
	}
	return nil
}

// indexOf finds a swapchain buffer's colour buffer: the swapchain's
// buffers are the renderer's, in the same order.
func (p *program) indexOf(b *present.Buffer) int {
	for i, sb := range p.sc.Buffers() {
		if sb == b {
			return i
		}
	}
	return 0
}

// finish writes the capture, the animation and the report, says what
// it wrote (on stderr: stdout may be -json's), and, when nothing showed
// the frames, how to see them.
func (p *program) finish() error {
	cfg, e := p.cfg, p.env
	var err error
	if p.capf != nil {
		frame := p.lastFrame
		switch {
		case p.shot != nil:
			frame = p.shotFrame
		case cfg.captureFrame >= 0 && p.shotLost:
			err = fmt.Errorf("-capture-frame %d was lost to a GPU hang (see the report), so no PNG was written to %s; "+
				"give another -capture-frame", cfg.captureFrame, cfg.capture)
		case cfg.captureFrame >= 0:
			err = fmt.Errorf("-capture-frame %d was not rendered: the run stopped after %d frames, so no PNG was written to %s; "+
				"give a -capture-frame below %d, or let the run go on longer", cfg.captureFrame, p.rendered, cfg.capture, p.rendered)
		case p.lastShow != nil && !p.disp.Restored():
			// The last frame is on the other card's screen (run waited
			// for its flip): read it back from there.
			p.shot, err = p.captureShown(p.lastShow)
		case p.lastBuf >= 0:
			p.shot, err = p.r.Capture(p.lastBuf)
		default:
			err = fmt.Errorf("-capture: no frame was rendered, so no PNG was written to %s", cfg.capture)
		}
		if err == nil {
			err = p.capf.write(p.shot)
		}
		if err == nil {
			b := p.shot.Bounds()
			fmt.Fprintf(e.stderr, "vccube: wrote frame %d (%dx%d) to %s\n", frame, b.Dx(), b.Dy(), cfg.capture)
		}
	}
	if p.gif != nil {
		var gerr error
		if p.gif.Frames() == 0 {
			gerr = fmt.Errorf("-record: no frame was rendered, so no animation was written to %s", cfg.record)
		} else if gerr = p.gif.Close(); gerr == nil { // "record: writing the animation …"
			w, h := p.gif.Size()
			fmt.Fprintf(e.stderr, "vccube: wrote %d frames (%dx%d) to %s\n", p.gif.Frames(), w, h, cfg.record)
		}
		if err == nil {
			err = gerr
		}
	}
	if rerr := p.report(e.stdout); rerr != nil && err == nil {
		err = rerr
	}
	if p.unseen != "" {
		fmt.Fprintf(e.stderr, "vccube: %s: rendered one full turn (%d frames) and stopped; "+
			"-record cube.gif or -capture cube.png saves it, -frames N runs N frames (0: until stopped), "+
			"-display /dev/dri/cardN shows it on a KMS card\n", p.unseen, recordFrames)
	}
	return err
}

// report prints kmscube's line (and the terminal view's), and with
// -benchmark or -json the rest.
func (p *program) report(w io.Writer) error {
	cfg := p.cfg
	var term *report.Terminal
	if p.view != nil {
		s := p.view.Stats()
		term = &report.Terminal{Frames: s.Frames, Drawn: s.Drawn, Dropped: s.Dropped}
		if s.Drawn > 0 {
			term.BytesPerFrame = s.Bytes / s.Drawn
		}
	}
	p.hangs.rep.Frames = p.rendered
	if !cfg.json {
		if err := p.rec.Line(w); err != nil {
			return err
		}
		if !cfg.benchmark {
			if term != nil {
				if err := term.Line(w); err != nil {
					return err
				}
			}
			if err := p.hangs.rep.Text(w, false); err != nil {
				return err
			}
			if p.stopped != "" {
				_, err := fmt.Fprintf(w, "stopped early: %s\n", p.stopped)
				return err
			}
			return nil
		}
	}
	width, height := p.r.Size()
	rep := report.Report{Version: version(), Device: p.gpu.name, GPU: p.gpu.info.String(), Width: width, Height: height, VSync: p.sc != nil}
	if p.gpu.sim {
		rep.GPU = "simulated " + rep.GPU
	}
	p.rec.Fill(&rep)
	rep.Terminal = term
	rep.GPUHangs, rep.Stopped = p.hangs.rep, p.stopped
	if p.disp != nil {
		rep.Display = p.disp.String()
		rep.DisplayDriver = p.dispDriver
		if p.copies {
			rep.DisplayDevice = cfg.display
		}
		rep.RefreshHz = float64(p.disp.Mode().RefreshMilliHz()) / 1000
	}
	if p.sc != nil {
		s := p.sc.Stats()
		rep.Flips = &report.Flips{ModeSet: s.ModeSet, Atomic: s.Atomic, OutFences: s.OutFences, OutFencesLate: s.OutFencesLate, Queued: s.Flips, Completed: s.Completed, MissedVblanks: s.Missed,
			FirstSequence: s.FirstSequence, LastSequence: s.LastSequence,
			MeanIntervalMs: report.Ms(s.MeanInterval()), MinIntervalMs: report.Ms(s.MinInterval),
			MaxIntervalMs: report.Ms(s.MaxInterval), VblankPeriodMs: report.Ms(s.VblankPeriod())}
		p.pacing.Fill(rep.Flips)
	}
	if p.r.HasCounters() {
		cs, err := p.r.Counters()
		if err != nil {
			rep.CountersNote = err.Error()
		}
		for _, c := range cs {
			per := 0.0
			if p.rendered > 0 {
				per = float64(c.Value) / float64(p.rendered)
			}
			rep.Counters = append(rep.Counters, report.Counter{Name: c.Name, Total: c.Value, PerFrame: per})
		}
	} else {
		rep.CountersNote = "not offered by this kernel (GET_PARAM SUPPORTS_PERFMON; Linux 4.17 and later have them)"
	}
	if cfg.json {
		return rep.JSON(w)
	}
	return rep.Text(w)
}

// restorers are what a signal puts back at once: the display first (the
// screen a person sees on a Pi), then the terminal.
type restorers []present.Restorer

// Restore restores each and returns the first error.
func (rs restorers) Restore() error {
	var first error
	for _, r := range rs {
		if err := r.Restore(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// viewTerminal returns the terminal the view would draw in, or nil when
// the run does not show one: the view is for the simulated display (the
// caller checks the GPU), shown with page flips (no -display, -vsync),
// when stdout is a terminal nothing else writes to (no -json, no -dump).
func (p *program) viewTerminal() *os.File {
	cfg := p.cfg
	if !cfg.view || cfg.display != "" || !cfg.vsync || cfg.json || cfg.dump || cfg.pipeline != "gl" || !p.stdoutIsTerminal() {
		return nil
	}
	return p.env.stdout.(*os.File)
}

// stdoutIsTerminal reports whether stdout is a terminal the view can
// draw in.
func (p *program) stdoutIsTerminal() bool {
	f, ok := p.env.stdout.(*os.File)
	return ok && termview.IsTerminal(f)
}

// closeView closes the terminal view, if there is one, and restores the
// terminal. It may be called again (View.Close is idempotent).
func (p *program) closeView() error {
	if p.view == nil {
		return nil
	}
	err := p.view.Close()
	if err != nil {
		err = fmt.Errorf("closing the terminal view: %w", err)
	}
	return err
}

// closeInto closes c and keeps its error in *err if there was none yet.
func closeInto(err *error, what string, c io.Closer) {
	if cerr := c.Close(); cerr != nil && *err == nil {
		*err = fmt.Errorf("%s: %w", what, cerr)
	}
}
