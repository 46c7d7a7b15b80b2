//go:build !purego

package tlb

import (
	"github.com/vccube/vccube/cl"
	"golang.org/x/sys/cpu"
)

//go:noescape
func zBlockSSE2(zs *[Pixels]uint32, blk *Block, z *[16]uint32, mask, f uint32, update bool) (pass uint32)

//go:noescape
func zBlockAVX2(zs *[Pixels]uint32, blk *Block, z *[16]uint32, mask, f uint32, update bool) (pass uint32)

//go:noescape
func colorBlockSSE2(color *[Pixels]uint32, blk *Block, c *[16]uint32, mask uint32)

//go:noescape
func nonZeroSSE2(v *[16]uint32) uint32

// NonZeroLanes returns bit i set when v[i] is not zero: given a fragment
// shader thread's MS_FLAGS, the elements a TLB write still reaches. It is
// nonZeroGo with SSE2 (depth_amd64.s).
func NonZeroLanes(v *[16]uint32) uint16 { return uint16(nonZeroSSE2(v)) }

//go:noescape
func zBlockAny(zs *[Pixels]uint32, blk *Block, z *[16]uint32, mask, f uint32, update bool) (pass uint32)

// zBlock is zBlockGo with AVX2 where the CPU has it, else with SSE2
// (depth_amd64.s: zBlockAny chooses); TestZWriteBlock compares each
// with it. It is one call, which the compiler inlines.
func zBlock(zs *[Pixels]uint32, blk *Block, z *[16]uint32, mask uint16, f cl.DepthFunc, update bool) uint16 {
	return uint16(zBlockAny(zs, blk, z, uint32(mask), uint32(f), update))
}

//go:noescape
func zStoreSSE2(zs *[Pixels]uint32, blk *Block, z *[16]uint32, mask uint32)

//go:noescape
func zStoreAVX2(zs *[Pixels]uint32, blk *Block, z *[16]uint32, mask uint32)

//go:noescape
func zStoreAny(zs *[Pixels]uint32, blk *Block, z *[16]uint32, mask uint32)

// zStore is zStoreGo with AVX2 where zBlock uses it, else with SSE2
// (depth_amd64.s: zStoreAny chooses); TestZPassedBlock compares each
// with it. It is one call, which the compiler inlines.
func zStore(zs *[Pixels]uint32, blk *Block, z *[16]uint32, mask uint16) {
	zStoreAny(zs, blk, z, uint32(mask))
}

// zBlockUsesAVX2 chooses zBlockAVX2 and zStoreAVX2 (the tests switch it).
var zBlockUsesAVX2 = cpu.X86.HasAVX2

// depthFuncMasks[f] is what the block kernels (depth_amd64.s) test
// function f with: all ones or all zeros for f's "below" answer XOR its
// "equal" answer, for its "equal" answer, and for its "above" answer XOR
// its "equal" answer (bits 0, 1 and 2 of f, Passes' truth table); then
// 0xFFFFFF, a depth's bits. TestZWriteBlock holds every function to
// Passes.
var depthFuncMasks = func() (t [8][4]uint32) {
	for f := range t {
		below, equal, above := -uint32(f&1), -uint32(f>>1&1), -uint32(f>>2&1)
		t[f] = [4]uint32{below ^ equal, equal, above ^ equal, 0xFFFFFF}
	}
	return t
}()

// colorBlock is colorBlockGo with SSE2 (depth_amd64.s).
func colorBlock(color *[Pixels]uint32, blk *Block, c *[16]uint32, mask uint16) {
	colorBlockSSE2(color, blk, c, uint32(mask))
}
