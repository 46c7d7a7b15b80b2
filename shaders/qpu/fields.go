package qpu

// field is one bit field of the 64-bit instruction word: width bits starting
// at bit shift.
type field struct {
	shift, width uint8
}

func (f field) mask() uint64              { return (1<<f.width - 1) << f.shift }
func (f field) get(w uint64) uint64       { return w >> f.shift & (1<<f.width - 1) }
func (f field) put(v uint64) uint64       { return v & (1<<f.width - 1) << f.shift }
func (f field) flag(w uint64) bool        { return f.get(w) != 0 }
func (f field) putFlag(b bool) (v uint64) { return f.put(b2u(b)) }

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// The instruction fields: the one place the project writes down where each
// field of a QPU instruction sits.
//
// Source: AG Figure 3 "QPU Instruction Encoding", Figure 4 (ALU), Table 1
// "ALU Instruction Fields", Figure 5 (load immediate), Figure 6 (semaphore),
// Figure 7 and Table 10 (branch); checked against Linux vc4_qpu_defines.h
// (QPU_SIG_SHIFT ... QPU_MUL_B_SHIFT, QPU_BRANCH_*) and Mesa's
// vc4_qpu_defines.h (QPU_LOAD_IMM_MODE_*).
var (
	// Common to every kind.
	fSig = field{60, 4}

	// ALU and ALU with small immediate (AG Figure 4, Table 1); the upper
	// 32 bits are also those of load immediate and semaphore (Figures 5, 6).
	fUnpack   = field{57, 3} // load immediate: the mode (Figure 5)
	fPM       = field{56, 1}
	fPack     = field{52, 4}
	fCondAdd  = field{49, 3}
	fCondMul  = field{46, 3}
	fSF       = field{45, 1}
	fWS       = field{44, 1}
	fWaddrAdd = field{38, 6}
	fWaddrMul = field{32, 6}
	fOpMul    = field{29, 3}
	fOpAdd    = field{24, 5}
	fRaddrA   = field{18, 6}
	fRaddrB   = field{12, 6} // small_immed when sig = 13
	fAddA     = field{9, 3}
	fAddB     = field{6, 3}
	fMulA     = field{3, 3}
	fMulB     = field{0, 3}

	// Load immediate (Figure 5): the 32-bit immediate, or per-element MS
	// bits in 31:16 and LS bits in 15:0.
	fImm = field{0, 32}

	// Semaphore (Figure 6): sa (0 increment, 1 decrement) and the number;
	// bits 31:5 are "don't care" and stay in the immediate.
	fSemaSA  = field{4, 1}
	fSemaNum = field{0, 4}

	// Branch (Figure 7, Table 10). Bits 59:56 are not assigned.
	fCondBr       = field{52, 4}
	fRel          = field{51, 1}
	fReg          = field{50, 1}
	fBranchRaddrA = field{45, 5}
)

// Per kind, the union of the fields the guide assigns; the other bits of a
// word are kept in Inst.Spare so that decoding loses nothing.
var (
	maskALU = fSig.mask() | fUnpack.mask() | fPM.mask() | fPack.mask() |
		fCondAdd.mask() | fCondMul.mask() | fSF.mask() | fWS.mask() |
		fWaddrAdd.mask() | fWaddrMul.mask() | fOpMul.mask() | fOpAdd.mask() |
		fRaddrA.mask() | fRaddrB.mask() | fAddA.mask() | fAddB.mask() |
		fMulA.mask() | fMulB.mask()
	maskLoadImm = fSig.mask() | fUnpack.mask() | fPM.mask() | fPack.mask() |
		fCondAdd.mask() | fCondMul.mask() | fSF.mask() | fWS.mask() |
		fWaddrAdd.mask() | fWaddrMul.mask() | fImm.mask()
	maskBranch = fSig.mask() | fCondBr.mask() | fRel.mask() | fReg.mask() |
		fBranchRaddrA.mask() | fWS.mask() | fWaddrAdd.mask() |
		fWaddrMul.mask() | fImm.mask()
)
