package simserve

import (
	"errors"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"sync"

	"github.com/vccube/vccube/sim/display"
)

// Capture writes what the display shows after chosen page flips as PNG
// files: the simulated monitor's own picture (display.ReadScanout), the
// same for every renderer that puts its frames on this display.
//
// Frame K is the picture the K-th page flip (counting from 0) put on
// screen since the latest mode set that lit the CRTC (SETCRTC); the mode
// set's own picture is not a frame. kmscube (legacy mode) shows a cleared
// buffer with SETCRTC and then flips to draw(0), draw(1), ..., so frame K
// is kmscube's frame K whatever renders it.
//
// With ModesetIsFrame, the mode set's picture is frame 0 and the K-th
// flip after it frame K+1: an atomic program's first commit sets the
// mode and shows its first drawn frame at once (kmscube -A commits
// draw(0) with ALLOW_MODESET, then draw(1), ...), so frame K is again
// kmscube's frame K.
type Capture struct {
	// Frames maps the frames to capture to their files.
	Frames map[int]string
	// ModesetIsFrame makes a mode set's picture frame 0.
	ModesetIsFrame bool

	mu      sync.Mutex
	disp    *display.Display
	numbers frameNumbers
	written map[int]bool
	errs    []error
	frame   display.Frame
}

// NewCapture makes a capture of frames; call Attach before the display
// shows anything, and pass OnFlip as the display's Options.OnFlip.
func NewCapture(frames map[int]string) *Capture {
	return &Capture{Frames: frames, written: map[int]bool{}}
}

// Attach names the display whose pictures are captured.
func (c *Capture) Attach(d *display.Display) {
	c.mu.Lock()
	c.disp = d
	c.mu.Unlock()
}

// OnFlip is the display's hook (display.Options.OnFlip).
func (c *Capture) OnFlip(f display.Flip) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.numbers.modesetIsFrame = c.ModesetIsFrame
	k, shown := c.numbers.flip(f)
	if !shown {
		return
	}
	path, ok := c.Frames[k]
	if !ok || c.disp == nil {
		return
	}
	if err := c.write(path); err != nil {
		c.errs = append(c.errs, fmt.Errorf("frame %d: %w", k, err))
		return
	}
	c.written[k] = true
}

func (c *Capture) write(path string) error {
	if err := c.disp.ReadScanout(&c.frame); err != nil {
		return err
	}
	img, err := c.frame.Image()
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".vc4serve-capture-*.png")
	if err != nil {
		return err
	}
	if err := tmp.Chmod(0o644); err == nil {
		err = png.Encode(tmp, img)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// Err reports the captures that failed and the frames never shown.
func (c *Capture) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	errs := append([]error(nil), c.errs...)
	for k, path := range c.Frames {
		if !c.written[k] {
			errs = append(errs, fmt.Errorf("frame %d (for %s) was never shown", k, path))
		}
	}
	return errors.Join(errs...)
}
