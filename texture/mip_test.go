package texture

import (
	"fmt"
	"testing"
)

// TestMipPlan256 checks the placement of vkcube-sized texture's full chain,
// worked out by hand from the rules of [AG] §4 and vc4_setup_slices():
//
//	level  size     format  bytes   offset
//	0      256×256  T       262144  90112 (87488 rounded up to 4 KiB)
//	1      128×128  T        65536  24576
//	2       64×64   T        16384   8192
//	3       32×32   T         4096   4096   (32 > 16: still T)
//	4       16×16   LT        1024   3072
//	5        8×8    LT         256   2816
//	6        4×4    LT          64   2752
//	7        2×2    LT          64   2688   (padded to a 4×4 utile)
//	8        1×1    LT          64   2624
func TestMipPlan256(t *testing.T) {
	p, err := NewMipPlan(RGBA8888, 256, 256, FullChainLevels(256, 256))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		size          int
		tiling        Tiling
		bytes, offset int
	}{
		{256, TFormat, 262144, 90112},
		{128, TFormat, 65536, 24576},
		{64, TFormat, 16384, 8192},
		{32, TFormat, 4096, 4096},
		{16, LTFormat, 1024, 3072},
		{8, LTFormat, 256, 2816},
		{4, LTFormat, 64, 2752},
		{2, LTFormat, 64, 2688},
		{1, LTFormat, 64, 2624},
	}
	if p.Levels() != len(want) {
		t.Fatalf("%d levels, want %d", p.Levels(), len(want))
	}
	for i, w := range want {
		l := p.Level(i)
		if l.Width != w.size || l.Height != w.size || l.Layout.Tiling() != w.tiling || l.Layout.Size() != w.bytes || l.Offset != w.offset {
			t.Errorf("level %d: %d×%d %v %d bytes at %d; want %d² %v %d at %d",
				i, l.Width, l.Height, l.Layout.Tiling(), l.Layout.Size(), l.Offset, w.size, w.tiling, w.bytes, w.offset)
		}
	}
	if p.BaseOffset() != 90112 || p.Size() != 90112+262144 {
		t.Errorf("base %d size %d, want 90112 and %d", p.BaseOffset(), p.Size(), 90112+262144)
	}
}

// TestMipPlanNPOT: a 100×60 texture; levels ≥ 1 use power-of-two
// containers (128×64 >> i), by hand:
//
//	level  picture  container  format  aligned  bytes  offset
//	0      100×60   100×60     T       128×64   32768  12288
//	1       50×30    64×32     T        64×32    8192   4096
//	2       25×15    32×16     LT       32×16    2048   2048
func TestMipPlanNPOT(t *testing.T) {
	p, err := NewMipPlan(RGBA8888, 100, 60, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		w, h, cw, ch, aw, ah int
		tiling               Tiling
		bytes, offset        int
	}{
		{100, 60, 100, 60, 128, 64, TFormat, 32768, 12288},
		{50, 30, 64, 32, 64, 32, TFormat, 8192, 4096},
		{25, 15, 32, 16, 32, 16, LTFormat, 2048, 2048},
	}
	for i, w := range want {
		l := p.Level(i)
		got := fmt.Sprint(l.Width, l.Height, l.ContainerWidth, l.ContainerHeight, l.Layout.AlignedWidth(), l.Layout.AlignedHeight(), l.Layout.Tiling(), l.Layout.Size(), l.Offset)
		exp := fmt.Sprint(w.w, w.h, w.cw, w.ch, w.aw, w.ah, w.tiling, w.bytes, w.offset)
		if got != exp {
			t.Errorf("level %d: got %s, want %s", i, got, exp)
		}
	}
	if p.Size() != 12288+32768 {
		t.Errorf("size %d, want %d", p.Size(), 12288+32768)
	}
}

func TestMipPlanErrors(t *testing.T) {
	for _, c := range []struct {
		typ          Type
		w, h, levels int
	}{
		{RGBA8888, 0, 1, 1}, {RGBA8888, 2049, 1, 1}, {RGBA8888, 4, 4, 0}, {RGBA8888, 4, 4, 17},
		{A4, 64, 64, 1}, {BW1, 64, 64, 1}, {Type(18), 64, 64, 1},
	} {
		if _, err := NewMipPlan(c.typ, c.w, c.h, c.levels); err == nil {
			t.Errorf("NewMipPlan(%v, %d, %d, %d) accepted", c.typ, c.w, c.h, c.levels)
		}
	}
	p, _ := NewMipPlan(RGBA8888, 8, 8, 2)
	if _, _, err := p.Params(100, FlipByGPU, VkcubeSampler); err == nil {
		t.Error("Params with an unaligned base")
	}
}

// TestParamsForVkcube: the words the renderer puts in the uniform stream
// for vkcube's texture, by hand: P0 = base | FLIPY (bit 8) | type 0 |
// MIPLVLS; P1 as in TestP1Words.
func TestParamsForVkcube(t *testing.T) {
	one, _ := NewMipPlan(RGBA8888, 256, 256, 1)
	full, _ := NewMipPlan(RGBA8888, 256, 256, 9)
	cases := []struct {
		name   string
		p      MipPlan
		base   uint32
		mode   FlipMode
		p0, p1 uint32
	}{
		{"one level, FLIPY", one, 0, FlipByGPU, 0x00000100, 0x10010095},
		{"one level at 0x5000, flipped rows", one, 0x5000, FlipByCPU, 0x00005000, 0x10010095},
		// Full chain: level 0 at 90112 = 0x16000; MIPLVLS 8.
		{"nine levels, FLIPY", full, 0, FlipByGPU, 0x00016108, 0x10010095},
	}
	for _, c := range cases {
		p0, p1, err := c.p.Params(c.base, c.mode, VkcubeSampler)
		if err != nil {
			t.Fatal(err)
		}
		w0, err0 := p0.Encode()
		w1, err1 := p1.Encode()
		if err0 != nil || err1 != nil || w0 != c.p0 || w1 != c.p1 {
			t.Errorf("%s: P0 %#08x P1 %#08x (%v %v), want %#08x %#08x", c.name, w0, w1, err0, err1, c.p0, c.p1)
		}
	}
	raster, _ := NewMipPlan(RGBA32R, 32, 32, 1)
	p0, p1, _ := raster.Params(0, FlipByCPU, Sampler{Mag: MagNearest})
	if JoinType(p0, p1) != RGBA32R || !p1.Type4 || p0.TypeLow != 0 {
		t.Errorf("RGBA32R params carry type %v", JoinType(p0, p1))
	}
	etc, _ := NewMipPlan(ETC1, 64, 64, 1)
	if _, p1, _ := etc.Params(0, FlipByGPU, VkcubeSampler); !p1.ETCFlip {
		t.Error("ETC1 params without ETCFLIP")
	}
}

func TestFullChainLevels(t *testing.T) {
	for _, c := range []struct{ w, h, n int }{{1, 1, 1}, {2, 1, 2}, {256, 256, 9}, {2048, 1, 12}, {100, 60, 7}, {3, 70, 7}} {
		if got := FullChainLevels(c.w, c.h); got != c.n {
			t.Errorf("FullChainLevels(%d, %d) = %d, want %d", c.w, c.h, got, c.n)
		}
	}
}
