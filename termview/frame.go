package termview

import (
	"fmt"
	"image"
	"image/color"

	"github.com/vccube/vccube/texture"
)

// frame is a copy of one frame, XRGB8888, tightly packed.
type frame struct {
	pix  []byte
	w, h int
}

// resize makes f hold a w×h frame, reusing its memory when it can.
func (f *frame) resize(w, h int) {
	n := 4 * w * h
	if cap(f.pix) < n {
		f.pix = make([]byte, n)
	}
	f.pix = f.pix[:n]
	f.w, f.h = w, h
}

// slots is the number of frames a View holds: one being copied by Show,
// one waiting for the writer and one the writer draws (and keeps, to draw
// again after a resize).
const slots = 3

// xrgbChans is where R, G and B are in an XRGB8888 pixel, read from
// package texture's description of that byte order (texture.OrderBGRA:
// DRM_FORMAT_XRGB8888 is the bytes B, G, R, X in memory).
var xrgbChans = func() chans {
	var p [4]byte
	texture.OrderBGRA.Put(p[:], 'r', 'g', 'b', 'x')
	var c chans
	for i, v := range p {
		switch v {
		case 'r':
			c.r = i
		case 'g':
			c.g = i
		case 'b':
			c.b = i
		}
	}
	return c
}()

// imageToXRGB writes img's pixels into dst as tightly packed XRGB8888.
func imageToXRGB(dst []byte, img image.Image) {
	b := img.Bounds()
	w := b.Dx()
	put := func(i int, r, g, bl uint8) { texture.OrderBGRA.Put(dst[4*i:4*i+4], r, g, bl, 0xff) }
	switch m := img.(type) {
	case *image.NRGBA:
		for y := 0; y < b.Dy(); y++ {
			s := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):]
			for x := 0; x < w; x++ {
				put(y*w+x, s[4*x], s[4*x+1], s[4*x+2])
			}
		}
	case *image.RGBA:
		for y := 0; y < b.Dy(); y++ {
			s := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):]
			for x := 0; x < w; x++ {
				put(y*w+x, s[4*x], s[4*x+1], s[4*x+2])
			}
		}
	default:
		for y := 0; y < b.Dy(); y++ {
			for x := 0; x < w; x++ {
				c := color.NRGBAModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA)
				put(y*w+x, c.R, c.G, c.B)
			}
		}
	}
}

// checkXRGB checks that px holds the frame its size and pitch describe.
func checkXRGB(px []byte, width, height, pitch int) error {
	switch {
	case width < 1 || height < 1 || width > MaxFrameSide || height > MaxFrameSide:
		return fmt.Errorf("termview: a %d×%d frame cannot be shown (1 to %d pixels a side)", width, height, MaxFrameSide)
	case pitch < 4*width:
		return fmt.Errorf("termview: a pitch of %d bytes is shorter than a row of %d XRGB8888 pixels (%d bytes)", pitch, width, 4*width)
	case len(px) < (height-1)*pitch+4*width:
		return fmt.Errorf("termview: the frame has %d bytes; %d rows of pitch %d need %d", len(px), height, pitch, (height-1)*pitch+4*width)
	}
	return nil
}
