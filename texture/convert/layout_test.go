package convert

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vccube/vccube/texture"
)

// TestTFormatPostBlock reproduces the worked example of the post "vc4:
// T-format Textures" (doc/hardware.md#public-write-ups): a 4×4 block at
// columns 12–15 of a 64×64 32-bpp texture, rows 16–19 as the GPU counts
// them (bottom-up), which the reference guide linearizes as
// "p w g i l n f b k o r q a z m t".
func TestTFormatPostBlock(t *testing.T) {
	block := [4]string{"pwgi", "lnfb", "korq", "azmt"} // GPU rows 16, 17, 18, 19
	l := mustLayout(t, texture.TFormat, 4, 64, 64)
	readBlock := func(tiled []byte, y0 int) string {
		var s []byte
		for y := y0; y < y0+4; y++ {
			for x := 12; x < 16; x++ {
				s = append(s, tiled[l.Offset(x, y)])
			}
		}
		return string(s)
	}
	// The block's first utile row sits at memory row 16, so the 16 pixels
	// must also be consecutive in memory, in that order.
	consecutive := func(tiled []byte, y0 int) string {
		off := l.Offset(12, y0)
		var s []byte
		for i := 0; i < 16; i++ {
			s = append(s, tiled[off+4*i])
		}
		return string(s)
	}

	// A buffer consistent with the GPU's view: picture row = GPU row.
	bottomUp := letterPicture(64, 64, func(x, y int) byte {
		if x >= 12 && x < 16 && y >= 16 && y < 20 {
			return block[y-16][x-12]
		}
		return '.'
	})
	// The same picture stored top-down, as a PPM stores it: GPU row y is
	// buffer row 63-y, so the block sits at buffer rows 44–47.
	topDown := letterPicture(64, 64, func(x, y int) byte {
		if x >= 12 && x < 16 && y >= 44 && y < 48 {
			return block[63-y-16][x-12]
		}
		return '.'
	})

	tiled := make([]byte, l.Size())
	mustFromLinear(t, l, tiled, bottomUp, false)
	if got := consecutive(tiled, 16); got != "pwgilnfbkorqazmt" {
		t.Errorf("GPU-order buffer: block linearized as %q, want %q", got, "pwgilnfbkorqazmt")
	}
	// The post: converting the top-down buffer as it is gives the
	// "inconsistent linearization" at the block's buffer rows 44–47.
	mustFromLinear(t, l, tiled, topDown, false)
	if got := consecutive(tiled, 44); got != "azmtkorqlnfbpwgi" {
		t.Errorf("top-down buffer as it is: block linearized as %q, want %q", got, "azmtkorqlnfbpwgi")
	}
	// Alternative 1: flip while converting; the result is the GPU-order one.
	mustFromLinear(t, l, tiled, topDown, true)
	if got := readBlock(tiled, 16); got != "pwgilnfbkorqazmt" {
		t.Errorf("top-down buffer flipped: block reads %q, want %q", got, "pwgilnfbkorqazmt")
	}
	if got := consecutive(tiled, 16); got != "pwgilnfbkorqazmt" {
		t.Errorf("top-down buffer flipped: block linearized as %q, want %q", got, "pwgilnfbkorqazmt")
	}
}

// TestTFormatRederived checks the fast converter and Offset against a
// second, independent construction of the T format: walk memory in order
// exactly as the write-ups describe the hierarchy (rows of tiles,
// alternating direction; sub-tiles in the T-format post's order; utiles and
// pixels in raster order) and note which pixel each address holds. No
// formula of layout.go is used.
func TestTFormatRederived(t *testing.T) {
	for _, cpp := range []int{1, 2, 4, 8} {
		for _, size := range [][2]int{{3, 2}, {1, 1}, {5, 3}, {2, 5}} {
			uw, uh := texture.UtileWidth(cpp), texture.UtileHeight(cpp)
			tilesX, tilesY := size[0], size[1]
			width, height := tilesX*8*uw, tilesY*8*uh
			l := mustLayout(t, texture.TFormat, cpp, width, height)
			pic := randomPicture(width, height, cpp, uint64(cpp*100+tilesX*10+tilesY))

			want := make([]byte, 0, width*height*cpp)
			addrOf := make(map[[2]int]int)
			for slot := 0; slot < tilesX*tilesY; slot++ {
				ty := slot / tilesX
				tx := slot % tilesX
				if ty%2 == 1 { // odd rows run right to left
					tx = tilesX - 1 - tx
				}
				for _, s := range subtileOrder[ty%2] {
					for u := 0; u < 16; u++ {
						for p := 0; p < uw*uh; p++ {
							x := ((2*tx+s[1])*4+u%4)*uw + p%uw
							y := ((2*ty+s[0])*4+u/4)*uh + p/uw
							addrOf[[2]int{x, y}] = len(want)
							want = append(want, pic.Pix[y*pic.Stride+x*cpp:][:cpp]...)
						}
					}
				}
			}
			got := make([]byte, l.Size())
			mustFromLinear(t, l, got, pic, false)
			if !bytes.Equal(got, want) {
				t.Errorf("cpp %d %d×%d tiles: FromLinear differs from the write-ups' hierarchy", cpp, tilesX, tilesY)
			}
			for y := 0; y < height; y++ {
				for x := 0; x < width; x++ {
					if g, w := l.Offset(x, y), addrOf[[2]int{x, y}]; g != w {
						t.Fatalf("cpp %d %d×%d tiles: Offset(%d,%d) = %d, the write-ups' hierarchy says %d", cpp, tilesX, tilesY, x, y, g, w)
					}
				}
			}
		}
	}
}

// TestRoundTrips: linear → layout → linear is the identity for every
// layout, cpp, row order and the odd sizes of the issue, the padding is
// zero, and Offset addresses every pixel exactly once.
func TestRoundTrips(t *testing.T) {
	sizes := [][2]int{{1, 1}, {3, 70}, {65, 33}, {2048, 1}, {1, 2048}, {17, 17}, {64, 64}, {100, 37}}
	for _, tiling := range []texture.Tiling{texture.Linear, texture.TFormat, texture.LTFormat} {
		for _, cpp := range []int{1, 2, 4, 8} {
			for _, s := range sizes {
				for _, flip := range []bool{false, true} {
					name := fmt.Sprintf("%v/cpp%d/%dx%d/flip=%v", tiling, cpp, s[0], s[1], flip)
					checkRoundTrip(t, name, tiling, cpp, s[0], s[1], flip)
				}
			}
		}
	}
}

func checkRoundTrip(t *testing.T, name string, tiling texture.Tiling, cpp, w, h int, flip bool) {
	t.Helper()
	l, err := texture.NewLayout(tiling, cpp, w, h)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	pic := randomPicture(w, h, cpp, uint64(w*7919+h*31+cpp))
	mem := bytes.Repeat([]byte{0xEE}, l.Size()+7) // poison, plus bytes past the end
	if err := FromLinear(l, mem, pic, flip); err != nil {
		t.Fatalf("%s: FromLinear: %v", name, err)
	}
	if !bytes.Equal(mem[l.Size():], bytes.Repeat([]byte{0xEE}, 7)) {
		t.Errorf("%s: FromLinear wrote past Size()", name)
	}
	back, _ := texture.NewPicture(w, h, cpp)
	if err := ToLinear(l, back, mem, flip); err != nil {
		t.Fatalf("%s: ToLinear: %v", name, err)
	}
	if !samePixels(back, pic) {
		t.Errorf("%s: round trip changed the picture", name)
	}
	// Every picture pixel at its own address, holding the right bytes;
	// everything else zero.
	used := make([]bool, l.Size())
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			off := l.Offset(x, y)
			if off < 0 || off+cpp > l.Size() {
				t.Fatalf("%s: Offset(%d,%d) = %d outside [0,%d)", name, x, y, off, l.Size())
			}
			py := y
			if flip {
				py = h - 1 - y
			}
			if !bytes.Equal(mem[off:off+cpp], pic.Pix[py*pic.Stride+x*cpp:][:cpp]) {
				t.Fatalf("%s: memory at Offset(%d,%d) does not hold picture pixel (%d,%d)", name, x, y, x, py)
			}
			for i := off; i < off+cpp; i++ {
				if used[i] {
					t.Fatalf("%s: byte %d addressed twice", name, i)
				}
				used[i] = true
			}
		}
	}
	for i, u := range used {
		if !u && mem[i] != 0 {
			t.Fatalf("%s: padding byte %d is %#x, want 0", name, i, mem[i])
		}
	}
}

func TestConverterErrors(t *testing.T) {
	l := mustLayout(t, texture.TFormat, 4, 64, 64)
	good, _ := texture.NewPicture(64, 64, 4)
	small, _ := texture.NewPicture(32, 64, 4)
	wrongCpp, _ := texture.NewPicture(64, 64, 2)
	cases := []struct {
		name string
		err  error
	}{
		{"short destination", FromLinear(l, make([]byte, l.Size()-1), good, false)},
		{"wrong size", FromLinear(l, make([]byte, l.Size()), small, false)},
		{"wrong cpp", FromLinear(l, make([]byte, l.Size()), wrongCpp, false)},
		{"short source", ToLinear(l, good, make([]byte, 10), false)},
		{"truncated picture", FromLinear(l, make([]byte, l.Size()), texture.Picture{Pix: good.Pix[:100], Width: 64, Height: 64, Stride: 256, Cpp: 4}, false)},
		{"bad stride", ToLinear(l, texture.Picture{Pix: good.Pix, Width: 64, Height: 64, Stride: 100, Cpp: 4}, make([]byte, l.Size()), false)},
	}
	for _, c := range cases {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	for _, bad := range []struct {
		tiling    texture.Tiling
		cpp, w, h int
	}{
		{texture.TFormat, 3, 8, 8}, {texture.TFormat, 0, 8, 8}, {texture.TFormat, 4, 0, 8}, {texture.LTFormat, 4, 8, 4097}, {texture.Tiling(3), 4, 8, 8},
	} {
		if _, err := texture.NewLayout(bad.tiling, bad.cpp, bad.w, bad.h); err == nil {
			t.Errorf("NewLayout(%v, %d, %d, %d) accepted", bad.tiling, bad.cpp, bad.w, bad.h)
		}
	}
}

func TestConvertersDoNotAllocate(t *testing.T) {
	for _, tiling := range []texture.Tiling{texture.Linear, texture.TFormat, texture.LTFormat} {
		l := mustLayout(t, tiling, 4, 100, 70)
		pic := randomPicture(100, 70, 4, 1)
		mem := make([]byte, l.Size())
		n := testing.AllocsPerRun(10, func() {
			_ = FromLinear(l, mem, pic, true)
			_ = ToLinear(l, pic, mem, true)
			_ = l.Offset(5, 5)
		})
		if n != 0 {
			t.Errorf("%v: %v allocations per conversion, want 0", tiling, n)
		}
	}
}

func mustFromLinear(t testing.TB, l texture.Layout, dst []byte, p texture.Picture, flip bool) {
	t.Helper()
	if err := FromLinear(l, dst, p, flip); err != nil {
		t.Fatal(err)
	}
}

// samePixels compares the pixels of two pictures of the same size,
// whatever their strides.
func samePixels(a, b texture.Picture) bool {
	if a.Width != b.Width || a.Height != b.Height || a.Cpp != b.Cpp {
		return false
	}
	row := a.Width * a.Cpp
	for y := 0; y < a.Height; y++ {
		if !bytes.Equal(a.Pix[y*a.Stride:][:row], b.Pix[y*b.Stride:][:row]) {
			return false
		}
	}
	return true
}

// letterPicture makes a 32-bpp picture whose pixel (x, y) (y = buffer row)
// has f(x, y) in its first byte.
func letterPicture(w, h int, f func(x, y int) byte) texture.Picture {
	p, _ := texture.NewPicture(w, h, 4)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			p.Pix[y*p.Stride+x*4] = f(x, y)
		}
	}
	return p
}

// randomPicture makes a picture of random bytes with a stride larger than
// the row, to catch code that assumes tight packing.
func randomPicture(w, h, cpp int, seed uint64) texture.Picture {
	r := rand.New(rand.NewPCG(seed, 7))
	stride := w*cpp + 3
	p := texture.Picture{Pix: make([]byte, stride*h), Width: w, Height: h, Stride: stride, Cpp: cpp}
	for i := range p.Pix {
		p.Pix[i] = byte(r.Uint32())
	}
	return p
}

func mustLayout(t testing.TB, tiling texture.Tiling, cpp, w, h int) texture.Layout {
	t.Helper()
	l, err := texture.NewLayout(tiling, cpp, w, h)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// The conversions check the picture first (texture.Picture.Check): an
// error, not a panic, for a picture whose rows overflow an int.
func TestConvertersCheckThePicture(t *testing.T) {
	l := mustLayout(t, texture.Linear, 1, 1, 3)
	bad := texture.Picture{Pix: make([]byte, 16), Width: 1, Height: 3, Stride: math.MaxInt/2 + 1, Cpp: 1}
	if err := FromLinear(l, make([]byte, l.Size()), bad, false); err == nil {
		t.Error("FromLinear accepted a picture whose rows overflow")
	}
}

// subtileOrder is the sub-tile order of the post "vc4: T-format Textures",
// [tile row parity][position] →
// (sy, sx): "s00 s10 s11 s01" on even tile rows and "s11 s01 s00 s10" on
// odd ones, syx being the sub-tile at row y, column x, row 0 first in
// memory. The JayStation post "Texturing" says the same in words: even
// rows "lower left, upper left, upper right, lower right"; odd rows "upper
// right, lower right, lower left, upper left". (VC4C's "Images" odd-row
// drawing swaps the two left sub-tiles against its own text; we follow the
// text, the two posts and [AG] Figure 14.)
var subtileOrder = [2][4][2]int{
	{{0, 0}, {1, 0}, {1, 1}, {0, 1}},
	{{1, 1}, {0, 1}, {0, 0}, {1, 0}},
}
