package texture

import (
	"fmt"
	"math"
)

// Picture is a linear (raster) image in memory: Height rows of Width
// pixels, row r starting at byte r*Stride of Pix, each pixel Cpp bytes.
//
// A Picture carries no row-order flag. By convention in vccube, pictures
// that come from files (package texture/imagefile) and the default texture
// (package texture/defaulttex) are top-down: row 0 is the top of the picture
// as a person sees it, as PNG, JPEG, GIF and PPM store it. The GPU instead
// takes the first row in memory as the bottom row ([AG] §11 "All images are
// assumed to have a bottom-left origin"); see FlipMode for the two ways of
// reconciling the two.
type Picture struct {
	// Pix holds the pixel bytes; len(Pix) ≥ (Height-1)*Stride + Width*Cpp.
	Pix []byte
	// Width and Height are in pixels.
	Width, Height int
	// Stride is the distance in bytes between the starts of two rows.
	Stride int
	// Cpp is the number of bytes per pixel.
	Cpp int
}

// NewPicture allocates a zeroed, tightly packed picture (Stride =
// width*cpp). It is meant for setup code, not for a render loop.
func NewPicture(width, height, cpp int) (Picture, error) {
	if width <= 0 || height <= 0 {
		return Picture{}, fmt.Errorf("texture: picture size %d×%d: width and height must be at least 1", width, height)
	}
	if cpp <= 0 || cpp > 8 {
		return Picture{}, fmt.Errorf("texture: picture with %d bytes per pixel: use 1 to 8", cpp)
	}
	return Picture{Pix: make([]byte, width*height*cpp), Width: width, Height: height, Stride: width * cpp, Cpp: cpp}, nil
}

// Check reports whether the picture's fields describe memory that Pix
// actually holds, with an error saying what is wrong. The sizes are
// computed without overflow (an int is 32 bits on the Pi's GOARCH=arm), so
// a picture that passes can be indexed row by row without a panic.
func (p Picture) Check() error {
	if p.Width <= 0 || p.Height <= 0 {
		return fmt.Errorf("texture: picture size %d×%d: width and height must be at least 1", p.Width, p.Height)
	}
	if p.Cpp <= 0 {
		return fmt.Errorf("texture: picture with %d bytes per pixel", p.Cpp)
	}
	row, okRow := mulInt(p.Width, p.Cpp)
	if !okRow || p.Stride < row {
		return fmt.Errorf("texture: picture stride %d is less than a row (%d px × %d bytes)", p.Stride, p.Width, p.Cpp)
	}
	above, okAbove := mulInt(p.Height-1, p.Stride) // the rows before the last
	if !okAbove || above > math.MaxInt-row {
		return fmt.Errorf("texture: picture of %d×%d at stride %d spans more bytes than memory can hold", p.Width, p.Height, p.Stride)
	}
	if need := above + row; len(p.Pix) < need {
		return fmt.Errorf("texture: picture buffer holds %d bytes; %d×%d at stride %d needs %d",
			len(p.Pix), p.Width, p.Height, p.Stride, need)
	}
	return nil
}

// mulInt returns a·b for a, b ≥ 0, and false if it overflows an int.
func mulInt(a, b int) (int, bool) {
	if a != 0 && b > math.MaxInt/a {
		return 0, false
	}
	return a * b, true
}

// ChannelOrder is the order of the four 8-bit channels of a 32-bit pixel in
// memory.
//
// The TMU returns an RGBA8888 texel as the little-endian word of its four
// bytes as stored, and the TLB stores the fragment shader's colour word
// unchanged (doc/hardware.md#tmu, doc/hardware.md#tile-buffer-formats;
// Mesa vc4_formats.c maps
// both R8G8B8A8 and B8G8R8A8 to texture type RGBA8888 and fixes the order
// with a shader swizzle). A shader that moves the texel straight to
// TLB_COLOUR_ALL therefore needs the texture in the render target's byte
// order: OrderBGRA for an XRGB8888 scanout buffer.
type ChannelOrder uint8

const (
	// OrderRGBA stores bytes R, G, B, A (DRM_FORMAT_ABGR8888,
	// PIPE_FORMAT_R8G8B8A8).
	OrderRGBA ChannelOrder = iota
	// OrderBGRA stores bytes B, G, R, A (DRM_FORMAT_XRGB8888 and
	// ARGB8888, the usual Linux scanout formats; PIPE_FORMAT_B8G8R8A8).
	OrderBGRA
)

// String names the order by its bytes in memory.
func (o ChannelOrder) String() string {
	switch o {
	case OrderRGBA:
		return "R,G,B,A"
	case OrderBGRA:
		return "B,G,R,A"
	}
	return fmt.Sprintf("ChannelOrder(%d)", uint8(o))
}

// Put stores the colour (r, g, b, a) at px[0:4] in this order.
func (o ChannelOrder) Put(px []byte, r, g, b, a uint8) {
	_ = px[3]
	if o == OrderBGRA {
		r, b = b, r
	}
	px[0], px[1], px[2], px[3] = r, g, b, a
}

// Get reads the colour stored at px[0:4] in this order.
func (o ChannelOrder) Get(px []byte) (r, g, b, a uint8) {
	_ = px[3]
	r, g, b, a = px[0], px[1], px[2], px[3]
	if o == OrderBGRA {
		r, b = b, r
	}
	return
}
