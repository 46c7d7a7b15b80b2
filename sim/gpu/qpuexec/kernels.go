package qpuexec

import (
	"math"

	"github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/sim/gpu/internal/lanes"
)

// A kernel computes one ALU operation on all 16 elements: d[i] = a[i] op
// b[i]. The compiled steps (fast.go) call the kernel their instruction's
// opcode selects, once per instruction, instead of the general
// interpreter's addALU and mulALU, which choose the operation element loop
// by element loop. The hot operations have loops of their own written for
// speed; every kernel must give the bits addALU or mulALU give (the
// reference), which kernels_test.go checks on random and special operands
// and on every row of the hardware tables.
type kernel func(d, a, b *vec)

// kernelSet is one implementation of every SIMD kernel (amd64 has an
// SSE2 and an AVX2 set; kernels_amd64.go).
type kernelSet struct {
	name                                                                           string
	fadd, fsub, fmul, v8muld, v8adds, v8subs, v8min, v8max, and, or, xor, add, sub kernel
}

// addKernel returns the kernel of add op op, or nil for NOP (and the
// reserved opcodes, which a program cannot load with).
func addKernel(op qpu.AddOp) kernel {
	switch op {
	case qpu.AddNop:
		return nil
	case qpu.AddFAdd:
		return kFAdd
	case qpu.AddFSub:
		return kFSub
	case qpu.AddAdd:
		return kAdd
	case qpu.AddSub:
		return kSub
	case qpu.AddAnd:
		return kAnd
	case qpu.AddOr:
		return kOr
	case qpu.AddXor:
		return kXor
	case qpu.AddV8Adds:
		return kV8Adds
	case qpu.AddV8Subs:
		return kV8Subs
	}
	if op.Reserved() {
		return nil
	}
	return func(d, a, b *vec) { addALU(op, d, a, b) }
}

// mulKernel returns the kernel of mul op op, or nil for NOP.
func mulKernel(op qpu.MulOp) kernel {
	switch op {
	case qpu.MulNop:
		return nil
	case qpu.MulFMul:
		return kFMul
	case qpu.MulV8Muld:
		return kV8Muld
	case qpu.MulV8Min:
		return kV8Min
	case qpu.MulV8Max:
		return kV8Max
	case qpu.MulV8Adds:
		return kV8Adds
	case qpu.MulV8Subs:
		return kV8Subs
	}
	return func(d, a, b *vec) { mulALU(op, d, a, b) }
}

// kCopy is the kernel of an op whose result is its operand when both
// operands are the same input (sameOperandIsCopy): or and v8min are the
// assembler's and Mesa's mov and mmov.
func kCopy(d, a, _ *vec) { copyVec(d, a) }

// copyVec copies s to d (lanes.Copy: inlined, no memmove call).
func copyVec(d, s *vec) { lanes.Copy(d, s) }

// addSameIsCopy reports whether add op op returns a when both operands
// are a: or, and, min and max (signed), fmin and fmax (which return an
// operand unchanged, float.go).
func addSameIsCopy(op qpu.AddOp) bool {
	switch op {
	case qpu.AddOr, qpu.AddAnd, qpu.AddMin, qpu.AddMax, qpu.AddFMin, qpu.AddFMax:
		return true
	}
	return false
}

// mulSameIsCopy reports whether mul op op returns a when both operands are
// a: v8min and v8max (each byte's min or max with itself).
func mulSameIsCopy(op qpu.MulOp) bool { return op == qpu.MulV8Min || op == qpu.MulV8Max }

// kFAddGo is fadd: float.go's sumRTZ per element, with its general path
// (faddSlow) for the elements whose sum is not finite.
func kFAddGo(d, a, b *vec) {
	for i := range d {
		x, y := a[i], b[i]
		fa := math.Float32frombits(x & nonZeroExp(x))
		fb := math.Float32frombits(y & nonZeroExp(y))
		s := fa + fb
		r := math.Float32bits(s)
		if r&expMask == expMask {
			d[i] = faddSlow(x, y)
			continue
		}
		bb := s - fa
		e := math.Float32bits((fa - (s - bb)) + (fb - bb))
		r -= (e ^ r) >> 31 & isNonZero(e&^signBit)
		d[i] = r & nonZeroExp(r)
	}
}

// kFSubGo is fsub: kFAddGo with the second operand's sign flipped (a NaN
// second operand goes to fsubSlow, which gives its own sign rule).
func kFSubGo(d, a, b *vec) {
	for i := range d {
		x, y := a[i], b[i]
		fa := math.Float32frombits(x & nonZeroExp(x))
		fb := math.Float32frombits((y & nonZeroExp(y)) ^ signBit)
		s := fa + fb
		r := math.Float32bits(s)
		if r&expMask == expMask {
			d[i] = fsubSlow(x, y)
			continue
		}
		bb := s - fa
		e := math.Float32bits((fa - (s - bb)) + (fb - bb))
		r -= (e ^ r) >> 31 & isNonZero(e&^signBit)
		d[i] = r & nonZeroExp(r)
	}
}

// kFMulGo is fmul: float.go's mulRTZ per element, fmulSlow for Inf and NaN
// operands.
func kFMulGo(d, a, b *vec) {
	for i := range d {
		x, y := a[i], b[i]
		if x&expMask == expMask || y&expMask == expMask {
			d[i] = fmulSlow(x, y)
			continue
		}
		p := float64(math.Float32frombits(x&nonZeroExp(x))) * float64(math.Float32frombits(y&nonZeroExp(y)))
		pb := math.Float64bits(p)
		r := math.Float32bits(float32(math.Float64frombits(pb &^ (1<<29 - 1))))
		d[i] = r & uint32((896-int64(pb>>52&0x7FF))>>63)
	}
}

func kAddGo(d, a, b *vec) {
	for i := range d {
		d[i] = a[i] + b[i]
	}
}

func kSubGo(d, a, b *vec) {
	for i := range d {
		d[i] = a[i] - b[i]
	}
}

func kAndGo(d, a, b *vec) {
	d2, a2, b2 := pairs(d), pairs(a), pairs(b)
	for i := range d2 {
		d2[i] = a2[i] & b2[i]
	}
}

func kOrGo(d, a, b *vec) {
	d2, a2, b2 := pairs(d), pairs(a), pairs(b)
	for i := range d2 {
		d2[i] = a2[i] | b2[i]
	}
}

func kXorGo(d, a, b *vec) {
	d2, a2, b2 := pairs(d), pairs(a), pairs(b)
	for i := range d2 {
		d2[i] = a2[i] ^ b2[i]
	}
}

func kV8AddsGo(d, a, b *vec) {
	d2, a2, b2 := pairs(d), pairs(a), pairs(b)
	for i := range d2 {
		d2[i] = v8adds64(a2[i], b2[i])
	}
}

func kV8SubsGo(d, a, b *vec) {
	d2, a2, b2 := pairs(d), pairs(a), pairs(b)
	for i := range d2 {
		d2[i] = v8subs64(a2[i], b2[i])
	}
}

func kV8MinGo(d, a, b *vec) {
	d2, a2, b2 := pairs(d), pairs(a), pairs(b)
	for i := range d2 {
		d2[i] = v8min64(a2[i], b2[i])
	}
}

func kV8MaxGo(d, a, b *vec) {
	d2, a2, b2 := pairs(d), pairs(a), pairs(b)
	for i := range d2 {
		d2[i] = v8max64(a2[i], b2[i])
	}
}

// kV8MuldGo is v8muld. When the second operand is one byte in every byte of
// every element (a uniform such as the cube's light constants), one
// v8muldByte64 per pair of elements does it; otherwise each pair whose
// second operand is not one byte replicated goes element by element.
func kV8MuldGo(d, a, b *vec) {
	d2, a2, b2 := pairs(d), pairs(a), pairs(b)
	for i := range d2 {
		if k := b2[i] & 0xFF; b2[i] == k*0x0101010101010101 {
			d2[i] = v8muldByte64(a2[i], k)
			continue
		}
		d[2*i] = v8muld(a[2*i], b[2*i])
		d[2*i+1] = v8muld(a[2*i+1], b[2*i+1])
	}
}

// colourPackGo is the mul ALU's colour pack (pack.go colourPack) of every
// element, for an unconditional write: d[i] = colourPack(p, r[i]).
func colourPackGo(p qpu.Pack, d, r *vec) {
	for i := range d {
		d[i] = colourPack(p, r[i])
	}
}

// unpackAVec is the regfile-A unpack (pack.go unpackA) of every element,
// with the choice of unpack made once.
func unpackAVec(u qpu.Unpack, float bool, d, a *vec) {
	switch {
	case u == qpu.Unpack8DRep:
		for i := range d {
			d[i] = (a[i] >> 24) * 0x01010101
		}
	case u >= qpu.Unpack8A && u <= qpu.Unpack8D && float:
		sh := 8 * uint(u-qpu.Unpack8A)
		for i := range d {
			d[i] = colourToFloat[a[i]>>sh&0xFF]
		}
	case u >= qpu.Unpack8A && u <= qpu.Unpack8D:
		sh := 8 * uint(u-qpu.Unpack8A)
		for i := range d {
			d[i] = a[i] >> sh & 0xFF
		}
	default:
		for i := range d {
			d[i] = unpackA(u, float, a[i])
		}
	}
}

// unpackR4Vec is the r4 unpack (pack.go unpackR4) of every element.
func unpackR4Vec(u qpu.Unpack, d, a *vec) {
	switch {
	case u == qpu.Unpack8DRep:
		for i := range d {
			d[i] = (a[i] >> 24) * 0x01010101
		}
	case u >= qpu.Unpack8A && u <= qpu.Unpack8D:
		sh := 8 * uint(u-qpu.Unpack8A)
		for i := range d {
			d[i] = colourToFloat[a[i]>>sh&0xFF]
		}
	default:
		for i := range d {
			d[i] = unpackR4(u, a[i])
		}
	}
}
