package tmu

import (
	"testing"

	"github.com/vccube/vccube/texture"
)

// A lookup whose quad steps a power of two of texels a pixel has a level
// of detail of exactly that power's log2 in OpenGL's arithmetic; the
// TMU's is lodOffset, 1/64, less (doc/hardware.md#tmu): with
// NEAREST_MIPMAP_LINEAR the level before shows through with a weight of
// 1/64 (4/256, as minify quantises it). Mesa CI's Pi 3 record needs that
// weight to be at least 3/256: piglit's
// ext_texture_compression_s3tc compressedteximage tests, which draw each
// level of a 128×128 mipmap 1:1 with GL's default NEAREST_MIPMAP_LINEAR,
// fail on a Pi 3 and passed on the model with an exact level of detail.
// The levels here are 0 and 250 by turns, so the colour says the weight.
func TestLODAtPowerOfTwoScalesIsOffset(t *testing.T) {
	const n = 16
	var pics []texture.Picture
	for i := range 5 {
		p, _ := texture.NewPicture(max(1, n>>i), max(1, n>>i), 4)
		for j := 0; j < len(p.Pix); j += 4 {
			p.Pix[j] = byte(250 * (i & 1))
		}
		pics = append(pics, p)
	}
	f := newFixture(t, 64<<10)
	sm := texture.Sampler{Min: texture.MinNearMipLin, Mag: texture.MagNearest, WrapS: texture.WrapRepeat, WrapT: texture.WrapRepeat}
	p0, p1 := f.upload(t, texture.RGBA8888, pics, false, sm)
	u := New(f.view)
	// lodOffset = −1/64: 4/256 of the level before.
	const frac = 4
	for _, c := range []struct {
		step float32 // texels per pixel
		lod  int     // log2(step)
	}{{2, 1}, {4, 2}, {8, 3}} {
		var s, tt [16]float32
		for q := 0; q < 16; q += 4 {
			for e := range 4 {
				s[q+e] = (0.25 + float32(e&1)*c.step) / n
				tt[q+e] = (0.25 + float32(e>>1)*c.step) / n
			}
		}
		got := byte(lookup(t, u, p0, p1, s, tt)[0])
		a, b := uint32(250*(c.lod&1)), uint32(250*((c.lod-1)&1))
		want := byte((a*(256-frac) + b*frac + 128) >> 8)
		if got != want {
			t.Errorf("%v texels a pixel (LOD %d): level colour %d, want %d (%d/256 of level %d)", c.step, c.lod, got, want, frac, c.lod-1)
		}
	}
}

// A step of more texels than the texture has on that axis counts as the
// whole axis (clampAbs; DERIVED from Mesa CI's Pi 3 record,
// doc/hardware.md#tmu): dEQP's texture.mipmap.2d.basic.*_non_square
// draws a 32×64 texture with one cell stepping 34.3 texels across and
// 14 down a pixel. OpenGL's level of detail there is log2 34.3 = 5.10,
// a blend of levels 5 and 6; the Pi 3 drew level 5 (the record's
// comment names its colour), which the clamp gives: log2 32 = 5, less
// lodOffset, is level 5 with 4/256 of level 4.
func TestFootprintIsClampedToTheTextureSize(t *testing.T) {
	const w, h = 32, 64
	var pics []texture.Picture
	for i := range 7 {
		p, _ := texture.NewPicture(max(1, w>>i), max(1, h>>i), 4)
		for j := 0; j < len(p.Pix); j += 4 {
			p.Pix[j] = byte(40 * i)
		}
		pics = append(pics, p)
	}
	f := newFixture(t, 64<<10)
	sm := texture.Sampler{Min: texture.MinNearMipLin, Mag: texture.MagNearest, WrapS: texture.WrapRepeat, WrapT: texture.WrapRepeat}
	p0, p1 := f.upload(t, texture.RGBA8888, pics, false, sm)
	u := New(f.view)
	var s, tt [16]float32
	for q := 0; q < 16; q += 4 {
		for e := range 4 {
			s[q+e] = (0.25 + float32(e&1)*34.3) / w
			tt[q+e] = (0.25 + float32(e>>1)*14) / h
		}
	}
	got := lookup(t, u, p0, p1, s, tt)[0] & 0xff
	const frac = 4 // lodOffset = −1/64 of level 4
	want := (uint32(40*5)*(256-frac) + uint32(40*4)*frac + 128) >> 8
	if got != want {
		t.Errorf("level colour %d, want %d (level 5 with %d/256 of level 4; unclamped it would blend levels 5 and 6)", got, want, frac)
	}
}
