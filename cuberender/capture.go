package cuberender

import (
	"fmt"
	"image"

	"github.com/vccube/vccube/texture"
	"github.com/vccube/vccube/texture/convert"
)

// Capture returns the pixels of colour buffer buf as an opaque RGB image,
// row 0 at the top as the display shows it. It waits for the buffer's last
// frame first. The colour buffer's layout (linear today) is undone through
// package texture, so a tiled target would be de-tiled the same way; the
// bytes are read in ScanoutOrder and the X byte is dropped (alpha 255).
// It allocates the image: call it for the frames you keep, not per frame.
func (r *Renderer) Capture(buf int) (*image.NRGBA, error) {
	if err := r.WaitBuffer(buf); err != nil {
		return nil, err
	}
	mem, err := r.Pixels(buf)
	if err != nil {
		return nil, err
	}
	return Decode(mem, r.colourLayout)
}

// Decode converts a colour buffer stored in layout l (4 bytes per pixel in
// ScanoutOrder; memory row 0 is the top row on the screen, as the scene's
// viewport draws it) into an opaque image.
func Decode(mem []byte, l texture.Layout) (*image.NRGBA, error) {
	if l.Cpp() != 4 {
		return nil, fmt.Errorf("render: capture of a %d-byte-per-pixel buffer; want 4", l.Cpp())
	}
	if len(mem) < l.Size() {
		return nil, fmt.Errorf("render: colour buffer has %d bytes, its layout %v needs %d", len(mem), l, l.Size())
	}
	w, h := l.Width(), l.Height()
	pic, err := texture.NewPicture(w, h, 4)
	if err != nil {
		return nil, fmt.Errorf("render: capture: %w", err)
	}
	if err := convert.ToLinear(l, pic, mem, false); err != nil {
		return nil, fmt.Errorf("render: capture: %w", err)
	}
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		src := pic.Pix[y*pic.Stride:]
		dst := img.Pix[y*img.Stride:]
		for x := 0; x < w; x++ {
			red, green, blue, _ := ScanoutOrder.Get(src[4*x:])
			dst[4*x+0], dst[4*x+1], dst[4*x+2], dst[4*x+3] = red, green, blue, 0xff
		}
	}
	return img, nil
}
