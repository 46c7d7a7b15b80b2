package tmu

import (
	"testing"

	"github.com/vccube/vccube/texture"
)

// explicitLOD does one lookup with a level of detail of lod for every
// element, as Mesa's explicit-LOD lookups (and every vertex-shader
// lookup) do: P2 with BSLOD, the level in TMUn_B (vc4_program.c
// ntq_emit_tex). cube selects a cube-map lookup (R first, with P0). It
// returns element 0's result.
func explicitLOD(t *testing.T, u *Unit, p0, p1, p2 uint32, cube bool, s, tt, r [16]float32, lod float32) uint32 {
	t.Helper()
	type w struct {
		reg int
		v   [16]float32
	}
	ws := []w{{T, tt}, {B, splat(lod)}, {S, s}}
	if cube {
		ws = append([]w{{R, r}}, ws...)
	}
	params := []uint32{p0, p1, p2, 0}
	for i, x := range ws {
		v := floats(x.v)
		if err := u.Write(x.reg, &v, 0xFFFF, params[i], false); err != nil {
			t.Fatal(err)
		}
	}
	var out [16]uint32
	if err := u.Receive(&out); err != nil {
		t.Fatal(err)
	}
	return out[0]
}

// With a linear MAGFILT and a nearest-mipmap MINFILT a lookup magnifies up
// to a level of detail of ½, not 0 (OpenGL ES 2.0 §3.7.8's c; magnifyUpTo
// gives the evidence that the hardware does so: dEQP-GLES2's
// texture.vertex.cube.filtering.nearest_mipmap_*_linear cases, which
// pass on a Pi 3, look up at LOD ≈ 0.19). Every other pair of filters
// switches at 0. The lookups are at the edge between columns 3 and 4 of
// level 0, whose texels are 0 and 200 (level 1's are 50), where a
// linear and a nearest sample differ.
func TestMagnifyUpToHalfForNearestMipmaps(t *testing.T) {
	const n = 8
	x, y := float32(4)/n, float32(2.5)/n
	texel := func(k, d, x, y int) [4]byte {
		v := byte(50)
		if d == 0 {
			v = byte(200 * (x & 1))
		}
		return [4]byte{v, v, v, 255}
	}
	cases := []struct {
		min texture.MinFilter
		mag texture.MagFilter
		c   float32
	}{
		{texture.MinNearMipNear, texture.MagLinear, 0.5},
		{texture.MinNearMipLin, texture.MagLinear, 0.5},
		{texture.MinLinMipNear, texture.MagNearest, 0},
		{texture.MinLinMipLin, texture.MagNearest, 0},
	}
	for _, cube := range []bool{false, true} {
		for _, c := range cases {
			sm := texture.Sampler{Min: c.min, Mag: c.mag, WrapS: texture.WrapClamp, WrapT: texture.WrapClamp}
			cf := newCubeFixtureOf(t, n, 2, sm, texel)
			p2, err := texture.P2{Kind: texture.ParamCubeStride, CubeStride: cf.stride, DisableAutoLOD: true}.Encode()
			if err != nil {
				t.Fatal(err)
			}
			p0 := cf.p0
			var s, tt, r [16]float32
			if cube {
				d := onFace(4, float64(x), float64(y)) // +Z, major axis 1
				s, tt, r = splat(float32(d[0])), splat(float32(d[1])), splat(float32(d[2]))
			} else {
				// Face 0 as a 2D texture: the same bytes without CMMODE.
				p0 &^= p0CubeMapBit
				s, tt = splat(x), splat(y)
			}
			u := New(cf.f.view)
			mag := explicitLOD(t, u, p0, cf.p1, p2, cube, s, tt, r, -1)
			for _, l := range []float32{0.01, 0.19, 0.25, 0.5, 0.51} {
				got := explicitLOD(t, u, p0, cf.p1, p2, cube, s, tt, r, l)
				if magnified := got == mag; magnified != (l <= c.c) {
					t.Errorf("cube %v, MINFILT %v, MAGFILT %v, LOD %v: %#08x (magnified %#08x): magnified %v, want %v",
						cube, c.min, c.mag, l, got, mag, magnified, l <= c.c)
				}
			}
		}
	}
}
