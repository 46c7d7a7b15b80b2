package qpu

import (
	"math"
	"strconv"
	"strings"
)

// The listing format (one instruction per line), in the style of Mesa's
// vc4_qpu_disasm.c and vc4asm:
//
//	fadd r0, r0, r5 ; fmul r1, ra15, vary
//	mov tmu0_s, r0 ; nop
//	nop ; nop ; ldtmu0
//	ftoi ra7.16a, r0 ; fmul r0, rb5, r3
//	fsub.sf.zs r2, 2.0, r2 ; nop
//	nop ; v8min ra0, r0, r0, rot15
//	ldi vw_setup, 0x00001a00
//	ldi.signed r1, [0 1 -2 -1 ...]
//	sacq -, 3
//	brr.anyz -, -, +32 (@12)
//
// An ALU instruction prints "add-op ; mul-op" then, if it has one, its
// signal. Each op prints as "opcode[.sf][.cond] dst[.pack], a[.unpack], b";
// "mov dst, src" is an or (add) or v8min (mul) of a value with itself, as
// Mesa prints them; unary ops with equal operands print one operand. The
// condition is left out when it is "always"; .sf is shown on the op the
// flags come from (AG Table 1). A NOP op prints "nop" (with its write
// address if that is not NOP). Regfile-A packs and unpacks are shown on the
// operands they apply to; pm = 1 colour packs and r4 unpacks likewise. A
// rotation shows as a last operand rotN / rot_r5 of the mul op.

// String returns the instruction in the listing format, without branch
// targets (which need the instruction's address; see AppendListing).
func (in Inst) String() string { return string(AppendInst(nil, &in, -1)) }

// Disassemble returns the listing of a program: one line per instruction,
// "index: instruction", with branch targets resolved.
func Disassemble(words []uint64) string {
	var b []byte
	for i, w := range words {
		in := Decode(w)
		b = appendIndex(b, i, len(words))
		b = AppendInst(b, &in, i)
		b = append(b, '\n')
	}
	return string(b)
}

func appendIndex(b []byte, i, n int) []byte {
	width := len(strconv.Itoa(n - 1))
	s := strconv.Itoa(i)
	for k := len(s); k < width; k++ {
		b = append(b, ' ')
	}
	b = append(b, s...)
	return append(b, ": "...)
}

// AppendInst appends the listing of one instruction to b. pc is its index
// in the program (used to print branch targets), or -1 if unknown.
func AppendInst(b []byte, in *Inst, pc int) []byte {
	switch in.Kind() {
	case KindBranch:
		return appendBranch(b, in, pc)
	case KindLoadImm, KindSemaphore:
		return appendLoadImm(b, in)
	}
	b = appendAddOp(b, in)
	b = append(b, " ; "...)
	b = appendMulOp(b, in)
	if in.Sig != SigNone && in.Sig != SigSmallImm {
		b = append(b, " ; "...)
		b = append(b, in.Sig.String()...)
	}
	if in.Spare != 0 {
		b = appendSpare(b, in.Spare)
	}
	return b
}

func appendSpare(b []byte, spare uint64) []byte {
	b = append(b, " ; spare 0x"...)
	return strconv.AppendUint(b, spare, 16)
}

// appendDst appends the name of an ALU's destination with its pack.
func appendDst(b []byte, in *Inst, isMul bool) []byte {
	w, f := in.WaddrAdd, in.AddFile()
	if isMul {
		w, f = in.WaddrMul, in.MulFile()
	}
	b = append(b, w.Name(f)...)
	switch {
	case in.PM && isMul && in.Pack != PackMulNone:
		b = append(b, '.')
		b = append(b, in.Pack.Name(true)...)
	case !in.PM && f == FileA && in.Pack != PackNone:
		b = append(b, '.')
		b = append(b, in.Pack.Name(false)...)
	}
	return b
}

// appendSrc appends the name of the operand selected by mux m.
func appendSrc(b []byte, in *Inst, m Mux) []byte {
	switch {
	case m <= MuxR5:
		b = append(b, m.String()...)
		if m == MuxR4 && in.PM && in.Unpack != UnpackNone {
			b = append(b, '.')
			b = append(b, in.Unpack.String()...)
		}
	case m == MuxA:
		b = append(b, in.RaddrA.Name(FileA)...)
		if !in.PM && in.Unpack != UnpackNone {
			b = append(b, '.')
			b = append(b, in.Unpack.String()...)
		}
	default:
		if in.Sig == SigSmallImm {
			if in.SmallImmed.IsRotation() {
				// With a rotation code the B operand reads the value
				// code-64, -16..-1 (vc4asm addendum, "Small immediate
				// values"; doc/hardware.md#small-immediates-and-rotation).
				b = strconv.AppendInt(b, int64(in.SmallImmed)-64, 10)
			} else {
				b = append(b, in.SmallImmed.String()...)
			}
		} else {
			b = append(b, in.RaddrB.Name(FileB)...)
		}
	}
	return b
}

func appendOpSuffix(b []byte, sf bool, c Cond) []byte {
	if sf {
		b = append(b, ".sf"...)
	}
	if c != CondAlways {
		b = append(b, '.')
		b = append(b, c.String()...)
	}
	return b
}

func appendAddOp(b []byte, in *Inst) []byte {
	if in.OpAdd == AddNop {
		b = append(b, "nop"...)
		if in.SF && !in.FlagsFromMul() {
			b = append(b, ".sf"...)
		}
		if in.WaddrAdd != WNop {
			b = append(b, ' ')
			b = appendDst(b, in, false)
		}
		return b
	}
	mov := in.OpAdd == AddOr && in.AddA == in.AddB
	unary := in.OpAdd.Unary() && in.AddA == in.AddB
	if mov {
		b = append(b, "mov"...)
	} else {
		b = append(b, in.OpAdd.String()...)
	}
	b = appendOpSuffix(b, in.SF, in.CondAdd)
	b = append(b, ' ')
	b = appendDst(b, in, false)
	b = append(b, ", "...)
	b = appendSrc(b, in, in.AddA)
	if !mov && !unary {
		b = append(b, ", "...)
		b = appendSrc(b, in, in.AddB)
	}
	return b
}

func appendMulOp(b []byte, in *Inst) []byte {
	sf := in.SF && in.FlagsFromMul()
	rot, byR5, rotates := in.Rotation()
	if in.OpMul == MulNop {
		b = append(b, "nop"...)
		if sf {
			b = append(b, ".sf"...)
		}
		if in.WaddrMul != WNop {
			b = append(b, ' ')
			b = appendDst(b, in, true)
		}
		return b
	}
	mov := in.OpMul == MulV8Min && in.MulA == in.MulB && !rotates
	if mov {
		b = append(b, "mov"...)
	} else {
		b = append(b, in.OpMul.String()...)
	}
	b = appendOpSuffix(b, sf, in.CondMul)
	b = append(b, ' ')
	b = appendDst(b, in, true)
	b = append(b, ", "...)
	b = appendSrc(b, in, in.MulA)
	if !mov {
		b = append(b, ", "...)
		b = appendSrc(b, in, in.MulB)
	}
	if rotates {
		if byR5 {
			b = append(b, ", rot_r5"...)
		} else {
			b = append(b, ", rot"...)
			b = strconv.AppendInt(b, int64(rot), 10)
		}
	}
	return b
}

// appendLdiDst appends one destination of a load immediate, "-" for none.
func appendLdiDst(b []byte, in *Inst, isMul bool) []byte {
	w, c := in.WaddrAdd, in.CondAdd
	if isMul {
		w, c = in.WaddrMul, in.CondMul
	}
	if w == WNop {
		return append(b, '-')
	}
	b = appendDst(b, in, isMul)
	if c != CondAlways {
		b = append(b, '.')
		b = append(b, c.String()...)
	}
	return b
}

func appendLoadImm(b []byte, in *Inst) []byte {
	if in.Kind() == KindSemaphore {
		if in.SA {
			b = append(b, "sacq"...)
		} else {
			b = append(b, "srel"...)
		}
	} else {
		b = append(b, "ldi"...)
		if in.LoadMode != LoadImm32 {
			b = append(b, '.')
			b = append(b, in.LoadMode.String()...)
		}
	}
	if in.SF {
		b = append(b, ".sf"...)
	}
	b = append(b, ' ')
	// Destinations: the add's ("-" for none), then the mul's if it writes.
	b = appendLdiDst(b, in, false)
	b = append(b, ", "...)
	if in.WaddrMul != WNop {
		b = appendLdiDst(b, in, true)
		b = append(b, ", "...)
	}
	switch {
	case in.Kind() == KindSemaphore:
		b = strconv.AppendUint(b, uint64(in.Semaphore), 10)
		if rest := in.Imm &^ 0x1f; rest != 0 {
			b = append(b, " ; imm 0x"...)
			b = appendHex32(b, in.Imm)
		}
	case in.LoadMode == LoadImmPerElSigned || in.LoadMode == LoadImmPerElUnsign:
		v, _ := in.PerElementValues()
		b = append(b, '[')
		for i, x := range v {
			if i > 0 {
				b = append(b, ' ')
			}
			b = strconv.AppendInt(b, int64(x), 10)
		}
		b = append(b, ']')
	default:
		b = append(b, "0x"...)
		b = appendHex32(b, in.Imm)
		if f := math.Float32frombits(in.Imm); in.Imm != 0 && math.Abs(float64(f)) >= 1e-6 && math.Abs(float64(f)) < 1e9 {
			b = append(b, " ("...)
			b = append(b, formatFloat(f)...)
			b = append(b, ')')
		}
	}
	if in.Spare != 0 {
		b = appendSpare(b, in.Spare)
	}
	return b
}

func appendHex32(b []byte, v uint32) []byte {
	const digits = "0123456789abcdef"
	for i := 28; i >= 0; i -= 4 {
		b = append(b, digits[v>>uint(i)&15])
	}
	return b
}

func appendBranch(b []byte, in *Inst, pc int) []byte {
	if in.Rel {
		b = append(b, "brr"...)
	} else {
		b = append(b, "bra"...)
	}
	if in.CondBr != BranchAlways {
		b = append(b, '.')
		b = append(b, in.CondBr.String()...)
	}
	b = append(b, ' ')
	for _, isMul := range [2]bool{false, true} {
		w, f := in.WaddrAdd, in.AddFile()
		if isMul {
			w, f = in.WaddrMul, in.MulFile()
		}
		if w == WNop {
			b = append(b, '-')
		} else {
			b = append(b, w.Name(f)...)
		}
		b = append(b, ", "...)
	}
	if in.Reg {
		b = append(b, in.RaddrA.Name(FileA)...)
		b = append(b, " + "...)
	}
	off := int32(in.Imm)
	if in.Rel && off >= 0 {
		b = append(b, '+')
	}
	b = strconv.AppendInt(b, int64(off), 10)
	if t, ok := in.BranchTarget(pc); ok && pc >= 0 {
		b = append(b, " (@"...)
		b = strconv.AppendInt(b, int64(t), 10)
		b = append(b, ')')
	}
	if !in.Reg && in.RaddrA != 0 {
		// raddr_a is unused without reg, but its low bit sets the flags
		// (vc4asm addendum); show it so that nothing is hidden.
		b = append(b, " ; raddr_a "...)
		b = strconv.AppendInt(b, int64(in.RaddrA), 10)
	}
	if in.Spare != 0 {
		b = appendSpare(b, in.Spare)
	}
	return b
}

// Listing is Disassemble for decoded instructions.
func Listing(insts []Inst) string {
	var sb strings.Builder
	var b []byte
	for i := range insts {
		b = appendIndex(b[:0], i, len(insts))
		b = AppendInst(b, &insts[i], i)
		b = append(b, '\n')
		sb.Write(b)
	}
	return sb.String()
}
