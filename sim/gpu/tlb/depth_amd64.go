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

// zBlock is zBlockGo with AVX2 where the CPU has it, else with SSE2
// (depth_amd64.s); TestZWriteBlock compares each with it.
func zBlock(zs *[Pixels]uint32, blk *Block, z *[16]uint32, mask uint16, f cl.DepthFunc, update bool) uint16 {
	if zBlockUsesAVX2 {
		return uint16(zBlockAVX2(zs, blk, z, uint32(mask), uint32(f), update))
	}
	return uint16(zBlockSSE2(zs, blk, z, uint32(mask), uint32(f), update))
}

// zBlockUsesAVX2 chooses zBlockAVX2 (the tests switch it).
var zBlockUsesAVX2 = cpu.X86.HasAVX2

// colorBlock is colorBlockGo with SSE2 (depth_amd64.s).
func colorBlock(color *[Pixels]uint32, blk *Block, c *[16]uint32, mask uint16) {
	colorBlockSSE2(color, blk, c, uint32(mask))
}
