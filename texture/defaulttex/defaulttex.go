// Package defaulttex draws vccube's built-in texture: a 256×256 picture,
// made entirely by the code below, that shows at a glance whether a texture
// reached the screen mirrored, flipped, rotated or with its colour channels
// swapped.
//
// Seen upright (top-down rows, as a PNG viewer shows it):
//
//	+-----------+-----------+
//	|[Y]        |           |   top-left quadrant red (255,0,0),
//	|   #####   |####       |   top-right green (0,255,0),
//	|   #       |           |   bottom-left blue (0,0,255),
//	|   ####    |#          |   bottom-right white;
//	+---#-------+-----------+   a black "F" across the middle;
//	|   #       |           |   [Y] a yellow square marks the top-left corner;
//	|   #       |           |   [c] a 1-pixel black/white checkerboard marks
//	|[c]        |           |       the bottom-left corner;
//	+-----------+-----------+   every 32nd row and column at half intensity.
//
// Why each element is there:
//   - the channel-pure quadrants make any swap of R, G and B change a
//     quadrant's colour (a B,G,R,A versus R,G,B,A mix-up turns the top-left
//     quadrant blue);
//   - the "F" has no mirror or rotation symmetry, so a flipped or rotated
//     texture shows a backwards or sideways letter;
//   - the yellow corner and the checkerboard pin down which corner is which
//     even on a single cube face;
//   - the half-intensity grid falls on T-format tile borders at 32 bits per
//     pixel (32×32-pixel 4 KiB tiles, doc/hardware.md#texture-formats), so a tiling error
//     shows as broken lines, and the 1-pixel checkerboard shows a sampling
//     offset of a single texel.
//
// The reference renderer reads the same picture from
// texture/testdata/default-texture.png; a test checks that this code still
// draws exactly that file.
package defaulttex

import (
	"image"

	"github.com/vccube/vccube/texture"
)

// Size is the width and height of the default texture in pixels: a power of
// two (so the whole mip chain is exact) and the size of vkcube's own texture.
const Size = 256

// Colours of the picture, as (R, G, B).
var (
	red    = [3]uint8{255, 0, 0}
	green  = [3]uint8{0, 255, 0}
	blue   = [3]uint8{0, 0, 255}
	white  = [3]uint8{255, 255, 255}
	black  = [3]uint8{0, 0, 0}
	yellow = [3]uint8{255, 255, 0}
)

// rect is a half-open rectangle [x0,x1)×[y0,y1) in top-down coordinates.
type rect struct{ x0, y0, x1, y1 int }

func (r rect) has(x, y int) bool { return x >= r.x0 && x < r.x1 && y >= r.y0 && y < r.y1 }

// The letter F: a stem and two bars, with the top bar longer than the middle
// one, so neither a left-right nor a top-bottom mirror maps it onto itself.
var glyphF = [...]rect{
	{80, 40, 112, 216},  // stem
	{80, 40, 192, 72},   // top bar
	{80, 112, 168, 144}, // middle bar
}

var (
	cornerMark = rect{8, 8, 40, 40}           // yellow square, top-left corner
	checker    = rect{0, Size - 16, 16, Size} // 1-pixel checkerboard, bottom-left corner
)

// gridEvery is the spacing of the half-intensity grid lines.
const gridEvery = 32

// half darkens a colour for the grid; halving each channel keeps a pure
// channel pure.
func half(c [3]uint8) [3]uint8 { return [3]uint8{c[0] >> 1, c[1] >> 1, c[2] >> 1} }

// colourAt returns the colour (R, G, B) of pixel (x, y), y counted from the
// top row.
func colourAt(x, y int) [3]uint8 {
	for _, r := range glyphF {
		if r.has(x, y) {
			return black
		}
	}
	if cornerMark.has(x, y) {
		return yellow
	}
	if checker.has(x, y) {
		if (x+y)%2 == 0 {
			return white
		}
		return black
	}
	var c [3]uint8
	switch {
	case x < Size/2 && y < Size/2:
		c = red
	case y < Size/2:
		c = green
	case x < Size/2:
		c = blue
	default:
		c = white
	}
	if x%gridEvery == 0 || y%gridEvery == 0 {
		c = half(c)
	}
	return c
}

// Picture draws the default texture as a top-down, tightly packed 32-bit
// picture with its channels in the given order and alpha 255. It allocates
// the picture (256 KiB); call it once at start-up.
func Picture(order texture.ChannelOrder) texture.Picture {
	p := texture.Picture{Pix: make([]byte, Size*Size*4), Width: Size, Height: Size, Stride: Size * 4, Cpp: 4}
	for y := 0; y < Size; y++ {
		for x := 0; x < Size; x++ {
			c := colourAt(x, y)
			order.Put(p.Pix[y*p.Stride+x*4:], c[0], c[1], c[2], 255)
		}
	}
	return p
}

// Image draws the default texture as an image.NRGBA (for writing the PNG and
// for tools that work with package image).
func Image() *image.NRGBA {
	p := Picture(texture.OrderRGBA)
	return &image.NRGBA{Pix: p.Pix, Stride: p.Stride, Rect: image.Rect(0, 0, Size, Size)}
}
