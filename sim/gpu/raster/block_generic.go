//go:build !amd64 || purego

package raster

// blockWZOf is blockWZGo of a block's column and row terms on
// architectures without the SSE2 version.
func blockWZOf(c *ColTerms, r *RowTerms, depth float64, w, z *[16]uint32) {
	blockWZGo(&c.q, &r.q, &c.z, &r.z, depth, r.par, w, z)
}

// blockVP is blockVPGo on architectures without the SSE2 version.
func blockVP(ax, by *[4]float32, par int, out *[16]uint32) { blockVPGo(ax, by, par, out) }

// blockVPCLanes is blockVPCLanesGo on architectures without the SSE2
// version.
func blockVPCLanes(ax *[4]float32, row *[16]float32, par int, out *[16]uint32, cbits uint32, c *[16]uint32) {
	blockVPCLanesGo(ax, row, par, out, cbits, c)
}
