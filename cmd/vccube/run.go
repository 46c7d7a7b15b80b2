package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"image"
	"io"
	"time"

	"github.com/vccube/vccube/cmd/vccube/internal/bench"
	"github.com/vccube/vccube/cmd/vccube/internal/keys"
	"github.com/vccube/vccube/math/scene"
	"github.com/vccube/vccube/present"
	"github.com/vccube/vccube/render"
	"github.com/vccube/vccube/texture"
	"github.com/vccube/vccube/texture/imagefile"
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
	cfg, err := parseArgs(args, e.stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "vccube: %v\n", err)
		return exitUsage
	}
	p := &program{cfg: cfg, env: e}
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
	cfg *config
	env *env

	gpu    *gpuDevice
	disp   *present.Display
	copies bool // the display is another card: frames are copied into its dumb buffers
	r      *render.Renderer
	sc     *present.Swapchain
	rec    bench.Recorder

	keyCh    <-chan keys.Key
	spin     int // steps of 0.2° per frame
	angle    int // steps, 0 ≤ angle < fullTurn
	paused   bool
	lastBuf  int          // the colour buffer of the last frame rendered, or -1
	rendered uint64       // frames rendered (submitted and finished)
	shot     *image.NRGBA // the frame -capture writes
}

// run opens everything, runs the frame loop and cleans up on every path.
// Order matters: the texture and the capture path are checked before any
// device is touched; the display is put back (Restore) before the
// renderer frees the buffers it showed.
func (p *program) run(ctx context.Context) (err error) {
	cfg, e := p.cfg, p.env
	p.lastBuf, p.spin = -1, defaultSpin

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

	if p.gpu, err = openGPU(e, cfg.device); err != nil {
		return err
	}
	defer closeInto(&err, "closing the GPU device", p.gpu.conn)

	width, height := cfg.renderOnlySize()
	if cfg.vsync {
		dc := p.gpu.conn
		if cfg.display != "" {
			if dc, err = openDisplay(e, cfg.display); err != nil {
				return err
			}
			defer closeInto(&err, "closing the display device", dc)
			p.copies = true
		}
		if p.disp, err = present.Open(dc, present.Config{Connector: cfg.connector, Mode: cfg.mode}); err != nil {
			return err
		}
		defer closeInto(&err, "restoring the display", p.disp)
		w, h := p.disp.Size()
		width, height = int(w), int(h)
	}

	// From here on SIGINT and SIGTERM put the display back at once and
	// end the loop, which returns through the deferred cleanup.
	var restorer present.Restorer = nothingToRestore{}
	if p.disp != nil {
		restorer = p.disp
	}
	ctx, stop := present.RestoreOnSignal(ctx, restorer)
	defer stop()

	flip := texture.FlipByGPU
	if !cfg.flipY {
		flip = texture.FlipByCPU
	}
	buffers := render.DefaultBuffers
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
		if term, err := keys.Raw(int(e.stdin.Fd())); err == nil {
			defer term.Restore()
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

// newSwapchain registers the scanout buffers: the renderer's colour
// buffers themselves on the GPU's own display, or dumb buffers of the
// other card that frames are copied into.
func (p *program) newSwapchain() error {
	var bufs []*present.Buffer
	for i := 0; i < 2; i++ {
		var b *present.Buffer
		var err error
		if p.copies {
			b, err = p.disp.NewDumbBuffer()
		} else if i < p.r.Buffers() {
			rb := p.r.Buffer(i)
			b, err = p.disp.AddGEMBuffer(rb.Handle, uint32(rb.Pitch), rb.Modifier)
		} else {
			break
		}
		if err != nil {
			return err
		}
		bufs = append(bufs, b)
	}
	var err error
	p.sc, err = p.disp.NewSwapchain(bufs...)
	return err
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
		if p.rec.FrameEnd(k) && cfg.benchmark && !cfg.json {
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

// frame renders frame k, waits for it, keeps it if -capture wants it, and
// shows it.
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
	if p.cfg.captureFrame >= 0 && int64(k) == p.cfg.captureFrame {
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
	return p.sc.Present(b)
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
		case p.lastBuf >= 0:
			p.shot, err = p.r.Capture(p.lastBuf)
		default:
			err = errors.New("-capture: no frame was rendered")
		}
		if err == nil {
			err = capf.write(p.shot)
		}
	}
	if rerr := p.report(e.stdout); rerr != nil && err == nil {
		err = rerr
	}
	return err
}

// report prints kmscube's line, and with -benchmark or -json the rest.
func (p *program) report(w io.Writer) error {
	cfg := p.cfg
	if !cfg.json {
		if err := p.rec.Line(w); err != nil {
			return err
		}
		if !cfg.benchmark {
			return nil
		}
	}
	width, height := p.r.Size()
	rep := bench.Report{Device: p.gpu.name, GPU: p.gpu.info.String(), Width: width, Height: height, VSync: p.sc != nil}
	if p.gpu.sim {
		rep.GPU = "simulated " + rep.GPU
	}
	rep.Fill(&p.rec)
	if p.disp != nil {
		rep.Display = p.disp.String()
		rep.RefreshHz = float64(p.disp.Mode().RefreshMilliHz()) / 1000
	}
	if p.sc != nil {
		s := p.sc.Stats()
		rep.Flips = &bench.Flips{Queued: s.Flips, Completed: s.Completed, MissedVblanks: s.Missed,
			MeanIntervalMs: bench.Ms(s.MeanInterval()), MinIntervalMs: bench.Ms(s.MinInterval),
			MaxIntervalMs: bench.Ms(s.MaxInterval), VblankPeriodMs: bench.Ms(s.VblankPeriod())}
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
			rep.Counters = append(rep.Counters, bench.Counter{Name: c.Name, Total: c.Value, PerFrame: per})
		}
	} else {
		rep.CountersNote = "not offered by this kernel (GET_PARAM SUPPORTS_PERFMON; Linux 4.17 and later have them)"
	}
	if cfg.json {
		return rep.JSON(w)
	}
	return rep.Text(w)
}

// nothingToRestore is the Restorer of a run without a display.
type nothingToRestore struct{}

func (nothingToRestore) Restore() error { return nil }

// closeInto closes c and keeps its error in *err if there was none yet.
func closeInto(err *error, what string, c io.Closer) {
	if cerr := c.Close(); cerr != nil && *err == nil {
		*err = fmt.Errorf("%s: %w", what, cerr)
	}
}
