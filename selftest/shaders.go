package selftest

import (
	"fmt"

	q "github.com/vccube/vccube/shaders/qpu"
)

// The probes' shaders, written with the project's QPU assembler. The
// vertex and coordinate shaders pass the vertex data through: the VPM
// read and write setups of the cube's shaders (horizontal 32-bit rows from
// row 0; Mesa vc4_qpu_emit.c writes the same), three instructions between
// the read setup and the first read (AG §7), then one "mov vpm, vpm" per
// word, so the shaded vertex is exactly the words in memory.

// passThrough copies n VPM words per vertex.
func passThrough(n int) []uint64 {
	rd, err := q.HorizontalVPM32(0, n).EncodeRead()
	if err != nil {
		panic(err) // n is at most 16 here
	}
	wr, err := q.HorizontalVPM32(0, 0).EncodeWrite()
	if err != nil {
		panic(err)
	}
	var a q.Asm
	a.I(q.LoadImm(q.VRSetup, rd))
	a.I(q.LoadImm(q.VWSetup, wr))
	a.I()
	for i := 0; i < n; i++ {
		a.I(q.Mov(q.VPM, q.VPM))
	}
	a.I(q.SigProgramEnd)
	a.I()
	a.I()
	return a.MustAssemble()
}

// vsVPMBothPorts is passVS(2) but for varying 0, which it writes as the
// sum of VPM_READ on both read ports (raddr_a and raddr_b both 48; the
// instruction is patched, as the assembler shares one port between two
// reads of a register): twice varying 0 when one word is popped for both
// ports (doc/hardware.md#machine), varying 0 + varying 1 when each port
// pops its own (and the last read then reads past the words set up).
var vsVPMBothPorts = func() *vertexShader {
	n := q.VertexFormat(false, 2).Words()
	rd, err := q.HorizontalVPM32(0, n).EncodeRead()
	if err != nil {
		panic(err)
	}
	wr, err := q.HorizontalVPM32(0, 0).EncodeWrite()
	if err != nil {
		panic(err)
	}
	var a q.Asm
	a.I(q.LoadImm(q.VRSetup, rd))
	a.I(q.LoadImm(q.VWSetup, wr))
	a.I()
	for i := 0; i < n-2; i++ { // Xs|Ys, Zs, 1/Wc
		a.I(q.Mov(q.VPM, q.VPM))
	}
	sum := a.I(q.FAdd(q.VPM, q.VPM, q.VPM)) // becomes vpm (A) + vpm (B)
	a.I(q.Mov(q.VPM, q.VPM))
	a.I(q.SigProgramEnd)
	a.I()
	a.I()
	code := a.MustAssemble()
	in := q.Decode(code[sum])
	in.RaddrB, in.AddB = q.RVPM, q.MuxB
	code[sum] = in.Encode()
	return &vertexShader{name: "VPM_READ on both ports for varying 0", code: code}
}()

// passVS is the vertex shader of a draw whose FS reads n varyings: it
// writes qpu.VertexFormat(false, n).
func passVS(n int) []uint64 { return passThrough(q.VertexFormat(false, n).Words()) }

// passCS is the coordinate shader: qpu.CoordinateFormat(false).
func passCS() []uint64 { return passThrough(q.CoordinateFormat(false).Words()) }

// fsEnd ends a fragment shader as Mesa's vc4_qpu_emit.c does: program end,
// two delay slots, the scoreboard unlocked in the last.
func fsEnd(a *q.Asm) {
	a.I(q.SigProgramEnd)
	a.I()
	a.I(q.SigScoreboardUnlock)
}

func mustFS(name string, varyings int, threaded bool, build func(a *q.Asm)) *fragment {
	var a q.Asm
	build(&a)
	code, err := a.Assemble()
	if err != nil {
		panic(fmt.Sprintf("selftest: fragment shader %s: %v", name, err))
	}
	return &fragment{name: name, code: code, varyings: varyings, threaded: threaded}
}

// fsUniform writes its one uniform as the colour: a flat colour per draw.
var fsUniform = mustFS("uniform colour", 0, false, func(a *q.Asm) {
	a.I(q.Mov(q.R0, q.Unif))
	a.I()
	a.I(q.Mov(q.TLBColourAll, q.R0))
	fsEnd(a)
})

// fsUniformPoint and fsUniformLine are fsUniform for points and lines:
// they first read the varyings the PSE adds to the primitive, two for a
// point (the point coordinate) and one for a line, which a fragment
// shader must read however many of its own it has
// (doc/hardware.md#varyings, The PSE's own varyings).
var fsUniformPoint, fsUniformLine = fsUniformPSE("point", 2), fsUniformPSE("line", 1)

func fsUniformPSE(prim string, pse int) *fragment {
	return mustFS("uniform colour, "+prim, 0, false, func(a *q.Asm) {
		for i := 0; i < pse; i++ {
			a.I(q.Mov(q.R1, q.Vary))
		}
		a.I(q.Mov(q.R0, q.Unif))
		a.I()
		a.I(q.Mov(q.TLBColourAll, q.R0))
		fsEnd(a)
	})
}

// fsUniformMSMask ANDs its first uniform into MS_FLAGS, the samples a
// TLB colour write reaches (AG §3 "Register Address Map": ms_flags,
// writable; Mesa's QOP_MS_MASK writes the mask ANDed with the MS_FLAGS
// read, vc4_qpu_emit.c), then writes its second uniform as the colour.
var fsUniformMSMask = mustFS("uniform colour, MS_FLAGS &= uniform", 0, false, func(a *q.Asm) {
	a.I(q.Mov(q.R0, q.Unif))
	a.I(q.And(q.MSFlags, q.R0, q.MSFlags))
	a.I(q.Mov(q.R0, q.Unif))
	a.I()
	a.I(q.Mov(q.TLBColourAll, q.R0))
	fsEnd(a)
})

// fsUniformRev writes its uniform ORed with REV_FLAG (1 in the elements of
// a reverse-facing primitive, AG §3 "Register Address Map": rev_flag), so
// a pixel says which face the hardware took its triangle for.
var fsUniformRev = mustFS("uniform colour | rev_flag", 0, false, func(a *q.Asm) {
	a.I(q.Mov(q.R0, q.Unif))
	a.I(q.Or(q.R0, q.R0, q.RevFlag))
	a.I(q.Mov(q.TLBColourAll, q.R0))
	fsEnd(a)
})

// fsUniformZ writes the interpolated Z (rb15) to TLB_Z, which runs the
// depth test (Mesa vc4_program.c emit_frag_end), then its uniform as the
// colour.
var fsUniformZ = mustFS("uniform colour, Z test", 0, false, func(a *q.Asm) {
	a.I(q.Mov(q.R0, q.Unif))
	a.I()
	a.I(q.Mov(q.TLBZ, q.RB(15)))
	a.I(q.Mov(q.TLBColourAll, q.R0))
	fsEnd(a)
})

// fsRawVarying writes the bits of varying 0, interpolated as Mesa does
// (VP·W + C, vc4_program.c emit_fragment_varying), as the colour word.
var fsRawVarying = mustFS("varying 0 as bits", 1, false, func(a *q.Asm) {
	a.I(q.FMul(q.R0, q.RA(15), q.Vary))
	a.I(q.FAdd(q.R0, q.R0, q.R5))
	a.I(q.Mov(q.TLBColourAll, q.R0))
	fsEnd(a)
})

// fsVaryBothPorts reads VARYING_READ on both read ports in one
// instruction (raddr_a and raddr_b both 35; the assembler shares one port
// between two reads of the same register, so the instruction is patched),
// adds the two values, reads the next varying, and writes the sum's bits:
// the sum is twice varying 0's VP when one value is popped for both ports
// (doc/hardware.md#machine), VP0 + VP1 when each port pops its own.
var fsVaryBothPorts = func() *fragment {
	f := mustFS("VARYING_READ on both ports", 2, false, func(a *q.Asm) {
		a.I(q.FAdd(q.R0, q.Vary, q.Vary)) // becomes vary (A) + vary (B)
		a.I(q.Mov(q.R1, q.Vary))
		a.I(q.Mov(q.TLBColourAll, q.R0))
		fsEnd(a)
	})
	in := q.Decode(f.code[0])
	in.RaddrB, in.AddB = q.RVarying, q.MuxB
	f.code[0] = in.Encode()
	return f
}()

// fsVaryOnePort is fsVaryBothPorts with both operands from port A: one
// pop, the sum twice VP0, then VP1.
var fsVaryOnePort = mustFS("VARYING_READ on one port, twice", 2, false, func(a *q.Asm) {
	a.I(q.FAdd(q.R0, q.Vary, q.Vary))
	a.I(q.Mov(q.R1, q.Vary))
	a.I(q.Mov(q.TLBColourAll, q.R0))
	fsEnd(a)
})

// fsVarying0Of2 writes the bits of varying 0 (VP·W + C) and reads
// varying 1, as a shader must read every varying set up.
var fsVarying0Of2 = mustFS("varying 0 of 2 as bits", 2, false, func(a *q.Asm) {
	a.I(q.FMul(q.R0, q.RA(15), q.Vary))
	a.I(q.FAdd(q.R0, q.R0, q.R5), q.FMul(q.R1, q.RA(15), q.Vary))
	a.I(q.Mov(q.TLBColourAll, q.R0))
	fsEnd(a)
})

// fsRawW writes the bits of W (ra15).
var fsRawW = mustFS("W as bits", 0, false, func(a *q.Asm) {
	a.I(q.Mov(q.R0, q.RA(15)))
	a.I()
	a.I(q.Mov(q.TLBColourAll, q.R0))
	fsEnd(a)
})

// fsVaryingsAsBytes reads four varyings that hold whole numbers 0..255
// and writes them as the four bytes of the colour (varying k to byte k):
// interpolation of constant values, FTOI and the byte order all show.
var fsVaryingsAsBytes = mustFS("four varyings as bytes", 4, false, func(a *q.Asm) {
	// r1 accumulates; each varying: VP·W + C, to integer, shifted.
	a.I(q.FMul(q.R0, q.RA(15), q.Vary))
	a.I(q.FAdd(q.R0, q.R0, q.R5))
	a.I(q.FToI(q.R1, q.R0), q.FMul(q.R0, q.RA(15), q.Vary))
	a.I(q.FAdd(q.R0, q.R0, q.R5))
	a.I(q.FToI(q.R0, q.R0))
	a.I(q.Shl(q.R0, q.R0, q.SmallInt(8)))
	a.I(q.Or(q.R1, q.R1, q.R0), q.FMul(q.R0, q.RA(15), q.Vary))
	a.I(q.FAdd(q.R0, q.R0, q.R5))
	a.I(q.FToI(q.R0, q.R0))
	a.I(q.Shl(q.R0, q.R0, q.SmallInt(15)))
	a.I(q.Shl(q.R0, q.R0, q.SmallInt(1)))
	a.I(q.Or(q.R1, q.R1, q.R0), q.FMul(q.R0, q.RA(15), q.Vary))
	a.I(q.FAdd(q.R0, q.R0, q.R5))
	a.I(q.FToI(q.R0, q.R0))
	a.I(q.Shl(q.R0, q.R0, q.SmallInt(12)))
	a.I(q.Shl(q.R0, q.R0, q.SmallInt(12)))
	a.I(q.Or(q.TLBColourAll, q.R1, q.R0))
	fsEnd(a)
})

// fsCoordBytes writes a colour made of the pixel's own coordinates
// (X_PIXEL_COORD, Y_PIXEL_COORD, AG §3 "Register Address Map"), so that a
// 64×64 frame holds every byte value in its first two channels:
// byte 0 = 4x + (y & 3), byte 1 = 4y + (x & 3), byte 2 = 2(x + y) & 255,
// byte 3 = 255.
var fsCoordBytes = mustFS("colour from pixel coordinates", 0, false, func(a *q.Asm) {
	a.I(q.Mov(q.R0, q.XCoord))
	a.I(q.Mov(q.R1, q.YCoord))
	a.I(q.And(q.R2, q.R1, q.SmallInt(3)))
	a.I(q.Shl(q.R3, q.R0, q.SmallInt(2)))
	a.I(q.Add(q.R2, q.R2, q.R3)) // byte 0
	a.I(q.Shl(q.RA(1), q.R1, q.SmallInt(2)))
	a.I(q.And(q.R3, q.R0, q.SmallInt(3)))
	a.I(q.Add(q.R3, q.R3, q.RA(1)))
	a.I(q.Shl(q.R3, q.R3, q.SmallInt(8)))
	a.I(q.Or(q.R2, q.R2, q.R3)) // byte 1
	a.I(q.Add(q.R3, q.R0, q.R1))
	a.I(q.Shl(q.R3, q.R3, q.SmallInt(15)))
	a.I(q.Shl(q.R3, q.R3, q.SmallInt(2)))
	a.I(q.LoadImm(q.RA(2), 0xFF0000))
	a.I(q.LoadImm(q.RB(2), 0xFF000000))
	a.I(q.And(q.R3, q.R3, q.RA(2)))
	a.I(q.Or(q.R2, q.R2, q.R3))
	a.I(q.Or(q.R2, q.R2, q.RB(2)))
	a.I(q.Mov(q.TLBColourAll, q.R2))
	fsEnd(a)
})

// fsTexture samples texture 0 at the interpolated (s, t) — the cube's
// fragment shader without the light: T then S (each write consumes P0 and
// P1 from the uniforms, Linux vc4_validate_shaders.c check_tmu_write),
// ldtmu0, and the TMU's word goes to the tile buffer unchanged.
var fsTexture = mustFS("texture sample", 2, false, func(a *q.Asm) {
	a.I(q.FMul(q.R0, q.RA(15), q.Vary))
	a.I(q.FAdd(q.R0, q.R0, q.R5), q.FMul(q.R1, q.RA(15), q.Vary))
	a.I(q.FAdd(q.TMU0T, q.R1, q.R5))
	a.I(q.Mov(q.TMU0S, q.R0))
	a.I(q.SigLoadTMU0)
	a.I(q.Mov(q.TLBColourAll, q.R4))
	fsEnd(a)
})

// fsTextureThreaded is fsTexture split in two threads as Mesa's threaded
// fragment shaders are (vc4_qpu_schedule.c): the lookup is issued, the
// thread switches while the TMU works (thrsw with two delay slots), and
// after the switch only registers of this thread's half survive (AG §3
// "Threads": each thread owns half of each register file; accumulators
// and flags do not survive). A value is kept across the switch in ra1, a
// register of the first half, and XORed into the colour.
var fsTextureThreaded = mustFS("texture sample, threaded", 2, true, func(a *q.Asm) {
	a.I(q.LoadImm(q.RA(1), 0x00A5005A))
	a.I(q.FMul(q.R0, q.RA(15), q.Vary))
	a.I(q.FAdd(q.R0, q.R0, q.R5), q.FMul(q.R1, q.RA(15), q.Vary))
	a.I(q.FAdd(q.TMU0T, q.R1, q.R5))
	a.I(q.Mov(q.TMU0S, q.R0), q.SigLastThreadSwitch)
	a.I()
	a.I()
	a.I(q.SigLoadTMU0)
	a.I(q.Xor(q.TLBColourAll, q.R4, q.RA(1)))
	a.I(q.SigProgramEnd)
	a.I()
	a.I(q.SigScoreboardUnlock)
})

// sfuFS returns a shader that computes one SFU function of an input
// derived from the pixel's coordinates and writes the result's bits:
// x = (X + 64·Y + 1) · scale, with X, Y the pixel coordinates, the SFU
// written with x and its result read from r4 three instructions later
// (AG §3 "Special Functions Unit").
func sfuFS(name string, sfu q.Reg, scale float32, bias float32) *fragment {
	return mustFS("SFU "+name, 0, false, func(a *q.Asm) {
		a.I(q.Mov(q.R0, q.XCoord))
		a.I(q.Mov(q.R1, q.YCoord))
		a.I(q.Shl(q.R1, q.R1, q.SmallInt(6)))
		a.I(q.Add(q.R0, q.R0, q.R1))
		a.I(q.Add(q.R0, q.R0, q.SmallInt(1)))
		a.I(q.IToF(q.R0, q.R0))
		a.I(q.LoadImmFloat(q.RA(1), scale))
		a.I(q.LoadImmFloat(q.RB(1), bias))
		a.I(q.FMul(q.R0, q.R0, q.RA(1)))
		a.I(q.FAdd(q.R0, q.R0, q.RB(1)))
		a.I(q.Mov(sfu, q.R0))
		a.I()
		a.I()
		a.I(q.Mov(q.TLBColourAll, q.R4))
		fsEnd(a)
	})
}

// fsFMul writes the bits of a·b for a = the pixel index x + 64y + 1 as a
// float times 1/3 (as a float32 constant) and b its uniform: products whose
// exact value falls between two floats, so the rounding mode shows.
var fsFMul = mustFS("fmul rounding", 0, false, func(a *q.Asm) {
	a.I(q.Mov(q.R0, q.XCoord))
	a.I(q.Mov(q.R1, q.YCoord))
	a.I(q.Shl(q.R1, q.R1, q.SmallInt(6)))
	a.I(q.Add(q.R0, q.R0, q.R1))
	a.I(q.Add(q.R0, q.R0, q.SmallInt(1)))
	a.I(q.IToF(q.R0, q.R0))
	a.I(q.Mov(q.R1, q.Unif))
	a.I(q.FMul(q.R0, q.R0, q.R1))
	a.I(q.Mov(q.TLBColourAll, q.R0))
	fsEnd(a)
})

// fsFAdd writes the bits of a + b for a = the pixel index x + 64y + 1 as
// a float (exact) and b its uniform (1/3 as a float32): sums whose exact
// value falls between two floats, so the rounding mode shows.
var fsFAdd = mustFS("fadd rounding", 0, false, func(a *q.Asm) {
	a.I(q.Mov(q.R0, q.XCoord))
	a.I(q.Mov(q.R1, q.YCoord))
	a.I(q.Shl(q.R1, q.R1, q.SmallInt(6)))
	a.I(q.Add(q.R0, q.R0, q.R1))
	a.I(q.Add(q.R0, q.R0, q.SmallInt(1)))
	a.I(q.IToF(q.R0, q.R0))
	a.I(q.Mov(q.R1, q.Unif))
	a.I(q.FAdd(q.R0, q.R0, q.R1))
	a.I(q.Mov(q.TLBColourAll, q.R0))
	fsEnd(a)
})

// fsColourPack writes the mul ALU's float-to-colour pack (pm = 1, AG
// Table 9, "8888": the colour byte in all four bytes) of x = (X + 64Y)·u,
// u its uniform (1/4095): a ramp over every colour byte, whose rounding
// shows.
var fsColourPack = mustFS("mul colour pack", 0, false, func(a *q.Asm) {
	a.I(q.Mov(q.R0, q.XCoord))
	a.I(q.Mov(q.R1, q.YCoord))
	a.I(q.Shl(q.R1, q.R1, q.SmallInt(6)))
	a.I(q.Add(q.R0, q.R0, q.R1))
	a.I(q.IToF(q.R0, q.R0))
	a.I(q.Mov(q.R1, q.Unif))
	a.I(q.FMul(q.R0, q.R0, q.R1))
	a.I(q.FMul(q.TLBColourAll.ColourPack(q.PackMul8888), q.R0, q.SmallFloat(1)))
	fsEnd(a)
})

// fsColourUnpack writes the bits of the float a float op reads through
// the regfile-A unpack 8a (pm = 0, AG Table 6: a colour byte to float)
// from a register holding (X + 64Y) & 255.
var fsColourUnpack = mustFS("regfile-A colour unpack", 0, false, func(a *q.Asm) {
	a.I(q.Mov(q.R0, q.XCoord))
	a.I(q.Mov(q.R1, q.YCoord))
	a.I(q.Shl(q.R1, q.R1, q.SmallInt(6)))
	a.I(q.Add(q.R0, q.R0, q.R1))
	a.I(q.LoadImm(q.R1, 255))
	a.I(q.And(q.RA(1), q.R0, q.R1))
	a.I()
	a.I(q.FMul(q.R0, q.RA(1).Unpack(q.Unpack8A), q.SmallFloat(1)))
	a.I(q.Mov(q.TLBColourAll, q.R0))
	fsEnd(a)
})
