package selftest

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/vccube/vccube/cl"
	q "github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/texture"
	"github.com/vccube/vccube/uapi"
)

// Probe is one small job and the fact it settles.
type Probe struct {
	// Name is the probe's short name, as the table prints it.
	Name string
	// Fact is the fact it settles, in a line.
	Fact string
	// Belief is what the model believes and where that choice is written
	// (a file of the model, a section of doc/).
	Belief string
	// Answer says which output pixels or counters answer the question,
	// and how the plausible alternatives would show.
	Answer string

	build func() *job
	// ref, if set, draws the probe's colour output independently
	// (internal/refrender), and refTolerance is how many pixels may
	// differ from it, with why.
	ref          func(j *job) ([]uint32, error)
	refTolerance int
	// hw is the tolerance of a comparison with the real GPU for outputs
	// whose exact bits the model does not claim (SFU results); zero means
	// the model claims every bit.
	hw tolerance
	// floats says the colour words are float32 bits the shader wrote.
	floats bool
	// needs is a GET_PARAM the kernel must answer non-zero for the probe
	// to run (e.g. uapi.ParamSupportsThreadedFS), or 0.
	needs uint32
	// unmodelled marks a probe the model cannot answer (it refuses the
	// job): it runs on a real GPU only, and its output goes to the bundle
	// for the model to learn from.
	unmodelled bool
}

// tolerance bounds the difference of float outputs: the error
// |a − b| / max(|b|, 1) (relative above 1, absolute below) at most limit.
type tolerance struct {
	limit float64
	why   string
}

// Probes returns the probe list, in the order the table prints it.
func Probes() []*Probe {
	list := []*Probe{
		cullProbe(), fillRuleProbe(), clipWindowProbe(), nearClipProbe(),
		zRoundingProbe(), zTestProbe(), noTLBZProbe(),
		guardBandProbe(), lineViewportProbe(), vpmLayoutProbe(), flatShadeProbe(), varyingProbe(), varyingPortsProbe(), vpmPortsProbe(),
	}
	for _, t := range textureTypes {
		list = append(list, textureProbe(t))
	}
	for _, t := range unmodelledTypes {
		list = append(list, textureProbe(t))
	}
	list = append(list, mirrorProbe(), npotMipProbe(), rasterNPOTProbe(), tOrLTProbe(),
		bilinearProbe(), coordBitsProbe(), npotTieProbe(), etc1EdgesProbe(), tmuSlotsProbe(), tmuMixedProbe(), mipProbe(), footprintProbe(), bgr565Probe(false), bgr565Probe(true), msFlagsProbe(), msClipProbe(),
		sfuProbe(), fmulProbe(), faddProbe(), colourPackProbe(), colourUnpackProbe(), threadProbe())
	return list
}

// solid returns a colour word with alpha 0xFF.
func solid(rgb uint32) uint32 { return 0xFF000000 | rgb }

// palette gives draws distinct colours whose bit 0 is clear (room for
// REV_FLAG).
var palette = []uint32{solid(0x3060C0), solid(0xC03060), solid(0x60C030), solid(0xE0E020),
	solid(0x20E0E0), solid(0xE020E0), solid(0x904010), solid(0x109040), solid(0x401090)}

const background = 0xFF101010

// flatDraw is a draw of triangles in one uniform colour.
func flatDraw(cfg cl.ConfigurationBits, colour uint32, verts ...vertex) draw {
	return draw{config: cfg, mode: cl.PrimitiveModeTriangles, verts: verts, fs: fsUniform, unis: []uniform{val(colour)}}
}

// 1. Culling and the clockwise bit.
func cullProbe() *Probe {
	configs := []cl.ConfigurationBits{
		{EnableForwardFacing: true, DepthFunc: cl.DepthFuncAlways},
		{EnableForwardFacing: true, Clockwise: true, DepthFunc: cl.DepthFuncAlways},
		{EnableReverseFacing: true, DepthFunc: cl.DepthFuncAlways},
		{EnableReverseFacing: true, Clockwise: true, DepthFunc: cl.DepthFuncAlways},
	}
	build := func() *job {
		j := &job{width: 128, height: 64, format: cl.RenderFormatRGBA8888, clearColour: background}
		for i, c := range configs {
			x := float64(32 * i)
			p := func(dx, dy float64) vertex { return j.at(x+dx, dy, 0.5, 1) }
			// Top: area > 0 with row 0 first, counter-clockwise with row 0
			// at the bottom. Bottom: the same triangle wound the other way.
			tris := []vertex{p(3, 3), p(29, 5), p(6, 28), p(3, 36), p(8, 61), p(29, 38)}
			d := draw{config: c, mode: cl.PrimitiveModeTriangles, verts: tris, fs: fsUniformRev, unis: []uniform{val(palette[i])}}
			j.draws = append(j.draws, d)
		}
		return j
	}
	return &Probe{
		Name: "cull",
		Fact: "clockwise bit, culling, REV_FLAG",
		Belief: "a triangle is clockwise when its signed area with row 0 first is negative (row 0 at the bottom, AG §11); the bit makes clockwise triangles forward-facing; REV_FLAG is 1 on reverse-facing ones " +
			"(sim/gpu/raster Winding and Facing; doc/hardware.md#rasterisation, DERIVED)",
		Answer: "four columns, one per combination of clockwise bit and enabled face, each with a counter-clockwise triangle (top) and a clockwise one (bottom): which triangles appear, and bit 0 of their colour (REV_FLAG); counter PTB-primitives-discarded-reversed",
		build:  build,
		ref: func(j *job) ([]uint32, error) {
			return flatReference(j, false, func(d, tri int) ([2]bool, uint32) {
				c := configs[d]
				// Forward-facing is clockwise with the bit set.
				fwd := refOrientation(c.Clockwise)
				var drawn [2]bool
				drawn[fwd] = c.EnableForwardFacing
				drawn[1-fwd] = c.EnableReverseFacing
				// Triangle 0 is counter-clockwise, 1 clockwise.
				orient := [2]int{ccw, cw}[tri]
				rev := uint32(0)
				if orient != fwd {
					rev = 1
				}
				return drawn, palette[d] | rev
			})
		},
	}
}

// 2. The fill rule.
func fillRuleProbe() *Probe {
	ring := [][2]float64{{16.5, 16.5}, {32.5, 16.5}, {48.5, 16.5}, {48.5, 32.5}, {48.5, 48.5}, {32.5, 48.5}, {16.5, 48.5}, {16.5, 32.5}}
	build := func() *job {
		j := &job{width: 64, height: 64, format: cl.RenderFormatRGBA8888, clearColour: background}
		c := j.at(32.5, 32.5, 0.5, 1)
		for i := range ring {
			a, b := ring[i], ring[(i+1)%len(ring)]
			j.draws = append(j.draws, flatDraw(bothFaces, palette[i], c, j.at(a[0], a[1], 0.5, 1), j.at(b[0], b[1], 0.5, 1)))
		}
		// A sliver with edges of slope 1/2 and 2 through pixel centres.
		j.draws = append(j.draws, flatDraw(bothFaces, palette[8], j.at(2.5, 2.5, 0.5, 1), j.at(14.5, 8.5, 0.5, 1), j.at(5.5, 14.5, 0.5, 1)))
		return j
	}
	return &Probe{
		Name:   "fill-rule",
		Fact:   "pixel centres on edges (fill rule)",
		Belief: "centres on a top or left edge are inside, on a bottom or right edge outside (Direct3D's top-left rule), y growing with memory rows (sim/gpu/raster package doc, Fill rule; doc/hardware.md#open-questions item 3)",
		Answer: "a fan of eight triangles around a pixel centre, every vertex on a pixel centre, each its own colour: the owner of every pixel on the shared edges and on the outer square's sides; a bottom-left or all-inclusive rule moves whole rows and columns",
		build:  build,
		ref: func(j *job) ([]uint32, error) {
			return flatReference(j, false, func(d, _ int) ([2]bool, uint32) { return [2]bool{true, true}, palette[d] })
		},
	}
}

// 3. The clip window.
func clipWindowProbe() *Probe {
	build := func() *job {
		j := &job{width: 64, height: 64, format: cl.RenderFormatRGBA8888, clearColour: background,
			clip: &cl.ClipWindow{Left: 5, Bottom: 7, Width: 37, Height: 21}}
		j.draws = append(j.draws, flatDraw(bothFaces, palette[0], j.rect(0, 0, 64, 64, 0.5, nil)...))
		return j
	}
	return &Probe{
		Name:   "clip-window",
		Fact:   "CLIP_WINDOW origin and extent",
		Belief: "the window covers columns left … left+width−1 and rows bottom … bottom+height−1 (in 16 bits: a zero size at 0 wraps and clips nothing) counted from row 0 of memory (sim/gpu/raster ClipRect; cl/spec ClipWindow)",
		Answer: "a full-frame rectangle clipped to left 5, bottom 7, 37×21: the drawn rectangle's position; rows counted from the other end would put it at rows 36–56",
		build:  build,
		ref: func(j *job) ([]uint32, error) {
			return flatReference(j, false, func(int, int) ([2]bool, uint32) { return [2]bool{true, true}, palette[0] })
		},
	}
}

// 4. Near- and far-plane clipping.
func nearClipProbe() *Probe {
	tris := [][3][4]float64{
		// Crosses the near plane: the third vertex has z < −w.
		{{-0.9, -0.9, 0, 1}, {0.8, -0.7, 0.5, 1}, {0.2, 1.8, -4, 2}},
		// Crosses the far plane: the second vertex has z > w.
		{{-0.95, 0.2, 0.2, 1}, {-0.1, 0.1, 2.6, 1.3}, {-0.7, 0.95, 0.1, 1}},
	}
	build := func() *job {
		j := &job{width: 64, height: 64, format: cl.RenderFormatRGBA8888, clearColour: background}
		for i, t := range tris {
			j.draws = append(j.draws, flatDraw(bothFaces, palette[i], j.atClip(t[0]), j.atClip(t[1]), j.atClip(t[2])))
		}
		return j
	}
	return &Probe{
		Name:   "near-clip",
		Fact:   "clipping planes, clipped edges",
		Belief: "primitives are clipped to 0 ≤ Zs ≤ 1 (OpenGL's −Wc ≤ Zc ≤ Wc with Mesa's depth scale), to Wc > 0 and to the 12.4 guard band, and rasterised as new vertices made from the clip coordinates with CLIPPER_XY/Z_SCALING (sim/gpu/bin/clip.go; doc/hardware.md#open-questions item 7)",
		Answer: "a triangle through the near plane and one through the far plane: the cut edges' positions; counter PTB-primitives-need-clipping; no clipping would draw the whole triangles",
		build:  build,
		ref: func(j *job) ([]uint32, error) {
			return flatReference(j, true, func(d, _ int) ([2]bool, uint32) { return [2]bool{true, true}, palette[d] })
		},
		refTolerance: 16,
	}
}

// guardBandDistances are how far (in pixels from the viewport centre)
// the guard-band probe's slivers reach: 1, 2, 4 and 8 slivers to each
// distance, so that the count of clipped ones says which were clipped.
var guardBandDistances = []float64{1100, 1900, 1900, 2100, 2100, 2100, 2100, 4000, 4000, 4000, 4000, 4000, 4000, 4000, 4000}

// Vertices beyond the guard band.
func guardBandProbe() *Probe {
	build := func() *job {
		j := &job{width: 64, height: 64, format: cl.RenderFormatRGBA8888, clearColour: background}
		// px turns a position in pixels into clip coordinates (w = 1):
		// the viewport maps ±1 to ±32 pixels around the centre.
		px := func(x, y float64) [4]float64 { return [4]float64{(x - 32) / 32, (y - 32) / 32, 0, 1} }
		for k, d := range guardBandDistances {
			m := float64(k / 4 * 16)
			var tri [3][4]float64
			switch k % 4 {
			case 0: // to the right, from the left edge
				tri = [3][4]float64{px(2, 4+m), px(2, 7+m), px(32+d, 5.5+m)}
			case 1: // down, from the top
				tri = [3][4]float64{px(4+m, 2), px(7+m, 2), px(5.5+m, 32+d)}
			case 2: // to the left, from the right edge
				tri = [3][4]float64{px(62, 12+m), px(62, 15+m), px(32-d, 13.5+m)}
			case 3: // up, from the bottom
				tri = [3][4]float64{px(12+m, 62), px(15+m, 62), px(13.5+m, 32-d)}
			}
			j.draws = append(j.draws, flatDraw(bothFaces, palette[k%len(palette)], j.atClip(tri[0]), j.atClip(tri[1]), j.atClip(tri[2])))
		}
		return j
	}
	return &Probe{
		Name: "guard-band",
		Fact: "vertices beyond the guard band",
		Belief: "the guard band is the 12.4 range of Xs and Ys, ±32767/16 pixels from the viewport centre: a primitive with a vertex beyond it is clipped and counted in PTB-primitives-need-clipping, " +
			"one inside it is rasterised as it is and scissored by the clip window (sim/gpu/bin/clip.go; doc/hardware.md#open-questions item 7)",
		Answer: "fifteen slivers from the frame's edges towards points 1100 (1 sliver), 1900 (2), 2100 (4) and 4000 pixels (8) from the centre: counter PTB-primitives-need-clipping " +
			"is the number clipped, 12 in the model (15 with a guard band under 1100 pixels, 14 under 1900, 8 beyond 2100), and the slivers' pixels",
		build: build,
		ref: func(j *job) ([]uint32, error) {
			return flatReference(j, false, func(d, _ int) ([2]bool, uint32) { return [2]bool{true, true}, palette[d%len(palette)] })
		},
		refTolerance: 16,
	}
}

// lineViewportDraws are the viewport probe's draws, in a 64×64 frame
// whose viewport is its middle 32×32 pixels (16 to 48): each a mode and
// two vertices (one for the point), in pixels.
var lineViewportDraws = []struct {
	mode  cl.PrimitiveMode
	verts [][2]float64
	kept  bool // the model draws it
}{
	{cl.PrimitiveModeLines, [][2]float64{{20, 32}, {44, 32}}, true},      // inside: the control
	{cl.PrimitiveModeLines, [][2]float64{{20, 48.5}, {40, 48.5}}, false}, // beyond the bottom edge
	{cl.PrimitiveModeLines, [][2]float64{{15.5, 22}, {15.5, 42}}, false}, // beyond the left edge
	{cl.PrimitiveModePoints, [][2]float64{{32, 15.5}}, true},             // beyond the top edge
	{cl.PrimitiveModeLines, [][2]float64{{49.5, 17}, {47, 14.5}}, true},  // beyond the right and top edges
}

// Wide lines and points beyond a viewport edge.
func lineViewportProbe() *Probe {
	build := func() *job {
		j := &job{width: 64, height: 64, format: cl.RenderFormatRGBA8888, clearColour: background,
			vpW: 32, vpH: 32, pointSize: 5, lineWidth: 5}
		for i, d := range lineViewportDraws {
			var verts []vertex
			for _, v := range d.verts {
				verts = append(verts, j.at(v[0], v[1], 0.5, 1))
			}
			fs := fsUniformLine
			if d.mode == cl.PrimitiveModePoints {
				fs = fsUniformPoint
			}
			j.draws = append(j.draws, draw{config: bothFaces, mode: d.mode, verts: verts, fs: fs, unis: []uniform{val(palette[i])}})
		}
		return j
	}
	return &Probe{
		Name: "line-viewport",
		Fact: "wide lines and points beyond the viewport",
		Belief: "a line whose two vertices are beyond the same viewport edge (|Xc| or |Yc| > Wc) is discarded however wide, and counted in PTB-primitives-discarded-outside-viewport; " +
			"a point is not; a line beyond two different edges, past a corner, is kept (UNCERTAIN) " +
			"(sim/gpu/bin/clip.go; doc/hardware.md#binning, Lines beyond the viewport, DERIVED from the Pi 3 record)",
		Answer: "a 32×32 viewport in the middle of a 64×64 frame (clip window the whole frame), a 5-pixel line inside it (the control), 5-pixel lines half a pixel beyond its bottom and its left edge, a 5-pixel point half a pixel beyond its top edge, " +
			"and a 5-pixel line beyond its right and top edges past the corner, each reaching 2 pixels into it: " +
			"the model draws the control, the point and the corner line and not the other two; OpenGL draws all five (at least inside the viewport)",
		build: build,
	}
}

// 5. Z rounding: constant depths written and stored.
var zValues = func() []float64 {
	var zs []float64
	for _, n := range []float64{1, 4096, 0x800000, 0xFFFF00} {
		for _, f := range []float64{0.3, 0.5, 0.7} {
			zs = append(zs, (n+f)/0xFFFFFF)
		}
	}
	return append(zs, 1.0/3, 0.5, 1-1.0/(1<<25))
}()

func zRoundingProbe() *Probe {
	build := func() *job {
		j := &job{width: 64, height: 64, format: cl.RenderFormatRGBA8888, clearColour: background, storeZ: true, clearZ: 0x123456}
		cfg := cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, DepthFunc: cl.DepthFuncAlways, ZUpdates: true}
		for i, z := range zValues {
			x, y := 16*(i%4), 16*(i/4)
			d := draw{config: cfg, mode: cl.PrimitiveModeTriangles, verts: j.rect(x, y, x+16, y+16, z, nil), fs: fsUniformZ, unis: []uniform{val(palette[i%len(palette)])}}
			j.draws = append(j.draws, d)
		}
		// The last square: Z from 0.1 at its left to 0.9 at its right.
		v := func(x, y int, z float64) vertex { return j.at(float64(x), float64(y), z, 1) }
		slope := []vertex{v(48, 48, 0.1), v(64, 48, 0.9), v(48, 64, 0.1), v(48, 64, 0.1), v(64, 48, 0.9), v(64, 64, 0.9)}
		j.draws = append(j.draws, draw{config: cfg, mode: cl.PrimitiveModeTriangles, verts: slope, fs: fsUniformZ, unis: []uniform{val(palette[0])}})
		return j
	}
	return &Probe{
		Name:   "z-rounding",
		Fact:   "Zs to 24-bit Z rounding",
		Belief: "Z = Zs·2²⁴ truncated, clamped to 0xFFFFFF, interpolated in float64 (sim/gpu/raster zToFixed; doc/hardware.md#varyings: the scale DERIVED from the Pi 3 record, truncation UNCERTAIN)",
		Answer: "the stored Z/stencil buffer (Z in bits 31:8): fifteen squares of constant Zs at (n + 0.3, 0.5, 0.7)/0xFFFFFF and at 1/3, 1/2, 1 − 2⁻²⁵ — Zs·2²⁴ rounded, or Zs·0xFFFFFF rounded or truncated, give other values — and a square whose Z runs from 0.1 to 0.9",
		build:  build,
	}
}

// 6. The depth test on values that differ by less than a step.
func zTestProbe() *Probe {
	funcs := []cl.DepthFunc{cl.DepthFuncLess, cl.DepthFuncLessEqual, cl.DepthFuncEqual, cl.DepthFuncGreater}
	build := func() *job {
		j := &job{width: 64, height: 64, format: cl.RenderFormatRGBA8888, clearColour: background, storeZ: true, clearZ: 0xFFFFFF}
		const z0 = 1000.0 / 0xFFFFFF
		always := cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, DepthFunc: cl.DepthFuncAlways, ZUpdates: true}
		j.draws = append(j.draws, draw{config: always, mode: cl.PrimitiveModeTriangles, verts: j.rect(0, 0, 64, 64, z0, nil), fs: fsUniformZ, unis: []uniform{val(palette[0])}})
		// Rows: the second draw's Zs is z0 plus −0.6, −0.3, +0.3, +0.6
		// steps of 1/0xFFFFFF; columns: the depth function.
		for r, dz := range []float64{-0.6, -0.3, 0.3, 0.6} {
			for c, fn := range funcs {
				cfg := cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, DepthFunc: fn}
				x, y := 16*c, 16*r
				j.draws = append(j.draws, draw{config: cfg, mode: cl.PrimitiveModeTriangles,
					verts: j.rect(x+2, y+2, x+14, y+14, z0+dz/0xFFFFFF, nil), fs: fsUniformZ, unis: []uniform{val(palette[1+c])}})
			}
		}
		return j
	}
	return &Probe{
		Name:   "z-test",
		Fact:   "depth test within one Z step",
		Belief: "the test compares the 24-bit values trunc(Zs·2²⁴): Z0 is 1000, the −0.6 and −0.3 steps are 999, the +0.3 and +0.6 steps equal Z0 (sim/gpu/tlb ZWrite; sim/gpu/raster zToFixed)",
		Answer: "a 4×4 grid of squares drawn over a plane at Z0 with LESS, LEQUAL, EQUAL, GREATER (columns) at Z0 −0.6, −0.3, +0.3, +0.6 steps (rows): which squares pass (their colour) and the stored Z",
		build:  build,
	}
}

// 7. A fragment shader that never writes TLB_Z.
func noTLBZProbe() *Probe {
	build := func() *job {
		j := &job{width: 64, height: 64, format: cl.RenderFormatRGBA8888, clearColour: background, storeZ: true, clearZ: 0x800000}
		never := cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, DepthFunc: cl.DepthFuncNever, ZUpdates: true}
		j.draws = append(j.draws, flatDraw(never, palette[2], j.rect(8, 8, 56, 56, 0.25, nil)...))
		return j
	}
	return &Probe{
		Name:   "no-tlb-z",
		Fact:   "depth test without a TLB_Z write",
		Belief: "it does not: with depth function NEVER and early Z off the square is drawn and Z stays as cleared (doc/hardware.md#fragment-shaders, DERIVED; sim/gpu/render/frag.go)",
		Answer: "the square's pixels (drawn or background) and the stored Z (0x800000 or 0.25)",
		build:  build,
	}
}

// 8. The shaded vertex format and the VPM.
func vpmLayoutProbe() *Probe {
	cols := [][4]float32{{17, 34, 51, 255}, {200, 100, 50, 25}, {1, 2, 3, 4}}
	word := func(c [4]float32) uint32 {
		return uint32(c[0]) | uint32(c[1])<<8 | uint32(c[2])<<16 | uint32(c[3])<<24
	}
	build := func() *job {
		j := &job{width: 64, height: 64, format: cl.RenderFormatRGBA8888, clearColour: background}
		for i, c := range cols {
			v := func(x, y float64) vertex { return j.at(x, y, 0.5, 1, c[:]...) }
			x := float64(20 * i)
			verts := []vertex{v(x+2, 4), v(x+19, 9), v(x+6, 60)}
			j.draws = append(j.draws, draw{config: bothFaces, mode: cl.PrimitiveModeTriangles, verts: verts, fs: fsVaryingsAsBytes})
		}
		return j
	}
	return &Probe{
		Name:   "vpm-layout",
		Fact:   "shaded vertex formats in the VPM",
		Belief: "coordinate shaders write Xc Yc Zc Wc Xs|Ys Zs 1/Wc, vertex shaders Xs|Ys Zs 1/Wc and the varyings, Xs in bits 15:0 (shaders/qpu ShadedFormat; AG Figures 10–11)",
		Answer: "three triangles whose four varyings are constant whole numbers written as the colour's bytes: a misread word moves or loses a triangle or scrambles its colour",
		build:  build,
		ref: func(j *job) ([]uint32, error) {
			return flatReference(j, false, func(d, _ int) ([2]bool, uint32) { return [2]bool{true, true}, word(cols[d]) })
		},
	}
}

// 9. Flat shading and the provoking vertex.
func flatShadeProbe() *Probe {
	build := func() *job {
		j := &job{width: 64, height: 64, format: cl.RenderFormatRGBA8888, clearColour: background}
		vals := [3][4]float32{{10, 20, 30, 40}, {100, 110, 120, 130}, {200, 210, 220, 230}}
		v := func(k int, x, y float64) vertex { return j.at(x, y, 0.5, 1, vals[k][:]...) }
		// The same triangle twice, its vertices listed from a different
		// one; varyings 0 and 1 flat, 2 and 3 smooth.
		d1 := draw{config: bothFaces, mode: cl.PrimitiveModeTriangles, fs: fsVaryingsAsBytes, flat: 0b0011,
			verts: []vertex{v(0, 2, 2), v(1, 30, 4), v(2, 6, 30)}}
		d2 := draw{config: bothFaces, mode: cl.PrimitiveModeTriangles, fs: fsVaryingsAsBytes, flat: 0b0011,
			verts: []vertex{v(1, 62, 36), v(2, 38, 62), v(0, 34, 34)}}
		j.draws = append(j.draws, d1, d2)
		return j
	}
	return &Probe{
		Name:   "flat-shade",
		Fact:   "provoking vertex, vertex of C",
		Belief: "flat values from the last vertex of the primitive as submitted, smooth ones with C from vertex 0 (sim/gpu/raster package doc; doc/hardware.md#varyings, doc/hardware.md#open-questions item 2)",
		Answer: "two triangles, one listed from each end, with varyings 0–1 flat and 2–3 smooth, written as the colour's bytes: bytes 0–1 show the provoking vertex's values (10/20, 100/110 or 200/210)",
		build:  build,
	}
}

// 10. Varying interpolation, W and Z.
func varyingProbe() *Probe {
	build := func() *job {
		j := &job{width: 128, height: 64, format: cl.RenderFormatRGBA8888, clearColour: 0}
		for k, fs := range []*fragment{fsRawVarying, fsRawW} {
			x := float64(64 * k)
			verts := []vertex{j.at(x+3, 2, 0.2, 1, 0.125), j.at(x+62, 9, 0.7, 4, 7.3), j.at(x+9, 61, 0.95, 0.5, -2.5)}
			j.draws = append(j.draws, draw{config: bothFaces, mode: cl.PrimitiveModeTriangles, verts: verts, fs: fs})
		}
		return j
	}
	return &Probe{
		Name:   "varyings",
		Fact:   "varying and W interpolation",
		Belief: "the shader gets W = 1/(1/Wc interpolated) and VP, C with VP·W + C the perspective-correct value, C being vertex 0's value (sim/gpu/raster package doc, Interpolation; AG §6)",
		Answer: "one triangle with 1/Wc of 1, 1/4 and 2 drawn twice, writing the bits of varying 0 and of W (ra15): every pixel's value",
		build:  build,
		floats: true,
		hw:     tolerance{limit: 1e-5, why: "interpolation arithmetic the model does in its own order"},
	}
}

// VARYING_READ named on both read ports.
func varyingPortsProbe() *Probe {
	build := func() *job {
		j := &job{width: 128, height: 64, format: cl.RenderFormatRGBA8888, clearColour: 0}
		for k, fs := range []*fragment{fsVaryBothPorts, fsVaryOnePort} {
			x := float64(64 * k)
			verts := []vertex{j.at(x+3, 2, 0.5, 1, 1, 100), j.at(x+62, 9, 0.5, 1, 2, 300), j.at(x+9, 61, 0.5, 1, 4, 700)}
			j.draws = append(j.draws, draw{config: bothFaces, mode: cl.PrimitiveModeTriangles, verts: verts, fs: fs})
		}
		return j
	}
	return &Probe{
		Name:   "varying-ports",
		Fact:   "VARYING_READ on both read ports",
		Belief: "one instruction that names VARYING_READ on both read ports pops one varying, which both ports see, as for UNIFORM_READ (sim/gpu/qpuexec compile.go sameFIFO; doc/hardware.md#machine; doc/hardware.md#open-questions item 10)",
		Answer: "one triangle with two smooth varyings (1, 2, 4 and 100, 300, 700) drawn by a shader that adds VARYING_READ on ports A and B and then reads once more (left), and by one that reads port A for both operands (right), each writing the sum's bits: " +
			"the halves are equal when one value is popped; with two pops the left shows VP0 + VP1",
		build:  build,
		floats: true,
	}
}

// VPM_READ named on both read ports.
func vpmPortsProbe() *Probe {
	build := func() *job {
		j := &job{width: 128, height: 64, format: cl.RenderFormatRGBA8888, clearColour: 0}
		v0 := [3]float32{1, 2, 4}
		v1 := [3]float32{100, 300, 700}
		pos := [3][2]float64{{3, 2}, {62, 9}, {9, 61}}
		for k := 0; k < 2; k++ {
			var verts []vertex
			for i, p := range pos {
				a := v0[i]
				if k == 1 { // the pass-through shader's vertex holds 2·v0
					a *= 2
				}
				verts = append(verts, j.at(float64(64*k)+p[0], p[1], 0.5, 1, a, v1[i]))
			}
			d := draw{config: bothFaces, mode: cl.PrimitiveModeTriangles, verts: verts, fs: fsVarying0Of2}
			if k == 0 {
				d.vs = vsVPMBothPorts
			}
			j.draws = append(j.draws, d)
		}
		return j
	}
	return &Probe{
		Name:   "vpm-ports",
		Fact:   "VPM_READ on both read ports",
		Belief: "one instruction that names VPM_READ on both read ports pops one word, which both ports see, as for UNIFORM_READ (sim/gpu/qpuexec compile.go sameFIFO; doc/hardware.md#machine; doc/hardware.md#open-questions item 10)",
		Answer: "one triangle whose varying 0 (1, 2, 4) the vertex shader writes as VPM_READ on port A plus port B (left), and the same triangle with 2, 4, 8 in its vertices through the pass-through shader (right), " +
			"each writing varying 0's bits: the halves are equal when one word is popped; with two pops the left shows v0 + v1 (100, 300, 700) and its shader reads one word past those set up",
		build:  build,
		floats: true,
	}
}

// 11. Texture types, layouts and FLIPY.
var textureTypes = []texture.Type{texture.RGBA8888, texture.RGBX8888, texture.RGBA4444, texture.RGBA5551,
	texture.RGB565, texture.LUMINANCE, texture.ALPHA, texture.LUMALPHA, texture.RGBA32R}

// unmodelledTypes are the texture types the kernel accepts (vc4_validate.c
// reloc_tex) whose returned words the sources do not give, so the model
// refuses them (sim/gpu/tmu package doc): a GPU's answer is the only
// source there is.
var unmodelledTypes = []texture.Type{texture.ETC1, texture.S16F, texture.S8, texture.S16}

// noise fills a picture with deterministic pseudo-random bytes.
func noise(p texture.Picture, seed uint32) {
	x := seed*2654435761 + 1
	for i := range p.Pix {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		p.Pix[i] = byte(x >> 7)
	}
}

func textureProbe(t texture.Type) *Probe {
	build := func() *job {
		j := &job{width: 128, height: 128, format: cl.RenderFormatRGBA8888, clearColour: background}
		// 64×64 is T format (LT below 4 utiles a side; texture.SizeIsLT),
		// 16×16 LT; RGBA32R is raster whatever its size.
		for k, size := range []int{64, 16} {
			cpp, gw, gh, _ := t.Storage(size, size)
			pic, _ := texture.NewPicture(gw, gh, cpp)
			noise(pic, uint32(t)*7+uint32(size))
			for f := 0; f < 2; f++ {
				j.textures = append(j.textures, texSpec{typ: t, pics: []texture.Picture{pic}, flipY: f == 1, sampler: texture.VkcubeSampler})
				ti := len(j.textures) - 1
				x, y := 64*f, 64*k
				st := func(px, py int) []float32 { return []float32{float32(px-x) / 64, float32(py-y) / 64} }
				j.draws = append(j.draws, draw{config: bothFaces, mode: cl.PrimitiveModeTriangles,
					verts: j.rect(x, y, x+64, y+64, 0.5, st), fs: fsTexture, unis: texUnis(ti), samples: []int{ti}})
			}
		}
		return j
	}
	layouts := "T and LT"
	if t.Raster() {
		layouts = "raster"
	}
	p := &Probe{
		Name:   "tex-" + t.String(),
		Fact:   fmt.Sprintf("%v texture: %s, FLIPY, texel word", t, layouts),
		Belief: "the layouts of package texture (doc/hardware.md#texture-formats); each channel expanded to 8 bits, the type's first channel in byte 0 (sim/gpu/tmu package doc, Returned words); FLIPY samples row height−1−t·height",
		Answer: "four quadrants, the 64- and the 16-texel texture of random bytes, FLIPY clear (left) and set (right), one texel per pixel or per 4×4 pixels with NEAREST: every pixel is one texel's word",
		build:  build,
	}
	if indexOfType(unmodelledTypes, t) >= 0 {
		p.unmodelled = true
		p.Belief = "none: the model refuses the type (sim/gpu/tmu package doc, Not modelled); the kernel accepts it (vc4_validate.c reloc_tex)"
		p.Answer = "the same four quadrants: what the GPU returns, saved in the bundle"
		if t == texture.ETC1 {
			p.needs = uapi.ParamSupportsETC1
		}
	}
	return p
}

func indexOfType(ts []texture.Type, t texture.Type) int {
	for i, x := range ts {
		if x == t {
			return i
		}
	}
	return -1
}

// 12. Bilinear weights.
func bilinearProbe() *Probe {
	build := func() *job {
		j := &job{width: 64, height: 64, format: cl.RenderFormatRGBA8888, clearColour: background}
		pic, _ := texture.NewPicture(4, 4, 4)
		noise(pic, 99)
		for i := 0; i < 16; i++ { // channel 0 a checkerboard of 0 and 255
			pic.Pix[4*i] = byte(255 * ((i ^ i/4) & 1))
		}
		j.textures = []texSpec{{typ: texture.RGBA8888, pics: []texture.Picture{pic},
			sampler: texture.Sampler{Min: texture.MinLinear, Mag: texture.MagLinear, WrapS: texture.WrapClamp, WrapT: texture.WrapClamp}}}
		// s and t from 0.07 to 0.93 across the frame: 4·0.86/64 texels
		// per pixel, so the weights take many values that are not
		// multiples of a power of two.
		st := func(x, y int) []float32 { return []float32{0.07 + 0.86*float32(x)/64, 0.07 + 0.86*float32(y)/64} }
		j.draws = []draw{{config: bothFaces, mode: cl.PrimitiveModeTriangles, verts: j.rect(0, 0, 64, 64, 0.5, st),
			fs: fsTexture, unis: texUnis(0), samples: []int{0}}}
		return j
	}
	return &Probe{
		Name:   "bilinear",
		Fact:   "bilinear weights and rounding",
		Belief: "the 2×2 texels around (u − ½, v − ½) blended with weights quantised to 1/256 and rounded (sim/gpu/tmu package doc, Filtering; filter.go; doc/hardware.md#open-questions item 8)",
		Answer: "a 4×4 texture (channel 0 a 0/255 checkerboard) magnified to 64×64 with LINEAR at steps that are not powers of two: every pixel's channels",
		build:  build,
	}
}

// 13. Mipmap level selection.
func mipProbe() *Probe {
	lods := []float64{-0.5, 0.3, 0.45, 0.55, 1.0, 1.49, 1.51, 2.7}
	build := func() *job {
		j := &job{width: 128, height: 64, format: cl.RenderFormatRGBA8888, clearColour: background}
		var pics []texture.Picture
		for l := 0; l < 7; l++ {
			s := 64 >> l
			p, _ := texture.NewPicture(s, s, 4)
			c := palette[l]
			for i := 0; i < s*s; i++ {
				p.Pix[4*i], p.Pix[4*i+1], p.Pix[4*i+2], p.Pix[4*i+3] = byte(c), byte(c>>8), byte(c>>16), byte(c>>24)
			}
			pics = append(pics, p)
		}
		for f, minf := range []texture.MinFilter{texture.MinNearMipNear, texture.MinLinMipLin} {
			j.textures = append(j.textures, texSpec{typ: texture.RGBA8888, pics: pics,
				sampler: texture.Sampler{Min: minf, Mag: texture.MagNearest, WrapS: texture.WrapRepeat, WrapT: texture.WrapRepeat}})
			for i, l := range lods {
				// A strip 64×8 whose texture coordinates advance by 2^l
				// texels per pixel in both directions.
				k := math.Pow(2, l) / 64
				x, y := 64*f, 8*i
				st := func(px, py int) []float32 { return []float32{float32(float64(px-x) * k), float32(float64(py-y) * k)} }
				j.draws = append(j.draws, draw{config: bothFaces, mode: cl.PrimitiveModeTriangles,
					verts: j.rect(x, y, x+64, y+8, 0.5, st), fs: fsTexture, unis: texUnis(f), samples: []int{f}})
			}
		}
		return j
	}
	return &Probe{
		Name:   "mip-lod",
		Fact:   "LOD and mip level selection",
		Belief: "LOD = log2 of the larger texel step between the quad's pixels, less 1/64 (doc/hardware.md#tmu, DERIVED; its sign and size UNCERTAIN: the 1.49 and 1.51 strips settle the sign); NEAR_MIP_NEAR takes level ⌈LOD + ½⌉ − 1, LIN_MIP_LIN blends levels ⌊LOD⌋ and ⌊LOD⌋+1 by its fraction (sim/gpu/tmu filter.go minify; OpenGL ES 2.0 §3.7.7)",
		Answer: "a texture whose seven levels are solid colours, in strips at LOD −0.5, 0.3, 0.45, 0.55, 1, 1.49, 1.51, 2.7: with NEAR_MIP_NEAR (left) the colour names the level, with LIN_MIP_LIN (right) the blend shows the fraction",
		build:  build,
	}
}

// 14. BGR565 packing and dithering.
func bgr565Probe(dither bool) *Probe {
	format, name := cl.RenderFormatBGR565, "bgr565"
	if dither {
		format, name = cl.RenderFormatBGR565Dithered, "bgr565-dither"
	}
	build := func() *job {
		j := &job{width: 64, height: 64, format: format, clearColour: 0}
		j.draws = []draw{{config: bothFaces, mode: cl.PrimitiveModeTriangles, verts: j.rect(0, 0, 64, 64, 0.5, nil), fs: fsCoordBytes}}
		return j
	}
	p := &Probe{
		Name:   name,
		Fact:   "BGR565 packing, no dither",
		Belief: "byte 0 of the shader's word → bits 15:11, byte 1 → 10:5, byte 2 → 4:0, keeping the top bits (sim/gpu/tlb to565; doc/hardware.md#tile-buffer-formats, DERIVED)",
		Answer: "a frame whose colour bytes take every value 0–255 (from the pixel's coordinates): every stored 16-bit pixel",
		build:  build,
	}
	if dither {
		p.Fact = "BGR565 dither pattern"
		p.Belief = "a 4×4 Bayer matrix offset of up to one step of the narrower field added before truncation (sim/gpu/tlb to565, our choice)"
	}
	return p
}

// msFlagsMasks are the MS_FLAGS probe's masks, one a quadrant: the
// samples its shader keeps (bit n sample n).
var msFlagsMasks = []uint32{0xF, 0x1, 0x6, 0x0}

// A fragment shader's write to MS_FLAGS.
func msFlagsProbe() *Probe {
	build := func() *job {
		j := &job{width: 64, height: 64, format: cl.RenderFormatRGBA8888, clearColour: background, msaa: true}
		cfg := bothFaces
		cfg.Oversample = cl.OversampleMode4x
		for i, m := range msFlagsMasks {
			x, y := 32*(i%2), 32*(i/2)
			j.draws = append(j.draws, draw{config: cfg, mode: cl.PrimitiveModeTriangles, verts: j.rect(x, y, x+32, y+32, 0.5, nil),
				fs: fsUniformMSMask, unis: []uniform{val(m), val(palette[i])}})
		}
		return j
	}
	return &Probe{
		Name: "ms-flags",
		Fact: "MS_FLAGS written by a fragment shader",
		Belief: "a shader's write to MS_FLAGS picks pixels, not samples: the TLB writes every covered sample of a pixel whose MS_FLAGS are not 0 and nothing of one whose MS_FLAGS are 0 " +
			"(sim/gpu/render tlbWriteMS; doc/hardware.md#multisampling, MS_FLAGS writes: DERIVED from the Pi 3 record, where 4 multisample tests fail as if Mesa's masks picked no samples and 2 as if its writes lifted the clip window, " +
			"doc/conformance.md#ms_flags-writes), though the guide lists MS_FLAGS as writable and the multisamples written as masked by them (AG §3, Register Address Map; §5)",
		Answer: "a 4x multisampled 64×64 frame, stored decimated, whose four 32×32 quadrants each draw a colour after ANDing MS_FLAGS with 0xF, 0x1, 0x6 and 0x0: " +
			"the resolved colour is the average of the samples drawn with the background's: all, all, all and none in the model; all, one, two and none if the mask picks samples; all four quadrants if the write is ignored",
		build: build,
	}
}

// msClipMasks are the clip-window probe's MS_FLAGS masks, one a 16-pixel
// column strip: 0x1 and 0x6 change MS_FLAGS, 0xF leaves them as they
// started (the model cannot tell that from no write), and the last strip
// does not write MS_FLAGS.
var msClipMasks = []uint32{0x1, 0x6, 0xF}

// The clip window in multisample mode: quads or pixels.
func msClipProbe() *Probe {
	build := func() *job {
		j := &job{width: 64, height: 64, format: cl.RenderFormatRGBA8888, clearColour: background, msaa: true}
		// Rows 0–6 and columns 0–62: the window's top and right edges
		// cut 2×2 quads in half.
		j.clip = &cl.ClipWindow{Width: 63, Height: 7}
		cfg := bothFaces
		cfg.Oversample = cl.OversampleMode4x
		for i, m := range msClipMasks {
			j.draws = append(j.draws, draw{config: cfg, mode: cl.PrimitiveModeTriangles, verts: j.rect(16*i, 0, 16*i+16, 64, 0.5, nil),
				fs: fsUniformMSMask, unis: []uniform{val(m), val(palette[i])}})
		}
		j.draws = append(j.draws, draw{config: cfg, mode: cl.PrimitiveModeTriangles, verts: j.rect(48, 0, 64, 64, 0.5, nil),
			fs: fsUniform, unis: []uniform{val(palette[3])}})
		return j
	}
	return &Probe{
		Name: "ms-clip",
		Fact: "4x multisample clip window: quads or pixels",
		Belief: "the rasteriser gives its coverage to every pixel of a 2×2 quad the clip window cuts, and the TLB drops the pixels outside the window only while a shader's MS_FLAGS are the rasteriser's " +
			"(sim/gpu/raster BlockSamples, sim/gpu/render keepToClip; doc/hardware.md#multisampling, Clip window, DERIVED from the Pi 3 record): " +
			"row 7 gets every covered sample in the strips whose write changed MS_FLAGS (MS_FLAGS pick pixels, not samples: the ms-flags probe), nothing past it",
		Answer: "a 4x multisampled 64×64 frame, stored decimated, under a clip window of rows 0–6 and columns 0–62, drawn in four 16-pixel column strips: MS_FLAGS ANDed with 0x1, 0x6 and 0xF, and no MS_FLAGS write: " +
			"rows 7 and up, and column 63, show whether clipped pixels of cut quads are drawn (how many samples, with the background's), for which strips",
		build: build,
	}
}

// 15. SFU precision.
func sfuProbe() *Probe {
	fns := []*fragment{
		sfuFS("recip", q.SFURecip, 1.0/256, 0),
		sfuFS("rsqrt", q.SFURecipSqrt, 1.0/256, 0),
		sfuFS("exp2", q.SFUExp, 1.0/512, -16),
		sfuFS("log2", q.SFULog, 1.0/256, 0),
	}
	build := func() *job {
		j := &job{width: 128, height: 128, format: cl.RenderFormatRGBA8888, clearColour: 0}
		for k, f := range fns {
			x, y := 64*(k%2), 64*(k/2)
			j.draws = append(j.draws, draw{config: bothFaces, mode: cl.PrimitiveModeTriangles, verts: j.rect(x, y, x+64, y+64, 0.5, nil), fs: f})
		}
		return j
	}
	return &Probe{
		Name:   "sfu",
		Fact:   "SFU recip/rsqrt/exp2/log2 precision",
		Belief: "recip and rsqrt: the exact value rounded to 13 mantissa bits; exp2: the exact value times 1 + 2⁻¹⁵; log2: 16 fraction bits, 3 to 4 units of 2⁻¹⁶ below the exact value (one above it below 1): the size and direction of VC4C's measured errors, not the hardware's bits (sim/gpu/qpuexec/ref_sfu.go; qpuexec package doc)",
		Answer: "four quadrants, recip, rsqrt, exp2 and log2 of values from the pixel's coordinates (x = (X + 64Y + 1)/256, exp2 over −16…16), written as float bits: the largest error against the model",
		build:  build,
		floats: true,
		hw:     tolerance{limit: 2.5e-4, why: "the model claims the size of the error (VC4C's measurements: up to about 1e-4), not its bits"},
	}
}

// 16. fmul rounding.
func fmulProbe() *Probe {
	build := func() *job {
		j := &job{width: 64, height: 64, format: cl.RenderFormatRGBA8888, clearColour: 0}
		j.draws = []draw{{config: bothFaces, mode: cl.PrimitiveModeTriangles, verts: j.rect(0, 0, 64, 64, 0.5, nil), fs: fsFMul,
			unis: []uniform{valF(1.0 / 3)}}}
		return j
	}
	return &Probe{
		Name:   "fmul",
		Fact:   "fmul rounding",
		Belief: "toward zero, as VC4C measured for fadd and itof; assumed for fmul (sim/gpu/qpuexec/ref_float.go; qpuexec package doc)",
		Answer: "(X + 64Y + 1)·(1/3 as float32) for every pixel, written as float bits: round to nearest differs from truncation on about half the pixels",
		build:  build,
		floats: true,
	}
}

// fadd rounding.
func faddProbe() *Probe {
	build := func() *job {
		j := &job{width: 64, height: 64, format: cl.RenderFormatRGBA8888, clearColour: 0}
		j.draws = []draw{{config: bothFaces, mode: cl.PrimitiveModeTriangles, verts: j.rect(0, 0, 64, 64, 0.5, nil), fs: fsFAdd,
			unis: []uniform{valF(1.0 / 3)}}}
		return j
	}
	return &Probe{
		Name:   "fadd",
		Fact:   "fadd rounding",
		Belief: "toward zero, as VC4C measured (sim/gpu/qpuexec/ref_float.go; qpuexec package doc; doc/hardware.md#open-questions item 5)",
		Answer: "(X + 64Y + 1) + 1/3 (as float32) for every pixel, written as float bits: the sums are exact integers plus a third, so round to nearest differs from truncation on about a third of the pixels",
		build:  build,
		floats: true,
	}
}

// 17. The mul ALU's colour pack.
func colourPackProbe() *Probe {
	build := func() *job {
		j := &job{width: 64, height: 64, format: cl.RenderFormatRGBA8888, clearColour: 0}
		j.draws = []draw{{config: bothFaces, mode: cl.PrimitiveModeTriangles, verts: j.rect(0, 0, 64, 64, 0.5, nil), fs: fsColourPack,
			unis: []uniform{valF(1.0 / 4095)}}}
		return j
	}
	return &Probe{
		Name:   "colour-pack",
		Fact:   "float-to-colour pack rounding",
		Belief: "the byte is x·255 rounded to nearest, ties away from zero, clamped to 0…255 (AG Table 9 says \"round\"; sim/gpu/qpuexec ref_float.go floatToColour; qpuexec package doc)",
		Answer: "x = (X + 64Y)/4095 over the 4096 pixels packed with the mul ALU's 8888 pack: every pixel's byte; truncation gives one less on about half of them",
		build:  build,
	}
}

// 18. The regfile-A colour unpack.
func colourUnpackProbe() *Probe {
	build := func() *job {
		j := &job{width: 64, height: 64, format: cl.RenderFormatRGBA8888, clearColour: 0}
		j.draws = []draw{{config: bothFaces, mode: cl.PrimitiveModeTriangles, verts: j.rect(0, 0, 64, 64, 0.5, nil), fs: fsColourUnpack}}
		return j
	}
	return &Probe{
		Name:   "colour-unpack",
		Fact:   "colour-byte-to-float unpack rounding",
		Belief: "byte/255 rounded toward zero, as the ALUs' float results (sim/gpu/qpuexec ref_pack.go colourToFloat; qpuexec package doc)",
		Answer: "every byte 0…255 unpacked to float and written as float bits: round-to-nearest differs on about half of the bytes",
		build:  build,
		floats: true,
	}
}

// 19. Thread switches.
func threadProbe() *Probe {
	build := func() *job {
		j := &job{width: 128, height: 64, format: cl.RenderFormatRGBA8888, clearColour: background}
		pic, _ := texture.NewPicture(64, 64, 4)
		noise(pic, 7)
		j.textures = []texSpec{{typ: texture.RGBA8888, pics: []texture.Picture{pic}, sampler: texture.VkcubeSampler}}
		st := func(x0 int) func(int, int) []float32 {
			return func(x, y int) []float32 { return []float32{float32(x-x0) / 64, float32(y) / 64} }
		}
		j.draws = []draw{
			{config: bothFaces, mode: cl.PrimitiveModeTriangles, verts: j.rect(0, 0, 64, 64, 0.5, st(0)), fs: fsTextureThreaded, unis: texUnis(0), samples: []int{0}},
			{config: bothFaces, mode: cl.PrimitiveModeTriangles, verts: j.rect(64, 0, 128, 64, 0.5, st(64)), fs: fsTexture, unis: texUnis(0), samples: []int{0}},
		}
		return j
	}
	return &Probe{
		Name:   "threads",
		Fact:   "registers across a thread switch",
		Belief: "locations 0–15 of each file survive a switch, accumulators do not, flags do (DERIVED); one thread runs at a time (sim/gpu/qpuexec package doc; doc/hardware.md#threads)",
		Answer: "the same texture drawn by a threaded shader that keeps a constant in ra1 across its switch and XORs it in (left) and by the plain one (right): the left half must be the right half XOR 0x00A5005A",
		build:  build,
		needs:  uapi.ParamSupportsThreadedFS,
	}
}

// Describe writes the probe list in Markdown, as doc/selftest.md holds it:
// for every probe the fact it settles, the model's belief and where it is
// written, which outputs answer it, and how it is compared.
func Describe(w io.Writer) error {
	var b strings.Builder
	for _, p := range Probes() {
		fmt.Fprintf(&b, "### %s: %s\n\n", p.Name, p.Fact)
		fmt.Fprintf(&b, "- **The model believes**: %s.\n", p.Belief)
		fmt.Fprintf(&b, "- **Answered by**: %s.\n", p.Answer)
		var cmp []string
		switch {
		case p.unmodelled:
			cmp = append(cmp, "runs on a real GPU only; its output goes to the bundle")
		case p.hw.limit > 0:
			cmp = append(cmp, fmt.Sprintf("with the model: every bit between two simulated devices; with a GPU within an error of %g (%s); the work counters exactly, in their own column", p.hw.limit, p.hw.why))
		default:
			cmp = append(cmp, "with the model: every bit; and, in a column of its own, every counter that counts work (doc/hardware.md#performance-counters)")
		}
		if p.ref != nil {
			if p.refTolerance == 0 {
				cmp = append(cmp, "with the reference rasteriser: every pixel")
			} else {
				cmp = append(cmp, fmt.Sprintf("with the reference rasteriser: all but at most %d pixels (the clipped edges' new vertices are rounded by each in its own way)", p.refTolerance))
			}
		}
		if p.needs != 0 {
			cmp = append(cmp, fmt.Sprintf("runs only where the kernel answers GET_PARAM %d with 1", p.needs))
		}
		fmt.Fprintf(&b, "- **Compared**: %s.\n\n", strings.Join(cmp, "; "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
