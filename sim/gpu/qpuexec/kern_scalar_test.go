package qpuexec

import "math"

// The scalar forms of the float ops' fast paths and of the byte ops,
// which the vector loops (kern.go's for fadd, fsub and fmul, ref_alu.go's
// for the others) carry inlined by hand: the tests check them, and the
// loops, against the general code.

// fadd is the add ALU's fadd (op 1) on one element.
func fadd(a, b uint32) uint32 {
	fa := math.Float32frombits(a & nonZeroExp(a))
	fb := math.Float32frombits(b & nonZeroExp(b))
	if r, ok := sumRTZ(fa, fb); ok {
		return r
	}
	return faddSlow(a, b)
}

// sumRTZ rounds the sum of two finite floats without denormals toward
// zero: the float32 sum s is rounded to nearest, and TwoSum's error term e
// (exact in any binary floating point with round-to-nearest, Knuth TAOCP
// 4.2.2) says whether s lies beyond the true sum; if so (e ≠ 0 with the
// opposite sign) the true sum truncates to the float one step closer to
// zero, which is s's bits minus one (sign-magnitude). A result below the
// smallest normal is +0. ok is false when s is 2^127 or more in magnitude
// (sumBig: overflow, an Inf or NaN operand, or a sum where a step of the
// error term could overflow): the general path decides then.
func sumRTZ(a, b float32) (uint32, bool) {
	s := a + b
	r := math.Float32bits(s)
	if r&expMask >= sumBig {
		return 0, false
	}
	bb := s - a
	e := math.Float32bits((a - (s - bb)) + (b - bb))
	r -= (e ^ r) >> 31 & isNonZero(e&^signBit)
	return r & nonZeroExp(r), true
}

// fsub is fadd with the second operand negated (op 2), except that a NaN
// second operand gives Inf of the opposite sign (measured).
func fsub(a, b uint32) uint32 {
	fa := math.Float32frombits(a & nonZeroExp(a))
	fb := math.Float32frombits(b & nonZeroExp(b))
	if r, ok := sumRTZ(fa, -fb); ok {
		return r
	}
	return fsubSlow(a, b)
}

// fmul is the mul ALU's fmul (op 1).
func fmul(a, b uint32) uint32 {
	if a&expMask == expMask || b&expMask == expMask {
		return fmulSlow(a, b)
	}
	return mulRTZ(a, b)
}

// mulRTZ is fmul of two operands whose exponents are not 255. The float64
// product of two float32 values is exact (24 + 24 significant bits), so
// clearing its low 29 mantissa bits truncates it toward zero to float32
// precision, and the conversion to float32 is then exact — as long as
// the product is at least the smallest normal float32, 2^-126 (float64
// biased exponent 897); below that the result is +0, which the last mask
// does. A product at or beyond 2^128 converts to ±Inf, the hardware's
// overflow. Denormal and zero operands read as +0 and give +0.
func mulRTZ(a, b uint32) uint32 {
	p := float64(math.Float32frombits(a&nonZeroExp(a))) * float64(math.Float32frombits(b&nonZeroExp(b)))
	pb := math.Float64bits(p)
	r := math.Float32bits(float32(math.Float64frombits(pb &^ (1<<29 - 1))))
	return r & uint32((896-int64(pb>>52&0x7FF))>>63)
}

func v8adds(a, b uint32) uint32 { return uint32(v8adds64(uint64(a), uint64(b))) }
func v8subs(a, b uint32) uint32 { return uint32(v8subs64(uint64(a), uint64(b))) }
func v8min(a, b uint32) uint32  { return uint32(v8min64(uint64(a), uint64(b))) }
func v8max(a, b uint32) uint32  { return uint32(v8max64(uint64(a), uint64(b))) }
