package texture

import (
	"bytes"
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

// kernelAccepts walks a texture's levels exactly as Linux vc4_validate.c
// reloc_tex() does (written from kernel-vc4.md §6.2 and the kernel source):
// check level 0 at the base, then for i = 1..MIPLVLS subtract each level's
// aligned size, computed from max(w>>i, 1), from the base offset, refusing
// an underflow. Tiling drops from T to LT once a level is small enough.
func kernelAccepts(typ Type, boSize uint32, base uint32, width, height, lastLevel int) bool {
	cpp, w, h, ok := typ.KernelGrid(width, height)
	if !ok {
		return false
	}
	tiling := TFormat
	if typ == RGBA32R {
		tiling = Linear
	} else if SizeIsLT(w, h, cpp) {
		tiling = LTFormat
	}
	if !CheckTexSize(boSize, base, tiling, w, h, cpp) {
		return false
	}
	offset := base
	for i := 1; i <= lastLevel; i++ {
		lw, lh := KernelLevelSize(w, h, i)
		if tiling == TFormat && SizeIsLT(lw, lh, cpp) {
			tiling = LTFormat
		}
		aw, ah, _ := AlignedSize(tiling, lw, lh, cpp)
		size := uint32(aw * cpp * ah)
		if offset < size {
			return false
		}
		offset -= size
	}
	return true
}

// TestPlansPassTheKernel: every plan, for every size shape and level count,
// passes the kernel's check with the texture at offset 0 of a buffer of
// exactly Size() bytes; and one level more than planned, or a byte less,
// does not fit where the sizes are tight.
func TestPlansPassTheKernel(t *testing.T) {
	types := []Type{RGBA8888, RGB565, LUMINANCE, LUMALPHA, RGBA32R, ETC1}
	sizes := [][2]int{{1, 1}, {3, 70}, {65, 33}, {2048, 1}, {256, 256}, {100, 60}, {17, 2000}, {2048, 2048}}
	for _, typ := range types {
		for _, s := range sizes {
			for levels := 1; levels <= FullChainLevels(s[0], s[1]); levels++ {
				p, err := NewMipPlan(typ, s[0], s[1], levels)
				if err != nil {
					t.Fatalf("%v %v %d levels: %v", typ, s, levels, err)
				}
				if !kernelAccepts(typ, uint32(p.Size()), uint32(p.BaseOffset()), s[0], s[1], levels-1) {
					t.Errorf("%v %d×%d with %d levels: the kernel's walk refuses the plan", typ, s[0], s[1], levels)
				}
				if kernelAccepts(typ, uint32(p.Size()-1), uint32(p.BaseOffset()), s[0], s[1], levels-1) {
					t.Errorf("%v %d×%d with %d levels: the kernel accepts a buffer one byte short", typ, s[0], s[1], levels)
				}
				if p.BaseOffset()%4096 != 0 {
					t.Errorf("%v %v: base offset %d not 4 KiB aligned", typ, s, p.BaseOffset())
				}
				// Levels are contiguous below level 0, smallest lowest.
				for i := 1; i < levels; i++ {
					if p.Level(i).Offset+p.Level(i).Layout.Size() != p.Level(i-1).Offset {
						t.Errorf("%v %v: level %d does not end where level %d starts", typ, s, i, i-1)
					}
				}
			}
		}
	}
}

// TestMipRoundTrips: every level of a chain survives Upload and reading back
// through its layout, for each cpp, odd sizes and both row orders; the
// bytes outside the pictures are zero.
func TestMipRoundTrips(t *testing.T) {
	types := []Type{LUMINANCE, RGB565, RGBA8888, RGBA64}
	sizes := [][2]int{{1, 1}, {3, 70}, {65, 33}, {2048, 1}, {256, 256}}
	for _, typ := range types {
		cpp, _, _, _ := typ.Storage(1, 1)
		for _, s := range sizes {
			for _, flip := range []bool{false, true} {
				levels := FullChainLevels(s[0], s[1])
				p, err := NewMipPlan(typ, s[0], s[1], levels)
				if err != nil {
					t.Fatal(err)
				}
				pics := make([]Picture, levels)
				for i := range pics {
					l := p.Level(i)
					pics[i] = randomPicture(l.Width, l.Height, cpp, uint64(i*1000+s[0]))
				}
				mem := bytes.Repeat([]byte{0xAB}, p.Size())
				if err := p.Upload(mem, pics, flip); err != nil {
					t.Fatalf("%v %v: %v", typ, s, err)
				}
				covered := make([]bool, len(mem))
				for i := range pics {
					l := p.Level(i)
					back, _ := NewPicture(l.Width, l.Height, cpp)
					if err := l.Layout.ToLinear(back, mem[l.Offset:], flip); err != nil {
						t.Fatal(err)
					}
					if !samePixels(back, pics[i]) {
						t.Errorf("%v %v flip=%v: level %d changed", typ, s, flip, i)
					}
					for y := 0; y < l.Height; y++ {
						for x := 0; x < l.Width; x++ {
							o := l.Offset + l.Layout.Offset(x, y)
							for k := 0; k < cpp; k++ {
								covered[o+k] = true
							}
						}
					}
				}
				for i, c := range covered {
					if !c && mem[i] != 0 {
						t.Fatalf("%v %v: byte %d outside every picture is %#x", typ, s, i, mem[i])
					}
				}
			}
		}
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
	pic, _ := NewPicture(8, 8, 4)
	if err := p.Upload(make([]byte, p.Size()), []Picture{pic}, false); err == nil {
		t.Error("Upload with one picture for two levels")
	}
	small, _ := NewPicture(3, 4, 4)
	if err := p.Upload(make([]byte, p.Size()), []Picture{pic, small}, false); err == nil {
		t.Error("Upload with a wrong-sized level 1")
	}
	if err := p.Upload(make([]byte, p.Size()-1), []Picture{pic, pic}, false); err == nil {
		t.Error("Upload into a short buffer")
	}
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

// TestDownsample: hand-averaged values for each kind of field.
func TestDownsample(t *testing.T) {
	pic := func(w, h, cpp int, b ...byte) Picture {
		return Picture{Pix: b, Width: w, Height: h, Stride: w * cpp, Cpp: cpp}
	}
	cases := []struct {
		name string
		typ  Type
		src  Picture
		want []byte
	}{
		// (10+11+12+14+2)/4 = 12, (20+21+22+24+2)/4 = 22, 32, 42.
		{"RGBA8888", RGBA8888, pic(2, 2, 4, 10, 20, 30, 40, 11, 21, 31, 41, 12, 22, 32, 42, 14, 24, 34, 44), []byte{12, 22, 32, 42}},
		// Two white (0xFFFF) and two black pixels: 5-bit (62+2)/4 = 16,
		// 6-bit (126+2)/4 = 32: 16 | 32<<5 | 16<<11 = 0x8410.
		{"RGB565", RGB565, pic(2, 2, 2, 0xFF, 0xFF, 0, 0, 0, 0, 0xFF, 0xFF), []byte{0x10, 0x84}},
		// Alpha bits 1,1,1,0: (3+2)/4 = 1; the 5-bit fields all 0.
		{"RGBA5551", RGBA5551, pic(2, 2, 2, 1, 0, 1, 0, 1, 0, 0, 0), []byte{1, 0}},
		// 4-bit fields: 0xF,0x0,0xF,0x0 → (30+2)/4 = 8 in every nibble.
		{"RGBA4444", RGBA4444, pic(2, 2, 2, 0xFF, 0xFF, 0, 0, 0xFF, 0xFF, 0, 0), []byte{0x88, 0x88}},
		// Odd width: the third column is dropped: (10+13+1)/2 = 12.
		{"3x1", LUMINANCE, pic(3, 1, 1, 10, 13, 200), []byte{12}},
		// A column: rows 0 and 1 averaged, row 2 dropped: (7+8+1)/2 = 8.
		{"1x3", ALPHA, pic(1, 3, 1, 7, 8, 255), []byte{8}},
		{"1x1 stays", LUMALPHA, pic(1, 1, 2, 9, 99), []byte{9, 99}},
	}
	for _, c := range cases {
		dst, _ := NewPicture(max(c.src.Width/2, 1), max(c.src.Height/2, 1), c.src.Cpp)
		if err := Downsample(dst, c.src, c.typ); err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !bytes.Equal(dst.Pix, c.want) {
			t.Errorf("%s: got % x, want % x", c.name, dst.Pix, c.want)
		}
	}
	src, _ := NewPicture(4, 4, 4)
	bad, _ := NewPicture(3, 2, 4)
	if err := Downsample(bad, src, RGBA8888); err == nil {
		t.Error("Downsample into a wrong-sized level")
	}
	for _, typ := range []Type{ETC1, S8, S16, S16F, RGBA64, YUYV422R, BW1} {
		d, _ := NewPicture(2, 2, 4)
		if err := Downsample(d, src, typ); err == nil {
			t.Errorf("Downsample of %v accepted", typ)
		}
	}
}

func TestGenerateMips(t *testing.T) {
	// A 4×2 picture of one grey value stays that value all the way down.
	l0, _ := NewPicture(4, 2, 1)
	for i := range l0.Pix {
		l0.Pix[i] = 77
	}
	levels, err := GenerateMips(LUMINANCE, l0, FullChainLevels(4, 2))
	if err != nil {
		t.Fatal(err)
	}
	sizes := [][2]int{{4, 2}, {2, 1}, {1, 1}}
	if len(levels) != len(sizes) {
		t.Fatalf("%d levels, want 3", len(levels))
	}
	p, _ := NewMipPlan(LUMINANCE, 4, 2, 3)
	for i, s := range sizes {
		if levels[i].Width != s[0] || levels[i].Height != s[1] || p.Level(i).Width != s[0] || p.Level(i).Height != s[1] {
			t.Errorf("level %d is %d×%d (plan %d×%d), want %v", i, levels[i].Width, levels[i].Height, p.Level(i).Width, p.Level(i).Height, s)
		}
		for _, b := range levels[i].Pix {
			if b != 77 {
				t.Errorf("level %d has %d, want 77", i, b)
			}
		}
	}
	if err := p.Upload(make([]byte, p.Size()), levels, true); err != nil {
		t.Errorf("the generated levels do not fit the plan: %v", err)
	}
}

func TestFullChainLevels(t *testing.T) {
	for _, c := range []struct{ w, h, n int }{{1, 1, 1}, {2, 1, 2}, {256, 256, 9}, {2048, 1, 12}, {100, 60, 7}, {3, 70, 7}} {
		if got := FullChainLevels(c.w, c.h); got != c.n {
			t.Errorf("FullChainLevels(%d, %d) = %d, want %d", c.w, c.h, got, c.n)
		}
	}
}

func TestUploadDoesNotAllocate(t *testing.T) {
	p, _ := NewMipPlan(RGBA8888, 64, 64, 7)
	pics, _ := GenerateMips(RGBA8888, randomPicture(64, 64, 4, 3), 7)
	mem := make([]byte, p.Size())
	n := testing.AllocsPerRun(10, func() {
		_ = p.Upload(mem, pics, false)
		_, _, _ = p.Params(0, FlipByGPU, VkcubeSampler)
	})
	if n != 0 {
		t.Errorf("%v allocations per upload, want 0", n)
	}
}
