package texture

import "fmt"

// MaxSize is the largest texture width or height the TMU samples: the
// 11-bit WIDTH and HEIGHT fields of P1 hold 1–2047, and 0 means 2048 ([AG]
// Table 16; Linux vc4_validate.c vc4_check_tex_size() comment "The texture
// unit can only sample from 2048x2048").
const MaxSize = 2048

// MaxSurfaceSize is the largest width or height of any surface, texture or
// render target: the 3D engine works in signed 12.4 offsets from the
// viewport centre, and Linux vc4_validate.c vc4_check_tex_size() refuses
// wider or higher surfaces for that reason ("Surface dimensions too
// large"). Textures are further limited to MaxSize.
const MaxSurfaceSize = 4096

// UtileBytes is the size of a micro-tile (utile), the unit of the T and LT
// formats: 512 bits whatever the pixel size ([AG] §11 "Micro-tiles").
const UtileBytes = 64

// SubtileBytes and TileBytes are the sizes of a T-format sub-tile (4×4
// utiles) and tile (2×2 sub-tiles) ([AG] §11 "Texture Format (T-format)").
const (
	SubtileBytes = 1024
	TileBytes    = 4096
)

// utileShapes is the one table of utile shapes: bits per pixel → width and
// height in pixels, from [AG] §11 "Micro-tiles" ("64bpp, 32bpp, 16bpp,
// 8bpp, 4bpp or 1bpp are organized as 2 × 4, 4 × 4, 8 × 4, 8 × 8, 16 × 8 or
// 32 × 16 blocks"); the byte-sized rows agree with Linux vc4_validate.c
// utile_width()/utile_height() and Mesa vc4_tiling.h.
var utileShapes = [...]struct{ bpp, w, h int }{
	{64, 2, 4},
	{32, 4, 4},
	{16, 8, 4},
	{8, 8, 8},
	{4, 16, 8},
	{1, 32, 16},
}

// UtileSize returns the width and height in pixels of a 64-byte utile for
// the given bits per pixel (64, 32, 16, 8, 4 or 1; [AG] §11). ok is false
// for any other value.
func UtileSize(bitsPerPixel int) (w, h int, ok bool) {
	for _, s := range utileShapes {
		if s.bpp == bitsPerPixel {
			return s.w, s.h, true
		}
	}
	return 0, 0, false
}

// UtileWidth returns the width in pixels of a utile of cpp bytes per pixel,
// as Linux vc4_validate.c utile_width() does: 8, 8, 4 and 2 for cpp 1, 2, 4
// and 8. Like the kernel (which logs "unknown cpp" and goes on), it returns
// 1 for any other cpp.
func UtileWidth(cpp int) int {
	if w, _, ok := UtileSize(cpp * 8); ok && cpp > 0 {
		return w
	}
	return 1
}

// UtileHeight returns the height in pixels of a utile of cpp bytes per
// pixel, as Linux vc4_validate.c utile_height() does: 8, 4, 4 and 4 for cpp
// 1, 2, 4 and 8, and 1 for any other cpp.
func UtileHeight(cpp int) int {
	if _, h, ok := UtileSize(cpp * 8); ok && cpp > 0 {
		return h
	}
	return 1
}

// Tiling is a memory format of an image: the values of the kernel's
// VC4_TILING_FORMAT_* (vc4_packet.h), which are also the "Format" fields of
// the load/store tile buffer packets and the rendering mode config ([AG]
// Table 38: 0, 1, 2 = raster, T-format, LT-format).
type Tiling uint8

// The three memory formats.
const (
	// Linear is raster order: rows of pixels one after another.
	Linear Tiling = 0
	// TFormat is 4 KiB tiles of 2×2 1 KiB sub-tiles of 4×4 utiles, tile
	// rows running alternately left-to-right and right-to-left.
	TFormat Tiling = 1
	// LTFormat ("linear-tile") is utiles in raster order.
	LTFormat Tiling = 2
)

// String names the format as [AG] does.
func (t Tiling) String() string {
	switch t {
	case Linear:
		return "linear"
	case TFormat:
		return "T"
	case LTFormat:
		return "LT"
	}
	return fmt.Sprintf("Tiling(%d)", uint8(t))
}

// SizeIsLT reports whether the TMU reads a width×height level of cpp bytes
// per pixel in LT format rather than T format: when the level is at most 4
// utiles wide or at most 4 utiles high (Linux vc4_validate.c size_is_lt();
// Mesa vc4_tiling.c vc4_size_is_lt(), "The texture unit decides what tiling
// format a particular miplevel is using this function").
//
// [AG] §4 "Texture Data Storage" words it as "less than one T-format tile",
// which would put a 17–31-pixel-wide 32-bpp level in LT; we follow the
// kernel and Mesa, which agree with each other and are what runs on Pis
// (doc/hardware.md#tmu).
func SizeIsLT(width, height, cpp int) bool {
	return width <= 4*UtileWidth(cpp) || height <= 4*UtileHeight(cpp)
}

// AlignedSize returns the dimensions a width×height image of cpp bytes per
// pixel occupies in memory in the given format, as Linux vc4_validate.c
// vc4_check_tex_size() computes them: linear rounds the width up to a whole
// utile and keeps the height; T rounds both up to a whole 4 KiB tile (8
// utiles each way); LT rounds both up to a whole utile. ok is false for an
// unknown format (the kernel: "buffer tiling %d unsupported").
func AlignedSize(tiling Tiling, width, height, cpp int) (alignedW, alignedH int, ok bool) {
	uw, uh := UtileWidth(cpp), UtileHeight(cpp)
	switch tiling {
	case Linear:
		return roundUp(width, uw), height, true
	case TFormat:
		return roundUp(width, 8*uw), roundUp(height, 8*uh), true
	case LTFormat:
		return roundUp(width, uw), roundUp(height, uh), true
	}
	return 0, 0, false
}

// LevelSize returns the size of the picture of mip level i of a
// width×height texture: max(width>>i, 1) × max(height>>i, 1), the real
// size minified as GL and Mesa minify it (u_minify). Linux vc4_validate.c
// reloc_tex() walks the levels with the same sizes when it checks that they
// fit below the base.
//
// This is not the container the hardware puts the level in; see
// HardwareLevelSize. The two agree for power-of-two sizes, and the
// hardware's are never smaller, so a texture laid out for the hardware
// always passes the kernel's check.
func LevelSize(width, height, level int) (w, h int) {
	return max(width>>level, 1), max(height>>level, 1)
}

// HardwareLevelSize returns the size of the container the TMU assumes for
// mip level i of a width×height texture: level 0 is the texture's own size,
// and every level i ≥ 1 is max(nextpow2(width)>>i, 1) ×
// max(nextpow2(height)>>i, 1). [AG] §4: "The TMUs require mipmaps to be
// stored before the level 0 texture in memory, with addresses automatically
// determined assuming power of 2 sized images ... the mipmap levels greater
// than 0 must be padded to fit within a power of 2 container image"; Mesa
// vc4_resource.c vc4_setup_slices() lays levels out with
// u_minify(pot_width, i). Use this for placement (MipPlan does).
func HardwareLevelSize(width, height, level int) (w, h int) {
	if level == 0 {
		return width, height
	}
	return max(nextPow2(width)>>level, 1), max(nextPow2(height)>>level, 1)
}

// roundUp rounds n up to a multiple of m (m > 0).
func roundUp(n, m int) int { return (n + m - 1) / m * m }

// nextPow2 returns the smallest power of two ≥ n (1 for n ≤ 1).
func nextPow2(n int) int {
	p := 1
	for p < n {
		p <<= 1
	}
	return p
}

// log2 returns the base-2 logarithm of a power of two.
func log2(n int) uint {
	var s uint
	for 1<<s < n {
		s++
	}
	return s
}
