package texture

import "testing"

// TestTypes checks the type table against [AG] Table 18 (bits per pixel,
// raster types). The kernel's own cpp and acceptance of each type are
// sim/kernel's (TestTexGrid there).
func TestTypes(t *testing.T) {
	cases := []struct {
		typ    Type
		name   string
		bpp    int
		raster bool
	}{
		{0, "RGBA8888", 32, false},
		{1, "RGBX8888", 32, false},
		{2, "RGBA4444", 16, false},
		{3, "RGBA5551", 16, false},
		{4, "RGB565", 16, false},
		{5, "LUMINANCE", 8, false},
		{6, "ALPHA", 8, false},
		{7, "LUMALPHA", 16, false},
		{8, "ETC1", 4, false},
		{9, "S16F", 16, false},
		{10, "S8", 8, false},
		{11, "S16", 16, false},
		{12, "BW1", 1, false},
		{13, "A4", 4, false},
		{14, "A1", 1, false},
		{15, "RGBA64", 64, false},
		{16, "RGBA32R", 32, true},
		{17, "YUYV422R", 32, true},
	}
	for _, c := range cases {
		if !c.typ.Valid() || c.typ.String() != c.name || c.typ.BitsPerPixel() != c.bpp || c.typ.Raster() != c.raster {
			t.Errorf("type %d: %q valid=%v bpp %d raster %v; want %q %d %v",
				c.typ, c.typ.String(), c.typ.Valid(), c.typ.BitsPerPixel(), c.typ.Raster(), c.name, c.bpp, c.raster)
		}
	}
	for _, bad := range []Type{18, 31, 255} {
		if bad.Valid() || bad.BitsPerPixel() != 0 {
			t.Errorf("Type(%d) valid", bad)
		}
		if bad.String() == "" {
			t.Errorf("Type(%d) has no name", bad)
		}
	}
}

func TestStorage(t *testing.T) {
	// ETC1 is stored as 8-byte blocks of 4×4 pixels ([AG] §11).
	if cpp, w, h, ok := ETC1.Storage(10, 17); !ok || cpp != 8 || w != 3 || h != 5 {
		t.Errorf("ETC1 10×17: %d %d×%d %v, want cpp 8 on 3×5", cpp, w, h, ok)
	}
	// The hardware stores RGBA64 at 8 bytes per pixel (the kernel refuses it).
	if cpp, _, _, ok := RGBA64.Storage(8, 8); !ok || cpp != 8 {
		t.Errorf("RGBA64 storage cpp %d %v, want 8", cpp, ok)
	}
	for _, sub := range []Type{BW1, A4, A1} {
		if _, _, _, ok := sub.Storage(64, 64); ok {
			t.Errorf("%v has a byte layout", sub)
		}
		if _, ok := sub.Tiling(64, 64); ok {
			t.Errorf("%v has a tiling", sub)
		}
	}
}

// TestSizeIsLT: LT when the level is at most 4 utiles wide or high
// (vc4_validate.c size_is_lt(): at 32 bits, LT when w ≤ 16 or h ≤ 16;
// doc/hardware.md#tmu).
func TestSizeIsLT(t *testing.T) {
	cases := []struct {
		w, h, cpp int
		lt        bool
	}{
		{16, 1000, 4, true}, {1000, 16, 4, true}, {17, 17, 4, false}, {31, 31, 4, false},
		{32, 33, 1, true}, {33, 33, 1, false}, {33, 32, 1, true},
		{32, 17, 2, true}, {33, 16, 2, true}, {33, 17, 2, false},
		{8, 17, 8, true}, {9, 16, 8, true}, {9, 17, 8, false},
		{1, 1, 4, true}, {2048, 2048, 4, false},
	}
	for _, c := range cases {
		if got := SizeIsLT(c.w, c.h, c.cpp); got != c.lt {
			t.Errorf("SizeIsLT(%d, %d, cpp %d) = %v, want %v", c.w, c.h, c.cpp, got, c.lt)
		}
	}
	// Type.Tiling adds the raster types and ETC1's block grid.
	for _, c := range []struct {
		typ  Type
		w, h int
		want Tiling
	}{
		{RGBA8888, 256, 256, TFormat}, {RGBA8888, 16, 256, LTFormat}, {RGBA32R, 256, 256, Linear},
		{ETC1, 64, 64, LTFormat}, // 16×16 blocks at cpp 8: 16 > 8 but 16 ≤ 16
		{ETC1, 64, 68, TFormat},  // 16×17 blocks
		{LUMINANCE, 33, 33, TFormat},
	} {
		if got, ok := c.typ.Tiling(c.w, c.h); !ok || got != c.want {
			t.Errorf("%v %d×%d: tiling %v %v, want %v", c.typ, c.w, c.h, got, ok, c.want)
		}
	}
}

// TestAlignedSize: vc4_check_tex_size()'s rounding, and the example of
// doc/kernel.md#surfaces (640×480 RGBA8888, T or linear: 1 228 800 bytes).
func TestAlignedSize(t *testing.T) {
	cases := []struct {
		tiling    Tiling
		w, h, cpp int
		aw, ah    int
	}{
		{TFormat, 640, 480, 4, 640, 480},
		{Linear, 640, 480, 4, 640, 480},
		{TFormat, 65, 33, 4, 96, 64},
		{LTFormat, 65, 33, 4, 68, 36},
		{Linear, 65, 33, 4, 68, 33},
		{TFormat, 1, 1, 1, 64, 64},
		{TFormat, 1, 1, 2, 64, 32},
		{TFormat, 1, 1, 8, 16, 32},
		{LTFormat, 3, 70, 1, 8, 72},
		{LTFormat, 3, 70, 8, 4, 72},
	}
	for _, c := range cases {
		aw, ah, ok := AlignedSize(c.tiling, c.w, c.h, c.cpp)
		if !ok || aw != c.aw || ah != c.ah {
			t.Errorf("AlignedSize(%v, %d×%d, cpp %d) = %d×%d %v, want %d×%d", c.tiling, c.w, c.h, c.cpp, aw, ah, ok, c.aw, c.ah)
		}
	}
	if _, _, ok := AlignedSize(3, 8, 8, 4); ok {
		t.Error("tiling 3 accepted")
	}
	if aw, ah, _ := AlignedSize(TFormat, 640, 480, 4); aw*ah*4 != 1228800 {
		t.Errorf("640×480×4 T = %d bytes, want 1228800", aw*ah*4)
	}
}

// TestLevelSizes: a level's picture is max(w>>i, 1) (GL's minification,
// which the kernel's reloc_tex walks too); the hardware uses power-of-two
// containers for levels ≥ 1 ([AG] §4; Mesa vc4_setup_slices()).
func TestLevelSizes(t *testing.T) {
	cases := []struct {
		w, h, level    int
		kw, kh, hw, hh int
	}{
		{256, 256, 0, 256, 256, 256, 256},
		{256, 256, 3, 32, 32, 32, 32},
		{256, 256, 8, 1, 1, 1, 1},
		{256, 256, 9, 1, 1, 1, 1},
		{100, 60, 0, 100, 60, 100, 60},
		{100, 60, 1, 50, 30, 64, 32},
		{100, 60, 2, 25, 15, 32, 16},
		{100, 60, 6, 1, 1, 2, 1},
		{3, 70, 1, 1, 35, 2, 64},
		{2048, 1, 11, 1, 1, 1, 1},
	}
	for _, c := range cases {
		kw, kh := LevelSize(c.w, c.h, c.level)
		hw, hh := HardwareLevelSize(c.w, c.h, c.level)
		if kw != c.kw || kh != c.kh || hw != c.hw || hh != c.hh {
			t.Errorf("%d×%d level %d: picture %d×%d hardware %d×%d, want %d×%d and %d×%d",
				c.w, c.h, c.level, kw, kh, hw, hh, c.kw, c.kh, c.hw, c.hh)
		}
	}
}
