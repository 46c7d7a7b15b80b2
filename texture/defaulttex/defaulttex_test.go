package defaulttex

import (
	"image"
	"image/png"
	"os"
	"testing"

	"github.com/vccube/vccube/texture"
)

const goldenPNG = "../testdata/default-texture.png"

// TestMatchesCommittedPNG checks that the code still draws the PNG the
// reference renderer reads. The PNG was written once by
// internal/cmd/writepng; if this fails, decide whether the picture was
// meant to change before rewriting the file (see ../testdata/README.md).
func TestMatchesCommittedPNG(t *testing.T) {
	f, err := os.Open(goldenPNG)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", goldenPNG, err)
	}
	if img.Bounds() != image.Rect(0, 0, Size, Size) {
		t.Fatalf("%s is %v, want %d×%d", goldenPNG, img.Bounds(), Size, Size)
	}
	want := Image()
	bad := 0
	for y := 0; y < Size; y++ {
		for x := 0; x < Size; x++ {
			r, g, b, a := img.At(x, y).RGBA()
			got := [4]uint8{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}
			i := y*want.Stride + x*4
			exp := [4]uint8{want.Pix[i], want.Pix[i+1], want.Pix[i+2], want.Pix[i+3]}
			if got != exp {
				if bad < 5 {
					t.Errorf("pixel (%d,%d): PNG has %v, code draws %v", x, y, got, exp)
				}
				bad++
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d pixels differ between %s and the code", bad, goldenPNG)
	}
}

// TestSamples checks single pixels against the design written in the
// package comment (worked out by hand, not read from the code).
func TestSamples(t *testing.T) {
	cases := []struct {
		x, y    int
		r, g, b uint8
		what    string
	}{
		{1, 1, 255, 0, 0, "top-left quadrant is red"},
		{0, 0, 127, 0, 0, "row and column 0 are grid lines: half red"},
		{200, 50, 0, 255, 0, "top-right quadrant is green"},
		{224, 100, 0, 127, 0, "column 224 is a grid line: half green"},
		{50, 200, 0, 0, 255, "bottom-left quadrant is blue"},
		{200, 200, 255, 255, 255, "bottom-right quadrant is white"},
		{200, 160, 127, 127, 127, "row 160 is a grid line: half white"},
		{20, 20, 255, 255, 0, "yellow corner mark"},
		{32, 32, 255, 255, 0, "the corner mark is not cut by the grid"},
		{100, 100, 0, 0, 0, "F stem"},
		{180, 50, 0, 0, 0, "F top bar reaches x=191"},
		{194, 50, 0, 255, 0, "right of the top bar"},
		{160, 120, 0, 0, 0, "F middle bar reaches x=167"},
		{170, 120, 0, 255, 0, "right of the middle bar"},
		{100, 215, 0, 0, 0, "bottom of the stem"},
		{100, 216, 0, 0, 255, "below the stem"},
		{10, 250, 255, 255, 255, "checker: x+y even is white"},
		{11, 250, 0, 0, 0, "checker: x+y odd is black"},
		{0, 255, 0, 0, 0, "checker reaches the bottom-left pixel (0+255 odd)"},
		{16, 250, 0, 0, 255, "right of the checker"},
	}
	rgba := Picture(texture.OrderRGBA)
	bgra := Picture(texture.OrderBGRA)
	for _, c := range cases {
		i := c.y*rgba.Stride + c.x*4
		got := [4]uint8(rgba.Pix[i : i+4])
		if want := [4]uint8{c.r, c.g, c.b, 255}; got != want {
			t.Errorf("%s: RGBA pixel (%d,%d) = %v, want %v", c.what, c.x, c.y, got, want)
		}
		got = [4]uint8(bgra.Pix[i : i+4])
		if want := [4]uint8{c.b, c.g, c.r, 255}; got != want {
			t.Errorf("%s: BGRA pixel (%d,%d) = %v, want %v", c.what, c.x, c.y, got, want)
		}
	}
}

// TestShowsEveryMistake checks the purpose of the picture: each of the seven
// non-identity rotations and mirrors of the square, and each of the five
// non-identity permutations of R, G and B, changes a large part of it.
func TestShowsEveryMistake(t *testing.T) {
	p := Picture(texture.OrderRGBA)
	at := func(x, y int) [3]uint8 {
		i := y*p.Stride + x*4
		return [3]uint8{p.Pix[i], p.Pix[i+1], p.Pix[i+2]}
	}
	const n = Size - 1
	geometric := map[string]func(x, y int) (int, int){
		"mirror left-right": func(x, y int) (int, int) { return n - x, y },
		"flip top-bottom":   func(x, y int) (int, int) { return x, n - y },
		"rotate 180":        func(x, y int) (int, int) { return n - x, n - y },
		"rotate 90":         func(x, y int) (int, int) { return y, n - x },
		"rotate 270":        func(x, y int) (int, int) { return n - y, x },
		"transpose":         func(x, y int) (int, int) { return y, x },
		"anti-transpose":    func(x, y int) (int, int) { return n - y, n - x },
	}
	for name, f := range geometric {
		diff := 0
		for y := 0; y < Size; y++ {
			for x := 0; x < Size; x++ {
				sx, sy := f(x, y)
				if at(sx, sy) != at(x, y) {
					diff++
				}
			}
		}
		if diff < Size*Size/4 {
			t.Errorf("%s changes only %d of %d pixels", name, diff, Size*Size)
		}
	}
	perms := [][3]int{{0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}
	for _, perm := range perms {
		diff := 0
		for y := 0; y < Size; y++ {
			for x := 0; x < Size; x++ {
				c := at(x, y)
				if [3]uint8{c[perm[0]], c[perm[1]], c[perm[2]]} != c {
					diff++
				}
			}
		}
		if diff < Size*Size/4 {
			t.Errorf("channel permutation %v changes only %d of %d pixels", perm, diff, Size*Size)
		}
	}
}
