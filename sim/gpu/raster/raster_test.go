package raster

import (
	"math"
	"math/rand"
	"testing"

	"github.com/vccube/vccube/cl"
)

var everywhere = Rect{-4096, -4096, 4096, 4096}

// px builds a vertex at (x, y) pixels.
func px(x, y float64) Vertex {
	return Vertex{X: int32(math.Round(x * 16)), Y: int32(math.Round(y * 16)), Z: 0.5, InvW: 1}
}

// covered lists the covered pixels inside r.
func covered(p *Prim, r Rect) map[[2]int]bool {
	m := map[[2]int]bool{}
	for y := r.Y0 &^ 3; y < r.Y1; y += 4 {
		for x := r.X0 &^ 3; x < r.X1; x += 4 {
			mask := p.BlockMask(x, y)
			par := BlockParity(y)
			for i := range 16 {
				if mask&(1<<i) != 0 {
					m[[2]int{x + int(LaneX[par][i]), y + int(LaneY[par][i])}] = true
				}
			}
		}
	}
	return m
}

// The two drawings of the post "vc4: cube demo – 'from scratch'" ("Pixel
// and Element relation"), top row (y = 3) first, as printed there.
func TestLaneLayoutIsCubeDemo(t *testing.T) {
	drawn := [2][4][4]int{
		{{6, 7, 10, 11}, {4, 5, 8, 9}, {2, 3, 14, 15}, {0, 1, 12, 13}},
		{{10, 11, 6, 7}, {8, 9, 4, 5}, {14, 15, 2, 3}, {12, 13, 0, 1}},
	}
	for p := range 2 {
		for row := range 4 {
			y := 3 - row
			for x := range 4 {
				e := drawn[p][row][x]
				if int(LaneX[p][e]) != x || int(LaneY[p][e]) != y {
					t.Errorf("parity %d element %d at (%d,%d), the post says (%d,%d)", p, e, LaneX[p][e], LaneY[p][e], x, y)
				}
			}
		}
		// Quads: element & 3 = 0 (0,0), 1 (1,0), 2 (0,1), 3 (1,1).
		for e := range 16 {
			if int(LaneX[p][e]&1) != e&1 || int(LaneY[p][e]&1) != e>>1&1 {
				t.Errorf("parity %d element %d is not quad position %d", p, e, e&3)
			}
		}
	}
	if BlockParity(0) != 0 || BlockParity(4) != 1 || BlockParity(8) != 0 || BlockParity(68) != 1 {
		t.Error("block parity is not the block row's parity")
	}
}

// Triangle (0,0) (8,0) (0,8) px: centres (x+½, y+½) with x + y + 1 < 8 are
// inside; x + y = 7 lies on the hypotenuse, a bottom-right edge, so out:
// 7+6+…+1 = 28 pixels.
func TestRightTriangleCornerAligned(t *testing.T) {
	a, b, c := px(0, 0), px(8, 0), px(0, 8)
	for _, order := range [][3]*Vertex{{&a, &b, &c}, {&a, &c, &b}} {
		var p Prim
		if !p.SetupTriangle(order[0], order[1], order[2], everywhere, false) {
			t.Fatal("setup failed")
		}
		got := covered(&p, Rect{-8, -8, 16, 16})
		if len(got) != 28 {
			t.Errorf("%d pixels, want 28", len(got))
		}
		for q := range got {
			if q[0] < 0 || q[1] < 0 || q[0]+q[1] > 6 {
				t.Errorf("pixel %v should not be covered", q)
			}
		}
	}
}

// Edges through pixel centres: the top and left edges keep their pixels,
// the bottom, right and bottom-right edges lose them; the two halves of a
// square split on a diagonal cover each of its 16 pixels once.
func TestTopLeftRuleOnCentres(t *testing.T) {
	upper := [3]Vertex{px(0.5, 0.5), px(4.5, 0.5), px(0.5, 4.5)}
	lower := [3]Vertex{px(4.5, 0.5), px(4.5, 4.5), px(0.5, 4.5)}
	var p, q Prim
	p.SetupTriangle(&upper[0], &upper[1], &upper[2], everywhere, false)
	q.SetupTriangle(&lower[0], &lower[1], &lower[2], everywhere, false)
	r := Rect{-4, -4, 12, 12}
	up, lo := covered(&p, r), covered(&q, r)
	// Upper: x + y ≤ 3 (10 pixels, row 0 and column 0 included).
	if len(up) != 10 {
		t.Errorf("upper half: %d pixels, want 10", len(up))
	}
	for k := range up {
		if k[0]+k[1] > 3 || k[0] < 0 || k[1] < 0 {
			t.Errorf("upper half covers %v", k)
		}
	}
	// Lower: x, y ≤ 3 and x + y ≥ 4 (6 pixels; the diagonal is its left edge).
	if len(lo) != 6 {
		t.Errorf("lower half: %d pixels, want 6", len(lo))
	}
	for k := range lo {
		if k[0] > 3 || k[1] > 3 || k[0]+k[1] < 4 {
			t.Errorf("lower half covers %v", k)
		}
		if up[k] {
			t.Errorf("%v covered twice", k)
		}
	}
}

// Any two triangles that share an edge cover each pixel of their union
// once: no gaps, no double hits (checked on random 12.4 positions).
func TestSharedEdgesWatertight(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	tested := 0
	defer func() {
		if tested < 100 {
			t.Errorf("only %d pairs tested", tested)
		}
	}()
	r := Rect{-2, -2, 40, 40}
	for n := 0; n < 300; n++ {
		v := func() Vertex {
			return Vertex{X: int32(rng.Intn(36 * 16)), Y: int32(rng.Intn(36 * 16)), InvW: 1}
		}
		a, b, c, d := v(), v(), v(), v()
		// Two triangles on opposite sides of the shared edge a–c.
		side := func(p Vertex) int64 {
			return (int64(c.X)-int64(a.X))*(int64(p.Y)-int64(a.Y)) - (int64(c.Y)-int64(a.Y))*(int64(p.X)-int64(a.X))
		}
		if side(b) == 0 || side(d) == 0 || (side(b) > 0) == (side(d) > 0) {
			continue
		}
		var p, q Prim
		okp := p.SetupTriangle(&a, &b, &c, everywhere, false)
		okq := q.SetupTriangle(&c, &d, &a, everywhere, false)
		if !okp || !okq {
			continue
		}
		tested++
		cp, cq := covered(&p, r), covered(&q, r)
		for k := range cp {
			if cq[k] {
				t.Fatalf("case %d: pixel %v covered by both triangles sharing %v–%v", n, k, a, c)
			}
		}
		// Pixels whose centre is strictly inside the union's hull on the
		// shared edge must be covered by one: check the centres lying on
		// the segment a–c.
		for y := r.Y0; y < r.Y1; y++ {
			for x := r.X0; x < r.X1; x++ {
				cx, cy := int64(x)*16+8, int64(y)*16+8
				cr := (int64(c.X)-int64(a.X))*(cy-int64(a.Y)) - (int64(c.Y)-int64(a.Y))*(cx-int64(a.X))
				if cr != 0 {
					continue
				}
				t0 := (cx-int64(a.X))*(int64(c.X)-int64(a.X)) + (cy-int64(a.Y))*(int64(c.Y)-int64(a.Y))
				l2 := (int64(c.X)-int64(a.X))*(int64(c.X)-int64(a.X)) + (int64(c.Y)-int64(a.Y))*(int64(c.Y)-int64(a.Y))
				if t0 <= 0 || t0 >= l2 {
					continue
				}
				k := [2]int{x, y}
				if !cp[k] && !cq[k] {
					t.Fatalf("case %d: pixel %v on the shared edge covered by neither", n, k)
				}
			}
		}
	}
}

func TestScissorClipsCoverage(t *testing.T) {
	a, b, c := px(0, 0), px(64, 0), px(0, 64)
	var p Prim
	if !p.SetupTriangle(&a, &b, &c, Rect{10, 20, 13, 22}, false) {
		t.Fatal("setup failed")
	}
	got := covered(&p, Rect{0, 0, 64, 64})
	if len(got) != 6 {
		t.Errorf("%d pixels in a 3×2 scissor, want 6", len(got))
	}
	var q Prim
	if q.SetupTriangle(&a, &b, &c, Rect{40, 40, 60, 60}, false) {
		if n := len(covered(&q, Rect{0, 0, 64, 64})); n != 0 {
			t.Errorf("triangle outside its scissor covers %d pixels", n)
		}
	}
}

func TestWinding(t *testing.T) {
	a, b, c := px(0, 0), px(8, 0), px(0, 8)
	// (0,0) → (8,0) → (0,8): a = 8·8 − 0·0 = 64 > 0, counter-clockwise for
	// the hardware (row 0 at the bottom), as Mesa's use of the bit implies.
	if Winding(&a, &b, &c) != CounterClockwise || Winding(&a, &c, &b) != Clockwise || Winding(&a, &a, &b) != Degenerate {
		t.Error("winding")
	}
}

// TestFacing is the culling rule as a table written from [AG] Table 38 id
// 96 and Mesa's use of the clockwise bit (set for Gallium's front_ccw,
// whose front faces have a < 0 in y-down window coordinates): with the bit
// set the clockwise (a < 0) triangles face forward.
func TestFacing(t *testing.T) {
	for _, c := range []struct {
		cw, fwd, rev bool
		w            int
		reverse      bool
		drawn        bool
	}{
		{cw: true, fwd: true, w: Clockwise, reverse: false, drawn: true},
		{cw: true, fwd: true, w: CounterClockwise, reverse: true, drawn: false},
		{cw: true, rev: true, w: CounterClockwise, reverse: true, drawn: true},
		{cw: true, rev: true, w: Clockwise, reverse: false, drawn: false},
		{cw: false, fwd: true, w: CounterClockwise, reverse: false, drawn: true},
		{cw: false, fwd: true, w: Clockwise, reverse: true, drawn: false},
		{cw: false, fwd: true, rev: true, w: Clockwise, reverse: true, drawn: true},
		{cw: false, w: CounterClockwise, reverse: false, drawn: false},
		{cw: true, fwd: true, rev: true, w: Degenerate, reverse: false, drawn: false},
	} {
		cfg := cl.ConfigurationBits{Clockwise: c.cw, EnableForwardFacing: c.fwd, EnableReverseFacing: c.rev}
		if rev, drawn := Facing(&cfg, c.w); rev != c.reverse || drawn != c.drawn {
			t.Errorf("clockwise bit %v, forward %v, reverse %v, winding %d: reverse %v drawn %v, want %v %v",
				c.cw, c.fwd, c.rev, c.w, rev, drawn, c.reverse, c.drawn)
		}
	}
}

// Perspective-correct interpolation: VP·W + C at a pixel equals the value
// computed from screen barycentrics weighted by 1/w (OpenGL ES 2.0 §3.5.1
// equation 3.4), here in float64 from scratch.
func TestPerspectiveCorrectVaryings(t *testing.T) {
	v := [3]Vertex{
		{X: 3 * 16, Y: 2 * 16, Z: 0.1, InvW: 1.0},
		{X: 60 * 16, Y: 10 * 16, Z: 0.9, InvW: 0.25},
		{X: 20 * 16, Y: 50 * 16, Z: 0.5, InvW: 0.5},
	}
	vals := [3]float32{10, -4, 100}
	var p Prim
	if !p.SetupTriangle(&v[0], &v[1], &v[2], everywhere, false) {
		t.Fatal("setup")
	}
	vary := p.SetupVarying(vals, false)
	if vary.C != 10 {
		t.Errorf("C = %v, want vertex 0's value 10", vary.C)
	}
	for _, blk := range [][2]int{{20, 16}, {8, 4}, {32, 24}} {
		var w, z, x, y, vp [16]uint32
		p.BlockInputs(blk[0], blk[1], &w, &z, &x, &y)
		vary.BlockVP(blk[0], blk[1], &vp)
		for i := range 16 {
			sx, sy := float64(x[i])+0.5, float64(y[i])+0.5
			// Screen barycentrics.
			x0, y0 := float64(v[0].X)/16, float64(v[0].Y)/16
			x1, y1 := float64(v[1].X)/16, float64(v[1].Y)/16
			x2, y2 := float64(v[2].X)/16, float64(v[2].Y)/16
			den := (y1-y2)*(x0-x2) + (x2-x1)*(y0-y2)
			l0 := ((y1-y2)*(sx-x2) + (x2-x1)*(sy-y2)) / den
			l1 := ((y2-y0)*(sx-x2) + (x0-x2)*(sy-y2)) / den
			l2 := 1 - l0 - l1
			q := l0*1.0 + l1*0.25 + l2*0.5
			want := (l0*1.0*10 + l1*0.25*(-4) + l2*0.5*100) / q
			wf := math.Float32frombits(w[i])
			got := math.Float32frombits(vp[i])*wf + vary.C
			if math.Abs(float64(got)-want) > 1e-3*math.Max(1, math.Abs(want)) {
				t.Errorf("pixel (%d,%d): %v, want %v", x[i], y[i], got, want)
			}
			if math.Abs(float64(wf)-1/q) > 1e-5 {
				t.Errorf("pixel (%d,%d): W %v, want %v", x[i], y[i], wf, 1/q)
			}
			wantZ := (l0*0.1 + l1*0.9 + l2*0.5) * Z24
			if math.Abs(float64(z[i])-wantZ) > 1 {
				t.Errorf("pixel (%d,%d): Z %d, want %.1f", x[i], y[i], z[i], wantZ)
			}
		}
	}
	// Flat: VP 0 and C the last vertex's value, the provoking vertex
	// (doc/hardware.md#varyings).
	flat := p.SetupVarying(vals, true)
	var vp [16]uint32
	flat.BlockVP(8, 8, &vp)
	for i := range 16 {
		if vp[i] != 0 || flat.C != 100 {
			t.Fatalf("flat varying: VP %#x C %v", vp[i], flat.C)
		}
	}
}

func TestPointsCoverTheirSquare(t *testing.T) {
	var p Prim
	// Size 1 at a pixel centre: that pixel only.
	v := px(5.5, 6.5)
	p.SetupPoint(&v, 1, everywhere)
	got := covered(&p, Rect{0, 0, 16, 16})
	if len(got) != 1 || !got[[2]int{5, 6}] {
		t.Errorf("size-1 point covers %v", got)
	}
	// Size 2 at a pixel corner: the 2×2 pixels around it.
	v = px(8, 8)
	p.SetupPoint(&v, 2, everywhere)
	got = covered(&p, Rect{0, 0, 16, 16})
	if len(got) != 4 || !got[[2]int{7, 7}] || !got[[2]int{8, 8}] {
		t.Errorf("size-2 point covers %v", got)
	}
}

// TestPointSizeClamped: a point larger than 512 pixels is drawn 512 wide,
// as dEQP-GLES2's rasterization.limits.points requires of a Pi 3 (a size
// 528 point centred on x = 264 leaves columns 0 to 7 untouched).
func TestPointSizeClamped(t *testing.T) {
	var p Prim
	v := px(264, 8)
	if !p.SetupPoint(&v, 528, everywhere) {
		t.Fatal("setup")
	}
	if b := p.Bounds(); b.X0 != 8 || b.X1 != 520 || b.Y1-b.Y0 != 512 {
		t.Errorf("a size-528 point at x = 264 covers %+v, want x from 8 to 520 and 512 rows", b)
	}
	if p.Covers(7, 8) || !p.Covers(8, 8) {
		t.Error("column 7 covered or column 8 not")
	}
}

func TestHorizontalLine(t *testing.T) {
	var p Prim
	a, b := px(2, 3.5), px(10, 3.5)
	if !p.SetupLine(&a, &b, 1, everywhere) {
		t.Fatal("setup")
	}
	got := covered(&p, Rect{0, 0, 16, 16})
	// Centres x+½ in (2, 10]… the span [2, 10) at row 3: pixels 2..9; the
	// edges at x = 2 and x = 10 pass between centres.
	if len(got) != 8 {
		t.Errorf("line covers %d pixels: %v", len(got), got)
	}
	for k := range got {
		if k[1] != 3 || k[0] < 2 || k[0] > 9 {
			t.Errorf("line covers %v", k)
		}
	}
	// Values vary along the line only.
	vary := p.SetupVarying([3]float32{0, 8, 0}, false)
	var vp, w, z, x, y [16]uint32
	vary.BlockVP(4, 0, &vp)
	p.BlockInputs(4, 0, &w, &z, &x, &y)
	for i := range 16 {
		got := math.Float32frombits(vp[i])*math.Float32frombits(w[i]) + vary.C
		want := float32(x[i]) + 0.5 - 2
		if math.Abs(float64(got-want)) > 1e-4 {
			t.Errorf("(%d,%d): %v want %v", x[i], y[i], got, want)
		}
	}
}

// A varying of a sloped wide line, set up with the values the renderer
// passes (vertex 0's, then vertex 1's repeated: sim/gpu/render frag.go),
// varies along the line only: at every covered pixel it is the value at
// the pixel centre's projection onto the line. Before SetupVarying gave
// the line's synthetic third point vertex 0's value, it took vertex 1's,
// and the value drifted across the line (by up to 6% of the line's range
// here), failing 3 to 22 pixels of thin lines and hundreds of wide ones
// in dEQP-GLES2's rasterization.interpolation line cases, which pass on
// a Pi 3.
func TestSlopedLineVaryingAlongLine(t *testing.T) {
	for _, c := range []struct{ ax, ay, bx, by float64 }{
		{2, 3, 40, 17},  // x-major
		{30, 2, 21, 41}, // y-major, right to left
	} {
		var p Prim
		a, b := px(c.ax, c.ay), px(c.bx, c.by)
		if !p.SetupLine(&a, &b, 5, everywhere) {
			t.Fatal("setup")
		}
		vary := p.SetupVarying([3]float32{0, 1, 1}, false)
		dx, dy := c.bx-c.ax, c.by-c.ay
		n := 0
		for by := 0; by < 48; by += 4 {
			for bx := 0; bx < 48; bx += 4 {
				m := p.BlockMask(bx, by)
				var vp, w, z, x, y [16]uint32
				vary.BlockVP(bx, by, &vp)
				p.BlockInputs(bx, by, &w, &z, &x, &y)
				for i := range 16 {
					if m&(1<<i) == 0 {
						continue
					}
					n++
					got := math.Float32frombits(vp[i])*math.Float32frombits(w[i]) + vary.C
					ux, uy := float64(x[i])+0.5-c.ax, float64(y[i])+0.5-c.ay
					want := (ux*dx + uy*dy) / (dx*dx + dy*dy)
					if math.Abs(float64(got)-want) > 1e-4 {
						t.Errorf("line %v, pixel (%d,%d): %v, want %v", c, x[i], y[i], got, want)
					}
				}
			}
		}
		if n < 100 {
			t.Errorf("line %v covers %d pixels", c, n)
		}
	}
}

func TestDepthOffset(t *testing.T) {
	a, b, c := px(0, 0), px(64, 0), px(0, 64)
	a.Z, b.Z, c.Z = 0, 0.5, 0.25 // dz/dx = 0.5/64, dz/dy = 0.25/64
	var p Prim
	p.SetupTriangle(&a, &b, &c, everywhere, false)
	before := p.ZAt(10, 10)
	p.SetDepthOffset(2, 16)
	after := p.ZAt(10, 10)
	want := (2*0.5/64 + 16.0/(1<<24)) * Z24
	if d := float64(after) - float64(before); math.Abs(d-want) > 1 {
		t.Errorf("offset %v, want %v", d, want)
	}
}

// TouchesRect never rejects a rectangle holding a covered pixel, and
// rejects rectangles wholly beyond one edge.
func TestTouchesRect(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	for n := 0; n < 200; n++ {
		v := func() Vertex {
			return Vertex{X: int32(rng.Intn(200*16) - 50*16), Y: int32(rng.Intn(200*16) - 50*16), InvW: 1}
		}
		a, b, c := v(), v(), v()
		var p Prim
		if !p.SetupTriangle(&a, &b, &c, Rect{0, 0, 128, 128}, false) {
			continue
		}
		cov := covered(&p, Rect{0, 0, 128, 128})
		for ty := 0; ty < 128; ty += 16 {
			for tx := 0; tx < 128; tx += 16 {
				r := Rect{tx, ty, tx + 16, ty + 16}
				any := false
				for k := range cov {
					if k[0] >= r.X0 && k[0] < r.X1 && k[1] >= r.Y0 && k[1] < r.Y1 {
						any = true
					}
				}
				if any && !p.TouchesRect(r) {
					t.Fatalf("triangle %v %v %v: rect %v holds covered pixels but was rejected", a, b, c, r)
				}
			}
		}
	}
	a, b, c := px(0, 0), px(8, 0), px(0, 8)
	var p Prim
	p.SetupTriangle(&a, &b, &c, everywhere, false)
	if p.TouchesRect(Rect{6, 6, 10, 10}) {
		t.Error("rect beyond the hypotenuse accepted")
	}
	if !p.TouchesRect(Rect{0, 0, 2, 2}) {
		t.Error("rect at the corner rejected")
	}
}

// BlockInputs and BlockVP, which share per-column and per-row terms
// within a block, give every lane what the per-pixel formulas give, on
// random triangles and blocks of both parities.
func TestBlockInputsPerPixel(t *testing.T) {
	seed := uint64(11)
	next := func(n int) int {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int(seed>>33) % n
	}
	for n := 0; n < 2000; n++ {
		v := [3]Vertex{}
		for k := range v {
			v[k] = Vertex{X: int32(next(4096) - 1024), Y: int32(next(4096) - 1024), Z: float32(next(1000)) / 1000, InvW: float32(1+next(1000)) / 300}
		}
		var p Prim
		if !p.SetupTriangle(&v[0], &v[1], &v[2], everywhere, false) {
			continue
		}
		if n%3 == 0 {
			p.SetDepthOffset(float32(next(5)), float32(next(100)))
		}
		vary := p.SetupVarying([3]float32{float32(next(100)), -float32(next(100)), float32(next(1000)) / 7}, false)
		bx, by := 4*(next(64)-16), 4*(next(64)-16)
		var w, z, x, y, vp [16]uint32
		p.BlockInputs(bx, by, &w, &z, &x, &y)
		vary.BlockVP(bx, by, &vp)
		par := BlockParity(by)
		for i := range 16 {
			px, py := bx+int(LaneX[par][i]), by+int(LaneY[par][i])
			if int(int32(x[i])) != px || int(int32(y[i])) != py {
				t.Fatalf("lane %d at (%d,%d), want (%d,%d)", i, int32(x[i]), int32(y[i]), px, py)
			}
			if w[i] != p.wAt(px, py) || z[i] != p.ZAt(px, py) || vp[i] != vary.vpAt(px, py) {
				t.Fatalf("block (%d,%d) lane %d: W %#x Z %#x VP %#x, per pixel %#x %#x %#x",
					bx, by, i, w[i], z[i], vp[i], p.wAt(px, py), p.ZAt(px, py), vary.vpAt(px, py))
			}
		}
	}
}

// BlockMask's whole-block answers (empty when an edge is negative at every
// corner, full when every edge is positive at every corner) agree with
// testing each pixel centre against every edge, on random triangles and
// lines, scissors and blocks, including blocks straddling edges.
func TestBlockMaskAgreesWithPerPixelEdges(t *testing.T) {
	rng := rand.New(rand.NewSource(12))
	full, empty := 0, 0
	for n := 0; n < 3000; n++ {
		v := func() Vertex { return Vertex{X: int32(rng.Intn(2048) - 512), Y: int32(rng.Intn(2048) - 512), InvW: 1} }
		a, b, c := v(), v(), v()
		sc := Rect{rng.Intn(40) - 20, rng.Intn(40) - 20, 60 + rng.Intn(80), 60 + rng.Intn(80)}
		var p Prim
		var ok bool
		if n%4 == 0 {
			ok = p.SetupLine(&a, &b, float32(1+rng.Intn(8)), sc)
		} else {
			ok = p.SetupTriangle(&a, &b, &c, sc, false)
		}
		if !ok {
			continue
		}
		for k := 0; k < 20; k++ {
			bx, by := 4*(rng.Intn(40)-10), 4*(rng.Intn(40)-10)
			got := p.BlockMask(bx, by)
			par := BlockParity(by)
			var want uint16
			for i := range 16 {
				x, y := bx+int(LaneX[par][i]), by+int(LaneY[par][i])
				in := x >= sc.X0 && x < sc.X1 && y >= sc.Y0 && y < sc.Y1
				for j := 0; j < p.nedge; j++ {
					in = in && p.edges[j].at(x, y) > 0
				}
				if in {
					want |= 1 << i
				}
			}
			if got != want {
				t.Fatalf("triangle %v %v %v scissor %v block (%d,%d): mask %#04x, per pixel %#04x", a, b, c, sc, bx, by, got, want)
			}
			switch want {
			case 0xFFFF:
				full++
			case 0:
				empty++
			}
		}
	}
	if full < 100 || empty < 100 {
		t.Fatalf("only %d full and %d empty blocks: the generator needs a look", full, empty)
	}
}

// wAt returns W at pixel (x, y) as float32 bits, as BlockInputs computes
// it.
func (p *Prim) wAt(x, y int) uint32 {
	dx := float64(x) + 0.5 - p.x0
	dy := float64(y) + 0.5 - p.y0
	return math.Float32bits(float32(1 / (p.q.c + float64(p.q.a*dx) + float64(p.q.b*dy))))
}

// vpAt returns VP at pixel (x, y) as float32 bits, as BlockVP computes it.
func (v *Varying) vpAt(x, y int) uint32 {
	fx := float32(x&^3) + 0.5 - v.x0
	fy := float32(y&^3) + 0.5 - v.y0
	return math.Float32bits(float32(v.a*(fx+float32(x&3))) + float32(v.b*(fy+float32(y&3))))
}

// RowSpan gives, for every block of a row, the answer BlockMask's corner
// tests give: outside [Lo, Hi) exactly the blocks some edge is ≤ 0 at every
// corner of (BlockMask 0), inside [FullLo, FullHi) exactly the blocks every
// edge is > 0 at every corner of and inside the scissor (BlockMask 0xFFFF).
// Random triangles, lines and points, scissors, rows and column ranges,
// including far off-screen ones (the division's rounding of negatives).
func TestRowSpanAgreesWithBlockMask(t *testing.T) {
	rng := rand.New(rand.NewSource(13))
	var skipped, full, partial int
	for n := 0; n < 4000; n++ {
		v := func() Vertex {
			return Vertex{X: int32(rng.Intn(4096) - 1024), Y: int32(rng.Intn(4096) - 1024), InvW: 1}
		}
		a, b, c := v(), v(), v()
		sc := Rect{rng.Intn(80) - 40, rng.Intn(80) - 40, 60 + rng.Intn(160), 60 + rng.Intn(160)}
		p, ok := randomPrim(rng, n, &a, &b, &c, sc)
		if !ok {
			continue
		}
		for r := 0; r < 8; r++ {
			x0, by := 4*(rng.Intn(60)-20), 4*(rng.Intn(60)-20)
			ncol := rng.Intn(40)
			sp := p.RowSpan(x0, by, ncol)
			if sp.Lo < 0 || sp.Hi > ncol || sp.Lo > sp.Hi || sp.FullLo < sp.Lo || sp.FullHi > sp.Hi || sp.FullLo > sp.FullHi {
				t.Fatalf("RowSpan(%d, %d, %d) = %+v: not nested in [0, ncol)", x0, by, ncol, sp)
			}
			for k := 0; k < ncol; k++ {
				bx := x0 + 4*k
				mask := p.BlockMask(bx, by)
				in := k >= sp.Lo && k < sp.Hi
				whole := k >= sp.FullLo && k < sp.FullHi
				if !in && mask != 0 || whole && mask != 0xFFFF {
					t.Fatalf("%v %v %v scissor %v block (%d,%d): span %+v, mask %#04x", a, b, c, sc, bx, by, sp, mask)
				}
				if p.kind != kindEdges {
					if !in || whole {
						t.Fatalf("a rectangle's span must leave every block to BlockMask: %+v", sp)
					}
					continue
				}
				// The spans are exact: a block is left in only if no edge
				// rules it out, and left partial only if it is not whole.
				out, notWhole := false, !(bx >= sc.X0 && bx+4 <= sc.X1 && by >= sc.Y0 && by+4 <= sc.Y1)
				for j := 0; j < p.nedge; j++ {
					e := &p.edges[j]
					for _, d := range [][2]int{{0, 0}, {3, 0}, {0, 3}, {3, 3}} {
						if e.at(bx+d[0], by+d[1]) <= 0 {
							notWhole = true
						}
					}
					if e.at(bx, by) <= 0 && e.at(bx+3, by) <= 0 && e.at(bx, by+3) <= 0 && e.at(bx+3, by+3) <= 0 {
						out = true
					}
				}
				if in == out || whole == notWhole {
					t.Fatalf("%v %v %v scissor %v block (%d,%d): span %+v, corners say out %v, not whole %v", a, b, c, sc, bx, by, sp, out, notWhole)
				}
				switch {
				case !in:
					skipped++
				case whole:
					full++
				default:
					partial++
				}
			}
		}
	}
	if skipped < 1000 || full < 1000 || partial < 1000 {
		t.Fatalf("%d skipped, %d full, %d partial blocks: the generator needs a look", skipped, full, partial)
	}
}

// rb15 is trunc(Zs·2²⁴), clamped to 0xFFFFFF. The Pi 3 record settles the
// scale: Mesa clears depth to 0.75 as trunc(0.75·0xFFFFFF) = 0xBFFFFF
// (vc4_draw.c vc4_clear, util_pack_z), and piglit's fbo-depthstencil clear
// tests, which draw at Zs = 0.75 with depth function EQUAL and need
// Z = 0xBFFFFF to pass, fail on a Pi 3 (conform/pi3/testdata). Round to
// nearest of Zs·0xFFFFFF gives 0xBFFFFF; Zs·2²⁴ gives 0xC00000.
func TestConstantZIsZsTimes2To24Truncated(t *testing.T) {
	for _, tc := range []struct {
		zs   float32
		want uint32
	}{
		{0.75, 0xC00000},
		{0.5, 0x800000},
		{0.25, 0x400000},
		{0, 0},
		{1, 0xFFFFFF},
		{1.5, 0xFFFFFF},
		{-0.25, 0},
		{1.0 / 3, 0x555555},
		{float32(0x123456+0.75) / (1 << 24), 0x123456},
		{float32(0x0BCDEF+0.25) / (1 << 24), 0x0BCDEF},
	} {
		a, b, c := px(0, 0), px(32, 0), px(0, 32)
		a.Z, b.Z, c.Z = tc.zs, tc.zs, tc.zs
		var p Prim
		if !p.SetupTriangle(&a, &b, &c, everywhere, false) {
			t.Fatal("setup failed")
		}
		var w, z, x, y [16]uint32
		p.BlockInputs(4, 4, &w, &z, &x, &y)
		for i := range 16 {
			if z[i] != tc.want {
				t.Fatalf("Zs %v: element %d has Z %#06x, want %#06x", tc.zs, i, z[i], tc.want)
			}
		}
		if got := p.ZAt(5, 5); got != tc.want {
			t.Errorf("Zs %v: ZAt %#06x, want %#06x", tc.zs, got, tc.want)
		}
	}
}

// positiveFromDivision is positiveFrom without its shortcut: the bound
// from the division, always.
func positiveFromDivision(v0, step int64, lo, hi *int64) {
	switch {
	case step == 0:
		if v0 <= 0 {
			*hi = *lo
		}
	case step > 0:
		*lo = max(*lo, floorDiv(-v0, step)+1)
	default:
		*hi = min(*hi, ceilDiv(v0, -step))
	}
}

// positiveFrom's shortcut leaves [lo, hi) exactly as the division does:
// every small value, step and range (empty and reversed ones included),
// and random ones of RowSpan's sizes (edge values of far off-screen
// primitives, steps of long edges).
func TestPositiveFromMatchesDivision(t *testing.T) {
	check := func(v0, step, lo, hi int64) {
		t.Helper()
		glo, ghi, wlo, whi := lo, hi, lo, hi
		positiveFrom(v0, step, &glo, &ghi)
		positiveFromDivision(v0, step, &wlo, &whi)
		if glo != wlo || ghi != whi {
			t.Fatalf("positiveFrom(%d, %d, [%d, %d)) = [%d, %d), the division gives [%d, %d)", v0, step, lo, hi, glo, ghi, wlo, whi)
		}
	}
	for v0 := int64(-40); v0 <= 40; v0++ {
		for step := int64(-9); step <= 9; step++ {
			for lo := int64(-3); lo <= 8; lo++ {
				for hi := int64(-3); hi <= 8; hi++ {
					check(v0, step, lo, hi)
				}
			}
		}
	}
	rng := rand.New(rand.NewSource(27))
	for range 200000 {
		v0 := rng.Int63n(1<<44) - 1<<43
		step := (rng.Int63n(1<<24) - 1<<23) * 64
		lo, hi := rng.Int63n(40), rng.Int63n(40)
		check(v0, step, lo, hi)
		// Values near the range's ends, where the bound falls inside.
		k := rng.Int63n(40)
		check(-step*k+rng.Int63n(5)-2, step, lo, hi)
	}
}
