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
	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/math/scene"
	"github.com/vccube/vccube/present"
	"github.com/vccube/vccube/record"
	"github.com/vccube/vccube/render"
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

	gpu        *gpuDevice
	disp       *present.Display
	dispDriver string // the display card's driver (DRM_IOCTL_VERSION)
	copies     bool   // the display is another card: frames are copied into its dumb buffers
	r          *render.Renderer
	sc         *present.Swapchain
	rec        bench.Recorder
	pacing     bench.Pacing
	view       *termview.View // the terminal view, or nil
	gif        *record.GIF    // -record's animation, or nil

	keyCh    <-chan keys.Key
	spin     int // steps of 0.2° per frame
	angle    int // steps, 0 ≤ angle < fullTurn
	paused   bool
	lastBuf  int             // the colour buffer of the last frame rendered, or -1
	lastShow *present.Buffer // with -display, the display's buffer of the last frame presented
	rendered uint64          // frames rendered (submitted and finished)
	shot     *image.NRGBA    // the frame -capture writes
}

// run opens everything, runs the frame loop and cleans up on every path.
// Order matters: the texture and the capture path are checked before any
// device is touched; the display is put back (Restore) before the
// renderer frees the buffers it showed.
func (p *program) run(ctx context.Context) (err error) {
	cfg, e := p.cfg, p.env
	p.lastBuf, p.spin = -1, defaultSpin

	prof, err := startProfiles(cfg)
	if err != nil {
		return err
	}
	defer func() {
		if perr := prof.stop(); perr != nil && err == nil {
			err = perr
		}
	}()

	var pic texture.Picture
	if cfg.texture != "" {
		if pic, err = imagefile.Load(cfg.texture, render.ScanoutOrder); err != nil {
			return err
		}
	}
	var capf *captureFile
	if cfg.capture != "" {
		if capf, err = newCaptureFile(cfg.capture); err != nil {
			return err
		}
		defer capf.abort()
	}
	if cfg.record != "" {
		// record.Create makes the file now, so that an unwritable path
		// is reported before any device is touched; Discard removes it
		// unless finish completed it.
		if p.gif, err = record.Create(cfg.record, record.Options{FPS: cfg.recordFPS(), Scale: cfg.recordScale}); err != nil {
			return err // "record: cannot write the animation to …"
		}
		defer p.gif.Discard()
	}

	var trace *traceFile
	if cfg.trace != "" {
		// One recorder for the GPU's and the display's Conns.
		if trace, err = openTrace(cfg.trace, p.args); err != nil {
			return err
		}
		defer closeInto(&err, "writing the trace", trace)
	}

	term := p.viewTerminal()
	if p.gpu, err = openGPU(e, cfg.device, term != nil); err != nil {
		return err
	}
	p.gpu.conn = trace.conn(p.gpu.conn)
	defer closeInto(&err, "closing the GPU device", p.gpu.conn)
	if !p.gpu.sim {
		term = nil // a real vc4 shows the cube on its own display
	}

	width, height := cfg.renderOnlySize()
	if cfg.vsync {
		dc := p.gpu.conn
		if cfg.display != "" {
			if dc, err = openDisplay(e, cfg.display); err != nil {
				return err
			}
			dc = trace.conn(dc)
			defer closeInto(&err, "closing the display device", dc)
			p.copies = true
		}
		mode := cfg.mode
		if term != nil && cfg.modeText == "" {
			mode = viewMode
		}
		if p.disp, err = present.Open(dc, present.Config{Connector: cfg.connector, Mode: mode}); err != nil {
			return err
		}
		defer closeInto(&err, "restoring the display", p.disp)
		w, h := p.disp.Size()
		width, height = int(w), int(h)
		if v, err := drm.GetVersion(dc); err == nil {
			p.dispDriver = v.Name
		}
		// Missed vblanks are told apart by comparing the queue time
		// (CLOCK_MONOTONIC, bench.Monotonic) with the events' timestamps,
		// which the kernel takes on that clock when it says so. (The
		// simulated display says so too; its virtual clock, which only
		// tests use, never lets a vblank pass unflipped.)
		p.pacing.Period = p.disp.Mode().FramePeriod()
		ts, err := drm.GetCapability(dc, uapi.CapTimestampMonotonic)
		p.pacing.Classify = err == nil && ts == 1
	}

	if term != nil {
		// The terminal shows the simulated display; nothing else may
		// write to stdout until the view is closed, which happens right
		// after the loop (closeView) so the report lands on the normal
		// screen.
		caption := viewCaption
		if e.keys == nil && (e.stdin == nil || !keys.IsTerminal(int(e.stdin.Fd()))) {
			caption = viewCaptionNoKeys
		}
		if p.view, err = termview.Open(term, termview.Options{Caption: caption}); err != nil {
			return err
		}
		defer p.closeView()
	}

	// From here on SIGINT and SIGTERM put the display (and the terminal)
	// back at once and end the loop, which returns through the deferred
	// cleanup.
	restorer := restorers{}
	if p.disp != nil {
		restorer = append(restorer, p.disp)
	}
	if p.view != nil {
		restorer = append(restorer, p.view)
	}
	ctx, stop := present.RestoreOnSignal(ctx, restorer)
	defer stop()

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
	if p.r, err = render.New(p.gpu.conn, render.Options{Width: width, Height: height, Texture: pic,
		Flip: flip, Buffers: buffers, Counters: cfg.benchmark}); err != nil {
		return err
	}
	defer func() {
		if p.disp != nil {
			p.disp.Restore() // the framebuffers go before their BOs
		}
		closeInto(&err, "freeing the GPU buffers", p.r)
	}()

	if cfg.pipeline == "nv" {
		return p.r.SubmitNV(scene.AngleForFrame(0))
	}

	if p.disp != nil {
		if err := p.newSwapchain(); err != nil {
			return err
		}
	}
	p.keyCh = e.keys
	if p.keyCh == nil && e.stdin != nil && keys.IsTerminal(int(e.stdin.Fd())) {
		if kt, err := keys.Raw(int(e.stdin.Fd())); err == nil {
			defer kt.Restore()
			ch := make(chan keys.Key, 16)
			go keys.Read(e.stdin, ch)
			p.keyCh = ch
		}
	}

	loopErr := p.loop(ctx)
	if p.sc != nil && loopErr == nil {
		// Let the last flip land, so that it is on screen and counted.
		loopErr = p.sc.Wait()
	}
	// The view goes before anything is printed: the report and any error
	// belong on the terminal's normal screen.
	if cerr := p.closeView(); cerr != nil && loopErr == nil {
		loopErr = cerr
	}
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
	if cause := context.Cause(ctx); cause != nil && ctx.Err() != nil {
		// A signal ended the run: whatever the loop reported (such as
		// present.ErrRestored) follows from it. The frames so far are
		// still reported and captured, as after q.
		loopErr = cause
	} else if loopErr != nil {
		// A failed run writes no capture and no report: the error is
		// what the person needs to read.
		return loopErr
	}
	if werr := p.finish(capf); werr != nil && loopErr == nil {
		loopErr = werr
	}
	return loopErr
}

// newSwapchain registers the -buffers scanout buffers: the renderer's
// colour buffers themselves on the GPU's own display (New made that many),
// or dumb buffers of the other card that frames are copied into.
func (p *program) newSwapchain() error {
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
			p.rec.Line(e.stdout)
		}
		p.advance()
		if e.afterFrame != nil {
			e.afterFrame(k)
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
	seqno, err := p.r.Submit()
	if err != nil {
		return err
	}
	// Never show a frame before the GPU has finished it.
	if err := p.r.Wait(seqno); err != nil {
		return err
	}
	p.lastBuf = buf
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

// finish writes the capture and the report.
func (p *program) finish(capf *captureFile) error {
	cfg, e := p.cfg, p.env
	var err error
	if capf != nil {
		switch {
		case p.shot != nil:
		case cfg.captureFrame >= 0:
			err = fmt.Errorf("-capture-frame %d was not rendered: the run stopped after %d frames", cfg.captureFrame, p.rendered)
		case p.lastShow != nil && !p.disp.Restored():
			// The last frame is on the other card's screen (run waited
			// for its flip): read it back from there.
			p.shot, err = p.captureShown(p.lastShow)
		case p.lastBuf >= 0:
			p.shot, err = p.r.Capture(p.lastBuf)
		default:
			err = errors.New("-capture: no frame was rendered")
		}
		if err == nil {
			err = capf.write(p.shot)
		}
	}
	if p.gif != nil {
		var gerr error
		if p.gif.Frames() == 0 {
			gerr = errors.New("-record: no frame was rendered")
		} else {
			gerr = p.gif.Close() // "record: writing the animation …"
		}
		if err == nil {
			err = gerr
		}
	}
	if rerr := p.report(e.stdout); rerr != nil && err == nil {
		err = rerr
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
	if !cfg.json {
		if err := p.rec.Line(w); err != nil {
			return err
		}
		if !cfg.benchmark {
			if term != nil {
				return term.Line(w)
			}
			return nil
		}
	}
	width, height := p.r.Size()
	rep := report.Report{Device: p.gpu.name, GPU: p.gpu.info.String(), Width: width, Height: height, VSync: p.sc != nil}
	if p.gpu.sim {
		rep.GPU = "simulated " + rep.GPU
	}
	p.rec.Fill(&rep)
	rep.Terminal = term
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
		rep.Flips = &report.Flips{ModeSet: s.ModeSet, Queued: s.Flips, Completed: s.Completed, MissedVblanks: s.Missed,
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
	if !cfg.view || cfg.display != "" || !cfg.vsync || cfg.json || cfg.dump || cfg.pipeline != "gl" {
		return nil
	}
	f, ok := p.env.stdout.(*os.File)
	if !ok || !termview.IsTerminal(f) {
		return nil
	}
	return f
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
