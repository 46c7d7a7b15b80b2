//go:build !purego

package tmu

// nearestClampT32 is nearestClampT32Go with SSE2 (nearest_amd64.s), the
// texel fetches included; fast_test.go compares the two.
//
//go:noescape
func nearestClampT32(p *clampT32, s, t, out *[16]uint32)
