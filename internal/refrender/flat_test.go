package refrender

import (
	"image"
	"testing"
)

func flatOpts(w, h int) FlatOptions {
	return FlatOptions{Width: w, Height: h, CentreX: float64(w) / 2, CentreY: float64(h) / 2,
		HalfWidth: float64(w) / 2, HalfHeight: float64(h) / 2, SubpixelBits: 4}
}

// ndc returns the clip coordinates (w = 1) of pixel position (x, y) in a
// w×h frame of flatOpts.
func ndc(x, y float64, w, h int) [4]float64 {
	return [4]float64{(x - float64(w)/2) / (float64(w) / 2), (y - float64(h)/2) / (float64(h) / 2), 0, 1}
}

// Two triangles sharing a diagonal through pixel centres cover every pixel
// of their square exactly once; the square's top and left rows of centres
// are in, its bottom and right ones out.
func TestFlatFillRule(t *testing.T) {
	const w, h = 16, 16
	p := func(x, y float64) [4]float64 { return ndc(x, y, w, h) }
	tris := []FlatTriangle{
		{V: [3][4]float64{p(2.5, 2.5), p(10.5, 2.5), p(2.5, 10.5)}, Colour: 1},
		{V: [3][4]float64{p(10.5, 2.5), p(10.5, 10.5), p(2.5, 10.5)}, Colour: 2},
	}
	img, err := Flat(flatOpts(w, h), tris)
	if err != nil {
		t.Fatal(err)
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			in := x >= 2 && x < 10 && y >= 2 && y < 10
			got := img[y*w+x]
			switch {
			case in && got == 0, !in && got != 0:
				t.Errorf("(%d,%d) = %d, inside = %v", x, y, got, in)
			case in && x+y < 12 && got != 1, in && x+y > 12 && got != 2:
				t.Errorf("(%d,%d) = %d, the wrong triangle", x, y, got)
			}
		}
	}
	// On the diagonal x + y = 12 the centres are on the shared edge: the
	// second triangle's edge runs from (2.5, 10.5) up to (10.5, 2.5), a
	// left edge of it, so they are its.
	if got := img[6*w+6]; got != 2 {
		t.Errorf("(6,6) on the diagonal = %d, want 2", got)
	}
}

// Culling follows the orientation with row 0 at the bottom; the scissor
// bounds the pixels; clipping to the near plane cuts a triangle.
func TestFlatCullScissorClip(t *testing.T) {
	const w, h = 16, 16
	p := func(x, y float64) [4]float64 { return ndc(x, y, w, h) }
	// Area > 0 with row 0 first: counter-clockwise with row 0 at the bottom.
	ccwTri := [3][4]float64{p(1, 1), p(15, 1), p(1, 15)}
	for _, c := range []struct {
		cull  [2]bool
		drawn bool
	}{{[2]bool{true, false}, true}, {[2]bool{false, true}, false}} {
		img, _ := Flat(flatOpts(w, h), []FlatTriangle{{V: ccwTri, Colour: 7, Cull: c.cull}})
		if (img[2*w+2] == 7) != c.drawn {
			t.Errorf("cull %v: drawn %v", c.cull, img[2*w+2] == 7)
		}
	}
	o := flatOpts(w, h)
	o.Scissor = image.Rect(3, 4, 5, 6)
	img, _ := Flat(o, []FlatTriangle{{V: ccwTri, Colour: 7}})
	n := 0
	for _, v := range img {
		if v == 7 {
			n++
		}
	}
	if n != 4 {
		t.Errorf("%d pixels inside a 2×2 scissor", n)
	}
	// A triangle whose third vertex is far behind the near plane: only
	// the part with z ≥ −w is drawn, a band near the other two vertices.
	o = flatOpts(w, h)
	o.ClipDepth = true
	near := [3][4]float64{{-1, -1, 0, 1}, {1, -1, 0, 1}, {0, 1, -3, 1}}
	img, _ = Flat(o, []FlatTriangle{{V: near, Colour: 7}})
	if img[1*w+8] != 7 || img[14*w+8] == 7 {
		t.Errorf("near clipping: row 1 %d, row 14 %d", img[1*w+8], img[14*w+8])
	}
}
