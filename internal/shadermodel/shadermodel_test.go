package shadermodel

import (
	"math"
	"testing"

	"github.com/vccube/vccube/shaders"
)

// Hand-computed points of the exact formula (srgb(L·lin(c)) in levels).
func TestExactLit(t *testing.T) {
	cases := []struct {
		c     uint8
		light float64
		want  float64
	}{
		{255, 1, 255},
		{128, 1, 128},
		{255, 0.5, 255 * (1.055*math.Pow(0.5, 1/2.4) - 0.055)}, // 187.5
		{10, 0.5, 5},         // linear segments: 12.92·0.5·(10/255)/12.92·255
		{0, 0.9, 0},          //
		{255, 0.001, 3.2946}, // lit value 0.001 < 0.0031308: 12.92·0.001·255
	}
	for _, c := range cases {
		if got := ExactLit(c.c, c.light); math.Abs(got-c.want) > 1e-3 {
			t.Errorf("ExactLit(%d, %v) = %v, want %v", c.c, c.light, got, c.want)
		}
	}
}

// ExactLit clamps light to [0, 1], NaN to 0 (cube.frag's max(0, dot(L, n))
// never exceeds 1 for unit vectors).
func TestExactLitClamps(t *testing.T) {
	if ExactLit(200, -0.5) != 0 || ExactLit(200, math.NaN()) != 0 || ExactLit(200, 7) != ExactLit(200, 1) {
		t.Error("light is not clamped to [0, 1] (NaN to 0)")
	}
}

// The CS model lays out exactly the words the CS writes, and its screen
// words are the VS model's: the two programs compute them with the same
// code (shaders/vertex.go).
func TestCoordinateLayout(t *testing.T) {
	if n := len(CoordOutput{}.Words()); n != shaders.CS.Output.Words() || n != len(shaders.CS.Outputs) {
		t.Errorf("CoordOutput has %d words, CS.Output %d", n, shaders.CS.Output.Words())
	}
	mvp := [16]float32{2, 0, 0, 0, 0, 2, 0, 0, 0, 0, -1, -1, 0, 0, 4, 5}
	p := shaders.VertexParams{XScale16: 6400, YScale16: -4800, ZScale: 0.5, ZOffset: 0.5}
	o := Coordinate(&mvp, p, [3]float32{0.5, -0.25, 1})
	// Clip: (2·0.5, 2·−0.25, −1 + 4, −1 + 5) = (1, −0.5, 3, 4).
	if o.Xc != 1 || o.Yc != -0.5 || o.Zc != 3 || o.Wc != 4 {
		t.Errorf("clip %v %v %v %v, want 1 -0.5 3 4", o.Xc, o.Yc, o.Zc, o.Wc)
	}
	w := o.Words()
	names := map[string]uint32{"Xc": math.Float32bits(1), "Wc": math.Float32bits(4), "XsYs": o.XsYs, "1/Wc": math.Float32bits(o.InvWc)}
	for i, name := range shaders.CS.Outputs {
		if want, ok := names[name]; ok && w[i] != want {
			t.Errorf("word %d (%s) = %#x, want %#x", i, name, w[i], want)
		}
	}
	// Xs = 1/4 · 6400 = 1600, Ys = −0.5/4 · −4800 = 600 (1/16 pixels).
	if o.XsYs != 600<<16|1600 || o.InvWc != 0.25 || o.Zs != 3.0/4*0.5+0.5 {
		t.Errorf("screen words %#x %v %v", o.XsYs, o.InvWc, o.Zs)
	}
}

// The FS's colour ops on bytes, at the ends and at a rounding point.
func TestByteOps(t *testing.T) {
	if V8Muld(255, 255) != 255 || V8Muld(255, 0) != 0 || V8Muld(128, 128) != 64 || V8Muld(1, 128) != 1 || V8Muld(1, 127) != 0 {
		t.Error("V8Muld is not (a·b + 127)/255")
	}
	if V8Subs(10, 20) != 0 || V8Subs(20, 10) != 10 {
		t.Error("V8Subs does not saturate at 0")
	}
	full := shaders.FaceLight{K1: 255, L: 255}
	if ShadeTexel(full, 0x80402010) != 0x80402010 || ShadeTexel(shaders.FaceLight{}, 0xffffffff) != 0 {
		t.Error("ShadeTexel at full light and at none")
	}
}
