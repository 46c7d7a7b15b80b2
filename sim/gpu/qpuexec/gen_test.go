package qpuexec

import (
	"math"
	"math/rand/v2"

	"github.com/vccube/vccube/shaders/hazard"
	"github.com/vccube/vccube/shaders/qpu"
)

// progGen makes random QPU programs for the differential test
// (step_test.go): instruction words built field by field with
// shaders/qpu's encoder (qpu.Inst.Encode), so that every field takes
// values the assembler would not produce (both ports on one FIFO, NOP ops
// with write addresses, unmapped read addresses, every pack and unpack).
//
// A strict generator keeps only programs that pass the checks a strict
// load makes (shaders/hazard, and this package's extra checks, which it
// avoids by construction): it grows the program one piece at a time —
// one instruction, or a group that only makes sense whole (a VPM read
// setup and its reads, a thread switch and its delay slots) — and keeps a
// piece only if the program with it and a program end still passes.
// A permissive generator keeps everything.
type progGen struct {
	r        *rand.Rand
	stage    hazard.Stage
	threaded bool // a threaded fragment shader: registers 0-15 only
	strict   bool
	branches bool // forward branches allowed
	// plainBranches makes every branch a compiler's: an immediate
	// target, no write, no flags.
	plainBranches bool
	nopReads      bool // operands may read the NOP address (the general code's last-value reads)
	tame          int  // percent of ALU instructions made plain: no condition, flags, pack or unpack
	// Counts of pieces tried and kept, for the test's report.
	tried, kept int
}

func (g *progGen) n(k int) int { return g.r.IntN(k) }

func (g *progGen) chance(percent int) bool { return g.r.IntN(100) < percent }

// reg returns a physical register number.
func (g *progGen) reg() uint8 {
	if g.threaded || g.chance(50) {
		return uint8(g.n(16))
	}
	return uint8(g.n(32))
}

var ioReads = []qpu.RAddr{
	qpu.RElementQPU, qpu.RPixelCoord, qpu.RMSFlagsRev, qpu.RVPMBusy, qpu.RVPMWait, qpu.RMutexAcquire,
	33, 34, 36, 37, 40, 43, 44, 45, 46, 47, 52, 53, 63, // unmapped: element or QPU number
}

func (g *progGen) raddr() qpu.RAddr {
	switch x := g.n(20); {
	case x < 10:
		return qpu.RAddr(g.reg())
	case x < 12:
		return qpu.RUniform
	case x < 14:
		if g.stage == hazard.Fragment || !g.strict {
			return qpu.RVarying
		}
		return qpu.RNop
	case x < 16:
		return qpu.RNop
	case x < 17 && !g.strict:
		return qpu.RVPM
	default:
		return ioReads[g.n(len(ioReads))]
	}
}

var ioWrites = []qpu.WAddr{
	qpu.WTMUNoSwap, qpu.WAcc5, qpu.WHostInt, qpu.WUniformsAddress, qpu.WMSFlagsRev,
	qpu.WTLBStencilSetup, qpu.WTLBZ, qpu.WTLBColourMS, qpu.WTLBColourAll, qpu.WTLBAlphaMask,
	qpu.WVPM, qpu.WVPMVCDSetup, qpu.WMutexRelease,
	qpu.WSFURecip, qpu.WSFURecipSqrt, qpu.WSFUExp, qpu.WSFULog,
	qpu.WTMU0S, qpu.WTMU0T, qpu.WTMU0R, qpu.WTMU0B, qpu.WTMU1S, qpu.WTMU1T, qpu.WTMU1R, qpu.WTMU1B,
}

func (g *progGen) waddr() qpu.WAddr {
	switch x := g.n(20); {
	case x < 6:
		return qpu.WAddr(g.reg())
	case x < 13:
		return qpu.WAcc0 + qpu.WAddr(g.n(4))
	case x < 16:
		return qpu.WNop
	case x < 17 && !g.strict:
		return []qpu.WAddr{qpu.WQuadXY, qpu.WVPMAddr}[g.n(2)]
	default:
		return ioWrites[g.n(len(ioWrites))]
	}
}

func (g *progGen) cond() qpu.Cond {
	if g.chance(60) {
		return qpu.CondAlways
	}
	return qpu.Cond(g.n(8))
}

var aluSignals = []qpu.Signal{
	qpu.SigLoadTMU0, qpu.SigLoadTMU1, qpu.SigScoreboardWait, qpu.SigScoreboardUnlock,
	qpu.SigColourLoad, qpu.SigCoverageLoad, qpu.SigAlphaMaskLoad,
	qpu.SigThreadSwitch, qpu.SigLastThreadSwitch,
}

// alu returns a random ALU instruction (sig 0-13 but program ends).
func (g *progGen) alu() qpu.Inst {
	in := qpu.Inst{Sig: qpu.SigNone}
	switch x := g.n(20); {
	case x < 4:
		in.Sig = qpu.SigSmallImm
	case x < 8:
		in.Sig = aluSignals[g.n(len(aluSignals))]
	case x < 9 && !g.strict:
		in.Sig = []qpu.Signal{qpu.SigBreakpoint, qpu.SigProgramEnd, qpu.SigColourLoadProgramEnd}[g.n(3)]
	}
	for {
		in.OpAdd = qpu.AddOp(g.n(32))
		if !in.OpAdd.Reserved() {
			break
		}
	}
	if g.chance(15) {
		in.OpAdd = qpu.AddNop
	}
	in.OpMul = qpu.MulOp(g.n(8))
	if g.chance(15) {
		in.OpMul = qpu.MulNop
	}
	in.AddA, in.AddB = qpu.Mux(g.n(8)), qpu.Mux(g.n(8))
	in.MulA, in.MulB = qpu.Mux(g.n(8)), qpu.Mux(g.n(8))
	if g.chance(20) {
		in.AddB = in.AddA // mov-like: the kernels' copy case
	}
	if g.chance(20) {
		in.MulB = in.MulA
	}
	in.RaddrA = g.raddr()
	if in.Sig == qpu.SigSmallImm {
		in.SmallImmed = qpu.SmallImm(g.n(64))
		in.RaddrB = qpu.RNop
	} else {
		in.RaddrB = g.raddr()
		if g.chance(5) {
			in.RaddrB = in.RaddrA
		}
	}
	in.WaddrAdd, in.WaddrMul = g.waddr(), g.waddr()
	in.WS = g.chance(50)
	in.CondAdd, in.CondMul = g.cond(), g.cond()
	in.SF = g.chance(25)
	if g.chance(30) {
		in.PM = g.chance(40)
		in.Pack = qpu.Pack(g.n(16))
		if in.PM && (in.Pack < qpu.PackMul8888 || in.Pack > qpu.PackMul8D) {
			in.Pack = qpu.PackMul8888 + qpu.Pack(g.n(5))
		}
		if in.PM && in.Pack >= qpu.PackMul8A && isIO(in.WaddrMul) {
			in.Pack = qpu.PackMul8888
		}
	}
	if g.chance(25) {
		in.Unpack = qpu.Unpack(1 + g.n(7))
		if g.chance(40) {
			in.PM = true
			if in.Pack != 0 && (in.Pack < qpu.PackMul8888 || in.Pack > qpu.PackMul8D) {
				in.Pack = qpu.PackMul8888
			}
		}
	}
	if g.chance(g.tame) {
		in.CondAdd, in.CondMul, in.SF, in.Pack, in.Unpack, in.PM = qpu.CondAlways, qpu.CondAlways, false, 0, 0, false
		if in.Sig == qpu.SigSmallImm && in.SmallImmed >= 48 {
			in.SmallImmed = qpu.SmallImm(g.n(48))
		}
	}
	noBytePackToIO(&in)
	if !g.nopReads {
		if in.RaddrA == qpu.RNop && in.UsesMux(qpu.MuxA) {
			in.RaddrA = qpu.RAddr(g.reg())
		}
		if in.Sig != qpu.SigSmallImm && in.RaddrB == qpu.RNop && in.UsesMux(qpu.MuxB) {
			in.RaddrB = qpu.RAddr(g.reg())
		}
	}
	return in
}

// noBytePackToIO avoids the mul ALU's byte packs to I/O registers, which
// a load refuses (program.go extraChecks).
func noBytePackToIO(in *qpu.Inst) {
	if in.PM && in.Pack >= qpu.PackMul8A && in.Pack <= qpu.PackMul8D && isIO(in.WaddrMul) {
		in.Pack = qpu.PackMul8888
	}
}

// loadImm returns a random load immediate or semaphore.
func (g *progGen) loadImm() qpu.Inst {
	in := qpu.Inst{Sig: qpu.SigLoadImm, RaddrA: qpu.RNop, RaddrB: qpu.RNop}
	in.LoadMode = []qpu.LoadMode{qpu.LoadImm32, qpu.LoadImm32, qpu.LoadImmPerElSigned, qpu.LoadImmPerElUnsign}[g.n(4)]
	in.Imm = g.word()
	if g.chance(10) && g.stage != hazard.Fragment {
		in.LoadMode = qpu.LoadSemaphore
		in.Semaphore = uint8(g.n(16))
		in.SA = g.chance(50)
		in.Imm = uint32(in.Semaphore)
		if in.SA {
			in.Imm |= 16
		}
	}
	in.WaddrAdd, in.WaddrMul = g.waddr(), g.waddr()
	in.WS = g.chance(50)
	in.CondAdd, in.CondMul = g.cond(), g.cond()
	in.SF = g.chance(25)
	if g.chance(20) {
		in.PM = g.chance(40)
		in.Pack = qpu.Pack(g.n(16))
		if in.PM && (in.Pack < qpu.PackMul8888 || in.Pack > qpu.PackMul8D) {
			in.Pack = qpu.PackMul8888
		}
	}
	noBytePackToIO(&in)
	return in
}

// branch returns a branch to an instruction ahead of at (forward only, so
// that programs end), or a register branch whose target comes from ra.
func (g *progGen) branch(at int) qpu.Inst {
	in := qpu.Inst{Sig: qpu.SigBranch, RaddrB: qpu.RNop}
	in.CondBr = qpu.BranchCond(g.n(12))
	if g.chance(25) {
		in.CondBr = qpu.BranchAlways
	}
	in.Rel = true
	in.Imm = uint32(8 * g.n(6)) // 0-5 instructions past the link address
	if g.chance(10) {
		in.Reg = true
		in.RaddrA = qpu.RAddr(g.reg())
	}
	if g.chance(5) {
		// Backwards, before the program's start: an error. (Loops would
		// be allowed, but a random loop may run until MaxInstructions.)
		in.Imm = uint32(int32(-8 * (at + 5 + g.n(4))))
	}
	in.WaddrAdd, in.WaddrMul = g.waddr(), g.waddr()
	in.WS = g.chance(50)
	if g.chance(20) {
		in.RaddrA |= 1 // odd raddr_a: the branch sets flags (vc4asm addendum)
	}
	if g.plainBranches {
		in.Reg, in.RaddrA = false, 0
		in.WaddrAdd, in.WaddrMul = qpu.WNop, qpu.WNop
	}
	return in
}

// word returns a random operand-like word: small integers, floats of
// every kind, colours, or any bits.
func (g *progGen) word() uint32 {
	switch g.n(8) {
	case 0:
		return uint32(g.n(64)) - 16
	case 1:
		return math.Float32bits(float32(g.r.NormFloat64() * 4))
	case 2:
		return specialWords[g.n(len(specialWords))]
	case 3:
		return uint32(g.n(256)) * 0x01010101
	case 4:
		return math.Float32bits(float32(g.r.Float64()))
	}
	return g.r.Uint32()
}

var specialWords = []uint32{
	0, signBit, 1, 0x807fffff, posInf, negInf, 0x7fc00000, 0xff800001, 0x7f7fffff, 0x00800000,
	0x3f800000, 0xbf800000, 0x7fffffff, 0x80000001, 0xffffffff, 0x4effffff, 0x70000000, 0x0f800000,
}

// vpmReadGroup is a VPM read setup (generic, horizontal or vertical, any
// size) for n vectors, two instructions, then the n reads.
func (g *progGen) vpmReadGroup() []qpu.Inst {
	n := 1 + g.n(3)
	s := qpu.VPMSetup{Num: n, Stride: 1 + g.n(3), Horizontal: g.chance(70), Laned: g.chance(30),
		Size: []qpu.VPMSize{qpu.VPMSize8, qpu.VPMSize16, qpu.VPMSize32, qpu.VPMSize32}[g.n(4)], Addr: uint8(g.n(256))}
	w, err := s.EncodeRead()
	if err != nil {
		panic(err)
	}
	setup := qpu.Inst{Sig: qpu.SigLoadImm, LoadMode: qpu.LoadImm32, Imm: w, RaddrA: qpu.RNop, RaddrB: qpu.RNop,
		WaddrAdd: qpu.WVPMVCDSetup, WaddrMul: qpu.WNop, CondAdd: qpu.CondAlways}
	out := []qpu.Inst{setup, g.quiet(), g.quiet()}
	for i := 0; i < n; i++ {
		in := g.quiet()
		if g.chance(50) {
			in.RaddrA = qpu.RVPM
			in.AddA = qpu.MuxA
		} else {
			in.RaddrB = qpu.RVPM
			if in.Sig == qpu.SigSmallImm {
				in.Sig = qpu.SigNone
			}
			in.MulB = qpu.MuxB
		}
		out = append(out, in)
	}
	return out
}

// vpmWriteGroup is a VPM write setup and one to three writes.
func (g *progGen) vpmWriteGroup() []qpu.Inst {
	s := qpu.VPMSetup{Stride: 1 + g.n(3), Horizontal: g.chance(70), Laned: g.chance(30),
		Size: []qpu.VPMSize{qpu.VPMSize8, qpu.VPMSize16, qpu.VPMSize32, qpu.VPMSize32}[g.n(4)], Addr: uint8(g.n(256))}
	w, err := s.EncodeWrite()
	if err != nil {
		panic(err)
	}
	setup := qpu.Inst{Sig: qpu.SigLoadImm, LoadMode: qpu.LoadImm32, Imm: w, RaddrA: qpu.RNop, RaddrB: qpu.RNop,
		WaddrAdd: qpu.WVPMVCDSetup, WS: true, WaddrMul: qpu.WNop, CondAdd: qpu.CondAlways}
	out := []qpu.Inst{setup}
	for i := 0; i <= g.n(3); i++ {
		in := g.quiet()
		in.WaddrAdd, in.CondAdd, in.Pack = qpu.WVPM, qpu.CondAlways, 0
		out = append(out, in)
	}
	return out
}

// quiet returns an ALU instruction with no signal and no FIFO or I/O
// access: filler for the groups.
func (g *progGen) quiet() qpu.Inst {
	in := g.alu()
	if in.Sig != qpu.SigSmallImm {
		in.Sig = qpu.SigNone
	}
	fix := func(r qpu.RAddr) qpu.RAddr {
		if r >= 32 && (r != qpu.RNop || !g.nopReads) {
			return qpu.RAddr(g.reg())
		}
		return r
	}
	in.RaddrA, in.RaddrB = fix(in.RaddrA), fix(in.RaddrB)
	if in.Sig == qpu.SigSmallImm {
		in.RaddrB = qpu.RNop
	}
	if !in.WaddrAdd.IsPhysical() && in.WaddrAdd != qpu.WNop && (in.WaddrAdd < qpu.WAcc0 || in.WaddrAdd > qpu.WAcc3) {
		in.WaddrAdd = qpu.WAcc0
	}
	if !in.WaddrMul.IsPhysical() && in.WaddrMul != qpu.WNop && (in.WaddrMul < qpu.WAcc0 || in.WaddrMul > qpu.WAcc3) {
		in.WaddrMul = qpu.WAcc1
	}
	return in
}

// threadSwitchGroup is a thread switch and its two delay slots.
func (g *progGen) threadSwitchGroup() []qpu.Inst {
	sw := g.quiet()
	sw.Sig = qpu.SigThreadSwitch
	if g.chance(30) {
		sw.Sig = qpu.SigLastThreadSwitch
	}
	return []qpu.Inst{sw, g.quiet(), g.quiet()}
}

// piece returns the next candidate piece of a program being built.
func (g *progGen) piece(at int) []qpu.Inst {
	switch x := g.n(40); {
	case x < 3 && g.stage != hazard.Fragment:
		return g.vpmReadGroup()
	case x < 5 && g.stage != hazard.Fragment:
		return g.vpmWriteGroup()
	case x < 6 && g.threaded:
		return g.threadSwitchGroup()
	case x < 9 && g.branches:
		return []qpu.Inst{g.branch(at)}
	case x < 13:
		return []qpu.Inst{g.loadImm()}
	case x < 22:
		return []qpu.Inst{g.quiet()}
	}
	return []qpu.Inst{g.alu()}
}

// ending returns a program end (sig 3 on a random instruction without
// FIFO reads or register writes, or sig 9) and two delay slots.
func (g *progGen) ending() []qpu.Inst {
	end := g.quiet()
	end.Sig = qpu.SigProgramEnd
	if g.stage == hazard.Fragment && g.chance(20) {
		end.Sig = qpu.SigColourLoadProgramEnd
	}
	noReg := func(in *qpu.Inst) {
		if in.WaddrAdd.IsPhysical() {
			in.WaddrAdd = qpu.WAcc2
		}
		if in.WaddrMul.IsPhysical() {
			in.WaddrMul = qpu.WAcc3
		}
		if in.RaddrA == 14 {
			in.RaddrA = 13
		}
		if in.RaddrB == 14 {
			in.RaddrB = 13
		}
	}
	noReg(&end)
	s1, s2 := g.quiet(), g.quiet()
	noReg(&s1)
	noReg(&s2)
	if g.chance(50) {
		s2.Sig = qpu.SigScoreboardUnlock
	}
	if g.chance(30) {
		return []qpu.Inst{end, nopInst(), nopInst()}
	}
	return []qpu.Inst{end, s1, s2}
}

// program returns a random program's words.
func (g *progGen) program(size int) []uint64 {
	var body []qpu.Inst
	var buf []qpu.Inst
	ok := func(p []qpu.Inst) bool {
		return len(hazard.Check(p, g.stage)) == 0
	}
	end := g.ending()
	if g.strict {
		for tries := 0; !ok(end) && tries < 100; tries++ {
			end = g.ending()
		}
		if !ok(end) {
			end = []qpu.Inst{{Sig: qpu.SigProgramEnd, WaddrAdd: qpu.WNop, WaddrMul: qpu.WNop, RaddrA: qpu.RNop, RaddrB: qpu.RNop}, nopInst(), nopInst()}
		}
	}
	for tries := 0; len(body) < size && tries < 20*size; tries++ {
		p := g.piece(len(body))
		g.tried++
		if g.strict {
			buf = append(append(append(buf[:0], body...), p...), end...)
			if !ok(buf) {
				continue
			}
		}
		g.kept++
		body = append(body, p...)
	}
	prog := append(body, end...)
	words := make([]uint64, len(prog))
	for i := range prog {
		words[i] = prog[i].Encode()
	}
	return words
}
