package qpuexec

import "math"

// The QPU's floating point, as measured on hardware. The sources:
//
//   - doe300/VC4C test/opcode_test.h and test/opcode_pack_test.h: every ALU
//     op and every regfile-A pack run on a Raspberry Pi over 15 edge-case
//     operands (0, ±0, denormals, 1.0, -1.0, 2.0, huge, NaN bit patterns),
//     "auto generated from code run on the actual hardware". Our tests run
//     every row of those tables (testdata/vc4c-hw-ops.txt.gz).
//   - maazl/vc4asm doc/VideoCoreIV-addendum.html "no inf, nan, denormal
//     support": denormals are truncated to 0; 0.0 + NaN = +Inf.
//   - VC4C src/intrinsics/Operators.h and src/asm/OpCodes.cpp, whose
//     comments record further measurements (round toward zero, NaN signs).
//
// The model:
//   - Inputs of fadd, fsub, fmul and ftoi: denormals and -0 read as +0.
//   - Results of fadd, fsub, fmul and itof are rounded toward zero; a
//     result below the smallest normal is +0; a result at or beyond 2^128
//     is ±Inf (measured: 0x70000000 × 0x70000000 = +Inf).
//     Round toward zero is measured for itof (0x7fffffff → 0x4effffff) and
//     recorded by VC4C for fadd/fsub; the tables cannot tell it apart from
//     round-to-nearest for fmul, which we assume rounds the same way.
//   - NaN operands (any exponent-255, non-zero-mantissa pattern) produce
//     ±Inf, the hardware's only non-finite encoding: x + NaN has the NaN's
//     sign, x - NaN the opposite sign, NaN + x and NaN - x the NaN's sign
//     (the tables check all four); a NaN times a non-zero value is Inf with
//     the product's sign, and zero times anything is +0 (measured).
//   - Inf - Inf (not in the tables) gives Inf with the first operand's
//     sign: the hardware has no NaN encoding to return.
//   - fmin, fmax, fminabs and fmaxabs compare the raw bit patterns as
//     sign-magnitude numbers (so +NaN is above +Inf, -NaN below -Inf,
//     denormals order by magnitude and -0 equals +0) and return an operand
//     unchanged: fmax returns a if a > b else b, fmin returns a if a <= b
//     else b (measured: fmin(-0, +0) = -0, fmin(+0, -0) = +0).

const (
	signBit  = 0x80000000
	expMask  = 0x7F800000
	mantMask = 0x007FFFFF
	posInf   = 0x7F800000
	negInf   = 0xFF800000
)

func isNaNBits(x uint32) bool { return x&expMask == expMask && x&mantMask != 0 }
func isInfBits(x uint32) bool { return x&^signBit == posInf }

// flushIn returns x with denormals and -0 read as +0.
func flushIn(x uint32) uint32 {
	if x&expMask == 0 {
		return 0
	}
	return x
}

// infWithSign returns +Inf, or -Inf when neg.
func infWithSign(neg bool) uint32 {
	if neg {
		return negInf
	}
	return posInf
}

// twoTo128 is the magnitude at which a result overflows to Inf.
const twoTo128 = 3.402823669209385e38 // 2^128

// rtz32 returns x rounded toward zero to a float32, flushing results below
// the smallest normal to +0 and overflowing at 2^128 to ±Inf. x must be the
// exact result, or a float64 rounding of it that is not itself a float32
// (see rtzSum for that case).
func rtz32(x float64) uint32 {
	f := float32(x) // round to nearest
	if float64(f) != x {
		if math.IsInf(float64(f), 0) {
			if math.Abs(x) >= twoTo128 {
				return infWithSign(x < 0)
			}
			f = float32(math.Copysign(math.MaxFloat32, x))
		} else if math.Abs(float64(f)) > math.Abs(x) {
			// Rounded away from zero: step one unit back. Float32 bits
			// are sign-magnitude, so minus one shrinks the magnitude.
			f = math.Float32frombits(math.Float32bits(f) - 1)
		}
	}
	b := math.Float32bits(f)
	if b&expMask == 0 {
		return 0
	}
	return b
}

// rtzSum rounds a + b toward zero. The float64 sum s of two float32 values
// is exact unless their exponents differ by more than 29 bits; the error
// term of Knuth's TwoSum says which way s was rounded, which matters only
// when s itself is a float32 (then the true sum is a hair beyond it).
func rtzSum(a, b float64) uint32 {
	s := a + b
	bb := s - a
	err := (a - (s - bb)) + (b - bb)
	r := rtz32(s)
	if err != 0 && float64(math.Float32frombits(r)) == s && r&expMask != 0 && r&^signBit != posInf {
		if (err < 0) != (s < 0) {
			// The true value is closer to zero than s: step toward zero.
			r--
			if r&expMask == 0 {
				r = 0
			}
		}
	}
	return r
}

// The fast paths of fadd, fsub and fmul handle every operand whose
// exponent is not 255 (normals, zeros and denormals: everything but Inf
// and NaN patterns) without a data-dependent branch: real fragment data
// (coordinates that are 0 at a vertex, signs that vary from lane to lane)
// made the branchy versions mispredict on most lanes. The vector loops of
// ref_alu.go carry them inlined; their scalar forms (sumRTZ, mulRTZ) are in
// kern_scalar_test.go. Each is checked against the general path, which stays
// the definition, on random and edge operands (ref_alu_test.go
// TestFastFloatPathsAgreeWithSlowOnes).

// sumBig is the exponent field from which the fast paths of fadd and fsub
// leave a sum to faddSlow or fsubSlow: a round-to-nearest sum s of 2^127
// or more. Knuth's TwoSum gives the exact error of s only when none of
// its steps overflows; s - a overflows only when s's last place is
// 2^104, that is |s| >= 2^127 (0x7e7e7e7e - 0x7f7fffff rounds to
// -0x1.80c0cp+127, and s - a to -Inf). Below that its steps stay finite.
const sumBig = 254 << 23

// nonZeroExp is all ones when x's exponent is not zero and zero when it is
// (±0 and denormals): x & nonZeroExp(x) is flushIn(x) without a branch.
func nonZeroExp(x uint32) uint32 { return uint32(-int32(x&expMask) >> 31) }

// isNonZero is 1 when x is not zero, else 0.
func isNonZero(x uint32) uint32 { return (x | -x) >> 31 }

func faddSlow(a, b uint32) uint32 {
	a, b = flushIn(a), flushIn(b)
	if isNaNBits(b) {
		return infWithSign(b&signBit != 0)
	}
	if isNaNBits(a) {
		return infWithSign(a&signBit != 0)
	}
	if isInfBits(a) {
		return a
	}
	if isInfBits(b) {
		return b
	}
	return rtzSum(float64(math.Float32frombits(a)), float64(math.Float32frombits(b)))
}

func fsubSlow(a, b uint32) uint32 {
	a, b = flushIn(a), flushIn(b)
	if isNaNBits(b) {
		return infWithSign(b&signBit == 0)
	}
	if isNaNBits(a) {
		return infWithSign(a&signBit != 0)
	}
	if isInfBits(a) {
		return a
	}
	if b != 0 {
		b ^= signBit
	}
	if isInfBits(b) {
		return b
	}
	return rtzSum(float64(math.Float32frombits(a)), float64(math.Float32frombits(b)))
}

// fmulSlow is fmul by the definition, for any operands (ref_float.go's model
// above): the fast path's reference.
func fmulSlow(a, b uint32) uint32 {
	a, b = flushIn(a), flushIn(b)
	if a == 0 || b == 0 {
		return 0
	}
	neg := (a^b)&signBit != 0
	if a&expMask == expMask || b&expMask == expMask {
		return infWithSign(neg)
	}
	return rtz32(float64(math.Float32frombits(a)) * float64(math.Float32frombits(b)))
}

// floatKey orders float bit patterns as the min/max ops do: sign-magnitude,
// with -0 equal to +0.
func floatKey(x uint32) int64 {
	if x&signBit != 0 {
		return -int64(x &^ signBit)
	}
	return int64(x)
}

// ftoi converts to an integer, truncating toward zero, and keeps the
// low 32 bits of its two's complement: magnitudes from 2^31 to 2^32 wrap
// (4294966784.0 gives 0xfffffe00), and from 2^55 on, Inf and NaN
// patterns included, every mantissa bit lies above bit 31 and the result
// is 0 (measured for NaN, Inf-like and 0x70000000). DERIVED for the wrap:
// Mesa's vc4 compiles f2u32 to ftoi (vc4_program.c, ntq_emit_alu), and
// nir_lower_idiv's emit_udiv converts reciprocal × 4294966784.0, about
// 2^32 − 512 for a divisor of 1, with it; real Pi 3 boards pass
// dEQP-GLES2's integer division cases (doc/hardware.md#qpu).
func ftoi(a uint32) uint32 {
	a = flushIn(a)
	e := int(a >> 23 & 0xFF)
	if e < 127 {
		return 0 // |a| < 1, ±0 and flushed denormals
	}
	m := uint64(a&0x7FFFFF | 0x800000)
	var v uint32
	switch sh := e - 150; {
	case sh < 0:
		v = uint32(m >> -sh)
	case sh < 32:
		v = uint32(m << sh)
	}
	if a&signBit != 0 {
		v = -v
	}
	return v
}

// itof converts a signed integer to float, rounding toward zero (measured:
// 0x7fffffff → 0x4effffff, not 0x4f000000).
func itof(a uint32) uint32 { return rtz32(float64(int32(a))) }

// halfFromFloat converts a float32 result to float16 for the regfile-A
// 16-bit packs. Measured (VC4C OpCodes.cpp packLiteral, HalfType.cpp, and
// the pack tables): ±0 → +0; NaN and Inf → ±Inf; results too small for a
// normal half → +0; too large → ±Inf; and the discarded mantissa bits round
// the magnitude up ("always rounds to ±Inf (away from zero)", VC4C
// HalfType.cpp roundToHalf; the tables show 0x3f7fffff → 0x3c00).
func halfFromFloat(x uint32) uint32 {
	sign := x >> 16 & 0x8000
	if x&^signBit == 0 {
		return 0
	}
	if x&expMask == expMask {
		return sign | 0x7C00
	}
	exp := int(x>>23&0xFF) - 127 + 15
	mant := x & mantMask
	if exp <= 0 {
		return 0 // would be a half denormal (or smaller)
	}
	m := mant >> 13
	if mant&0x1FFF != 0 {
		m++
		if m == 0x400 { // carried into the exponent
			m = 0
			exp++
		}
	}
	if exp >= 0x1F {
		return sign | 0x7C00
	}
	return sign | uint32(exp)<<10 | m
}

// floatFromHalf converts a float16 (low 16 bits of h) to float32 bits for the
// 16a/16b float unpacks. A half denormal is converted without adjusting the
// exponent, giving a float32 denormal (measured; VC4C OpCodes.cpp
// unpackLiteral: "only the mantissa is shifted and the sign is kept"); half
// Inf and NaN keep their meaning.
func floatFromHalf(h uint32) uint32 {
	sign := (h & 0x8000) << 16
	exp := h >> 10 & 0x1F
	mant := h & 0x3FF
	switch exp {
	case 0:
		return sign | mant<<13
	case 0x1F:
		return sign | expMask | mant<<13
	}
	return sign | (exp+127-15)<<23 | mant<<13
}

// colourToFloat is the 8-bit colour unpack: byte/255, rounded toward zero
// (VC4C OpCodes.cpp expandColor; the guide only says "8-bit color value (in
// range [0, 1.0]) to 32 bit float", AG Table 6).
var colourToFloat = func() (t [256]uint32) {
	for i := range t {
		t[i] = rtz32(float64(i) / 255)
	}
	return t
}()

// floatToColour is the mul ALU's colour pack (pm = 1): c = sat[round(f *
// 255)] (AG §3 "Pack/Unpack Bits"). Rounding is to nearest with ties away
// from zero; NaN patterns saturate by sign like the Infs they stand for.
func floatToColour(x uint32) uint32 {
	if x&signBit != 0 {
		return 0
	}
	if x&expMask == expMask {
		return 255
	}
	v := math.Round(float64(math.Float32frombits(x)) * 255)
	if v >= 255 {
		return 255
	}
	return uint32(v)
}
