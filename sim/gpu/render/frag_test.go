package render

import (
	"testing"

	"github.com/vccube/vccube/sim/gpu/raster"
	"github.com/vccube/vccube/sim/gpu/tlb"
)

// quadMask, quadCount, nonZeroLanes and the fast paths'
// tlb.NonZeroLanes against their definitions, element by element,
// on every 16-bit mask.
func TestLaneMasks(t *testing.T) {
	for m := 0; m < 1<<16; m++ {
		var want uint8
		var quads uint64
		var v [16]uint32
		var nz uint16
		for i := 0; i < 16; i++ {
			if m&(1<<i) != 0 {
				if want&(1<<(i/4)) == 0 {
					quads++
				}
				want |= 1 << (i / 4)
				v[i] = uint32(1) << (i * 7 % 32) // any non-zero word
				nz |= 1 << i
			}
		}
		if got := quadMask(uint16(m)); got != want {
			t.Fatalf("quadMask(%#04x) = %#x, want %#x", m, got, want)
		}
		if got := quadCount(uint16(m)); got != quads {
			t.Fatalf("quadCount(%#04x) = %d, want %d", m, got, quads)
		}
		if got := nonZeroLanes(&v); got != nz {
			t.Fatalf("nonZeroLanes for mask %#04x = %#04x", m, got)
		}
		if got := tlb.NonZeroLanes(&v); got != nz {
			t.Fatalf("tlb.NonZeroLanes for mask %#04x = %#04x", m, got)
		}
	}
}

// laneIdx puts element i where BlockInputs says its pixel is, for blocks
// anywhere in a tile of either parity.
func TestLaneIdxMatchesBlockInputs(t *testing.T) {
	var p raster.Prim
	v := [3]raster.Vertex{{X: 0, Y: 0, InvW: 1}, {X: 4096 * 16, Y: 0, InvW: 1}, {X: 0, Y: 4096 * 16, InvW: 1}}
	if !p.SetupTriangle(&v[0], &v[1], &v[2], raster.Rect{X1: 4096, Y1: 4096}, false) {
		t.Fatal("no triangle")
	}
	for _, tile := range [][2]int{{0, 0}, {3, 5}} {
		tx0, ty0 := tile[0]*tlb.Size, tile[1]*tlb.Size
		for by := ty0; by < ty0+tlb.Size; by += 4 {
			for bx := tx0; bx < tx0+tlb.Size; bx += 4 {
				var w, z, x, y [16]uint32
				p.BlockInputs(bx, by, &w, &z, &x, &y)
				base := (by-ty0)*tlb.Size + bx - tx0
				for i := range 16 {
					want := (int(y[i])-ty0)*tlb.Size + int(x[i]) - tx0
					if got := base + int(laneIdx[raster.BlockParity(by)][i]); got != want {
						t.Fatalf("block (%d, %d) element %d: pixel %d, BlockInputs says %d", bx, by, i, got, want)
					}
				}
			}
		}
	}
}

// laneBlock is laneIdx as pairs: the fast paths' tlb.Block and the
// reference paths' pixel indices name the same pixels for every element.
func TestLaneBlockIsLaneIdx(t *testing.T) {
	for p := range laneIdx {
		if got := laneBlock[p].Idx(); got != laneIdx[p] {
			t.Errorf("parity %d: laneBlock gives pixels %v, laneIdx %v", p, got, laneIdx[p])
		}
	}
}
