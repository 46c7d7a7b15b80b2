package gpu

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/shaderrec"
	"github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/sim/gpu/internal/gputest"
	"github.com/vccube/vccube/sim/hw"
	"github.com/vccube/vccube/sim/mem"
	"github.com/vccube/vccube/uapi"
)

// GL mode with shaders written for the test: each vertex's attribute is
// the 8-word record Xc, Yc, Zc, Wc, Xs|Ys, Zs, 1/Wc, v. The coordinate
// shader copies the first seven words (the PTB's format, [AG] Figure 11);
// the vertex shader reads all eight and writes Xs|Ys, Zs, 1/Wc, v (the
// PSE's format with one varying, [AG] Figure 10); the fragment shader
// writes ftoi(v) as the colour. A triangle strip drawn from a 16-bit
// index list covers the frame, so every pixel is ftoi(v) = 65280.
func TestGLModeThroughVCDAndVPM(t *testing.T) {
	g := newGPU(t)
	j := newTJob(t, 96, 80)
	j.rcl.ClearColor = clearColor
	j.beginBin(cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, DepthFunc: cl.DepthFuncAlways})

	var cs qpu.Asm
	cs.I(qpu.LoadImm(qpu.VRSetup, 0x00701a00)) // 7 horizontal 32-bit rows from Y 0 (AG Table 33)
	cs.I(qpu.LoadImm(qpu.VWSetup, 0x00001a00)) // horizontal 32-bit, stride 1, Y 0 (AG Table 32)
	cs.I()
	cs.I()
	for range 7 {
		cs.I(qpu.Mov(qpu.R0, qpu.VPM))
		cs.I(qpu.Mov(qpu.VPM, qpu.R0))
	}
	var vs qpu.Asm
	vs.I(qpu.LoadImm(qpu.VRSetup, 0x00801a00))
	vs.I(qpu.LoadImm(qpu.VWSetup, 0x00001a00))
	vs.I()
	vs.I()
	for range 4 {
		vs.I(qpu.Mov(qpu.R0, qpu.VPM)) // clip coordinates: not for the PSE
	}
	for _, r := range []qpu.Reg{qpu.R0, qpu.R1, qpu.R2, qpu.R3} {
		vs.I(qpu.Mov(r, qpu.VPM))
	}
	for _, r := range []qpu.Reg{qpu.R0, qpu.R1, qpu.R2, qpu.R3} {
		vs.I(qpu.Mov(qpu.VPM, r))
	}
	var fs qpu.Asm
	fs.I(qpu.FMul(qpu.R0, qpu.RA(15), qpu.Vary))
	fs.I(qpu.FAdd(qpu.R1, qpu.R0, qpu.R5))
	fs.I(qpu.FToI(qpu.R2, qpu.R1))
	fs.I(qpu.Mov(qpu.TLBColourAll, qpu.R2))
	csA, vsA, fsA := j.program(vsEnd(&cs)), j.program(vsEnd(&vs)), j.program(fsEnd(&fs))

	// Four corners as a strip: (0,0) (96,0) (0,80) (96,80), v = 65280.
	var data []byte
	for _, c := range [][2]float64{{0, 0}, {96, 0}, {0, 80}, {96, 80}} {
		v := j.nv(c[0], c[1], 0.5)
		data = gputest.AppendNV(data, v)
		data = binary.LittleEndian.AppendUint32(data, math.Float32bits(65280))
	}
	attr := j.put(data, 16)
	idx := j.put([]byte{0, 0, 1, 0, 2, 0, 3, 0}, 4)
	rec := shaderrec.GL{NumAttributes: 1, Record: cl.GLShaderRecord{
		FSSingleThreaded: true, EnableClipping: true, FSNumVaryings: 1, FSCodeAddress: fsA,
		VSAttributeSelect: 1, VSAttributesSize: 32, VSCodeAddress: vsA,
		CSAttributeSelect: 1, CSAttributesSize: 32, CSCodeAddress: csA,
	}}
	rec.Attributes[0] = cl.AttributeRecord{Address: attr, SizeMinusOne: 31, Stride: 32}
	ra := j.put(rec.Append(nil), 16)
	st := rec.State()
	st.Address = ra
	j.bin = st.Append(j.bin)
	j.bin = cl.GLIndexedPrimitive{Mode: cl.PrimitiveModeTriangleStrip, IndexType: cl.IndexType16Bit, Length: 4, IndexAddress: idx, MaxIndex: 3}.Append(j.bin)
	mustRun(t, j, g)
	for y := range 80 {
		for x := range 96 {
			if p := j.pixel(x, y); p != 65280 {
				t.Fatalf("pixel (%d,%d) = %#x, want 0xff00", x, y, p)
			}
		}
	}
}

// A triangle with a vertex behind the eye is clipped at the near plane.
// Clip coordinates A (−½, −½, 0, 1), B (½, −½, 0, 1), C (0, 2, −3, −1);
// with Zs = Zc/Wc·½ + ½ the near plane Zc = −Wc cuts AC and BC at a fifth
// of the way to C: (∓0.4, 0, −0.6, 0.6), NDC (∓⅔, 0). What is seen is the
// trapezoid A B (⅔, 0) (−⅔, 0); on a 64×64 frame (x = 32 + 32·ndc, same
// for y) that is (16,16) (48,16) (53⅓,32) (10⅔,32). Drawn unclipped, C's
// Xs/Ys (NDC (0, −2)) would put the triangle somewhere else entirely.
func TestClippedTriangleIsTheVisibleTrapezoid(t *testing.T) {
	g := newGPU(t)
	j := newTJob(t, 64, 64)
	j.rcl.ClearColor = clearColor
	j.beginBin(cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, DepthFunc: cl.DepthFuncAlways})
	j.bin = cl.ViewportOffset{X: cl.SubpixelOf(32), Y: cl.SubpixelOf(32)}.Append(j.bin)
	j.bin = cl.ClipperXYScaling{HalfWidth: 32 * 16, HalfHeight: 32 * 16}.Append(j.bin)
	vert := func(c [4]float32) gputest.NVVertex {
		return gputest.NVVertex{Clip: c, X: float64(c[0]/c[3]) * 32, Y: float64(c[1]/c[3]) * 32,
			Z: c[2]/c[3]*0.5 + 0.5, InvW: 1 / c[3]}
	}
	fs := j.program(fsConst())
	j.drawNV(fs, []uint32{7}, cl.PrimitiveModeTriangles,
		vert([4]float32{-0.5, -0.5, 0, 1}), vert([4]float32{0.5, -0.5, 0, 1}), vert([4]float32{0, 2, -3, -1}))
	mustRun(t, j, g)
	inside := func(x, y float64) float64 { // distance-like margin inside the trapezoid (< 0 outside)
		l := x - (16 - (y-16)/3)
		r := (48 + (y-16)/3) - x
		return min(y-16, 32-y, l, r)
	}
	n := 0
	for y := range 64 {
		for x := range 64 {
			m := inside(float64(x)+0.5, float64(y)+0.5)
			got := j.pixel(x, y)
			switch {
			case m > 0.6 && got != 7:
				t.Fatalf("pixel (%d,%d) inside the trapezoid is %#x", x, y, got)
			case m < -0.6 && got != clearColor:
				t.Fatalf("pixel (%d,%d) outside the trapezoid is %#x", x, y, got)
			}
			if got == 7 {
				n++
			}
		}
	}
	// The trapezoid's area: 16 rows, widths from 32 to 42⅔: 16·37⅓ ≈ 597.
	if n < 560 || n > 635 {
		t.Errorf("%d pixels drawn, want about 597", n)
	}
	if j.counters[uapi.PerfcntPLBPrimsNeedClipping] == 0 {
		t.Error("the clipper did not count the primitive")
	}
}

// Points and lines: POINT_SIZE and LINE_WIDTH from the binning list reach
// the renderer through the tile lists.
func TestPointsAndLines(t *testing.T) {
	g := newGPU(t)
	j := newTJob(t, 64, 64)
	j.rcl.ClearColor = clearColor
	j.beginBin(cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, DepthFunc: cl.DepthFuncAlways})
	j.bin = cl.PointSize{Size: 2}.Append(j.bin)
	j.bin = cl.LineWidth{Width: 1}.Append(j.bin)
	// Each shader reads the varyings the PSE sets up for its primitive
	// (two for a point, one for a line: TestPointAndLineVaryings), as
	// every fragment shader must read all of them ([AG] §6).
	// A size-2 point at the pixel corner (10, 10): pixels 9..10 × 9..10.
	j.drawNV(j.program(fsConstAfter(2)), []uint32{1}, cl.PrimitiveModePoints, j.nv(10, 10, 0.5))
	// A horizontal line on row 40's centre from x = 5 to 15: pixels 5..14.
	j.drawNV(j.program(fsConstAfter(1)), []uint32{2}, cl.PrimitiveModeLines, j.nv(5, 40.5, 0.5), j.nv(15, 40.5, 0.5))
	mustRun(t, j, g)
	for y := range 64 {
		for x := range 64 {
			want := uint32(clearColor)
			switch {
			case x >= 9 && x <= 10 && y >= 9 && y <= 10:
				want = 1
			case y == 40 && x >= 5 && x <= 14:
				want = 2
			}
			if got := j.pixel(x, y); got != want {
				t.Fatalf("pixel (%d,%d) = %#x, want %#x", x, y, got, want)
			}
		}
	}
}

// The PSE hands a point's fragment shader two varyings of its own, the
// point sprite coordinates, and a line's one, before the shader record's
// varyings (Mesa vc4_program.c reads point_x, point_y or line_x first;
// vc4_qir.c qir_has_side_effect_reads: they are "generated by
// fixed-function hardware"). A point's x runs from 0 at its left edge to 1
// at its right, its y from 0 at its edge of largest row to 1 at its edge
// of row 0, sampled at pixel centres (doc/hardware.md#varyings). Each draw
// writes the float bits of one varying read as every pixel's colour; the
// points have 1/Wc = ½, so the VP·W + C the shader computes needs W.
// The fast path and the general code (Options.Reference) both run it.
func TestPointAndLineVaryings(t *testing.T) {
	for _, ref := range []bool{false, true} {
		t.Run(fmt.Sprintf("reference=%v", ref), func(t *testing.T) {
			g := New(Options{Workers: 2, Reference: ref})
			t.Cleanup(g.Close)
			testPointAndLineVaryings(t, g)
		})
	}
}

func testPointAndLineVaryings(t *testing.T, g *GPU) {
	j := newTJob(t, 64, 64)
	j.rcl.ClearColor = clearColor
	j.beginBin(cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, DepthFunc: cl.DepthFuncAlways})
	j.bin = cl.PointSize{Size: 8}.Append(j.bin)
	j.bin = cl.LineWidth{Width: 1}.Append(j.bin)
	point := func(x, y float64) gputest.NVVertex {
		v := j.nv(x, y, 0.5, 0.75)
		for k := range v.Clip {
			v.Clip[k] *= 2
		}
		v.InvW = 0.5
		return v
	}
	// Size-8 points centred on pixel corners: pixels cx−4..cx+3.
	centres := [3][2]int{{16, 16}, {40, 16}, {16, 40}}
	for k, c := range centres {
		j.drawNV(j.program(fsVarying(k, 3)), nil, cl.PrimitiveModePoints, point(float64(c[0]), float64(c[1])))
	}
	// A line on row 56 from x = 4 to 28, its varying 0.25 at both ends.
	j.drawNV(j.program(fsVarying(1, 2)), nil, cl.PrimitiveModeLines, j.nv(4, 56.5, 0.5, 0.25), j.nv(28, 56.5, 0.5, 0.25))
	mustRun(t, j, g)
	for k, c := range centres {
		for py := c[1] - 4; py < c[1]+4; py++ {
			for px := c[0] - 4; px < c[0]+4; px++ {
				want := [3]float64{
					0.5 + (float64(px-c[0])+0.5)/8,
					0.5 - (float64(py-c[1])+0.5)/8,
					0.75,
				}[k]
				got := math.Float32frombits(j.pixel(px, py))
				if math.Abs(float64(got)-want) > 1e-6 {
					t.Errorf("point at (%d,%d), varying read %d, pixel (%d,%d) = %v, want %v", c[0], c[1], k, px, py, got, want)
				}
			}
		}
	}
	for x := 4; x < 28; x++ {
		if got := math.Float32frombits(j.pixel(x, 56)); got != 0.25 {
			t.Errorf("line pixel (%d,56): its varying reads %v, want 0.25", x, got)
		}
	}
}

// fsVarying reads n varyings and writes the float bits of the k-th as the
// colour.
func fsVarying(k, n int) []uint64 {
	var a qpu.Asm
	for i := range n {
		dst := qpu.R2
		if i == k {
			dst = qpu.R1
		}
		a.I(qpu.FMul(qpu.R0, qpu.RA(15), qpu.Vary))
		a.I(qpu.FAdd(dst, qpu.R0, qpu.R5))
	}
	a.I(qpu.Mov(qpu.TLBColourAll, qpu.R1))
	return fsEnd(&a)
}

// fsConstAfter reads n varyings, then writes the colour in its one
// uniform.
func fsConstAfter(n int) []uint64 {
	var a qpu.Asm
	for range n {
		a.I(qpu.FMul(qpu.R0, qpu.RA(15), qpu.Vary))
		a.I(qpu.FAdd(qpu.R1, qpu.R0, qpu.R5))
	}
	a.I()
	a.I()
	a.I(qpu.Mov(qpu.TLBColourAll, qpu.Unif))
	return fsEnd(&a)
}

// vsEnd ends a vertex or coordinate shader: program end and two delay
// slots, no scoreboard.
func vsEnd(a *qpu.Asm) []uint64 {
	a.I(qpu.SigProgramEnd)
	a.I()
	a.I()
	return a.MustAssemble()
}

// A render list may draw by itself, without a binning pass: state packets
// and GL_ARRAY_PRIMITIVE between a tile's TILE_COORDINATES and its store
// draw into that tile ([AG] Table 38 marks them usable in render lists).
// The state given before the first tile carries into every tile.
func TestRenderListDrawsDirectly(t *testing.T) {
	g := newGPU(t)
	j := newTJob(t, 128, 64)
	fs := j.program(fsConst())
	var vb []byte
	for _, v := range j.quad(0.5) {
		vb = gputest.AppendNV(vb, v)
	}
	va := j.put(vb, 16)
	ua := j.put(words(0xFF123456), 4)
	rec := cl.NVShaderRecord{FSSingleThreaded: true, ClipHeaderIncluded: true, Stride: 28,
		FSCodeAddress: fs, FSUniformsAddress: ua, VertexDataAddress: va}
	ra := j.put(rec.Append(nil), 16)
	list := func(n uint32) []byte {
		var l []byte
		l = cl.TileRenderingModeConfig{Address: j.color.Addr, Width: 128, Height: 64, Format: cl.RenderFormatRGBA8888}.Append(l)
		l = cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, DepthFunc: cl.DepthFuncAlways}.Append(l)
		l = cl.ViewportOffset{}.Append(l)
		l = cl.NVShaderState{Address: ra}.Append(l)
		for x := range 2 {
			l = cl.TileCoordinates{Column: uint8(x)}.Append(l)
			l = cl.GLArrayPrimitive{Mode: cl.PrimitiveModeTriangles, Length: n}.Append(l)
			if x == 1 {
				l = cl.StoreMSTileBufferAndEOF{}.Append(l)
			} else {
				l = cl.StoreMSTileBuffer{}.Append(l)
			}
		}
		return l
	}
	lists := j.m.Alloc(t, 4096, mem.Read, "render list")
	// A draw past the model's vertex bound hangs the job, also where a
	// 2³¹-vertex count does not fit an int (GOARCH=arm).
	l := list(1 << 31)
	rs := lists.Put(0, l)
	if r := g.Run(&hw.Job{Mem: j.m.View, RenderStart: rs, RenderEnd: rs + uint32(len(l))}); !r.Hung || !strings.Contains(r.Reason.Error(), "bound") {
		t.Fatalf("a draw of 2³¹ vertices: %+v, want a hang at the vertex bound", r)
	}
	l = list(6)
	rs = lists.Put(0, l)
	if r := g.Run(&hw.Job{Mem: j.m.View, RenderStart: rs, RenderEnd: rs + uint32(len(l))}); r.Hung {
		t.Fatal(r.Reason)
	}
	for y := range 64 {
		for x := range 128 {
			if p := j.pixel(x, y); p != 0xFF123456 {
				t.Fatalf("pixel (%d,%d) = %#x", x, y, p)
			}
		}
	}
}

// INCREMENT_SEMAPHORE in a render list makes what was rendered so far
// visible; the tile buffer goes on from there: two draws into one tile
// with the increment between them both show.
func TestRenderSemaphoreKeepsTheTileBuffer(t *testing.T) {
	g := newGPU(t)
	j := newTJob(t, 64, 64)
	fs := j.program(fsConst())
	state := func(col uint32, verts ...gputest.NVVertex) uint32 {
		var vb []byte
		for _, v := range verts {
			vb = gputest.AppendNV(vb, v)
		}
		va := j.put(vb, 16)
		ua := j.put(words(col), 4)
		rec := cl.NVShaderRecord{FSSingleThreaded: true, ClipHeaderIncluded: true, Stride: 28,
			FSCodeAddress: fs, FSUniformsAddress: ua, VertexDataAddress: va}
		return j.put(rec.Append(nil), 16)
	}
	left := state(1, j.nv(0, 0, 0.5), j.nv(0, 64, 0.5), j.nv(30, 0, 0.5))
	right := state(2, j.nv(64, 0, 0.5), j.nv(34, 64, 0.5), j.nv(64, 64, 0.5))
	var l []byte
	l = cl.ClearColors{Color: clearColor | clearColor<<32, Z: 0xFFFFFF}.Append(l)
	l = cl.TileCoordinates{}.Append(l)
	l = cl.StoreTileBufferGeneral{}.Append(l)
	l = cl.TileRenderingModeConfig{Address: j.color.Addr, Width: 64, Height: 64, Format: cl.RenderFormatRGBA8888}.Append(l)
	l = cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, DepthFunc: cl.DepthFuncAlways}.Append(l)
	l = cl.TileCoordinates{}.Append(l)
	l = cl.NVShaderState{Address: left}.Append(l)
	l = cl.GLArrayPrimitive{Mode: cl.PrimitiveModeTriangles, Length: 3}.Append(l)
	l = cl.IncrementSemaphore{}.Append(l)
	l = cl.NVShaderState{Address: right}.Append(l)
	l = cl.GLArrayPrimitive{Mode: cl.PrimitiveModeTriangles, Length: 3}.Append(l)
	l = cl.StoreMSTileBufferAndEOF{}.Append(l)
	lists := j.m.Alloc(t, 4096, mem.Read, "render list")
	rs := lists.Put(0, l)
	if r := g.Run(&hw.Job{Mem: j.m.View, RenderStart: rs, RenderEnd: rs + uint32(len(l))}); r.Hung {
		t.Fatal(r.Reason)
	}
	if j.pixel(2, 32) != 1 || j.pixel(61, 32) != 2 || j.pixel(32, 10) != clearColor {
		t.Errorf("pixels %#x %#x %#x, want 1, 2 and the clear colour", j.pixel(2, 32), j.pixel(61, 32), j.pixel(32, 10))
	}
}
