//go:build !purego

package tmu

import "math"

// nearestClampT32 is nearestClampT32Go with AVX2 where the CPU has it,
// else with SSE2 (nearest_amd64.s), the texel fetches included;
// TestNearestClampT32MatchesGo compares each with it. With AVX2 a
// clampT32 with fix set takes nearestFixClampT32AVX2, one without on a
// level whose sides are powers of two (p2) the float32 loop
// (nearestP2ClampT32AVX2), any other nearestClampT32AVX2; on a level in
// T format (tform) the first two are nearestFixTClampT32AVX2 and
// nearestP2TClampT32AVX2, which work out the texels' offsets without
// the utile table. Without AVX2
// one with fix set has its coordinates fixed in Go
// (nearestFixClampT32SSE2). The choice is made in assembly, which jumps
// to the version chosen: a Go function choosing and calling it took
// about 27 instructions a lookup, a third of them its frame.
//
//go:noescape
func nearestClampT32(p *clampT32, s, t, out *[16]uint32)

// nearestFixClampT32SSE2 fixes the coordinates in Go (fixClampLanes),
// then runs the SSE2 loop.
func nearestFixClampT32SSE2(p *clampT32, s, t, out *[16]uint32) {
	var fs, ft [16]uint32
	fixClampLanes(p, s, t, &fs, &ft)
	nearestClampT32SSE2(p, &fs, &ft, out)
}

// useNearestAVX2 chooses nearestClampT32AVX2 (the tests switch it).
var useNearestAVX2 = hasAVX2

//go:noescape
func nearestClampT32SSE2(p *clampT32, s, t, out *[16]uint32)

//go:noescape
func nearestClampT32AVX2(p *clampT32, s, t, out *[16]uint32)

//go:noescape
func nearestP2ClampT32AVX2(p *clampT32, s, t, out *[16]uint32)

//go:noescape
func nearestP2TClampT32AVX2(p *clampT32, s, t, out *[16]uint32)

//go:noescape
func nearestFixClampT32AVX2(p *clampT32, s, t, out *[16]uint32)

//go:noescape
func nearestFixTClampT32AVX2(p *clampT32, s, t, out *[16]uint32)

// fixClampLanes fixes s and t for p's loop as setFix says, as float32s
// the loop without the fix then samples: trunc(c·sx)/sx, which is
// fixCoord(c) for c ≥ 0 and, for c < 0, zero or negative like it, and
// clamps to texel 0 as it does.
func fixClampLanes(p *clampT32, s, t, fs, ft *[16]uint32) {
	ix, iy := 1/p.sx, 1/p.sy
	for i := range 16 {
		fs[i] = math.Float32bits(float32(math.Trunc(float64(math.Float32frombits(s[i]))*p.sx) * ix))
		ft[i] = math.Float32bits(float32(math.Trunc(float64(math.Float32frombits(t[i]))*p.sy) * iy))
	}
}
