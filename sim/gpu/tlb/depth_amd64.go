//go:build !purego

package tlb

//go:noescape
func depthOrderSSE2(z, zb *[16]uint32) (lt, eq uint32)

// depthOrder is depthOrderGo with SSE2 (depth_amd64.s).
func depthOrder(z, zb *[16]uint32) (lt, eq uint16) {
	l, e := depthOrderSSE2(z, zb)
	return uint16(l), uint16(e)
}
