//go:build !amd64 || purego

package tlb

import "github.com/vccube/vccube/cl"

// zBlock, zStore and colorBlock are the Go loops on architectures without the
// SSE2 versions.
func zBlock(zs *[Pixels]uint32, blk *Block, z *[16]uint32, mask uint16, f cl.DepthFunc, update bool) uint16 {
	return zBlockGo(zs, blk, z, mask, f, update)
}

func zStore(zs *[Pixels]uint32, blk *Block, z *[16]uint32, mask uint16) {
	zStoreGo(zs, blk, z, mask)
}

func colorBlock(color *[Pixels]uint32, blk *Block, c *[16]uint32, mask uint16) {
	colorBlockGo(color, blk, c, mask)
}

// NonZeroLanes returns bit i set when v[i] is not zero: given a fragment
// shader thread's MS_FLAGS, the elements a TLB write still reaches. It is
// nonZeroGo on architectures without the SSE2 version.
func NonZeroLanes(v *[16]uint32) uint16 { return nonZeroGo(v) }
