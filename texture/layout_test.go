package texture

import (
	"math"
	"testing"
)

// The tables in this file are written from the drawings of three public
// write-ups — the post "vc4: T-format Textures" (2023-06-27), the
// JayStation post "Texturing" and VC4C's documentation page "Images"
// (doc/hardware.md#public-write-ups) — and from the reference guide, not
// from the code under test.

// TestUtileGeometry checks the utile shapes of [AG] §11 ("64bpp, 32bpp,
// 16bpp, 8bpp, 4bpp or 1bpp are organized as 2 × 4, 4 × 4, 8 × 4, 8 × 8,
// 16 × 8 or 32 × 16") and VC4C's "Images" micro-tile table.
func TestUtileGeometry(t *testing.T) {
	for _, c := range []struct{ bpp, w, h int }{
		{64, 2, 4}, {32, 4, 4}, {16, 8, 4}, {8, 8, 8}, {4, 16, 8}, {1, 32, 16},
	} {
		w, h, ok := UtileSize(c.bpp)
		if !ok || w != c.w || h != c.h {
			t.Errorf("UtileSize(%d) = %d×%d %v, want %d×%d", c.bpp, w, h, ok, c.w, c.h)
		}
		if w*h*c.bpp != 512 {
			t.Errorf("%d bpp: %d×%d utile is not 512 bits", c.bpp, w, h)
		}
		if c.bpp >= 8 {
			cpp := c.bpp / 8
			if UtileWidth(cpp) != c.w || UtileHeight(cpp) != c.h {
				t.Errorf("cpp %d: UtileWidth/Height = %d×%d, want %d×%d", cpp, UtileWidth(cpp), UtileHeight(cpp), c.w, c.h)
			}
		}
	}
	for _, bpp := range []int{0, 2, 3, 24, 128} {
		if _, _, ok := UtileSize(bpp); ok {
			t.Errorf("UtileSize(%d) ok, want not", bpp)
		}
	}
	// vc4_validate.c utile_width()/utile_height() return 1 for an unknown cpp.
	for _, cpp := range []int{0, 3, 5, 16} {
		if UtileWidth(cpp) != 1 || UtileHeight(cpp) != 1 {
			t.Errorf("cpp %d: got %d×%d, want the kernel's 1×1", cpp, UtileWidth(cpp), UtileHeight(cpp))
		}
	}
}

// TestPixelOrderInUtile: "in simple raster order" ([AG] §11); VC4C's
// "Images" page draws the 32-bit utile with 0 1 2 3 in the bottom (first)
// row and C D E F in the top row.
func TestPixelOrderInUtile(t *testing.T) {
	drawn := [4][4]int{ // [y][x], y = 0 is the bottom row of the drawing
		{0x0, 0x1, 0x2, 0x3},
		{0x4, 0x5, 0x6, 0x7},
		{0x8, 0x9, 0xA, 0xB},
		{0xC, 0xD, 0xE, 0xF},
	}
	for _, tiling := range []Tiling{TFormat, LTFormat} {
		l := mustLayout(t, tiling, 4, 64, 64)
		for y := 0; y < 4; y++ {
			for x := 0; x < 4; x++ {
				if got, want := l.Offset(x, y), 4*drawn[y][x]; got != want {
					t.Errorf("%v cpp 4: pixel (%d,%d) at %d, want %d", tiling, x, y, got, want)
				}
			}
		}
	}
	for _, c := range []struct{ cpp, w, h int }{{1, 8, 8}, {2, 8, 4}, {8, 2, 4}} {
		l := mustLayout(t, TFormat, c.cpp, 128, 128)
		for y := 0; y < c.h; y++ {
			for x := 0; x < c.w; x++ {
				if got, want := l.Offset(x, y), (y*c.w+x)*c.cpp; got != want {
					t.Errorf("cpp %d: pixel (%d,%d) at %d, want %d", c.cpp, x, y, got, want)
				}
			}
		}
	}
}

// tileOrderTPost is the memory order of the 4 KiB tiles of the 256×256
// 32-bpp image of the post "vc4: T-format Textures" ("t00 t01 ... t17 t16
// ..."), written as [row][col] → position. The post's own listing has a
// typo ("t06 t17": the row has eight tiles, t00 to t07).
var tileOrderTPost = [8][8]int{
	{0, 1, 2, 3, 4, 5, 6, 7},
	{15, 14, 13, 12, 11, 10, 9, 8},
	{16, 17, 18, 19, 20, 21, 22, 23},
	{31, 30, 29, 28, 27, 26, 25, 24},
	{32, 33, 34, 35, 36, 37, 38, 39},
	{47, 46, 45, 44, 43, 42, 41, 40},
	{48, 49, 50, 51, 52, 53, 54, 55},
	{63, 62, 61, 60, 59, 58, 57, 56},
}

// tileOrderVC4C is VC4C's "Images" drawing of a 5×5-tile image, top row
// drawn first ("k l m n o" ... "0 1 2 3 4"), converted to [row from the
// bottom][col] → position (digits, then a=10 ...).
var tileOrderVC4C = [5][5]int{
	{0, 1, 2, 3, 4},      // 0 1 2 3 4
	{9, 8, 7, 6, 5},      // 9 8 7 6 5
	{10, 11, 12, 13, 14}, // a b c d e
	{19, 18, 17, 16, 15}, // j i h g f
	{20, 21, 22, 23, 24}, // k l m n o
}

func TestTileOrder(t *testing.T) {
	check := func(name string, tilesX, tilesY int, order func(ty, tx int) int) {
		for _, cpp := range []int{1, 2, 4, 8} {
			tw, th := 8*UtileWidth(cpp), 8*UtileHeight(cpp)
			l := mustLayout(t, TFormat, cpp, tilesX*tw, tilesY*th)
			for ty := 0; ty < tilesY; ty++ {
				for tx := 0; tx < tilesX; tx++ {
					want := order(ty, tx)
					// Every pixel of the tile must fall in the tile's 4 KiB.
					for y := ty * th; y < (ty+1)*th; y++ {
						for x := tx * tw; x < (tx+1)*tw; x++ {
							if got := l.Offset(x, y) / TileBytes; got != want {
								t.Fatalf("%s cpp %d: pixel (%d,%d) of tile row %d col %d is in tile slot %d, want %d",
									name, cpp, x, y, ty, tx, got, want)
							}
						}
					}
				}
			}
		}
	}
	check("T-format post 8×8 tiles", 8, 8, func(ty, tx int) int { return tileOrderTPost[ty][tx] })
	check("VC4C Images 5×5 tiles", 5, 5, func(ty, tx int) int { return tileOrderVC4C[ty][tx] })
}

// subtileOrder is the sub-tile order of the post "vc4: T-format Textures",
// [tile row parity][position] →
// (sy, sx): "s00 s10 s11 s01" on even tile rows and "s11 s01 s00 s10" on
// odd ones, syx being the sub-tile at row y, column x, row 0 first in
// memory. The JayStation post says the same in words: even rows "lower
// left, upper left, upper right, lower right"; odd rows "upper right, lower
// right, lower left, upper left". (VC4C's "Images" odd-row drawing swaps
// the two left sub-tiles against its own text; we follow the text, the two
// posts and [AG] Figure 14.)
var subtileOrder = [2][4][2]int{
	{{0, 0}, {1, 0}, {1, 1}, {0, 1}},
	{{1, 1}, {0, 1}, {0, 0}, {1, 0}},
}

func TestSubtileOrder(t *testing.T) {
	for _, cpp := range []int{1, 2, 4, 8} {
		uw, uh := UtileWidth(cpp), UtileHeight(cpp)
		sw, sh := 4*uw, 4*uh                             // sub-tile in pixels
		l := mustLayout(t, TFormat, cpp, 3*2*sw, 2*2*sh) // 3×2 tiles
		for ty := 0; ty < 2; ty++ {
			for tx := 0; tx < 3; tx++ {
				base := -1
				for pos, s := range subtileOrder[ty&1] {
					sy, sx := s[0], s[1]
					x0, y0 := (2*tx+sx)*sw, (2*ty+sy)*sh
					off := l.Offset(x0, y0)
					if pos == 0 {
						base = off
						if base%TileBytes != 0 {
							t.Fatalf("cpp %d tile (%d,%d): first sub-tile at %d, not at a tile start", cpp, tx, ty, base)
						}
					}
					if off != base+pos*SubtileBytes {
						t.Errorf("cpp %d tile row %d col %d: sub-tile s%d%d at %d, want position %d (%d)",
							cpp, ty, tx, sy, sx, off, pos, base+pos*SubtileBytes)
					}
				}
			}
		}
	}
}

// TestUtileOrderInSubtile: "u00 u01 u02 u03 u10 ... u33" (the T-format post), utiles
// in raster order inside a sub-tile ([AG] Figure 15).
func TestUtileOrderInSubtile(t *testing.T) {
	for _, cpp := range []int{1, 2, 4, 8} {
		uw, uh := UtileWidth(cpp), UtileHeight(cpp)
		l := mustLayout(t, TFormat, cpp, 16*uw, 16*uh)
		// Check the four sub-tiles of the tile in row 1 (odd) column 0.
		for sy := 0; sy < 2; sy++ {
			for sx := 0; sx < 2; sx++ {
				x0, y0 := sx*4*uw, (8+sy*4)*uh
				base := l.Offset(x0, y0)
				for uy := 0; uy < 4; uy++ {
					for ux := 0; ux < 4; ux++ {
						got := l.Offset(x0+ux*uw, y0+uy*uh) - base
						if want := (4*uy + ux) * UtileBytes; got != want {
							t.Errorf("cpp %d: utile u%d%d at +%d, want +%d", cpp, uy, ux, got, want)
						}
					}
				}
			}
		}
	}
}

// TestLTFormat: utiles in raster order (the JayStation post, VC4C's
// "Images", [AG] §11), the image padded to whole utiles.
func TestLTFormat(t *testing.T) {
	for _, cpp := range []int{1, 2, 4, 8} {
		uw, uh := UtileWidth(cpp), UtileHeight(cpp)
		w, h := 3*uw+1, 2*uh+1 // 4×3 utiles after padding
		l := mustLayout(t, LTFormat, cpp, w, h)
		if l.AlignedWidth() != 4*uw || l.AlignedHeight() != 3*uh || l.Size() != 12*UtileBytes {
			t.Errorf("cpp %d: %v, want %d×%d in 12 utiles", cpp, l, 4*uw, 3*uh)
		}
		for uy := 0; uy < 3; uy++ {
			for ux := 0; ux < 4; ux++ {
				if got, want := l.Offset(ux*uw, uy*uh), (uy*4+ux)*UtileBytes; got != want {
					t.Errorf("cpp %d: utile (%d,%d) at %d, want %d", cpp, ux, uy, got, want)
				}
			}
		}
	}
}

// TestLinearLayout: rows one after another, the kernel's stride being the
// width rounded up to a utile (vc4_check_tex_size() LINEAR case).
func TestLinearLayout(t *testing.T) {
	l := mustLayout(t, Linear, 4, 10, 3) // utile width 4 → 12 pixels a row
	if l.Stride() != 48 || l.Size() != 144 {
		t.Errorf("%v: stride %d size %d, want 48 and 144", l, l.Stride(), l.Size())
	}
	if got := l.Offset(9, 2); got != 2*48+9*4 {
		t.Errorf("Offset(9,2) = %d, want %d", got, 2*48+36)
	}
	p, err := NewLinearLayout(4, 10, 3, 64) // HW-2898: power-of-two stride
	if err != nil {
		t.Fatal(err)
	}
	if p.Offset(9, 2) != 2*64+36 || p.Size() != 192 {
		t.Errorf("stride-64 layout: Offset(9,2) = %d, size %d", p.Offset(9, 2), p.Size())
	}
	if _, err := NewLinearLayout(4, 10, 3, 39); err == nil {
		t.Error("NewLinearLayout accepted a stride shorter than a row")
	}
	// 3 rows of MaxInt/2 bytes wrap an int: refused, not a negative Size.
	if l, err := NewLinearLayout(4, 10, 3, math.MaxInt/2); err == nil {
		t.Errorf("NewLinearLayout accepted 3 rows of stride MaxInt/2: size %d", l.Size())
	}
}

func TestOffsetOutside(t *testing.T) {
	l := mustLayout(t, TFormat, 4, 40, 40) // padded to 64×64
	for _, p := range [][2]int{{-1, 0}, {0, -1}, {64, 0}, {0, 64}} {
		if got := l.Offset(p[0], p[1]); got != -1 {
			t.Errorf("Offset(%d,%d) = %d, want -1", p[0], p[1], got)
		}
	}
	if l.Offset(63, 63) < 0 || l.Offset(63, 63) >= l.Size() {
		t.Errorf("padding pixel (63,63) at %d, want inside [0,%d)", l.Offset(63, 63), l.Size())
	}
}

// helpers

func mustLayout(t testing.TB, tiling Tiling, cpp, w, h int) Layout {
	t.Helper()
	l, err := NewLayout(tiling, cpp, w, h)
	if err != nil {
		t.Fatal(err)
	}
	return l
}
