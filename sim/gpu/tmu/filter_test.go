package tmu

import (
	"fmt"
	"math"
	"testing"

	"github.com/vccube/vccube/texture"
)

// nearestLevel0, the 16-lane nearest sampler, equals nearest() (the
// per-lane general path) on random coordinates — in range, negative,
// exact texel edges, huge, ±Inf and NaN — for every pair of wrap modes,
// power-of-two and other sizes, two texel types and both FLIPY settings.
func TestNearestLevel0AgreesWithNearest(t *testing.T) {
	seed := uint64(5)
	next := func() uint32 {
		seed = seed*6364136223846793005 + 1442695040888963407
		return uint32(seed >> 32)
	}
	coord := func(n int) float32 {
		switch next() % 8 {
		case 0:
			return float32(int(next()%uint32(4*n))-2*n) / float32(n) // a texel edge
		case 1:
			return [...]float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 3e9, -3e9, 1 << 29, -(1 << 29)}[next()%7]
		case 2:
			// Just below zero, where fixCoord's truncation toward zero
			// moves s·w across an integer.
			return -float32(next()%1000+1) / (1 << 22)
		}
		return (float32(next()%100000)/25000 - 1.5) // -1.5 … 2.5
	}
	for _, tc := range []struct {
		typ texture.Type
		cpp int
	}{{texture.RGBA8888, 4}, {texture.RGB565, 2}} {
		typ := tc.typ
		for _, size := range [][2]int{{16, 8}, {5, 3}, {64, 64}, {32, 32}} { // LT, LT, T, T
			pic, _ := texture.NewPicture(size[0], size[1], tc.cpp)
			for i := range pic.Pix {
				pic.Pix[i] = byte(next())
			}
			for _, flip := range []bool{false, true} {
				for ws := texture.WrapRepeat; ws <= texture.WrapBorder; ws++ {
					for wt := texture.WrapRepeat; wt <= texture.WrapBorder; wt++ {
						name := fmt.Sprintf("%v %dx%d flip=%v %v/%v", typ, size[0], size[1], flip, ws, wt)
						f := newFixture(t, 64<<10)
						u, smp := f.sampler(t, typ, pic, flip, texture.Sampler{Min: texture.MinNearest, Mag: texture.MagNearest, WrapS: ws, WrapT: wt})
						for n := 0; n < 200; n++ {
							var s, tt, out [16]uint32
							for i := range s {
								s[i], tt[i] = math.Float32bits(coord(size[0])), math.Float32bits(coord(size[1]))
							}
							if !u.nearestLevel0(smp, &s, &tt, &out) {
								t.Fatalf("%s: the level is not in one region", name)
							}
							for i := range out {
								fs, ft := math.Float32frombits(s[i]), math.Float32frombits(tt[i])
								if want := u.nearest(smp, 0, fs, ft); out[i] != want {
									t.Fatalf("%s: (%g, %g) → %#08x, nearest() %#08x", name, fs, ft, out[i], want)
								}
							}
						}
					}
				}
			}
		}
	}
}

// BenchmarkNearestLookup is one 16-lane lookup of the cube's kind: a
// 256×256 RGBA8888 texture in T-format, nearest, clamp to edge, the lanes
// a 4×4 block of a magnified surface; it runs the request FIFO, the
// sampler cache and the sampling.
func BenchmarkNearestLookup(b *testing.B) {
	f := newFixture(b, 512<<10)
	pic, _ := texture.NewPicture(256, 256, 4)
	for i := range pic.Pix {
		pic.Pix[i] = byte(i * 7)
	}
	p0, p1 := f.upload(b, texture.RGBA8888, []texture.Picture{pic}, false, texture.VkcubeSampler)
	benchLookups(b, New(f.view), p0, p1, 300)
}

// benchLookups runs b.N lookups of a 4×4 block whose lanes lie 1/scale
// apart in s and t, at block positions that wander over the texture.
func benchLookups(b *testing.B, u *Unit, p0, p1 uint32, scale float32) {
	var s, t, out [16]uint32
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		x0, y0 := float32(i%61)/64, float32(i%53)/64
		for l := range s {
			s[l] = math.Float32bits(x0 + float32(l%4)/scale)
			t[l] = math.Float32bits(y0 + float32(l/4)/scale)
		}
		u.Write(T, &t, 0xFFFF, p0, false)
		if err := u.Write(S, &s, 0xFFFF, p1, false); err != nil {
			b.Fatal(err)
		}
		if err := u.Receive(&out); err != nil {
			b.Fatal(err)
		}
	}
}

// A parameter register a request does not write reads as 0, whatever an
// earlier request wrote to it: after a lookup at t = 0.9 (row 3 of a
// 4×4 texture), one that writes only B and S samples row 0.
func TestUnwrittenParameterReadsZero(t *testing.T) {
	pic, _ := texture.NewPicture(4, 4, 4)
	for y := range 4 {
		pic.Pix[y*pic.Stride] = byte(10 * (y + 1)) // red of column 0: 10, 20, 30, 40
	}
	f := newFixture(t, 16<<10)
	p0, p1 := f.upload(t, texture.RGBA8888, []texture.Picture{pic}, false, nearest)
	u := New(f.view)
	s := floats(splat(0.1))
	got := lookup(t, u, p0, p1, splat(0.1), splat(0.9))
	if byte(got[0]) != 40 {
		t.Fatalf("t = 0.9: red %d, want 40", byte(got[0]))
	}
	for _, reset := range []bool{false, true} {
		if reset {
			u.Reset(nil) // a new thread
		}
		bias := floats(splat(0))
		u.Write(B, &bias, 0xFFFF, p0, false)
		if err := u.Write(S, &s, 0xFFFF, p1, false); err != nil {
			t.Fatal(err)
		}
		var out [16]uint32
		if err := u.Receive(&out); err != nil {
			t.Fatal(err)
		}
		if byte(out[0]) != 10 {
			t.Errorf("no T written (reset %v): red %d, want 10 (row 0)", reset, byte(out[0]))
		}
	}
}

// BenchmarkBilinearLookup is one 16-lane lookup of Mesa's textured
// kmscube's kind (kmscube -M rgba: a 512×512 RGBA8888 texture, T-format,
// GL_LINEAR both ways, GL_REPEAT both ways, the lanes a 4×4 block of a
// magnified surface); it runs the request FIFO, the sampler cache and the
// sampling, once per version of bilinearT32 (bilinearT32Versions), so
// that one run compares them under the same load.
func BenchmarkBilinearLookup(b *testing.B) {
	f := newFixture(b, 2<<20)
	pic, _ := texture.NewPicture(512, 512, 4)
	for i := range pic.Pix {
		pic.Pix[i] = byte(i * 7)
	}
	sm := texture.Sampler{Min: texture.MinLinear, Mag: texture.MagLinear, WrapS: texture.WrapRepeat, WrapT: texture.WrapRepeat}
	p0, p1 := f.upload(b, texture.RGBA8888, []texture.Picture{pic}, false, sm)
	for _, v := range bilinearT32Versions() {
		b.Run(v, func(b *testing.B) {
			defer useBilinearT32(v)()
			benchLookups(b, New(f.view), p0, p1, 700)
		})
	}
}

// A LINEAR lookup sees its coordinates in fixed point below a texel of
// level 0's power-of-two container, truncated toward zero: positive ones
// subTexelBits (7) below it, negative ones a bit less (fixCoord;
// doc/hardware.md#tmu). On a 9-texel-wide texture that container is 16
// texels, so s = 1.5/9, the centre of texel 1, becomes 341/2048 and u =
// 1.4985: 1/256 of texel 0 blends in; s = −1.5/9 becomes −170/1024, u =
// −1.4941, and with REPEAT 1/256 of texel 8 blends into texel 7. On an
// 8-texel texture s·w is exact to 1/128 texel: a lookup 1/256 texel right
// of a centre reads that texel alone. Both the general code (bilinear)
// and the fast plan (through sample, where it takes the sampler) are
// checked.
func TestLinearCoordinatesAreFixedPoint(t *testing.T) {
	for _, tc := range []struct {
		w    int
		s    float32
		wrap texture.Wrap
		want uint32 // byte 0 of the result; even texels are 0, odd ones 255
	}{
		{9, float32(1.5 / 9), texture.WrapClamp, (255*255 + 128) >> 8},
		{9, float32(-1.5 / 9), texture.WrapRepeat, (255*255 + 128) >> 8},
		{8, float32((1.5 + 1.0/256) / 8), texture.WrapClamp, 255},
		{9, float32(4.5 / 9), texture.WrapClamp, 0}, // texel 4 (even: 0), exact: 1/2 is a multiple of 1/2048
	} {
		pic, _ := texture.NewPicture(tc.w, 1, 4)
		for x := range tc.w {
			v := byte(0)
			if x%2 == 1 {
				v = 255
			}
			copy(pic.Pix[4*x:], []byte{v, v, v, v})
		}
		f := newFixture(t, 64<<10)
		smpl := texture.Sampler{Min: texture.MinLinear, Mag: texture.MagLinear, WrapS: tc.wrap, WrapT: texture.WrapClamp}
		u, sm := f.sampler(t, texture.RGBA8888, pic, false, smpl)
		if got := u.bilinear(sm, 0, tc.s, 0.5) & 0xFF; got != tc.want {
			t.Errorf("%d wide, s = %g: bilinear gives %d, want %d", tc.w, tc.s, got, tc.want)
		}
		var s, tt, out [16]uint32
		for i := range s {
			s[i], tt[i] = math.Float32bits(tc.s), math.Float32bits(0.5)
		}
		if u.bilinearLevel0(sm, &s, &tt, &out) && out[0]&0xFF != tc.want {
			t.Errorf("%d wide, s = %g: the bilinear plan gives %d, want %d", tc.w, tc.s, out[0]&0xFF, tc.want)
		}
	}
}
