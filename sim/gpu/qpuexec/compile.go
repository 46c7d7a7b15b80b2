package qpuexec

import (
	"errors"
	"fmt"

	"github.com/vccube/vccube/shaders/qpu"
)

// inst is one instruction in the form the interpreter runs: every decision
// that depends only on the instruction word (which port reads what, which
// operand comes from where, what each write address means for this write
// file, which pack applies to which ALU) is made once, when the program is
// loaded.
type inst struct {
	kind uint8      // kALU, kLoadImm, kSemaphore, kBranch
	sig  qpu.Signal // ALU kinds: the signal

	// Read ports (ALU kinds; a register branch reads port A).
	rdA, rdB   uint8 // rd* source of each port
	regA, regB uint8 // physical register for rdPhys
	sameFIFO   bool  // both ports read the same FIFO: one pop (doc/hardware.md#machine)
	vec        int32 // index in Program.vecs: small immediate or per-element load immediate, else -1

	unpack      qpu.Unpack
	unpackA     bool // pm = 0: unpack the port A value
	unpackFloat bool // ... in its float form
	unpackR4    bool // pm = 1: unpack r4 operands

	opAdd                  qpu.AddOp
	opMul                  qpu.MulOp
	addA, addB, mulA, mulB uint8 // input muxes 0-7
	condAdd, condMul       qpu.Cond
	sf                     bool
	flagsMul               bool // flags come from the mul result (op_add is NOP)

	rot     uint8 // mul output rotation 1-15, rotByR5, or 0
	rotFull bool  // full 16-element rotation (both mul operands from r0-r3)

	wAdd, wMul         wtarget
	pack               qpu.Pack
	packAdd, packMul   uint8 // packNone, packRegA or packColour
	addFloat, mulFloat bool  // the ALU's result is a float (for the 16-bit packs)
	flagsForPack       bool  // add/sub result packed: the pack needs its flags

	ldMode qpu.LoadMode
	imm    uint32 // load immediate / semaphore word; branch immediate

	semN   uint8
	semAcq bool

	brCond  qpu.BranchCond
	brRel   bool
	brReg   bool
	brRaddr uint8
	brSF    bool // odd raddr_a: the branch sets flags (vc4asm addendum)
}

// Instruction kinds.
const (
	kALU = iota
	kLoadImm
	kSemaphore
	kBranch
)

// Read port sources.
const (
	rdNone    = iota // NOP (39) or a physical register no operand uses
	rdPhys           // physical register regA/regB of the port's file
	rdUniform        // UNIFORM_READ (32)
	rdVarying        // VARYING_READ (35)
	rdElem           // ELEMENT_NUMBER (38 A), and unmapped A addresses
	rdQPUNum         // QPU_NUMBER (38 B), and unmapped B addresses
	rdXCoord         // X_PIXEL_COORD (41 A)
	rdYCoord         // Y_PIXEL_COORD (41 B)
	rdMSFlags        // MS_FLAGS (42 A)
	rdRevFlag        // REV_FLAG (42 B)
	rdVPM            // VPM_READ (48)
	rdZero           // VPM_LD/ST_BUSY, VPM_LD/ST_WAIT (49, 50): no DMA is ever in flight
	rdMutexA         // MUTEX_ACQUIRE (51) through A: reads the element number
	rdMutexB         // ... through B: reads the QPU number
	rdImm            // port B under sig 13: the small immediate
	rdLast           // NOP read used by an operand: the last values read through the port
)

// rotByR5 marks a rotation by r5 element 0 bits 3:0.
const rotByR5 = 16

// Write targets.
const (
	wNone = iota
	wPhysA
	wPhysB
	wAcc // r0-r3, n = 0..3
	wR5Quad
	wR5Rep
	wTMU // n = write address − TMU0_S: unit·tmuRegs + TMUReg
	wTLB // n = TLBReg
	wSFU // n = sfu function
	wVPM
	wVPMReadSetup
	wVPMWriteSetup
	wVPMDMA // VPM_LD_ADDR / VPM_ST_ADDR: not modelled
	wUnifAddr
	wHostInt
	wNoSwap
	wMSFlags
	wRevFlag
	wQuadXY // QUAD_X / QUAD_Y: not modelled
	wMutexRelease
)

type wtarget struct {
	kind uint8
	n    uint8
}

// Packs per ALU.
const (
	packNone = iota
	packRegA
	packColour
)

var errReserved = errors.New("reserved encoding: the guide does not define it")

// target resolves a write address for write file f (AG Table 14).
func target(w qpu.WAddr, f qpu.RegFile) wtarget {
	switch {
	case w < 32:
		if f == qpu.FileA {
			return wtarget{wPhysA, uint8(w)}
		}
		return wtarget{wPhysB, uint8(w)}
	case w >= qpu.WAcc0 && w <= qpu.WAcc3:
		return wtarget{wAcc, uint8(w - qpu.WAcc0)}
	case w.IsTMU():
		return wtarget{wTMU, uint8(w - qpu.WTMU0S)}
	case w.IsSFU():
		return wtarget{wSFU, uint8(w - qpu.WSFURecip)}
	case w == qpu.WTLBStencilSetup || w.IsTLB():
		return wtarget{wTLB, uint8(w)}
	}
	fileAB := func(a, b uint8) wtarget {
		if f == qpu.FileA {
			return wtarget{a, 0}
		}
		return wtarget{b, 0}
	}
	switch w {
	case qpu.WTMUNoSwap:
		return wtarget{wNoSwap, 0}
	case qpu.WAcc5:
		return fileAB(wR5Quad, wR5Rep)
	case qpu.WHostInt:
		return wtarget{wHostInt, 0}
	case qpu.WUniformsAddress:
		return wtarget{wUnifAddr, 0}
	case qpu.WQuadXY:
		return wtarget{wQuadXY, 0}
	case qpu.WMSFlagsRev:
		return fileAB(wMSFlags, wRevFlag)
	case qpu.WVPM:
		return wtarget{wVPM, 0}
	case qpu.WVPMVCDSetup:
		return fileAB(wVPMReadSetup, wVPMWriteSetup)
	case qpu.WVPMAddr:
		return wtarget{wVPMDMA, 0}
	case qpu.WMutexRelease:
		return wtarget{wMutexRelease, 0}
	}
	return wtarget{wNone, 0} // WNop
}

// readSource resolves a read address for port f (AG Table 14, and the
// unmapped I/O addresses reading the element or QPU number, AG §3
// "Inter-Processor Mutex").
func readSource(r qpu.RAddr, f qpu.RegFile) (uint8, uint8) {
	if r < 32 {
		return rdPhys, uint8(r)
	}
	ab := func(a, b uint8) uint8 {
		if f == qpu.FileA {
			return a
		}
		return b
	}
	switch r {
	case qpu.RUniform:
		return rdUniform, 0
	case qpu.RVarying:
		return rdVarying, 0
	case qpu.RNop:
		return rdNone, 0
	case qpu.RPixelCoord:
		return ab(rdXCoord, rdYCoord), 0
	case qpu.RMSFlagsRev:
		return ab(rdMSFlags, rdRevFlag), 0
	case qpu.RVPM:
		return rdVPM, 0
	case qpu.RVPMBusy, qpu.RVPMWait:
		return rdZero, 0
	case qpu.RMutexAcquire:
		return ab(rdMutexA, rdMutexB), 0
	}
	return ab(rdElem, rdQPUNum), 0 // 38, and the unmapped addresses
}

func isFIFO(rd uint8) bool { return rd == rdUniform || rd == rdVarying || rd == rdVPM }

// compile builds code[i] from Insts[i].
func (p *Program) compile(i int) error {
	in := &p.Insts[i]
	c := &p.code[i]
	*c = inst{vec: -1, sig: in.Sig}
	switch in.Kind() {
	case qpu.KindBranch:
		c.kind = kBranch
		if in.CondBr >= 12 && in.CondBr <= 14 {
			return fmt.Errorf("branch condition %d: %w", in.CondBr, errReserved)
		}
		c.brCond, c.brRel, c.brReg = in.CondBr, in.Rel, in.Reg
		c.brRaddr = uint8(in.RaddrA & 31)
		c.brSF = in.SetsFlags()
		c.imm = in.Imm
		c.wAdd = target(in.WaddrAdd, in.AddFile())
		c.wMul = target(in.WaddrMul, in.MulFile())
		return nil
	case qpu.KindLoadImm, qpu.KindSemaphore:
		c.kind = kLoadImm
		if in.Kind() == qpu.KindSemaphore {
			c.kind = kSemaphore
			c.semN, c.semAcq = in.Semaphore, in.SA
		} else if in.LoadMode.Reserved() {
			return fmt.Errorf("load immediate mode %d: %w", in.LoadMode, errReserved)
		}
		c.ldMode, c.imm = in.LoadMode, in.Imm
		if v, ok := in.PerElementValues(); ok {
			var x vec
			for e := range x {
				x[e] = uint32(int32(v[e]))
			}
			c.vec = int32(len(p.vecs))
			p.vecs = append(p.vecs, x)
		}
		c.condAdd, c.condMul, c.sf = in.CondAdd, in.CondMul, in.SF
		// The immediate goes through both ALUs as an integer "add" (AG
		// Figure 2 note: "In LDI mode, set both ALU operand A to
		// immediate, operand B to 0, and opcode to ADD"): flags come from
		// the add side, packs treat it as an integer.
		c.opAdd = qpu.AddAdd
		return p.compileWrites(in, c)
	}

	// ALU and ALU with small immediate.
	c.kind = kALU
	if in.OpAdd.Reserved() {
		return fmt.Errorf("add opcode %d: %w", in.OpAdd, errReserved)
	}
	c.opAdd, c.opMul = in.OpAdd, in.OpMul
	c.addA, c.addB, c.mulA, c.mulB = uint8(in.AddA), uint8(in.AddB), uint8(in.MulA), uint8(in.MulB)
	c.condAdd, c.condMul, c.sf = in.CondAdd, in.CondMul, in.SF
	c.flagsMul = in.FlagsFromMul()
	usesA, usesB := in.UsesMux(qpu.MuxA), in.UsesMux(qpu.MuxB)

	c.rdA, c.regA = readSource(in.RaddrA, qpu.FileA)
	if c.rdA == rdPhys && !usesA {
		c.rdA = rdNone // reading a register has no side effect
	}
	if c.rdA == rdNone && usesA && in.RaddrA == qpu.RNop {
		c.rdA = rdLast
	}
	if in.Sig == qpu.SigSmallImm {
		v, ok := in.SmallImmed.Value()
		if !ok {
			// A rotation code also supplies -16..-1 to a B operand (vc4asm
			// addendum, "Small immediate values": 48 reads 0xfffffff0 ...
			// 63 reads 0xffffffff).
			v = uint32(int32(in.SmallImmed) - 64)
			n, byR5 := in.SmallImmed.Rotation()
			if byR5 {
				c.rot = rotByR5
			} else {
				c.rot = uint8(n)
			}
			// Full rotation needs both mul operands from r0-r3 (AG §3
			// "Horizontal Vector Rotation"); otherwise only the write is
			// rotated, within each quad, by the low two bits of the
			// amount (vc4asm addendum, "Horizontal vector rotation").
			c.rotFull = in.MulA <= qpu.MuxR3 && in.MulB <= qpu.MuxR3
			if in.OpMul == qpu.MulNop {
				c.rot = 0
			}
		}
		var x vec
		for e := range x {
			x[e] = v
		}
		c.vec = int32(len(p.vecs))
		p.vecs = append(p.vecs, x)
		c.rdB = rdImm
	} else {
		c.rdB, c.regB = readSource(in.RaddrB, qpu.FileB)
		if c.rdB == rdPhys && !usesB {
			c.rdB = rdNone
		}
		if c.rdB == rdNone && usesB && in.RaddrB == qpu.RNop {
			c.rdB = rdLast
		}
	}
	c.sameFIFO = isFIFO(c.rdA) && c.rdA == c.rdB

	if in.Unpack != qpu.UnpackNone {
		c.unpack = in.Unpack
		if in.PM {
			c.unpackR4 = in.UsesMux(qpu.MuxR4)
		} else if usesA {
			c.unpackA = true
			// "Float16→float32 if any ALU consuming data executes float
			// instruction" (AG Table 6).
			c.unpackFloat = (in.AddUsed() && in.OpAdd.IsFloat() && (in.AddA == qpu.MuxA || in.AddB == qpu.MuxA)) ||
				(in.MulUsed() && in.OpMul.IsFloat() && (in.MulA == qpu.MuxA || in.MulB == qpu.MuxA))
		}
	}
	return p.compileWrites(in, c)
}

// compileWrites resolves the write targets and the pack of ALU, load
// immediate and semaphore instructions.
func (p *Program) compileWrites(in *qpu.Inst, c *inst) error {
	c.wAdd = target(in.WaddrAdd, in.AddFile())
	c.wMul = target(in.WaddrMul, in.MulFile())
	if in.Sig != qpu.SigLoadImm {
		c.addFloat = resultIsFloatAdd(in.OpAdd)
		c.mulFloat = in.OpMul == qpu.MulFMul
	}
	if in.Pack == 0 {
		return nil
	}
	c.pack = in.Pack
	if in.PM {
		// Mul ALU colour pack, any destination (AG Table 9).
		switch in.Pack {
		case qpu.PackMul8888, qpu.PackMul8A, qpu.PackMul8B, qpu.PackMul8C, qpu.PackMul8D:
		default:
			return fmt.Errorf("mul pack %d: %w", in.Pack, errReserved)
		}
		c.packMul = packColour
		return nil
	}
	// The regfile-A pack acts on the write into a physical register of
	// file A (AG §3 "Pack and Unpack": "Repacking of data is also
	// supported on write-back to register file A"; accumulators "have no
	// pack/unpack functionality"). Writes elsewhere are not packed.
	if c.wAdd.kind == wPhysA {
		c.packAdd = packRegA
		c.flagsForPack = in.Sig != qpu.SigLoadImm && (in.OpAdd == qpu.AddAdd || in.OpAdd == qpu.AddSub)
	}
	if c.wMul.kind == wPhysA {
		c.packMul = packRegA
	}
	return nil
}
