//go:build !purego

package tmu

//go:noescape
func clampIdxSSE2(s, t *[16]uint32, fw, fh, wm1, hm1 float64, flip, hf, upr int32, idx, sub *[16]int32)

// clampIdx is clampIdxGo with SSE2 (nearest_amd64.s); fast_test.go
// compares the two.
func clampIdx(s, t *[16]uint32, w, h, flip, upr int, idx, sub *[16]int32) {
	clampIdxSSE2(s, t, float64(w), float64(h), float64(w-1), float64(h-1), int32(flip), int32(h&flip), int32(upr), idx, sub)
}
