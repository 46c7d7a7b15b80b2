package raster

import "testing"

// A rectangle whose left edge lies between the centre of pixel 31 and
// its rightmost sample (x = 31 + 13/16: the centre is at 8/16, sample 2 at
// 14/16): without oversampling the 32-pixel tile of columns 0–31 holds no
// covered pixel and the binner may skip it; with oversampling pixel 31
// has sample 2 covered, the bounds take it in, and TouchesRect sends the
// primitive to that tile.
func TestOversampledCoverageReachesPastPixelCentres(t *testing.T) {
	x := int32(31*16 + 13)
	v := [4]Vertex{{X: x, Y: 0}, {X: 64 * 16, Y: 0}, {X: x, Y: 32 * 16}, {X: 64 * 16, Y: 32 * 16}}
	for _, c := range []struct {
		over    bool
		touches bool
		cov     uint8 // pixel 31's samples
	}{{false, false, 0}, {true, true, 1 << 2}} {
		var p Prim
		p.Oversample = c.over
		if !p.SetupTriangle(&v[0], &v[1], &v[2], Rect{X1: 64, Y1: 32}, false) {
			t.Fatal("no triangle")
		}
		tile := Rect{X1: 32, Y1: 32}
		if got := p.TouchesRect(tile); got != c.touches {
			t.Errorf("oversample %v: TouchesRect(tile 0) = %v, want %v", c.over, got, c.touches)
		}
		if b := p.Bounds(); (b.X0 <= 31) != c.touches {
			t.Errorf("oversample %v: bounds %+v", c.over, b)
		}
		var cov [16]uint8
		p.BlockSamples(28, 0, &cov)
		for i := range 16 {
			if LaneX[0][i] == 3 && cov[i] != c.cov { // column 31 of the block at x = 28
				t.Errorf("oversample %v: pixel (31, %d) has samples %04b, want %04b", c.over, LaneY[0][i], cov[i], c.cov)
			}
		}
	}
}
