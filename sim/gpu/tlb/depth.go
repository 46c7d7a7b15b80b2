package tlb

import (
	"unsafe"

	"github.com/vccube/vccube/cl"
)

// The tile buffer work of a fragment shader thread whose 16 elements shade
// a block of distinct pixels in horizontal pairs, as a 4×4 block's do:
// the elements are compared with their stored depths together, then the
// passing ones are updated, with no branch on any element. This gives
// ZWrite's and Passes' answers because the pixels are distinct, which is
// what lets every comparison see the depth stored before the block's
// write. The elements are taken pair by pair, two adjacent 32-bit pixels
// at a time: on amd64 with SSE2 (depth_amd64.s), elsewhere with the Go
// loops below, which the tests compare with them.

// Block is the pixels of a fragment shader thread's elements when they
// come in horizontal pairs: element 2k shades pixel Pair[k] of the tile,
// element 2k+1 the pixel to its right. Every Pair[k] must be even (the
// pair lies in one row) and the pairs distinct. A 4×4 block's elements
// are such pairs: in each 2×2 quad element 4q shades the quad's top-left
// pixel and 4q+1 the one to its right, 4q+2 and 4q+3 the row below
// (raster.LaneX/LaneY), and blocks are aligned to 4 pixels.
//
// The Block methods mask each Pair[k] to an even pixel of the tile, so
// a Block that breaks the rule gives wrong answers but never touches
// memory outside the buffer.
type Block struct {
	_    [0]uint64 // aligned for Offset's two words
	Pair [8]uint16
	// rows has bit r set for each row r of the tile a pair lies in, and
	// right is the largest column + 1 of any pixel; rows is 0 when not
	// worked out (a Block literal), and rowMask then works it out.
	rows  uint64
	right uint8
}

// rowMask returns the rows of the tile the block's pixels lie in, once
// masked as the Block methods mask them: rows, or rowsOfPairs when they
// are not worked out (inlined where it is called, rowsOfPairs not).
func (blk *Block) rowMask() uint64 {
	if blk.rows != 0 {
		return blk.rows
	}
	return blk.rowsOfPairs()
}

// rowsOfPairs is rowMask worked out from the pairs.
func (blk *Block) rowsOfPairs() uint64 {
	var m uint64
	for _, p := range &blk.Pair {
		m |= 1 << (p & pairMask / Size)
	}
	return m
}

// Offset sets b to from with base added to every pair: a block's pixels
// from its layout and its top-left pixel. The eight 16-bit sums are made
// four to a 64-bit word; none carries into the next, as a pixel of the
// tile and so every sum is below Pixels (2^12) when the block lies in
// the tile.
func (b *Block) Offset(from *Block, base uint16) {
	d, s := (*[2]uint64)(unsafe.Pointer(&b.Pair)), (*[2]uint64)(unsafe.Pointer(&from.Pair))
	add := uint64(base) * 0x0001_0001_0001_0001
	d[0], d[1] = s[0]+add, s[1]+add
	// The rows move down by base's row when no pixel crosses into the
	// next row or past the tile; otherwise rowMask works them out.
	b.rows, b.right = 0, 0
	if r, col := uint(base/Size), uint(from.right)+uint(base%Size); from.rows != 0 && r < 64 && col <= Size && from.rows<<r>>r == from.rows {
		b.rows, b.right = from.rows<<r, uint8(col)
	}
}

// Shifted sets b to from moved dx pixels to the right: a block of a row
// of blocks from the row's first (Offset), with what Offset works out
// of the rows kept. The sums do not carry, as in Offset, while the
// block lies in the tile; a block that would reach past the tile's
// right edge gets rows 0, which rowMask then works out from its pairs.
func (b *Block) Shifted(from *Block, dx uint16) {
	d, s := (*[2]uint64)(unsafe.Pointer(&b.Pair)), (*[2]uint64)(unsafe.Pointer(&from.Pair))
	add := uint64(dx) * 0x0001_0001_0001_0001
	d[0], d[1] = s[0]+add, s[1]+add
	b.rows, b.right = 0, 0
	if col := uint(from.right) + uint(dx); col <= Size {
		b.rows, b.right = from.rows, uint8(col)
	}
}

// pairMask keeps a pair's pixel even and inside the tile.
const pairMask = Pixels - 2

// BlockOf returns the block of elements whose pixels are idx, and false
// when they are not distinct horizontal pairs inside the tile.
func BlockOf(idx *[16]uint16) (Block, bool) {
	var blk Block
	for k := range blk.Pair {
		p := idx[2*k]
		if p%2 != 0 || int(p) >= Pixels || idx[2*k+1] != p+1 {
			return Block{}, false
		}
		for j := range k {
			if blk.Pair[j] == p {
				return Block{}, false
			}
		}
		blk.Pair[k] = p
		blk.rows |= 1 << (p / Size)
		blk.right = max(blk.right, uint8(p%Size+2))
	}
	return blk, true
}

// Idx returns the pixel of each element (BlockOf's argument).
func (blk *Block) Idx() (idx [16]uint16) {
	for k, p := range &blk.Pair {
		p &= pairMask
		idx[2*k], idx[2*k+1] = p, p+1
	}
	return idx
}

// DepthPasses returns the elements of mask whose depth z[i] (its low 24
// bits) passes function f against the stored depth of their pixel
// (Passes for each), changing nothing. It is one call, which the
// compiler inlines.
func (b *Buffer) DepthPasses(blk *Block, z *[16]uint32, mask uint16, f cl.DepthFunc) uint16 {
	return zBlock(&b.ZS, blk, z, mask, f, false)
}

// ZWriteBlock is ZWrite for the elements of a Block: the stencil-free
// depth test and update of all of them at once, or ZWrite's general loop
// when the face in use has a stencil test. TestZWriteBlock compares it
// with ZWrite.
func (b *Buffer) ZWriteBlock(blk *Block, z *[16]uint32, mask uint16, d DepthState, st *Stencil, reverse bool) (pass, stencilFail uint16) {
	face := &st.front
	if reverse {
		face = &st.back
	}
	if face.enabled {
		return b.zWriteStencil(blk, z, mask, d, face)
	}
	// zBlock passes nothing of an empty mask and writes back what it
	// read.
	pass = zBlock(&b.ZS, blk, z, mask, d.Func, d.Update)
	if d.Update && pass != 0 {
		b.zs.dirty |= blk.rowMask()
	}
	return pass, 0
}

// ZPassedBlock is ZWriteBlock for elements known to pass its depth
// test, with no stencil test for the face in use: every element of pass
// passes, so only the update is left, the element's Z with the stored
// stencil where update is set (ZWriteBlock, less its test). The
// fragment stage knows the answer when its early-Z test compared the
// same Z with the same stored depths (render's fragment.TLBWrite).
// TestZPassedBlock compares it with ZWriteBlock under DepthFuncAlways.
func (b *Buffer) ZPassedBlock(blk *Block, z *[16]uint32, pass uint16, update bool) {
	if update && pass != 0 {
		zStore(&b.ZS, blk, z, pass)
		b.zs.dirty |= blk.rowMask()
	}
}

// zWriteStencil is ZWriteBlock with a stencil test: zWrite on the
// block's pixels, kept out of ZWriteBlock, whose common case it would
// otherwise burden with its element list.
func (b *Buffer) zWriteStencil(blk *Block, z *[16]uint32, mask uint16, d DepthState, face *stencilFace) (pass, stencilFail uint16) {
	idx := blk.Idx()
	return b.zWrite(&idx, z, mask, d, face)
}

// WriteColorBlock is WriteColor for the elements of a Block.
func (b *Buffer) WriteColorBlock(blk *Block, c *[16]uint32, mask uint16) {
	if mask != 0 {
		colorBlock(&b.Color, blk, c, mask)
		b.color.dirty |= blk.rowMask()
	}
}

// nonZeroGo is NonZeroLanes (depth_amd64.go, depth_generic.go) one
// element at a time.
func nonZeroGo(v *[16]uint32) (m uint16) {
	for i, x := range v {
		if x != 0 {
			m |= 1 << i
		}
	}
	return m
}

// zBlockGo is the depth test of a block's elements in mask against zs,
// with the update of the passing elements' Z when update is set; it
// returns the elements that pass. No branch depends on an element: the
// order of two 24-bit depths comes from the signs of their differences,
// and every element's word is written back, changed or not.
func zBlockGo(zs *[Pixels]uint32, blk *Block, z *[16]uint32, mask uint16, f cl.DepthFunc, update bool) (pass uint16) {
	m := uint32(mask)
	for k, p := range &blk.Pair {
		q := p & pairMask
		ok := passBit(f, z[2*k], zs[q]) | passBit(f, z[2*k+1], zs[q+1])<<1
		pass |= uint16(ok&m) << (2 * k)
		m >>= 2
	}
	if update {
		m := uint32(pass)
		for k, p := range &blk.Pair {
			q := p & pairMask
			o0, o1 := zs[q], zs[q+1]
			zs[q] = o0 ^ (o0^(z[2*k]<<8|o0&0xFF))&-(m&1)
			zs[q+1] = o1 ^ (o1^(z[2*k+1]<<8|o1&0xFF))&-(m>>1&1)
			m >>= 2
		}
	}
	return pass
}

// zStoreGo is zBlockGo's update alone: each element of mask gets its Z
// with the stored stencil, the others keep their word, with no branch
// on an element.
func zStoreGo(zs *[Pixels]uint32, blk *Block, z *[16]uint32, mask uint16) {
	m := uint32(mask)
	for k, p := range &blk.Pair {
		q := p & pairMask
		o0, o1 := zs[q], zs[q+1]
		zs[q] = o0 ^ (o0^(z[2*k]<<8|o0&0xFF))&-(m&1)
		zs[q+1] = o1 ^ (o1^(z[2*k+1]<<8|o1&0xFF))&-(m>>1&1)
		m >>= 2
	}
}

// passBit is 1 when a fragment of depth z (its low 24 bits) passes
// function f against a pixel whose Z/stencil word is zs, else 0: bit
// order(z, zb) of f, as Passes.
func passBit(f cl.DepthFunc, z, zs uint32) uint32 {
	z &= 0xFFFFFF
	zb := zs >> 8
	order := 1 + (zb-z)>>31 - (z-zb)>>31
	return uint32(f) >> order & 1
}

// colorBlockGo writes c[i] to element i's pixel for the elements in mask.
func colorBlockGo(color *[Pixels]uint32, blk *Block, c *[16]uint32, mask uint16) {
	if mask == 0xFFFF {
		for k, p := range &blk.Pair {
			q := p & pairMask
			color[q], color[q+1] = c[2*k], c[2*k+1]
		}
		return
	}
	m := uint32(mask)
	for k, p := range &blk.Pair {
		q := p & pairMask
		o0, o1 := color[q], color[q+1]
		color[q] = o0 ^ (o0^c[2*k])&-(m&1)
		color[q+1] = o1 ^ (o1^c[2*k+1])&-(m>>1&1)
		m >>= 2
	}
}
