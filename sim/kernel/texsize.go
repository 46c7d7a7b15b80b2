package kernel

import "github.com/vccube/vccube/texture"

// The kernel's own size rules for surfaces and textures (Linux
// drivers/gpu/drm/vc4/vc4_validate.c: utile_width, utile_height,
// size_is_lt, vc4_check_tex_size and the type switch and level walk of
// reloc_tex). They are the kernel's code, not the layout description of
// package texture, which the client lays its textures out with: a client
// layout the kernel's rules refuse is refused here too.
// TestKernelSizeRulesAgreeWithTheLayouts checks where the two must agree.

// maxSurfaceSize is vc4_check_tex_size's limit on any surface's width and
// height: "The shaded vertex format stores signed 12.4 fixed point
// (-2048,2047) offsets from the viewport center, so we should never have a
// render target larger than 4096."
const maxSurfaceSize = 4096

// utileWidth is utile_width: the width in pixels of a 64-byte utile of
// cpp bytes per pixel, 1 for an unknown cpp (the kernel logs "unknown
// cpp" and goes on).
func utileWidth(cpp int) int {
	switch cpp {
	case 1, 2:
		return 8
	case 4:
		return 4
	case 8:
		return 2
	}
	return 1
}

// utileHeight is utile_height, likewise.
func utileHeight(cpp int) int {
	switch cpp {
	case 1:
		return 8
	case 2, 4, 8:
		return 4
	}
	return 1
}

// sizeIsLT is size_is_lt: whether a level of that size uses the LT layout
// rather than T, when it is at most 4 utiles wide or high.
func sizeIsLT(width, height, cpp int) bool {
	return width <= 4*utileWidth(cpp) || height <= 4*utileHeight(cpp)
}

// alignedSize is the padding of vc4_check_tex_size (and of reloc_tex's
// level walk): linear rounds the width up to a utile, T both sides to a
// 4 KiB tile (8 utiles), LT both to a utile. ok is false for another
// format ("buffer tiling %d unsupported").
func alignedSize(tiling uint8, width, height, cpp int) (aw, ah int, ok bool) {
	uw, uh := utileWidth(cpp), utileHeight(cpp)
	switch tiling {
	case tilingLinear:
		return roundUp(width, uw), height, true
	case tilingT:
		return roundUp(width, 8*uw), roundUp(height, 8*uh), true
	case tilingLT:
		return roundUp(width, uw), roundUp(height, uh), true
	}
	return 0, 0, false
}

// checkTexSize is vc4_check_tex_size: whether a width×height surface of
// cpp bytes per pixel in the given format, offset bytes into a BO of
// boSize bytes, fits in it: false for a side above maxSurfaceSize, an
// unknown format, or a size that wraps past 32 bits or the BO's end (all
// in u32 arithmetic, as the kernel computes it).
func checkTexSize(boSize, offset uint32, tiling uint8, width, height, cpp int) bool {
	if width > maxSurfaceSize || height > maxSurfaceSize || width < 0 || height < 0 {
		return false
	}
	aw, ah, ok := alignedSize(tiling, width, height, cpp)
	if !ok {
		return false
	}
	size := uint32(aw) * uint32(cpp) * uint32(ah)
	return size+offset >= size && size+offset <= boSize
}

// texGrid is reloc_tex's type switch: the bytes per element of a texture
// type and the element grid of a width×height texture, whose elements are
// pixels except for ETC1 (64-bit blocks of 4×4 pixels: "ETC1 is arranged
// as 64-bit blocks, where each block is 4x4 pixels"). ok is false for the
// types reloc_tex refuses ("Texture format %d unsupported"): BW1, A4, A1,
// RGBA64, YUV422R and anything past them.
func texGrid(typ texture.Type, width, height int) (cpp, gridW, gridH int, ok bool) {
	switch typ {
	case texture.RGBA8888, texture.RGBX8888, texture.RGBA32R:
		return 4, width, height, true
	case texture.RGBA4444, texture.RGBA5551, texture.RGB565, texture.LUMALPHA, texture.S16F, texture.S16:
		return 2, width, height, true
	case texture.LUMINANCE, texture.ALPHA, texture.S8:
		return 1, width, height, true
	case texture.ETC1:
		return 8, (width + 3) >> 2, (height + 3) >> 2, true
	}
	return 0, 0, 0, false
}

// levelSize is the size reloc_tex gives mip level i of a width×height
// texture when it checks that the levels fit below the base:
// max(width>>i, 1) × max(height>>i, 1).
func levelSize(width, height, level int) (w, h int) {
	return max(width>>level, 1), max(height>>level, 1)
}

// roundUp rounds n up to a multiple of m (m > 0), as round_up does.
func roundUp(n, m int) int { return (n + m - 1) / m * m }
