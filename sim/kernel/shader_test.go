package kernel

import (
	"errors"
	"strings"
	"syscall"
	"testing"

	"github.com/vccube/vccube/shaders/qpu"
)

// Shader BOs are page-rounded and zero-filled past the uploaded code
// (vc4_bo.c vc4_create_shader_bo_ioctl), so tests validate a whole page.
func shaderBO(words []uint64) []byte {
	code := qpu.Bytes(words)
	n := (len(code) + 4095) / 4096 * 4096
	bo := make([]byte, n)
	copy(bo, code)
	return bo
}

func assemble(t *testing.T, build func(a *qpu.Asm)) []uint64 {
	t.Helper()
	var a qpu.Asm
	build(&a)
	words, err := a.Assemble()
	if err != nil {
		t.Fatal(err)
	}
	return words
}

// end appends a program end and its two delay slots.
func end(a *qpu.Asm) {
	a.I(qpu.SigProgramEnd)
	a.I()
	a.I()
}

func mustValidate(t *testing.T, words []uint64) *Shader {
	t.Helper()
	sh, err := ValidateShader(shaderBO(words))
	if err != nil {
		t.Fatalf("rejected: %v\n%s", err, qpu.Disassemble(words))
	}
	return sh
}

func mustReject(t *testing.T, words []uint64, reason string) {
	t.Helper()
	_, err := ValidateShader(shaderBO(words))
	if err == nil {
		t.Fatalf("accepted, want EINVAL %q\n%s", reason, qpu.Disassemble(words))
	}
	if !errors.Is(err, syscall.EINVAL) || !strings.Contains(err.Error(), reason) {
		t.Fatalf("error %v, want EINVAL %q", err, reason)
	}
}

// word builds a raw instruction for encodings the assembler refuses.
func word(in qpu.Inst) uint64 { return in.Encode() }

var nopWord = word(qpu.Decode(0x100009E7_009E7000)) // canonical NOP, Mesa vc4_qpu.c qpu_NOP

// rawALUOp returns an ALU instruction with every field given, NOPs
// elsewhere: for hand-built words.
func rawALUOp(sig qpu.Signal, waddrAdd, waddrMul qpu.WAddr, opAdd qpu.AddOp, raddrA, raddrB qpu.RAddr, addA, addB qpu.Mux) uint64 {
	return word(qpu.Inst{Sig: sig, CondAdd: qpu.CondAlways, CondMul: qpu.CondNever,
		WaddrAdd: waddrAdd, WaddrMul: waddrMul, OpAdd: opAdd,
		RaddrA: raddrA, RaddrB: raddrB, AddA: addA, AddB: addB})
}

func TestRawALUViewDerivedFromQPU(t *testing.T) {
	// The signal is bits 63:60 (vc4_qpu_defines.h QPU_SIG_SHIFT).
	if sigFieldMask != 0xF000000000000000 || sigNoneBits != 0x1000000000000000 {
		t.Fatalf("signal masks %#x %#x", sigFieldMask, sigNoneBits)
	}
	// A load immediate of 0x13000000 reads, at the ALU position, as
	// op_add 19 (MAX): the kernel's raw view.
	li := word(qpu.Inst{Sig: qpu.SigLoadImm, WaddrAdd: 0, WaddrMul: qpu.WNop, CondAdd: qpu.CondAlways, Imm: 0x13000000})
	if raw := rawALU(li); raw.OpAdd != qpu.AddMax || raw.Sig != qpu.SigNone {
		t.Fatalf("raw view %+v", raw)
	}
}

// A flat-colour fragment shader: the colour is one uniform.
func TestShaderFlatColour(t *testing.T) {
	words := assemble(t, func(a *qpu.Asm) {
		a.I(qpu.SigScoreboardWait)
		a.I(qpu.Mov(qpu.TLBColourAll, qpu.Unif))
		a.I(qpu.SigScoreboardUnlock)
		end(a)
	})
	sh := mustValidate(t, words)
	if sh.UniformsSize != 4 || sh.UniformsSrcSize != 4 || len(sh.Samples) != 0 || sh.Threaded || len(sh.UniformAddrOffsets) != 0 {
		t.Fatalf("%+v", sh)
	}
}

// doc/kernel.md#an-example-fragment-shader: one 2D lookup written T then S
// consumes two implicit uniforms, P0 then P1; an explicit uniform read
// before it comes first.
func TestShaderTextureSample(t *testing.T) {
	words := assemble(t, func(a *qpu.Asm) {
		a.I(qpu.Mov(qpu.R2, qpu.Unif))              // uniform 0 (offset 0)
		a.I(qpu.FMul(qpu.R0, qpu.RA(15), qpu.Vary)) // varyings are unrestricted
		a.I(qpu.FAdd(qpu.TMU0T, qpu.R0, qpu.R5))    // P0: offset 4
		a.I(qpu.Mov(qpu.TMU0S, qpu.R1))             // P1: offset 8, submits
		a.I(qpu.SigLoadTMU0)                        // r4 = texel
		a.I(qpu.FMul(qpu.TLBColourAll, qpu.R4, qpu.R2))
		end(a)
	})
	sh := mustValidate(t, words)
	want := TextureSample{POffset: [4]uint32{4, 8, NoParam, NoParam}}
	if sh.UniformsSize != 12 || sh.UniformsSrcSize != 16 || len(sh.Samples) != 1 || sh.Samples[0] != want {
		t.Fatalf("%+v", sh)
	}
}

// Four parameters (T, R, B then S) are the most a lookup may take.
func TestShaderTMUParameterLimit(t *testing.T) {
	four := assemble(t, func(a *qpu.Asm) {
		a.I(qpu.Mov(qpu.TMU1T, qpu.R0))
		a.I(qpu.Mov(qpu.TMU1R, qpu.R0))
		a.I(qpu.Mov(qpu.TMU1B, qpu.R0))
		a.I(qpu.Mov(qpu.TMU1S, qpu.R0))
		a.I(qpu.SigLoadTMU1)
		end(a)
	})
	sh := mustValidate(t, four)
	if len(sh.Samples) != 1 || sh.Samples[0].POffset != [4]uint32{0, 4, 8, 12} || sh.UniformsSize != 16 {
		t.Fatalf("%+v", sh)
	}
	five := assemble(t, func(a *qpu.Asm) {
		a.I(qpu.Mov(qpu.TMU1T, qpu.R0))
		a.I(qpu.Mov(qpu.TMU1R, qpu.R0))
		a.I(qpu.Mov(qpu.TMU1B, qpu.R0))
		a.I(qpu.Mov(qpu.TMU1T, qpu.R0))
		a.I(qpu.Mov(qpu.TMU1S, qpu.R0))
		end(a)
	})
	mustReject(t, five, "TMU1 got too many parameters")
}

func TestShaderUniformReadWithTMUWrite(t *testing.T) {
	words := assemble(t, func(a *qpu.Asm) {
		a.I(qpu.Mov(qpu.TMU0T, qpu.Unif))
		a.I(qpu.Mov(qpu.TMU0S, qpu.R0))
		end(a)
	})
	mustReject(t, words, "uniform read in the same instruction as texture setup")
}

func TestShaderAddAndMulBothTMU(t *testing.T) {
	words := assemble(t, func(a *qpu.Asm) { end(a) })
	// add writes tmu0_t, mul writes tmu0_s: the assembler refuses, so
	// build the word by hand.
	w := word(qpu.Inst{Sig: qpu.SigNone, CondAdd: qpu.CondAlways, CondMul: qpu.CondAlways,
		WaddrAdd: qpu.WTMU0T, WaddrMul: qpu.WTMU0S, OpAdd: qpu.AddOr, OpMul: qpu.MulV8Min,
		RaddrA: qpu.RNop, RaddrB: qpu.RNop})
	mustReject(t, append([]uint64{w}, words...), "ADD and MUL both set up textures")
}

// S written alone is a direct lookup: it must be an add of a clamped
// offset and a uniform (doc/kernel.md#tmu-rules).
func TestShaderDirectLookup(t *testing.T) {
	good := assemble(t, func(a *qpu.Asm) {
		a.I(qpu.Max(qpu.R0, qpu.R1, qpu.SmallInt(0))) // clamp below at 0
		a.I(qpu.Min(qpu.R0, qpu.R0, qpu.Unif))        // clamp above: uniform at offset 0
		a.I(qpu.Add(qpu.TMU0S, qpu.R0, qpu.Unif))     // base: uniform at offset 4
		a.I(qpu.SigLoadTMU0)
		end(a)
	})
	sh := mustValidate(t, good)
	want := TextureSample{POffset: [4]uint32{4, 0, NoParam, NoParam}, Direct: true}
	if len(sh.Samples) != 1 || sh.Samples[0] != want || sh.UniformsSize != 8 || sh.UniformsSrcSize != 12 {
		t.Fatalf("%+v", sh)
	}

	unclamped := assemble(t, func(a *qpu.Asm) {
		a.I(qpu.Add(qpu.TMU0S, qpu.R0, qpu.Unif))
		end(a)
	})
	mustReject(t, unclamped, "direct TMU load wasn't clamped")

	notAdd := assemble(t, func(a *qpu.Asm) {
		a.I(qpu.Max(qpu.R0, qpu.R1, qpu.SmallInt(0)))
		a.I(qpu.Min(qpu.R0, qpu.R0, qpu.Unif))
		a.I(qpu.Or(qpu.TMU0S, qpu.R0, qpu.Unif))
		end(a)
	})
	mustReject(t, notAdd, "direct TMU load wasn't an add")

	notUniform := assemble(t, func(a *qpu.Asm) {
		a.I(qpu.Max(qpu.R0, qpu.R1, qpu.SmallInt(0)))
		a.I(qpu.Min(qpu.R0, qpu.R0, qpu.Unif))
		a.I(qpu.Add(qpu.TMU0S, qpu.R0, qpu.R1))
		end(a)
	})
	mustReject(t, notUniform, "direct TMU load didn't add to a uniform")

	// Writing S before T makes the S write direct: the classic mistake.
	sFirst := assemble(t, func(a *qpu.Asm) {
		a.I(qpu.Mov(qpu.TMU0S, qpu.R0))
		a.I(qpu.Mov(qpu.TMU0T, qpu.R1))
		end(a)
	})
	mustReject(t, sFirst, "direct TMU load wasn't an add")
}

// A normal lookup after a direct one on the same TMU is a normal lookup
// (stricter than the kernel, whose is_direct flag sticks).
func TestShaderDirectFlagDoesNotStick(t *testing.T) {
	words := assemble(t, func(a *qpu.Asm) {
		a.I(qpu.Max(qpu.R0, qpu.R1, qpu.SmallInt(0)))
		a.I(qpu.Min(qpu.R0, qpu.R0, qpu.Unif))
		a.I(qpu.Add(qpu.TMU0S, qpu.R0, qpu.Unif))
		a.I(qpu.SigLoadTMU0)
		a.I(qpu.Mov(qpu.TMU0T, qpu.R2))
		a.I(qpu.Mov(qpu.TMU0S, qpu.R2))
		a.I(qpu.SigLoadTMU0)
		end(a)
	})
	sh := mustValidate(t, words)
	if len(sh.Samples) != 2 || !sh.Samples[0].Direct || sh.Samples[1].Direct ||
		sh.Samples[1].POffset != [4]uint32{8, 12, NoParam, NoParam} {
		t.Fatalf("%+v", sh)
	}
}

func TestShaderForbiddenWriteAddresses(t *testing.T) {
	for _, c := range []struct {
		waddr qpu.WAddr
		why   string
	}{
		{qpu.WTMUNoSwap, "Unsupported waddr 36"},
		{qpu.WHostInt, "Unsupported waddr 38"},
		{qpu.WTLBAlphaMask, "Unsupported waddr 47"},
		{qpu.WMutexRelease, "Unsupported waddr 51"},
		{qpu.WVPMAddr, "General VPM DMA unsupported"},
	} {
		w := rawALUOp(qpu.SigNone, c.waddr, qpu.WNop, qpu.AddOr, qpu.RNop, qpu.RNop, qpu.MuxR0, qpu.MuxR0)
		mustReject(t, []uint64{w, word(qpu.Decode(nopWord)), nopWord}, c.why)
	}
	// The allowed ones.
	for _, waddr := range []qpu.WAddr{0, 31, qpu.WAcc0, qpu.WAcc3, qpu.WAcc5, qpu.WQuadXY, qpu.WMSFlagsRev,
		qpu.WTLBStencilSetup, qpu.WTLBZ, qpu.WTLBColourMS, qpu.WTLBColourAll, qpu.WVPM, qpu.WVPMVCDSetup,
		qpu.WSFURecip, qpu.WSFURecipSqrt, qpu.WSFUExp, qpu.WSFULog} {
		w := rawALUOp(qpu.SigNone, waddr, qpu.WNop, qpu.AddOr, qpu.RNop, qpu.RNop, qpu.MuxR0, qpu.MuxR0)
		end := rawALUOp(qpu.SigProgramEnd, qpu.WNop, qpu.WNop, qpu.AddNop, qpu.RNop, qpu.RNop, 0, 0)
		if _, err := ValidateShader(shaderBO([]uint64{w, end, nopWord, nopWord})); err != nil {
			t.Errorf("waddr %d: %v", waddr, err)
		}
	}
}

func TestShaderSignals(t *testing.T) {
	end := rawALUOp(qpu.SigProgramEnd, qpu.WNop, qpu.WNop, qpu.AddNop, qpu.RNop, qpu.RNop, 0, 0)
	for sig := qpu.Signal(0); sig <= qpu.SigSmallImm; sig++ {
		w := rawALUOp(sig, qpu.WNop, qpu.WNop, qpu.AddNop, qpu.RNop, qpu.RNop, 0, 0)
		_, err := ValidateShader(shaderBO([]uint64{w, end, nopWord, nopWord}))
		// doc/kernel.md#program-end: 0, 7, 9 and 12 are refused.
		refused := sig == 0 || sig == 7 || sig == 9 || sig == 12
		if refused != (err != nil) {
			t.Errorf("signal %d: %v", sig, err)
		}
	}
}

func TestShaderProgramEnd(t *testing.T) {
	// The delay slots must be real instructions: zero words are breakpoints.
	noSlots := assemble(t, func(a *qpu.Asm) {
		a.I(qpu.Mov(qpu.TLBColourAll, qpu.R0))
		a.I(qpu.SigProgramEnd)
	})
	mustReject(t, noSlots, "Unsupported QPU signal 0")

	// A page of NOPs never ends.
	nops := make([]uint64, 512)
	for i := range nops {
		nops[i] = nopWord
	}
	mustReject(t, nops, "shader failed to terminate")

	// Program end as the last instruction of a full page: the kernel reads
	// past the BO; the model refuses.
	nops[511] = rawALUOp(qpu.SigProgramEnd, qpu.WNop, qpu.WNop, qpu.AddNop, qpu.RNop, qpu.RNop, 0, 0)
	mustReject(t, nops, "no room for its two delay slots")
	// Three from the end fits exactly.
	nops[511] = nopWord
	nops[509] = rawALUOp(qpu.SigProgramEnd, qpu.WNop, qpu.WNop, qpu.AddNop, qpu.RNop, qpu.RNop, 0, 0)
	mustValidate(t, nops)

	// Anything after the delay slots is not looked at.
	after := assemble(t, func(a *qpu.Asm) { end(a) })
	after = append(after, 0, 0xdeadbeef_deadbeef)
	mustValidate(t, after)
}

func TestShaderThreading(t *testing.T) {
	threaded := assemble(t, func(a *qpu.Asm) {
		a.I(qpu.Mov(qpu.TMU0T, qpu.R0))
		a.I(qpu.Mov(qpu.TMU0S, qpu.R0))
		a.I(qpu.SigThreadSwitch)
		a.I()
		a.I()
		a.I(qpu.SigLoadTMU0)
		a.I(qpu.Mov(qpu.RA(15), qpu.R4)) // lower half is fine
		a.I(qpu.SigLastThreadSwitch)
		a.I()
		a.I()
		end(a)
	})
	if sh := mustValidate(t, threaded); !sh.Threaded {
		t.Fatal("not threaded")
	}

	upper := assemble(t, func(a *qpu.Asm) {
		a.I(qpu.SigThreadSwitch)
		a.I()
		a.I()
		a.I(qpu.Mov(qpu.RA(16), qpu.R0))
		end(a)
	})
	mustReject(t, upper, "upper half of the registers")
	upperRead := assemble(t, func(a *qpu.Asm) {
		a.I(qpu.Mov(qpu.R0, qpu.RB(31)))
		a.I(qpu.SigThreadSwitch)
		a.I()
		a.I()
		end(a)
	})
	mustReject(t, upperRead, "upper half of the registers")
	// Unthreaded shaders may use all 64 registers.
	mustValidate(t, assemble(t, func(a *qpu.Asm) {
		a.I(qpu.Mov(qpu.RA(16), qpu.RB(31)))
		end(a)
	}))

	tooSoon := assemble(t, func(a *qpu.Asm) {
		a.I(qpu.SigThreadSwitch)
		a.I()
		a.I(qpu.SigThreadSwitch)
		end(a)
	})
	mustReject(t, tooSoon, "Thread switch too soon")
}

// A counted loop with the uniform-address reset the kernel wants at every
// basic-block entry that reads uniforms (doc/kernel.md#branches).
//
// Worked by hand: the reset at 3 reads the uniform at offset 0 and expects
// the immediate 0 + 4; its slot is uniform 0. The loop body reads one more
// (offset 4). The backward branch at 6 is not followed by another reset,
// so one slot is appended at the end (uniform 2) and the size becomes 12.
func TestShaderLoopWithUniformReset(t *testing.T) {
	words := assemble(t, func(a *qpu.Asm) {
		a.I(qpu.LoadImm(qpu.R1, 3))
		a.I()
		a.Label("loop")
		a.I(qpu.LoadImm(qpu.RA(1), 4))                  // 2: block entry
		a.I(qpu.Add(qpu.UnifAddr, qpu.RA(1), qpu.Unif)) // 3: reset
		a.I(qpu.Mov(qpu.R0, qpu.Unif))                  // 4
		a.I(qpu.Sub(qpu.R1, qpu.R1, qpu.SmallInt(1)).SetFlags())
		a.I(qpu.Branch(qpu.BranchAnyZC, "loop")) // 6
		a.I()
		a.I()
		a.I()
		end(a) // 10: the fall-through is a block entry too
	})
	sh := mustValidate(t, words)
	if sh.UniformsSize != 12 || len(sh.UniformAddrOffsets) != 2 || sh.UniformAddrOffsets[0] != 0 || sh.UniformAddrOffsets[1] != 2 {
		t.Fatalf("%+v\n%s", sh, qpu.Disassemble(words))
	}

	// The same loop resetting with the wrong offset.
	bad := append([]uint64(nil), words...)
	bad[2] = word(qpu.Inst{Sig: qpu.SigLoadImm, CondAdd: qpu.CondAlways, CondMul: qpu.CondNever,
		WaddrAdd: 1, WaddrMul: qpu.WNop, Imm: 8})
	mustReject(t, bad, "Resetting uniforms with offset 8b instead of 4b")

	// Without the reset, the uniform read in the block is refused.
	noReset := append([]uint64(nil), words...)
	noReset[3] = nopWord
	mustReject(t, noReset, "Uniform read with undefined uniform address")
}

func TestShaderBranchRules(t *testing.T) {
	endW := rawALUOp(qpu.SigProgramEnd, qpu.WNop, qpu.WNop, qpu.AddNop, qpu.RNop, qpu.RNop, 0, 0)
	branch := func(imm int32, rel, reg bool, waddr qpu.WAddr) uint64 {
		return word(qpu.Inst{Sig: qpu.SigBranch, CondBr: qpu.BranchAlways, Rel: rel, Reg: reg,
			WaddrAdd: waddr, WaddrMul: qpu.WNop, Imm: uint32(imm)})
	}
	prog := func(at int, br uint64, n int) []uint64 {
		w := make([]uint64, n)
		for i := range w {
			w[i] = nopWord
		}
		w[at] = br
		w[n-3] = endW
		return w
	}
	// A forward branch over one instruction: branch at 2, target 2+4+1 = 7.
	mustValidate(t, prog(2, branch(8, true, false, qpu.WNop), 12))
	mustReject(t, prog(0, branch(8, true, false, qpu.WNop), 12), "Branch at 0 during delay slots")
	mustReject(t, prog(1, branch(8, true, false, qpu.WNop), 12), "Branch at 1 during delay slots")
	mustReject(t, prog(2, branch(8, false, false, qpu.WNop), 12), "relative branching required")
	mustReject(t, prog(2, branch(8, true, true, qpu.WNop), 12), "branching from register relative")
	mustReject(t, prog(2, branch(12, true, false, qpu.WNop), 12), "branch target not aligned")
	mustReject(t, prog(2, branch(8, true, false, 3), 12), "wrote a register")
	mustReject(t, prog(2, branch(-8*7, true, false, qpu.WNop), 12), "outside of shader")
	// The fall-through (6) is past the program end (at 4).
	mustReject(t, prog(2, branch(0, true, false, qpu.WNop), 7), "Branch landed after QPU_SIG_PROG_END")
	// A branch in the program end's delay slot: the end (at 9) limits the
	// shader to 12 instructions; the branch at 10 falls through to 14.
	mustReject(t, prog(10, branch(-8*5, true, false, qpu.WNop), 12), "continues past shader end")
	// Two branches within three instructions.
	w := prog(2, branch(8, true, false, qpu.WNop), 14)
	w[4] = branch(8, true, false, qpu.WNop)
	mustReject(t, w, "Branch at 4 during delay slots")
	// Target in the program end's delay slots (end at 9, target 10):
	// stricter than the kernel, which would let it run unvalidated code.
	mustReject(t, prog(2, branch(8*4, true, false, qpu.WNop), 12), "after the program end")
	// A target inside an open TMU setup.
	tmu := prog(2, branch(0, true, false, qpu.WNop), 14) // target = fall-through = 6
	tmu[5] = rawALUOp(qpu.SigNone, qpu.WTMU0T, qpu.WNop, qpu.AddOr, qpu.RNop, qpu.RNop, qpu.MuxR0, qpu.MuxR0)
	tmu[6] = rawALUOp(qpu.SigNone, qpu.WTMU0S, qpu.WNop, qpu.AddOr, qpu.RNop, qpu.RNop, qpu.MuxR0, qpu.MuxR0)
	mustReject(t, tmu, "Branch target landed during TMU setup")
	// A branch within two instructions of a thread switch.
	ts := prog(3, branch(8, true, false, qpu.WNop), 14)
	ts[1] = rawALUOp(qpu.SigThreadSwitch, qpu.WNop, qpu.WNop, qpu.AddNop, qpu.RNop, qpu.RNop, 0, 0)
	mustReject(t, ts, "Branch in thread switch")
}

// Random words never panic the validator.
func FuzzValidateShader(f *testing.F) {
	f.Add(qpu.Bytes([]uint64{nopWord, 0x300009E7_009E7000, nopWord, nopWord}))
	f.Add(qpu.Bytes([]uint64{0xF0000000_00000008}))
	f.Fuzz(func(t *testing.T, b []byte) {
		b = b[:len(b)/8*8]
		if len(b) == 0 {
			return
		}
		sh, err := ValidateShader(b)
		if err == nil {
			for _, s := range sh.Samples {
				if s.POffset[0] >= sh.UniformsSize || s.POffset[1] >= sh.UniformsSize {
					t.Fatalf("sample parameters %v outside %d bytes of uniforms", s.POffset, sh.UniformsSize)
				}
			}
			for _, o := range sh.UniformAddrOffsets {
				if 4*o >= sh.UniformsSize {
					t.Fatalf("reset slot %d outside %d bytes of uniforms", o, sh.UniformsSize)
				}
			}
		}
	})
}
