package raster

import (
	"math"
	"math/rand/v2"
	"testing"
)

// blockWZ (SSE2 and AVX2 on amd64) gives blockWZGo's W and Z on
// 200000 random blocks of both parities: column and row terms of any
// size and sign, zeros (W infinite), NaNs with payloads and infinities,
// depths out of [0, 1], and a quarter of the blocks with sums at W's and
// Z's edges (edge).
func TestBlockWZMatchesGo(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	val := func() float64 {
		switch r.IntN(10) {
		case 0:
			return [...]float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1e300, -1e300, 1e-310}[r.IntN(8)]
		case 1:
			return r.NormFloat64() * 1e6
		case 2:
			if r.IntN(4) == 0 {
				// A NaN of either sign with its own payload: of two
				// NaNs, the sum is the first's.
				return math.Float64frombits(0x7FF8000000000000 | r.Uint64()&0x8007FFFFFFFFFFFF)
			}
		}
		return r.Float64()*2 - 0.5
	}
	// edge makes the row's terms meet the column's at the edges of W and
	// Z: q sums of ±0, of a few ulps, denormal, at float32's overflow of
	// 1/q (2⁻¹²⁸) and its underflow (2¹⁵⁰), or with 1/q within an ulp of
	// a float32 rounding midpoint; Z sums at 0, at Z24/2²⁴ and 1, an ulp
	// either side.
	edge := func(zx, depth float64) (qx, qy, zy float64) {
		var q float64
		switch r.IntN(7) {
		case 0:
			q = 0
		case 1:
			q = math.Float64frombits(uint64(r.IntN(4))) // 0 to 3 denormal ulps
		case 2:
			q = math.Ldexp(1+float64(r.IntN(3)-1)*0x1p-52, -128)
		case 3:
			q = math.Ldexp(1+float64(r.IntN(3)-1)*0x1p-52, 150)
		case 4:
			// 1/q = a float32 midpoint, give or take an ulp.
			m := float64(math.Float32frombits(r.Uint32()&0x7F7FFFFF)) * (1 + 0x1p-24)
			q = 1 / m
		default:
			q = r.NormFloat64() * 1e-300
		}
		if r.IntN(2) == 0 {
			q = -q
		}
		// Split q between the terms exactly (halves of a denormal
		// aside): qx + qy = q.
		qx = q * [...]float64{0, 0.5, 2, -1}[r.IntN(4)]
		qy = q - qx
		// A few ulps of 1 either side of the edge: the sum lands on
		// both sides of it, rounded as it may be.
		zs := [...]float64{0, float64(Z24) / ZScale, 1, math.Copysign(0, -1)}[r.IntN(4)]
		zy = zs + float64(r.IntN(5)-2)*0x1p-50 - zx - depth
		return qx, qy, zy
	}
	vs := blockVersions()
	for n := 0; n < 200000; n++ {
		var qx, qy, zx, zy [4]float64
		for k := range 4 {
			qx[k], qy[k], zx[k], zy[k] = val(), val(), val(), val()
		}
		depth, par := val()*1e-3, n&1
		if n%4 == 0 {
			// Only the sums of row k and column k meet the edges.
			for k := range 4 {
				qx[k], qy[k], zy[k] = edge(zx[k], depth)
			}
		}
		var w2, z2 [16]uint32
		blockWZGo(&qx, &qy, &zx, &zy, depth, par, &w2, &z2)
		for _, v := range vs {
			var w1, z1 [16]uint32
			v.wz(&qx, &qy, &zx, &zy, depth, par, &w1, &z1)
			if w1 != w2 || z1 != z2 {
				t.Fatalf("%s: qx %v qy %v zx %v zy %v depth %v parity %d: W %#x Z %#x, Go %#x %#x", v.name, qx, qy, zx, zy, depth, par, w1, z1, w2, z2)
			}
		}
	}
	t.Logf("versions compared with the Go loops: %v", versionNames(vs))
}

// blockVP (SSE2 and AVX2 on amd64) gives blockVPGo's sums on 200000 random blocks
// of both parities, with zeros of both signs, infinities and NaNs.
func TestBlockVPMatchesGo(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	val := func() float32 {
		if r.IntN(8) == 0 {
			return [...]float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 3e38, -3e38, 1e-40}[r.IntN(8)]
		}
		return float32(r.NormFloat64() * 100)
	}
	vs := blockVersions()
	for n := 0; n < 200000; n++ {
		var ax, by [4]float32
		for k := range 4 {
			ax[k], by[k] = val(), val()
		}
		var o2 [16]uint32
		blockVPGo(&ax, &by, n&1, &o2)
		for _, v := range vs {
			var o1 [16]uint32
			v.vp(&ax, &by, n&1, &o1)
			if o1 != o2 {
				t.Fatalf("%s: ax %v by %v parity %d: %#x, Go %#x", v.name, ax, by, n&1, o1, o2)
			}
		}
	}
	t.Logf("versions compared with the Go loops: %v", versionNames(vs))
}

// blockVersion is one version of blockWZ and blockVP (blockVersions).
type blockVersion struct {
	name string
	wz   func(qx, qy, zx, zy *[4]float64, depth float64, par int, w, z *[16]uint32)
	vp   func(ax, by *[4]float32, par int, out *[16]uint32)
}

func versionNames(vs []blockVersion) []string {
	var n []string
	for _, v := range vs {
		n = append(n, v.name)
	}
	return n
}

// BlockVPCLanes of a row's RowLanes gives BlockVPOf's VP of its Row, and
// fills C with the bits given, on blocks of both parities, in every
// build (on amd64 through the assembly, elsewhere through the Go loop);
// RowLanes is the same in both parities' element order.
func TestBlockVPCLanesIsBlockVPOf(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	for p := range LaneY {
		if LaneY[p] != LaneY[0] {
			t.Fatalf("LaneY differs between the parities: RowLanes needs one order a parity")
		}
	}
	for n := 0; n < 2000; n++ {
		v := Varying{a: float32(r.NormFloat64() * 10), b: float32(r.NormFloat64() * 10),
			x0: float32(r.NormFloat64() * 100), y0: float32(r.NormFloat64() * 100)}
		bx, by := 4*r.IntN(64), 4*r.IntN(64)
		var col, row [4]float32
		var lanes [16]float32
		v.Col(bx, &col)
		v.Row(by, &row)
		v.RowLanes(by, &lanes)
		cbits := r.Uint32()
		var vp, want, c [16]uint32
		BlockVPOf(&col, &row, by, &want)
		BlockVPCLanes(&col, &lanes, BlockParity(by), &vp, cbits, &c)
		for i := range c {
			if c[i] != cbits {
				t.Fatalf("C %#x: element %d is %#x (%#x)", cbits, i, c[i], c)
			}
		}
		if vp != want {
			t.Fatalf("col %v row %v top row %d: VP %#x, BlockVPOf %#x", col, row, by, vp, want)
		}
		var direct [16]uint32
		v.BlockVP(bx, by, &direct)
		if vp != direct {
			t.Fatalf("block (%d,%d): VP %#x, BlockVP %#x", bx, by, vp, direct)
		}
	}
}
