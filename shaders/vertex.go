package shaders

import (
	"math"

	"github.com/vccube/vccube/shaders/hazard"
	q "github.com/vccube/vccube/shaders/qpu"
)

// VPM setups: horizontal 32-bit vectors from row 0, stride 1, as Mesa's
// vc4_qpu_emit.c writes them (0x00001a00 for the write setup, plus NUM for
// a read setup); the register layout is qpu.VPMSetup's.
func vpmWriteSetup() uint32 { return must(q.HorizontalVPM32(0, 0).EncodeWrite()) }

func vpmReadSetup(words int) uint32 { return must(q.HorizontalVPM32(0, words).EncodeRead()) }

func must(v uint32, err error) uint32 {
	if err != nil {
		panic(err) // a programming error in this file's constants
	}
	return v
}

// vertexProgram writes the VS (stage Vertex) or the CS (stage
// Coordinate). Both transform the position by the MVP; the CS writes the
// PTB's shaded coordinates (qpu.CoordinateFormat), the VS the PSE's shaded
// vertex with the varyings s, t (qpu.VertexFormat), each word in the
// order that format gives (AG Figures 10-12; doc/hardware.md#shaded-vertex-formats; Mesa
// vc4_program.c emit_coord_end/emit_vert_end).
//
// Registers: r0 r1 r2 = x y z (r0 becomes 1.0 for the translation column),
// r3 = the product the next instruction adds in, rb0..rb3 = the clip
// coordinates being summed, r1 = Wc at the end, rb4..rb6 = Xc·xs, Yc·ys,
// Zc·zs, ra7 = XsYs, ra4 ra5 = s t (VS).
//
// Hazards respected (shaders/hazard): every regfile value is read at least
// two instructions after its write; the first VPM read is three after the
// read setup; r4 (SFU result) is read three after the SFU write; no VPM or
// uniform access in the last three instructions; all VPM reads come
// before the first VPM write, so the output rows never overwrite attribute
// rows still to be read.
func vertexProgram(stage hazard.Stage) *Program {
	vs := stage == hazard.Vertex
	reads := 3
	out := q.CoordinateFormat(false)
	if vs {
		reads = 5
		out = q.VertexFormat(false, len(vertexVaryings))
	}
	// src is the register each output word is in when the program writes
	// it; write emits the next word of the format.
	src := make([]q.Reg, out.Words())
	for k, r := range [4]q.Reg{q.RB(0), q.RB(1), q.RB(2), q.R1} {
		if i := out.ClipAt(k); i >= 0 {
			src[i] = r
		}
	}
	src[out.XsYsAt()], src[out.ZsAt()], src[out.InvWcAt()] = q.RA(7), q.R2, q.R3
	for j := 0; j < out.Varyings; j++ {
		src[out.VaryingsAt()+j] = q.RA(4 + j) // read from the texcoord attribute
	}
	next := 0
	write := func() q.Op {
		next++
		return q.Mov(q.VPM, src[next-1])
	}
	var a q.Asm
	a.I(q.LoadImm(q.VRSetup, vpmReadSetup(reads))) // x y z [s t]
	a.I(q.LoadImm(q.VWSetup, vpmWriteSetup()))
	a.I() // VPM read latency: three instructions (AG §7)

	// Column 0 of the MVP times x, while the attributes arrive.
	a.I(q.Mov(q.R0, q.VPM))                                // x
	a.I(q.Mov(q.R1, q.VPM), q.FMul(q.RB(0), q.R0, q.Unif)) // y ; Xc = x·m0
	a.I(q.Mov(q.R2, q.VPM), q.FMul(q.RB(1), q.R0, q.Unif)) // z ; Yc = x·m1
	if vs {
		a.I(q.Mov(q.RA(4), q.VPM), q.FMul(q.RB(2), q.R0, q.Unif)) // s ; Zc = x·m2
		a.I(q.Mov(q.RA(5), q.VPM), q.FMul(q.RB(3), q.R0, q.Unif)) // t ; Wc = x·m3
	} else {
		a.I(q.FMul(q.RB(2), q.R0, q.Unif)) // Zc = x·m2
		a.I(q.FMul(q.RB(3), q.R0, q.Unif)) // Wc = x·m3
	}
	// Columns 1-3: each instruction adds the previous product and forms
	// the next (r3), consuming m4..m15 in order; column 3 is multiplied
	// by w = 1.0, which r0 (x, no longer needed) holds.
	a.I(q.Mov(q.R0, q.SmallFloat(1)), q.FMul(q.R3, q.R1, q.Unif)) // m4·y
	column := [4]q.Reg{q.R0, q.R1, q.R2, q.R0}                    // x, y, z, then 1.0 for m12..m15
	for k := 5; k <= 15; k++ {
		// Add m(k-1)·column into its row (m is column-major: row = index
		// mod 4), and form m(k)·column(k/4).
		acc := q.RB((k - 1) % 4)
		a.I(q.FAdd(acc, acc, q.R3), q.FMul(q.R3, column[k/4], q.Unif))
	}
	a.I(q.FAdd(q.R1, q.RB(3), q.R3)) // Wc = … + m15, in an accumulator for the SFU
	// rb0..rb2 = Xc Yc Zc, r1 = Wc.
	a.I(q.Mov(q.SFURecip, q.R1), q.FMul(q.RB(4), q.RB(0), q.Unif)) // 1/Wc (≈) ; Xc·x_scale16
	a.I(q.FMul(q.RB(5), q.RB(1), q.Unif))                          // Yc·y_scale16
	a.I(q.FMul(q.RB(6), q.RB(2), q.Unif))                          // Zc·z_scale
	// One Newton-Raphson step, r·(2 − w·r), as Mesa's ntq_rcp does: the
	// SFU gives about 12 bits (VC4C doc/sfu_accuracy.txt). A clip header starts with
	// Xc and Yc, final since the matrix loop: they go out alongside.
	if out.ClipHeader {
		a.I(write(), q.FMul(q.R2, q.R1, q.R4)) // out Xc ; w·r
	} else {
		a.I(q.FMul(q.R2, q.R1, q.R4)) // w·r
	}
	a.I(q.FSub(q.R2, q.SmallFloat(2), q.R2)) // 2 − w·r
	if out.ClipHeader {
		a.I(write(), q.FMul(q.R3, q.R4, q.R2)) // out Yc ; r3 = 1/Wc
	} else {
		a.I(q.FMul(q.R3, q.R4, q.R2)) // r3 = 1/Wc
	}
	a.I(q.FMul(q.R0, q.RB(4), q.R3))                                       // Xc·xs/Wc
	a.I(q.FToI(q.RA(7).Pack(q.XsPack), q.R0), q.FMul(q.R0, q.RB(5), q.R3)) // Xs -> ra7 ; Yc·ys/Wc
	a.I(q.FToI(q.RA(7).Pack(q.YsPack), q.R0), q.FMul(q.R2, q.RB(6), q.R3)) // Ys -> ra7 ; Zc·zs/Wc
	a.I(q.FAdd(q.R2, q.R2, q.Unif))                                        // Zs = … + z_offset
	for next < len(src) {
		a.I(write()) // the rest of the format, in its order
	}
	a.I(q.SigProgramEnd)
	a.I()
	a.I()

	p := &Program{
		Stage:    stage,
		Code:     a.MustAssemble(),
		Uniforms: vertexUniforms(),
		VPMReads: reads,
	}
	if vs {
		p.Name = "vertex shader"
		p.AttributeSelect = 0b11
		p.AttributeSize = uint8(Attributes[0].Bytes + Attributes[1].Bytes)
		p.Varyings = out.Varyings
	} else {
		p.Name = "coordinate shader"
		p.AttributeSelect = 0b01
		p.AttributeSize = uint8(Attributes[0].Bytes)
	}
	p.Output = out
	for i := 0; i < out.Words(); i++ {
		name := out.WordName(i)
		if j := i - out.VaryingsAt(); j >= 0 {
			name = vertexVaryings[j]
		}
		p.Outputs = append(p.Outputs, name)
	}
	return p
}

// vertexVaryings name the varyings the VS passes to the FS, in order: the
// texture coordinates, copied from the texcoord attribute.
var vertexVaryings = [...]string{"s", "t"}

// VertexParams are the per-draw values the VS and CS read after the MVP.
type VertexParams struct {
	XScale16, YScale16 float32 // viewport scales in 1/16 pixel (scene.Viewport)
	ZScale, ZOffset    float32 // depth mapping (scene.ZScale, scene.ZOffset)
}

// FillVertexUniforms writes the VS/CS uniform values, in slot order, into
// dst (it allocates nothing). mvp is column-major, as mgl32.Mat4 stores it.
func FillVertexUniforms(dst *[NumVertexUniforms]uint32, mvp *[16]float32, p VertexParams) {
	for i, m := range mvp {
		dst[VertexUniformMVP+i] = math.Float32bits(m)
	}
	dst[VertexUniformXScale] = math.Float32bits(p.XScale16)
	dst[VertexUniformYScale] = math.Float32bits(p.YScale16)
	dst[VertexUniformZScale] = math.Float32bits(p.ZScale)
	dst[VertexUniformZOffset] = math.Float32bits(p.ZOffset)
}
