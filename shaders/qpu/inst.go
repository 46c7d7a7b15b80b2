package qpu

// Inst is one decoded QPU instruction. Field names follow the reference
// guide's (AG Table 1, Figures 5-7, Table 10); which fields mean something
// depends on Kind():
//
//   - ALU (sig 0-12) and ALU with small immediate (sig 13): every field from
//     Unpack to MulB; for sig 13 SmallImmed replaces RaddrB, and RaddrB
//     decodes as RNop because register file B cannot be read.
//   - Load immediate (sig 14, LoadMode 0/1/3 or reserved): LoadMode, PM,
//     Pack, CondAdd, CondMul, SF, WS, WaddrAdd, WaddrMul and Imm.
//   - Semaphore (sig 14, LoadMode 4): as load immediate, plus SA and
//     Semaphore, which are bits 4 and 3:0 of Imm.
//   - Branch (sig 15): CondBr, Rel, Reg, RaddrA (5 bits), WS, WaddrAdd,
//     WaddrMul and Imm (a signed byte offset).
//
// Fields that do not apply to the kind are left zero by Decode, except the
// read addresses, which decode as RNop, and the conditions, which decode as
// CondNever, so that a careless reader sees "no read" and "no write" rather
// than ra0. Spare holds any bits the guide does not assign for the kind.
type Inst struct {
	Sig Signal // bits 63:60

	Unpack   Unpack   // bits 59:57 (ALU kinds)
	LoadMode LoadMode // bits 59:57 (sig 14)
	PM       bool     // bit 56: pack/unpack select
	Pack     Pack     // bits 55:52
	CondAdd  Cond     // bits 51:49
	CondMul  Cond     // bits 48:46
	SF       bool     // bit 45: set flags
	WS       bool     // bit 44: write swap
	WaddrAdd WAddr    // bits 43:38
	WaddrMul WAddr    // bits 37:32

	OpMul      MulOp    // bits 31:29
	OpAdd      AddOp    // bits 28:24
	RaddrA     RAddr    // bits 23:18 (branch: bits 49:45, 0-31)
	RaddrB     RAddr    // bits 17:12 (not sig 13)
	SmallImmed SmallImm // bits 17:12 when sig = 13
	AddA       Mux      // bits 11:9
	AddB       Mux      // bits 8:6
	MulA       Mux      // bits 5:3
	MulB       Mux      // bits 2:0

	Imm uint32 // bits 31:0 of load immediate, semaphore and branch

	SA        bool  // semaphore: bit 4, true = decrement ("acquire")
	Semaphore uint8 // semaphore: bits 3:0, the semaphore number

	CondBr BranchCond // branch: bits 55:52
	Rel    bool       // branch: bit 51, target relative to PC+4 instructions
	Reg    bool       // branch: bit 50, add ra[RaddrA] to the target

	// Spare holds, at their bit positions, the bits of the word that the
	// guide does not assign for this kind (for a branch, bits 59:56), so
	// that Encode(Decode(w)) == w. The assembler leaves it zero.
	Spare uint64
}

// Kind returns the instruction's kind, from Sig and, for sig 14, LoadMode.
func (in *Inst) Kind() Kind {
	switch in.Sig {
	case SigBranch:
		return KindBranch
	case SigLoadImm:
		if in.LoadMode == LoadSemaphore {
			return KindSemaphore
		}
		return KindLoadImm
	case SigSmallImm:
		return KindSmallImm
	}
	return KindALU
}

// Decode returns the instruction encoded by w. It never fails: every word
// decodes to some instruction (reserved values keep their numbers and print
// as reserved), and Encode(Decode(w)) == w.
func Decode(w uint64) Inst {
	in := Inst{Sig: Signal(fSig.get(w))}
	switch in.Sig {
	case SigBranch:
		in.CondBr = BranchCond(fCondBr.get(w))
		in.Rel = fRel.flag(w)
		in.Reg = fReg.flag(w)
		in.RaddrA = RAddr(fBranchRaddrA.get(w))
		in.RaddrB = RNop
		in.WS = fWS.flag(w)
		in.WaddrAdd = WAddr(fWaddrAdd.get(w))
		in.WaddrMul = WAddr(fWaddrMul.get(w))
		in.Imm = uint32(fImm.get(w))
		in.Spare = w &^ maskBranch
		return in
	case SigLoadImm:
		in.LoadMode = LoadMode(fUnpack.get(w))
		in.decodeUpper(w)
		in.RaddrA, in.RaddrB = RNop, RNop
		in.Imm = uint32(fImm.get(w))
		if in.LoadMode == LoadSemaphore {
			in.SA = fSemaSA.flag(w)
			in.Semaphore = uint8(fSemaNum.get(w))
		}
		in.Spare = w &^ maskLoadImm
		return in
	}
	in.Unpack = Unpack(fUnpack.get(w))
	in.decodeUpper(w)
	in.OpMul = MulOp(fOpMul.get(w))
	in.OpAdd = AddOp(fOpAdd.get(w))
	in.RaddrA = RAddr(fRaddrA.get(w))
	if in.Sig == SigSmallImm {
		in.SmallImmed = SmallImm(fRaddrB.get(w))
		in.RaddrB = RNop
	} else {
		in.RaddrB = RAddr(fRaddrB.get(w))
	}
	in.AddA = Mux(fAddA.get(w))
	in.AddB = Mux(fAddB.get(w))
	in.MulA = Mux(fMulA.get(w))
	in.MulB = Mux(fMulB.get(w))
	in.Spare = w &^ maskALU
	return in
}

// decodeUpper reads the fields shared by the upper words of ALU, load
// immediate and semaphore instructions (bits 56:32).
func (in *Inst) decodeUpper(w uint64) {
	in.PM = fPM.flag(w)
	in.Pack = Pack(fPack.get(w))
	in.CondAdd = Cond(fCondAdd.get(w))
	in.CondMul = Cond(fCondMul.get(w))
	in.SF = fSF.flag(w)
	in.WS = fWS.flag(w)
	in.WaddrAdd = WAddr(fWaddrAdd.get(w))
	in.WaddrMul = WAddr(fWaddrMul.get(w))
}

func (in *Inst) encodeUpper() uint64 {
	return fPM.putFlag(in.PM) | fPack.put(uint64(in.Pack)) |
		fCondAdd.put(uint64(in.CondAdd)) | fCondMul.put(uint64(in.CondMul)) |
		fSF.putFlag(in.SF) | fWS.putFlag(in.WS) |
		fWaddrAdd.put(uint64(in.WaddrAdd)) | fWaddrMul.put(uint64(in.WaddrMul))
}

// Encode returns the 64-bit word of the instruction. Each field is masked to
// its width; the fields used are those of the kind (see Inst), plus Spare
// for the bits the kind leaves unassigned.
func (in *Inst) Encode() uint64 {
	w := fSig.put(uint64(in.Sig))
	switch in.Sig {
	case SigBranch:
		w |= fCondBr.put(uint64(in.CondBr)) | fRel.putFlag(in.Rel) | fReg.putFlag(in.Reg) |
			fBranchRaddrA.put(uint64(in.RaddrA)) | fWS.putFlag(in.WS) |
			fWaddrAdd.put(uint64(in.WaddrAdd)) | fWaddrMul.put(uint64(in.WaddrMul)) |
			fImm.put(uint64(in.Imm))
		return w | in.Spare&^maskBranch
	case SigLoadImm:
		w |= fUnpack.put(uint64(in.LoadMode)) | in.encodeUpper()
		imm := uint64(in.Imm)
		if in.LoadMode == LoadSemaphore {
			imm = imm&^(fSemaSA.mask()|fSemaNum.mask()) | fSemaSA.putFlag(in.SA) | fSemaNum.put(uint64(in.Semaphore))
		}
		return w | fImm.put(imm) | in.Spare&^maskLoadImm
	}
	rb := uint64(in.RaddrB)
	if in.Sig == SigSmallImm {
		rb = uint64(in.SmallImmed)
	}
	w |= fUnpack.put(uint64(in.Unpack)) | in.encodeUpper() |
		fOpMul.put(uint64(in.OpMul)) | fOpAdd.put(uint64(in.OpAdd)) |
		fRaddrA.put(uint64(in.RaddrA)) | fRaddrB.put(rb) |
		fAddA.put(uint64(in.AddA)) | fAddB.put(uint64(in.AddB)) |
		fMulA.put(uint64(in.MulA)) | fMulB.put(uint64(in.MulB))
	return w | in.Spare&^maskALU
}

// DecodeProgram decodes every word of a program into dst (grown if needed)
// and returns it.
func DecodeProgram(dst []Inst, words []uint64) []Inst {
	dst = dst[:0]
	for _, w := range words {
		dst = append(dst, Decode(w))
	}
	return dst
}

// EncodeProgram encodes every instruction into dst (grown if needed) and
// returns it.
func EncodeProgram(dst []uint64, insts []Inst) []uint64 {
	dst = dst[:0]
	for i := range insts {
		dst = append(dst, insts[i].Encode())
	}
	return dst
}

// Bytes returns a program as the bytes of a shader BO: each instruction as
// two little-endian 32-bit words, low word first (doc/hardware.md#conventions;
// Linux vc4_validate_shaders.c reads the BO as little-endian u64).
func Bytes(words []uint64) []byte {
	b := make([]byte, 8*len(words))
	for i, w := range words {
		for j := 0; j < 8; j++ {
			b[8*i+j] = byte(w >> (8 * j))
		}
	}
	return b
}

// IsALU reports whether the instruction is an ALU instruction (with or
// without a small immediate): it has opcodes, read addresses and muxes.
func (in *Inst) IsALU() bool { return in.Sig <= SigSmallImm }

// IsBranch reports whether the instruction is a branch (sig 15).
func (in *Inst) IsBranch() bool { return in.Sig == SigBranch }

// EndsProgram reports whether the instruction signals program end (sig 3,
// or 9 = colour load and program end).
func (in *Inst) EndsProgram() bool { return in.Sig.EndsProgram() }

// AddFile returns the register file the add ALU writes when its write
// address is 0-31 or a file-dependent I/O location: A unless ws (AG Table 1).
func (in *Inst) AddFile() RegFile {
	if in.WS {
		return FileB
	}
	return FileA
}

// MulFile returns the register file the mul ALU writes: B unless ws.
func (in *Inst) MulFile() RegFile {
	if in.WS {
		return FileA
	}
	return FileB
}

// Writes reports whether either write address of the instruction is w.
// As in Mesa's vc4_qpu_validate.c and the kernel's check_instruction_writes,
// a write address counts whatever the opcode and condition; the NOP address
// (39) never counts. Branch link writes count too.
func (in *Inst) Writes(w WAddr) bool {
	if w == WNop {
		return false
	}
	return in.WaddrAdd == w || in.WaddrMul == w
}

// WritesPhysical reports whether the instruction writes physical register
// n (0-31) of file f, taking ws into account.
func (in *Inst) WritesPhysical(f RegFile, n uint8) bool {
	return (in.WaddrAdd == WAddr(n) && in.AddFile() == f) ||
		(in.WaddrMul == WAddr(n) && in.MulFile() == f)
}

// WritesFileIO reports whether the instruction writes the file-dependent
// I/O location w (such as WVPMVCDSetup, WQuadXY) through file f.
func (in *Inst) WritesFileIO(f RegFile, w WAddr) bool { return in.WritesPhysical(f, uint8(w)) }

// WritesTMU reports whether either write address is a TMU register.
func (in *Inst) WritesTMU() bool { return in.WaddrAdd.IsTMU() || in.WaddrMul.IsTMU() }

// WritesSFU reports whether either write address is an SFU register.
func (in *Inst) WritesSFU() bool { return in.WaddrAdd.IsSFU() || in.WaddrMul.IsSFU() }

// WritesTLB reports whether either write address writes the tile buffer
// (Z, colour or alpha mask).
func (in *Inst) WritesTLB() bool { return in.WaddrAdd.IsTLB() || in.WaddrMul.IsTLB() }

// WritesVPM reports whether either write address is VPM_WRITE.
func (in *Inst) WritesVPM() bool { return in.Writes(WVPM) }

// WritesR5 reports whether the instruction writes accumulator r5, either
// through write address 37 or implicitly by reading VARYING_READ, which
// loads the C coefficient into r5 (AG §3 "Varyings").
func (in *Inst) WritesR5() bool { return in.Writes(WAcc5) || in.ReadsVarying() }

// Reads reports whether the instruction's read address for file f is r.
// Only ALU instructions read through raddr_a/raddr_b, and raddr_b is not a
// read address under sig 13; a branch reads ra[RaddrA] only when Reg is set.
// The read happens whatever the muxes select: that is what pops a FIFO (the
// kernel's check_instruction_reads counts raddr_a == 32 this way).
func (in *Inst) Reads(f RegFile, r RAddr) bool {
	switch {
	case in.IsALU():
		if f == FileA {
			return in.RaddrA == r
		}
		return in.Sig != SigSmallImm && in.RaddrB == r
	case in.IsBranch():
		return f == FileA && in.Reg && in.RaddrA == r
	}
	return false
}

// ReadsEither reports whether either read address is r (for the I/O
// locations that mean the same in both files).
func (in *Inst) ReadsEither(r RAddr) bool { return in.Reads(FileA, r) || in.Reads(FileB, r) }

// ReadsUniform reports whether the instruction pops a uniform by reading
// UNIFORM_READ. One read pops one uniform even if both raddrs name it
// (Linux vc4_validate_shaders.c check_instruction_reads; doc/hardware.md#machine).
// Implicit TMU parameter uniforms are not included.
func (in *Inst) ReadsUniform() bool { return in.ReadsEither(RUniform) }

// ReadsVarying reports whether the instruction reads VARYING_READ.
func (in *Inst) ReadsVarying() bool { return in.ReadsEither(RVarying) }

// ReadsVPM reports whether the instruction reads VPM_READ.
func (in *Inst) ReadsVPM() bool { return in.ReadsEither(RVPM) }

// AddUsed reports whether the add ALU does something: an ALU instruction
// whose op_add is not NOP.
func (in *Inst) AddUsed() bool { return in.IsALU() && in.OpAdd != AddNop }

// MulUsed reports whether the mul ALU does something.
func (in *Inst) MulUsed() bool { return in.IsALU() && in.OpMul != MulNop }

// Operands returns the input muxes the instruction actually uses and how
// many: add_a and add_b when the add op is not NOP, then mul_a and mul_b
// when the mul op is not NOP. (Unary ops count both slots, as the hardware
// reads both; Mesa fills both with the same source.)
func (in *Inst) Operands() (m [4]Mux, n int) {
	if in.AddUsed() {
		m[0], m[1] = in.AddA, in.AddB
		n = 2
	}
	if in.MulUsed() {
		m[n], m[n+1] = in.MulA, in.MulB
		n += 2
	}
	return m, n
}

// UsesMux reports whether a used operand takes its value from mux m.
func (in *Inst) UsesMux(m Mux) bool {
	ops, n := in.Operands()
	for i := 0; i < n; i++ {
		if ops[i] == m {
			return true
		}
	}
	return false
}

// ReadsAccumulator reports whether a used operand reads accumulator n (0-5).
func (in *Inst) ReadsAccumulator(n int) bool { return n >= 0 && n <= 5 && in.UsesMux(Mux(n)) }

// UsesPhysical reports whether a used operand takes the value of physical
// register n of file f (through mux A or B), or a branch adds ra[n].
func (in *Inst) UsesPhysical(f RegFile, n uint8) bool {
	if n >= 32 {
		return false
	}
	return in.UsesRead(f, RAddr(n))
}

// UsesRead reports whether a used operand takes the value read from
// address r of file f (through mux A or B); for a branch, whether it adds
// ra[r] to its target.
func (in *Inst) UsesRead(f RegFile, r RAddr) bool {
	if in.IsBranch() {
		return in.Reads(f, r)
	}
	if !in.Reads(f, r) {
		return false
	}
	if f == FileA {
		return in.UsesMux(MuxA)
	}
	return in.UsesMux(MuxB)
}

// Rotation returns the mul-ALU vector rotation of the instruction: ok is
// false when it does not rotate (AG Table 5, §3 "Horizontal Vector
// Rotation").
func (in *Inst) Rotation() (n int, byR5 bool, ok bool) {
	if in.Sig != SigSmallImm || !in.SmallImmed.IsRotation() {
		return 0, false, false
	}
	n, byR5 = in.SmallImmed.Rotation()
	return n, byR5, true
}

// SetsFlags reports whether the instruction updates the flags. For ALU and
// load-immediate kinds that is the sf bit. A branch has no sf field, but its
// raddr_a bit 0 sits where sf is and the vc4asm addendum reports that odd
// raddr_a values set the flags (maazl/vc4asm doc/VideoCoreIV-addendum.html,
// "Branch Instruction - implicit set flags").
func (in *Inst) SetsFlags() bool {
	if in.IsBranch() {
		return in.RaddrA&1 != 0
	}
	return in.SF
}

// FlagsFromMul reports whether flags set by an ALU instruction come from
// the mul result: when the add op is NOP (AG Table 1; the addendum says the
// add's condition does not change this).
func (in *Inst) FlagsFromMul() bool { return in.OpAdd == AddNop }

// PerElementValues returns the 16 values of a per-element load immediate
// (LoadMode 1 or 3): element i is (bit 16+i)*2 + (bit i), read as signed
// (-2..1) or unsigned (0..3) (AG Figure 5). ok is false for other kinds.
func (in *Inst) PerElementValues() (v [16]int8, ok bool) {
	if in.Kind() != KindLoadImm || (in.LoadMode != LoadImmPerElSigned && in.LoadMode != LoadImmPerElUnsign) {
		return v, false
	}
	for i := 0; i < 16; i++ {
		x := int8(in.Imm>>(16+i)&1)<<1 | int8(in.Imm>>i&1)
		if in.LoadMode == LoadImmPerElSigned && x >= 2 {
			x -= 4
		}
		v[i] = x
	}
	return v, true
}

// BranchOffset returns the branch immediate as a signed byte offset.
func (in *Inst) BranchOffset() int32 { return int32(in.Imm) }

// BranchTarget returns the instruction index a relative, non-register
// branch at index pc jumps to: pc + 4 + imm/8 (AG Table 10; Linux
// vc4_validate_shaders.c vc4_validate_branches). ok is false if the branch
// is absolute, register-based or its offset is not a whole instruction.
func (in *Inst) BranchTarget(pc int) (target int, ok bool) {
	if !in.IsBranch() || !in.Rel || in.Reg || in.Imm%8 != 0 {
		return 0, false
	}
	return pc + 4 + int(int32(in.Imm))/8, true
}
