//go:build !purego

package raster

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// hasAVX2 chooses the AVX2 versions of blockWZOf and blockVP
// (block_avx2_amd64.s) over the SSE2 ones (block_amd64.s).
var hasAVX2 = cpu.X86.HasAVX2

//go:noescape
func blockWZSSE2(qx, qy, zx, zy *[4]float64, depth float64, col, row *[16]int64, w, z *[16]uint32)

//go:noescape
func blockWZAVX2(qx, qy, zx, zy *[4]float64, depth float64, col, row *[32]int32, w, z *[16]uint32)

//go:noescape
func blockWZPar(c *ColTerms, r *RowTerms, depth float64, w, z *[16]uint32)

// blockWZPar reads ColTerms and RowTerms at these offsets: q at 0, z at
// 32 and the row's parity at 64 (a constant out of range does not
// compile).
const (
	_ uintptr = 0 - unsafe.Offsetof(ColTerms{}.q)
	_ uintptr = 0 - unsafe.Offsetof(RowTerms{}.q)
	_ uintptr = unsafe.Offsetof(ColTerms{}.z) - 32
	_ uintptr = 32 - unsafe.Offsetof(ColTerms{}.z)
	_ uintptr = unsafe.Offsetof(RowTerms{}.z) - 32
	_ uintptr = 32 - unsafe.Offsetof(RowTerms{}.z)
	_ uintptr = unsafe.Offsetof(RowTerms{}.par) - 64
	_ uintptr = 64 - unsafe.Offsetof(RowTerms{}.par)
)

// blockWZSSE2Body is the body of blockWZSSE2, which blockWZPar shares;
// it takes its arguments in registers and is never called from Go.
func blockWZSSE2Body()

// blockWZOf is blockWZ of a block's column and row terms with AVX2 or
// SSE2 (blockWZPar chooses): TestBlockWZMatchesGo compares each version
// with blockWZGo, and TestBlockWZDispatch blockWZOf with either chosen.
// One call, so that Prim.BlockWZ is inlined into its callers.
func blockWZOf(c *ColTerms, r *RowTerms, depth float64, w, z *[16]uint32) {
	blockWZPar(c, r, depth, w, z)
}

//go:noescape
func blockVPSSE2(ax, by *[4]float32, col, row *[16]int64, out *[16]uint32)

//go:noescape
func blockVPAVX2(ax, by *[4]float32, col, row *[16]int32, out *[16]uint32)

//go:noescape
func blockVPPar(ax, by *[4]float32, par int, out *[16]uint32)

//go:noescape
func blockVPCLanes(ax *[4]float32, row *[16]float32, par int, out *[16]uint32, cbits uint32, c *[16]uint32)

// blockVPSSE2Body is the body of blockVPSSE2, which blockVPPar shares;
// it takes its arguments in registers and is never called from Go.
func blockVPSSE2Body()

// blockVP is blockVPGo with AVX2 or SSE2 (blockVPPar chooses):
// TestBlockVPMatchesGo compares each version with it, and
// TestBlockVPDispatch blockVP itself with either chosen. One call
// without a branch, so that the varyings' read of each block
// (render's Varying) does not pay a call of its own to choose.
func blockVP(ax, by *[4]float32, par int, out *[16]uint32) {
	blockVPPar(ax, by, par, out)
}

// laneColIdx and laneRowIdx give, for blocks of each parity, element i's
// column and row (LaneX and LaneY within the block): the VPERMPS indices
// that pick its terms from a [4]float32. laneColIdx2 and laneRowIdx2 are
// the same as pairs of 32-bit halves of a [4]float64: 2c, 2c+1.
var laneColIdx, laneRowIdx, laneColIdx2, laneRowIdx2 = func() (col, row [2][16]int32, col2, row2 [2][32]int32) {
	for p := range col {
		for i := range col[p] {
			c, r := int32(LaneX[p][i]&3), int32(LaneY[p][i]&3)
			col[p][i], row[p][i] = c, r
			col2[p][2*i], col2[p][2*i+1] = 2*c, 2*c+1
			row2[p][2*i], row2[p][2*i+1] = 2*r, 2*r+1
		}
	}
	return col, row, col2, row2
}()
