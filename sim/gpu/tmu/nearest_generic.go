//go:build !amd64 || purego

package tmu

// nearestClampT32 is nearestClampT32Go on architectures without the SSE2
// version.
func nearestClampT32(p *clampT32, s, t, out *[16]uint32) { nearestClampT32Go(p, s, t, out) }
