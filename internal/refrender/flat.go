package refrender

import (
	"errors"
	"fmt"
	"image"
	"math"
)

// Flat draws triangles of one colour each, given in clip space, the way a
// textbook OpenGL pipeline does, for the self-test's geometry probes
// (package selftest): clipping against the near and far planes, the
// perspective division, the viewport transform, positions snapped to
// 1/2^SubpixelBits pixel, face culling, and coverage of pixel centres
// with the top-left fill rule, exactly, in integers, inside a scissor
// rectangle. Later triangles cover earlier ones; there is no depth test.
//
// It shares no code with the simulated GPU it is compared with, nor with
// Render above: it is a second statement of the same rules.

// FlatTriangle is one triangle: three vertices in clip space (x, y, z, w),
// the colour word its pixels get, and the orientations that cull it.
type FlatTriangle struct {
	V      [3][4]float64
	Colour uint32
	// Cull[o] culls the triangle when its orientation is o; triangles of
	// zero area are always culled.
	Cull [2]bool
}

// Orientation is the turning sense of a triangle on the screen.
type Orientation int

// The senses are those of the image with row 0 at the bottom, as the
// VideoCore IV's guide draws its frames (AG §11, "bottom-left origin"):
// counter-clockwise is the usual mathematical sense with y up.
const (
	Clockwise Orientation = iota
	CounterClockwise
)

// FlatOptions says how to draw.
type FlatOptions struct {
	// Width and Height are the image size in pixels, 1..MaxSize.
	Width, Height int
	// The viewport: a vertex at normalised device coordinates (x, y) lands
	// at pixel position (CentreX + x·HalfWidth, CentreY + y·HalfHeight),
	// with row 0 first in the image; a positive HalfHeight puts +y down.
	CentreX, CentreY, HalfWidth, HalfHeight float64
	// SubpixelBits is the precision screen positions are snapped to (to
	// nearest): 4 for the VideoCore IV's 12.4 fixed point.
	SubpixelBits int
	// Scissor bounds the pixels drawn; the empty rectangle means the
	// whole image.
	Scissor image.Rectangle
	// ClipDepth clips triangles to OpenGL's view volume in depth,
	// −w ≤ z ≤ w, as well as to w > 0.
	ClipDepth bool
	// Background is the colour word of pixels no triangle covers.
	Background uint32
}

// Flat returns the image, one colour word per pixel, row 0 first.
func Flat(o FlatOptions, tris []FlatTriangle) ([]uint32, error) {
	if err := checkSize(o.Width, o.Height); err != nil {
		return nil, err
	}
	if o.SubpixelBits < 0 || o.SubpixelBits > 16 {
		return nil, fmt.Errorf("refrender: %d sub-pixel bits: use 0 to 16", o.SubpixelBits)
	}
	if o.HalfWidth == 0 || o.HalfHeight == 0 {
		return nil, errors.New("refrender: the viewport has no size")
	}
	sc := o.Scissor
	if sc.Empty() {
		sc = image.Rect(0, 0, o.Width, o.Height)
	}
	sc = sc.Intersect(image.Rect(0, 0, o.Width, o.Height))
	img := make([]uint32, o.Width*o.Height)
	for i := range img {
		img[i] = o.Background
	}
	for _, t := range tris {
		poly := [][4]float64{t.V[0], t.V[1], t.V[2]}
		planes := [][4]float64{{0, 0, 0, 1}} // w > 0 (with a tolerance below)
		if o.ClipDepth {
			planes = append(planes, [4]float64{0, 0, 1, 1}, [4]float64{0, 0, -1, 1}) // z ≥ −w, z ≤ w
		}
		for _, p := range planes {
			poly = clipPolygon(poly, p)
		}
		if len(poly) < 3 {
			continue
		}
		pts := make([][2]int64, len(poly))
		for i, v := range poly {
			pts[i] = o.snap(v)
		}
		for i := 1; i+1 < len(pts); i++ {
			fillFlat(img, o, sc, pts[0], pts[i], pts[i+1], &t)
		}
	}
	return img, nil
}

// clipPolygon keeps the part of a convex polygon where p·v ≥ 0
// (Sutherland–Hodgman); the w > 0 plane is moved in by a hair so that
// the division stays finite.
func clipPolygon(in [][4]float64, p [4]float64) [][4]float64 {
	d := func(v [4]float64) float64 {
		s := p[0]*v[0] + p[1]*v[1] + p[2]*v[2] + p[3]*v[3]
		if p == [4]float64{0, 0, 0, 1} {
			s -= 1e-9
		}
		return s
	}
	var out [][4]float64
	for i := range in {
		a, b := in[i], in[(i+1)%len(in)]
		da, db := d(a), d(b)
		if da >= 0 {
			out = append(out, a)
		}
		if (da >= 0) != (db >= 0) {
			t := da / (da - db)
			var m [4]float64
			for k := range m {
				m[k] = a[k] + t*(b[k]-a[k])
			}
			out = append(out, m)
		}
	}
	return out
}

// snap projects a clip-space vertex to the screen and rounds it to the
// sub-pixel grid.
func (o *FlatOptions) snap(v [4]float64) [2]int64 {
	s := float64(int64(1) << o.SubpixelBits)
	x := o.CentreX + v[0]/v[3]*o.HalfWidth
	y := o.CentreY + v[1]/v[3]*o.HalfHeight
	return [2]int64{int64(math.Round(x * s)), int64(math.Round(y * s))}
}

// fillFlat colours the pixels whose centres a, b, c cover.
func fillFlat(img []uint32, o FlatOptions, sc image.Rectangle, a, b, c [2]int64, t *FlatTriangle) {
	// Twice the signed area with row 0 first (y down); positive means
	// counter-clockwise when row 0 is at the bottom.
	area := (b[0]-a[0])*(c[1]-a[1]) - (c[0]-a[0])*(b[1]-a[1])
	switch {
	case area == 0:
		return
	case area > 0 && t.Cull[CounterClockwise], area < 0 && t.Cull[Clockwise]:
		return
	case area < 0:
		b, c = c, b
	}
	// Now area > 0: every edge function below is positive inside.
	vs := [3][2]int64{a, b, c}
	one := int64(1) << o.SubpixelBits
	half := one / 2
	if o.SubpixelBits == 0 {
		half = 0 // centres cannot be expressed; use corners
	}
	for y := sc.Min.Y; y < sc.Max.Y; y++ {
		for x := sc.Min.X; x < sc.Max.X; x++ {
			px, py := int64(x)*one+half, int64(y)*one+half
			in := true
			for k := 0; k < 3 && in; k++ {
				p, q := vs[k], vs[(k+1)%3]
				dx, dy := q[0]-p[0], q[1]-p[1]
				e := dx*(py-p[1]) - dy*(px-p[0])
				// With the interior on the positive side and y down, a
				// top edge runs towards +x, a left edge towards −y.
				topOrLeft := dy < 0 || (dy == 0 && dx > 0)
				in = e > 0 || (e == 0 && topOrLeft)
			}
			if in {
				img[y*o.Width+x] = t.Colour
			}
		}
	}
}
