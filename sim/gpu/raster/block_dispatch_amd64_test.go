//go:build !purego

package raster

import (
	"math/rand/v2"
	"testing"

	"golang.org/x/sys/cpu"
)

// blockVP (blockVPPar, which picks the parity's tables and the version
// itself) gives blockVPGo's values with each version it can choose:
// SSE2, and AVX2 when the CPU has it; so does blockVPCLanes, from the
// row's terms in element order (RowLanes' order), which also fills C.
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
			// blockVPCLanes gives the same VP and fills C.
			var lanes [16]float32
			for i := range lanes {
				lanes[i] = by[LaneY[par][i]&3]
			}
			cbits := r.Uint32()
			var gotC, wantC [16]uint32
			got = [16]uint32{}
			for i := range wantC {
				wantC[i] = cbits
			}
			blockVPCLanes(&ax, &lanes, par, &got, cbits, &gotC)
			if got != want || gotC != wantC {
				t.Fatalf("AVX2 %v: ax %v by %v parity %d C %#x: blockVPCLanes %#x and C %#x, want %#x and %#x", avx2, ax, by, par, cbits, got, gotC, want, wantC)
			}
		}
	}
}

// blockWZOf (blockWZPar, which reads the terms whole, picks the
// parity's tables and the version itself) gives blockWZGo's W and Z
// with each version it can choose, on both parities.
func TestBlockWZDispatch(t *testing.T) {
	defer func(h bool) { hasAVX2 = h }(hasAVX2)
	r := rand.New(rand.NewPCG(29, 30))
	for _, avx2 := range []bool{false, true} {
		if avx2 && !cpu.X86.HasAVX2 {
			t.Log("no AVX2: its version is not tested")
			continue
		}
		hasAVX2 = avx2
		for n := 0; n < 20000; n++ {
			var c ColTerms
			row := RowTerms{par: n & 1}
			for k := range 4 {
				c.q[k], row.q[k] = 0.5+r.Float64(), 0.5+r.Float64()
				c.z[k], row.z[k] = r.Float64()/2, r.Float64()/2
			}
			depth := r.Float64() / 8
			var gw, gz, ww, wz [16]uint32
			blockWZOf(&c, &row, depth, &gw, &gz)
			blockWZGo(&c.q, &row.q, &c.z, &row.z, depth, row.par, &ww, &wz)
			if gw != ww || gz != wz {
				t.Fatalf("AVX2 %v: terms %+v %+v depth %v: W %#x Z %#x, Go W %#x Z %#x", avx2, c, row, depth, gw, gz, ww, wz)
			}
		}
	}
}

// BenchmarkBlockWZVersions is Prim.BlockWZ over the blocks of a
// 64×64-pixel tile, with each version blockWZPar can choose.
func BenchmarkBlockWZVersions(b *testing.B) {
	defer func(h bool) { hasAVX2 = h }(hasAVX2)
	v := [3]Vertex{{X: -8 * 16, Y: -8 * 16, Z: 0.25, InvW: 0.5}, {X: 200 * 16, Y: 0, Z: 0.5, InvW: 0.4}, {X: 0, Y: 200 * 16, Z: 0.75, InvW: 0.3}}
	var p Prim
	if !p.SetupTriangle(&v[0], &v[1], &v[2], Rect{X1: 64, Y1: 64}, false) {
		b.Fatal("no triangle")
	}
	var cols [16]ColTerms
	var rows [16]RowTerms
	for k := range cols {
		p.Col(4*k, &cols[k])
		p.Row(4*k, &rows[k])
	}
	for _, ver := range []struct {
		name      string
		avx2, has bool
	}{{"SSE2", false, true}, {"AVX2", true, cpu.X86.HasAVX2}} {
		if !ver.has {
			continue
		}
		b.Run(ver.name, func(b *testing.B) {
			hasAVX2 = ver.avx2
			var w, z [16]uint32
			var sink uint32
			for i := 0; i < b.N; i++ {
				n := i & 255
				p.BlockWZ(&cols[n&15], &rows[n>>4], &w, &z)
				sink += z[0] ^ w[15]
			}
			if sink == 0xABCD {
				b.Log(sink)
			}
		})
	}
}
