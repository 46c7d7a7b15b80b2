package gpu

import (
	"testing"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/sim/gpu/internal/gputest"
	"github.com/vccube/vccube/uapi"
)

// fsVaryingInt writes ftoi(VP·W + C) of its one varying as the colour:
// the varying's value at the pixel, as a whole number. It first reads
// (and drops) the PSE's own varyings the primitive has: none for a
// triangle, a line coordinate for a line (doc/hardware.md#varyings).
func fsVaryingInt(pse int) []uint64 {
	var a qpu.Asm
	for range pse {
		a.I(qpu.FMul(qpu.R0, qpu.RA(15), qpu.Vary))
		a.I(qpu.FAdd(qpu.R1, qpu.R0, qpu.R5))
	}
	a.I(qpu.FMul(qpu.R0, qpu.RA(15), qpu.Vary))
	a.I(qpu.FAdd(qpu.R1, qpu.R0, qpu.R5))
	a.I(qpu.FToI(qpu.R2, qpu.R1))
	a.I(qpu.Mov(qpu.TLBColourAll, qpu.R2))
	return fsEnd(&a)
}

// A flat-shaded varying takes the value of the last vertex of each
// primitive as the PSE receives it: the OpenGL default
// (GL_LAST_VERTEX_CONVENTION), which Mesa's vc4 driver relies on without
// telling the hardware anything (vc4_emit.c writes FLAT_SHADE_FLAGS from
// the colour inputs alone and nothing reads the rasteriser's
// flatshade_first). Mesa CI's Pi 3 record says the hardware does this:
// piglit's glsl-fs-flat-color and the interpolation-none-*color-flat
// tests pass there, and clipflat passes every "PV: LAST" case and fails
// every "PV: FIRST" one (conform/pi3/testdata,
// mesa-22.3.0__broadcom-rpi3-fails.txt). For a strip the last vertex is
// the newest one, whatever the order the odd triangles are wound in; for
// a fan it is the newest one too; for lines it is the second.
func TestFlatShadingTakesTheLastVertex(t *testing.T) {
	type probe struct{ x, y int }
	cases := []struct {
		name   string
		mode   cl.PrimitiveMode
		verts  [][3]float64 // x, y, value
		probes map[probe]uint32
	}{
		{
			name: "triangles", mode: cl.PrimitiveModeTriangles,
			verts: [][3]float64{{0, 0, 1}, {64, 0, 2}, {0, 64, 3}, {64, 0, 4}, {64, 64, 5}, {0, 64, 6}},
			// The first triangle is above the diagonal x + y = 64.
			probes: map[probe]uint32{{5, 5}: 3, {20, 30}: 3, {58, 58}: 6, {40, 40}: 6},
		},
		{
			name: "strip", mode: cl.PrimitiveModeTriangleStrip,
			// Triangles (0 1 2) (2 1 3) (2 3 4) (4 3 5): two rows of two.
			verts:  [][3]float64{{0, 0, 1}, {64, 0, 2}, {0, 32, 3}, {64, 32, 4}, {0, 64, 5}, {64, 64, 6}},
			probes: map[probe]uint32{{5, 5}: 3, {58, 26}: 4, {5, 37}: 5, {58, 58}: 6},
		},
		{
			name: "fan", mode: cl.PrimitiveModeTriangleFan,
			// Triangles (0 1 2) above the diagonal x = y, (0 2 3) below.
			verts:  [][3]float64{{0, 0, 1}, {64, 0, 2}, {64, 64, 3}, {0, 64, 4}},
			probes: map[probe]uint32{{50, 10}: 3, {40, 30}: 3, {10, 50}: 4, {30, 40}: 4},
		},
		{
			name: "lines", mode: cl.PrimitiveModeLines,
			// One line drawn left to right, one right to left.
			verts:  [][3]float64{{4, 10.5, 1}, {60, 10.5, 2}, {60, 20.5, 3}, {4, 20.5, 4}},
			probes: map[probe]uint32{{5, 10}: 2, {30, 10}: 2, {58, 10}: 2, {5, 20}: 4, {30, 20}: 4, {58, 20}: 4},
		},
	}
	g := newGPU(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j := newTJob(t, 64, 64)
			j.rcl.ClearColor = clearColor
			j.beginBin(cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, DepthFunc: cl.DepthFuncAlways})
			j.bin = cl.FlatShadeFlags{Flags: 1}.Append(j.bin)
			var vs []gputest.NVVertex
			for _, v := range c.verts {
				vs = append(vs, j.nv(v[0], v[1], 0.5, float32(v[2])))
			}
			pse := 0
			if c.mode == cl.PrimitiveModeLines {
				pse = 1
			}
			j.drawNV(j.program(fsVaryingInt(pse)), nil, c.mode, vs...)
			mustRun(t, j, g)
			for p, want := range c.probes {
				if got := j.pixel(p.x, p.y); got != want {
					t.Errorf("pixel (%d,%d) = %#x, want %d (the last vertex's value)", p.x, p.y, got, want)
				}
			}
		})
	}
}

// A clipped primitive's flat varyings are its provoking vertex's, on every
// piece the clipper makes of it: the near-plane trapezoid of
// TestClippedTriangleIsTheVisibleTrapezoid with values 10, 20, 30 at A, B,
// C is 30 wherever it is drawn, although C itself is clipped away (the
// OpenGL specification's "Flatshading" section: the provoking vertex's
// value is used for the whole primitive; the hardware's own handling of a
// clipped flat varying is not documented: the model's choice,
// doc/hardware.md#varyings).
func TestClippedFlatVaryingIsTheProvokingVertexs(t *testing.T) {
	g := newGPU(t)
	j := newTJob(t, 64, 64)
	j.rcl.ClearColor = clearColor
	j.beginBin(cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, DepthFunc: cl.DepthFuncAlways})
	j.bin = cl.ViewportOffset{X: cl.SubpixelOf(32), Y: cl.SubpixelOf(32)}.Append(j.bin)
	j.bin = cl.ClipperXYScaling{HalfWidth: 32 * 16, HalfHeight: 32 * 16}.Append(j.bin)
	j.bin = cl.FlatShadeFlags{Flags: 1}.Append(j.bin)
	vert := func(c [4]float32, v float32) gputest.NVVertex {
		return gputest.NVVertex{Clip: c, X: float64(c[0]/c[3]) * 32, Y: float64(c[1]/c[3]) * 32,
			Z: c[2]/c[3]*0.5 + 0.5, InvW: 1 / c[3], Vary: []float32{v}}
	}
	j.drawNV(j.program(fsVaryingInt(0)), nil, cl.PrimitiveModeTriangles,
		vert([4]float32{-0.5, -0.5, 0, 1}, 10), vert([4]float32{0.5, -0.5, 0, 1}, 20), vert([4]float32{0, 2, -3, -1}, 30))
	mustRun(t, j, g)
	if j.counters[uapi.PerfcntPLBPrimsNeedClipping] == 0 {
		t.Fatal("the clipper did not count the primitive")
	}
	n := 0
	for y := range 64 {
		for x := range 64 {
			switch got := j.pixel(x, y); got {
			case clearColor:
			case 30:
				n++
			default:
				t.Fatalf("pixel (%d,%d) = %#x, want 30 (C's value) or the clear colour", x, y, got)
			}
		}
	}
	if n < 560 {
		t.Errorf("%d pixels drawn, want about 597 (the trapezoid)", n)
	}
}
