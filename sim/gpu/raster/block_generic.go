//go:build !amd64 || purego

package raster

// blockWZ is blockWZGo on architectures without the SSE2 version.
func blockWZ(qx, qy, zx, zy *[4]float64, depth float64, par int, w, z *[16]uint32) {
	blockWZGo(qx, qy, zx, zy, depth, par, w, z)
}

// blockVP is blockVPGo on architectures without the SSE2 version.
func blockVP(ax, by *[4]float32, par int, out *[16]uint32) { blockVPGo(ax, by, par, out) }
