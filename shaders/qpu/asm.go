package qpu

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The assembler. A program is written one instruction per call, reading
// like a listing:
//
//	var a qpu.Asm
//	a.I(qpu.FMul(qpu.R0, qpu.RA(15), qpu.Vary))                          // nop ; fmul r0, ra15, vary
//	a.I(qpu.FAdd(qpu.R0, qpu.R0, qpu.R5), qpu.FMul(qpu.R1, qpu.RA(15), qpu.Vary))
//	a.I(qpu.FAdd(qpu.TMU0T, qpu.R1, qpu.R5))
//	a.I(qpu.Mov(qpu.TMU0S, qpu.R0))
//	a.I(qpu.SigLoadTMU0)                                                  // nop ; nop ; ldtmu0
//	a.I(qpu.Mov(qpu.TLBColourAll, qpu.R4), qpu.SigProgramEnd)
//	a.I()
//	a.I(qpu.SigScoreboardUnlock)
//	words, err := a.Assemble()
//
// Each I call takes at most one add-ALU op (FAdd, Mov, ...), one mul-ALU op
// (FMul, MMov, ...) and one signal, or one load immediate, semaphore or
// branch. The assembler chooses raddr_a/raddr_b, the input muxes, ws, pm
// and sig (13 for small immediates and rotations), and reports what cannot
// be encoded (two different regfile-A reads, two destinations needing
// opposite ws, a signal with a small immediate, ...) with the instruction's
// index. Missing ALU ops assemble as the canonical NOP half (op 0, waddr
// 39, cond never); unused read addresses are 39 (Mesa's qpu_NOP,
// vc4_qpu.c qpu_NOP).

// Reg is an operand: an accumulator, a register-file location (physical
// register or I/O), or a small immediate. Some are only sources (R4, Unif),
// some only destinations (TMU0S, VWSetup).
type Reg struct {
	name  string
	acc   int8 // 0-5 for r0-r5 read through muxes 0-5, else -1
	file  fileSel
	raddr RAddr
	waddr WAddr
	read  bool
	write bool
	imm   SmallImm
	isImm bool
	bad   string // why the operand cannot be encoded

	unpack    Unpack
	pack      Pack
	colour    bool // pack is the pm=1 mul colour pack
	hasUnpack bool
	hasPack   bool
}

type fileSel uint8

const (
	fileNone fileSel = iota // accumulator or immediate
	fileAny                 // I/O with the same meaning in both files
	fileOnlyA
	fileOnlyB
)

// String returns the operand as the listing names it.
func (r Reg) String() string { return r.name }

func accReg(n int8, name string, write bool) Reg {
	return Reg{name: name, acc: n, read: true, write: write, waddr: WAcc0 + WAddr(n)}
}

func ioReg(name string, f fileSel, ra RAddr, wa WAddr, read, write bool) Reg {
	return Reg{name: name, acc: -1, file: f, raddr: ra, waddr: wa, read: read, write: write}
}

// Accumulators. R0-R3 are general; R4 (SFU/TMU/TLB results) and R5
// (varying C) can only be read; write r5 through R5Quad or R5Rep.
var (
	R0 = accReg(0, "r0", true)
	R1 = accReg(1, "r1", true)
	R2 = accReg(2, "r2", true)
	R3 = accReg(3, "r3", true)
	R4 = accReg(4, "r4", false)
	R5 = accReg(5, "r5", false)
)

// I/O locations (AG Table 14). Names follow the listing.
var (
	// Null is the NOP address: a destination that discards the result
	// (e.g. for a flags-only op) — "-" in vc4asm, "nop" in the listing.
	Null = ioReg("nop", fileAny, RNop, WNop, false, true)

	R5Quad = ioReg("r5quad", fileOnlyA, 0, WAcc5, false, true) // r5, element 0 of each quad replicated
	R5Rep  = ioReg("r5rep", fileOnlyB, 0, WAcc5, false, true)  // r5, element 0 replicated to all

	Unif    = ioReg("unif", fileAny, RUniform, 0, true, false) // UNIFORM_READ
	Vary    = ioReg("vary", fileAny, RVarying, 0, true, false) // VARYING_READ (C to r5)
	VPM     = ioReg("vpm", fileAny, RVPM, WVPM, true, true)    // VPM_READ / VPM_WRITE
	ElemNum = ioReg("elem_num", fileOnlyA, RElementQPU, 0, true, false)
	QPUNum  = ioReg("qpu_num", fileOnlyB, RElementQPU, 0, true, false)
	XCoord  = ioReg("x_coord", fileOnlyA, RPixelCoord, 0, true, false)
	YCoord  = ioReg("y_coord", fileOnlyB, RPixelCoord, 0, true, false)
	MSFlags = ioReg("ms_flags", fileOnlyA, RMSFlagsRev, WMSFlagsRev, true, true)
	RevFlag = ioReg("rev_flag", fileOnlyB, RMSFlagsRev, WMSFlagsRev, true, true)
	Mutex   = ioReg("mutex", fileAny, RMutexAcquire, WMutexRelease, true, true)

	VPMLdBusy = ioReg("vpm_ld_busy", fileOnlyA, RVPMBusy, 0, true, false)
	VPMStBusy = ioReg("vpm_st_busy", fileOnlyB, RVPMBusy, 0, true, false)
	VPMLdWait = ioReg("vpm_ld_wait", fileOnlyA, RVPMWait, 0, true, false)
	VPMStWait = ioReg("vpm_st_wait", fileOnlyB, RVPMWait, 0, true, false)
	VRSetup   = ioReg("vr_setup", fileOnlyA, 0, WVPMVCDSetup, false, true) // VPMVCD_RD_SETUP
	VWSetup   = ioReg("vw_setup", fileOnlyB, 0, WVPMVCDSetup, false, true) // VPMVCD_WR_SETUP
	VRAddr    = ioReg("vr_addr", fileOnlyA, 0, WVPMAddr, false, true)
	VWAddr    = ioReg("vw_addr", fileOnlyB, 0, WVPMAddr, false, true)
	QuadX     = ioReg("quad_x", fileOnlyA, 0, WQuadXY, false, true)
	QuadY     = ioReg("quad_y", fileOnlyB, 0, WQuadXY, false, true)

	TMUNoSwap       = ioReg("tmu_noswap", fileAny, 0, WTMUNoSwap, false, true)
	HostInt         = ioReg("host_int", fileAny, 0, WHostInt, false, true)
	UnifAddr        = ioReg("unif_addr", fileAny, 0, WUniformsAddress, false, true)
	TLBStencilSetup = ioReg("tlb_stencil_setup", fileAny, 0, WTLBStencilSetup, false, true)
	TLBZ            = ioReg("tlb_z", fileAny, 0, WTLBZ, false, true)
	TLBColourMS     = ioReg("tlb_colour_ms", fileAny, 0, WTLBColourMS, false, true)
	TLBColourAll    = ioReg("tlb_colour_all", fileAny, 0, WTLBColourAll, false, true)
	TLBAlphaMask    = ioReg("tlb_alpha_mask", fileAny, 0, WTLBAlphaMask, false, true)
	SFURecip        = ioReg("sfu_recip", fileAny, 0, WSFURecip, false, true)
	SFURecipSqrt    = ioReg("sfu_recipsqrt", fileAny, 0, WSFURecipSqrt, false, true)
	SFUExp          = ioReg("sfu_exp", fileAny, 0, WSFUExp, false, true)
	SFULog          = ioReg("sfu_log", fileAny, 0, WSFULog, false, true)
	TMU0S           = ioReg("tmu0_s", fileAny, 0, WTMU0S, false, true)
	TMU0T           = ioReg("tmu0_t", fileAny, 0, WTMU0T, false, true)
	TMU0R           = ioReg("tmu0_r", fileAny, 0, WTMU0R, false, true)
	TMU0B           = ioReg("tmu0_b", fileAny, 0, WTMU0B, false, true)
	TMU1S           = ioReg("tmu1_s", fileAny, 0, WTMU1S, false, true)
	TMU1T           = ioReg("tmu1_t", fileAny, 0, WTMU1T, false, true)
	TMU1R           = ioReg("tmu1_r", fileAny, 0, WTMU1R, false, true)
	TMU1B           = ioReg("tmu1_b", fileAny, 0, WTMU1B, false, true)
)

// RA is physical register n (0-31) of register file A.
func RA(n int) Reg { return physReg(fileOnlyA, n) }

// RB is physical register n (0-31) of register file B.
func RB(n int) Reg { return physReg(fileOnlyB, n) }

func physReg(f fileSel, n int) Reg {
	name := "ra"
	if f == fileOnlyB {
		name = "rb"
	}
	r := ioReg(name+strconv.Itoa(n), f, RAddr(n), WAddr(n), true, true)
	if n < 0 || n > 31 {
		r.bad = fmt.Sprintf("%s: register files have registers 0-31", r.name)
	}
	return r
}

// SmallInt is the small immediate for an integer -16..15 (AG Table 5).
func SmallInt(v int) Reg {
	r := Reg{name: strconv.Itoa(v), acc: -1, read: true, isImm: true}
	switch {
	case v >= 0 && v <= 15:
		r.imm = SmallImm(v)
	case v >= -16 && v < 0:
		r.imm = SmallImm(v + 32)
	default:
		r.bad = fmt.Sprintf("%d is not a small immediate (integers -16..15); load it with LoadImm", v)
	}
	return r
}

// SmallFloat is the small immediate for a power of two 1/256..128 (AG
// Table 5).
func SmallFloat(f float32) Reg {
	r := Reg{name: formatFloat(f), acc: -1, read: true, isImm: true}
	for s := SmallImm(32); s <= 47; s++ {
		if v, _ := s.Value(); v == math.Float32bits(f) {
			r.imm = s
			return r
		}
	}
	r.bad = fmt.Sprintf("%v is not a small immediate (powers of two 1/256..128); load it with LoadImm", f)
	return r
}

// Unpack returns the operand read through an unpack: for a file-A source
// the regfile-A unpack (pm = 0, AG Table 6), for R4 the r4 unpack (pm = 1,
// AG Table 8). The unpack applies to every operand of the instruction read
// from the same place.
func (r Reg) Unpack(u Unpack) Reg {
	r.unpack, r.hasUnpack = u, true
	r.name += "." + u.String()
	return r
}

// Pack returns the destination written through the regfile-A pack (pm = 0,
// AG Table 7); the destination must be a physical register of file A.
func (r Reg) Pack(p Pack) Reg {
	r.pack, r.hasPack, r.colour = p, true, false
	r.name += "." + p.Name(false)
	return r
}

// ColourPack returns the destination written through the mul-ALU
// float-to-colour conversion (pm = 1, AG Table 9): PackMul8888 or
// PackMul8A..PackMul8D. Only a mul op's destination can have it.
func (r Reg) ColourPack(p Pack) Reg {
	r.pack, r.hasPack, r.colour = p, true, true
	r.name += "." + p.Name(true)
	return r
}

// Item is one part of an instruction given to Asm.I: an ALU op (Op), a
// Signal, a load immediate or semaphore (LoadImmItem), or a branch
// (BranchItem).
type Item interface{ item() }

func (Signal) item()      {}
func (Op) item()          {}
func (LoadImmItem) item() {}
func (BranchItem) item()  {}

// Op is one ALU operation: an add-ALU op or a mul-ALU op with its
// destination, operands, condition, set-flags and (mul) rotation.
type Op struct {
	mul     bool
	addOp   AddOp
	mulOp   MulOp
	dst     Reg
	a, b    Reg
	cond    Cond
	sf      bool
	rot     SmallImm // 0: none; 48: by r5; 49-63: by 1-15
	hasCond bool
}

// If returns the op with write condition c (default always).
func (o Op) If(c Cond) Op { o.cond, o.hasCond = c, true; return o }

// SetFlags returns the op with sf set: the flags are updated from this op's
// result. On a mul op this needs the add ALU to be idle (AG Table 1).
func (o Op) SetFlags() Op { o.sf = true; return o }

// Rot returns the mul op with its result vector rotated upwards by n
// elements, 1..15 (small immediate 48+n, AG Table 5). A full rotation needs
// both operands in r0-r3 (AG §3 "Horizontal Vector Rotation").
func (o Op) Rot(n int) Op {
	if n < 1 || n > 15 {
		o.dst.bad = fmt.Sprintf("rotation by %d: rotations are 1..15, or RotR5", n)
	}
	o.rot = SmallImm(48 + n)
	return o
}

// RotR5 returns the mul op rotated by r5 element 0 bits 3:0 (small
// immediate 48).
func (o Op) RotR5() Op { o.rot = SmallImmRotateR5; return o }

// String returns the op as the listing would show it.
func (o Op) String() string {
	name := o.addOp.String()
	if o.mul {
		name = o.mulOp.String()
	}
	return name + " " + o.dst.name + ", " + o.a.name + ", " + o.b.name
}

func addOp(op AddOp, dst, a, b Reg) Op { return Op{addOp: op, dst: dst, a: a, b: b} }
func mulOp(op MulOp, dst, a, b Reg) Op { return Op{mul: true, mulOp: op, dst: dst, a: a, b: b} }

// Add-ALU operations (AG Table 12). Unary ones put their operand in both
// input slots, as Mesa does.

// FAdd is the float add a + b.
func FAdd(dst, a, b Reg) Op { return addOp(AddFAdd, dst, a, b) }

// FSub is the float subtract a − b.
func FSub(dst, a, b Reg) Op { return addOp(AddFSub, dst, a, b) }

// FMin is the float minimum.
func FMin(dst, a, b Reg) Op { return addOp(AddFMin, dst, a, b) }

// FMax is the float maximum (Mesa's float move is fmax x, x).
func FMax(dst, a, b Reg) Op { return addOp(AddFMax, dst, a, b) }

// FMinAbs is min(|a|, |b|).
func FMinAbs(dst, a, b Reg) Op { return addOp(AddFMinAbs, dst, a, b) }

// FMaxAbs is max(|a|, |b|).
func FMaxAbs(dst, a, b Reg) Op { return addOp(AddFMaxAbs, dst, a, b) }

// FToI converts a float to a signed integer, truncating.
func FToI(dst, a Reg) Op { return addOp(AddFToI, dst, a, a) }

// IToF converts a signed integer to a float.
func IToF(dst, a Reg) Op { return addOp(AddIToF, dst, a, a) }

// Add is the integer add.
func Add(dst, a, b Reg) Op { return addOp(AddAdd, dst, a, b) }

// Sub is the integer subtract a − b.
func Sub(dst, a, b Reg) Op { return addOp(AddSub, dst, a, b) }

// Shr is the logical shift right of a by b (bits 4:0).
func Shr(dst, a, b Reg) Op { return addOp(AddShr, dst, a, b) }

// Asr is the arithmetic shift right.
func Asr(dst, a, b Reg) Op { return addOp(AddAsr, dst, a, b) }

// Ror is the rotate right.
func Ror(dst, a, b Reg) Op { return addOp(AddRor, dst, a, b) }

// Shl is the shift left.
func Shl(dst, a, b Reg) Op { return addOp(AddShl, dst, a, b) }

// Min is the signed integer minimum.
func Min(dst, a, b Reg) Op { return addOp(AddMin, dst, a, b) }

// Max is the signed integer maximum.
func Max(dst, a, b Reg) Op { return addOp(AddMax, dst, a, b) }

// And is the bitwise and.
func And(dst, a, b Reg) Op { return addOp(AddAnd, dst, a, b) }

// Or is the bitwise or.
func Or(dst, a, b Reg) Op { return addOp(AddOr, dst, a, b) }

// Xor is the bitwise exclusive or.
func Xor(dst, a, b Reg) Op { return addOp(AddXor, dst, a, b) }

// Not is the bitwise not.
func Not(dst, a Reg) Op { return addOp(AddNot, dst, a, a) }

// Clz counts the leading zeros.
func Clz(dst, a Reg) Op { return addOp(AddClz, dst, a, a) }

// V8Adds is the add ALU's per-byte saturating add.
func V8Adds(dst, a, b Reg) Op { return addOp(AddV8Adds, dst, a, b) }

// V8Subs is the add ALU's per-byte saturating subtract a − b.
func V8Subs(dst, a, b Reg) Op { return addOp(AddV8Subs, dst, a, b) }

// Mov moves a value through the add ALU: "or dst, a, a" (Mesa qpu_a_MOV).
func Mov(dst, a Reg) Op { return addOp(AddOr, dst, a, a) }

// Mul-ALU operations (AG Table 13).

// FMul is the float multiply.
func FMul(dst, a, b Reg) Op { return mulOp(MulFMul, dst, a, b) }

// Mul24 multiplies the low 24 bits of a and b.
func Mul24(dst, a, b Reg) Op { return mulOp(MulMul24, dst, a, b) }

// V8Muld is the per-byte colour multiply (a·b/255 per byte).
func V8Muld(dst, a, b Reg) Op { return mulOp(MulV8Muld, dst, a, b) }

// V8Min is the per-byte unsigned minimum.
func V8Min(dst, a, b Reg) Op { return mulOp(MulV8Min, dst, a, b) }

// V8Max is the per-byte unsigned maximum.
func V8Max(dst, a, b Reg) Op { return mulOp(MulV8Max, dst, a, b) }

// MV8Adds is the mul ALU's per-byte saturating add.
func MV8Adds(dst, a, b Reg) Op { return mulOp(MulV8Adds, dst, a, b) }

// MV8Subs is the mul ALU's per-byte saturating subtract.
func MV8Subs(dst, a, b Reg) Op { return mulOp(MulV8Subs, dst, a, b) }

// MMov moves a value through the mul ALU: "v8min dst, a, a" (Mesa
// qpu_m_MOV).
func MMov(dst, a Reg) Op { return mulOp(MulV8Min, dst, a, a) }

// LoadImmItem is a load immediate or semaphore instruction; make one with
// LoadImm, LoadImm2, LoadImmPerElement, SemaphoreAcquire or
// SemaphoreRelease.
type LoadImmItem struct {
	mode           LoadMode
	addDst, mulDst Reg
	hasMul         bool
	imm            uint32
	cond           Cond
	hasCond        bool
	sf             bool
	bad            string
}

// If returns the load with write condition c for its destinations.
func (l LoadImmItem) If(c Cond) LoadImmItem { l.cond, l.hasCond = c, true; return l }

// SetFlags returns the load with sf set.
func (l LoadImmItem) SetFlags() LoadImmItem { l.sf = true; return l }

// LoadImm loads a 32-bit value into dst, on all 16 elements (AG Figure 5).
func LoadImm(dst Reg, v uint32) LoadImmItem {
	return LoadImmItem{mode: LoadImm32, addDst: dst, imm: v}
}

// LoadImmFloat loads the bits of a float32.
func LoadImmFloat(dst Reg, f float32) LoadImmItem { return LoadImm(dst, math.Float32bits(f)) }

// LoadImm2 loads a 32-bit value into two destinations at once, through the
// add and the mul ALU outputs (AG "Load Immediate Instructions").
func LoadImm2(addDst, mulDst Reg, v uint32) LoadImmItem {
	return LoadImmItem{mode: LoadImm32, addDst: addDst, mulDst: mulDst, hasMul: true, imm: v}
}

// LoadImmPerElement loads a 2-bit value per element: -2..1 when signed,
// 0..3 otherwise (AG Figure 5).
func LoadImmPerElement(dst Reg, v [16]int8, signed bool) LoadImmItem {
	l := LoadImmItem{mode: LoadImmPerElUnsign, addDst: dst}
	lo, hi := int8(0), int8(3)
	if signed {
		l.mode, lo, hi = LoadImmPerElSigned, -2, 1
	}
	for i, x := range v {
		if x < lo || x > hi {
			l.bad = fmt.Sprintf("per-element value %d of element %d is outside %d..%d", x, i, lo, hi)
		}
		u := uint32(x) & 3
		l.imm |= (u>>1)<<(16+i) | (u&1)<<i
	}
	return l
}

// SemaphoreAcquire decrements semaphore n (0-15), stalling while it is 0
// (AG "Semaphore Instruction"; vc4asm "sacq").
func SemaphoreAcquire(n int) LoadImmItem { return semaphore(n, true) }

// SemaphoreRelease increments semaphore n (vc4asm "srel").
func SemaphoreRelease(n int) LoadImmItem { return semaphore(n, false) }

func semaphore(n int, acquire bool) LoadImmItem {
	l := LoadImmItem{mode: LoadSemaphore, addDst: Null, imm: uint32(n) & 15}
	if acquire {
		l.imm |= 1 << 4
	}
	if n < 0 || n > 15 {
		l.bad = fmt.Sprintf("semaphore %d: semaphores are 0-15", n)
	}
	return l
}

// BranchItem is a relative branch to a label (AG "Branch Instruction"; the
// kernel accepts only relative, non-register branches, Linux
// vc4_validate_shaders.c check_branch). Three delay-slot instructions after
// it always execute.
type BranchItem struct {
	cond           BranchCond
	label          string
	addDst, mulDst Reg
}

// Branch branches to label when cond holds over the flags of all elements.
func Branch(cond BranchCond, label string) BranchItem {
	return BranchItem{cond: cond, label: label, addDst: Null, mulDst: Null}
}

// Link returns the branch writing its link address (branch + 4
// instructions) to dst through the add ALU output. The kernel refuses
// branches that write registers (Linux vc4_validate_shaders.c
// check_branch), so shaders submitted through it cannot use this.
func (b BranchItem) Link(dst Reg) BranchItem { b.addDst = dst; return b }

// Asm assembles a program. The zero value is ready to use.
type Asm struct {
	insts  []Inst
	errs   []error
	labels map[string]int
	fixups []fixup
}

type fixup struct {
	at    int
	label string
}

// Len returns the number of instructions so far.
func (a *Asm) Len() int { return len(a.insts) }

// Label names the next instruction, as a branch target.
func (a *Asm) Label(name string) {
	if a.labels == nil {
		a.labels = map[string]int{}
	}
	if _, dup := a.labels[name]; dup {
		a.errorf(len(a.insts), "label %q defined twice", name)
	}
	a.labels[name] = len(a.insts)
}

func (a *Asm) errorf(at int, format string, args ...any) {
	a.errs = append(a.errs, fmt.Errorf("instruction %d: %s", at, fmt.Sprintf(format, args...)))
}

// I appends one instruction made of the given items and returns its index.
// With no items it is a NOP.
func (a *Asm) I(items ...Item) int {
	at := len(a.insts)
	in, err := buildInst(items)
	if err != "" {
		a.errorf(at, "%s", err)
	}
	for _, it := range items {
		if b, ok := it.(BranchItem); ok {
			a.fixups = append(a.fixups, fixup{at, b.label})
		}
	}
	a.insts = append(a.insts, in)
	return at
}

// Assemble resolves branch labels and returns the program's words, or every
// error found, each naming its instruction.
func (a *Asm) Assemble() ([]uint64, error) {
	for _, f := range a.fixups {
		t, ok := a.labels[f.label]
		if !ok {
			a.errorf(f.at, "branch to undefined label %q", f.label)
			continue
		}
		a.insts[f.at].Imm = uint32(int32(8 * (t - (f.at + 4))))
	}
	a.fixups = nil
	if len(a.errs) > 0 {
		return nil, errors.Join(a.errs...)
	}
	return EncodeProgram(nil, a.insts), nil
}

// MustAssemble is Assemble for programs fixed in the source: it panics on
// an error, which is a bug in the program text.
func (a *Asm) MustAssemble() []uint64 {
	w, err := a.Assemble()
	if err != nil {
		panic("qpu: " + err.Error())
	}
	return w
}

// nopInst is the canonical NOP (Mesa qpu_NOP): sig 1, both write
// addresses 39, both read addresses 39, conditions never.
func nopInst() Inst {
	return Inst{Sig: SigNone, WaddrAdd: WNop, WaddrMul: WNop, RaddrA: RNop, RaddrB: RNop}
}

// draft collects the choices made while encoding one ALU instruction.
type draft struct {
	in          Inst
	raA, raB    bool // raddr_a / raddr_b taken
	small       bool // small immediate field taken
	pmSet       bool
	pm          bool
	unpackA     Unpack
	unpackASet  bool
	unpackR4    Unpack
	unpackR4Set bool
	wsSet       bool
	errs        []string
}

func (d *draft) fail(format string, args ...any) {
	d.errs = append(d.errs, fmt.Sprintf(format, args...))
}

func (d *draft) needPM(pm bool, why string) {
	if d.pmSet && d.pm != pm {
		d.fail("%s needs pm=%v but another pack/unpack needs pm=%v", why, b2u(pm), b2u(d.pm))
		return
	}
	d.pmSet, d.pm = true, pm
}

func (d *draft) needWS(ws bool, why string) {
	if d.wsSet && d.in.WS != ws {
		d.fail("%s needs ws=%v but the other destination needs ws=%v", why, b2u(ws), b2u(d.in.WS))
		return
	}
	d.wsSet, d.in.WS = true, ws
}

func buildInst(items []Item) (Inst, string) {
	var add, mul *Op
	var ldi *LoadImmItem
	var br *BranchItem
	sig := SigNone
	hasSig := false
	var errs []string
	for _, it := range items {
		switch v := it.(type) {
		case Op:
			op := v
			if op.mul {
				if mul != nil {
					errs = append(errs, "two mul-ALU ops in one instruction")
				}
				mul = &op
			} else {
				if add != nil {
					errs = append(errs, "two add-ALU ops in one instruction")
				}
				add = &op
			}
		case Signal:
			if hasSig {
				errs = append(errs, "two signals in one instruction")
			}
			if v > SigAlphaMaskLoad {
				errs = append(errs, fmt.Sprintf("signal %d is an instruction kind; use LoadImm, Branch or a small immediate", v))
			}
			sig, hasSig = v, true
		case LoadImmItem:
			l := v
			ldi = &l
		case BranchItem:
			b := v
			br = &b
		}
	}
	special := 0
	if ldi != nil {
		special++
	}
	if br != nil {
		special++
	}
	if special > 0 && (add != nil || mul != nil || hasSig || special > 1) {
		errs = append(errs, "a load immediate, semaphore or branch is a whole instruction")
	}
	var in Inst
	var more []string
	switch {
	case ldi != nil:
		in, more = buildLoadImm(*ldi)
	case br != nil:
		in, more = buildBranch(*br)
	default:
		in, more = buildALU(add, mul, sig)
	}
	errs = append(errs, more...)
	return in, strings.Join(errs, "; ")
}

func buildALU(add, mul *Op, sig Signal) (Inst, []string) {
	d := draft{in: nopInst()}
	d.in.Sig = sig
	var ops [2]*Op
	ops[0], ops[1] = add, mul
	// Operands: fixed places first, then those readable from either file.
	type src struct {
		r   Reg
		mux *Mux
	}
	var srcs []src
	if add != nil {
		d.in.OpAdd = add.addOp
		srcs = append(srcs, src{add.a, &d.in.AddA}, src{add.b, &d.in.AddB})
	}
	if mul != nil {
		d.in.OpMul = mul.mulOp
		srcs = append(srcs, src{mul.a, &d.in.MulA}, src{mul.b, &d.in.MulB})
		if mul.rot != 0 {
			d.takeSmall(mul.rot, "rotation")
		}
	}
	for pass := 0; pass < 2; pass++ {
		for _, s := range srcs {
			flexible := s.r.file == fileAny && !s.r.hasUnpack
			if flexible == (pass == 0) {
				continue
			}
			*s.mux = d.source(s.r)
		}
	}
	d.checkUnpacks(add, mul)
	// Destinations.
	if add != nil {
		d.dest(add, false)
	}
	if mul != nil {
		d.dest(mul, true)
	}
	if add != nil && mul != nil && add.dst.waddr == mul.dst.waddr && add.dst.waddr != WNop &&
		!(add.dst.waddr.IsPhysical() && d.in.AddFile() != d.in.MulFile()) {
		d.fail("both ALUs write %s: undefined (AG §3 \"ALU Instructions\")", add.dst.name)
	}
	for i, op := range ops {
		if op == nil {
			continue
		}
		c := CondAlways
		if op.hasCond {
			c = op.cond
		}
		if i == 0 {
			d.in.CondAdd = c
		} else {
			d.in.CondMul = c
		}
		if op.sf {
			if i == 1 && add != nil && add.addOp != AddNop {
				d.fail("flags come from the add ALU when it is busy (AG Table 1); set flags on the add op")
			}
			d.in.SF = true
		}
	}
	d.in.PM = d.pm
	if d.small {
		if d.in.Sig != SigNone {
			d.fail("signal %v cannot be combined with a small immediate or rotation (sig 13 is the small-immediate kind)", d.in.Sig)
		}
		d.in.Sig = SigSmallImm
	}
	return d.in, d.errs
}

func (d *draft) takeSmall(v SmallImm, what string) {
	if d.raB {
		d.fail("%s needs the small immediate field (raddr_b) but regfile B (%s) is read", what, d.in.RaddrB.Name(FileB))
		return
	}
	if d.small && d.in.SmallImmed != v {
		d.fail("%s needs small immediate %v but the instruction already uses %v", what, v, d.in.SmallImmed)
		return
	}
	d.small, d.in.SmallImmed = true, v
	d.in.RaddrB = RNop
}

// source places one operand and returns its mux.
func (d *draft) source(r Reg) Mux {
	if r.bad != "" {
		d.fail("%s", r.bad)
		return MuxR0
	}
	if !r.read {
		d.fail("%s cannot be read", r.name)
		return MuxR0
	}
	switch {
	case r.acc >= 0:
		if r.hasUnpack {
			if r.acc != 4 {
				d.fail("%s: only regfile A and r4 have an unpack", r.name)
			} else {
				d.needPM(true, "r4 unpack")
			}
		}
		return Mux(r.acc)
	case r.isImm:
		d.takeSmall(r.imm, "immediate "+r.name)
		return MuxB
	}
	wantA := r.file == fileOnlyA || (r.file == fileAny && r.hasUnpack)
	if r.hasUnpack {
		if r.file == fileOnlyB {
			d.fail("%s: only regfile A and r4 have an unpack", r.name)
		}
		d.needPM(false, "regfile-A unpack")
	}
	if r.file == fileAny && !wantA {
		switch {
		case d.raA && d.in.RaddrA == r.raddr:
			return MuxA
		case d.raB && d.in.RaddrB == r.raddr:
			return MuxB
		case !d.raA:
			wantA = true
		}
	}
	if wantA {
		if d.raA && d.in.RaddrA != r.raddr {
			d.fail("two regfile-A reads (%s and %s): one raddr_a per instruction; move one through an accumulator",
				d.in.RaddrA.Name(FileA), r.raddr.Name(FileA))
			return MuxA
		}
		d.raA, d.in.RaddrA = true, r.raddr
		return MuxA
	}
	if d.small {
		d.fail("%s needs regfile B but raddr_b holds a small immediate", r.name)
		return MuxB
	}
	if d.raB && d.in.RaddrB != r.raddr {
		d.fail("two regfile-B reads (%s and %s): one raddr_b per instruction", d.in.RaddrB.Name(FileB), r.raddr.Name(FileB))
		return MuxB
	}
	d.raB, d.in.RaddrB = true, r.raddr
	return MuxB
}

// checkUnpacks makes sure every operand an unpack applies to asked for the
// same unpack: the field is one per instruction (AG Tables 6, 8).
func (d *draft) checkUnpacks(ops ...*Op) {
	for _, op := range ops {
		if op == nil {
			continue
		}
		for _, pair := range [2]struct {
			r Reg
			m Mux
		}{{op.a, d.muxOf(op, 0)}, {op.b, d.muxOf(op, 1)}} {
			u := UnpackNone
			if pair.r.hasUnpack {
				u = pair.r.unpack
			}
			switch pair.m {
			case MuxA:
				if d.unpackASet && d.unpackA != u {
					d.fail("regfile-A unpack %v and %v in one instruction: it applies to every file-A operand", d.unpackA, u)
				}
				d.unpackA, d.unpackASet = u, true
			case MuxR4:
				if d.unpackR4Set && d.unpackR4 != u {
					d.fail("r4 unpack %v and %v in one instruction: it applies to every r4 operand", d.unpackR4, u)
				}
				d.unpackR4, d.unpackR4Set = u, true
			}
		}
	}
	ua, ur := d.unpackA != UnpackNone, d.unpackR4 != UnpackNone
	switch {
	case ua && ur:
		d.fail("a regfile-A unpack and an r4 unpack cannot be in one instruction (one pm bit)")
	case ua:
		d.in.Unpack = d.unpackA
	case ur:
		d.in.Unpack = d.unpackR4
	}
}

func (d *draft) muxOf(op *Op, i int) Mux {
	switch {
	case !op.mul && i == 0:
		return d.in.AddA
	case !op.mul:
		return d.in.AddB
	case i == 0:
		return d.in.MulA
	}
	return d.in.MulB
}

func (d *draft) dest(op *Op, isMul bool) {
	r := op.dst
	if r.bad != "" {
		d.fail("%s", r.bad)
		return
	}
	if !r.write {
		d.fail("%s cannot be written", r.name)
		return
	}
	// ws: add writes A unless ws, mul writes B unless ws (AG Table 1).
	switch r.file {
	case fileOnlyA:
		d.needWS(isMul, r.name)
	case fileOnlyB:
		d.needWS(!isMul, r.name)
	}
	if isMul {
		d.in.WaddrMul = r.waddr
	} else {
		d.in.WaddrAdd = r.waddr
	}
	if !r.hasPack {
		return
	}
	if r.colour {
		if !isMul {
			d.fail("%s: the colour pack converts the mul ALU's result; use it on a mul op", r.name)
		}
		if r.pack != PackMul8888 && (r.pack < PackMul8A || r.pack > PackMul8D) {
			d.fail("%s: mul colour packs are 8888 and 8a-8d (AG Table 9)", r.name)
		}
		d.needPM(true, "colour pack")
	} else {
		if r.file != fileOnlyA || !r.waddr.IsPhysical() {
			d.fail("%s: the regfile-A pack applies to writes of register file A (AG Table 7)", r.name)
		}
		// vc4asm's pack table (doc/instructions.html, "Pack/unpack") marks
		// the 16-bit and saturating packs "ADD ALU only".
		if isMul && r.pack != Pack8888 && (r.pack < Pack8A || r.pack > Pack8D) {
			d.fail("%s: only the 8888 and 8a-8d regfile-A packs work on the mul ALU (vc4asm pack table)", r.name)
		}
		d.needPM(false, "regfile-A pack")
	}
	if d.in.Pack != PackNone && d.in.Pack != r.pack {
		d.fail("two different packs in one instruction")
	}
	d.in.Pack = r.pack
}

func buildLoadImm(l LoadImmItem) (Inst, []string) {
	d := draft{in: nopInst()}
	d.in.Sig = SigLoadImm
	d.in.LoadMode = l.mode
	d.in.RaddrA, d.in.RaddrB = RNop, RNop
	d.in.Imm = l.imm
	if l.mode == LoadSemaphore {
		d.in.SA = l.imm>>4&1 != 0
		d.in.Semaphore = uint8(l.imm & 15)
	}
	if l.bad != "" {
		d.fail("%s", l.bad)
	}
	c := CondAlways
	if l.hasCond {
		c = l.cond
	}
	addDst := l.addDst
	if addDst.waddr != WNop || !l.hasMul {
		op := Op{dst: addDst}
		d.dest(&op, false)
		if addDst.waddr != WNop {
			d.in.CondAdd = c
		}
	}
	if l.hasMul {
		op := Op{mul: true, dst: l.mulDst}
		d.dest(&op, true)
		if l.mulDst.waddr != WNop {
			d.in.CondMul = c
		}
	}
	d.in.SF = l.sf
	d.in.PM = d.pm
	return d.in, d.errs
}

func buildBranch(b BranchItem) (Inst, []string) {
	d := draft{in: Inst{Sig: SigBranch, CondBr: b.cond, Rel: true, RaddrB: RNop,
		WaddrAdd: WNop, WaddrMul: WNop}}
	for i, r := range [2]Reg{b.addDst, b.mulDst} {
		if r.waddr == WNop {
			continue
		}
		op := Op{mul: i == 1, dst: r}
		d.dest(&op, i == 1)
	}
	if b.label == "" {
		d.fail("branch without a label")
	}
	return d.in, d.errs
}
