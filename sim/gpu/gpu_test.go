package gpu

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/sim/gpu/internal/gputest"
	"github.com/vccube/vccube/sim/hw"
	"github.com/vccube/vccube/sim/mem"
	"github.com/vccube/vccube/uapi"
)

const clearColor = 0xFF102030

func mustRun(t *testing.T, j *tjob, g *GPU) {
	t.Helper()
	if r := j.run(g); r.Hung {
		t.Fatalf("job hung: %v", r.Reason)
	}
}

// A clear-only job (no binning list, as the kernel runs bin_cl_size == 0)
// on a 100×70 frame: every pixel gets the clear colour, the Z buffer the
// clear depth and stencil, and nothing past the frame is written.
func TestClearOnlyJobNotMultipleOf64(t *testing.T) {
	g := newGPU(t)
	j := newTJob(t, 100, 70)
	for i := range j.color.B {
		j.color.B[i] = 0xEE
	}
	j.rcl.ClearColor, j.rcl.ClearZ, j.rcl.ClearS = clearColor, 0x123456, 7
	j.rcl.ZSWrite = &gputest.Surface{Addr: j.zs.Addr, Tiling: cl.TilingLinear}
	mustRun(t, j, g)
	for y := range 70 {
		for x := range 100 {
			if p := j.pixel(x, y); p != clearColor {
				t.Fatalf("pixel (%d,%d) = %#x", x, y, p)
			}
			if z := j.zs.U32(4 * (y*100 + x)); z != 0x12345607 {
				t.Fatalf("Z/stencil (%d,%d) = %#x, want 0x12345607", x, y, z)
			}
		}
	}
	if j.color.B[j.stride*70] != 0xEE {
		t.Error("written past the frame")
	}
}

// One triangle over four tiles: (40,40) (100,40) (40,100). Centres
// (x+½, y+½) inside: x ≥ 40, y ≥ 40 (the left and top edges lie between
// pixel centres) and x + y + 1 < 140; x + y = 139 lies on the
// hypotenuse, a bottom-right edge, so it is out. That is x + y ≤ 138:
// 1 + 2 + … + 59 = 1770 pixels.
func TestTriangleCoversExactPixels(t *testing.T) {
	g := newGPU(t)
	j := newTJob(t, 128, 128)
	j.rcl.ClearColor = clearColor
	j.beginBin(cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, DepthFunc: cl.DepthFuncAlways})
	fs := j.program(fsConst())
	j.drawNV(fs, []uint32{0xFF0000FF}, cl.PrimitiveModeTriangles, j.nv(40, 40, 0.5), j.nv(100, 40, 0.5), j.nv(40, 100, 0.5))
	mustRun(t, j, g)
	n := 0
	for y := range 128 {
		for x := range 128 {
			in := x >= 40 && y >= 40 && x+y <= 138
			want := uint32(clearColor)
			if in {
				want = 0xFF0000FF
				n++
			}
			if p := j.pixel(x, y); p != want {
				t.Fatalf("pixel (%d,%d) = %#x, want %#x", x, y, p, want)
			}
		}
	}
	if n != 1770 {
		t.Fatalf("expected set has %d pixels", n)
	}
	// Counters, from the same pixel set: one fragment shader thread per
	// 4×4 block with a covered pixel, 6 instructions of 4 clocks each
	// ([AG] §3), and no other shader (NV shader state); one valid quad,
	// and one quad written, per 2×2 quad with a covered pixel.
	blocks, quads := map[[2]int]bool{}, map[[2]int]bool{}
	for y := range 128 {
		for x := range 128 {
			if x >= 40 && y >= 40 && x+y <= 138 {
				blocks[[2]int{x / 4, y / 4}] = true
				quads[[2]int{x / 2, y / 2}] = true
			}
		}
	}
	c := &j.counters
	if got, want := c[uapi.PerfcntQPUTotalClkCyclesFragmentShading], uint64(4*6*len(blocks)); got != want {
		t.Errorf("fragment shading cycles %d, want %d", got, want)
	}
	if got, want := c[uapi.PerfcntQPUTotalClkCyclesExecValidInst], uint64(4*6*len(blocks)); got != want {
		t.Errorf("cycles executing valid instructions %d, want %d", got, want)
	}
	if c[uapi.PerfcntFEPValidQuads] != uint64(len(quads)) || c[uapi.PerfcntTLBQuadsWrittenToColorBuf] != uint64(len(quads)) {
		t.Errorf("valid quads %d, quads written %d, want %d", c[uapi.PerfcntFEPValidQuads], c[uapi.PerfcntTLBQuadsWrittenToColorBuf], len(quads))
	}
	if c[uapi.PerfcntFEPValidPrimsRender] != 4 { // one primitive, in each of four tiles
		t.Errorf("primitives rendered %d, want 4 (one per tile)", c[uapi.PerfcntFEPValidPrimsRender])
	}
}

// A CLIP_WINDOW of zero width and height at (0, 0) — what Mesa sends for a
// scissor wholly off the frame (vc4_emit.c: with an empty scissor every
// bound is 0) — clips nothing: its last column and row wrap to 0xFFFF
// (raster.ClipRect). The Pi 3 record settles it: piglit's
// gl-1.0-scissor-offscreen, whose full-window rectangle must not be drawn,
// fails on a Pi 3 (conform/pi3/testdata). A zero-sized window elsewhere
// still holds no pixel.
func TestZeroSizedClipWindowAtOriginClipsNothing(t *testing.T) {
	for _, tc := range []struct {
		win  cl.ClipWindow
		want func(x, y int) bool
	}{
		{cl.ClipWindow{}, func(x, y int) bool { return true }},
		{cl.ClipWindow{Width: 0, Height: 20}, func(x, y int) bool { return y < 20 }},
		{cl.ClipWindow{Left: 10, Bottom: 10, Width: 0, Height: 0}, func(x, y int) bool { return false }},
		{cl.ClipWindow{Left: 10, Bottom: 10, Width: 5, Height: 6}, func(x, y int) bool { return x >= 10 && x < 15 && y >= 10 && y < 16 }},
	} {
		g := newGPU(t)
		j := newTJob(t, 96, 80)
		j.rcl.ClearColor = clearColor
		j.beginBin(cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, DepthFunc: cl.DepthFuncAlways})
		j.bin = tc.win.Append(j.bin)
		fs := j.program(fsConst())
		j.drawNV(fs, []uint32{0xFF0000FF}, cl.PrimitiveModeTriangles, j.quad(0.5)...)
		mustRun(t, j, g)
		for y := range 80 {
			for x := range 96 {
				want := uint32(clearColor)
				if tc.want(x, y) {
					want = 0xFF0000FF
				}
				if p := j.pixel(x, y); p != want {
					t.Fatalf("clip window %+v: pixel (%d,%d) = %#x, want %#x", tc.win, x, y, p, want)
				}
			}
		}
	}
}

// quad returns two triangles covering the whole frame at depth z.
func (j *tjob) quad(z float32, vary ...[4]float32) []gputest.NVVertex {
	w, h := float64(j.w), float64(j.h)
	v := func(x, y float64, k int) gputest.NVVertex {
		var va []float32
		for _, q := range vary {
			va = append(va, q[k])
		}
		return j.nv(x, y, z, va...)
	}
	// Corners 0 (0,0) 1 (w,0) 2 (0,h) 3 (w,h).
	return []gputest.NVVertex{v(0, 0, 0), v(w, 0, 1), v(0, h, 2), v(0, h, 2), v(w, 0, 1), v(w, h, 3)}
}

// Depth: two full-frame quads at Zs 0.3 (red) and 0.6 (green), drawn in
// either order. With LESS the nearer (red) wins either way; with GREATER
// the farther; with early-Z on the result is the same.
func TestDepthTestOrder(t *testing.T) {
	g := newGPU(t)
	const red, green = 0xFF0000FF, 0xFF00FF00
	for _, c := range []struct {
		fn     cl.DepthFunc
		clearZ uint32
		early  bool
		want   uint32
	}{
		{cl.DepthFuncLess, 0xFFFFFF, false, red},
		{cl.DepthFuncLess, 0xFFFFFF, true, red},
		{cl.DepthFuncLessEqual, 0xFFFFFF, true, red},
		{cl.DepthFuncGreater, 0, false, green},
		{cl.DepthFuncAlways, 0, false, 0}, // the last drawn
	} {
		for order := range 2 {
			j := newTJob(t, 64, 64)
			j.rcl.ClearZ = c.clearZ
			j.beginBin(cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true,
				DepthFunc: c.fn, ZUpdates: true, EarlyZ: c.early, EarlyZUpdates: c.early})
			fs := j.program(fsConstZ())
			draws := [2]struct {
				z   float32
				col uint32
			}{{0.3, red}, {0.6, green}}
			if order == 1 {
				draws[0], draws[1] = draws[1], draws[0]
			}
			for _, d := range draws {
				j.drawNV(fs, []uint32{d.col}, cl.PrimitiveModeTriangles, j.quad(d.z)...)
			}
			mustRun(t, j, g)
			want := c.want
			if want == 0 {
				want = draws[1].col
			}
			for _, p := range [][2]int{{0, 0}, {63, 63}, {10, 50}, {32, 31}} {
				if got := j.pixel(p[0], p[1]); got != want {
					t.Errorf("%v early %v order %d: pixel %v = %#x, want %#x", c.fn, c.early, order, p, got, want)
				}
			}
			// The front-end counters: each draw's two triangles
			// cover the frame's 32×32 2×2 quads, the 32 that their
			// shared diagonal cuts once for each triangle; with
			// early-Z, the second draw's are all rejected when it
			// is behind the first (its colour is not the one left),
			// none when it is in front.
			const perDraw = 32*32 + 32
			valid, clipped := j.counters[uapi.PerfcntFEPValidQuads], j.counters[uapi.PerfcntFEPClippedQuads]
			wantClipped := uint64(0)
			if c.early && want != draws[1].col {
				wantClipped = perDraw
			}
			if valid != 2*perDraw || clipped != wantClipped {
				t.Errorf("%v early %v order %d: %d valid quads, %d clipped; want %d and %d", c.fn, c.early, order, valid, clipped, 2*perDraw, wantClipped)
			}
		}
	}
}

// With early-Z on, the fast path takes a TLB_Z write of the thread's
// own interpolated Z (mov tlb_z, rb15, in a program that never writes
// rb15) as passing where the early-Z test passed, without a test of its
// own (render's writesZAsIs). Where that does not hold it must test, and
// draw what the reference draws, counters included: a second TLB_Z
// write of the same Z, which LESS fails against the first's update; a
// program that changes rb15 before writing it; ones that write another
// value, a uniform or rb14. A first draw at Zs 0.3 leaves its colour; the second, at Zs
// 0.2, passes the early-Z test everywhere, and its TLB_Z writes of Zs
// 0.5 or a second time fail.
func TestEarlyZPassedTLBZWrites(t *testing.T) {
	const first, second = 0xFF0000FF, 0xFF00FF00
	const far = 1 << 23 // Zs 0.5
	for _, c := range []struct {
		name string
		code func(a *qpu.Asm)
		unif []uint32
		want uint32
	}{
		{"rb15", func(a *qpu.Asm) { a.I(qpu.Mov(qpu.TLBZ, qpu.RB(15))) }, []uint32{second}, second},
		{"rb15 twice", func(a *qpu.Asm) {
			a.I(qpu.Mov(qpu.TLBZ, qpu.RB(15)))
			a.I(qpu.Mov(qpu.TLBZ, qpu.RB(15)))
		}, []uint32{second}, first},
		{"rb15 changed", func(a *qpu.Asm) {
			a.I(qpu.Mov(qpu.RB(15), qpu.Unif))
			a.I()
			a.I(qpu.Mov(qpu.TLBZ, qpu.RB(15)))
		}, []uint32{far, second}, first},
		{"a uniform", func(a *qpu.Asm) { a.I(qpu.Mov(qpu.TLBZ, qpu.Unif)) }, []uint32{far, second}, first},
		{"rb14", func(a *qpu.Asm) {
			a.I(qpu.Mov(qpu.RB(14), qpu.Unif))
			a.I()
			a.I(qpu.Mov(qpu.TLBZ, qpu.RB(14)))
		}, []uint32{far, second}, first},
	} {
		earlyZBothWays(t, c.name, first, c.code, c.unif, nil, c.want)
	}
}

// Facing: a triangle with negative signed area in frame coordinates (the
// hardware's clockwise, raster.Winding) and one with positive; with the
// clockwise bit set and reverse faces culled only the first is drawn.
func TestCullingByFacing(t *testing.T) {
	g := newGPU(t)
	j := newTJob(t, 64, 64)
	j.rcl.ClearColor = clearColor
	j.beginBin(cl.ConfigurationBits{Clockwise: true, EnableForwardFacing: true, DepthFunc: cl.DepthFuncAlways})
	fs := j.program(fsConst())
	// a < 0: (0,0) → (0,30) → (30,0). a > 0: (64,64) → (34,64) → (64,34).
	j.drawNV(fs, []uint32{1}, cl.PrimitiveModeTriangles, j.nv(0, 0, 0.5), j.nv(0, 30, 0.5), j.nv(30, 0, 0.5))
	j.drawNV(fs, []uint32{2}, cl.PrimitiveModeTriangles, j.nv(64, 64, 0.5), j.nv(34, 64, 0.5), j.nv(64, 34, 0.5))
	mustRun(t, j, g)
	if j.pixel(5, 5) != 1 || j.pixel(60, 60) != clearColor {
		t.Errorf("pixels %#x %#x: want the clockwise (a < 0) triangle only", j.pixel(5, 5), j.pixel(60, 60))
	}
}

// The experiment of the post "vc4: cube demo – 'from scratch'" (2023-07-04,
// "Pixel and Element relation"; doc/hardware.md#rasterisation): a shader
// that writes white only from element k shows, in every 4×4 block, which
// pixel element k shades. The layouts below are the post's drawings (row
// y = 3 first), independent of the model's tables.
func TestElementToPixelLayoutOfCubeDemo(t *testing.T) {
	drawn := [2][4][4]int{
		{{6, 7, 10, 11}, {4, 5, 8, 9}, {2, 3, 14, 15}, {0, 1, 12, 13}},
		{{10, 11, 6, 7}, {8, 9, 4, 5}, {14, 15, 2, 3}, {12, 13, 0, 1}},
	}
	g := newGPU(t)
	for k := range 16 {
		j := newTJob(t, 16, 16)
		j.beginBin(cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, DepthFunc: cl.DepthFuncAlways})
		fs := j.program(fsElement(k))
		j.drawNV(fs, nil, cl.PrimitiveModeTriangles, j.quad(0.5)...)
		mustRun(t, j, g)
		for by := 0; by < 16; by += 4 {
			for bx := 0; bx < 16; bx += 4 {
				p := (by / 4) & 1
				for y := range 4 {
					for x := range 4 {
						want := uint32(0xFF000000)
						if drawn[p][3-y][x] == k {
							want = 0xFFFFFFFF
						}
						if got := j.pixel(bx+x, by+y); got != want {
							t.Fatalf("element %d, block (%d,%d), pixel (%d,%d): %#x, want %#x", k, bx, by, x, y, got, want)
						}
					}
				}
			}
		}
	}
}

// A shader that writes X_PIXEL_COORD | Y_PIXEL_COORD<<16 as its colour
// shows every pixel its own coordinates ([AG] Table 14), in both block
// parities, on the fast and the reference paths (the fast path computes
// the coordinates only for shaders that read them).
func TestPixelCoordinates(t *testing.T) {
	code := fsCoords()
	for _, ref := range []bool{false, true} {
		g := New(Options{Workers: 2, Reference: ref})
		t.Cleanup(g.Close)
		j := newTJob(t, 72, 40)
		j.beginBin(cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, DepthFunc: cl.DepthFuncAlways})
		j.drawNV(j.program(code), nil, cl.PrimitiveModeTriangles, j.quad(0.5)...)
		mustRun(t, j, g)
		for y := range 40 {
			for x := range 72 {
				if got, want := j.pixel(x, y), uint32(y)<<16|uint32(x); got != want {
					t.Fatalf("reference %v, pixel (%d,%d): %#x, want %#x", ref, x, y, got, want)
				}
			}
		}
	}
}

// A colour load (signal 8, [AG] §5 "Color Read and Write") reads each
// element's own pixel: a first draw writes X | Y<<16 everywhere, a second
// loads the colour, adds 0x01000000 and writes it back, so a pixel read
// from the wrong place shows. Both paths (the fast path keeps a block's
// pixels as pairs and works out the element list only for loads).
func TestColourLoadReadsOwnPixels(t *testing.T) {
	coords := fsCoords()
	var l qpu.Asm
	l.I(qpu.LoadImm(qpu.R1, 0x01000000))
	l.I()
	l.I(qpu.SigColourLoad)
	l.I(qpu.Add(qpu.TLBColourAll, qpu.R4, qpu.R1))
	load := fsEnd(&l)
	for _, ref := range []bool{false, true} {
		g := New(Options{Workers: 2, Reference: ref})
		t.Cleanup(g.Close)
		j := newTJob(t, 72, 40)
		j.beginBin(cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, DepthFunc: cl.DepthFuncAlways})
		j.drawNV(j.program(coords), nil, cl.PrimitiveModeTriangles, j.quad(0.5)...)
		j.drawNV(j.program(load), nil, cl.PrimitiveModeTriangles, j.quad(0.5)...)
		mustRun(t, j, g)
		for y := range 40 {
			for x := range 72 {
				if got, want := j.pixel(x, y), 0x01000000|uint32(y)<<16|uint32(x); got != want {
					t.Fatalf("reference %v, pixel (%d,%d): %#x, want %#x", ref, x, y, got, want)
				}
			}
		}
	}
}

// A shader's MS_FLAGS write in non-multisample mode switches elements'
// TLB writes on and off: zeroing MS_FLAGS in the even elements leaves
// their pixels unwritten by the TLB_Z and colour writes after it. The
// odd elements are the odd columns in every block (the second of each
// horizontal pair; TestElementToPixelLayoutOfCubeDemo). The fast path,
// which keeps the lanes MS_FLAGS lets through for a program that does
// not write MS_FLAGS, must read them for one that does, and draw what
// the reference draws, counters included.
func TestMSFlagsWriteMasksTLBWrites(t *testing.T) {
	var a qpu.Asm
	a.I(qpu.Mov(qpu.R0, qpu.ElemNum))
	a.I(qpu.And(qpu.MSFlags, qpu.R0, qpu.SmallInt(1)))
	a.I(qpu.Mov(qpu.TLBZ, qpu.RB(15)))
	a.I(qpu.Mov(qpu.TLBColourAll, qpu.Unif))
	code := fsEnd(&a)
	const colour = 0xFF00FF00
	var counters [2]hw.Counters
	for k, ref := range []bool{false, true} {
		g := New(Options{Workers: 2, Reference: ref})
		t.Cleanup(g.Close)
		j := newTJob(t, 72, 40)
		j.rcl.ClearColor = clearColor
		j.rcl.ClearZ = 0xFFFFFF
		j.beginBin(cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, DepthFunc: cl.DepthFuncLess, ZUpdates: true})
		j.drawNV(j.program(code), []uint32{colour}, cl.PrimitiveModeTriangles, j.quad(0.5)...)
		mustRun(t, j, g)
		for y := range 40 {
			for x := range 72 {
				want := uint32(clearColor)
				if x%2 == 1 {
					want = colour
				}
				if got := j.pixel(x, y); got != want {
					t.Fatalf("reference %v, pixel (%d,%d): %#x, want %#x", ref, x, y, got, want)
				}
			}
		}
		counters[k] = j.counters
	}
	if counters[0] != counters[1] {
		t.Errorf("counters: fast path %v, reference %v", counters[0], counters[1])
	}
}

// A shader that reads MS_FLAGS sees its block's coverage: in
// non-multisample mode all four bits of a covered pixel. Its colour is
// MS_FLAGS, so every pixel the triangle covers gets 0xF, in blocks
// covered in part and in whole, one after another, on the fast path
// (which leaves MS_FLAGS unmade for the programs that never read them)
// as on the reference, counters included.
func TestMSFlagsReadShowCoverage(t *testing.T) {
	var a qpu.Asm
	a.I(qpu.Mov(qpu.R0, qpu.MSFlags))
	a.I()
	a.I(qpu.Mov(qpu.TLBColourAll, qpu.R0))
	code := fsEnd(&a)
	triangleBothWays(t, func(j *tjob) {
		// A first primitive of a program that does not read MS_FLAGS,
		// then the triangle.
		j.drawNV(j.program(fsConstZ()), []uint32{clearColor}, cl.PrimitiveModeTriangles, j.nv(0, 0, 0.5), j.nv(8, 0, 0.5), j.nv(0, 8, 0.5))
		j.drawNV(j.program(code), nil, cl.PrimitiveModeTriangles, j.nv(1, 1, 0.5), j.nv(70, 3, 0.5), j.nv(2, 38, 0.5))
	}, 0xF, "MS_FLAGS of a covered pixel")
}

// triangleBothWays runs a 72×40 job cleared to clearColor, with every
// face drawn and no depth test, in which draw puts its primitives (the
// last the triangle (1,1) (70,3) (2,38)), on the fast path and on the
// reference. Every pixel drawn must be want (what says why); at least
// 1000 must be drawn, and the two paths' frames and counters must be
// the same.
func triangleBothWays(t *testing.T, draw func(j *tjob), want uint32, what string) {
	t.Helper()
	var counters [2]hw.Counters
	var frames [2][]uint32
	for k, ref := range []bool{false, true} {
		g := New(Options{Workers: 2, Reference: ref})
		t.Cleanup(g.Close)
		j := newTJob(t, 72, 40)
		j.rcl.ClearColor = clearColor
		j.beginBin(cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, DepthFunc: cl.DepthFuncAlways})
		draw(j)
		mustRun(t, j, g)
		n := 0
		for y := range 40 {
			for x := range 72 {
				got := j.pixel(x, y)
				frames[k] = append(frames[k], got)
				if got != clearColor {
					n++
					if got != want {
						t.Fatalf("reference %v, pixel (%d,%d): %#x, want %#x (%s) or the clear colour", ref, x, y, got, want, what)
					}
				}
			}
		}
		if n < 1000 {
			t.Fatalf("reference %v: %d pixels drawn, want the triangle's", ref, n)
		}
		counters[k] = j.counters
	}
	if counters[0] != counters[1] || !slices.Equal(frames[0], frames[1]) {
		t.Errorf("fast path and reference differ: counters %v and %v, frames equal %v", counters[0], counters[1], slices.Equal(frames[0], frames[1]))
	}
}

// An access outside the job's memory is refused and hangs the job; it is
// not a panic, and the next job runs normally.
func TestFaultHangsTheJob(t *testing.T) {
	g := newGPU(t)
	j := newTJob(t, 64, 64)
	j.rcl.Color = &gputest.Surface{Addr: j.color.Addr - 1<<20} // not the job's
	r := j.run(g)
	var f *mem.Fault
	if !r.Hung || !errors.As(r.Reason, &f) || !f.Write {
		t.Fatalf("result %+v, want a hang with a write fault", r)
	}
	k := newTJob(t, 64, 64)
	k.rcl.ClearColor = clearColor
	mustRun(t, k, g)
	if k.pixel(0, 0) != clearColor {
		t.Error("the job after a hang did not render")
	}
	// A render list that waits on a semaphore nobody increments.
	l := newTJob(t, 64, 64)
	l.rcl.TileAlloc, l.rcl.BinTilesX = l.binMem.Addr+4096, 1
	if r := l.run(g); !r.Hung || !errors.Is(r.Reason, ErrDeadlock) {
		t.Fatalf("result %+v, want a deadlock", r)
	}
}

// "All of the set up varyings must be read before the shader completes"
// ([AG] §6): a fragment shader that reads none of the two varyings its
// record sets up fails the job; one that reads both draws.
func TestUnreadVaryingsHangTheJob(t *testing.T) {
	g := newGPU(t)
	j := newTJob(t, 64, 64)
	j.beginBin(cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, DepthFunc: cl.DepthFuncAlways})
	fs := j.program(fsConst())
	j.drawNV(fs, []uint32{0xFF0000FF}, cl.PrimitiveModeTriangles, j.nv(4, 4, 0.5, 0, 0), j.nv(40, 4, 0.5, 1, 0), j.nv(4, 40, 0.5, 0, 1))
	if r := j.run(g); !r.Hung || !strings.Contains(r.Reason.Error(), "0 of the 2 varyings") {
		t.Fatalf("result %+v, want a hang for the unread varyings", r)
	}
	k := newTJob(t, 64, 64)
	k.beginBin(cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, DepthFunc: cl.DepthFuncAlways})
	var a qpu.Asm
	a.I(qpu.FMul(qpu.R0, qpu.RA(15), qpu.Vary))
	a.I(qpu.FMul(qpu.R1, qpu.RA(15), qpu.Vary))
	a.I(qpu.Mov(qpu.TLBColourAll, qpu.Unif))
	fs = k.program(fsEnd(&a))
	k.drawNV(fs, []uint32{0xFF0000FF}, cl.PrimitiveModeTriangles, k.nv(4, 4, 0.5, 0, 0), k.nv(40, 4, 0.5, 1, 0), k.nv(4, 40, 0.5, 0, 1))
	mustRun(t, k, g)
	if k.pixel(8, 8) != 0xFF0000FF {
		t.Errorf("pixel (8,8) = %#x, want the shader's colour", k.pixel(8, 8))
	}
}

// A job given to a closed GPU hangs with ErrClosed rather than panic on
// the stopped workers.
func TestClosedGPUHangsJobs(t *testing.T) {
	g := New(Options{Workers: 2})
	g.Close()
	j := newTJob(t, 64, 64)
	j.rcl.ClearColor = clearColor
	if r := j.run(g); !r.Hung || !errors.Is(r.Reason, ErrClosed) {
		t.Fatalf("result %+v, want a hang with ErrClosed", r)
	}
	g.Close() // a second Close is harmless
}

// The tile buffer outlives a job: a job without clear or load shows what
// the last store left (the clear values latched by the previous job).
func TestStaleClearValuesCarryOver(t *testing.T) {
	g := newGPU(t)
	j := newTJob(t, 64, 64)
	j.rcl.ClearColor = 0xFF445566
	mustRun(t, j, g)
	k := newTJob(t, 64, 64)
	k.rcl.UseClear = false
	mustRun(t, k, g)
	if k.pixel(3, 3) != 0xFF445566 {
		t.Errorf("pixel %#x, want the previous job's clear colour", k.pixel(3, 3))
	}
}

// Rendering tiles in parallel changes nothing: the same job on one worker
// and on three gives the same frame, Z buffer and counters.
func TestWorkersAgree(t *testing.T) {
	build := func(j *tjob) {
		j.rcl.ClearColor = clearColor
		j.rcl.ZSWrite = &gputest.Surface{Addr: j.zs.Addr, Tiling: cl.TilingT}
		j.beginBin(cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, DepthFunc: cl.DepthFuncLess, ZUpdates: true})
		fs := j.program(fsConstZ())
		j.drawNV(fs, []uint32{0xFF0000FF}, cl.PrimitiveModeTriangles, j.nv(3, 5, 0.7), j.nv(190, 20, 0.2), j.nv(40, 150, 0.4))
		j.drawNV(fs, []uint32{0xFF00FF00}, cl.PrimitiveModeTriangles, j.nv(180, 140, 0.3), j.nv(10, 100, 0.6), j.nv(150, 2, 0.5))
	}
	var frames [2][]byte
	var zs [2][]byte
	var counters [2]hw.Counters
	for i, workers := range []int{1, 3} {
		g := New(Options{Workers: workers})
		t.Cleanup(g.Close)
		j := newTJob(t, 200, 160)
		build(j)
		mustRun(t, j, g)
		frames[i] = append([]byte(nil), j.color.B[:j.stride*160]...)
		zs[i] = append([]byte(nil), j.zs.B...)
		counters[i] = j.counters
	}
	if string(frames[0]) != string(frames[1]) || string(zs[0]) != string(zs[1]) {
		t.Error("one worker and three render different frames")
	}
	if counters[0] != counters[1] {
		t.Errorf("counters differ:\n%v\n%v", counters[0], counters[1])
	}
}

// TestUnreadTMUResultsEndWithTheThread: a fragment shader that leaves a
// lookup's result unread in the receive FIFO leaves it to no other
// thread: every block's thread starts with its TMUs empty (tmu.Unit
// Reset), on the fast path, whose lone blocks skip the reset of an idle
// unit (render's shadeRow), as on the reference. Each thread makes two
// direct lookups, of A's word and then of B's, and reads one: A's.
func TestUnreadTMUResultsEndWithTheThread(t *testing.T) {
	var a qpu.Asm
	a.I(qpu.Mov(qpu.TMU0S, qpu.Unif)) // a direct lookup: no uniform of its own
	a.I(qpu.Mov(qpu.TMU0S, qpu.Unif))
	a.I(qpu.SigLoadTMU0)
	a.I(qpu.Mov(qpu.TLBColourAll, qpu.R4))
	code := fsEnd(&a)
	const wordA, wordB = 0xFF0000FF, 0xFF00FF00
	triangleBothWays(t, func(j *tjob) {
		addrA := j.put(words(wordA), 4)
		addrB := j.put(words(wordB), 4)
		j.drawNV(j.program(code), []uint32{addrA, addrB}, cl.PrimitiveModeTriangles, j.nv(1, 1, 0.5), j.nv(70, 3, 0.5), j.nv(2, 38, 0.5))
	}, wordA, fmt.Sprintf("A's word: a thread before left B's %#x unread", uint32(wordB)))
}

// TestEarlyZUpdateOnlyWithTLBZ: with early-Z on, a program that writes
// TLB_Z once has its blocks' depths updated (on the fast path, with
// their early-Z test: render's shadeRow, zAtTest), and one that never
// writes TLB_Z leaves them as they were. A third quad between the two
// depths shows which: it passes only over depths left at the first
// quad's.
func TestEarlyZUpdateOnlyWithTLBZ(t *testing.T) {
	const first, second, third = 0xFF0000FF, 0xFF00FF00, 0xFFFF0000
	for _, c := range []struct {
		name string
		code func(a *qpu.Asm)
		want uint32
	}{
		{"TLB_Z once", func(a *qpu.Asm) { a.I(qpu.Mov(qpu.TLBZ, qpu.RB(15))) }, second},
		{"no TLB_Z", func(a *qpu.Asm) {}, third},
	} {
		earlyZBothWays(t, c.name, first, c.code, []uint32{second}, func(j *tjob) {
			j.drawNV(j.program(fsConstZ()), []uint32{third}, cl.PrimitiveModeTriangles, j.quad(0.25)...)
		}, c.want)
	}
}

// earlyZBothWays runs, on the fast path and on the reference, a 72×40
// job with early-Z and Z updates on (LESS, Z cleared to its far end): a
// quad at Zs 0.3 of colour first, then one at Zs 0.2 whose program is
// two nops, code and a write of a uniform to the colour (unif, its
// uniforms), then what more draws. Every pixel must be want, and the
// two paths' counters the same.
func earlyZBothWays(t *testing.T, name string, first uint32, code func(a *qpu.Asm), unif []uint32, more func(j *tjob), want uint32) {
	t.Helper()
	var counters [2]hw.Counters
	for k, ref := range []bool{false, true} {
		g := New(Options{Workers: 2, Reference: ref})
		t.Cleanup(g.Close)
		j := newTJob(t, 72, 40)
		j.rcl.ClearZ = 0xFFFFFF
		j.beginBin(cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true,
			DepthFunc: cl.DepthFuncLess, ZUpdates: true, EarlyZ: true, EarlyZUpdates: true})
		j.drawNV(j.program(fsConstZ()), []uint32{first}, cl.PrimitiveModeTriangles, j.quad(0.3)...)
		var a qpu.Asm
		a.I()
		a.I()
		code(&a)
		a.I(qpu.Mov(qpu.TLBColourAll, qpu.Unif))
		j.drawNV(j.program(fsEnd(&a)), unif, cl.PrimitiveModeTriangles, j.quad(0.2)...)
		if more != nil {
			more(j)
		}
		mustRun(t, j, g)
		for y := range 40 {
			for x := range 72 {
				if got := j.pixel(x, y); got != want {
					t.Fatalf("%s, reference %v: pixel (%d,%d) = %#x, want %#x", name, ref, x, y, got, want)
				}
			}
		}
		counters[k] = j.counters
	}
	if counters[0] != counters[1] {
		t.Errorf("%s: counters: fast path %v, reference %v", name, counters[0], counters[1])
	}
}
