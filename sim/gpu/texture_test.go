package gpu

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/texture"
	"github.com/vccube/vccube/texture/convert"
	"github.com/vccube/vccube/uapi"
)

// texFormat is a texture type with the 32-bit word the TMU returns for
// one of its texels, worked out from AG Table 18, doc/hardware.md#tmu and Mesa's format
// swizzles (see package tmu), independently of the model.
type texFormat struct {
	typ  texture.Type
	cpp  int
	word func(px []byte) uint32
}

func le16(b []byte) uint32 { return uint32(b[0]) | uint32(b[1])<<8 }
func rep5(v uint32) uint32 { return v<<3 | v>>2 }

var texFormats = []texFormat{
	{texture.RGBA8888, 4, func(p []byte) uint32 { return uint32(p[0]) | uint32(p[1])<<8 | uint32(p[2])<<16 | uint32(p[3])<<24 }},
	{texture.RGBX8888, 4, func(p []byte) uint32 { return uint32(p[0]) | uint32(p[1])<<8 | uint32(p[2])<<16 | 0xFF<<24 }},
	{texture.RGBA4444, 2, func(p []byte) uint32 {
		v := le16(p)
		return (v>>12)*0x11 | (v>>8&15)*0x11<<8 | (v>>4&15)*0x11<<16 | (v&15)*0x11<<24
	}},
	{texture.RGBA5551, 2, func(p []byte) uint32 {
		v := le16(p)
		return rep5(v>>11) | rep5(v>>6&31)<<8 | rep5(v>>1&31)<<16 | (v&1)*0xFF<<24
	}},
	{texture.RGB565, 2, func(p []byte) uint32 {
		v := le16(p)
		g := v >> 5 & 63
		return rep5(v>>11) | (g<<2|g>>4)<<8 | rep5(v&31)<<16 | 0xFF<<24
	}},
	{texture.LUMINANCE, 1, func(p []byte) uint32 { l := uint32(p[0]); return l | l<<8 | l<<16 | 0xFF<<24 }},
	{texture.ALPHA, 1, func(p []byte) uint32 { return uint32(p[0]) << 24 }},
	{texture.LUMALPHA, 2, func(p []byte) uint32 { l := uint32(p[0]); return l | l<<8 | l<<16 | uint32(p[1])<<24 }},
}

// texturedQuad renders a frame-sized quad sampling a frame-sized texture
// with nearest filtering (s = x/w, t = y/h, so pixel centres hit texel
// centres) and returns the job.
func texturedQuad(t *testing.T, g *GPU, w, h int, typ texture.Type, pic texture.Picture, flip texture.FlipMode) *tjob {
	t.Helper()
	j := newTJob(t, w, h)
	j.beginBin(cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, DepthFunc: cl.DepthFuncAlways})
	var p0, p1 uint32
	sampler := texture.Sampler{Min: texture.MinNearest, Mag: texture.MagNearest, WrapS: texture.WrapClamp, WrapT: texture.WrapClamp}
	if typ == texture.RGBA32R {
		// Raster: rows nextpow2(width)·4 apart (erratum HW-2898).
		stride := 1
		for stride < w {
			stride <<= 1
		}
		stride *= 4
		buf := make([]byte, stride*h)
		for y := range h {
			copy(buf[y*stride:], pic.Pix[y*pic.Stride:y*pic.Stride+4*w])
		}
		base := j.put(buf, 4096)
		lo, hi := texture.SplitType(typ)
		p0, _ = texture.P0{Base: base, TypeLow: lo}.Encode()
		p1, _ = texture.P1{Type4: hi, Width: w, Height: h, MinFilter: sampler.Min, MagFilter: sampler.Mag, WrapS: sampler.WrapS, WrapT: sampler.WrapT}.Encode()
	} else {
		plan, err := texture.NewMipPlan(typ, w, h, 1)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, plan.Size())
		if err := convert.Upload(&plan, buf, []texture.Picture{pic}, flip.FlipsRows()); err != nil {
			t.Fatal(err)
		}
		start := j.put(buf, 4096)
		q0, q1, err := plan.Params(0, flip, sampler)
		if err != nil {
			t.Fatal(err)
		}
		q0.Base = start + uint32(plan.BaseOffset())
		p0, _ = q0.Encode()
		p1, _ = q1.Encode()
	}
	fs := j.program(fsTexture())
	st := [4]float32{0, 1, 0, 1} // corners 0 (0,0) 1 (w,0) 2 (0,h) 3 (w,h)
	tt := [4]float32{0, 0, 1, 1}
	j.drawNV(fs, []uint32{p0, p1}, cl.PrimitiveModeTriangles, j.quad(0.5, st, tt)...)
	mustRun(t, j, g)
	return j
}

func randomPicture(w, h, cpp int, seed int64) texture.Picture {
	pic, _ := texture.NewPicture(w, h, cpp)
	rand.New(rand.NewSource(seed)).Read(pic.Pix)
	return pic
}

// A textured quad in every texture type, in T format (64×40) and LT format
// (16×16), with FLIPY off and on: the frame read back is the texture, each
// texel as the TMU returns it. The frame's row y is texel row y; texel row
// y is the picture's row y when the picture was stored bottom row first
// (FLIPY off, rows flipped by the CPU) — i.e. picture row h−1−y of the
// top-down picture — and the same picture row when the GPU flips (FLIPY
// on, picture stored as it is): the two alternatives of the post "vc4:
// T-format Textures" agree (doc/hardware.md#texture-formats).
func TestTexturedQuadEveryFormat(t *testing.T) {
	g := newGPU(t)
	for _, f := range texFormats {
		for _, size := range [][2]int{{64, 40}, {16, 16}} {
			for _, flip := range []texture.FlipMode{texture.FlipByCPU, texture.FlipByGPU} {
				w, h := size[0], size[1]
				name := fmt.Sprintf("%v %dx%d %v", f.typ, w, h, flip)
				pic := randomPicture(w, h, f.cpp, int64(w*100+int(f.typ)))
				j := texturedQuad(t, g, w, h, f.typ, pic, flip)
				for y := range h {
					for x := range w {
						py := h - 1 - y // t = 0 is the picture's bottom row either way
						want := f.word(pic.Pix[py*pic.Stride+x*f.cpp:])
						if got := j.pixel(x, y); got != want {
							t.Fatalf("%s: pixel (%d,%d) = %#08x, want %#08x", name, x, y, got, want)
						}
					}
				}
			}
		}
	}
}

// A raster (RGBA32R) texture, and a frame that is not a multiple of 64
// (100×70: partial tiles right and below) textured edge to edge.
func TestTexturedQuadRasterAndPartialTiles(t *testing.T) {
	g := newGPU(t)
	for _, c := range []struct {
		typ  texture.Type
		w, h int
	}{{texture.RGBA32R, 64, 32}, {texture.RGBA8888, 100, 70}} {
		pic := randomPicture(c.w, c.h, 4, 7)
		j := texturedQuad(t, g, c.w, c.h, c.typ, pic, texture.FlipByCPU)
		for y := range c.h {
			for x := range c.w {
				py := y
				if c.typ != texture.RGBA32R {
					py = c.h - 1 - y // FlipByCPU stored the rows flipped
				}
				p := pic.Pix[py*pic.Stride+4*x:]
				want := uint32(p[0]) | uint32(p[1])<<8 | uint32(p[2])<<16 | uint32(p[3])<<24
				if got := j.pixel(x, y); got != want {
					t.Fatalf("%v %dx%d: pixel (%d,%d) = %#08x, want %#08x", c.typ, c.w, c.h, x, y, got, want)
				}
			}
		}
	}
}

// TestTexturedQuadCountsTMUQuads: the shader of texturedQuad (fsTexture,
// straight-line) reads one lookup a thread, and a lookup serves the
// thread's four quads, so the TMU quad counter is four a thread: a
// 4×4 block of the quad, twice on the blocks of the diagonal between
// its two triangles. The fragment stage's QPUs call their units
// themselves (qpuexec.Start.TMU), and the stage counts what the units
// handed out.
func TestTexturedQuadCountsTMUQuads(t *testing.T) {
	g := newGPU(t)
	insts := uint64(len(fsTexture()))
	for _, c := range [][2]int{{64, 32}, {100, 70}} {
		w, h := c[0], c[1]
		j := texturedQuad(t, g, w, h, texture.RGBA8888, randomPicture(w, h, 4, 3), texture.FlipByCPU)
		threads := j.counters[uapi.PerfcntQPUTotalClkCyclesFragmentShading] / (4 * insts)
		if blocks := uint64((w + 3) / 4 * ((h + 3) / 4)); threads < blocks {
			t.Fatalf("%dx%d: %d fragment threads for %d blocks", w, h, threads, blocks)
		}
		if got := j.counters[uapi.PerfcntTMUTotalTextQuadsProcessed]; got != 4*threads {
			t.Errorf("%dx%d: %d TMU quads, want 4 for each of the %d threads", w, h, got, threads)
		}
	}
}
