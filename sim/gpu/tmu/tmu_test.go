package tmu

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/vccube/vccube/sim/internal/simtest"
	"github.com/vccube/vccube/sim/mem"
	"github.com/vccube/vccube/texture"
	"github.com/vccube/vccube/texture/convert"
)

type fixture struct {
	view *mem.View
	r    mem.Region
	b    []byte
}

func newFixture(t testing.TB, size int) *fixture {
	t.Helper()
	v, r, b := simtest.Memory(t, size, mem.Read, "texture")
	return &fixture{v, r, b}
}

// upload lays out pictures (level 0 first) at the start of the region and
// returns P0 and P1 for them.
func (f *fixture) upload(t testing.TB, typ texture.Type, pics []texture.Picture, flipY bool, s texture.Sampler) (uint32, uint32) {
	t.Helper()
	plan, err := texture.NewMipPlan(typ, pics[0].Width, pics[0].Height, len(pics))
	if err != nil {
		t.Fatal(err)
	}
	if err := convert.Upload(&plan, f.b, pics, false); err != nil {
		t.Fatal(err)
	}
	return params(t, &plan, f.r.Addr, flipY, s)
}

// sampler uploads pic (one level) as upload does and returns a new Unit
// on the fixture's view with the sampler it decodes for the upload's P0
// and P1 (border colour 0x12345678), for tests that call the lookups
// directly.
func (f *fixture) sampler(t testing.TB, typ texture.Type, pic texture.Picture, flipY bool, s texture.Sampler) (*Unit, *sampler) {
	t.Helper()
	p0, p1 := f.upload(t, typ, []texture.Picture{pic}, flipY, s)
	u := New(f.view)
	smp := new(sampler)
	if err := u.decode(smp, &samplerKey{params: [4]uint32{p0, p1}, n: 2, border: 0x12345678}); err != nil {
		t.Fatal(err)
	}
	return u, smp
}

// params returns P0 and P1 for a texture laid out by plan at bus address
// addr.
func params(t testing.TB, plan *texture.MipPlan, addr uint32, flipY bool, s texture.Sampler) (uint32, uint32) {
	t.Helper()
	mode := texture.FlipByCPU
	if flipY {
		mode = texture.FlipByGPU
	}
	p0, p1, err := plan.Params(0, mode, s)
	if err != nil {
		t.Fatal(err)
	}
	p0.Base = addr + uint32(plan.BaseOffset())
	w0, err := p0.Encode()
	if err != nil {
		t.Fatal(err)
	}
	w1, err := p1.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return w0, w1
}

func floats(v [16]float32) (out [16]uint32) {
	for i, f := range v {
		out[i] = math.Float32bits(f)
	}
	return
}

func splat(f float32) [16]float32 {
	var v [16]float32
	for i := range v {
		v[i] = f
	}
	return v
}

// lookup writes T then S (p0 with T, p1 with S, as Mesa does) and reads the
// result.
func lookup(t *testing.T, u *Unit, p0, p1 uint32, s, tt [16]float32) [16]uint32 {
	t.Helper()
	sv, tv := floats(s), floats(tt)
	if err := u.Write(T, &tv, 0xFFFF, p0, false); err != nil {
		t.Fatal(err)
	}
	if err := u.Write(S, &sv, 0xFFFF, p1, false); err != nil {
		t.Fatal(err)
	}
	var out [16]uint32
	if err := u.Receive(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

var nearest = texture.Sampler{Min: texture.MinNearest, Mag: texture.MagNearest, WrapS: texture.WrapClamp, WrapT: texture.WrapClamp}

// Each type's texels, and the word the TMU returns for them, worked out
// from the table in the package comment (not from expand).
func TestTypesNearestInTAndLT(t *testing.T) {
	cases := []struct {
		typ  texture.Type
		cpp  int
		px   func(x, y int) []byte
		want func(x, y int) uint32
	}{
		{texture.RGBA8888, 4,
			func(x, y int) []byte { return []byte{byte(x), byte(y), 0x55, 0x80} },
			func(x, y int) uint32 { return uint32(x) | uint32(y)<<8 | 0x55<<16 | 0x80<<24 }},
		{texture.RGBX8888, 4,
			func(x, y int) []byte { return []byte{byte(x), byte(y), 0x55, 0x80} },
			func(x, y int) uint32 { return uint32(x) | uint32(y)<<8 | 0x55<<16 | 0xFF<<24 }},
		// 0x1234 → R 1, G 2, B 3, A 4 → 0x11, 0x22, 0x33, 0x44 (value x&15 in R).
		{texture.RGBA4444, 2,
			func(x, y int) []byte { return []byte{0x34, byte(x&15)<<4 | 2} },
			func(x, y int) uint32 { return uint32(x&15)*0x11 | 0x22<<8 | 0x33<<16 | 0x44<<24 }},
		// R 31 (0xF800) → 0xFF; G 1 (0x0040) → 0x08; B x&31 → x5; A bit 0.
		{texture.RGBA5551, 2,
			func(x, y int) []byte {
				v := uint16(0xF800) | 1<<6 | uint16(x&31)<<1 | uint16(y&1)
				return []byte{byte(v), byte(v >> 8)}
			},
			func(x, y int) uint32 {
				b := uint32(x & 31)
				return 0xFF | 0x08<<8 | (b<<3|b>>2)<<16 | uint32(y&1)*0xFF<<24
			}},
		// R 16 → 0x84, G 63 → 0xFF, B x&31.
		{texture.RGB565, 2,
			func(x, y int) []byte {
				v := uint16(16)<<11 | 63<<5 | uint16(x&31)
				return []byte{byte(v), byte(v >> 8)}
			},
			func(x, y int) uint32 {
				b := uint32(x & 31)
				return 0x84 | 0xFF<<8 | (b<<3|b>>2)<<16 | 0xFF<<24
			}},
		{texture.LUMINANCE, 1,
			func(x, y int) []byte { return []byte{byte(x + 4*y)} },
			func(x, y int) uint32 { l := uint32(byte(x + 4*y)); return l | l<<8 | l<<16 | 0xFF<<24 }},
		{texture.ALPHA, 1,
			func(x, y int) []byte { return []byte{byte(x + 4*y)} },
			func(x, y int) uint32 { return uint32(byte(x+4*y)) << 24 }},
		{texture.LUMALPHA, 2,
			func(x, y int) []byte { return []byte{byte(x), byte(y)} },
			func(x, y int) uint32 { return uint32(x) | uint32(x)<<8 | uint32(x)<<16 | uint32(y)<<24 }},
	}
	for _, c := range cases {
		for _, size := range [][2]int{{8, 8}, {64, 40}, {96, 70}} { // LT; T; T with partial tiles
			w, h := size[0], size[1]
			pic, _ := texture.NewPicture(w, h, c.cpp)
			for y := range h {
				for x := range w {
					copy(pic.Pix[y*pic.Stride+x*c.cpp:], c.px(x, y))
				}
			}
			for _, flip := range []bool{false, true} {
				f := newFixture(t, 64<<10)
				p0, p1 := f.upload(t, c.typ, []texture.Picture{pic}, flip, nearest)
				u := New(f.view)
				for y := 0; y < h; y += 3 {
					for x0 := 0; x0 < w; x0 += 16 {
						var s, tt [16]float32
						for i := range 16 {
							x := min(x0+i, w-1)
							s[i] = (float32(x) + 0.5) / float32(w)
							tt[i] = (float32(y) + 0.5) / float32(h)
						}
						got := lookup(t, u, p0, p1, s, tt)
						for i := range 16 {
							x := min(x0+i, w-1)
							// With FLIPY the picture was stored as it is (top row
							// first) and the TMU flips: texel row y is picture row
							// h-1-y. Without, row y is picture row y.
							py := y
							if flip {
								py = h - 1 - y
							}
							if want := c.want(x, py); got[i] != want {
								t.Fatalf("%v %dx%d flip %v: texel (%d,%d) = %#08x, want %#08x", c.typ, w, h, flip, x, y, got[i], want)
							}
						}
					}
				}
			}
		}
	}
}

func TestWrapModes(t *testing.T) {
	// A 4×1 RGBA8888 texture with red = 10, 20, 30, 40.
	pic, _ := texture.NewPicture(4, 1, 4)
	for x := range 4 {
		pic.Pix[4*x] = byte(10 * (x + 1))
	}
	f := newFixture(t, 16<<10)
	// s at texel centres −2.5 … 5.5 (in texels) → texels −3 … 5.
	var s [16]float32
	for i := range 9 {
		s[i] = (float32(i-3) + 0.5) / 4
	}
	for _, c := range []struct {
		wrap texture.Wrap
		want [9]byte // texels −3 … 5
	}{
		{texture.WrapRepeat, [9]byte{20, 30, 40, 10, 20, 30, 40, 10, 20}},
		{texture.WrapClamp, [9]byte{10, 10, 10, 10, 20, 30, 40, 40, 40}},
		// Mirrored repeat: …, 1, 2, 3 | 0 1 2 3 | 3 2 1 0 …: −1 → 0, −2 → 1, −3 → 2; 4 → 3, 5 → 2.
		{texture.WrapMirror, [9]byte{30, 20, 10, 10, 20, 30, 40, 40, 30}},
		{texture.WrapBorder, [9]byte{0x77, 0x77, 0x77, 10, 20, 30, 40, 0x77, 0x77}},
	} {
		sm := nearest
		sm.WrapS, sm.WrapT = c.wrap, c.wrap
		p0, p1 := f.upload(t, texture.RGBA8888, []texture.Picture{pic}, false, sm)
		u := New(f.view)
		sv, tv := floats(s), floats(splat(0.5))
		border := [16]uint32{0x77}
		u.Write(R, &border, 0xFFFF, p0, false) // border colour from element 0 of R; pops p0
		u.Write(T, &tv, 0xFFFF, p1, false)
		u.Write(S, &sv, 0xFFFF, 0, false) // a third (unused, PTYPE 0) parameter
		var out [16]uint32
		if err := u.Receive(&out); err != nil {
			t.Fatal(err)
		}
		for i := range 9 {
			if byte(out[i]) != c.want[i] {
				t.Errorf("%v: texel %d → red %d, want %d", c.wrap, i-3, byte(out[i]), c.want[i])
			}
		}
	}
}

// Bilinear at s = ½ of a 2-texel row 0, 255 lands halfway: u − ½ = ½ → the
// weights are 128/256 each → 255·128·256 / 65536 = 127.5, rounded to 128.
// At texel centres the texels come back exactly.
func TestBilinear(t *testing.T) {
	pic, _ := texture.NewPicture(2, 2, 4)
	for y := range 2 {
		pic.Pix[y*pic.Stride+4] = 255
	}
	f := newFixture(t, 16<<10)
	lin := texture.Sampler{Min: texture.MinLinear, Mag: texture.MagLinear, WrapS: texture.WrapClamp, WrapT: texture.WrapClamp}
	p0, p1 := f.upload(t, texture.RGBA8888, []texture.Picture{pic}, false, lin)
	u := New(f.view)
	s := splat(0.5)
	s[1], s[2] = 0.25, 0.75
	got := lookup(t, u, p0, p1, s, splat(0.5))
	if byte(got[0]) != 128 || byte(got[1]) != 0 || byte(got[2]) != 255 {
		t.Errorf("bilinear reds %d %d %d, want 128 0 255", byte(got[0]), byte(got[1]), byte(got[2]))
	}
}

// Mip levels: an 8×8 texture with 4 levels, each a single colour. A quad
// whose s steps by 2 texels per pixel has LOD 1; by 4, LOD 2; by ½,
// magnification (level 0).
func TestMipLevelsFromQuadDerivatives(t *testing.T) {
	var pics []texture.Picture
	for i := range 4 {
		n := 8 >> i
		p, _ := texture.NewPicture(n, n, 4)
		for j := 0; j < len(p.Pix); j += 4 {
			p.Pix[j] = byte(100 + i)
		}
		pics = append(pics, p)
	}
	f := newFixture(t, 64<<10)
	sm := texture.Sampler{Min: texture.MinNearMipNear, Mag: texture.MagNearest, WrapS: texture.WrapRepeat, WrapT: texture.WrapRepeat}
	p0, p1 := f.upload(t, texture.RGBA8888, pics, false, sm)
	u := New(f.view)
	for _, c := range []struct {
		step float32 // texels per pixel
		want byte
	}{{0.5, 100}, {1, 100}, {2, 101}, {4, 102}, {8, 103}, {64, 103}} {
		var s, tt [16]float32
		for q := 0; q < 16; q += 4 {
			for e := range 4 {
				s[q+e] = (0.3 + float32(e&1)*c.step) / 8
				tt[q+e] = (0.3 + float32(e>>1)*c.step) / 8
			}
		}
		got := lookup(t, u, p0, p1, s, tt)
		if byte(got[0]) != c.want {
			t.Errorf("step %v: level colour %d, want %d", c.step, byte(got[0]), c.want)
		}
	}
	// The bias register shifts the LOD: step 1 with bias 2 → level 2.
	var s, tt [16]float32
	for e := range 16 {
		s[e] = (0.3 + float32(e&1)) / 8
		tt[e] = (0.3 + float32(e>>1&1)) / 8
	}
	sv, tv, bv := floats(s), floats(tt), floats(splat(2))
	u.Write(T, &tv, 0xFFFF, p0, false)
	u.Write(B, &bv, 0xFFFF, p1, false)
	u.Write(S, &sv, 0xFFFF, 0, false)
	var out [16]uint32
	u.Receive(&out)
	if byte(out[0]) != 102 {
		t.Errorf("biased LOD picks colour %d, want 102", byte(out[0]))
	}
}

func TestDirectLookup(t *testing.T) {
	f := newFixture(t, 4096)
	for i := 0; i < 64; i += 4 {
		binary.LittleEndian.PutUint32(f.b[i:], 0xC0DE0000+uint32(i))
	}
	u := New(f.view)
	var a [16]uint32
	for i := range a {
		a[i] = f.r.Addr + uint32(4*i) + uint32(i&3) // low bits ignored
	}
	if err := u.Write(S, &a, 0xFFFF, 0, true); err != nil {
		t.Fatal(err)
	}
	var out [16]uint32
	if err := u.Receive(&out); err != nil {
		t.Fatal(err)
	}
	for i := range 16 {
		if out[i] != 0xC0DE0000+uint32(4*i) {
			t.Fatalf("element %d: %#x", i, out[i])
		}
	}
	// Outside the job: a fault.
	a[3] = f.r.Addr - 64
	if err := u.Write(S, &a, 0xFFFF, 0, true); err == nil {
		t.Fatal("direct lookup outside the job succeeded")
	} else {
		var fault *mem.Fault
		if !errors.As(err, &fault) {
			t.Fatalf("err = %v, want a mem.Fault", err)
		}
	}
}

// Eight results fit in the receive FIFO; then four (s, t) requests fill
// the request FIFO; the next parameter write would stall for ever.
func TestFIFODepths(t *testing.T) {
	f := newFixture(t, 4096)
	u := New(f.view)
	var a [16]uint32
	for i := range a {
		a[i] = f.r.Addr
	}
	for n := 0; n < 8; n++ {
		if err := u.Write(S, &a, 0xFFFF, 0, true); err != nil {
			t.Fatalf("direct lookup %d: %v", n, err)
		}
	}
	// Requests now wait in the request FIFO: 8 slots.
	for n := 0; n < 8; n++ {
		if err := u.Write(S, &a, 0xFFFF, 0, true); err != nil {
			t.Fatalf("queued lookup %d: %v", n, err)
		}
	}
	if err := u.Write(S, &a, 0xFFFF, 0, true); !errors.Is(err, ErrDeadlock) {
		t.Fatalf("17th lookup: %v, want ErrDeadlock", err)
	}
	var out [16]uint32
	for n := 0; n < 16; n++ {
		if err := u.Receive(&out); err != nil {
			t.Fatalf("receive %d: %v", n, err)
		}
	}
	if err := u.Receive(&out); !errors.Is(err, ErrEmpty) {
		t.Fatalf("receive with nothing outstanding: %v", err)
	}
}

func TestTextureOutsideTheJobFaults(t *testing.T) {
	f := newFixture(t, 4096)
	pic, _ := texture.NewPicture(64, 64, 4) // 16 KiB: larger than the region
	plan, _ := texture.NewMipPlan(texture.RGBA8888, 64, 64, 1)
	p0, p1, _ := plan.Params(0, texture.FlipByCPU, nearest)
	_ = pic
	p0.Base = f.r.Addr
	w0, _ := p0.Encode()
	w1, _ := p1.Encode()
	u := New(f.view)
	s, tt := floats(splat(0.9)), floats(splat(0.9))
	u.Write(T, &tt, 0xFFFF, w0, false)
	err := u.Write(S, &s, 0xFFFF, w1, false)
	var fault *mem.Fault
	if !errors.As(err, &fault) {
		t.Fatalf("err = %v, want a fault", err)
	}
}

func TestUnsupportedTypes(t *testing.T) {
	f := newFixture(t, 4096)
	u := New(f.view)
	for _, typ := range []texture.Type{texture.ETC1, texture.S16F, texture.S8, texture.S16, texture.RGBA64} {
		lo, hi := texture.SplitType(typ)
		p0, _ := texture.P0{Base: f.r.Addr, TypeLow: lo}.Encode()
		p1, _ := texture.P1{Type4: hi, Width: 4, Height: 4}.Encode()
		s := floats(splat(0.5))
		u.Reset(nil)
		u.Write(T, &s, 0xFFFF, p0, false)
		err := u.Write(S, &s, 0xFFFF, p1, false)
		var un *Unsupported
		if !errors.As(err, &un) {
			t.Errorf("%v: %v, want Unsupported", typ, err)
		}
	}
}

// RGBA32R rows are nextpow2(width)·4 bytes apart (erratum HW-2898).
func TestRasterTexturePowerOfTwoStride(t *testing.T) {
	f := newFixture(t, 8192)
	// Width 5 → stride 8 texels = 32 bytes. Texel (2, 3) at 3·32 + 2·4 = 104.
	binary.LittleEndian.PutUint32(f.b[104:], 0xDEADBEEF)
	lo, hi := texture.SplitType(texture.RGBA32R)
	p0, _ := texture.P0{Base: f.r.Addr, TypeLow: lo}.Encode()
	p1, _ := texture.P1{Type4: hi, Width: 5, Height: 4, MinFilter: texture.MinNearest, MagFilter: texture.MagNearest}.Encode()
	u := New(f.view)
	got := lookup(t, u, p0, p1, splat(2.5/5), splat(3.5/4))
	if got[0] != 0xDEADBEEF {
		t.Errorf("raster texel %#x", got[0])
	}
}

// A level below level 0 of a non-power-of-two texture is sampled over its
// own picture, max(1, w>>i) × max(1, h>>i), which lies in the first
// columns and rows of its power-of-two container ([AG] §4 "Texture Data
// Storage": levels "padded to fit within a power of 2 container image";
// Mesa draws level i at u_minify(width0, i) and samples it with s in
// [0, 1]). A 40×24 texture's level 1 is a 20×12 picture in a 32×16
// container: s just below 1 reads the picture's last column, t just below
// 1 its last row, never the padding.
func TestNPOTLevelSamplesItsPicture(t *testing.T) {
	pic0, _ := texture.NewPicture(40, 24, 4)
	pic1, _ := texture.NewPicture(20, 12, 4)
	for y := 0; y < 12; y++ {
		for x := 0; x < 20; x++ {
			binary.LittleEndian.PutUint32(pic1.Pix[y*pic1.Stride+4*x:], 0xFF000000|uint32(y)<<8|uint32(x))
		}
	}
	f := newFixture(t, 64<<10)
	sm := texture.Sampler{Min: texture.MinNearMipNear, Mag: texture.MagNearest, WrapS: texture.WrapClamp, WrapT: texture.WrapClamp}
	p0, p1 := f.upload(t, texture.RGBA8888, []texture.Picture{pic0, pic1}, false, sm)
	// LOD 1 exactly: P2 with BSLOD and a bias of 1 (Mesa's explicit-LOD
	// lookup, vc4_program.c ntq_emit_tex).
	p2, err := texture.P2{Kind: texture.ParamCubeStride, DisableAutoLOD: true}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	u := New(f.view)
	var s, tt [16]float32
	for e := range 16 {
		// Texel centres of columns 0, 7, 13, 19 and rows 0, 4, 8, 11.
		s[e] = (float32([]int{0, 7, 13, 19}[e&3]) + 0.5) / 20
		tt[e] = (float32([]int{0, 4, 8, 11}[e>>2]) + 0.5) / 12
	}
	sv, tv, bv := floats(s), floats(tt), floats(splat(1))
	if err := u.Write(T, &tv, 0xFFFF, p0, false); err != nil {
		t.Fatal(err)
	}
	if err := u.Write(B, &bv, 0xFFFF, p1, false); err != nil {
		t.Fatal(err)
	}
	if err := u.Write(S, &sv, 0xFFFF, p2, false); err != nil {
		t.Fatal(err)
	}
	var out [16]uint32
	if err := u.Receive(&out); err != nil {
		t.Fatal(err)
	}
	for e := range 16 {
		x, y := []int{0, 7, 13, 19}[e&3], []int{0, 4, 8, 11}[e>>2]
		if want := 0xFF000000 | uint32(y)<<8 | uint32(x); out[e] != want {
			t.Errorf("element %d (texel %d,%d of level 1): %#08x, want %#08x", e, x, y, out[e], want)
		}
	}
}

// ETC1 texels, each worked out by hand from the
// OES_compressed_ETC1_RGB8_texture spec's tables (not from etc1Texel), in
// a 4×4 texture of one block, sampled NEAREST at the texel centres.
func TestETC1Blocks(t *testing.T) {
	cases := []struct {
		name  string
		block [8]byte
		texel [][3]int64 // x, y, and the word the TMU returns
	}{{
		// Individual mode, side by side: R1 R2 = A 5 (170, 85), G1 G2 =
		// 3 C (51, 204), B1 B2 = 0 F (0, 255); tables 1 (5, 17) and 7
		// (47, 183). Index bits: (1,2) is texel 6, msb and lsb set (−b);
		// (3,1) texel 13, msb (−a); (2,3) texel 11, lsb (+b).
		"individual",
		[8]byte{0xA5, 0x3C, 0x0F, 1<<5 | 7<<2, 0x20, 0x40, 0x08, 0x40},
		[][3]int64{
			{0, 0, 0xFF0538AF}, // 170+5, 51+5, 0+5
			{1, 2, 0xFF002299}, // 170−17, 51−17, 0 (−17 clamped)
			{3, 1, 0xFFD09D26}, // 85−47, 204−47, 255−47
			{2, 3, 0xFFFFFFFF}, // 85+183 … all clamped to 255
		},
	}, {
		// Differential mode, flipped (one sub-block above the other):
		// R 20 with −4 (165, then 16: 132), G 31 with 0 (255, 255), B 0
		// with +3 (0, then 3: 24); tables 0 (2, 8) and 4 (18, 60). (0,3)
		// is texel 3, msb set (−a), in the lower sub-block.
		"differential",
		[8]byte{20<<3 | 4, 31 << 3, 3, 4<<2 | 1<<1 | 1, 0x00, 0x08, 0x00, 0x00},
		[][3]int64{
			{3, 0, 0xFF02FFA7}, // 165+2, 255 (257 clamped), 0+2
			{1, 1, 0xFF02FFA7}, // upper sub-block, index 0 as well
			{0, 3, 0xFF06ED72}, // 132−18, 255−18, 24−18
			{2, 2, 0xFF2AFF96}, // lower sub-block, index 0: 132+18, 255, 24+18
		},
	}}
	for _, c := range cases {
		f := newFixture(t, 8192)
		plan, err := texture.NewMipPlan(texture.ETC1, 4, 4, 1)
		if err != nil {
			t.Fatal(err)
		}
		l := plan.Level(0).Layout
		copy(f.b[plan.Level(0).Offset+l.Offset(0, 0):], c.block[:])
		p0, p1 := params(t, &plan, f.r.Addr, false, nearest)
		u := New(f.view)
		for _, tx := range c.texel {
			got := lookup(t, u, p0, p1, splat((float32(tx[0])+0.5)/4), splat((float32(tx[1])+0.5)/4))
			if got[0] != uint32(tx[2]) || got[15] != uint32(tx[2]) {
				t.Errorf("%s: texel (%d, %d) = %#08x, want %#08x", c.name, tx[0], tx[1], got[0], uint32(tx[2]))
			}
		}
	}
}

// ETC1 NEAREST on edges (etc1Nearest): a coordinate exactly on a row edge
// takes the row below, and one 1/256 of a texel below a column edge of an
// NPOT texture takes the column beyond, where other types take ⌊u⌋ and
// ⌊v⌋ — the two ETC1 cases the Pi 3 record fails (piglit's
// oes_compressed_etc1_rgb8_texture miptree and dEQP-GLES2's
// clamp_clamp_nearest_npot_etc1). A 12×8 texture (NPOT width, as dEQP's
// 113) of six blocks, sampled one element per coordinate.
func TestETC1NearestEdges(t *testing.T) {
	const w, h = 12, 8
	f := newFixture(t, 8192)
	plan, err := texture.NewMipPlan(texture.ETC1, w, h, 1)
	if err != nil {
		t.Fatal(err)
	}
	l := plan.Level(0).Layout
	blocks := [6][8]byte{
		{0xA5, 0x3C, 0x0F, 0xFC, 0x1B, 0xE4, 0x72, 0x8D},
		{0x5A, 0xC3, 0xF0, 0xE4, 0xD8, 0x27, 0x4E, 0xB1},
		{0x96, 0x69, 0x3C, 0xB4, 0x33, 0xCC, 0x55, 0xAA},
		{0x0F, 0xF0, 0x96, 0xDC, 0x6C, 0x93, 0xA9, 0x56},
		{0xC3, 0x5A, 0x69, 0xFC, 0x87, 0x78, 0x1E, 0xE1},
		{0x3C, 0xA5, 0xC3, 0xE0, 0xF4, 0x0B, 0x8B, 0x74},
	}
	for i, b := range blocks {
		copy(f.b[plan.Level(0).Offset+l.Offset(i%3, i/3):], b[:])
	}
	texel := func(x, y int) uint32 {
		return etc1Texel(blocks[y/4*3+x/4][:], x&3, y&3)
	}
	p0, p1 := params(t, &plan, f.r.Addr, false, nearest)
	type probe struct {
		s, t     float32
		x, y     int // the texel etc1Nearest takes
		notX, nY int // the one ⌊u⌋, ⌊v⌋ take
	}
	var probes []probe
	// Rows: t = k/8 exactly on the edge between rows k−1 and k (on the
	// 1/1024 grid fixCoord keeps for a power-of-two height of 8).
	// Each row edge is probed at the first column whose two texels differ.
	for k := 1; k < h; k++ {
		x := 0
		for x < w-1 && texel(x, k-1) == texel(x, k) {
			x++
		}
		probes = append(probes, probe{s: (float32(x) + 0.5) / w, t: float32(k) / h, x: x, y: k - 1, notX: x, nY: k})
	}
	// Columns: s = m/2048 (fixCoord's grid for the 16-texel container)
	// with u = 12m/2048 = k − 1/256 for k = 4 and 8, the block edges
	// (m = 682, 1365); m = 681 gives u = 4 − 7/256, which stays.
	probes = append(probes,
		probe{s: 682.0 / 2048, t: 1.5 / h, x: 4, y: 1, notX: 3, nY: 1},
		probe{s: 1365.0 / 2048, t: 5.5 / h, x: 8, y: 5, notX: 7, nY: 5},
		probe{s: 681.0 / 2048, t: 1.5 / h, x: 3, y: 1, notX: 3, nY: 1},
	)
	if len(probes) > 16 {
		t.Fatal("more probes than elements")
	}
	var s, tt [16]float32
	for i := range s {
		p := probes[min(i, len(probes)-1)]
		s[i], tt[i] = p.s, p.t
	}
	got := lookup(t, New(f.view), p0, p1, s, tt)
	for i, p := range probes {
		want := texel(p.x, p.y)
		if moved := p.x != p.notX || p.y != p.nY; moved && want == texel(p.notX, p.nY) {
			t.Fatalf("probe %d: texels (%d, %d) and (%d, %d) are alike: choose other blocks", i, p.x, p.y, p.notX, p.nY)
		}
		if got[i] != want {
			t.Errorf("s = %g, t = %g: %#08x, want texel (%d, %d) %#08x (texel (%d, %d) is %#08x)",
				p.s, p.t, got[i], p.x, p.y, want, p.notX, p.nY, texel(p.notX, p.nY))
		}
	}
}
