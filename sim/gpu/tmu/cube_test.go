package tmu

import (
	"math"
	"testing"

	"github.com/vccube/vccube/texture"
	"github.com/vccube/vccube/texture/convert"
)

// cubeFixture is a cube map of n×n RGBA8888 faces with levels mip levels
// in the fixture's memory: face k's miptree at k × stride, as Mesa lays
// it out (vc4_resource.c vc4_setup_slices: each face a whole miptree,
// the stride level 0's end rounded up to 4 KiB). Texel (x, y) of level d
// of face k holds the word k<<24 | d<<16 | y<<8 | x, so a lookup's result
// says what it sampled (RGBA8888 comes back unchanged).
type cubeFixture struct {
	f          *fixture
	p0, p1, p2 uint32
	n          int
	stride     uint32
}

func newCubeFixture(t *testing.T, n, levels int, s texture.Sampler) *cubeFixture {
	t.Helper()
	return newCubeFixtureOf(t, n, levels, s, func(k, d, x, y int) [4]byte {
		return [4]byte{byte(x), byte(y), byte(d), byte(k)}
	})
}

// newCubeFixtureOf is newCubeFixture with texel (x, y) of level d of face
// k given by texel.
func newCubeFixtureOf(t *testing.T, n, levels int, s texture.Sampler, texel func(k, d, x, y int) [4]byte) *cubeFixture {
	t.Helper()
	plan, err := texture.NewMipPlan(texture.RGBA8888, n, n, levels)
	if err != nil {
		t.Fatal(err)
	}
	stride := (plan.Size() + 4095) &^ 4095
	f := newFixture(t, 6*stride)
	for k := range 6 {
		var pics []texture.Picture
		for d := range levels {
			m := max(1, n>>d)
			pic, err := texture.NewPicture(m, m, 4)
			if err != nil {
				t.Fatal(err)
			}
			for y := range m {
				for x := range m {
					b := texel(k, d, x, y)
					copy(pic.Pix[(y*m+x)*4:], b[:])
				}
			}
			pics = append(pics, pic)
		}
		if err := convert.Upload(&plan, f.b[k*stride:], pics, false); err != nil {
			t.Fatal(err)
		}
	}
	p0, p1, err := plan.Params(0, texture.FlipByCPU, s)
	if err != nil {
		t.Fatal(err)
	}
	p0.Base = f.r.Addr + uint32(plan.BaseOffset())
	p0.CubeMap = true
	c := &cubeFixture{f: f, n: n, stride: uint32(stride)}
	if c.p0, err = p0.Encode(); err != nil {
		t.Fatal(err)
	}
	if c.p1, err = p1.Encode(); err != nil {
		t.Fatal(err)
	}
	if c.p2, err = (texture.P2{Kind: texture.ParamCubeStride, CubeStride: uint32(stride)}).Encode(); err != nil {
		t.Fatal(err)
	}
	return c
}

// lookup writes R, T and S with P0, P1 and P2 in that order, as Mesa's
// cube-map lookups do (vc4_program.c ntq_emit_tex), each direction
// divided by its largest magnitude first as Mesa's shaders do
// (nir_normalize_cubemap_coords), and returns the results.
func (c *cubeFixture) lookup(t *testing.T, u *Unit, dirs *[16][3]float64) [16]uint32 {
	t.Helper()
	var sv, tv, rv [16]uint32
	for i, d := range dirs {
		m := math.Max(math.Abs(d[0]), math.Max(math.Abs(d[1]), math.Abs(d[2])))
		sv[i] = math.Float32bits(float32(d[0] / m))
		tv[i] = math.Float32bits(float32(d[1] / m))
		rv[i] = math.Float32bits(float32(d[2] / m))
	}
	if err := u.Write(R, &rv, 0xFFFF, c.p0, false); err != nil {
		t.Fatal(err)
	}
	if err := u.Write(T, &tv, 0xFFFF, c.p1, false); err != nil {
		t.Fatal(err)
	}
	if err := u.Write(S, &sv, 0xFFFF, c.p2, false); err != nil {
		t.Fatal(err)
	}
	var out [16]uint32
	if err := u.Receive(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// onFace returns the direction that reaches face coordinates (s, t) of
// face k, inverting OpenGL ES 2.0 §3.7.5 Table 3.21 (face k: +X, −X, +Y,
// −Y, +Z, −Z; sc = 2s − 1, tc = 2t − 1, the major axis ±1). s or t
// beyond [0, 1] leans the direction onto a neighbouring face.
func onFace(k int, s, t float64) [3]float64 {
	sc, tc := 2*s-1, 2*t-1
	switch k {
	case 0: // +X: sc = −rz, tc = −ry
		return [3]float64{1, -tc, -sc}
	case 1: // −X: sc = +rz, tc = −ry
		return [3]float64{-1, -tc, sc}
	case 2: // +Y: sc = +rx, tc = +rz
		return [3]float64{sc, 1, tc}
	case 3: // −Y: sc = +rx, tc = −rz
		return [3]float64{sc, -1, -tc}
	case 4: // +Z: sc = +rx, tc = −ry
		return [3]float64{sc, -tc, 1}
	default: // −Z: sc = −rx, tc = −ry
		return [3]float64{-sc, -tc, -1}
	}
}

// A cube-map lookup samples the face the direction's major axis names,
// at the face coordinates of the GL table, in the face's miptree a cube
// stride above the previous one; R is the r coordinate, not a border
// colour. (Before cube maps were modelled every such lookup failed the
// job.)
func TestCubeMapFacesAndOrientation(t *testing.T) {
	const n = 8
	c := newCubeFixture(t, n, 1, nearest)
	for _, ref := range []bool{false, true} {
		u := New(c.f.view)
		u.Reference = ref
		for k := range 6 {
			var dirs [16][3]float64
			var want [16]uint32
			for i := range 16 {
				// Texel centres over the face, corners included.
				x, y := (i*5)%n, (i*3+k)%n
				dirs[i] = onFace(k, (float64(x)+0.5)/n, (float64(y)+0.5)/n)
				want[i] = uint32(k)<<24 | uint32(y)<<8 | uint32(x)
			}
			got := c.lookup(t, u, &dirs)
			for i := range 16 {
				if got[i] != want[i] {
					t.Errorf("reference %v, face %d, element %d, direction %v: got %#08x, want %#08x (face<<24 | level<<16 | y<<8 | x)",
						ref, k, i, dirs[i], got[i], want[i])
				}
			}
		}
	}
}

// Piglit's cubemap tests (which pass on a Pi 3) draw each face's level
// 1:1, so that a quad straddling the face's edge has elements whose
// directions lean onto the neighbouring face. The elements on the face
// must still see level 0: the quad's footprint is one texel.
func TestCubeMapLODAtFaceEdge(t *testing.T) {
	const n = 8
	mip := texture.Sampler{Min: texture.MinNearMipNear, Mag: texture.MagNearest, WrapS: texture.WrapClamp, WrapT: texture.WrapClamp}
	c := newCubeFixture(t, n, 4, mip)
	u := New(c.f.view)
	for k := range 6 {
		var dirs [16][3]float64
		// Four quads (elements 0 and 1 across, 0 and 2 down): the first
		// inside the face, the second with its right column beyond the
		// face's s = 1 edge, the third with its lower row beyond t = 1,
		// the fourth beyond both; one texel a pixel.
		for q := range 4 {
			x0, y0 := 3.5, 3.5
			if q&1 != 0 {
				x0 = n - 0.5
			}
			if q&2 != 0 {
				y0 = n - 0.5
			}
			for e := range 4 {
				x, y := x0+float64(e&1), y0+float64(e>>1)
				dirs[q*4+e] = onFace(k, x/n, y/n)
			}
		}
		got := c.lookup(t, u, &dirs)
		for i := range 16 {
			x, y := 3+(i>>2&1)*4+i&1, 3+(i>>3)*4+i>>1&1
			if x >= n || y >= n {
				continue // on a neighbouring face: not checked
			}
			want := uint32(k)<<24 | uint32(y)<<8 | uint32(x)
			if got[i] != want {
				t.Errorf("face %d, element %d (texel %d,%d of level 0): got %#08x, want %#08x (face<<24 | level<<16 | y<<8 | x)",
					k, i, x, y, got[i], want)
			}
		}
	}
}

// A cube map whose P2/P3 carry no cube stride is refused with an error
// (the kernel refuses it too: Linux vc4_validate.c reloc_tex).
func TestCubeMapWithoutStride(t *testing.T) {
	c := newCubeFixture(t, 4, 1, nearest)
	u := New(c.f.view)
	v := [16]uint32{}
	if err := u.Write(R, &v, 0xFFFF, c.p0, false); err != nil {
		t.Fatal(err)
	}
	if err := u.Write(T, &v, 0xFFFF, c.p1, false); err != nil {
		t.Fatal(err)
	}
	if err := u.Write(S, &v, 0xFFFF, 0, false); err == nil {
		t.Fatal("a cube-map lookup without a cube stride succeeded")
	}
}

// sample's test of CMMODE agrees with package texture's P0.
func TestP0CubeMapBit(t *testing.T) {
	for _, cube := range []bool{false, true} {
		w, err := texture.P0{CubeMap: cube}.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if got := w&p0CubeMapBit != 0; got != cube {
			t.Errorf("P0{CubeMap: %v} encodes %#x: p0CubeMapBit set is %v", cube, w, got)
		}
	}
}
