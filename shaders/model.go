package shaders

import "math"

// Models of what the VS and CS write, in Go, step by step in the order the
// programs compute (float32 rounding after each operation; explicit
// conversions stop Go from fusing multiply-adds). They exist so that the
// simulated GPU's output can be compared with them. Two differences from
// hardware are expected and small: the SFU's reciprocal is approximate
// (about 12 bits, refined here as in the shader by one Newton-Raphson
// step, which the model starts from the exact reciprocal), and the QPU's
// float rounding mode may differ (VC4C models round toward zero,
// hw-vc4.md §3.6). Compare floats with a relative tolerance of a few ULP
// and each half of XsYs within ±1.

// VertexOutput is what the VS writes to the VPM for one vertex, in order
// (AG Figure 11 "Shaded Vertex Format in VPM for PSE", with 2 varyings).
type VertexOutput struct {
	XsYs  uint32  // Xs (bits 15:0) and Ys (bits 31:16), signed 12.4 pixels from the viewport centre
	Zs    float32 // window depth
	InvWc float32 // 1/Wc
	S, T  float32 // the varyings, passed through
}

// Words returns the output as the five VPM words.
func (o VertexOutput) Words() [5]uint32 {
	return [5]uint32{o.XsYs, math.Float32bits(o.Zs), math.Float32bits(o.InvWc),
		math.Float32bits(o.S), math.Float32bits(o.T)}
}

// CoordOutput is what the CS writes for one vertex, in order (AG Figure
// 12 "Shaded Coordinates Format in VPM for PTB").
type CoordOutput struct {
	Xc, Yc, Zc, Wc float32 // clip coordinates
	XsYs           uint32
	Zs             float32
	InvWc          float32
}

// Words returns the output as the seven VPM words.
func (o CoordOutput) Words() [7]uint32 {
	return [7]uint32{math.Float32bits(o.Xc), math.Float32bits(o.Yc), math.Float32bits(o.Zc),
		math.Float32bits(o.Wc), o.XsYs, math.Float32bits(o.Zs), math.Float32bits(o.InvWc)}
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
// 0 for NaN and out-of-range values (doe300/VC4C, hw-vc4.md §3.6).
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
	xsys = uint32(uint16(xs)) | uint32(uint16(ys))<<16 // pack 16a / 16b: low 16 bits each
	zs = float32(float32(c[2]*p.ZScale)*rcp) + p.ZOffset
	return xsys, zs, rcp
}

// ModelVertex returns what the VS writes for a vertex at object-space
// position pos with texture coordinates s, t.
func ModelVertex(mvp *[16]float32, p VertexParams, pos [3]float32, s, t float32) VertexOutput {
	xsys, zs, rcp := screen(clip(mvp, pos), p)
	return VertexOutput{XsYs: xsys, Zs: zs, InvWc: rcp, S: s, T: t}
}

// ModelCoordinate returns what the CS writes for a vertex at pos.
func ModelCoordinate(mvp *[16]float32, p VertexParams, pos [3]float32) CoordOutput {
	c := clip(mvp, pos)
	xsys, zs, rcp := screen(c, p)
	return CoordOutput{Xc: c[0], Yc: c[1], Zc: c[2], Wc: c[3], XsYs: xsys, Zs: zs, InvWc: rcp}
}
