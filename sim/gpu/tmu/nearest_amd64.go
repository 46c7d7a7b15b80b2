//go:build !purego

package tmu

// nearestClampT32 is nearestClampT32Go with AVX2 where the CPU has it,
// else with SSE2 (nearest_amd64.s), the texel fetches included;
// TestNearestClampT32MatchesGo compares each with it. Without AVX2 a
// clampT32 with fix set is done by nearestClampT32Go (SSE2 has no
// truncation of float64s to float64s; a CPU without AVX2 is rare).
func nearestClampT32(p *clampT32, s, t, out *[16]uint32) {
	switch {
	case useNearestAVX2 && p.fix:
		nearestFixClampT32AVX2(p, s, t, out)
	case useNearestAVX2:
		nearestClampT32AVX2(p, s, t, out)
	case p.fix:
		nearestClampT32Go(p, s, t, out)
	default:
		nearestClampT32SSE2(p, s, t, out)
	}
}

// useNearestAVX2 chooses nearestClampT32AVX2 (the tests switch it).
var useNearestAVX2 = hasAVX2

//go:noescape
func nearestClampT32SSE2(p *clampT32, s, t, out *[16]uint32)

//go:noescape
func nearestClampT32AVX2(p *clampT32, s, t, out *[16]uint32)

//go:noescape
func nearestFixClampT32AVX2(p *clampT32, s, t, out *[16]uint32)
