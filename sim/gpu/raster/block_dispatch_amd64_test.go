//go:build !purego

package raster

import (
	"math/rand/v2"
	"testing"

	"golang.org/x/sys/cpu"
)

// blockVP (blockVPPar, which picks the parity's tables and the version
// itself) gives blockVPGo's values with each version it can choose:
// SSE2, and AVX2 when the CPU has it.
func TestBlockVPDispatch(t *testing.T) {
	defer func(h bool) { hasAVX2 = h }(hasAVX2)
	r := rand.New(rand.NewPCG(27, 28))
	for _, avx2 := range []bool{false, true} {
		if avx2 && !cpu.X86.HasAVX2 {
			t.Log("no AVX2: its version is not tested")
			continue
		}
		hasAVX2 = avx2
		for n := 0; n < 20000; n++ {
			var ax, by [4]float32
			for k := range 4 {
				ax[k], by[k] = float32(r.NormFloat64()*100), float32(r.NormFloat64()*100)
			}
			par := n & 1
			var got, want [16]uint32
			blockVP(&ax, &by, par, &got)
			blockVPGo(&ax, &by, par, &want)
			if got != want {
				t.Fatalf("AVX2 %v: ax %v by %v parity %d: %#x, Go %#x", avx2, ax, by, par, got, want)
			}
		}
	}
}
