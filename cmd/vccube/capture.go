package main

import (
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"

	"github.com/vccube/vccube/cuberender"
	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/present"
	"github.com/vccube/vccube/texture"
	"golang.org/x/sys/unix"
)

// captureFile is where -capture writes its PNG. It is opened before any
// frame is rendered — a temporary file next to the target — so that an
// unwritable path is reported before the program has touched the GPU or
// the display, and renamed over the target only once the PNG is complete,
// so a failed run leaves no half-written or empty file behind.
type captureFile struct {
	path string
	tmp  *os.File
}

// newCaptureFile checks that path can be written and prepares the
// temporary file.
func newCaptureFile(path string) (*captureFile, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("cannot write the capture to %s: it is a directory; give -capture a file name ending in .png", path)
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".vccube-capture-*.png")
	if err != nil {
		return nil, fmt.Errorf("cannot write the capture to %s: %v; choose a directory you can write to with -capture", path, unwrapPath(err))
	}
	// CreateTemp makes the file private (0600); a picture is for anyone
	// to look at, as a file os.Create made would be.
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("cannot write the capture to %s: %v", path, err)
	}
	return &captureFile{path: path, tmp: tmp}, nil
}

// unwrapPath keeps the errno of a *PathError, whose path names the
// temporary file rather than the one the person asked for.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// write encodes img as PNG (8-bit RGB for an opaque image; image/png picks
// truecolour without alpha when every pixel is opaque) and moves it to the
// target path.
func (c *captureFile) write(img image.Image) error {
	if err := png.Encode(c.tmp, img); err != nil {
		c.abort()
		return fmt.Errorf("writing the capture %s: %w", c.path, err)
	}
	if err := c.tmp.Close(); err != nil {
		c.abort()
		return fmt.Errorf("writing the capture %s: %w", c.path, err)
	}
	if err := os.Rename(c.tmp.Name(), c.path); err != nil {
		c.abort()
		return fmt.Errorf("writing the capture %s: %w", c.path, err)
	}
	c.tmp = nil
	return nil
}

// abort removes the temporary file if the capture was not written.
func (c *captureFile) abort() {
	if c == nil || c.tmp == nil {
		return
	}
	c.tmp.Close()
	os.Remove(c.tmp.Name())
	c.tmp = nil
}

// captureShown reads back the frame the other card (-display) shows from
// buffer b: it waits for b's flip to complete, asks the kernel which
// framebuffer the CRTC scans out (GETCRTC) and, when it is b's, reads b's
// pixels through a mapping of its own (MODE_MAP_DUMB, mmap), as any client
// of the card could. So the capture is what the display card holds on
// screen, not the GPU's colour buffer it was copied from.
func (p *program) captureShown(b *present.Buffer) (*image.NRGBA, error) {
	if err := p.sc.Wait(); err != nil {
		return nil, err
	}
	conn := p.disp.Conn()
	crtc, err := drm.GetCrtc(conn, p.disp.CrtcID())
	if err != nil {
		return nil, fmt.Errorf("-capture: asking %s what it shows: %w", p.cfg.display, err)
	}
	if crtc.FbID != b.FbID {
		return nil, fmt.Errorf("-capture: CRTC %d of %s scans out framebuffer %d, not the frame's (%d)",
			p.disp.CrtcID(), p.cfg.display, crtc.FbID, b.FbID)
	}
	off, err := drm.MapDumb(conn, b.Handle)
	if err != nil {
		return nil, fmt.Errorf("-capture: %w", err)
	}
	mem, err := conn.Mmap(off, int(b.Pitch)*int(b.Height), unix.PROT_READ)
	if err != nil {
		return nil, fmt.Errorf("-capture: mapping the scanout buffer of %s: %w", p.cfg.display, err)
	}
	defer conn.Munmap(mem)
	l, err := texture.NewLinearLayout(4, int(b.Width), int(b.Height), int(b.Pitch))
	if err != nil {
		return nil, fmt.Errorf("-capture: %w", err)
	}
	return cuberender.Decode(mem, l)
}
