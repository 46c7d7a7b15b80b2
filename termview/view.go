package termview

import (
	"errors"
	"fmt"
	"image"
	"io"
	"os"
	"os/signal"
	"sync"

	"golang.org/x/sys/unix"
)

// Options says how a View draws.
type Options struct {
	// Size fixes the terminal's size. The zero value makes Open ask the
	// terminal (TIOCGWINSZ) and follow its changes (SIGWINCH); New needs
	// a size.
	Size Size
	// Colour is the colour mode; ColourAuto asks the environment
	// (DetectColour).
	Colour ColourMode
	// Caption, if not empty, is shown on the window's last row, such as
	// the keys that work. It is cut to the window's width; characters
	// other than printable ASCII are shown as '?'.
	Caption string
}

// Stats counts what a View did with the frames it was given. Every frame
// given is drawn or dropped: once the view is closed, Frames is Drawn
// plus Dropped (before, the newest frame may still be waiting).
type Stats struct {
	// Frames is the number of frames given to Show.
	Frames uint64
	// Drawn is the number of them put on the terminal: written, or left
	// as it was when the picture did not change.
	Drawn uint64
	// Dropped is the number of them never put on the terminal: replaced
	// by a newer frame before the terminal had taken the last one,
	// still waiting when the view was closed, given after the terminal
	// was restored, or given while the window was too small for a
	// picture.
	Dropped uint64
	// Redraws is the number of times a frame already drawn was drawn
	// again in full (the window's size changed, or Redraw).
	Redraws uint64
	// Bytes is the number of bytes written to draw frames and redraws.
	Bytes uint64
	// LastBytes is the number of bytes of the last frame written.
	LastBytes int
}

// ErrClosed is returned by Show after Close.
var ErrClosed = errors.New("termview: the view is closed")

// MaxFrameSide is the largest frame width or height Show accepts.
const MaxFrameSide = 16384

// View shows frames in a terminal. Show is called from one goroutine (the
// render loop); Redraw, Resize, Stats, Flush, Restore and Close may be
// called from any.
type View struct {
	out     io.Writer
	file    *os.File // the terminal, for TIOCGWINSZ; nil for New
	caption string
	chans   chans

	// Shared by Show and the writer goroutine, under mu.
	mu      sync.Mutex
	idle    sync.Cond // signalled when the writer has nothing left to do
	free    []*frame
	pending *frame
	cur     *frame // the frame the writer draws, or drew last
	busy    bool
	redraw  bool
	closed  bool
	size    Size
	err     error
	stats   Stats

	// The writer goroutine's own state.
	lay    layout
	hasLay bool
	sc     *scaler
	grid   []uint32
	prev   []uint32
	enc    encoder

	// writeMu orders the writes to the terminal; restored is set once the
	// terminal has been put back, after which frames are not written.
	writeMu  sync.Mutex
	restored bool

	wake      chan struct{}
	stop      chan struct{}
	done      chan struct{}
	winch     chan os.Signal
	closeOnce sync.Once
	closeErr  error
}

// Open starts showing frames in the terminal f (usually os.Stdout): it
// switches to the alternate screen and hides the cursor, and Close puts
// both back. Unless opt.Size is set, the picture follows the window's size
// (SIGWINCH).
//
// The view does not catch SIGINT or SIGTERM: Go's default for them ends
// the program without running deferred calls, which would leave the
// terminal on the alternate screen without a cursor. A program that uses
// a View must catch both and return through its deferred Close (or call
// Restore from the handler: a View is a present.Restorer), as cmd/vccube
// does with present.RestoreOnSignal. Nothing can restore the terminal
// after SIGKILL; `reset` (or `tput rmcup; tput cnorm`) does it by hand.
func Open(f *os.File, opt Options) (*View, error) {
	size := opt.Size
	follow := size == (Size{})
	if follow {
		var err error
		if size, err = termSize(f); err != nil {
			return nil, fmt.Errorf("termview: %s is not a terminal (%v): the live view needs one; write the frames to a file instead", f.Name(), err)
		}
	}
	v, err := start(f, size, opt, func(v *View) {
		v.file = f
		if follow {
			v.winch = make(chan os.Signal, 1)
			signal.Notify(v.winch, unix.SIGWINCH)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("termview: starting the view on %s: %w", f.Name(), err)
	}
	return v, nil
}

// New starts showing frames on w, a terminal of size opt.Size (which must
// be set), the way Open does; it is for terminals that are not files and
// for tests.
func New(w io.Writer, opt Options) (*View, error) {
	if opt.Size == (Size{}) {
		return nil, errors.New("termview: New needs Options.Size (Open asks a terminal for its size)")
	}
	return start(w, opt.Size, opt, nil)
}

// start sends the enter sequence and starts the writer goroutine.
func start(w io.Writer, size Size, opt Options, setup func(*View)) (*View, error) {
	mode := opt.Colour
	if mode == ColourAuto {
		mode = DetectColour(os.Getenv)
	}
	v := &View{
		out:     w,
		caption: opt.Caption,
		chans:   xrgbChans,
		size:    size,
		enc:     encoder{mode: mode},
		free:    make([]*frame, 0, slots),
		wake:    make(chan struct{}, 1),
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
	}
	v.idle.L = &v.mu
	for i := 0; i < slots; i++ {
		v.free = append(v.free, new(frame))
	}
	if _, err := io.WriteString(w, enterSeq); err != nil {
		io.WriteString(w, leaveSeq) // in case part of it got through
		return nil, err
	}
	if setup != nil {
		setup(v)
	}
	go v.run()
	return v, nil
}

// ShowXRGB shows a frame of width×height XRGB8888 pixels (the bytes B, G,
// R, X; DRM_FORMAT_XRGB8888, the renderer's colour buffers and KMS scanout
// buffers), rows pitch bytes apart. It copies the pixels and returns at
// once: the caller may reuse px. The terminal is drawn by another
// goroutine as fast as it takes the bytes; a frame that arrives while the
// previous one is still waiting replaces it (counted in Stats.Dropped). It never
// waits for the terminal and allocates nothing once it has seen a frame
// of this size. It returns the error that stopped the drawing, if any.
func (v *View) ShowXRGB(px []byte, width, height, pitch int) error {
	if err := checkXRGB(px, width, height, pitch); err != nil {
		return err
	}
	f, err := v.take()
	if err != nil {
		return err
	}
	f.resize(width, height)
	row := 4 * width
	if pitch == row {
		copy(f.pix, px[:row*height])
	} else {
		for y := 0; y < height; y++ {
			copy(f.pix[y*row:(y+1)*row], px[y*pitch:y*pitch+row])
		}
	}
	v.publish(f)
	return nil
}

// ShowImage shows img as ShowXRGB does. Alpha is ignored: frames are
// opaque. *image.NRGBA and *image.RGBA (what cuberender.Capture and most
// decoders return) are read directly; other types go through their
// colour model, which is slower and may allocate.
func (v *View) ShowImage(img image.Image) error {
	b := img.Bounds()
	if b.Dx() < 1 || b.Dy() < 1 || b.Dx() > MaxFrameSide || b.Dy() > MaxFrameSide {
		return fmt.Errorf("termview: a %d×%d image cannot be shown (1 to %d pixels a side)", b.Dx(), b.Dy(), MaxFrameSide)
	}
	f, err := v.take()
	if err != nil {
		return err
	}
	f.resize(b.Dx(), b.Dy())
	imageToXRGB(f.pix, img)
	v.publish(f)
	return nil
}

// take returns a free frame slot for Show to fill.
func (v *View) take() (*frame, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed {
		return nil, ErrClosed
	}
	if v.err != nil {
		return nil, v.err
	}
	// Three slots: at most one is pending and one is the writer's, so one
	// is free here unless Show is called from two goroutines at once.
	if len(v.free) == 0 {
		return nil, errors.New("termview: Show was called from two goroutines at once; call it from the render loop only")
	}
	f := v.free[len(v.free)-1]
	v.free = v.free[:len(v.free)-1]
	return f, nil
}

// publish makes f the next frame to draw, dropping the one that waited.
func (v *View) publish(f *frame) {
	v.mu.Lock()
	v.stats.Frames++
	if v.pending != nil {
		v.free = append(v.free, v.pending)
		v.stats.Dropped++
	}
	v.pending = f
	v.mu.Unlock()
	v.poke()
}

// poke wakes the writer goroutine without waiting.
func (v *View) poke() {
	select {
	case v.wake <- struct{}{}:
	default:
	}
}

// Redraw makes the writer draw the next frame — or the last one again —
// in full: after something else wrote to the terminal, for example.
func (v *View) Redraw() {
	v.mu.Lock()
	v.redraw = true
	v.mu.Unlock()
	v.poke()
}

// Resize tells the view the terminal's new size, for a View made with New
// or a fixed Options.Size; a View that follows SIGWINCH does this itself.
// The last frame is drawn again at the new size.
func (v *View) Resize(s Size) {
	v.mu.Lock()
	v.size = s
	v.redraw = true
	v.mu.Unlock()
	v.poke()
}

// Stats returns the counts so far.
func (v *View) Stats() Stats {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.stats
}

// Flush waits until every frame given to Show has been drawn or dropped
// and returns the error that stopped the drawing, if any. The render loop
// does not need it; tests and a program's last frame do.
func (v *View) Flush() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	for !v.closed && v.err == nil && (v.pending != nil || v.busy || v.redraw && v.cur != nil) {
		v.idle.Wait()
	}
	return v.err
}

// Restore puts the terminal back (attributes reset, cursor shown, normal
// screen) at once, and no frame is drawn after it; later calls do nothing.
// It waits for a frame being written to finish, so that no escape
// sequence is cut in half (a terminal whose output is stopped, with
// Ctrl-S, holds it until it is started again). It is safe to call from a signal handler's
// goroutine, and makes a View a present.Restorer. Close calls it.
func (v *View) Restore() error {
	v.writeMu.Lock()
	defer v.writeMu.Unlock()
	if v.restored {
		return nil
	}
	v.restored = true
	if _, err := io.WriteString(v.out, leaveSeq); err != nil {
		return fmt.Errorf("termview: restoring the terminal: %w", err)
	}
	return nil
}

// Close stops drawing, waits for the writer goroutine and restores the
// terminal. Defer it right after Open. Later calls return the first
// call's result.
func (v *View) Close() error {
	v.closeOnce.Do(func() {
		v.mu.Lock()
		v.closed = true
		v.mu.Unlock()
		close(v.stop)
		<-v.done
		v.mu.Lock()
		if v.pending != nil { // given, never drawn
			v.free = append(v.free, v.pending)
			v.pending = nil
			v.stats.Dropped++
		}
		v.mu.Unlock()
		if v.winch != nil {
			signal.Stop(v.winch)
		}
		v.closeErr = v.Restore()
		v.mu.Lock()
		v.idle.Broadcast()
		v.mu.Unlock()
	})
	return v.closeErr
}

// run is the writer goroutine.
func (v *View) run() {
	defer close(v.done)
	for {
		select {
		case <-v.stop:
			return
		case <-v.wake:
		case <-v.winch: // nil without SIGWINCH: never ready
			if s, err := termSize(v.file); err == nil {
				v.mu.Lock()
				v.size = s
				v.redraw = true
				v.mu.Unlock()
			}
		}
		v.drain()
	}
}

// drain draws until there is nothing new to draw.
func (v *View) drain() {
	for {
		select {
		case <-v.stop:
			return
		default:
		}
		v.mu.Lock()
		fresh := false // a frame given to Show, rather than a redraw
		if v.err == nil && v.pending != nil {
			if v.cur != nil {
				v.free = append(v.free, v.cur)
			}
			v.cur, v.pending, fresh = v.pending, nil, true
		} else if v.err != nil || !v.redraw || v.cur == nil {
			v.busy = false
			v.idle.Broadcast()
			v.mu.Unlock()
			return
		}
		full := v.redraw
		v.redraw = false
		size := v.size
		v.busy = true
		v.mu.Unlock()

		n, shown, err := v.draw(size, full)

		v.mu.Lock()
		switch {
		case err != nil:
			v.err = err
			if fresh {
				v.stats.Dropped++
			}
		case fresh && shown:
			v.stats.Drawn++
		case fresh:
			v.stats.Dropped++
		case shown:
			v.stats.Redraws++
		}
		if n > 0 {
			v.stats.Bytes += uint64(n)
			v.stats.LastBytes = n
		}
		v.mu.Unlock()
	}
}

// draw writes v.cur to the terminal, in full or as the cells that changed
// since the last frame drawn, and returns the number of bytes written and
// whether the frame is now on the terminal (not when the window has no
// room for a picture, nor after Restore).
func (v *View) draw(size Size, full bool) (int, bool, error) {
	f := v.cur
	if !v.hasLay || v.lay.size != size || v.lay.srcW != f.w || v.lay.srcH != f.h {
		lay, err := newLayout(size, f.w, f.h, v.caption != "")
		if err != nil {
			v.hasLay = false
			return 0, false, nil // no room: draw again when the window grows
		}
		if !v.hasLay || lay.imgW != v.lay.imgW || lay.imgH != v.lay.imgH || f.w != v.lay.srcW || f.h != v.lay.srcH {
			v.sc = newScaler(f.w, f.h, lay.imgW, lay.imgH)
			n := lay.imgW * 2 * lay.cellRows
			v.grid, v.prev = make([]uint32, n), make([]uint32, n)
			// The padding row under an odd picture stays blank.
			for i := lay.imgW * lay.imgH; i < n; i++ {
				v.grid[i], v.prev[i] = blank, blank
			}
		}
		v.lay, v.hasLay = lay, true
		full = true
	}
	img := v.grid[:v.lay.imgW*v.lay.imgH]
	v.sc.scale(img, f.pix, 4*f.w, v.chans)
	if v.enc.mode == Colour256 {
		// Neighbouring pixels are often the same colour (the
		// background): remember the last one mapped.
		last, lastIdx := blank, uint32(0)
		for i, c := range img {
			if c != last {
				last, lastIdx = c, xterm256(c)
			}
			img[i] = lastIdx
		}
	}
	out := v.enc.frame(&v.lay, v.grid, v.prev, full, v.caption)

	v.writeMu.Lock()
	defer v.writeMu.Unlock()
	if v.restored {
		return 0, false, nil
	}
	if _, err := v.out.Write(out); err != nil {
		return 0, false, fmt.Errorf("termview: writing a frame to the terminal: %w", err)
	}
	v.grid, v.prev = v.prev, v.grid
	return len(out), true, nil
}
