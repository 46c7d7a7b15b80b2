//go:build !amd64 || purego

package tmu

// clampIdx is clampIdxGo on architectures without the SSE2 version.
func clampIdx(s, t *[16]uint32, w, h, flip, upr int, idx, sub *[16]int32) {
	clampIdxGo(s, t, w, h, flip, upr, idx, sub)
}
