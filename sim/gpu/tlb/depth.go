package tlb

import (
	"math/bits"

	"github.com/vccube/vccube/cl"
)

// The depth test of a whole block of 16 pixels at once, for the fragment
// path: the elements are compared with their stored depths together, then
// the passing ones are updated. It gives ZWrite's and Passes' answers when
// the elements' pixels are distinct (a 4×4 block's are), which is what
// lets every comparison see the depth stored before the block's write.

// depthOrderGo returns the elements whose depth z[i] (its low 24 bits) is
// below, and equal to, the stored depth zb[i] (24 bits).
func depthOrderGo(z, zb *[16]uint32) (lt, eq uint16) {
	for i := range z {
		zf := z[i] & 0xFFFFFF
		if zf < zb[i] {
			lt |= 1 << i
		} else if zf == zb[i] {
			eq |= 1 << i
		}
	}
	return lt, eq
}

// passesOf returns the elements that pass depth function f given those
// below and equal to the stored depth: bit 0 of f passes "below", bit 1
// "equal", bit 2 "above" (Passes).
func passesOf(f cl.DepthFunc, lt, eq uint16) uint16 {
	gt := ^(lt | eq)
	var m uint16
	if f&1 != 0 {
		m |= lt
	}
	if f&2 != 0 {
		m |= eq
	}
	if f&4 != 0 {
		m |= gt
	}
	return m
}

// stored gathers the depths stored at the elements' pixels. Every idx[i]
// must be a pixel of the tile.
func (b *Buffer) stored(idx *[16]uint16, zb *[16]uint32) {
	for i := range zb {
		zb[i] = b.ZS[idx[i]] >> 8
	}
}

// DepthPasses returns the elements of mask whose depth z[i] passes
// function f against the stored depth of pixel idx[i] (Passes for each),
// changing nothing. Every idx[i] must be a pixel of the tile.
func (b *Buffer) DepthPasses(idx *[16]uint16, z *[16]uint32, mask uint16, f cl.DepthFunc) uint16 {
	var zb [16]uint32
	b.stored(idx, &zb)
	lt, eq := depthOrder(z, &zb)
	return mask & passesOf(f, lt, eq)
}

// ZWriteBlock is ZWrite for elements whose pixels are distinct (every
// idx[i] a pixel of the tile, no two the same): the stencil-free depth
// test and update of all of them at once, or ZWrite's general loop when
// the face in use has a stencil test. TestZWriteBlock compares it with
// ZWrite.
func (b *Buffer) ZWriteBlock(idx *[16]uint16, z *[16]uint32, mask uint16, d DepthState, st *Stencil, reverse bool) (pass, stencilFail uint16) {
	face := &st.front
	if reverse {
		face = &st.back
	}
	if face.enabled {
		return b.zWrite(idx, z, mask, d, face)
	}
	pass = b.DepthPasses(idx, z, mask, d.Func)
	if d.Update {
		for m := pass; m != 0; m &= m - 1 {
			i := bits.TrailingZeros16(m)
			p := &b.ZS[idx[i]]
			*p = (z[i]&0xFFFFFF)<<8 | *p&0xFF
		}
	}
	return pass, 0
}
