package selftest

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/vccube/vccube/texture"
)

// texelWord is the RGBA8888 (or RGBA32R) texel (x, y) of a picture.
func texelWord(p texture.Picture, x, y int) uint32 {
	return binary.LittleEndian.Uint32(p.Pix[y*p.Stride+4*x:])
}

// mirror is OpenGL ES 2.0's mirrored repeat of texel index i over n.
func mirror(i, n int) int {
	p := ((i % (2 * n)) + 2*n) % (2 * n)
	if p >= n {
		p = 2*n - 1 - p
	}
	return p
}

// differsOn runs probe name on a device with fault f and the model, and
// fails unless the outputs differ.
func differsOn(t *testing.T, name string, f *tampered) {
	t.Helper()
	model, err := openSim(3)
	if err != nil {
		t.Fatal(err)
	}
	defer model.close()
	row, _ := runProbe(probeNamed(t, name), tamperedDevice(t, f), model, nil)
	if !row.Differs {
		t.Errorf("%s on the faulty device: %s", name, row.Result)
	} else {
		t.Logf("%s on the faulty device: %s", name, row.Result)
	}
}

// rewriteP1 returns a uniforms rewrite that applies change to every P1
// word of keys.
func rewriteP1(keys [][2]uint32, change func(*texture.P1)) func([]uint32) {
	return func(words []uint32) {
		for i := 1; i < len(words); i++ {
			for _, k := range keys {
				if words[i-1] == k[0] && words[i] == k[1] {
					p := texture.DecodeP1(k[1])
					change(&p)
					words[i], _ = p.Encode()
				}
			}
		}
	}
}

// The mirror probe shows OpenGL's mirrored repeat; a TMU that repeats
// instead of mirroring differs.
func TestMirrorProbe(t *testing.T) {
	j, out := runProbeOnSim(t, "tex-mirror")
	left, right := j.textures[0].pics[0], j.textures[1].pics[0]
	for y := 0; y < 64; y++ {
		for x := 0; x < 64; x++ {
			if got, want := out.colour.pix[y*128+x], texelWord(left, mirror(x-24, 16), mirror(y-24, 16)); got != want {
				t.Fatalf("left (%d,%d): %#08x, want %#08x", x, y, got, want)
			}
			if got, want := out.colour.pix[y*128+64+x], texelWord(right, mirror(x-16, 32), (y-16+32)%32); got != want {
				t.Fatalf("right (%d,%d): %#08x, want %#08x", x, y, got, want)
			}
		}
	}
	differsOn(t, "tex-mirror", &tampered{uniforms: rewriteP1(textureKeys(t, j), func(p *texture.P1) {
		if p.WrapS == texture.WrapMirror {
			p.WrapS = texture.WrapRepeat
		}
		if p.WrapT == texture.WrapMirror {
			p.WrapT = texture.WrapRepeat
		}
	})})
}

// The NPOT probe shows each level's picture one texel per pixel, FLIPY
// turning it over its own height; a TMU that samples the power-of-two
// container (P1 made 64×32, which keeps every level's layout) differs.
func TestNPOTMipProbe(t *testing.T) {
	j, out := runProbeOnSim(t, "tex-npot-mips")
	for f := 0; f < 2; f++ {
		y0 := 0
		for l := 0; l < npotLevels; l++ {
			pic := j.textures[f].pics[l]
			w, h := npotW>>l, npotH>>l
			for r := 0; r < h; r++ {
				for x := 0; x < w; x++ {
					ty := r
					if f == 1 {
						ty = h - 1 - r
					}
					if got, want := out.colour.pix[(y0+r)*128+64*f+x], texelWord(pic, x, ty); got != want {
						t.Fatalf("FLIPY %v, level %d, texel (%d,%d): %#08x, want %#08x", f == 1, l, x, ty, got, want)
					}
				}
			}
			y0 += h + 4
		}
	}
	differsOn(t, "tex-npot-mips", &tampered{uniforms: rewriteP1(textureKeys(t, j), func(p *texture.P1) { p.Width, p.Height = 64, 32 })})
}

// The raster probe shows the picture where its rows are 128 bytes apart
// and the rows sheared where they are 80 apart; a TMU that reads rows at
// the kernel's 80 bytes differs.
func TestRasterNPOTProbe(t *testing.T) {
	j, out := runProbeOnSim(t, "raster-npot")
	pic := j.textures[0].pics[0]
	for r := 0; r < 16; r++ {
		for x := 0; x < 20; x++ {
			if got, want := out.colour.pix[(8+r)*64+x], texelWord(pic, x, r); got != want {
				t.Fatalf("rows 128 bytes apart, (%d,%d): %#08x, want %#08x", x, r, got, want)
			}
			var want uint32 // beyond the upload, the BO's zeros
			if o := 128*r + 4*x; o < 80*16 {
				want = texelWord(pic, o%80/4, o/80)
			}
			if got := out.colour.pix[(8+r)*64+32+x]; got != want {
				t.Fatalf("rows 80 bytes apart, (%d,%d): %#08x, want %#08x", x, r, got, want)
			}
		}
	}
	stride80 := func(mem []byte, base int) {
		old := append([]byte(nil), mem...)
		for r := 0; r < 16; r++ {
			copy(mem[base+128*r:base+128*r+80], old[base+80*r:])
		}
	}
	f := &tampered{textures: map[[2]uint32]func([]byte, int){}}
	for _, k := range textureKeys(t, j) {
		f.textures[k] = stride80
	}
	differsOn(t, "raster-npot", f)
}

// The T-or-LT probe shows the RGBA8888 textures one texel per pixel; a
// TMU that reads these sizes as LT differs.
func TestTOrLTProbe(t *testing.T) {
	j, out := runProbeOnSim(t, "tex-t-or-lt")
	f := &tampered{textures: map[[2]uint32]func([]byte, int){}}
	keys := textureKeys(t, j)
	for k, s := range tOrLTSizes {
		if !texture.SizeIsLT(s.w, s.h, 4) && s.typ == texture.RGBA8888 {
			pic := j.textures[k].pics[0]
			for y := 0; y < s.h; y++ {
				for x := 0; x < s.w; x++ {
					if got, want := out.colour.pix[(s.y+y)*128+s.x+x], texelWord(pic, x, y); got != want {
						t.Fatalf("%d×%d, (%d,%d): %#08x, want %#08x", s.w, s.h, x, y, got, want)
					}
				}
			}
		}
		cpp, _, _, _ := s.typ.Storage(s.w, s.h)
		if texture.SizeIsLT(s.w, s.h, cpp) {
			t.Fatalf("%v %d×%d is LT by the kernel's rule: the probe asks nothing", s.typ, s.w, s.h)
		}
		tl, _ := texture.NewLayout(texture.TFormat, cpp, s.w, s.h)
		lt, _ := texture.NewLayout(texture.LTFormat, cpp, s.w, s.h)
		f.textures[keys[k]] = func(mem []byte, base int) {
			old := append([]byte(nil), mem...)
			for y := 0; y < s.h; y++ {
				for x := 0; x < s.w; x++ {
					copy(mem[base+tl.Offset(x, y):][:cpp], old[base+lt.Offset(x, y):])
				}
			}
		}
	}
	differsOn(t, "tex-t-or-lt", f)
}

// The coordinate-precision probe's cells in each four around a step:
// truncated toward zero to 1/128 texel (positive) or 1/64 (negative),
// the last three are one coordinate and the first is another.
func TestCoordBitsProbe(t *testing.T) {
	_, out := runProbeOnSim(t, "coord-bits")
	cell := func(c int) uint32 { return out.colour.pix[(4*(c/16)+2)*64+4*(c%16)+2] & 0xFF }
	for c := 0; c < len(coordBitsCells); c += 4 {
		sign := "positive"
		if coordBitsCells[c+1] < 0 {
			sign = "negative"
		}
		v := [4]uint32{cell(c), cell(c + 1), cell(c + 2), cell(c + 3)}
		if v[1] != v[2] || v[1] != v[3] {
			t.Errorf("%s step u = %v: cells %v: the last three should agree", sign, coordBitsCells[c+1], v)
		}
		if v[0] == v[1] {
			t.Errorf("%s step u = %v: cells %v: the first should differ", sign, coordBitsCells[c+1], v)
		}
	}
}

// The footprint probe's strips show the LOD of the clamped footprint:
// log2 of the step limited to the texture's size, less 1/64, blending
// levels ⌊LOD⌋ and ⌊LOD⌋ + 1 by its fraction in 1/256.
func TestFootprintProbe(t *testing.T) {
	_, out := runProbeOnSim(t, "mip-footprint")
	for i, st := range footprintStrips {
		lod := math.Log2(math.Max(math.Min(st.du, footprintW), math.Min(st.dv, footprintH))) - 1.0/64
		l := int(math.Floor(lod))
		f := uint32(math.Round((lod - float64(l)) * 256))
		got := out.colour.pix[(16*i+4)*64+30]
		for b := 0; b < 32; b += 8 {
			c0, c1 := palette[l]>>b&0xFF, palette[min(l+1, footprintLevels-1)]>>b&0xFF
			want := (c0*(256-f) + c1*f + 128) >> 8
			if g := got >> b & 0xFF; g+1 < want || g > want+1 {
				t.Errorf("strip %d (LOD %.3f): %#08x, byte %d %d, want %d (levels %d and %d by %d/256)", i, lod, got, b/8, g, want, l, l+1, f)
			}
		}
	}
}

// The npot-tie probe on the model: every cell takes the texel below the
// edge its u lies under (above it for the last two of each width).
func TestNPOTTieProbe(t *testing.T) {
	_, out := runProbeOnSim(t, "npot-tie")
	for ti, w := range npotTieWidths {
		for c, d := range npotTieSteps[ti] {
			_, texel := npotTieS(w, d)
			k := ti*len(npotTieSteps[ti]) + c
			got := out.colour.pix[(8*(k/8)+4)*64+8*(k%8)+4]
			if want := 0xFF804000 | uint32(texel); got != want {
				t.Errorf("width %d, %d steps below an edge: %#08x, want %#08x (texel %d)", w, d, got, want, texel)
			}
		}
	}
}

// The etc1-edges probe on the model: every cell shows the texel
// etc1Nearest's rule takes, which differs from the one ⌊u⌋, ⌊v⌋ take
// where the two differ; its texture decodes as etc1EdgesTexel says.
func TestETC1EdgesProbe(t *testing.T) {
	_, out := runProbeOnSim(t, "etc1-edges")
	for k, c := range etc1EdgesCells {
		want := etc1EdgesTexel(c.x, c.y)
		if (c.x != c.floorX || c.y != c.fY) && want == etc1EdgesTexel(c.floorX, c.fY) {
			t.Fatalf("cell %d: texels (%d, %d) and (%d, %d) are alike", k, c.x, c.y, c.floorX, c.fY)
		}
		got := out.colour.pix[(8*(k/8)+4)*64+8*(k%8)+4]
		if got != want {
			t.Errorf("cell %d (s = %g, t = %g): %#08x, want texel (%d, %d) %#08x (⌊u⌋, ⌊v⌋ take (%d, %d) %#08x)",
				k, c.s, c.t, got, c.x, c.y, want, c.floorX, c.fY, etc1EdgesTexel(c.floorX, c.fY))
		}
	}
}
