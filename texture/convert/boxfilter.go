package convert

import (
	"fmt"

	"github.com/vccube/vccube/texture"
)

// Downsample writes into dst the next mip level of src: a 2×2 box filter,
// each destination pixel (x, y) the rounded average of source pixels
// (2x, 2y), (2x+1, 2y), (2x, 2y+1) and (2x+1, 2y+1), leaving out those past
// the source's edge (so a 1-pixel-wide source averages pairs). dst must be
// max(w/2, 1) × max(h/2, 1) of src's w×h; with an odd side the last source
// column or row is dropped, as a plain box filter does.
//
// Channels are averaged one by one, as the type's fields
// (texture.Type.ChannelBits:
// 8-bit channels for RGBA8888, RGBX8888, RGBA32R, LUMINANCE, ALPHA and
// LUMALPHA; 4-, 5- and 6-bit fields for RGBA4444, RGBA5551 and RGB565).
// Types whose samples are not unsigned normalized fields (ETC1, S8, S16,
// S16F, RGBA64, YUYV422R, the sub-byte types) are refused: supply their
// levels some other way. Row order does not matter. Downsample does not
// allocate.
func Downsample(dst, src texture.Picture, t texture.Type) error {
	fields := t.ChannelBits()
	if len(fields) == 0 {
		return fmt.Errorf("texture: no box filter for type %v: its samples are not plain unsigned fields", t)
	}
	cpp := t.BitsPerPixel() / 8
	if err := src.Check(); err != nil {
		return err
	}
	if err := dst.Check(); err != nil {
		return err
	}
	if src.Cpp != cpp || dst.Cpp != cpp {
		return fmt.Errorf("texture: box filter for %v wants %d bytes per pixel, got source %d and destination %d", t, cpp, src.Cpp, dst.Cpp)
	}
	if dst.Width != max(src.Width/2, 1) || dst.Height != max(src.Height/2, 1) {
		return fmt.Errorf("texture: the level below %d×%d is %d×%d, not %d×%d",
			src.Width, src.Height, max(src.Width/2, 1), max(src.Height/2, 1), dst.Width, dst.Height)
	}
	for y := 0; y < dst.Height; y++ {
		for x := 0; x < dst.Width; x++ {
			var samples [4]uint32
			n := 0
			for dy := 0; dy < 2; dy++ {
				for dx := 0; dx < 2; dx++ {
					sx, sy := 2*x+dx, 2*y+dy
					if sx < src.Width && sy < src.Height {
						samples[n] = loadPixel(src.Pix[sy*src.Stride+sx*cpp:], cpp)
						n++
					}
				}
			}
			var out uint32
			shift := uint(0)
			for _, bits := range fields {
				mask := uint32(1)<<bits - 1
				sum := uint32(0)
				for _, s := range samples[:n] {
					sum += s >> shift & mask
				}
				out |= (sum + uint32(n)/2) / uint32(n) << shift
				shift += uint(bits)
			}
			storePixel(dst.Pix[y*dst.Stride+x*cpp:], cpp, out)
		}
	}
	return nil
}

// loadPixel reads a pixel of 1 to 4 bytes as a little-endian number.
func loadPixel(b []byte, cpp int) uint32 {
	var v uint32
	for i := cpp - 1; i >= 0; i-- {
		v = v<<8 | uint32(b[i])
	}
	return v
}

// storePixel writes a pixel of 1 to 4 bytes as a little-endian number.
func storePixel(b []byte, cpp int, v uint32) {
	for i := 0; i < cpp; i++ {
		b[i] = byte(v >> (8 * i))
	}
}

// GenerateMips returns level 0 and the levels 1 .. levels-1 below it, each
// made from the one above with Downsample; level i is max(w>>i, 1) ×
// max(h>>i, 1) (texture.LevelSize), the Width and Height of a
// texture.MipPlan's Level(i). It allocates
// the new levels: call it once at start-up, not per frame.
func GenerateMips(t texture.Type, level0 texture.Picture, levels int) ([]texture.Picture, error) {
	if levels < 1 || levels > texture.MaxLevels {
		return nil, fmt.Errorf("texture: %d mip levels: use 1 to %d", levels, texture.MaxLevels)
	}
	if err := level0.Check(); err != nil {
		return nil, err
	}
	out := make([]texture.Picture, levels)
	out[0] = level0
	for i := 1; i < levels; i++ {
		w, h := texture.LevelSize(level0.Width, level0.Height, i)
		p, err := texture.NewPicture(w, h, level0.Cpp)
		if err != nil {
			return nil, err
		}
		if err := Downsample(p, out[i-1], t); err != nil {
			return nil, fmt.Errorf("texture: mip level %d: %w", i, err)
		}
		out[i] = p
	}
	return out, nil
}
