// Package raster is the VideoCore IV's primitive setup (PSE) and front end
// pipe (FEP) as far as they are arithmetic: it turns a triangle, line or
// point with screen-space vertices into 4×4-pixel blocks of covered pixels,
// in the QPU element order the hardware uses, and computes the per-pixel
// inputs of a fragment shader: W, Z, and the partial varyings VP with their
// C coefficients.
//
// # Coordinates
//
// Screen positions are in 1/16 pixel (signed 12.4 fixed point, [AG]
// Figure 10): a shaded vertex's Xs/Ys plus the VIEWPORT_OFFSET, both in
// sixteenths of a pixel. Pixel (0, 0) is the first pixel of the frame
// buffer in memory; y grows with memory rows, downward on a scan-out
// display (doc/hardware.md#shaded-vertex-formats). All rectangles are
// half-open: [X0, X1) × [Y0, Y1) in pixels.
//
// # Fill rule (our choice; the sources are silent, doc/hardware.md#rasterisation)
//
// A pixel is covered when its centre (x + ½, y + ½) is inside the primitive.
// A centre exactly on an edge belongs to the primitive only if the edge is a
// top edge (horizontal, with the interior below it in memory order) or a left
// edge (the interior to its right): the rule of Direct3D and of most GL
// implementations. Edge tests are exact: integer arithmetic on the 12.4
// positions. With this rule two triangles sharing an edge never both cover,
// and never both miss, a pixel on it.
//
// # Element order (measured on a Pi: the post "vc4: cube demo – 'from scratch'")
//
// A fragment shader invocation shades one aligned 4×4 block; element i of
// the QPU vector is pixel (LaneX[p][i], LaneY[p][i]) of the block, where p is
// the parity of the block's row of 4×4 blocks (y/4 mod 2): even and odd block
// rows use different layouts. Inside each of the four 2×2 quads, element
// i&3 is 0 at (0, 0), 1 at (1, 0), 2 at (0, 1), 3 at (1, 1). The post draws
// its layouts with y growing upward from "the frame-buffer origin"; we read
// its y as the frame-buffer row number, which grows with memory address.
//
// # Interpolation ([AG] §6 "Varyings Interpolation"; doc/hardware.md#varyings)
//
// W = 1 / (1/Wc interpolated linearly in screen space), Z = Zs interpolated
// linearly, as 24-bit fixed point. For a varying with vertex values v0, v1,
// v2 the hardware hands the shader VP = A·(x − x0) + B·(y − y0) and C;
// the shader computes VP·W + C. We make that the perspective-correct value:
// C = v0 and (A, B) the screen-space gradient of (vi − v0)/Wc_i, with
// (x0, y0) at vertex 0 (DERIVED in doc/hardware.md#varyings: at vertex 0 VP is 0 and the
// result v0; elsewhere VP·W + C is exactly the perspective-correct value).
// A flat-shaded varying has A = B = 0 and C = v2, the value of the last
// vertex of the primitive as the PSE receives it (for a line, its second;
// for a point, its only one): OpenGL's default provoking vertex, which the
// hardware uses, as Mesa CI's Pi 3 record shows (doc/hardware.md#varyings).
package raster

import (
	"math"

	"github.com/vccube/vccube/cl"
)

// Rect is a half-open pixel rectangle [X0, X1) × [Y0, Y1).
type Rect struct {
	X0, Y0, X1, Y1 int
}

// Intersect returns r ∩ s (empty rectangles have X0 ≥ X1 or Y0 ≥ Y1).
func (r Rect) Intersect(s Rect) Rect {
	return Rect{max(r.X0, s.X0), max(r.Y0, s.Y0), min(r.X1, s.X1), min(r.Y1, s.Y1)}
}

// ClipRect returns the pixels of a CLIP_WINDOW: left, "bottom" (the
// smallest row, as frame coordinates count), width and height ([AG] Table
// 38 id 102; doc/hardware.md#viewport).
//
// The last column and row are left + width - 1 and bottom + height - 1
// taken in the packet's 16 bits, so a window of zero width at left 0 (or
// zero height at bottom 0) wraps to 0xFFFF and clips nothing in that
// direction. DERIVED from the Pi 3 record: Mesa sends CLIP_WINDOW 0,0,0,0
// for a scissor wholly off the frame, and piglit's gl-1.0-scissor-offscreen
// fails on a Pi 3 because its rectangle is drawn (doc/hardware.md#viewport).
func ClipRect(q *cl.ClipWindow) Rect {
	return Rect{X0: int(q.Left), Y0: int(q.Bottom), X1: clipEnd(q.Left, q.Width), Y1: clipEnd(q.Bottom, q.Height)}
}

// clipEnd is one past the last pixel of a clip window's span from start
// with size pixels: (start + size - 1) mod 2^16, plus one.
func clipEnd(start, size uint16) int {
	return int(start+size-1) + 1
}

// Empty reports whether r holds no pixel.
func (r Rect) Empty() bool { return r.X0 >= r.X1 || r.Y0 >= r.Y1 }

// Vertex is a shaded vertex as primitive setup sees it.
type Vertex struct {
	// X and Y are the screen position in 1/16 pixel (Xs/Ys plus the
	// viewport offset).
	X, Y int32
	// Z is Zs, the window-space depth (1.0 is the far plane).
	Z float32
	// InvW is 1/Wc.
	InvW float32
}

// LaneX and LaneY give the position inside its 4×4 block of the pixel QPU
// element i shades, for blocks in even (index 0) and odd (index 1) rows of
// blocks (the cube demo post, "Pixel and Element relation";
// doc/hardware.md#rasterisation).
var LaneX, LaneY = laneLayouts()

func laneLayouts() (lx, ly [2][16]uint8) {
	// The post's drawings, bottom row (y = 0) first.
	layouts := [2][4][4]uint8{
		{ // even block rows
			{0, 1, 12, 13},
			{2, 3, 14, 15},
			{4, 5, 8, 9},
			{6, 7, 10, 11},
		},
		{ // odd block rows
			{12, 13, 0, 1},
			{14, 15, 2, 3},
			{8, 9, 4, 5},
			{10, 11, 6, 7},
		},
	}
	for p := range layouts {
		for y := range 4 {
			for x := range 4 {
				e := layouts[p][y][x]
				lx[p][e], ly[p][e] = uint8(x), uint8(y)
			}
		}
	}
	return lx, ly
}

// BlockParity returns which element layout a block whose top-left pixel
// row is y uses.
func BlockParity(y int) int { return y >> 2 & 1 }

// edge is one edge function E(p) = dx·(p.y − a.y) − dy·(p.x − a.x) over
// 1/16-pixel coordinates, oriented so that the interior has E > 0; bias is 1
// for top and left edges, whose points count as inside, else 0.
type edge struct {
	ax, ay int64
	dx, dy int64
	bias   int64
}

func newEdge(a, b [2]int64) edge {
	e := edge{ax: a[0], ay: a[1], dx: b[0] - a[0], dy: b[1] - a[1]}
	// With the interior at E > 0 in y-down coordinates, a top edge runs
	// in +x with dy == 0 and a left edge runs upward (dy < 0).
	if e.dy < 0 || (e.dy == 0 && e.dx > 0) {
		e.bias = 1
	}
	return e
}

// at returns E at the centre of pixel (x, y), plus the bias, so that the
// pixel is inside iff the result is > 0.
func (e *edge) at(x, y int) int64 {
	px := int64(x)*16 + 8
	py := int64(y)*16 + 8
	return e.dx*(py-e.ay) - e.dy*(px-e.ax) + e.bias
}

// plane is a value interpolated linearly over the screen:
// v(x, y) = C + A·(x − X0) + B·(y − Y0), x and y in pixels.
type plane struct {
	c, a, b float64
}

// Setup kinds.
const (
	kindNone = iota
	kindEdges
	kindRect
)

// Prim is a primitive after setup: which pixels it covers and how its
// per-pixel values vary. A Prim is a value; Setup methods overwrite it
// without allocating.
type Prim struct {
	kind  int
	edges [4]edge
	nedge int
	// bounds is the set of pixels to visit: the primitive's bounding box
	// clipped to the scissor. For kindRect it is exactly the covered set.
	bounds Rect
	// scissor is the rectangle pixels must lie in.
	scissor Rect
	// QuadRect is where BlockSamples may give coverage to a pixel
	// outside the scissor whose 2×2 quad has one inside (the tile ∩ the
	// frame; the zero Rect gives none).
	QuadRect Rect

	// x0, y0 is vertex 0 in pixels: the origin of every plane.
	x0, y0 float64
	// pos holds the three points (pixels) and 1/Wc values the varying
	// planes are fitted through; for lines and points they are synthetic.
	pos   [3][2]float64
	invW  [3]float64
	z, q  plane
	depth float64 // constant depth offset added to Z
	// size is a point's size in pixels (SetupPoint), for its sprite
	// coordinates.
	size float64
	// line is set by SetupLine: the third point the planes are fitted
	// through is synthetic and carries vertex 0's values.
	line bool
	// Reverse is set for reverse-facing (back-facing) triangles: the
	// REV_FLAG a fragment shader can read.
	Reverse bool
	// Oversample, set before a Setup method, makes the primitive cover
	// the four sample points of each pixel (4× rasteriser oversampling,
	// BlockSamples) rather than its centre: the bounds then take in every
	// pixel a sample of which may be inside.
	Oversample bool
}

// SampleX and SampleY place sample s of pixel (x, y) at (16x + SampleX[s],
// 16y + SampleY[s]) in 1/16 pixel. The guide gives 4× multisampling
// without its sample positions, and Mesa's vc4 driver does not report
// them; we take those Mesa's v3d driver reports for the V3D 3.3, the
// VideoCore IV's successor (v3d_context.c v3d_get_sample_position: x =
// 0.5 + {1, −3, 3, −1}/8, y = 1/8 + s/4 of a pixel): a rotated grid,
// every sample on its own row and column (UNCERTAIN,
// doc/hardware.md#multisampling).
var SampleX, SampleY = [4]int64{10, 2, 14, 6}, [4]int64{2, 6, 10, 14}

// atSample returns E at sample s of pixel (x, y), plus the bias (so the
// sample is inside iff the result is > 0).
func (e *edge) atSample(x, y, s int) int64 {
	px := int64(x)*16 + SampleX[s]
	py := int64(y)*16 + SampleY[s]
	return e.dx*(py-e.ay) - e.dy*(px-e.ax) + e.bias
}

// bestSample returns the largest of atSample(x, y, s) over the samples.
func (e *edge) bestSample(x, y int) int64 {
	m := e.atSample(x, y, 0)
	for s := 1; s < 4; s++ {
		m = max(m, e.atSample(x, y, s))
	}
	return m
}

// candidates returns the pixels whose centres (or, oversampling, some
// sample point) lie in [minX, maxX] × [minY, maxY] (1/16-pixel units).
func (p *Prim) candidates(minX, maxX, minY, maxY int64) Rect {
	if !p.Oversample {
		return centreRange(minX, maxX, minY, maxY)
	}
	// The sample offsets span 2..14 sixteenths each way.
	return Rect{
		X0: int(ceilDiv(minX-14, 16)), X1: int(floorDiv(maxX-2, 16)) + 1,
		Y0: int(ceilDiv(minY-14, 16)), Y1: int(floorDiv(maxY-2, 16)) + 1,
	}
}

// BlockSamples sets cov[i] to the samples of element i's pixel the
// primitive covers in the 4×4 block at (bx, by) — bit s for sample s
// (SampleX, SampleY), none for a pixel outside the scissor — and returns
// the elements with any: the coverage a fragment shader's MS_FLAGS start
// from in 4× multisample mode ([AG] Table 29 MS_MASK; §5: "the
// multisamples written are masked individually according to the QPU
// internal MS_FLAGS register"). Without Oversample, and for points, a
// pixel's samples are all covered or none, as its centre is
// (BlockMask).
//
// With Oversample a triangle's pixel outside the scissor but inside
// QuadRect whose 2×2 quad (elements 4q to 4q+3) has a pixel inside the
// scissor gets its coverage too, and clip has the elements inside the
// scissor: the clip window cuts quads, not pixels, in the coverage a
// shader reads, and the TLB applies it per pixel only while the shader
// has not written MS_FLAGS (DERIVED from the Pi 3 record,
// doc/hardware.md#multisampling, Clip window). Elsewhere clip is 0xFFFF.
func (p *Prim) BlockSamples(bx, by int, cov *[16]uint8) (mask, clip uint16) {
	if !p.Oversample || p.kind != kindEdges {
		m := p.BlockMask(bx, by)
		for i := range cov {
			cov[i] = uint8(m>>i&1) * 0xF
		}
		return m, 0xFFFF
	}
	par := BlockParity(by)
	s, o := p.scissor, p.QuadRect
	for i := range 16 {
		x, y := bx+int(LaneX[par][i]), by+int(LaneY[par][i])
		if x >= s.X0 && x < s.X1 && y >= s.Y0 && y < s.Y1 {
			clip |= 1 << i
		}
	}
	for i := range 16 {
		cov[i] = 0
		x, y := bx+int(LaneX[par][i]), by+int(LaneY[par][i])
		if clip&(1<<i) == 0 && (clip>>(i&^3)&0xF == 0 || x < o.X0 || x >= o.X1 || y < o.Y0 || y >= o.Y1) {
			continue
		}
		for k := range 4 {
			in := true
			for j := 0; j < p.nedge; j++ {
				if p.edges[j].atSample(x, y, k) <= 0 {
					in = false
					break
				}
			}
			if in {
				cov[i] |= 1 << k
			}
		}
		if cov[i] != 0 {
			mask |= 1 << i
		}
	}
	return mask, clip
}

// Facing results of a triangle.
const (
	// Degenerate triangles have zero area and cover no pixel.
	Degenerate = iota
	// Clockwise triangles turn clockwise in the hardware's convention.
	Clockwise
	// CounterClockwise triangles turn counter-clockwise.
	CounterClockwise
)

// Winding returns the winding of a triangle in the hardware's convention,
// the one CONFIGURATION_BITS' clockwise bit refers to: with twice the
// signed area a = (x1−x0)(y2−y0) − (y1−y0)(x2−x0) in frame coordinates
// (row 0 first in memory), a < 0 is clockwise and a > 0
// counter-clockwise. The V3D takes row 0 as the bottom of the image ([AG]
// §11, "bottom-left origin"), so this is the usual mathematical sense with
// y up. Evidence: Mesa sets the clockwise bit exactly when Gallium's
// front_ccw is set (vc4_state.c vc4_create_rasterizer_state), and Gallium's
// front_ccw faces are the ones with a < 0 in its y-down window coordinates
// (softpipe sp_setup.c: front when det < 0 with front_ccw). The project
// first read it the other way round; Mesa's behaviour on real Pis decides
// (doc/hardware.md#rasterisation), and math/scene.ClockwiseBit follows the
// same reading.
func Winding(v0, v1, v2 *Vertex) int {
	a := (int64(v1.X)-int64(v0.X))*(int64(v2.Y)-int64(v0.Y)) - (int64(v1.Y)-int64(v0.Y))*(int64(v2.X)-int64(v0.X))
	switch {
	case a < 0:
		return Clockwise
	case a > 0:
		return CounterClockwise
	}
	return Degenerate
}

// Facing classifies a triangle of winding w (see Winding) as
// CONFIGURATION_BITS does: it is forward-facing when it turns the way the
// clockwise bit names — clockwise (a < 0) with the bit set,
// counter-clockwise (a > 0) with it clear — and reverse-facing otherwise
// ([AG] Table 38 id 96: "Clockwise Primitives", "Enable Forward Facing
// Primitive", "Enable Reverse Facing Primitive"). drawn reports whether the
// enable bit of that face is set; a degenerate triangle is never drawn.
// This is the one statement of the culling rule: the binner and the
// renderer both call it.
func Facing(cfg *cl.ConfigurationBits, w int) (reverse, drawn bool) {
	if w == Degenerate {
		return false, false
	}
	reverse = (w == Clockwise) != cfg.Clockwise
	if reverse {
		return true, cfg.EnableReverseFacing
	}
	return false, cfg.EnableForwardFacing
}

// SetupTriangle prepares a triangle for rasterisation inside scissor. It
// returns false if the triangle covers no pixel there (degenerate, or its
// bounding box misses the scissor). reverse is stored as p.Reverse.
func (p *Prim) SetupTriangle(v0, v1, v2 *Vertex, scissor Rect, reverse bool) bool {
	p.kind = kindNone
	p.line = false
	w := Winding(v0, v1, v2)
	if w == Degenerate {
		return false
	}
	pt := func(v *Vertex) [2]int64 { return [2]int64{int64(v.X), int64(v.Y)} }
	a, b, c := pt(v0), pt(v1), pt(v2)
	if w == Clockwise { // a < 0: swap two vertices for a > 0
		b, c = c, b
	}
	p.edges[0], p.edges[1], p.edges[2] = newEdge(a, b), newEdge(b, c), newEdge(c, a)
	p.nedge = 3
	// Bounding box of the pixel centres that can be inside: pixel x is a
	// candidate when its centre 16x+8 lies in [minX, maxX].
	minX := min(a[0], b[0], c[0])
	maxX := max(a[0], b[0], c[0])
	minY := min(a[1], b[1], c[1])
	maxY := max(a[1], b[1], c[1])
	p.bounds = p.candidates(minX, maxX, minY, maxY).Intersect(scissor)
	p.scissor = scissor
	if p.bounds.Empty() {
		return false
	}
	p.kind = kindEdges
	p.Reverse = reverse
	p.fit(v0, v1, v2)
	return true
}

// centreRange returns the pixels whose centres lie in [minX, maxX] ×
// [minY, maxY] (1/16-pixel units).
func centreRange(minX, maxX, minY, maxY int64) Rect {
	// Centre 16x+8 ≥ minX ⇔ x ≥ ceil((minX−8)/16); ≤ maxX ⇔ x ≤ floor((maxX−8)/16).
	return Rect{
		X0: int(ceilDiv(minX-8, 16)), X1: int(floorDiv(maxX-8, 16)) + 1,
		Y0: int(ceilDiv(minY-8, 16)), Y1: int(floorDiv(maxY-8, 16)) + 1,
	}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func ceilDiv(a, b int64) int64 { return -floorDiv(-a, b) }

// fit fits the Z and 1/W planes through three vertices (vertex 0 first).
func (p *Prim) fit(v0, v1, v2 *Vertex) {
	vs := [3]*Vertex{v0, v1, v2}
	for i, v := range vs {
		p.pos[i] = [2]float64{float64(v.X) / 16, float64(v.Y) / 16}
		p.invW[i] = float64(v.InvW)
	}
	p.x0, p.y0 = p.pos[0][0], p.pos[0][1]
	p.z = p.planeThrough(float64(v0.Z), float64(v1.Z), float64(v2.Z))
	p.q = p.planeThrough(p.invW[0], p.invW[1], p.invW[2])
	p.depth = 0
}

// planeThrough fits v(x, y) = c + a(x − x0) + b(y − y0) through the values
// at p.pos. Three collinear points (degenerate) give a constant plane.
func (p *Prim) planeThrough(v0, v1, v2 float64) plane {
	x1, y1 := p.pos[1][0]-p.x0, p.pos[1][1]-p.y0
	x2, y2 := p.pos[2][0]-p.x0, p.pos[2][1]-p.y0
	det := x1*y2 - x2*y1
	if det == 0 {
		return plane{c: v0}
	}
	d1, d2 := v1-v0, v2-v0
	return plane{
		c: v0,
		a: (d1*y2 - d2*y1) / det,
		b: (x1*d2 - x2*d1) / det,
	}
}

// SetDepthOffset applies polygon offset (DEPTH_OFFSET with the
// CONFIGURATION_BITS enable): Z += factor·m + units·r, where m is the
// larger screen-space Z slope and r = 2⁻²⁴ the smallest step of the 24-bit
// depth buffer. This is OpenGL's polygon offset (glPolygonOffset), which is
// what Mesa programs the packet for ([AG] Table 38 id 101 names only the
// two fields); the hardware's exact r and slope are not documented.
func (p *Prim) SetDepthOffset(factor, units float32) {
	m := math.Max(math.Abs(p.z.a), math.Abs(p.z.b))
	p.depth = float64(factor)*m + float64(units)/(1<<24)
}

// Bounds returns the pixels to visit.
func (p *Prim) Bounds() Rect { return p.bounds }

// BlockMask returns the covered elements of the 4×4 block whose top-left
// pixel is (bx, by) (both multiples of 4): bit i set when the pixel element
// i shades is covered and inside the scissor.
func (p *Prim) BlockMask(bx, by int) uint16 {
	par := BlockParity(by)
	lx, ly := &LaneX[par], &LaneY[par]
	s := p.scissor
	var mask uint16
	switch p.kind {
	case kindEdges:
		// E is linear, so over the block's 16 centres it is smallest and
		// largest at corners: a block beyond one edge is empty, a block
		// inside all of them (and the scissor) is full.
		var base [4]int64
		full := bx >= s.X0 && bx+4 <= s.X1 && by >= s.Y0 && by+4 <= s.Y1
		for j := 0; j < p.nedge; j++ {
			e := &p.edges[j]
			e0 := e.at(bx, by)
			base[j] = e0
			sx, sy := -48*e.dy, 48*e.dx // three pixels in x, in y
			// The smallest and largest of e0, e0+sx, e0+sy, e0+sx+sy.
			mn := e0 + min(0, sx) + min(0, sy)
			mx := e0 + max(0, sx) + max(0, sy)
			if mx <= 0 {
				return 0
			}
			if mn <= 0 {
				full = false
			}
		}
		if full {
			return 0xFFFF
		}
		// E at pixel (bx+x, by+y) is base + 16·dx·y − 16·dy·x: a column
		// term and a row term per edge, added per element.
		var col, row [4][4]int64
		for j := 0; j < p.nedge; j++ {
			e := &p.edges[j]
			for k := range 4 {
				col[j][k] = base[j] - 16*e.dy*int64(k)
				row[j][k] = 16 * e.dx * int64(k)
			}
		}
		for i := range 16 {
			cx, ry := lx[i]&3, ly[i]&3
			x, y := bx+int(cx), by+int(ry)
			if x < s.X0 || x >= s.X1 || y < s.Y0 || y >= s.Y1 {
				continue
			}
			in := true
			for j := 0; j < p.nedge; j++ {
				if col[j][cx]+row[j][ry] <= 0 {
					in = false
					break
				}
			}
			if in {
				mask |= 1 << i
			}
		}
	case kindRect:
		r := p.bounds
		for i := range 16 {
			x, y := bx+int(lx[i]), by+int(ly[i])
			if x >= r.X0 && x < r.X1 && y >= r.Y0 && y < r.Y1 {
				mask |= 1 << i
			}
		}
	}
	return mask
}

// BlockSpan sorts one row of blocks of a primitive by block column k
// (the block at x0 + 4k, see RowSpan): blocks outside [Lo, Hi) are empty
// (BlockMask 0), blocks in [FullLo, FullHi) are covered whole (BlockMask
// 0xFFFF), and BlockMask decides the others.
type BlockSpan struct {
	Lo, Hi, FullLo, FullHi int
}

// RowSpan returns the BlockSpan of the ncol blocks from (x0, by) to the
// right (x0 and by multiples of 4). It asks of each edge, for a whole row
// at once, the two questions BlockMask asks of it per block: E at the
// block's best corner is E at the row's first block plus −64·dy per
// column (four pixels of 16 sub-pixel steps), a line in k, so the columns
// where it is > 0 are a range found with one division; the same for the
// worst corner gives the full range. The comparisons are BlockMask's, so
// the answers are the same by construction (TestRowSpanAgreesWithBlockMask
// checks it); a renderer skips the empty blocks and the per-element test
// of full ones.
func (p *Prim) RowSpan(x0, by, ncol int) BlockSpan {
	sp := BlockSpan{Hi: ncol, FullHi: ncol}
	if p.kind != kindEdges {
		sp.FullHi = 0 // BlockMask decides every block
		return sp
	}
	// The scissor: full blocks lie inside it (BlockMask's test on
	// bx, by), x0+4k ≥ X0 and x0+4k+4 ≤ X1.
	s := p.scissor
	if by < s.Y0 || by+4 > s.Y1 {
		sp.FullHi = 0
	}
	sp.FullLo = max(sp.FullLo, int(ceilDiv(int64(s.X0-x0), 4)))
	sp.FullHi = min(sp.FullHi, int(floorDiv(int64(s.X1-x0-4), 4))+1)
	lo, hi := int64(sp.Lo), int64(sp.Hi)
	flo, fhi := int64(sp.FullLo), int64(sp.FullHi)
	for j := 0; j < p.nedge; j++ {
		e := &p.edges[j]
		e0 := e.at(x0, by)
		sx, sy := -48*e.dy, 48*e.dx
		step := -64 * e.dy
		positiveFrom(e0+max(0, sx)+max(0, sy), step, &lo, &hi)
		positiveFrom(e0+min(0, sx)+min(0, sy), step, &flo, &fhi)
	}
	if hi <= lo {
		return BlockSpan{} // the row is empty
	}
	flo = min(max(flo, lo), hi)
	fhi = min(max(fhi, flo), hi)
	return BlockSpan{Lo: int(lo), Hi: int(hi), FullLo: int(flo), FullHi: int(fhi)}
}

// positiveFrom narrows [lo, hi) to the k where v0 + step·k > 0.
//
// RowSpan calls it twice an edge for each row of blocks a primitive
// covers, and most rows lie wholly on an edge's inner side: when the
// end of a non-empty range that the edge's value falls towards is
// already positive, the bound the division would give lies beyond that
// end and the range is left as it is, without the two 64-bit divisions
// (TestPositiveFromMatchesDivision). lo and hi are block columns, so
// step·k does not overflow.
func positiveFrom(v0, step int64, lo, hi *int64) {
	switch {
	case step == 0:
		if v0 <= 0 {
			*hi = *lo
		}
	case step > 0: // k > −v0/step
		if *lo < *hi && v0+step**lo > 0 {
			return
		}
		*lo = max(*lo, floorDiv(-v0, step)+1)
	default: // k < v0/−step
		if *lo < *hi && v0+step*(*hi-1) > 0 {
			return
		}
		*hi = min(*hi, ceilDiv(v0, -step))
	}
}

// Covers reports whether pixel (x, y) is covered (inside the scissor and
// the primitive). It is BlockMask for one pixel, for tests and callers that
// want a single pixel.
func (p *Prim) Covers(x, y int) bool {
	bx, by := x&^3, y&^3
	par := BlockParity(by)
	for i := range 16 {
		if bx+int(LaneX[par][i]) == x && by+int(LaneY[par][i]) == y {
			return p.BlockMask(bx, by)&(1<<i) != 0
		}
	}
	return false
}

// Z24 is the largest 24-bit depth: Zs = 1.0 (clear_z = 0xFFFFFF for depth
// 1.0, Mesa vc4_draw.c vc4_clear).
const Z24 = 0xFFFFFF

// BlockInputs computes the fragment shader's per-element start values for
// the block at (bx, by): W (ra15) as float32 bits, Z (rb15) as 24-bit fixed
// point, and the pixel coordinates (X_PIXEL_COORD, Y_PIXEL_COORD).
//
// Z is Zs·2²⁴ truncated and clamped to [0, 0xFFFFFF]
// (doc/hardware.md#varyings: DERIVED from the Pi 3 record; truncation
// rather than rounding UNCERTAIN).
//
// Each plane is v = (c + a·dx) + b·dy with dx, dy the pixel centre's offset
// from vertex 0; the products are rounded on their own (float64(...): no
// fused multiply-add, so every architecture computes the same bits). The
// block's four columns share c + a·dx and its four rows b·dy, so those are
// worked out once per block (TestBlockInputsPerPixel checks the lanes
// against ZAt and wAt). x and y may be nil, for a shader that does not
// read the coordinates: then only W and Z are computed.
func (p *Prim) BlockInputs(bx, by int, w, z, x, y *[16]uint32) {
	var c ColTerms
	var r RowTerms
	p.Col(bx, &c)
	p.Row(by, &r)
	p.BlockWZ(&c, &r, w, z)
	if x != nil {
		BlockCoords(bx, by, x, y)
	}
}

// BlockCoords gives each element of the block at (bx, by) its pixel's
// coordinates (X_PIXEL_COORD, Y_PIXEL_COORD).
func BlockCoords(bx, by int, x, y *[16]uint32) {
	par := BlockParity(by)
	lx, ly := &LaneX[par], &LaneY[par]
	for i := range 16 {
		x[i], y[i] = uint32(bx+int(lx[i]&3)), uint32(by+int(ly[i]&3))
	}
}

// ColTerms are the terms of the W and Z planes that depend only on a
// block's column: c + a·dx for its four pixel columns.
type ColTerms struct{ q, z [4]float64 }

// RowTerms are the terms that depend only on a block's row: b·dy for its
// four pixel rows, and the row's element layout.
type RowTerms struct {
	q, z [4]float64
	par  int
}

// Col computes the column terms of the blocks whose left pixel column is
// bx. A caller that walks many blocks computes each column's and each
// row's terms once and combines them with BlockWZ, which gives what
// BlockInputs gives (it is BlockInputs' own arithmetic).
func (p *Prim) Col(bx int, t *ColTerms) {
	for k := range 4 {
		dx := float64(bx+k) + 0.5 - p.x0
		t.q[k], t.z[k] = p.q.c+float64(p.q.a*dx), p.z.c+float64(p.z.a*dx)
	}
}

// Row computes the row terms of the blocks whose top pixel row is by.
func (p *Prim) Row(by int, t *RowTerms) {
	for k := range 4 {
		dy := float64(by+k) + 0.5 - p.y0
		t.q[k], t.z[k] = float64(p.q.b*dy), float64(p.z.b*dy)
	}
	t.par = BlockParity(by)
}

// BlockWZ computes W and Z of the block at column c and row r (see
// BlockInputs).
func (p *Prim) BlockWZ(c *ColTerms, r *RowTerms, w, z *[16]uint32) {
	blockWZOf(c, r, p.depth, w, z)
}

// ZAt returns the fixed-point Z of pixel (x, y), as BlockInputs computes it.
func (p *Prim) ZAt(x, y int) uint32 {
	dx := float64(x) + 0.5 - p.x0
	dy := float64(y) + 0.5 - p.y0
	return zToFixed(p.z.c + float64(p.z.a*dx) + float64(p.z.b*dy) + p.depth)
}

// ZScale is the factor from Zs to the fixed-point Z of rb15: Z is
// trunc(Zs·2²⁴), clamped to Z24 (zToFixed; doc/hardware.md#varyings).
const ZScale = 1 << 24

func zToFixed(zs float64) uint32 {
	f := zs * ZScale
	switch {
	case !(f > 0): // also NaN
		return 0
	case f >= Z24:
		return Z24
	}
	return uint32(f)
}

// Varying is the interpolation setup of one varying component.
type Varying struct {
	a, b float32
	x0   float32
	y0   float32
	// C is the coefficient the hardware loads into r5.
	C float32
}

// SetupVarying returns the setup of a varying whose values at the three
// setup vertices are vals (vertex 0 first; a line or a point repeats its
// last vertex). flat selects flat shading: the value of the provoking
// vertex, the last one, everywhere.
func (p *Prim) SetupVarying(vals [3]float32, flat bool) Varying {
	v := Varying{C: vals[0], x0: float32(p.x0), y0: float32(p.y0)}
	if flat {
		v.C = vals[2]
		return v
	}
	if p.line {
		// A line's third point lies beside vertex 0 (SetupLine): it
		// carries vertex 0's value, whatever the caller repeated.
		vals[2] = vals[0]
	}
	var d [3]float64
	for i := range 3 {
		d[i] = (float64(vals[i]) - float64(vals[0])) * p.invW[i]
	}
	pl := p.planeThrough(d[0], d[1], d[2])
	v.a, v.b = float32(pl.a), float32(pl.b)
	return v
}

// BlockVP computes VP = A·(x − x0) + B·(y − y0) at the centre of each pixel
// of the block at (bx, by), as float32 bits.
// The products are rounded on their own (float32(...): no fused
// multiply-add); the four columns' A terms and the four rows' B terms are
// worked out once per block (TestBlockInputsPerPixel checks the lanes
// against vpAt).
func (v *Varying) BlockVP(bx, by int, out *[16]uint32) {
	var ax, by4 [4]float32
	v.Col(bx, &ax)
	v.Row(by, &by4)
	BlockVPOf(&ax, &by4, by, out)
}

// Col computes A·(x − x0) at the centres of the four pixel columns of the
// blocks whose left column is bx. A caller that walks many blocks
// computes each column's and row's terms once and combines them with
// BlockVPOf, which gives what BlockVP gives (it is BlockVP's arithmetic).
func (v *Varying) Col(bx int, t *[4]float32) {
	fx := float32(bx) + 0.5 - v.x0
	for k := range 4 {
		t[k] = float32(v.a * (fx + float32(k)))
	}
}

// Row computes B·(y − y0) at the centres of the four pixel rows of the
// blocks whose top row is by.
func (v *Varying) Row(by int, t *[4]float32) {
	fy := float32(by) + 0.5 - v.y0
	for k := range 4 {
		t[k] = float32(v.b * (fy + float32(k)))
	}
}

// BlockVPOf combines a block's column and row terms (Col and Row) into the
// VP of each of its elements, for a block whose top row is by.
func BlockVPOf(col, row *[4]float32, by int, out *[16]uint32) {
	blockVP(col, row, BlockParity(by), out)
}

// RowLanes is Row in element order: t[i] is the term of element i's
// row, the same in blocks of either parity (LaneY). A caller that walks a
// row's blocks makes it once a row for BlockVPCLanes.
func (v *Varying) RowLanes(by int, t *[16]float32) {
	var r [4]float32
	v.Row(by, &r)
	t[0], t[1], t[2], t[3] = r[0], r[0], r[1], r[1]
	t[4], t[5], t[6], t[7] = r[2], r[2], r[3], r[3]
	t[8], t[9], t[10], t[11] = r[2], r[2], r[3], r[3]
	t[12], t[13], t[14], t[15] = r[0], r[0], r[1], r[1]
}

// BlockVPCLanes is BlockVPOf of the column terms col (Col) and the row's
// terms in element order (RowLanes), for a block of parity par
// (BlockParity of its top row), that also fills c with cbits, the bits of
// the varying's C, in every element: a varying read's two results in one
// call.
func BlockVPCLanes(col *[4]float32, row *[16]float32, par int, out *[16]uint32, cbits uint32, c *[16]uint32) {
	blockVPCLanes(col, row, par, out, cbits, c)
}

// SetupLine prepares a line from v0 to v1 of the given width in pixels
// (LINE_WIDTH). The sources do not describe the hardware's line
// rasterisation; we use OpenGL's rule for aliased wide lines: the
// parallelogram swept by a segment of length width, held parallel to the
// minor axis, centred on the line (glLineWidth, OpenGL ES 2.0 §3.4), with
// the triangle fill rule on its four edges. Varyings vary along the line
// and are constant across it. A zero-length line covers nothing.
func (p *Prim) SetupLine(v0, v1 *Vertex, width float32, scissor Rect) bool {
	p.kind = kindNone
	p.line = true
	a := [2]int64{int64(v0.X), int64(v0.Y)}
	b := [2]int64{int64(v1.X), int64(v1.Y)}
	dx, dy := b[0]-a[0], b[1]-a[1]
	if dx == 0 && dy == 0 {
		return false
	}
	h := int64(math.Round(float64(width) * 8)) // half width in 1/16 px
	if h <= 0 {
		return false
	}
	var off [2]int64
	if abs64(dx) >= abs64(dy) {
		off = [2]int64{0, h}
	} else {
		off = [2]int64{h, 0}
	}
	q := [4][2]int64{
		{a[0] - off[0], a[1] - off[1]},
		{b[0] - off[0], b[1] - off[1]},
		{b[0] + off[0], b[1] + off[1]},
		{a[0] + off[0], a[1] + off[1]},
	}
	// Orient the quad so that its interior is on the positive side.
	area := (q[1][0]-q[0][0])*(q[2][1]-q[0][1]) - (q[1][1]-q[0][1])*(q[2][0]-q[0][0])
	if area < 0 {
		q[1], q[3] = q[3], q[1]
	}
	minX, maxX, minY, maxY := q[0][0], q[0][0], q[0][1], q[0][1]
	for i := range 4 {
		p.edges[i] = newEdge(q[i], q[(i+1)%4])
		minX, maxX = min(minX, q[i][0]), max(maxX, q[i][0])
		minY, maxY = min(minY, q[i][1]), max(maxY, q[i][1])
	}
	p.nedge = 4
	p.bounds = p.candidates(minX, maxX, minY, maxY).Intersect(scissor)
	p.scissor = scissor
	if p.bounds.Empty() {
		return false
	}
	p.kind = kindEdges
	p.Reverse = false
	// Fit the planes through v0, v1 and a third point beside v0 that
	// carries v0's values, so nothing varies across the line
	// (SetupVarying gives it v0's value too).
	side := Vertex{X: v0.X - int32(dy), Y: v0.Y + int32(dx), Z: v0.Z, InvW: v0.InvW}
	p.fit(v0, v1, &side)
	return true
}

// MaxPointSize is the largest point the PSE draws, in pixels; a larger
// size is clamped to it. DERIVED: Mesa's vc4 advertises 512
// (vc4_screen.c, PIPE_CAPF_MAX_POINT_SIZE) and clamps a shader's point
// size only from below (vc4_program.c: nir_lower_point_size with min 1.0,
// no max), yet real Pi 3 boards pass dEQP-GLES2's
// rasterization.limits.points, which draws a point of size 528 centred on
// the right edge of a 264-pixel-wide target and requires its 4 leftmost
// columns untouched: a radius of 264 would reach them, one of 256 leaves
// 8. UNCERTAIN: that the limit is exactly 512, and that the hardware
// clamps rather than drops such points (both pass that test).
const MaxPointSize = 512

// SetupPoint prepares a point: a square of side size pixels centred on v
// (POINT_SIZE, or the shaded vertex's point size). A pixel is covered
// when its centre is in [x − size/2, x + size/2) × [y − size/2,
// y + size/2) — OpenGL's aliased point rule with the half-open convention
// of the fill rule above. Every value is constant over the point. A size
// above MaxPointSize is drawn at MaxPointSize.
func (p *Prim) SetupPoint(v *Vertex, size float32, scissor Rect) bool {
	p.kind = kindNone
	p.line = false
	if !(size > 0) {
		return false
	}
	size = min(size, MaxPointSize)
	cx, cy := float64(v.X)/16, float64(v.Y)/16
	h := float64(size) / 2
	r := Rect{
		X0: int(math.Ceil(cx - h - 0.5)), X1: int(math.Ceil(cx + h - 0.5)),
		Y0: int(math.Ceil(cy - h - 0.5)), Y1: int(math.Ceil(cy + h - 0.5)),
	}
	p.bounds = r.Intersect(scissor)
	p.scissor = scissor
	if p.bounds.Empty() {
		return false
	}
	p.kind = kindRect
	p.Reverse = false
	p.fit(v, v, v)
	p.size = float64(size)
	return true
}

// PointCoords returns the setups of the two varyings the PSE hands a
// point's fragment shader ahead of the shader record's own: the point
// sprite coordinates. The hardware generates them (comment in Mesa
// vc4_qir.c qir_has_side_effect_reads: the point and line coordinate
// reads are "generated by fixed-function hardware"), and Mesa's fragment
// shader reads them first for every point (vc4_program.c
// vc4_shader_ntq: point_x, point_y before any input). Their values
// (DERIVED, doc/hardware.md#varyings): x runs from 0 at the point's left
// edge to 1 at its right edge; y from 0 at its edge of largest frame row
// to 1 at its edge of row 0 — Mesa hands x to gl_PointCoord.s as it is
// and y to t as it is for a lower-left sprite origin, 1 − y for an
// upper-left one (vc4_nir_lower_io.c, for Gallium's
// PIPE_SPRITE_COORD_UPPER_LEFT, t = 0 at the point's edge nearest row 0).
// At a pixel centre (px + ½, py + ½) of a point of size s centred on
// (cx, cy): x = ½ + (px + ½ − cx)/s, y = ½ − (py + ½ − cy)/s, GL's
// gl_PointCoord rule (OpenGL ES 2.0 §3.3). As every varying, each is
// VP·W + C with W = Wc, constant over a point.
func (p *Prim) PointCoords() (x, y Varying) {
	g := p.invW[0] / p.size
	x = Varying{a: float32(g), x0: float32(p.x0), y0: float32(p.y0), C: 0.5}
	y = Varying{b: float32(-g), x0: float32(p.x0), y0: float32(p.y0), C: 0.5}
	return x, y
}

// LineCoord returns the setup of the varying the PSE hands a line's
// fragment shader ahead of the shader record's own (Mesa vc4_program.c
// vc4_shader_ntq reads line_x first for every line; vc4_qir.c
// qir_has_side_effect_reads: generated by fixed-function hardware). Mesa
// never uses its value and no source gives it: **UNCERTAIN**; the model
// hands 0.
func (p *Prim) LineCoord() Varying {
	return Varying{x0: float32(p.x0), y0: float32(p.y0)}
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// TouchesRect reports whether the primitive may cover a pixel of r: false
// only when one of its edges has every pixel centre of r outside (or r
// misses its bounds). The binner uses it to pick the tiles a primitive
// goes to; it is exact for a single edge and conservative for the
// primitive (a tile near a corner can pass with no pixel covered).
func (p *Prim) TouchesRect(r Rect) bool {
	r = r.Intersect(p.bounds)
	if r.Empty() {
		return false
	}
	if p.kind != kindEdges {
		return true
	}
	for j := 0; j < p.nedge; j++ {
		e := &p.edges[j]
		// E grows with y when dx > 0 and with x when dy < 0: take the
		// corner of r's pixel centres where E is largest.
		x, y := r.X0, r.Y0
		if e.dy < 0 {
			x = r.X1 - 1
		}
		if e.dx > 0 {
			y = r.Y1 - 1
		}
		if p.Oversample && e.bestSample(x, y) <= 0 || !p.Oversample && e.at(x, y) <= 0 {
			return false
		}
	}
	return true
}
