package raster

import "testing"

// BenchmarkBlock is one 4×4 block's rasterisation work as the fragment
// path does it for the cube: the coverage mask, W, Z and the pixel
// coordinates, and two varyings' values, over the blocks of a tile-sized
// triangle's bounding box (a third of them partly covered).
func BenchmarkBlock(b *testing.B) {
	v := [3]Vertex{{X: 3 * 16, Y: 5 * 16, Z: 0.25, InvW: 0.5}, {X: 61 * 16, Y: 9 * 16, Z: 0.5, InvW: 0.4}, {X: 20 * 16, Y: 60 * 16, Z: 0.75, InvW: 0.3}}
	var p Prim
	if !p.SetupTriangle(&v[0], &v[1], &v[2], Rect{X1: 64, Y1: 64}, false) {
		b.Fatal("no triangle")
	}
	s := p.SetupVarying([3]float32{0.1, 0.9, 0.5}, false)
	t := p.SetupVarying([3]float32{0.2, 0.3, 0.8}, false)
	var w, z, x, y, vs, vt [16]uint32
	b.ReportAllocs()
	n := 0
	for i := 0; i < b.N; i++ {
		bx, by := 4*(n%16), 4*(n/16%16)
		n++
		if p.BlockMask(bx, by) == 0 {
			continue
		}
		p.BlockInputs(bx, by, &w, &z, &x, &y)
		s.BlockVP(bx, by, &vs)
		t.BlockVP(bx, by, &vt)
	}
}
