package convert

import (
	"bytes"
	"testing"

	"github.com/vccube/vccube/texture"
)

// TestMipRoundTrips: every level of a chain survives Upload and reading back
// through its layout, for each cpp, odd sizes and both row orders; the
// bytes outside the pictures are zero.
func TestMipRoundTrips(t *testing.T) {
	types := []texture.Type{texture.LUMINANCE, texture.RGB565, texture.RGBA8888, texture.RGBA64}
	sizes := [][2]int{{1, 1}, {3, 70}, {65, 33}, {2048, 1}, {256, 256}}
	for _, typ := range types {
		cpp, _, _, _ := typ.Storage(1, 1)
		for _, s := range sizes {
			for _, flip := range []bool{false, true} {
				levels := texture.FullChainLevels(s[0], s[1])
				p, err := texture.NewMipPlan(typ, s[0], s[1], levels)
				if err != nil {
					t.Fatal(err)
				}
				pics := make([]texture.Picture, levels)
				for i := range pics {
					l := p.Level(i)
					pics[i] = randomPicture(l.Width, l.Height, cpp, uint64(i*1000+s[0]))
				}
				mem := bytes.Repeat([]byte{0xAB}, p.Size())
				if err := Upload(&p, mem, pics, flip); err != nil {
					t.Fatalf("%v %v: %v", typ, s, err)
				}
				covered := make([]bool, len(mem))
				for i := range pics {
					l := p.Level(i)
					back, _ := texture.NewPicture(l.Width, l.Height, cpp)
					if err := ToLinear(l.Layout, back, mem[l.Offset:], flip); err != nil {
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

// TestDownsample: hand-averaged values for each kind of field.
func TestDownsample(t *testing.T) {
	pic := func(w, h, cpp int, b ...byte) texture.Picture {
		return texture.Picture{Pix: b, Width: w, Height: h, Stride: w * cpp, Cpp: cpp}
	}
	cases := []struct {
		name string
		typ  texture.Type
		src  texture.Picture
		want []byte
	}{
		// (10+11+12+14+2)/4 = 12, (20+21+22+24+2)/4 = 22, 32, 42.
		{"RGBA8888", texture.RGBA8888, pic(2, 2, 4, 10, 20, 30, 40, 11, 21, 31, 41, 12, 22, 32, 42, 14, 24, 34, 44), []byte{12, 22, 32, 42}},
		// Two white (0xFFFF) and two black pixels: 5-bit (62+2)/4 = 16,
		// 6-bit (126+2)/4 = 32: 16 | 32<<5 | 16<<11 = 0x8410.
		{"RGB565", texture.RGB565, pic(2, 2, 2, 0xFF, 0xFF, 0, 0, 0, 0, 0xFF, 0xFF), []byte{0x10, 0x84}},
		// Alpha bits 1,1,1,0: (3+2)/4 = 1; the 5-bit fields all 0.
		{"RGBA5551", texture.RGBA5551, pic(2, 2, 2, 1, 0, 1, 0, 1, 0, 0, 0), []byte{1, 0}},
		// 4-bit fields: 0xF,0x0,0xF,0x0 → (30+2)/4 = 8 in every nibble.
		{"RGBA4444", texture.RGBA4444, pic(2, 2, 2, 0xFF, 0xFF, 0, 0, 0xFF, 0xFF, 0, 0), []byte{0x88, 0x88}},
		// Odd width: the third column is dropped: (10+13+1)/2 = 12.
		{"3x1", texture.LUMINANCE, pic(3, 1, 1, 10, 13, 200), []byte{12}},
		// A column: rows 0 and 1 averaged, row 2 dropped: (7+8+1)/2 = 8.
		{"1x3", texture.ALPHA, pic(1, 3, 1, 7, 8, 255), []byte{8}},
		{"1x1 stays", texture.LUMALPHA, pic(1, 1, 2, 9, 99), []byte{9, 99}},
	}
	for _, c := range cases {
		dst, _ := texture.NewPicture(max(c.src.Width/2, 1), max(c.src.Height/2, 1), c.src.Cpp)
		if err := Downsample(dst, c.src, c.typ); err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !bytes.Equal(dst.Pix, c.want) {
			t.Errorf("%s: got % x, want % x", c.name, dst.Pix, c.want)
		}
	}
	src, _ := texture.NewPicture(4, 4, 4)
	bad, _ := texture.NewPicture(3, 2, 4)
	if err := Downsample(bad, src, texture.RGBA8888); err == nil {
		t.Error("Downsample into a wrong-sized level")
	}
	for _, typ := range []texture.Type{texture.ETC1, texture.S8, texture.S16, texture.S16F, texture.RGBA64, texture.YUYV422R, texture.BW1} {
		d, _ := texture.NewPicture(2, 2, 4)
		if err := Downsample(d, src, typ); err == nil {
			t.Errorf("Downsample of %v accepted", typ)
		}
	}
}

func TestGenerateMips(t *testing.T) {
	// A 4×2 picture of one grey value stays that value all the way down.
	l0, _ := texture.NewPicture(4, 2, 1)
	for i := range l0.Pix {
		l0.Pix[i] = 77
	}
	levels, err := GenerateMips(texture.LUMINANCE, l0, texture.FullChainLevels(4, 2))
	if err != nil {
		t.Fatal(err)
	}
	sizes := [][2]int{{4, 2}, {2, 1}, {1, 1}}
	if len(levels) != len(sizes) {
		t.Fatalf("%d levels, want 3", len(levels))
	}
	p, _ := texture.NewMipPlan(texture.LUMINANCE, 4, 2, 3)
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
	if err := Upload(&p, make([]byte, p.Size()), levels, true); err != nil {
		t.Errorf("the generated levels do not fit the plan: %v", err)
	}
}

func TestUploadDoesNotAllocate(t *testing.T) {
	p, _ := texture.NewMipPlan(texture.RGBA8888, 64, 64, 7)
	pics, _ := GenerateMips(texture.RGBA8888, randomPicture(64, 64, 4, 3), 7)
	mem := make([]byte, p.Size())
	n := testing.AllocsPerRun(10, func() {
		_ = Upload(&p, mem, pics, false)
		_, _, _ = p.Params(0, texture.FlipByGPU, texture.VkcubeSampler)
	})
	if n != 0 {
		t.Errorf("%v allocations per upload, want 0", n)
	}
}

func TestUploadErrors(t *testing.T) {
	p, _ := texture.NewMipPlan(texture.RGBA8888, 8, 8, 2)
	pic, _ := texture.NewPicture(8, 8, 4)
	if err := Upload(&p, make([]byte, p.Size()), []texture.Picture{pic}, false); err == nil {
		t.Error("Upload with one picture for two levels")
	}
	small, _ := texture.NewPicture(3, 4, 4)
	if err := Upload(&p, make([]byte, p.Size()), []texture.Picture{pic, small}, false); err == nil {
		t.Error("Upload with a wrong-sized level 1")
	}
	if err := Upload(&p, make([]byte, p.Size()-1), []texture.Picture{pic, pic}, false); err == nil {
		t.Error("Upload into a short buffer")
	}
}
