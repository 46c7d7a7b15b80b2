package shaders

import (
	"math"

	"github.com/vccube/vccube/shaders/qpu"
)

// A model of what the VS writes, in Go, step by step in the order the
// program computes (float32 rounding after each operation; explicit
// conversions stop Go from fusing multiply-adds). The NV pipeline
// (cuberender.SubmitNV) shades the cube's vertices with it on the CPU, and the
// tests compare the programs' output with it (the models of the other
// programs are in internal/shadermodel). Two differences from hardware are
// expected and small: the SFU's reciprocal is approximate (about 12 bits,
// refined here as in the shader by one Newton-Raphson step, which the
// model starts from the exact reciprocal), and the QPU's float rounding
// mode may differ (VC4C models round toward zero, doc/hardware.md#machine).
// Compare floats with a relative tolerance of a few ULP and each half of
// XsYs within ±1.

// VertexOutput is what the VS writes to the VPM for one vertex: the words
// of VS.Output (AG Figure 10 "Shaded Vertex Format for PSE", with the two
// varyings).
type VertexOutput struct {
	XsYs  uint32  // Xs (bits 15:0) and Ys (bits 31:16), signed 12.4 pixels from the viewport centre
	Zs    float32 // window depth
	InvWc float32 // 1/Wc
	S, T  float32 // the varyings, passed through
	// Clip is Xc, Yc, Zc, Wc, computed on the way. The VS does not write
	// them (Words leaves them out); the CS, which computes the same way,
	// does.
	Clip [4]float32
}

// Words returns the output as the VPM words, in VS.Output's order.
func (o VertexOutput) Words() (w [qpu.ShadedScreenWords + len(vertexVaryings)]uint32) {
	f := VS.Output
	w[f.XsYsAt()] = o.XsYs
	w[f.ZsAt()] = math.Float32bits(o.Zs)
	w[f.InvWcAt()] = math.Float32bits(o.InvWc)
	w[f.VaryingsAt()] = math.Float32bits(o.S)
	w[f.VaryingsAt()+1] = math.Float32bits(o.T)
	return w
}

// clip computes MVP·(x, y, z, 1) the way the shaders do: per component,
// ((x·m[c] + y·m[4+c]) + z·m[8+c]) + 1·m[12+c], mvp column-major.
func clip(mvp *[16]float32, pos [3]float32) (c [4]float32) {
	for i := 0; i < 4; i++ {
		acc := float32(pos[0] * mvp[i])
		acc = acc + float32(pos[1]*mvp[4+i])
		acc = acc + float32(pos[2]*mvp[8+i])
		acc = acc + float32(1*mvp[12+i])
		c[i] = acc
	}
	return c
}

// FToI is the QPU's float-to-integer conversion: truncation toward zero,
// 0 for NaN and out-of-range values (doe300/VC4C src/asm/OpCodes.cpp;
// doc/hardware.md#machine).
func FToI(f float32) int32 {
	if f != f || f >= 2147483648 || f < -2147483648 {
		return 0
	}
	return int32(f)
}

// screen computes 1/Wc (with the Newton-Raphson step), the packed XsYs and
// Zs from clip coordinates, in the shader's order.
func screen(c [4]float32, p VertexParams) (xsys uint32, zs, rcp float32) {
	r := 1 / c[3]            // SFU_RECIP (approximate on hardware)
	e := 2 - float32(c[3]*r) // 2 − w·r
	rcp = float32(r * e)     // r·(2 − w·r)
	xs := FToI(float32(float32(c[0]*p.XScale16) * rcp))
	ys := FToI(float32(float32(c[1]*p.YScale16) * rcp))
	xsys = qpu.PackXsYs(int16(xs), int16(ys)) // pack 16a / 16b: low 16 bits each
	zs = float32(float32(c[2]*p.ZScale)*rcp) + p.ZOffset
	return xsys, zs, rcp
}

// ModelVertex returns what the VS writes for a vertex at object-space
// position pos with texture coordinates s, t.
func ModelVertex(mvp *[16]float32, p VertexParams, pos [3]float32, s, t float32) VertexOutput {
	c := clip(mvp, pos)
	xsys, zs, rcp := screen(c, p)
	return VertexOutput{XsYs: xsys, Zs: zs, InvWc: rcp, S: s, T: t, Clip: c}
}
