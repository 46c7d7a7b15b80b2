package raster

import (
	"math"
	"math/rand/v2"
	"testing"
)

// blockWZ (SSE2 on amd64) gives blockWZGo's W and Z on 200000 random
// blocks of both parities: column and row terms of any size and sign,
// zeros (W infinite), NaNs and infinities, depths out of [0, 1].
func TestBlockWZMatchesGo(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	val := func() float64 {
		switch r.IntN(10) {
		case 0:
			return [...]float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1e300, -1e300, 1e-310}[r.IntN(8)]
		case 1:
			return r.NormFloat64() * 1e6
		}
		return r.Float64()*2 - 0.5
	}
	for n := 0; n < 200000; n++ {
		var qx, qy, zx, zy [4]float64
		for k := range 4 {
			qx[k], qy[k], zx[k], zy[k] = val(), val(), val(), val()
		}
		depth, par := val()*1e-3, n&1
		var w1, z1, w2, z2 [16]uint32
		blockWZ(&qx, &qy, &zx, &zy, depth, par, &w1, &z1)
		blockWZGo(&qx, &qy, &zx, &zy, depth, par, &w2, &z2)
		if w1 != w2 || z1 != z2 {
			t.Fatalf("qx %v qy %v zx %v zy %v depth %v parity %d: W %#x Z %#x, Go %#x %#x", qx, qy, zx, zy, depth, par, w1, z1, w2, z2)
		}
	}
}

// blockVP (SSE2 on amd64) gives blockVPGo's sums on 200000 random blocks
// of both parities, with zeros of both signs, infinities and NaNs.
func TestBlockVPMatchesGo(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	val := func() float32 {
		if r.IntN(8) == 0 {
			return [...]float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 3e38, -3e38, 1e-40}[r.IntN(8)]
		}
		return float32(r.NormFloat64() * 100)
	}
	for n := 0; n < 200000; n++ {
		var ax, by [4]float32
		for k := range 4 {
			ax[k], by[k] = val(), val()
		}
		var o1, o2 [16]uint32
		blockVP(&ax, &by, n&1, &o1)
		blockVPGo(&ax, &by, n&1, &o2)
		if o1 != o2 {
			t.Fatalf("ax %v by %v parity %d: %#x, Go %#x", ax, by, n&1, o1, o2)
		}
	}
}
