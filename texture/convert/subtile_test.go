package convert

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/vccube/vccube/texture"
)

// TestMoveSubtile16MatchesGo holds moveSubtile16 (SSE2 on amd64) to
// moveSubtile16Go, the reference, in both directions, with rows going up
// and down, and with sub-tiles aligned to 16 bytes (non-temporal stores)
// and not.
func TestMoveSubtile16MatchesGo(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const stride = 320
	for trial := 0; trial < 200; trial++ {
		pix := make([]byte, 20*stride)
		for i := range pix {
			pix[i] = byte(r.Uint32())
		}
		step, q := stride, r.IntN(stride-64)
		if trial&1 == 1 {
			step, q = -stride, 19*stride+r.IntN(stride-64)
		}
		off := []int{0, 16, 1, 8}[trial&3]
		subA := make([]byte, texture.SubtileBytes+off)[off:]
		subB := make([]byte, texture.SubtileBytes+off)[off:]
		moveSubtile16(subA, pix, q, step, true)
		storeFence()
		moveSubtile16Go(subB, pix, q, step, true)
		if !bytes.Equal(subA, subB) {
			t.Fatalf("trial %d (step %d, sub-tile offset %d): to memory differs", trial, step, off)
		}
		for i := range subA {
			subA[i] = byte(r.Uint32())
		}
		pixA := append([]byte(nil), pix...)
		pixB := append([]byte(nil), pix...)
		moveSubtile16(subA, pixA, q, step, false)
		moveSubtile16Go(subA, pixB, q, step, false)
		if !bytes.Equal(pixA, pixB) {
			t.Fatalf("trial %d (step %d): to the picture differs", trial, step)
		}
	}
}
