//go:build !purego

package raster

//go:noescape
func blockWZSSE2(qx, qy, zx, zy *[4]float64, depth float64, col, row *[16]int64, w, z *[16]uint32)

// blockWZ is blockWZGo with SSE2 (block_amd64.s); TestBlockWZMatchesGo
// compares the two.
func blockWZ(qx, qy, zx, zy *[4]float64, depth float64, par int, w, z *[16]uint32) {
	blockWZSSE2(qx, qy, zx, zy, depth, &laneColOff[par], &laneRowOff[par], w, z)
}

//go:noescape
func blockVPSSE2(ax, by *[4]float32, col, row *[16]int64, out *[16]uint32)

// blockVP is blockVPGo with SSE2 (block_amd64.s); TestBlockVPMatchesGo
// compares the two.
func blockVP(ax, by *[4]float32, par int, out *[16]uint32) {
	blockVPSSE2(ax, by, &laneColOff4[par], &laneRowOff4[par], out)
}
