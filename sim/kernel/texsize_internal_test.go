package kernel

import (
	"testing"

	"github.com/vccube/vccube/texture"
)

// TestTexGrid checks reloc_tex's type switch, type by type (vc4_validate.c:
// cpp 4, 2 or 1, ETC1 as 8-byte 4×4 blocks, the rest refused).
func TestTexGrid(t *testing.T) {
	for typ, want := range map[texture.Type]int{
		texture.RGBA8888: 4, texture.RGBX8888: 4, texture.RGBA4444: 2, texture.RGBA5551: 2,
		texture.RGB565: 2, texture.LUMINANCE: 1, texture.ALPHA: 1, texture.LUMALPHA: 2,
		texture.ETC1: 8, texture.S16F: 2, texture.S8: 1, texture.S16: 2, texture.BW1: 0,
		texture.A4: 0, texture.A1: 0, texture.RGBA64: 0, texture.RGBA32R: 4, texture.YUYV422R: 0,
		18: 0, 31: 0,
	} {
		cpp, w, h, ok := texGrid(typ, 10, 17)
		if cpp != want || ok != (want != 0) {
			t.Errorf("%v: cpp %d %v, want %d", typ, cpp, ok, want)
		}
		if !ok {
			continue
		}
		// ETC1 width and height become (n+3)>>2; the others stay.
		ww, wh := 10, 17
		if typ == texture.ETC1 {
			ww, wh = 3, 5
		}
		if w != ww || h != wh {
			t.Errorf("%v 10×17: grid %d×%d, want %d×%d", typ, w, h, ww, wh)
		}
	}
}

func TestCheckTexSize(t *testing.T) {
	const size = 256 * 256 * 4 // a 256×256 RGBA8888 T image
	cases := []struct {
		name       string
		bo, offset uint32
		tiling     uint8
		w, h, cpp  int
		ok         bool
	}{
		{"fits exactly", size, 0, tilingT, 256, 256, 4, true},
		{"one byte short", size - 1, 0, tilingT, 256, 256, 4, false},
		{"offset pushes it out", size + 4095, 4096, tilingT, 256, 256, 4, false},
		{"offset fits", size + 4096, 4096, tilingT, 256, 256, 4, true},
		{"padding counts", 3 * 70 * 4, 0, tilingT, 3, 70, 4, false},
		{"4096 wide is allowed", 4096 * 4 * 1, 0, tilingLinear, 4096, 1, 4, true},
		{"4097 wide is not", 1 << 30, 0, tilingLinear, 4097, 1, 4, false},
		{"4097 high is not", 1 << 30, 0, tilingLinear, 1, 4097, 4, false},
		{"offset+size wraps 32 bits", 0xFFFFFFFF, 0xFFFFF000, tilingT, 64, 64, 4, false},
		{"unknown tiling", 1 << 30, 0, 3, 8, 8, 4, false},
	}
	for _, c := range cases {
		if got := checkTexSize(c.bo, c.offset, c.tiling, c.w, c.h, c.cpp); got != c.ok {
			t.Errorf("%s: checkTexSize = %v, want %v", c.name, got, c.ok)
		}
	}
}

// TestKernelSizeRulesAgreeWithTheLayouts: the kernel's copies of the utile
// shapes, size_is_lt, the padding of vc4_check_tex_size and reloc_tex's
// level sizes agree with package texture's layout description, which the
// client and the simulated GPU use, for every cpp the kernel knows and a
// spread of sizes.
func TestKernelSizeRulesAgreeWithTheLayouts(t *testing.T) {
	for _, cpp := range []int{1, 2, 4, 8} {
		if utileWidth(cpp) != texture.UtileWidth(cpp) || utileHeight(cpp) != texture.UtileHeight(cpp) {
			t.Errorf("cpp %d: kernel utile %d×%d, layout %d×%d", cpp, utileWidth(cpp), utileHeight(cpp), texture.UtileWidth(cpp), texture.UtileHeight(cpp))
		}
		for _, w := range []int{1, 2, 3, 7, 8, 15, 16, 17, 31, 32, 33, 64, 65, 100, 2048} {
			for _, h := range []int{1, 4, 5, 16, 17, 32, 33, 60, 1000} {
				if sizeIsLT(w, h, cpp) != texture.SizeIsLT(w, h, cpp) {
					t.Errorf("%d×%d cpp %d: kernel LT %v, layout %v", w, h, cpp, sizeIsLT(w, h, cpp), texture.SizeIsLT(w, h, cpp))
				}
				for tiling, tt := range map[uint8]texture.Tiling{tilingLinear: texture.Linear, tilingT: texture.TFormat, tilingLT: texture.LTFormat} {
					kw, kh, _ := alignedSize(tiling, w, h, cpp)
					lw, lh, _ := texture.AlignedSize(tt, w, h, cpp)
					if kw != lw || kh != lh {
						t.Errorf("%d×%d cpp %d %v: kernel pads to %d×%d, layout to %d×%d", w, h, cpp, tt, kw, kh, lw, lh)
					}
				}
				for level := 0; level < 12; level++ {
					kw, kh := levelSize(w, h, level)
					if lw, lh := texture.LevelSize(w, h, level); kw != lw || kh != lh {
						t.Errorf("%d×%d level %d: kernel %d×%d, layout %d×%d", w, h, level, kw, kh, lw, lh)
					}
				}
			}
		}
	}
}

// TestPlansPassTheKernel: every plan the client's layout description makes
// (texture.NewMipPlan), for every size shape and level count, passes the
// kernel's size checks with the texture at offset 0 of a buffer of exactly
// Size() bytes, and a byte less does not.
func TestPlansPassTheKernel(t *testing.T) {
	types := []texture.Type{texture.RGBA8888, texture.RGB565, texture.LUMINANCE, texture.LUMALPHA, texture.RGBA32R, texture.ETC1}
	sizes := [][2]int{{1, 1}, {3, 70}, {65, 33}, {2048, 1}, {256, 256}, {100, 60}, {17, 2000}, {2048, 2048}}
	for _, typ := range types {
		for _, s := range sizes {
			for levels := 1; levels <= texture.FullChainLevels(s[0], s[1]); levels++ {
				p, err := texture.NewMipPlan(typ, s[0], s[1], levels)
				if err != nil {
					t.Fatalf("%v %v %d levels: %v", typ, s, levels, err)
				}
				if texSizeFits(typ, s[0], s[1], uint32(p.BaseOffset()), 0, levels-1, uint32(p.Size())) != "" {
					t.Errorf("%v %d×%d with %d levels: the kernel's walk refuses the plan", typ, s[0], s[1], levels)
				}
				if texSizeFits(typ, s[0], s[1], uint32(p.BaseOffset()), 0, levels-1, uint32(p.Size()-1)) == "" {
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
