//go:build !amd64 || purego

package tlb

// depthOrder is depthOrderGo on architectures without the SSE2 version.
func depthOrder(z, zb *[16]uint32) (lt, eq uint16) { return depthOrderGo(z, zb) }
