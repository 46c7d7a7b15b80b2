package record

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/vccube/vccube/texture"
)

// Options says how an animation is written.
type Options struct {
	// FPS is the rate the animation plays at, in frames per second; 0
	// means DefaultFPS. GIF delays are whole hundredths of a second and
	// browsers slow down anything under 2: see the package documentation
	// for the rounding.
	FPS float64
	// Scale divides the frames' width and height by this whole number,
	// each output pixel the mean of a Scale×Scale block, to keep files
	// small; 0 or 1 keeps the full size. At most MaxScale.
	Scale int
}

// DefaultFPS is the frame rate of an animation whose Options.FPS is 0:
// vkcube draws one frame per refresh of a 60 Hz display.
const DefaultFPS = 60

// MaxScale is the largest Options.Scale.
const MaxScale = 64

// MaxPixels is the largest frame, in pixels after scaling, a GIF is
// written for (4096×4096); the palette's per-bin sums are 32-bit. A GIF
// frame is also at most 65535 pixels a side (GIF89a §20).
const MaxPixels = 1 << 24

// GIF writes an animation as a GIF89a file, frame by frame. Each frame is
// quantised to its own palette (median cut, without dithering), cropped
// to the rectangle that changed since the previous frame and
// LZW-compressed as it arrives, so memory stays bounded whatever the
// number of frames: a few copies of one frame plus fixed tables (see
// package documentation).
type GIF struct {
	delays delays
	scale  int
	path   string   // the file Close renames the temporary file to; "" for NewGIF
	tmp    *os.File // the temporary file, until Close or Discard
	s      *gifStream
	q      *quantizer

	width, height int // the frames' size, fixed by the first
	outW, outH    int // the animation's size
	sh            *shrink
	src           source
	row           []uint32 // one source row, for shrink
	cur, prev     []uint32 // this frame and the previous one, 0xRRGGBB
	pix           []byte   // palette indices of the changed rectangle
	frames        int
	err           error
	done          bool
}

// source is the frame being added, read row by row.
type source struct {
	px    []byte // XRGB8888, or nil for img
	pitch int
	img   image.Image
}

// Create prepares an animation to be written to path: it checks the
// options and creates the file now — as a temporary file in the same
// directory, renamed to path by Close — so that an unwritable path is
// reported before any frame is rendered, and a run that fails leaves no
// partial file. Call Discard (deferred) to remove it on error paths.
func Create(path string, opt Options) (*GIF, error) {
	g, err := newGIF(opt)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("record: cannot write the animation to %s: it is a directory; give a file name ending in .gif", path)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".vccube-record-*.gif")
	if err != nil {
		if pe, ok := err.(*os.PathError); ok {
			err = pe.Err // its path is the temporary file's, not the one asked for
		}
		return nil, fmt.Errorf("record: cannot write the animation to %s: %v; choose a directory you can write to", path, err)
	}
	// os.CreateTemp makes the file private (0600); an animation is for
	// anyone to look at, like a file os.Create would have made (0644
	// under the usual umask).
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("record: cannot write the animation to %s: %v", path, err)
	}
	g.path, g.tmp = path, tmp
	g.s = newGIFStream(tmp)
	return g, nil
}

// NewGIF writes an animation to w. Close writes the end of the GIF; it
// does not close w.
func NewGIF(w io.Writer, opt Options) (*GIF, error) {
	g, err := newGIF(opt)
	if err != nil {
		return nil, err
	}
	g.s = newGIFStream(w)
	return g, nil
}

func newGIF(opt Options) (*GIF, error) {
	fps := opt.FPS
	if fps == 0 {
		fps = DefaultFPS
	}
	d, err := newDelays(fps)
	if err != nil {
		return nil, err
	}
	scale := opt.Scale
	if scale == 0 {
		scale = 1
	}
	if scale < 1 || scale > MaxScale {
		return nil, fmt.Errorf("record: a scale of %d: give a whole number from 1 to %d", opt.Scale, MaxScale)
	}
	return &GIF{delays: d, scale: scale, q: newQuantizer()}, nil
}

// xrgbChans is where R, G and B are in an XRGB8888 pixel, read from
// package texture's description of that byte order (texture.OrderBGRA:
// DRM_FORMAT_XRGB8888 is the bytes B, G, R, X in memory).
var xrgbChans = func() (c [3]int) {
	var p [4]byte
	texture.OrderBGRA.Put(p[:], 0, 1, 2, 3)
	for i, v := range p {
		if v < 3 {
			c[v] = i
		}
	}
	return c
}()

// AddXRGB adds a frame of width×height XRGB8888 pixels (the bytes B, G,
// R, X; the renderer's colour buffers and KMS scanout buffers), rows pitch
// bytes apart. Every frame must have the first frame's size. It encodes
// and writes the frame before it returns; px can be reused at once.
func (g *GIF) AddXRGB(px []byte, width, height, pitch int) error {
	switch {
	case width < 1 || height < 1:
		return fmt.Errorf("record: a %d×%d frame has no pixels", width, height)
	case pitch < 4*width:
		return fmt.Errorf("record: a pitch of %d bytes is shorter than a row of %d XRGB8888 pixels (%d bytes)", pitch, width, 4*width)
	case len(px) < (height-1)*pitch+4*width:
		return fmt.Errorf("record: the frame has %d bytes; %d rows of pitch %d need %d", len(px), height, pitch, (height-1)*pitch+4*width)
	}
	g.src = source{px: px, pitch: pitch}
	return g.add(width, height)
}

// AddImage adds img as a frame, as AddXRGB does. Alpha is ignored: frames
// are opaque. *image.NRGBA and *image.RGBA are read directly; other types
// go through their colour model, which is slower and allocates.
func (g *GIF) AddImage(img image.Image) error {
	b := img.Bounds()
	g.src = source{img: img}
	return g.add(b.Dx(), b.Dy())
}

// readRow reads source row y as 0xRRGGBB words.
func (s *source) readRow(dst []uint32, y int) {
	if s.px != nil {
		line := s.px[y*s.pitch : y*s.pitch+4*len(dst)]
		r, gr, b := xrgbChans[0], xrgbChans[1], xrgbChans[2]
		for x := range dst {
			p := line[4*x : 4*x+4]
			dst[x] = uint32(p[r])<<16 | uint32(p[gr])<<8 | uint32(p[b])
		}
		return
	}
	bounds := s.img.Bounds()
	var pix []byte
	switch m := s.img.(type) {
	case *image.NRGBA:
		pix = m.Pix[m.PixOffset(bounds.Min.X, bounds.Min.Y+y):]
	case *image.RGBA:
		pix = m.Pix[m.PixOffset(bounds.Min.X, bounds.Min.Y+y):]
	}
	if pix != nil {
		for x := range dst {
			p := pix[4*x : 4*x+3]
			dst[x] = uint32(p[0])<<16 | uint32(p[1])<<8 | uint32(p[2])
		}
		return
	}
	for x := range dst {
		c := color.NRGBAModel.Convert(s.img.At(bounds.Min.X+x, bounds.Min.Y+y)).(color.NRGBA)
		dst[x] = uint32(c.R)<<16 | uint32(c.G)<<8 | uint32(c.B)
	}
}

// add encodes the frame in g.src.
func (g *GIF) add(width, height int) error {
	if g.err != nil {
		return g.err
	}
	if g.done {
		return errors.New("record: the animation is closed")
	}
	if width < 1 || height < 1 {
		return fmt.Errorf("record: a %d×%d frame has no pixels", width, height)
	}
	if g.frames == 0 {
		if err := g.start(width, height); err != nil {
			return err
		}
	} else if width != g.width || height != g.height {
		return fmt.Errorf("record: frame %d is %d×%d; the animation's frames are %d×%d", g.frames, width, height, g.width, g.height)
	}

	if g.sh != nil {
		g.sh.scale(g.cur, g.row, &g.src)
	} else {
		for y := 0; y < g.outH; y++ {
			g.src.readRow(g.cur[y*g.outW:(y+1)*g.outW], y)
		}
	}
	g.src = source{}

	delay := g.delays.next()
	x0, y0, x1, y1 := 0, 0, g.outW, g.outH
	if g.frames > 0 {
		x0, y0, x1, y1 = changed(g.cur, g.prev, g.outW, g.outH)
	}
	if x0 == x1 {
		// Nothing changed: a transparent pixel holds the delay.
		g.pix = append(g.pix[:0], 0)
		g.s.frame(0, 0, 1, 1, transparentPalette[:], 0, delay, g.pix)
	} else {
		w := x1 - x0
		for y := y0; y < y1; y++ {
			g.q.add(g.cur[y*g.outW+x0 : y*g.outW+x1])
		}
		g.q.build(w * (y1 - y0))
		g.pix = g.pix[:0]
		for y := y0; y < y1; y++ {
			for _, c := range g.cur[y*g.outW+x0 : y*g.outW+x1] {
				g.pix = append(g.pix, g.q.index[binOf(c)])
			}
		}
		g.s.frame(x0, y0, w, y1-y0, g.q.palette, -1, delay, g.pix)
		g.q.reset()
	}
	if err := g.s.flush(); err != nil {
		g.err = fmt.Errorf("record: writing frame %d: %w", g.frames, err)
		return g.err
	}
	g.cur, g.prev = g.prev, g.cur
	g.frames++
	return nil
}

// transparentPalette is the two-entry table of a frame that shows
// nothing new: entry 0, its only pixel, is transparent.
var transparentPalette = [6]byte{}

// start fixes the animation's size at the first frame and writes the
// header.
func (g *GIF) start(width, height int) error {
	outW, outH := (width+g.scale-1)/g.scale, (height+g.scale-1)/g.scale
	if outW > 65535 || outH > 65535 || outW*outH > MaxPixels {
		return fmt.Errorf("record: a %d×%d animation is too large for a GIF (at most %d pixels, 65535 a side); use a larger Scale", outW, outH, MaxPixels)
	}
	g.width, g.height, g.outW, g.outH = width, height, outW, outH
	if g.scale > 1 {
		g.sh = newShrink(g.scale, width, height)
		g.row = make([]uint32, width)
	}
	g.cur = make([]uint32, outW*outH)
	g.prev = make([]uint32, outW*outH)
	g.pix = make([]byte, 0, outW*outH)
	g.s.header(outW, outH, 0)
	return nil
}

// changed returns the smallest rectangle [x0, x1) × [y0, y1) holding
// every pixel that differs between a and b (w×h each); x0 == x1 when none
// does.
func changed(a, b []uint32, w, h int) (x0, y0, x1, y1 int) {
	y0, y1 = -1, -1
	x0, x1 = w, 0
	for y := 0; y < h; y++ {
		ra, rb := a[y*w:(y+1)*w], b[y*w:(y+1)*w]
		if slices.Equal(ra, rb) {
			continue
		}
		if y0 < 0 {
			y0 = y
		}
		y1 = y + 1
		l := 0
		for ra[l] == rb[l] {
			l++
		}
		r := w
		for ra[r-1] == rb[r-1] {
			r--
		}
		x0, x1 = min(x0, l), max(x1, r)
	}
	if y0 < 0 {
		return 0, 0, 0, 0
	}
	return x0, y0, x1, y1
}

// Frames returns the number of frames added.
func (g *GIF) Frames() int { return g.frames }

// Size returns the animation's size (the frames' size divided by Scale),
// or 0, 0 before the first frame.
func (g *GIF) Size() (width, height int) { return g.outW, g.outH }

// Close ends the animation (the GIF trailer) and, for Create, closes the
// file and moves it to its path. An animation without frames is an error
// and writes nothing. Later calls return nil.
func (g *GIF) Close() error {
	if g.done {
		return nil
	}
	g.done = true
	err := g.err
	if err == nil && g.frames == 0 {
		err = errors.New("record: no frames were added; the animation was not written")
	}
	if err == nil {
		if err = g.s.end(); err != nil {
			err = fmt.Errorf("record: writing the animation: %w", err)
		}
	}
	if g.tmp == nil {
		return err
	}
	if err != nil {
		g.remove()
		return err
	}
	if err := g.tmp.Close(); err != nil {
		g.remove()
		return fmt.Errorf("record: writing the animation %s: %w", g.path, err)
	}
	if err := os.Rename(g.tmp.Name(), g.path); err != nil {
		g.remove()
		return fmt.Errorf("record: writing the animation %s: %w", g.path, err)
	}
	g.tmp = nil
	return nil
}

// Discard abandons the animation: the temporary file of Create is
// removed and nothing is written to its path. After a successful Close
// it does nothing, so it can be deferred right after Create.
func (g *GIF) Discard() {
	g.done = true
	g.remove()
}

func (g *GIF) remove() {
	if g.tmp != nil {
		g.tmp.Close()
		os.Remove(g.tmp.Name())
		g.tmp = nil
	}
}
