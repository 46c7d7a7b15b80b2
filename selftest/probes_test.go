package selftest

import (
	"math"
	"testing"

	"github.com/vccube/vccube/texture"
	"github.com/vccube/vccube/uapi"
)

// These tests check that each probe asks its question: run on the
// simulated device, its output shows the model's belief, computed here
// from the belief's statement rather than from the model's code. (That
// the model agrees with itself, and the reference, is TestRun's job.)

func runProbeOnSim(t *testing.T, name string) (*job, *outputs) {
	t.Helper()
	d, err := openSim(2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.close() })
	for _, p := range Probes() {
		if p.Name == name {
			j := p.build()
			out, err := j.run(d.conn)
			if err == nil {
				err = d.takeHang()
			}
			if err != nil {
				t.Fatal(err)
			}
			return j, out
		}
	}
	t.Fatalf("no probe %s", name)
	return nil, nil
}

// Every probe draws something: no output is the clear colour alone.
func TestProbesDraw(t *testing.T) {
	d, err := openSim(2)
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	for _, p := range Probes() {
		if p.unmodelled {
			continue
		}
		j := p.build()
		out, err := j.run(d.conn)
		if err == nil {
			err = d.takeHang()
		}
		if err != nil {
			t.Errorf("%s: %v", p.Name, err)
			continue
		}
		drawn := 0
		for _, w := range out.colour.pix {
			if w != j.clearColour {
				drawn++
			}
		}
		if drawn < 64 {
			t.Errorf("%s: only %d pixels drawn", p.Name, drawn)
		}
		if out.counters == nil {
			t.Errorf("%s: no counters", p.Name)
		}
	}
}

// The threaded shader's half is the plain one's XOR the constant it kept
// in ra1 across its thread switch.
func TestThreadProbe(t *testing.T) {
	j, out := runProbeOnSim(t, "threads")
	for y := 0; y < j.height; y++ {
		for x := 0; x < 64; x++ {
			l, r := out.colour.pix[y*j.width+x], out.colour.pix[y*j.width+x+64]
			if l != r^0x00A5005A {
				t.Fatalf("(%d,%d): threaded %#08x, plain %#08x", x, y, l, r)
			}
		}
	}
}

// The RGBA8888 texture probe shows the texels one per pixel, FLIPY
// turning the picture upside down.
func TestTextureProbe(t *testing.T) {
	j, out := runProbeOnSim(t, "tex-RGBA8888")
	pic := j.textures[0].pics[0]
	for y := 0; y < 64; y++ {
		for x := 0; x < 64; x++ {
			texel := func(ty int) uint32 {
				o := ty*pic.Stride + 4*x
				return uint32(pic.Pix[o]) | uint32(pic.Pix[o+1])<<8 | uint32(pic.Pix[o+2])<<16 | uint32(pic.Pix[o+3])<<24
			}
			if got, want := out.colour.pix[y*128+x], texel(y); got != want {
				t.Fatalf("FLIPY clear, (%d,%d): %#08x, texel %#08x", x, y, got, want)
			}
			if got, want := out.colour.pix[y*128+x+64], texel(63-y); got != want {
				t.Fatalf("FLIPY set, (%d,%d): %#08x, texel %#08x", x, y, got, want)
			}
		}
	}
}

// The Z probe stores trunc(Zs·2²⁴), at most 0xFFFFFF, for each constant
// square.
func TestZRoundingProbe(t *testing.T) {
	_, out := runProbeOnSim(t, "z-rounding")
	for i, z := range zValues {
		x, y := 16*(i%4)+8, 16*(i/4)+8
		want := min(uint32(math.Floor(float64(float32(z))*(1<<24))), 0xFFFFFF) // Zs is a float32
		if got := out.z.pix[y*64+x] >> 8; got != want {
			t.Errorf("Zs %v: stored %#06x, want %#06x", z, got, want)
		}
	}
}

// The Z-test probe's plane is at Z 1000; its squares 0.6 and 0.3 steps of
// 1/0xFFFFFF nearer are at 999 and those farther at 1000, so LESS and
// LEQUAL pass the nearer rows, EQUAL the farther ones, GREATER none.
func TestZTestProbe(t *testing.T) {
	_, out := runProbeOnSim(t, "z-test")
	for r, nearer := range []bool{true, true, false, false} {
		for c, passes := range [][2]bool{{true, false}, {true, true}, {false, true}, {false, false}} {
			x, y := 16*c+8, 16*r+8
			want := palette[0]
			if passes[0] && nearer || passes[1] && !nearer {
				want = palette[1+c]
			}
			if got := out.colour.pix[y*64+x]; got != want {
				t.Errorf("row %d, column %d: %#08x, want %#08x", r, c, got, want)
			}
		}
	}
}

// The BGR565 probe keeps the top bits of bytes 0, 1, 2 in bits 15:11,
// 10:5, 4:0.
func TestBGR565Probe(t *testing.T) {
	_, out := runProbeOnSim(t, "bgr565")
	for y := 0; y < 64; y++ {
		for x := 0; x < 64; x++ {
			b0, b1, b2 := uint32(4*x+y&3), uint32(4*y+x&3), uint32(2*(x+y)&255)
			want := b0>>3<<11 | b1>>2<<5 | b2>>3
			if got := out.colour.pix[y*64+x]; got != want {
				t.Fatalf("(%d,%d): %#04x, want %#04x", x, y, got, want)
			}
		}
	}
}

// The mip probe's NEAREST_MIPMAP_NEAREST strips take level ⌈l + ½⌉ − 1
// (0 when magnified) for the model's level of detail l, OpenGL's less
// 1/64 (doc/hardware.md#tmu): the strip at 1.51 takes level 1.
func TestMipProbe(t *testing.T) {
	_, out := runProbeOnSim(t, "mip-lod")
	for i, l := range []float64{-0.5, 0.3, 0.45, 0.55, 1.0, 1.49, 1.51, 2.7} {
		l -= 1.0 / 64
		level := 0
		if l > 0.5 {
			level = int(math.Ceil(l+0.5)) - 1
		}
		if got := out.colour.pix[(8*i+4)*128+30]; got != palette[level] {
			t.Errorf("LOD %v: %#08x, want level %d's %#08x", l, got, level, palette[level])
		}
	}
}

// The fmul probe's products are rounded toward zero.
func TestFMulProbe(t *testing.T) {
	_, out := runProbeOnSim(t, "fmul")
	third := float64(float32(1.0 / 3))
	for i, w := range out.colour.pix {
		exact := float64(i+1) * third
		want := float32(exact)
		if float64(want) > exact { // round toward zero
			want = math.Nextafter32(want, 0)
		}
		if got := math.Float32frombits(w); got != want {
			t.Fatalf("pixel %d: %v, want %v", i, got, want)
		}
	}
}

// The SFU probe's results are within the model's stated error.
func TestSFUProbe(t *testing.T) {
	_, out := runProbeOnSim(t, "sfu")
	fns := []func(float64) float64{func(x float64) float64 { return 1 / x }, func(x float64) float64 { return 1 / math.Sqrt(x) },
		math.Exp2, math.Log2}
	for k, f := range fns {
		x0, y0 := 64*(k%2), 64*(k/2)
		for y := y0; y < y0+64; y++ {
			for x := x0; x < x0+64; x++ {
				in := float64(float32(float32(x+64*y+1) * float32(1.0/256)))
				if k == 2 {
					in = float64(float32(float32(x+64*y+1)*float32(1.0/512)) - 16)
				}
				want := f(in)
				got := float64(math.Float32frombits(out.colour.pix[y*128+x]))
				if e := math.Abs(got-want) / math.Max(math.Abs(want), 1); e > 1.0/(1<<13) {
					t.Fatalf("function %d of %v: %v, want %v (error %.3g)", k, in, got, want, e)
				}
			}
		}
	}
}

// texture.VkcubeSampler is NEAREST: the texture probes read one texel per
// pixel; a probe built on another sampler would not say which texel.
func TestTextureProbesSampleNearest(t *testing.T) {
	for _, tt := range textureTypes {
		j := textureProbe(tt).build()
		for _, ts := range j.textures {
			if ts.sampler != texture.VkcubeSampler {
				t.Errorf("%v: sampler %+v", tt, ts.sampler)
			}
		}
	}
}

// rtz rounds a float64 to float32 toward zero.
func rtz(v float64) float32 {
	f := float32(v)
	if math.Abs(float64(f)) > math.Abs(v) {
		f = math.Nextafter32(f, 0)
	}
	return f
}

// The colour-pack probe's bytes are x·255 rounded to nearest, x the
// product the shader formed (rounded toward zero, as every fmul).
func TestColourPackProbe(t *testing.T) {
	_, out := runProbeOnSim(t, "colour-pack")
	u := float64(float32(1.0 / 4095))
	for i, w := range out.colour.pix {
		x := float64(rtz(float64(i) * u))
		b := uint32(math.Min(255, math.Floor(x*255+0.5)))
		if w != b*0x01010101 {
			t.Fatalf("pixel %d: %#08x, want byte %d in all four", i, w, b)
		}
	}
}

// The colour-unpack probe's floats are byte/255 rounded toward zero.
func TestColourUnpackProbe(t *testing.T) {
	_, out := runProbeOnSim(t, "colour-unpack")
	for i, w := range out.colour.pix {
		want := rtz(float64(i&255) / 255)
		if got := math.Float32frombits(w); got != want {
			t.Fatalf("byte %d: %v, want %v", i&255, got, want)
		}
	}
}

// The fadd probe's sums are rounded toward zero; round to nearest would
// differ on many of them.
func TestFAddProbe(t *testing.T) {
	_, out := runProbeOnSim(t, "fadd")
	third := float64(float32(1.0 / 3))
	nearest := 0
	for i, w := range out.colour.pix {
		exact := float64(i+1) + third
		if got, want := math.Float32frombits(w), rtz(exact); got != want {
			t.Fatalf("pixel %d: %v, want %v", i, got, want)
		}
		if float32(exact) != rtz(exact) {
			nearest++
		}
	}
	t.Logf("round to nearest differs on %d of %d pixels", nearest, len(out.colour.pix))
	if nearest < 1000 {
		t.Errorf("round to nearest differs on only %d pixels", nearest)
	}
}

// The viewport probe shows the lines beyond one edge discarded, the
// point and the line past a corner drawn; the counter counts the two
// discarded lines.
func TestLineViewportProbe(t *testing.T) {
	_, out := runProbeOnSim(t, "line-viewport")
	for i, d := range lineViewportDraws {
		n := 0
		for _, w := range out.colour.pix {
			if w == palette[i] {
				n++
			}
		}
		if d.kept != (n > 0) {
			t.Errorf("draw %d (%v at %v): %d pixels drawn, want drawn %v", i, d.mode, d.verts, n, d.kept)
		}
	}
	for _, c := range out.counters {
		if c.event == uapi.PerfcntPLBPrimsOutsideViewport && c.value != 2 {
			t.Errorf("PTB-primitives-discarded-outside-viewport: %d, want 2 (the lines beyond one edge)", c.value)
		}
	}
}

// The MS_FLAGS probe's quadrants are their colour where the shader's mask
// left MS_FLAGS non-zero (every covered sample drawn: MS_FLAGS pick
// pixels, not samples) and the background where it left them 0.
func TestMSFlagsProbe(t *testing.T) {
	_, out := runProbeOnSim(t, "ms-flags")
	for i, m := range msFlagsMasks {
		k := uint32(4)
		if m == 0 {
			k = 0
		}
		got := out.colour.pix[(32*(i/2)+16)*64+32*(i%2)+16]
		for b := 0; b < 32; b += 8 {
			c, bg := palette[i]>>b&0xFF, uint32(background)>>b&0xFF
			want := (k*c + (4-k)*bg + 2) / 4 // within one: the rounding is not the question
			if g := got >> b & 0xFF; g+1 < want || g > want+1 {
				t.Errorf("mask %#x: %#08x, byte %d %d, want %d (%d of 4 samples drawn)", m, got, b/8, g, want, k)
			}
		}
	}
}

// The ms-clip probe on the model: rows 0–6 get every covered sample in
// each strip (its MS_FLAGS stay non-zero: they pick pixels, not samples);
// row 7, whose quads the clip window cuts, gets them only where the
// shader changed MS_FLAGS (masks 0x1 and 0x6); row 8 and column 63 (cut,
// but in the strip without a MS_FLAGS write) are background.
func TestMSClipProbe(t *testing.T) {
	_, out := runProbeOnSim(t, "ms-clip")
	check := func(x, y int, c uint32, k uint32) {
		t.Helper()
		got := out.colour.pix[y*64+x]
		for b := 0; b < 32; b += 8 {
			cb, bg := c>>b&0xFF, uint32(background)>>b&0xFF
			want := (k*cb + (4-k)*bg + 2) / 4
			if g := got >> b & 0xFF; g+1 < want || g > want+1 {
				t.Errorf("(%d, %d) = %#08x, byte %d %d, want %d (%d of 4 samples drawn)", x, y, got, b/8, g, want, k)
			}
		}
	}
	for i := range 4 {
		k := uint32(4)
		x := 16*i + 8
		check(x, 3, palette[i], k)
		row7 := uint32(0)
		if i < 2 {
			row7 = k
		}
		check(x, 7, palette[i], row7)
		check(x, 8, palette[i], 0)
	}
	check(63, 3, palette[3], 0)
	check(62, 3, palette[3], 4)
}
