package texture

import "fmt"

// FlipMode is how a top-down picture (row 0 at the top, as image files
// store it) is reconciled with the GPU, which takes the first row in memory
// as the bottom row ([AG] §11). The post "vc4: T-format Textures"
// (2023-06-27; doc/hardware.md#public-write-ups) gives the two
// alternatives; both make the GPU sample the upright picture with
// t = 0 at its bottom row, and TestFlipAlternativesSampleAlike proves they
// sample the same texels.
//
// (A renderer that wants t = 0 at the top row, as Vulkan's vkcube has it,
// uses neither: convert without flipping and leave FLIPY off.)
type FlipMode uint8

const (
	// FlipByGPU is the post's alternative 2 and vccube's default: convert
	// the top-down picture as it is and set FLIPY in P0, so the TMU flips
	// at sampling time (the bare-metal cube of the post "vc4: cube demo –
	// 'from scratch'" does this).
	FlipByGPU FlipMode = iota
	// FlipByCPU is the post's alternative 1: flip the rows while
	// converting (the bottom row goes first in memory) and leave FLIPY off.
	FlipByCPU
)

// FlipsRows reports whether the converter must flip rows
// (texture/convert's flipRows).
func (m FlipMode) FlipsRows() bool { return m == FlipByCPU }

// SetsFlipY reports whether P0's FLIPY bit must be set.
func (m FlipMode) SetsFlipY() bool { return m == FlipByGPU }

// String names the mode.
func (m FlipMode) String() string {
	switch m {
	case FlipByGPU:
		return "flipy"
	case FlipByCPU:
		return "flip-rows"
	}
	return fmt.Sprintf("FlipMode(%d)", uint8(m))
}

// FlipYRow returns the memory row the TMU reads for texel row y of a level
// that is height rows high: y itself, or height-1-y when P0's FLIPY is set.
// Texel row y is the one a coordinate t in [y/height, (y+1)/height) selects
// with nearest filtering; row 0 is at t = 0.
//
// [AG] Table 15 says only "Flip Texture Y Axis"; we model it as t → 1 − t
// over the level's own height (not its padded height), which is what makes
// the post's alternative 2 work (doc/hardware.md#tmu). UNCERTAIN: how FLIPY
// interacts with the power-of-two containers of non-power-of-two mip levels
// is not documented.
func FlipYRow(y, height int, flipY bool) int {
	if flipY {
		return height - 1 - y
	}
	return y
}
