// Package shadermodel holds Go models of what the cube's QPU programs
// (package shaders) compute, for tests: the coordinate shader's output
// words, the fragment shader's interpolation and colour, the byte ops of
// the mul ALU the colour uses, and vkcube's exact lighting formula the
// fragment shader approximates. The tests of package shaders run the
// programs' own words on a scalar evaluator and compare with these; the
// GPU model's tests (sim/gpu/qpuexec) run them on the interpreter.
//
// The vertex shader's model, shaders.ModelVertex, stays in package shaders:
// the NV pipeline (cuberender.SubmitNV) shades the cube's vertices with it on
// the CPU. Coordinate builds on it, so the two programs' shared part (the
// MVP product, the perspective divide, the 12.4 packing) is modelled once.
//
// The models compute step by step in the order the programs do, rounding
// to float32 after each operation; see shaders.ModelVertex for the
// expected differences from the hardware (an approximate SFU reciprocal,
// round-toward-zero floats).
package shadermodel

import (
	"math"

	"github.com/vccube/vccube/shaders"
	"github.com/vccube/vccube/shaders/qpu"
)

// CoordOutput is what the CS writes for one vertex: the words of
// shaders.CS.Output (AG Figure 11 "Shaded Coordinates Format for PTB").
type CoordOutput struct {
	Xc, Yc, Zc, Wc float32 // clip coordinates
	XsYs           uint32
	Zs             float32
	InvWc          float32
}

// Words returns the output as the VPM words, in shaders.CS.Output's order.
func (o CoordOutput) Words() (w [qpu.ShadedClipWords + qpu.ShadedScreenWords]uint32) {
	f := shaders.CS.Output
	for k, c := range [qpu.ShadedClipWords]float32{o.Xc, o.Yc, o.Zc, o.Wc} {
		w[f.ClipAt(k)] = math.Float32bits(c)
	}
	w[f.XsYsAt()] = o.XsYs
	w[f.ZsAt()] = math.Float32bits(o.Zs)
	w[f.InvWcAt()] = math.Float32bits(o.InvWc)
	return w
}

// Coordinate returns what the CS writes for a vertex at object-space
// position pos: the clip coordinates and the screen words the VS computes
// the same way (the two programs share that code, shaders/vertex.go).
func Coordinate(mvp *[16]float32, p shaders.VertexParams, pos [3]float32) CoordOutput {
	v := shaders.ModelVertex(mvp, p, pos, 0, 0)
	return CoordOutput{Xc: v.Clip[0], Yc: v.Clip[1], Zc: v.Clip[2], Wc: v.Clip[3], XsYs: v.XsYs, Zs: v.Zs, InvWc: v.InvWc}
}

// Fragment is the FS's interpolation of the texture coordinates for one
// pixel (VP·W + C, rounded as float32 ops; AG §6 "Varyings
// Interpolation"): vpS and vpT are the partial varyings the hardware
// reads out, w the pixel's W (ra15), cS and cT the C coefficients.
func Fragment(vpS, vpT, w, cS, cT float32) (s, t float32) {
	s = float32(vpS*w) + cS
	t = float32(vpT*w) + cT
	return s, t
}

// V8Muld models the mul ALU's per-byte colour multiply on one byte as
// doe300/VC4C does (src/asm/OpCodes.cpp: (a·b + 127)/255). The guide gives
// no formula (AG Table 13).
func V8Muld(a, b uint8) uint8 { return uint8((uint32(a)*uint32(b) + 127) / 255) }

// V8Subs is the per-byte saturating subtract (AG Tables 12, 13).
func V8Subs(a, b uint8) uint8 {
	if a < b {
		return 0
	}
	return a - b
}

// LitByte is what the FS computes for one byte c of the texel with the
// light constants f: the maximum of its three lines (v8muld, v8subs,
// v8max; see shaders/light.go).
func LitByte(f shaders.FaceLight, c uint8) uint8 {
	g1 := V8Subs(V8Muld(c, f.K1), f.B1)
	g3 := V8Subs(V8Muld(c, f.K3), f.B3)
	g2 := V8Muld(c, f.L)
	return max(g1, g2, g3)
}

// ShadeTexel is the FS's colour for a texel word as the TMU returns it
// (the texture's bytes in memory order): LitByte on each of the four
// bytes. It is the word the FS writes to TLB_COLOUR_ALL.
func ShadeTexel(f shaders.FaceLight, texel uint32) uint32 {
	var out uint32
	for i := 0; i < 32; i += 8 {
		out |= uint32(LitByte(f, uint8(texel>>i))) << i
	}
	return out
}

// ExactLit is vkcube's result for one channel, in 8-bit levels (0..255,
// not rounded): 255 · srgb_encode(light · srgb_decode(c/255)), the
// texture being R8G8B8A8_SRGB (sampling decodes) and cube.frag encoding
// its result by hand. light is clamped to [0, 1], NaN to 0.
//
// The sRGB transfer functions are written here again, from their
// definition (IEC 61966-2-1), rather than taken from package shaders: the
// model is the reference the shaders' approximation is measured against.
func ExactLit(c uint8, light float64) float64 {
	switch {
	case light != light || light < 0:
		light = 0
	case light > 1:
		light = 1
	}
	return 255 * srgbEncode(light*srgbDecode(float64(c)/255))
}

// srgbDecode is sRGB's electro-optical transfer: x in 0..1 to linear.
func srgbDecode(x float64) float64 {
	if x <= 0.04045 {
		return x / 12.92
	}
	return math.Pow((x+0.055)/1.055, 2.4)
}

// srgbEncode is its inverse.
func srgbEncode(l float64) float64 {
	if l <= 0.0031308 {
		return 12.92 * l
	}
	return 1.055*math.Pow(l, 1/2.4) - 0.055
}
