package convert

import (
	"bytes"
	"testing"

	"github.com/vccube/vccube/texture"
)

// TestFlipAlternativesSampleAlike proves the claim of the post "vc4:
// T-format Textures" (2023-06-27; doc/hardware.md#public-write-ups) that its
// two alternatives show the same picture. A top-down picture (row 0 = top)
// is uploaded both ways; the TMU's view of each is modelled only through the
// address functions: texel (x, v), v counted from t = 0, lives at
// Layout.Offset(x, FlipYRow(v, height, FLIPY)). Both must give, for every
// texel of every mip level, the picture's pixel at column x and row
// height-1-v: the upright picture with t = 0 at its bottom, as [AG] §11
// has it ("the first data in memory will be the bottom-left pixel").
func TestFlipAlternativesSampleAlike(t *testing.T) {
	types := []texture.Type{texture.LUMINANCE, texture.RGB565, texture.RGBA8888, texture.RGBA64, texture.RGBA32R}
	sizes := [][2]int{{1, 1}, {3, 70}, {65, 33}, {2048, 1}, {256, 256}, {100, 60}}
	for _, typ := range types {
		cpp, _, _, _ := typ.Storage(1, 1)
		for _, s := range sizes {
			levels := texture.FullChainLevels(s[0], s[1])
			p, err := texture.NewMipPlan(typ, s[0], s[1], levels)
			if err != nil {
				t.Fatal(err)
			}
			pics := make([]texture.Picture, levels)
			for i := range pics {
				pics[i] = randomPicture(p.Level(i).Width, p.Level(i).Height, cpp, uint64(17*i+s[1]))
			}
			byCPU := make([]byte, p.Size())
			byGPU := make([]byte, p.Size())
			if err := Upload(&p, byCPU, pics, texture.FlipByCPU.FlipsRows()); err != nil {
				t.Fatal(err)
			}
			if err := Upload(&p, byGPU, pics, texture.FlipByGPU.FlipsRows()); err != nil {
				t.Fatal(err)
			}
			p0CPU, _, _ := p.Params(0, texture.FlipByCPU, texture.VkcubeSampler)
			p0GPU, _, _ := p.Params(0, texture.FlipByGPU, texture.VkcubeSampler)
			if p0CPU.FlipY || !p0GPU.FlipY {
				t.Fatalf("FLIPY: flip-rows %v, flipy %v; want false and true", p0CPU.FlipY, p0GPU.FlipY)
			}
			for i := 0; i < levels; i++ {
				l := p.Level(i)
				texel := func(mem []byte, flipY bool, x, v int) []byte {
					o := l.Offset + l.Layout.Offset(x, texture.FlipYRow(v, l.Height, flipY))
					return mem[o : o+cpp]
				}
				for v := 0; v < l.Height; v++ {
					for x := 0; x < l.Width; x++ {
						a := texel(byCPU, p0CPU.FlipY, x, v)
						b := texel(byGPU, p0GPU.FlipY, x, v)
						upright := pics[i].Pix[(l.Height-1-v)*pics[i].Stride+x*cpp:][:cpp]
						if !bytes.Equal(a, b) || !bytes.Equal(a, upright) {
							t.Fatalf("%v %v level %d texel (%d,%d): flip-rows % x, flipy % x, picture % x",
								typ, s, i, x, v, a, b, upright)
						}
					}
				}
			}
		}
	}
}
