package texture

import (
	"strings"
	"testing"
)

// The words below were worked out by hand from [AG] Tables 15–17 (bit
// positions) and Table 19 (filter numbers), not from the code.

func TestP0Words(t *testing.T) {
	cases := []struct {
		name string
		p    P0
		word uint32
	}{
		// vkcube's texture with FLIPY: base 0, flipy bit 8.
		{"flipy only", P0{FlipY: true}, 0x00000100},
		// 0x12000 | bit 8.
		{"base 0x12000 flipy", P0{Base: 0x12000, FlipY: true}, 0x00012100},
		// 0x00345000 | CSWIZ 2 (0x800) | CMMODE (0x200) | TYPE 7 (0x70) | MIPLVLS 8.
		{"everything", P0{Base: 0x00345000, CacheSwizzle: 2, CubeMap: true, TypeLow: 7, LastLevel: 8}, 0x00345A78},
		// The largest values: BASE all ones, CSWIZ 3, TYPE 15, MIPLVLS 15, both flags.
		{"all ones", P0{Base: 0xFFFFF000, CacheSwizzle: 3, CubeMap: true, FlipY: true, TypeLow: 15, LastLevel: 15}, 0xFFFFFFFF},
		{"zero", P0{}, 0},
	}
	for _, c := range cases {
		got, err := c.p.Encode()
		if err != nil || got != c.word {
			t.Errorf("%s: Encode = %#08x, %v; want %#08x", c.name, got, err, c.word)
		}
		if back := DecodeP0(c.word); back != c.p {
			t.Errorf("%s: DecodeP0(%#08x) = %+v, want %+v", c.name, c.word, back, c.p)
		}
	}
	for _, bad := range []P0{{Base: 0x12345}, {CacheSwizzle: 4}, {TypeLow: 16}, {LastLevel: 16}} {
		if w, err := bad.Encode(); err == nil {
			t.Errorf("%+v encoded to %#08x, want an error", bad, w)
		}
	}
}

func TestP1Words(t *testing.T) {
	cases := []struct {
		name string
		p    P1
		word uint32
	}{
		// vkcube: 256×256, NEAREST/NEAREST, clamp/clamp:
		// HEIGHT 256<<20 = 0x10000000, WIDTH 256<<8 = 0x10000, MAGFILT 0x80,
		// MINFILT 1<<4, WRAP_T 1<<2, WRAP_S 1.
		{"vkcube", P1{Width: 256, Height: 256, MagFilter: MagNearest, MinFilter: MinNearest, WrapS: WrapClamp, WrapT: WrapClamp}, 0x10010095},
		// RGBA32R (type 16) 32×32: TYPE4 0x80000000, 32<<20, 32<<8, mag nearest.
		{"raster 32x32", P1{Type4: true, Width: 32, Height: 32, MagFilter: MagNearest}, 0x82002080},
		// 2048×2048 stores 0s; MINFILT 5 (0x50); WRAP_T border (3<<2), WRAP_S mirror (2); ETCFLIP 1<<19.
		{"2048 trilinear etc", P1{Width: 2048, Height: 2048, ETCFlip: true, MinFilter: MinLinMipLin, WrapS: WrapMirror, WrapT: WrapBorder}, 0x0008005E},
		// Width 1 (0x100), height 2047 (0x7FF00000).
		{"1x2047", P1{Width: 1, Height: 2047}, 0x7FF00100},
	}
	for _, c := range cases {
		got, err := c.p.Encode()
		if err != nil || got != c.word {
			t.Errorf("%s: Encode = %#08x, %v; want %#08x", c.name, got, err, c.word)
		}
		if back := DecodeP1(c.word); back != c.p {
			t.Errorf("%s: DecodeP1(%#08x) = %+v, want %+v", c.name, c.word, back, c.p)
		}
	}
	for _, bad := range []P1{
		{Width: 0, Height: 1}, {Width: 1, Height: 2049}, {Width: -1, Height: 1},
		{Width: 1, Height: 1, MinFilter: 6}, {Width: 1, Height: 1, MagFilter: 2}, {Width: 1, Height: 1, WrapS: 4},
	} {
		if w, err := bad.Encode(); err == nil {
			t.Errorf("%+v encoded to %#08x, want an error", bad, w)
		}
	}
}

func TestP2Words(t *testing.T) {
	cases := []struct {
		name string
		p    P2
		word uint32
	}{
		// Mesa's explicit-LOD parameter: PTYPE 1 | BSLOD.
		{"bslod", P2{Kind: ParamCubeStride, DisableAutoLOD: true}, 0x40000001},
		// PTYPE 1 (0x40000000) | stride 0x6000 (6 in bits 29:12) | BSLOD.
		{"cube stride", P2{Kind: ParamCubeStride, CubeStride: 0x6000, DisableAutoLOD: true}, 0x40006001},
		// PTYPE 2 (0x80000000) | CHEIGHT 100<<12 (0x64000) | CWIDTH 50 (0x32).
		{"child size", P2{Kind: ParamChildSize, ChildWidth: 50, ChildHeight: 100}, 0x80064032},
		// PTYPE 3 (0xC0000000) | CYOFF 7<<12 | CXOFF 9.
		{"child offset", P2{Kind: ParamChildOffset, ChildX: 9, ChildY: 7}, 0xC0007009},
		{"unused", P2{}, 0},
		// Bits a kind leaves undefined survive a decode/encode round trip.
		{"reserved bits", P2{Kind: ParamChildSize, ChildWidth: 1, Reserved: 0x00800800}, 0x80800801},
	}
	for _, c := range cases {
		got, err := c.p.Encode()
		if err != nil || got != c.word {
			t.Errorf("%s: Encode = %#08x, %v; want %#08x", c.name, got, err, c.word)
		}
		if back := DecodeP2(c.word); back != c.p {
			t.Errorf("%s: DecodeP2(%#08x) = %+v, want %+v", c.name, c.word, back, c.p)
		}
	}
	for _, bad := range []P2{
		{Kind: ParamCubeStride, CubeStride: 0x1234},
		{Kind: ParamCubeStride, CubeStride: 1 << 30},
		{Kind: ParamChildSize, ChildWidth: 2048},
		{Kind: ParamChildOffset, ChildX: -1},
		{Kind: ParamUnused, ChildX: 1},
		{Kind: ParamChildSize, CubeStride: 4096},
		{Kind: ParamChildOffset, Reserved: 1},
		{Kind: 4},
	} {
		if w, err := bad.Encode(); err == nil {
			t.Errorf("%+v encoded to %#08x, want an error", bad, w)
		}
	}
}

// TestDecodeEncodeEveryWord: any 32-bit word decodes, and the decoded value
// encodes back to the same word (dumpers must not lose bits).
func TestDecodeEncodeEveryWord(t *testing.T) {
	words := []uint32{0, 0xFFFFFFFF, 0x12345678, 0x87654321, 0xDEADBEEF, 0x0000F00F, 0x7FF7FF7F}
	for _, w := range words {
		if got, err := DecodeP0(w).Encode(); err != nil || got != w {
			t.Errorf("P0 %#08x → %#08x, %v", w, got, err)
		}
		p1 := DecodeP1(w)
		if p1.MinFilter > MinLinMipLin {
			continue // MINFILT 6 and 7 are undefined; Encode refuses them
		}
		if got, err := p1.Encode(); err != nil || got != w {
			t.Errorf("P1 %#08x → %#08x, %v", w, got, err)
		}
		if got, err := DecodeP2(w).Encode(); err != nil || got != w {
			t.Errorf("P2 %#08x → %#08x, %v", w, got, err)
		}
	}
}

func TestSplitJoinType(t *testing.T) {
	for typ := Type(0); typ < 32; typ++ {
		low, bit4 := SplitType(typ)
		if got := JoinType(P0{TypeLow: low}, P1{Type4: bit4}); got != typ {
			t.Errorf("type %d: split into %d,%v and joined to %d", typ, low, bit4, got)
		}
	}
	if low, bit4 := SplitType(RGBA32R); low != 0 || !bit4 {
		t.Errorf("RGBA32R (16) splits into %d,%v; want 0,true", low, bit4)
	}
	if low, bit4 := SplitType(YUYV422R); low != 1 || !bit4 {
		t.Errorf("YUYV422R (17) splits into %d,%v; want 1,true", low, bit4)
	}
}

func TestParamStrings(t *testing.T) {
	cases := []struct{ got, want string }{
		{DecodeP0(0x00012100).String(), "P0{base=0x00012000 type[3:0]=0 miplvls=0 flipy}"},
		{DecodeP0(0x00345A78).String(), "P0{base=0x00345000 type[3:0]=7 miplvls=8 cswiz=2 cubemap}"},
		{DecodeP1(0x10010095).String(), "P1{256x256 min=nearest mag=nearest wrap_s=clamp wrap_t=clamp}"},
		{DecodeP1(0x8008005E).String(), "P1{2048x2048 min=lin_mip_lin mag=linear wrap_s=mirror wrap_t=border type4 etcflip}"},
		{DecodeP1(0x00000170).String(), "P1{1x2048 min=MinFilter(7) mag=linear wrap_s=repeat wrap_t=repeat}"},
		{DecodeP2(0x40006001).String(), "P2{cube_stride stride=0x6000 bslod}"},
		{DecodeP2(0x80064032).String(), "P2{child_size 50x100}"},
		{DecodeP2(0xC0007009).String(), "P2{child_offset x=9 y=7}"},
		{DecodeP2(0x00000005).String(), "P2{unused reserved=0x00000005}"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got  %s\nwant %s", c.got, c.want)
		}
	}
	for _, s := range []string{RGBA8888.String(), MagNearest.String(), WrapMirror.String(), ParamChildSize.String(), FlipByGPU.String(), TFormat.String()} {
		if s == "" || strings.Contains(s, "(") {
			t.Errorf("unexpected name %q", s)
		}
	}
}

func TestEncodeDoesNotAllocate(t *testing.T) {
	p0 := P0{Base: 0x5000, FlipY: true}
	p1 := P1{Width: 256, Height: 256}
	p2 := P2{Kind: ParamCubeStride, CubeStride: 0x6000}
	n := testing.AllocsPerRun(20, func() {
		_, _ = p0.Encode()
		_, _ = p1.Encode()
		_, _ = p2.Encode()
		_ = DecodeP0(0x1234)
		_ = DecodeP1(0x1234)
		_ = DecodeP2(0x1234)
	})
	if n != 0 {
		t.Errorf("%v allocations per encode/decode, want 0", n)
	}
}
