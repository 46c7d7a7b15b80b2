package selftest

import (
	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/texture"
	"github.com/vccube/vccube/uapi"
)

// The TMU's probes beyond the texture types: wrap modes, non-power-of-two
// textures and their mip levels, raster rows and the T/LT choice. Each
// draws its textures one texel per pixel with NEAREST, sampling at texel
// centres, so every pixel is one texel's word and the question is which.

// noisePicture is a w×h picture of cpp-byte random texels.
func noisePicture(w, h, cpp int, seed uint32) texture.Picture {
	p, _ := texture.NewPicture(w, h, cpp)
	noise(p, seed)
	return p
}

// texDraw draws texture ti over the pixels [x0, x0+w) × [y0, y0+h) with
// (s, t) running from s0, t0 at the rectangle's corner by ds, dt a pixel.
func (j *job) texDraw(ti, x0, y0, w, h int, s0, t0, ds, dt float64) {
	st := func(px, py int) []float32 {
		return []float32{float32(s0 + float64(px-x0)*ds), float32(t0 + float64(py-y0)*dt)}
	}
	j.draws = append(j.draws, draw{config: bothFaces, mode: cl.PrimitiveModeTriangles,
		verts: j.rect(x0, y0, x0+w, y0+h, 0.5, st), fs: fsTexture, unis: texUnis(ti), samples: []int{ti}})
}

// Wrap modes: mirrored repeat.
func mirrorProbe() *Probe {
	build := func() *job {
		j := &job{width: 128, height: 64, format: cl.RenderFormatRGBA8888, clearColour: background}
		nearest := func(ws, wt texture.Wrap) texture.Sampler {
			return texture.Sampler{Min: texture.MinNearest, Mag: texture.MagNearest, WrapS: ws, WrapT: wt}
		}
		j.textures = []texSpec{
			{typ: texture.RGBA8888, pics: []texture.Picture{noisePicture(16, 16, 4, 31)}, sampler: nearest(texture.WrapMirror, texture.WrapMirror)},
			{typ: texture.RGBA8888, pics: []texture.Picture{noisePicture(32, 32, 4, 32)}, sampler: nearest(texture.WrapMirror, texture.WrapRepeat)},
		}
		// Left: s and t from −1.5 to 2.5 over 64 pixels of the 16-texel
		// texture; right: from −0.5 to 1.5 of the 32-texel one. Pixel
		// centres fall on texel centres.
		j.texDraw(0, 0, 0, 64, 64, -1.5, -1.5, 1.0/16, 1.0/16)
		j.texDraw(1, 64, 0, 64, 64, -0.5, -0.5, 1.0/32, 1.0/32)
		return j
	}
	return &Probe{
		Name: "tex-mirror",
		Fact: "MIRROR wrap: period and edge texels",
		Belief: "mirrored repeat as OpenGL ES 2.0 §3.7.6 defines it: period 2n, texel i of n ≤ i < 2n reads 2n−1−i, so each edge texel is shown twice where the texture turns " +
			"(sim/gpu/tmu filter.go wrap; doc/hardware.md#open-questions item 13)",
		Answer: "a 16×16 (LT) texture mirrored in s and t over −1.5…2.5 (left) and a 32×32 (T) one mirrored in s and repeated in t over −0.5…1.5 (right), one texel per pixel: " +
			"every pixel's texel; REPEAT, CLAMP or a mirror that does not repeat the edge texel moves whole columns and rows",
		build: build,
	}
}

// npotLevels is the non-power-of-two texture of the NPOT probe: 40×24,
// whose levels 1–3 (20×12, 10×6, 5×3) are exact halves and sit in the
// power-of-two containers 32×16, 16×8 and 8×4.
const npotW, npotH, npotLevels = 40, 24, 4

// NPOT textures, their mip levels in power-of-two containers, and FLIPY.
func npotMipProbe() *Probe {
	build := func() *job {
		j := &job{width: 128, height: 64, format: cl.RenderFormatRGBA8888, clearColour: background}
		var pics []texture.Picture
		for l := 0; l < npotLevels; l++ {
			pics = append(pics, noisePicture(npotW>>l, npotH>>l, 4, 40+uint32(l)))
		}
		sm := texture.Sampler{Min: texture.MinNearMipNear, Mag: texture.MagNearest, WrapS: texture.WrapClamp, WrapT: texture.WrapClamp}
		for f := 0; f < 2; f++ {
			j.textures = append(j.textures, texSpec{typ: texture.RGBA8888, pics: pics, flipY: f == 1, sampler: sm})
			y := 0
			for l := 0; l < npotLevels; l++ {
				// Level l one texel per pixel: 2^l texels of level 0 a
				// pixel, LOD l.
				w, h := npotW>>l, npotH>>l
				j.texDraw(f, 64*f, y, w, h, 0, 0, 1/float64(w), 1/float64(h))
				y += h + 4
			}
		}
		return j
	}
	return &Probe{
		Name: "tex-npot-mips",
		Fact: "NPOT mip levels in their containers, FLIPY",
		Belief: "levels from 1 up lie in power-of-two containers (here 32×16, 16×8, 8×4), and the TMU samples the picture inside, max(1, w>>i) × max(1, h>>i), in its first rows and columns; " +
			"FLIPY flips over the picture's height, not the container's (sim/gpu/tmu tmu.go texEntry.build; doc/hardware.md#tmu, Mip levels and FLIPY; doc/hardware.md#open-questions item 11)",
		Answer: "a 40×24 RGBA8888 texture of four levels of random texels (40×24 in T format, 20×12, 10×6, 5×3), each level drawn one texel per pixel at LOD 0–3 with NEAREST_MIPMAP_NEAREST, " +
			"FLIPY clear (left) and set (right): every pixel's texel; sampling the container shows its padding, flipping over its height other rows",
		build: build,
	}
}

// Raster textures whose width is not a power of two (erratum HW-2898).
func rasterNPOTProbe() *Probe {
	const w, h = 20, 16
	build := func() *job {
		j := &job{width: 64, height: 64, format: cl.RenderFormatRGBA8888, clearColour: background}
		pic := noisePicture(w, h, 4, 50)
		sm := texture.Sampler{Min: texture.MinNearest, Mag: texture.MagNearest, WrapS: texture.WrapClamp, WrapT: texture.WrapClamp}
		// Left: rows nextpow2(20)·4 = 128 bytes apart, as the erratum
		// says the TMU reads them; right: 80 bytes apart, the kernel's
		// stride (vc4_validate.c vc4_check_tex_size).
		j.textures = []texSpec{{typ: texture.RGBA32R, pics: []texture.Picture{pic}, sampler: sm, stride: 128},
			{typ: texture.RGBA32R, pics: []texture.Picture{pic}, sampler: sm}}
		for k := range j.textures {
			j.texDraw(k, 32*k, 8, w, h, 0, 0, 1.0/w, 1.0/h)
		}
		return j
	}
	return &Probe{
		Name: "raster-npot",
		Fact: "raster rows at NPOT widths (HW-2898)",
		Belief: "the TMU reads the rows of a raster (RGBA32R) texture nextpow2(width)·4 bytes apart whatever the width: erratum HW-2898, AG Appendix A " +
			"(sim/gpu/tmu tmu.go texEntry.build; doc/hardware.md#open-questions item 14)",
		Answer: "the same 20×16 RGBA32R texture of random texels uploaded with rows 128 bytes apart (left) and 80 bytes apart, the kernel's stride (right), one texel per pixel: " +
			"the side that shows the picture (the other shows its rows sheared) says which stride the TMU uses",
		build: build,
	}
}

// tOrLTSizes are level-0 sizes (and types) that are T format by the
// kernel's and Mesa's rule and LT by the guide's: over four utiles both
// ways but under one T-format tile in one of them.
var tOrLTSizes = []struct {
	typ        texture.Type
	w, h, x, y int // size, and where it is drawn
}{
	{texture.RGBA8888, 24, 24, 0, 0},
	{texture.RGBA8888, 20, 40, 28, 0},
	{texture.RGBA8888, 40, 20, 52, 0},
	{texture.RGB565, 48, 24, 52, 28},
}

// T or LT for levels of 17–31 pixels (at 32 bpp).
func tOrLTProbe() *Probe {
	build := func() *job {
		j := &job{width: 128, height: 64, format: cl.RenderFormatRGBA8888, clearColour: background}
		sm := texture.Sampler{Min: texture.MinNearest, Mag: texture.MagNearest, WrapS: texture.WrapClamp, WrapT: texture.WrapClamp}
		for k, s := range tOrLTSizes {
			cpp, _, _, _ := s.typ.Storage(s.w, s.h)
			j.textures = append(j.textures, texSpec{typ: s.typ, pics: []texture.Picture{noisePicture(s.w, s.h, cpp, 60+uint32(k))}, sampler: sm})
			j.texDraw(k, s.x, s.y, s.w, s.h, 0, 0, 1/float64(s.w), 1/float64(s.h))
		}
		return j
	}
	return &Probe{
		Name: "tex-t-or-lt",
		Fact: "T or LT for 17–31-pixel levels",
		Belief: "a level is LT when it is at most four utiles wide or high (16 pixels at 32 bpp, 32×16 at 16 bpp; Linux vc4_validate.c size_is_lt, Mesa vc4_tiling.c vc4_size_is_lt), T otherwise, " +
			"where the guide's \"less than one T-format tile\" would make these LT (texture.SizeIsLT; doc/hardware.md#tmu; doc/hardware.md#open-questions item 15)",
		Answer: "RGBA8888 textures of 24×24, 20×40 and 40×20 and an RGB565 one of 48×24, random texels uploaded in T format, one texel per pixel: every pixel's texel; an LT reading scrambles the utiles",
		build:  build,
	}
}

// footprintW, footprintH are the non-square texture of the footprint
// probe: 32×64, as dEQP-GLES2's texture.mipmap.2d.basic.*_non_square
// cases draw it, with seven single-colour levels.
const footprintW, footprintH, footprintLevels = 32, 64, 7

// footprintStrips are the footprint probe's strips: texel steps per
// pixel across (du) and down (dv) in level 0's texels.
var footprintStrips = []struct{ du, dv float64 }{{34.3, 0.3}, {48, 0.3}, {0.3, 80}}

// The level of detail of a footprint wider (or higher) than the texture.
func footprintProbe() *Probe {
	build := func() *job {
		j := &job{width: 64, height: 64, format: cl.RenderFormatRGBA8888, clearColour: background}
		var pics []texture.Picture
		for l := 0; l < footprintLevels; l++ {
			pics = append(pics, solidPicture(max(1, footprintW>>l), max(1, footprintH>>l), palette[l]))
		}
		j.textures = []texSpec{{typ: texture.RGBA8888, pics: pics,
			sampler: texture.Sampler{Min: texture.MinLinMipLin, Mag: texture.MagNearest, WrapS: texture.WrapRepeat, WrapT: texture.WrapRepeat}}}
		for i, st := range footprintStrips {
			j.texDraw(0, 0, 16*i, 64, 8, 0, 0, st.du/footprintW, st.dv/footprintH)
		}
		return j
	}
	return &Probe{
		Name: "mip-footprint",
		Fact: "LOD of a footprint wider than the texture",
		Belief: "each texel-space step is limited to the texture's size on its axis, |∂u| ≤ width and |∂v| ≤ height, before the LOD is taken " +
			"(sim/gpu/tmu tmu.go clampAbs; doc/hardware.md#tmu, Footprint clamp, DERIVED from the Pi 3 record)",
		Answer: "a 32×64 texture of seven single-colour levels with LINEAR_MIPMAP_LINEAR, in strips stepping 34.3 and 48 texels a pixel across (0.3 down) and 80 down (0.3 across): " +
			"the clamp gives level 5 with 4/256 of level 4 in the first two and level 6 with 4/256 of level 5 in the third; " +
			"OpenGL's LOD (with the same offset) blends levels 5 and 6 (by 0.09 and 0.57) and takes level 6 alone",
		build: build,
	}
}

// solidPicture is a w×h RGBA8888 picture of one colour word.
func solidPicture(w, h int, c uint32) texture.Picture {
	p, _ := texture.NewPicture(w, h, 4)
	for i := 0; i < w*h; i++ {
		p.Pix[4*i], p.Pix[4*i+1], p.Pix[4*i+2], p.Pix[4*i+3] = byte(c), byte(c>>8), byte(c>>16), byte(c>>24)
	}
	return p
}

// coordBitsTexels is the width of the coordinate-precision probe's
// texture (a power of two: its container is itself), and coordBitsEps
// how far, in texels, its coordinates lie from the steps they straddle.
const coordBitsTexels, coordBitsEps = 16, 1.0 / 4096

// coordBitsCells are the coordinate-precision probe's u (= s·16) values,
// four a step, one per 4×4-pixel cell: for a positive step g = j/128,
// g − ε, g, g + ε and g + 1/128 − ε; for a negative one g = −m/64,
// g + ε, g, g − ε and g − 1/64 + ε. Truncated toward zero to 1/128 of a
// texel (positive) and 1/64 (negative), the last three of each four are
// one value and the first another.
var coordBitsCells = func() (u []float64) {
	const e = coordBitsEps
	for k := 0; k < 32; k++ {
		g := float64(1+6*k) / 128 // 1/128 … 187/128: blends texel 15 or 1 with texel 0
		u = append(u, g-e, g, g+e, g+1.0/128-e)
	}
	for m := 1; m < 32; m++ {
		g := -float64(m) / 64 // −1/64 … −31/64: blends texels 15 and 0
		u = append(u, g+e, g, g-e, g-1.0/64+e)
	}
	return u
}()

// npotTieWidths are the NPOT-tie probe's texture widths, whose
// power-of-two containers are 128 and 16 texels, and npotTieSteps[i] how
// far below (negative: above) a texel edge each of its cells' u = s·width
// lies, in 1/(container·128) of a texel: s is then a multiple of
// 1/(container·128), which the model's 7 bits below a container texel
// keep exactly. 64 and 8 are 1/256 of a texel, half a step of 7 fraction
// bits: where u = 48 + 255/256 lies on dEQP's 113-texel ETC1 texture, and
// u = 255/256 on its 15-texel cube faces.
var npotTieWidths, npotTieSteps = []int{113, 15}, [][]int{
	{1, 16, 32, 63, 64, 65, 96, 127, 128, -1, -64},
	{1, 2, 4, 7, 8, 9, 12, 15, 16, -1, -8},
}

// npotTieS returns the coordinate s = m/(container·128) whose u =
// s·width lies d steps below a texel edge (above it for d < 0), and that
// texel's index below the edge. m·width ≡ −d (mod container·128) has
// one solution, the width being odd.
func npotTieS(width, d int) (s float64, texel int) {
	scale := nextPow2(width) * 128
	for m := 0; m < scale; m++ {
		if ((m*width+d)%scale+scale)%scale == 0 {
			return float64(m) / float64(scale), (m*width+d)/scale - 1 + boolInt(d < 0)
		}
	}
	panic("no coordinate")
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func nextPow2(n int) int {
	p := 1
	for p < n {
		p <<= 1
	}
	return p
}

// Nearest sampling of NPOT textures at coordinates a fraction of a step
// below a texel edge.
func npotTieProbe() *Probe {
	build := func() *job {
		j := &job{width: 64, height: 32, format: cl.RenderFormatRGBA8888, clearColour: background}
		for _, w := range npotTieWidths {
			// Byte 0 of column k is k: the cell's colour names the texel.
			pic, _ := texture.NewPicture(w, 4, 4)
			for y := 0; y < 4; y++ {
				for x := 0; x < w; x++ {
					copy(pic.Pix[y*pic.Stride+4*x:], []byte{byte(x), 0x40, 0x80, 0xFF})
				}
			}
			j.textures = append(j.textures, texSpec{typ: texture.RGBA8888, pics: []texture.Picture{pic},
				sampler: texture.Sampler{Min: texture.MinNearest, Mag: texture.MagNearest, WrapS: texture.WrapClamp, WrapT: texture.WrapClamp}})
		}
		for ti, w := range npotTieWidths {
			for c, d := range npotTieSteps[ti] {
				s, _ := npotTieS(w, d)
				k := ti*len(npotTieSteps[ti]) + c
				// A constant coordinate per 8×8 cell: the interpolation
				// gives it exactly.
				j.texDraw(ti, 8*(k%8), 8*(k/8), 8, 8, s, 0.5, 0, 0)
			}
		}
		return j
	}
	return &Probe{
		Name: "npot-tie",
		Fact: "NPOT nearest just below a texel edge",
		Belief: "NEAREST takes texel ⌊s·width⌋ of s as the filters see it (truncated to 1/128 of a texel of the power-of-two container, exact here), " +
			"however close below an edge (sim/gpu/tmu filter.go nearest); a Pi 3 fails dEQP-GLES2's clamp_clamp_nearest_npot_etc1 with one line of pixels, " +
			"exactly where u = 48 + 255/256 on its 113-texel ETC1 texture (doc/conformance.md#deqp-gles2), which the model reproduces by rounding ETC1's u alone (etc1-edges)",
		Answer: "113- and 15-texel-wide RGBA8888 textures whose column k has byte 0 = k, sampled NEAREST at one constant s per 8×8-pixel cell, " +
			"u = s·width from 1/16384 to 1/128 of a texel below a texel edge (113) and from 1/2048 to 1/128 (15), and just above one: " +
			"byte 0 of each cell is the texel taken; rounding u to 7 fraction bits would move the cells up to 1/256 below an edge to the next texel",
		build: build,
	}
}

// The etc1-edges probe's texture is 3×2 blocks (12×8 texels: an NPOT
// width, as dEQP's 113), each in the OES_compressed_ETC1_RGB8_texture
// specification's individual mode, its two sub-blocks side by side, table
// 0 (modifiers 2 and 8), and the modifier index of a texel its row within
// the block, so that every two neighbours differ. etc1EdgesBase is the
// 4-bit base colour of texel (x, y)'s sub-block.
func etc1EdgesBase(x, y int) (r, g, b int) {
	bx, by, sub := x/4, y/4, x&3/2
	return 2 + 4*bx + 2*sub, 3 + 8*by + sub, 8
}

// etc1EdgesTexel is texel (x, y) as the specification decodes it, in the
// TMU's returned word, row 0 being the block's first row of data, which
// the TMU reads as its lowest t with ETCFLIP (doc/hardware.md#tmu, ETC1).
func etc1EdgesTexel(x, y int) uint32 {
	r, g, b := etc1EdgesBase(x, y)
	mod := []int{2, 8, -2, -8}[y&3]
	c := func(v int) uint32 { return uint32(max(0, min(255, 17*v+mod))) }
	return 0xFF000000 | c(b)<<16 | c(g)<<8 | c(r)
}

// etc1EdgesPicture is the probe's texture, on its block grid.
func etc1EdgesPicture() texture.Picture {
	pic, _ := texture.NewPicture(3, 2, 8)
	for by := 0; by < 2; by++ {
		for bx := 0; bx < 3; bx++ {
			r1, g1, b1 := etc1EdgesBase(4*bx, 4*by)
			r2, g2, b2 := etc1EdgesBase(4*bx+2, 4*by)
			var msb, lsb uint32 // pixel i = 4x + y: index y
			for i := 0; i < 16; i++ {
				y := uint32(i & 3)
				msb |= y >> 1 << (16 + i)
				lsb |= y & 1 << i
			}
			idx := msb | lsb
			o := by*pic.Stride + 8*bx
			copy(pic.Pix[o:], []byte{byte(r1<<4 | r2), byte(g1<<4 | g2), byte(b1<<4 | b2), 0,
				byte(idx >> 24), byte(idx >> 16), byte(idx >> 8), byte(idx)})
		}
	}
	return pic
}

// etc1EdgesCells are the etc1-edges probe's coordinates, one per 8×8
// cell, with the texel the model takes and the one ⌊u⌋, ⌊v⌋ take: rows
// 1 to 7 at t = k/8, exactly on the edge below row k (s at column 1's
// centre), then u = s·12 at 4 − 1/256 and 8 − 1/256 (s = 682/2048 and
// 1365/2048, on the 1/2048 grid of the 16-texel container) and at
// 4 − 7/256 (681/2048), which stays below.
var etc1EdgesCells = func() (c []struct {
	s, t       float64
	x, y       int
	floorX, fY int
}) {
	add := func(s, t float64, x, y, fx, fy int) {
		c = append(c, struct {
			s, t       float64
			x, y       int
			floorX, fY int
		}{s, t, x, y, fx, fy})
	}
	for k := 1; k < 8; k++ {
		add(1.5/12, float64(k)/8, 1, k-1, 1, k)
	}
	add(682.0/2048, 1.5/8, 4, 1, 3, 1)
	add(1365.0/2048, 5.5/8, 8, 5, 7, 5)
	add(681.0/2048, 1.5/8, 3, 1, 3, 1)
	return c
}()

// ETC1 nearest sampling on texel edges.
func etc1EdgesProbe() *Probe {
	build := func() *job {
		j := &job{width: 64, height: 16, format: cl.RenderFormatRGBA8888, clearColour: background}
		j.textures = []texSpec{{typ: texture.ETC1, pics: []texture.Picture{etc1EdgesPicture()},
			sampler: texture.Sampler{Min: texture.MinNearest, Mag: texture.MagNearest, WrapS: texture.WrapClamp, WrapT: texture.WrapClamp}}}
		for k, c := range etc1EdgesCells {
			// A constant coordinate per 8×8 cell: the interpolation
			// gives it exactly.
			j.texDraw(0, 8*(k%8), 8*(k/8), 8, 8, c.s, c.t, 0, 0)
		}
		return j
	}
	return &Probe{
		Name: "etc1-edges",
		Fact: "ETC1 nearest on texel edges",
		Belief: "ETC1 NEAREST takes column ⌊u + 1/256⌋ and row ⌈v⌉ − 1, where the other types take ⌊u⌋ and ⌊v⌋ (sim/gpu/tmu filter.go etc1Nearest): " +
			"DERIVED from the two ETC1 cases a Pi 3 fails, piglit's oes_compressed_etc1_rgb8_texture miptree (coordinates exactly on texel edges) " +
			"and dEQP-GLES2's clamp_clamp_nearest_npot_etc1 (u = 48 + 255/256 took texel 49) (doc/hardware.md#tmu, ETC1)",
		Answer: "a 12×8 ETC1 texture whose neighbouring texels all differ, sampled NEAREST at one constant coordinate per 8×8-pixel cell: " +
			"t exactly on each of the 7 row edges, and u = s·12 at 1/256 of a texel below the two block edges and 7/256 below one: " +
			"each cell's colour names the texel taken; ⌊v⌋ moves the first 7 cells up a row, ⌊u⌋ the next two left a column",
		build: build,
		needs: uapi.ParamSupportsETC1,
	}
}

// Bilinear filtering's coordinate precision, positive and negative.
func coordBitsProbe() *Probe {
	build := func() *job {
		j := &job{width: 64, height: 64, format: cl.RenderFormatRGBA8888, clearColour: background}
		// Channel 0 is 0 in column 0 and 255 in the others: LINEAR across
		// column 0's edges shows the fraction of u − ½ as a ramp.
		pic := solidPicture(coordBitsTexels, coordBitsTexels, 0xFFFFFFFF)
		for y := 0; y < coordBitsTexels; y++ {
			pic.Pix[y*pic.Stride] = 0
		}
		j.textures = []texSpec{{typ: texture.RGBA8888, pics: []texture.Picture{pic},
			sampler: texture.Sampler{Min: texture.MinLinear, Mag: texture.MagLinear, WrapS: texture.WrapRepeat, WrapT: texture.WrapRepeat}}}
		for c, u := range coordBitsCells {
			// A constant coordinate per cell: the interpolation gives it
			// exactly (VP = 0), and the LOD is that of magnification.
			j.texDraw(0, 4*(c%16), 4*(c/16), 4, 4, u/coordBitsTexels, 0.5, 0, 0)
		}
		return j
	}
	return &Probe{
		Name: "coord-bits",
		Fact: "bilinear coordinate bits, positive/negative",
		Belief: "the filters see s and t truncated toward zero to 1/128 of a texel of level 0's power-of-two container when positive, 1/64 when negative " +
			"(sim/gpu/tmu filter.go fixCoord, subTexelBits; doc/hardware.md#tmu, Coordinate precision, DERIVED from the Pi 3 record)",
		Answer: "a 16×16 texture, channel 0 black in column 0 and white elsewhere, LINEAR with REPEAT, sampled at one constant u per 4×4-pixel cell, in fours around steps of 1/128 texel (u from 0 to 1.47) " +
			"and of 1/64 (u from −0.5 to 0): g − ε, g, g + ε, g + 1/128 − ε, and g + ε, g, g − ε, g − 1/64 + ε for ε = 1/4096: " +
			"the last three of each four agree and the first differs; exact, rounded, floored or 7-bit negative coordinates break a four",
		build: build,
	}
}
