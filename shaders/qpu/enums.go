package qpu

import (
	"math"
	"strconv"
)

// Signal is the sig field, bits 63:60 (AG Table 4 "ALU Signaling Bits").
type Signal uint8

// The signals of AG Table 4. Values 13, 14 and 15 select the instruction
// kind rather than signal the 3D pipeline.
const (
	SigBreakpoint           Signal = 0  // software breakpoint
	SigNone                 Signal = 1  // no signal
	SigThreadSwitch         Signal = 2  // thread switch (not last)
	SigProgramEnd           Signal = 3  // program end (thread end)
	SigScoreboardWait       Signal = 4  // wait for scoreboard
	SigScoreboardUnlock     Signal = 5  // scoreboard unlock
	SigLastThreadSwitch     Signal = 6  // last thread switch
	SigCoverageLoad         Signal = 7  // coverage load from tile buffer to r4
	SigColourLoad           Signal = 8  // colour load from tile buffer to r4
	SigColourLoadProgramEnd Signal = 9  // colour load and program end
	SigLoadTMU0             Signal = 10 // load data from TMU0 to r4
	SigLoadTMU1             Signal = 11 // load data from TMU1 to r4
	SigAlphaMaskLoad        Signal = 12 // alpha-mask load from tile buffer to r4
	SigSmallImm             Signal = 13 // ALU instruction, raddr_b is a small immediate
	SigLoadImm              Signal = 14 // load immediate (or semaphore)
	SigBranch               Signal = 15 // branch
)

// Mnemonics as vc4asm spells them (maazl/vc4asm doc/instructions.html,
// "Signaling instruction"); the last three are kinds, not signals.
var signalNames = [16]string{
	"bkpt", "none", "thrsw", "thrend", "sbwait", "sbdone", "lthrsw", "loadcv",
	"loadc", "ldcend", "ldtmu0", "ldtmu1", "loadam", "smallimm", "ldi", "branch",
}

// String returns the signal's mnemonic (vc4asm style: thrend, sbdone, ldtmu0...).
func (s Signal) String() string { return signalNames[s&15] }

// LoadsR4 reports whether the signal makes r4 receive data for the next
// instruction: a TMU read or a tile-buffer read (AG Table 4; AG §3 "Signaling Bits").
func (s Signal) LoadsR4() bool {
	switch s {
	case SigCoverageLoad, SigColourLoad, SigColourLoadProgramEnd,
		SigLoadTMU0, SigLoadTMU1, SigAlphaMaskLoad:
		return true
	}
	return false
}

// EndsProgram reports whether the signal is a program end (3, or 9 which is
// a colour load and program end); two delay-slot instructions follow it (AG
// §3 "Thread Control").
func (s Signal) EndsProgram() bool { return s == SigProgramEnd || s == SigColourLoadProgramEnd }

// Cond is a cond_add / cond_mul write condition (AG Table 2).
type Cond uint8

// The conditions of AG Table 2: whether each SIMD element's result is
// written, according to that element's flags.
const (
	CondNever  Cond = 0
	CondAlways Cond = 1
	CondZS     Cond = 2 // Z set
	CondZC     Cond = 3 // Z clear
	CondNS     Cond = 4 // N set
	CondNC     Cond = 5 // N clear
	CondCS     Cond = 6 // C set
	CondCC     Cond = 7 // C clear
)

var condNames = [8]string{"never", "always", "zs", "zc", "ns", "nc", "cs", "cc"}

// String returns the condition's name (never, always, zs, ...).
func (c Cond) String() string { return condNames[c&7] }

// AddOp is the add ALU opcode, op_add (AG Table 12).
type AddOp uint8

// The add-ALU opcodes of AG Table 12; 9-11 and 25-29 are reserved.
const (
	AddNop     AddOp = 0
	AddFAdd    AddOp = 1
	AddFSub    AddOp = 2
	AddFMin    AddOp = 3
	AddFMax    AddOp = 4
	AddFMinAbs AddOp = 5
	AddFMaxAbs AddOp = 6
	AddFToI    AddOp = 7
	AddIToF    AddOp = 8
	AddAdd     AddOp = 12
	AddSub     AddOp = 13
	AddShr     AddOp = 14
	AddAsr     AddOp = 15
	AddRor     AddOp = 16
	AddShl     AddOp = 17
	AddMin     AddOp = 18
	AddMax     AddOp = 19
	AddAnd     AddOp = 20
	AddOr      AddOp = 21
	AddXor     AddOp = 22
	AddNot     AddOp = 23
	AddClz     AddOp = 24
	AddV8Adds  AddOp = 30
	AddV8Subs  AddOp = 31
)

var addOpNames = [32]string{
	"nop", "fadd", "fsub", "fmin", "fmax", "fminabs", "fmaxabs", "ftoi",
	"itof", "reserved9", "reserved10", "reserved11", "add", "sub", "shr", "asr",
	"ror", "shl", "min", "max", "and", "or", "xor", "not",
	"clz", "reserved25", "reserved26", "reserved27", "reserved28", "reserved29", "v8adds", "v8subs",
}

// String returns the opcode's mnemonic (AG Table 12), or reservedN.
func (op AddOp) String() string { return addOpNames[op&31] }

// Reserved reports whether the opcode is one the guide reserves.
func (op AddOp) Reserved() bool { return (op >= 9 && op <= 11) || (op >= 25 && op <= 29) }

// Unary reports whether the operation uses only its first operand (AG
// Table 12: ftoi, itof, not, clz). Mesa puts the operand in both slots.
func (op AddOp) Unary() bool {
	return op == AddFToI || op == AddIToF || op == AddNot || op == AddClz
}

// IsFloat reports whether the operation reads its operands as floats, which
// makes regfile-A unpack produce floats (AG Table 6 "if any ALU consuming
// data executes float instruction"; the float set as in doe300/VC4C
// src/asm/OpCodes.h; doc/hardware.md#pack-and-unpack).
func (op AddOp) IsFloat() bool { return op >= AddFAdd && op <= AddFToI }

// MulOp is the mul ALU opcode, op_mul (AG Table 13).
type MulOp uint8

// The mul-ALU opcodes of AG Table 13.
const (
	MulNop    MulOp = 0
	MulFMul   MulOp = 1
	MulMul24  MulOp = 2
	MulV8Muld MulOp = 3
	MulV8Min  MulOp = 4
	MulV8Max  MulOp = 5
	MulV8Adds MulOp = 6
	MulV8Subs MulOp = 7
)

var mulOpNames = [8]string{"nop", "fmul", "mul24", "v8muld", "v8min", "v8max", "v8adds", "v8subs"}

// String returns the opcode's mnemonic (AG Table 13).
func (op MulOp) String() string { return mulOpNames[op&7] }

// IsFloat reports whether the operation reads floats (only fmul).
func (op MulOp) IsFloat() bool { return op == MulFMul }

// Mux is an ALU input mux value, add_a/add_b/mul_a/mul_b (AG Table 3).
type Mux uint8

// The input muxes of AG Table 3.
const (
	MuxR0 Mux = 0
	MuxR1 Mux = 1
	MuxR2 Mux = 2
	MuxR3 Mux = 3
	MuxR4 Mux = 4
	MuxR5 Mux = 5
	MuxA  Mux = 6 // the value read from register file A (raddr_a)
	MuxB  Mux = 7 // the value read from register file B (raddr_b), or the small immediate
)

var muxNames = [8]string{"r0", "r1", "r2", "r3", "r4", "r5", "a", "b"}

// String returns r0..r5, a or b.
func (m Mux) String() string { return muxNames[m&7] }

// Pack is the pack field, bits 55:52. Its meaning depends on pm (AG §3
// "Pack/Unpack Bits"): with pm = 0 it is the regfile-A pack of AG Table 7,
// applied to the result written to register file A; with pm = 1 it is the
// mul-ALU float-to-colour conversion of AG Table 9.
type Pack uint8

// Regfile-A pack modes (pm = 0), AG Table 7.
const (
	PackNone    Pack = 0
	Pack16A     Pack = 1  // low 16 bits (float16 if the result is a float)
	Pack16B     Pack = 2  // high 16 bits
	Pack8888    Pack = 3  // low byte replicated to all four
	Pack8A      Pack = 4  // low byte into byte 0
	Pack8B      Pack = 5  // into byte 1
	Pack8C      Pack = 6  // into byte 2
	Pack8D      Pack = 7  // into byte 3
	Pack32Sat   Pack = 8  // signed saturate
	Pack16ASat  Pack = 9  // 16a with signed saturation
	Pack16BSat  Pack = 10 // 16b with signed saturation
	Pack8888Sat Pack = 11 // 8888 with unsigned saturation
	Pack8ASat   Pack = 12
	Pack8BSat   Pack = 13
	Pack8CSat   Pack = 14
	Pack8DSat   Pack = 15
)

// Mul-ALU colour packs (pm = 1), AG Table 9: c = sat(round(f * 255)) into
// all bytes (8888) or one byte (8a..8d). 1, 2 and 8-15 are reserved.
// (Table 9 misprints 5-7 as "8a"; doc/hardware.md#pack-and-unpack.)
const (
	PackMulNone Pack = 0
	PackMul8888 Pack = 3
	PackMul8A   Pack = 4
	PackMul8B   Pack = 5
	PackMul8C   Pack = 6
	PackMul8D   Pack = 7
)

// Names as Mesa's vc4_qpu_disasm.c prints them (qpu_pack_a, qpu_pack_mul).
var (
	packANames = [16]string{
		"", "16a", "16b", "8888", "8a", "8b", "8c", "8d",
		"sat", "16a.sat", "16b.sat", "8888.sat", "8a.sat", "8b.sat", "8c.sat", "8d.sat",
	}
	packMulNames = [16]string{
		"", "reserved1", "reserved2", "8888", "8a", "8b", "8c", "8d",
		"reserved8", "reserved9", "reserved10", "reserved11", "reserved12", "reserved13", "reserved14", "reserved15",
	}
)

// Name returns the pack's name under the given pm ("" for none).
func (p Pack) Name(pm bool) string {
	if pm {
		return packMulNames[p&15]
	}
	return packANames[p&15]
}

// String returns the regfile-A (pm = 0) name, or "none".
func (p Pack) String() string {
	if p == 0 {
		return "none"
	}
	return p.Name(false)
}

// Unpack is the unpack field, bits 59:57 (not in load immediates). With
// pm = 0 it unpacks every operand read from register file A (AG Table 6);
// with pm = 1 every operand read from r4 (AG Table 8).
type Unpack uint8

// Unpack modes, AG Tables 6 and 8 (same numbering for regfile A and r4).
const (
	UnpackNone  Unpack = 0
	Unpack16A   Unpack = 1 // low half: float16 to float, or sign-extended int16
	Unpack16B   Unpack = 2 // high half
	Unpack8DRep Unpack = 3 // byte 3 replicated to all four bytes
	Unpack8A    Unpack = 4 // byte 0 as colour (byte/255) or zero-extended
	Unpack8B    Unpack = 5
	Unpack8C    Unpack = 6
	Unpack8D    Unpack = 7
)

var unpackNames = [8]string{"", "16a", "16b", "8d_rep", "8a", "8b", "8c", "8d"}

// String returns the unpack's name (Mesa's spelling), or "none".
func (u Unpack) String() string {
	if u == 0 {
		return "none"
	}
	return unpackNames[u&7]
}

// LoadMode is bits 59:57 of a load-immediate instruction (sig 14): which
// kind of load immediate, or the semaphore instruction (AG Figures 5, 6).
type LoadMode uint8

// Load-immediate modes; 2, 5, 6 and 7 are not defined by the guide.
const (
	LoadImm32          LoadMode = 0 // one 32-bit value to all elements
	LoadImmPerElSigned LoadMode = 1 // per-element signed 2-bit values
	LoadImmPerElUnsign LoadMode = 3 // per-element unsigned 2-bit values
	LoadSemaphore      LoadMode = 4 // semaphore instruction
)

var loadModeNames = [8]string{"32", "signed", "reserved2", "unsigned", "semaphore", "reserved5", "reserved6", "reserved7"}

// String returns 32, signed, unsigned, semaphore or reservedN.
func (m LoadMode) String() string { return loadModeNames[m&7] }

// Reserved reports whether the guide leaves the mode undefined.
func (m LoadMode) Reserved() bool { return m == 2 || m >= 5 }

// BranchCond is the branch condition, cond_br (AG Table 11).
type BranchCond uint8

// The branch conditions of AG Table 11, over the flags of all 16 elements.
const (
	BranchAllZS  BranchCond = 0 // all Z set
	BranchAllZC  BranchCond = 1 // all Z clear
	BranchAnyZS  BranchCond = 2 // any Z set
	BranchAnyZC  BranchCond = 3 // any Z clear
	BranchAllNS  BranchCond = 4
	BranchAllNC  BranchCond = 5
	BranchAnyNS  BranchCond = 6
	BranchAnyNC  BranchCond = 7
	BranchAllCS  BranchCond = 8
	BranchAllCC  BranchCond = 9
	BranchAnyCS  BranchCond = 10
	BranchAnyCC  BranchCond = 11
	BranchAlways BranchCond = 15 // 12-14 reserved
)

// Names as vc4asm spells them (doc/instructions.html, "Branch instruction").
var branchCondNames = [16]string{
	"allz", "allnz", "anyz", "anynz", "alln", "allnn", "anyn", "anynn",
	"allc", "allnc", "anyc", "anync", "reserved12", "reserved13", "reserved14", "always",
}

// String returns the condition's name (allz, anynz, always, ...).
func (c BranchCond) String() string { return branchCondNames[c&15] }

// SmallImm is the small_immed field (raddr_b when sig = 13), AG Table 5.
type SmallImm uint8

// Small immediates that are not plain values (AG Table 5).
const (
	SmallImmRotateR5 SmallImm = 48 // rotate the mul result by r5 element 0 bits 3:0
	// 49..63 rotate the mul result upwards by 1..15.
)

// Value returns the 32-bit value the immediate supplies to operands muxed
// from B, and false for the rotation codes 48-63 (AG Table 5): 0-15 are the
// integers 0..15, 16-31 are -16..-1, 32-39 are the floats 1.0..128.0 and
// 40-47 the floats 1/256..1/2.
func (s SmallImm) Value() (uint32, bool) {
	switch {
	case s <= 15:
		return uint32(s), true
	case s <= 31:
		return uint32(int32(s) - 32), true
	case s <= 39:
		return math.Float32bits(float32(int(1) << (s - 32))), true
	case s <= 47:
		return math.Float32bits(1 / float32(int(1)<<(48-s))), true
	}
	return 0, false
}

// IsRotation reports whether the code is a mul-ALU vector rotation (48-63).
func (s SmallImm) IsRotation() bool { return s >= 48 && s <= 63 }

// Rotation returns the rotation amount 1..15 of codes 49-63, and byR5 for
// code 48 (amount from r5 element 0). n is 0 and byR5 false for a value.
func (s SmallImm) Rotation() (n int, byR5 bool) {
	switch {
	case s == SmallImmRotateR5:
		return 0, true
	case s > 48 && s <= 63:
		return int(s) - 48, false
	}
	return 0, false
}

// String formats the immediate as the assembler reads it: an integer, a
// float with a decimal point, "rot_r5" or "rotN".
func (s SmallImm) String() string {
	switch {
	case s <= 31:
		v, _ := s.Value()
		return strconv.Itoa(int(int32(v)))
	case s <= 47:
		v, _ := s.Value()
		return formatFloat(math.Float32frombits(v))
	case s == SmallImmRotateR5:
		return "rot_r5"
	case s <= 63:
		return "rot" + strconv.Itoa(int(s)-48)
	}
	return "smallimm" + strconv.Itoa(int(s))
}

// formatFloat prints f briefly, always with a decimal point or exponent so
// that it does not read as an integer.
func formatFloat(f float32) string {
	s := strconv.FormatFloat(float64(f), 'g', -1, 32)
	for i := 0; i < len(s); i++ {
		if s[i] == '.' || s[i] == 'e' || s[i] == 'n' || s[i] == 'N' {
			return s
		}
	}
	return s + ".0"
}

// RegFile is one of the two physical register files.
type RegFile uint8

// The register files. The same address names different registers or I/O
// locations in file A and file B (AG Table 14).
const (
	FileA RegFile = 0
	FileB RegFile = 1
)

// String returns "a" or "b".
func (f RegFile) String() string {
	if f == FileB {
		return "b"
	}
	return "a"
}

// Kind is the kind of instruction, selected by the signal (AG Figure 3).
type Kind uint8

// The instruction kinds of AG Figure 3.
const (
	KindALU       Kind = iota // sig 0-12: ALU instruction with a signal
	KindSmallImm              // sig 13: ALU instruction, raddr_b is a small immediate
	KindLoadImm               // sig 14, mode 0, 1, 3 (or a reserved mode)
	KindSemaphore             // sig 14, mode 4
	KindBranch                // sig 15
)

var kindNames = [5]string{"alu", "alu-small-imm", "load-imm", "semaphore", "branch"}

// String names the kind.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind" + strconv.Itoa(int(k))
}
