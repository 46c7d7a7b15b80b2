package gpu

import (
	"testing"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/sim/gpu/internal/gputest"
	"github.com/vccube/vccube/sim/gpu/raster"
	"github.com/vccube/vccube/sim/gpu/tlb"
	"github.com/vccube/vccube/sim/mem"
)

// msaaJob is a 64×48 job in 4× multisample mode (2×2 tiles of 32 pixels,
// the bottom row partial) that also stores every tile's samples
// full-resolution, as the kernel does for an msaa_color_write surface.
func msaaJob(t *testing.T, cfg cl.ConfigurationBits) (*tjob, gputest.Buf) {
	j := newTJob(t, 64, 48)
	j.multisample()
	full := j.m.Alloc(t, 4*16384, mem.Read|mem.Write, "full-resolution samples")
	j.rcl.MSAAColor = &gputest.Surface{Addr: full.Addr}
	j.beginBin(cfg)
	return j, full
}

// sample returns sample s of frame pixel (x, y) from the full-resolution
// dump of a 64-pixel-wide frame (two tiles a row).
func sample(full gputest.Buf, x, y, s int) uint32 {
	tile := (y/32)*2 + x/32
	return full.U32(16384*tile + 4*tlb.MSIndex(x%32, y%32, s))
}

// The columns of a rectangle from x = 20 + e/16 to the right edge: with
// 4× oversampling, pixel column 20 has the samples whose x offset is
// beyond e (raster.SampleX: 10, 2, 14, 6 sixteenths), the frame buffer
// holds their average with the clear colour, and the full-resolution dump
// holds each sample as covered or not. Without oversampling the pixel
// centre (8/16) decides for all four samples.
func TestMultisampleEdgeCoverage(t *testing.T) {
	g := newGPU(t)
	const red = 0xFF0000FF // R and A 0xFF, over a clear of 0
	for _, c := range []struct {
		e          int // edge position in the column, sixteenths
		oversample bool
		samples    uint8 // covered samples of column 20
	}{
		{1, true, 0b1111},
		{5, true, 0b1101},
		{9, true, 0b0101},
		{13, true, 0b0100},
		{5, false, 0b1111},
		{9, false, 0},
	} {
		cfg := cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, DepthFunc: cl.DepthFuncAlways}
		if c.oversample {
			cfg.Oversample = cl.OversampleMode4x
		}
		j, full := msaaJob(t, cfg)
		fs := j.program(fsConst())
		x0 := 20 + float64(c.e)/16
		j.drawNV(fs, []uint32{red}, cl.PrimitiveModeTriangles,
			j.nv(x0, 0, 0.5), j.nv(64, 0, 0.5), j.nv(x0, 48, 0.5),
			j.nv(x0, 48, 0.5), j.nv(64, 0, 0.5), j.nv(64, 48, 0.5))
		mustRun(t, j, g)
		n := 0
		for s := range tlb.Samples {
			if c.oversample && raster.SampleX[s] > int64(c.e) != (c.samples>>s&1 != 0) {
				t.Fatalf("the table disagrees with raster.SampleX for sample %d, edge %d", s, c.e)
			}
			if c.samples>>s&1 != 0 {
				n++
			}
		}
		// Each channel the average of n samples of 0xFF and 4 − n of 0,
		// rounded half up.
		ch := uint32((n*0xFF + 2) / 4)
		for y := 0; y < 48; y += 7 {
			for x := 18; x < 23; x++ {
				want := uint32(0)
				switch {
				case x > 20:
					want = red
				case x == 20:
					want = ch | ch<<24
				}
				if got := j.pixel(x, y); got != want {
					t.Errorf("edge %d/16, oversample %v: pixel (%d, %d) = %#08x, want %#08x", c.e, c.oversample, x, y, got, want)
				}
				for s := range tlb.Samples {
					want := uint32(0)
					if x > 20 || x == 20 && c.samples>>s&1 != 0 {
						want = red
					}
					if got := sample(full, x, y, s); got != want {
						t.Errorf("edge %d/16, oversample %v: sample %d of (%d, %d) = %#08x, want %#08x", c.e, c.oversample, s, x, y, got, want)
					}
				}
			}
		}
	}
}

// Depth per sample: a near red rectangle covering three samples of column
// 20 (edge at 5/16) is drawn first with LESS and Z updates, then a far
// green quad over the whole frame. Green loses every sample the red
// rectangle won and wins the one it left, so column 20 resolves to ¾ red
// and ¼ green; a depth kept per pixel would give one colour.
func TestMultisampleDepthPerSample(t *testing.T) {
	g := newGPU(t)
	const red, green = 0xFF0000FF, 0xFF00FF00
	j, full := msaaJob(t, cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true,
		DepthFunc: cl.DepthFuncLess, ZUpdates: true, Oversample: cl.OversampleMode4x})
	fs := j.program(fsConstZ())
	x0 := 20 + 5.0/16
	j.drawNV(fs, []uint32{red}, cl.PrimitiveModeTriangles,
		j.nv(x0, 0, 0.3), j.nv(64, 0, 0.3), j.nv(x0, 48, 0.3),
		j.nv(x0, 48, 0.3), j.nv(64, 0, 0.3), j.nv(64, 48, 0.3))
	j.drawNV(fs, []uint32{green}, cl.PrimitiveModeTriangles, j.quad(0.6)...)
	mustRun(t, j, g)
	for y := 0; y < 48; y += 5 {
		if got := j.pixel(19, y); got != green {
			t.Errorf("pixel (19, %d) = %#08x, want green", y, got)
		}
		if got := j.pixel(21, y); got != red {
			t.Errorf("pixel (21, %d) = %#08x, want red", y, got)
		}
		// R (3·255 + 2)/4 = 191, G (255 + 2)/4 = 64, A 255.
		if got, want := j.pixel(20, y), uint32(191|64<<8|0xFF<<24); got != want {
			t.Errorf("pixel (20, %d) = %#08x, want %#08x", y, got, want)
		}
		for s, want := range [4]uint32{red, green, red, red} { // sample 1 at x 2/16
			if got := sample(full, 20, y, s); got != want {
				t.Errorf("sample %d of (20, %d) = %#08x, want %#08x", s, y, got, want)
			}
		}
	}
}

// The kernel's two-job resolve, as Mesa asks for it (vc4_job.c): a draw
// job stores its multisampled tiles full-resolution (msaa_color_write),
// and a render-only job loads them back full-resolution (color_read with
// VC4_SUBMIT_RCL_SURFACE_READ_IS_FULL_RES) and resolves them into a
// frame buffer with STORE_MS_TILE_BUFFER. The second frame buffer equals
// the first job's own resolved frame buffer, pixel for pixel.
func TestMultisampleFullResolutionRoundTrip(t *testing.T) {
	g := newGPU(t)
	j, full := msaaJob(t, cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true,
		DepthFunc: cl.DepthFuncAlways, Oversample: cl.OversampleMode4x})
	fs := j.program(fsConst())
	// A slanted edge: every coverage count from 0 to 4 along it.
	j.drawNV(fs, []uint32{0xFF4080C0}, cl.PrimitiveModeTriangles, j.nv(3.3, 0, 0.5), j.nv(64, 0, 0.5), j.nv(41.7, 48, 0.5))
	mustRun(t, j, g)

	r := newTJob(t, 64, 48)
	r.multisample()
	r.rcl.UseClear = false
	r.rcl.ColorReadFullRes = &gputest.Surface{Addr: full.Addr}
	r.m = j.m // the first job's memory holds the samples
	out := j.m.Alloc(t, j.stride*j.h, mem.Read|mem.Write, "resolved again")
	r.color, r.stride = out, j.stride
	r.rcl.Color = &gputest.Surface{Addr: out.Addr}
	mustRun(t, r, g)
	partial := 0
	for y := range 48 {
		for x := range 64 {
			p := j.pixel(x, y)
			if got := r.pixel(x, y); got != p {
				t.Fatalf("pixel (%d, %d): resolved from the full-resolution load %#08x, by the draw job %#08x", x, y, got, p)
			}
			if p != 0 && p != 0xFF4080C0 {
				partial++
			}
		}
	}
	if partial == 0 {
		t.Error("no pixel along the edge has partial coverage")
	}
}

// TLB_COLOUR_MS and colour loads in multisample mode: "the tile color is
// read one multisample at a time, in a fixed order ... then written back
// to the tile buffer one multisample at a time, in the same order" ([AG]
// §5), as Mesa blends (vc4_program.c ntq_emit_color_read). A first draw
// over the whole frame writes a colour of its own to each sample with
// four TLB_COLOUR_MS writes; a second, from x = 20 + 5/16 on (samples 0,
// 2 and 3 of column 20), reads each sample and writes it back ORed with
// 0x00100000. Sample 1 of column 20 keeps the first draw's colour.
func TestMultisampleColourPerSample(t *testing.T) {
	g := newGPU(t)
	j, full := msaaJob(t, cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true,
		DepthFunc: cl.DepthFuncAlways, Oversample: cl.OversampleMode4x})
	var w qpu.Asm
	w.I()
	w.I()
	for range 4 {
		w.I(qpu.Mov(qpu.TLBColourMS, qpu.Unif))
	}
	var rw qpu.Asm
	rw.I()
	rw.I()
	for range 4 {
		rw.I(qpu.SigColourLoad)
		rw.I(qpu.Or(qpu.TLBColourMS, qpu.R4, qpu.Unif))
	}
	colours := [4]uint32{0xFF000011, 0xFF000022, 0xFF000033, 0xFF000044}
	j.drawNV(j.program(fsEnd(&w)), colours[:], cl.PrimitiveModeTriangles, j.quad(0.5)...)
	x0 := 20 + 5.0/16
	const or = 0x00100000
	j.drawNV(j.program(fsEnd(&rw)), []uint32{or, or, or, or}, cl.PrimitiveModeTriangles,
		j.nv(x0, 0, 0.5), j.nv(64, 0, 0.5), j.nv(x0, 48, 0.5),
		j.nv(x0, 48, 0.5), j.nv(64, 0, 0.5), j.nv(64, 48, 0.5))
	mustRun(t, j, g)
	for _, p := range [][2]int{{19, 3}, {20, 3}, {21, 3}, {20, 40}, {63, 47}} {
		for s, c := range colours {
			want := c
			if p[0] > 20 || p[0] == 20 && s != 1 {
				want |= or
			}
			if got := sample(full, p[0], p[1], s); got != want {
				t.Errorf("sample %d of %v = %#08x, want %#08x", s, p, got, want)
			}
		}
	}
	// Resolved: red (0x11+0x22+0x33+0x44)/4 = 0x2A.8 rounds to 0x2B; blue
	// 0x10 where all four samples were ORed, (3·0x10 + 2)/4 = 0x0C in
	// column 20.
	for x, want := range map[int]uint32{19: 0xFF00002B, 20: 0xFF0C002B, 21: 0xFF10002B} {
		if got := j.pixel(x, 3); got != want {
			t.Errorf("pixel (%d, 3) = %#08x, want %#08x", x, got, want)
		}
	}
}

// MS_FLAGS switch whole pixels on and off in 4× multisample mode; the
// samples the TLB writes are the rasteriser's coverage (render
// tlbWriteMS; doc/hardware.md#multisampling, MS_FLAGS writes: DERIVED
// from the Pi 3 record, where Mesa's alpha-to-coverage and per-sample
// blit draws, which AND MS_FLAGS with a mask, fail as if the mask did not
// pick samples). A rectangle from x = 20 + 5/16 to the right edge covers
// samples 0, 2 and 3 of column 20 and every sample from column 21 on; its
// shader ANDs MS_FLAGS with k before the colour write. k = 1 (Mesa's
// blit of sample 0) leaves MS_FLAGS non-zero in every covered pixel, so
// the TLB writes each one's covered samples, not sample 0 alone; k = 2
// (sample 1, which column 20 lacks) leaves column 20's MS_FLAGS 0, and
// the TLB skips that pixel; k = 0 draws nothing. Pixel (63, 0) is split
// by the rectangle's diagonal: samples 0 and 1 in its first triangle, 2
// and 3 in its second, whose MS_FLAGS have neither bit 0 nor bit 1, so
// only samples 0 and 1 are drawn there. The QPU's compiled steps and its
// general code (Options.Reference) draw the same.
func TestMultisampleFlagsSwitchPixels(t *testing.T) {
	const red = 0xFF0000FF
	for _, c := range []struct {
		k   int
		ref bool
	}{{1, false}, {2, false}, {0, false}, {1, true}, {2, true}, {0, true}} {
		k := c.k
		var and qpu.Asm
		and.I()
		and.I()
		and.I(qpu.And(qpu.MSFlags, qpu.MSFlags, qpu.SmallInt(k)))
		and.I(qpu.Mov(qpu.TLBColourAll, qpu.Unif))
		g := New(Options{Workers: 2, Reference: c.ref})
		t.Cleanup(g.Close)
		j, full := msaaJob(t, cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true,
			DepthFunc: cl.DepthFuncAlways, Oversample: cl.OversampleMode4x})
		x0 := 20 + 5.0/16
		j.drawNV(j.program(fsEnd(&and)), []uint32{red}, cl.PrimitiveModeTriangles,
			j.nv(x0, 0, 0.5), j.nv(64, 0, 0.5), j.nv(x0, 48, 0.5),
			j.nv(x0, 48, 0.5), j.nv(64, 0, 0.5), j.nv(64, 48, 0.5))
		mustRun(t, j, g)
		for _, y := range []int{0, 5, 40} {
			for _, x := range []int{19, 20, 21, 40, 63} {
				for s := range tlb.Samples {
					drawn := k != 0 && (x > 20 || x == 20 && s != 1 && k != 2)
					if x == 63 && y == 0 {
						drawn = k != 0 && s < 2
					}
					want := uint32(0)
					if drawn {
						want = red
					}
					if got := sample(full, x, y, s); got != want {
						t.Errorf("MS_FLAGS &= %d (reference %v): sample %d of (%d, %d) = %#08x, want %#08x", k, c.ref, s, x, y, got, want)
					}
				}
			}
		}
	}
}

// The clip window in 4× multisample mode cuts 2×2 quads, not pixels, in
// the coverage a fragment shader's MS_FLAGS start from, and the TLB drops
// the pixels outside it only while the shader leaves MS_FLAGS alone
// (render keepToClip; doc/hardware.md#multisampling, Clip window). A
// frame-filling rectangle under a clip window of rows 0–6: without a
// MS_FLAGS write, rows 0–6 are drawn; with MS_FLAGS ANDed with 1 before
// the colour write (Mesa's per-sample blit draws, vc4_qpu_emit.c
// QOP_MS_MASK), row 7 too, the other half of the quads that row 6 cuts,
// and nothing from row 8. The MS_FLAGS write picks no samples
// (TestMultisampleFlagsSwitchPixels): each drawn pixel gets all four,
// but for (63, 0), which the diagonal splits, samples 0 and 1 in the
// first triangle and 2 and 3 in the second, whose MS_FLAGS ANDed with 1
// are 0.
func TestMultisampleClipWindowCutsQuads(t *testing.T) {
	const red = 0xFF0000FF
	var and qpu.Asm
	and.I()
	and.I()
	and.I(qpu.And(qpu.MSFlags, qpu.MSFlags, qpu.SmallInt(1)))
	and.I(qpu.Mov(qpu.TLBColourAll, qpu.Unif))
	for _, c := range []struct {
		name string
		fs   []uint64
		row7 [4]bool // samples of row 7 drawn
		rows [4]bool // samples of rows 0–6 drawn
	}{
		{"no MS_FLAGS write", fsConst(), [4]bool{}, [4]bool{true, true, true, true}},
		{"MS_FLAGS &= 1", fsEnd(&and), [4]bool{true, true, true, true}, [4]bool{true, true, true, true}},
	} {
		g := newGPU(t)
		j, full := msaaJob(t, cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true,
			DepthFunc: cl.DepthFuncAlways, Oversample: cl.OversampleMode4x})
		j.bin = cl.ClipWindow{Left: 0, Bottom: 0, Width: 64, Height: 7}.Append(j.bin)
		j.drawNV(j.program(c.fs), []uint32{red}, cl.PrimitiveModeTriangles, j.quad(0.5)...)
		mustRun(t, j, g)
		for _, y := range []int{0, 6, 7, 8, 9, 40} {
			for _, x := range []int{0, 1, 33, 63} {
				for s := range tlb.Samples {
					drawn := y < 7 && c.rows[s] || y == 7 && c.row7[s]
					if x == 63 && y == 0 && c.name == "MS_FLAGS &= 1" {
						drawn = s < 2
					}
					want := uint32(0)
					if drawn {
						want = red
					}
					if got := sample(full, x, y, s); got != want {
						t.Errorf("%s: sample %d of (%d, %d) = %#08x, want %#08x", c.name, s, x, y, got, want)
					}
				}
			}
		}
	}
}
