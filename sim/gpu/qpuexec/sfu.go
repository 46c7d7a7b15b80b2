package qpuexec

import "math"

// The special functions unit (AG §3 "Special Functions Unit"): writing
// SFU_RECIP, SFU_RECIPSQRT, SFU_EXP or SFU_LOG (waddr 52-55) computes the
// function of each element and returns it in r4 for the third instruction
// after the write; the two in between still see the old r4 (AG: "Instruction
// N+3 can read r4"). EXP is 2^x and LOG is log2(x) (doe300/VC4C
// doc/sfu_accuracy.txt: "EXP is 2^x !!!", "log is log2(x) !!!").
//
// Precision. The only measurements we have are VC4C's doc/sfu_accuracy.txt:
// a Pi's results for 16 inputs of recip(recip(x)), exp2(log2(x)),
// recip(rsqrt(x))-style round trips, exp2(x) and log2(x). They show errors
// of 1e-6 to 1e-4 relative, of both signs, "min accuracy" 10 to 12 bits by
// their bit-comparison metric; for instance exp2(0) = 1.000031 (1 + 2^-15),
// exp2(-1) = 0.4999847, log2(pi) = 1.651428 (exact 1.651496), log2(0.5) =
// -0.9999847; log of a negative number is the log of its magnitude (log(-1)
// = 0, exp2(log2(-2)) = 2), and likewise for rsqrt. VC4C's own emulator
// (src/tools/Emulator.cpp addSFUError) clears the low 10 mantissa bits of
// the exact result.
//
// Our model, chosen to have the measured size of error without pretending
// to reproduce the hardware's bits (which no source gives):
//   - recip, rsqrt and exp2: the exact function of the (flushed) input,
//     rounded to nearest with 13 explicit mantissa bits (relative error at
//     most 2^-14 ≈ 6.1e-5, the size of the measured errors);
//   - log2: the exact log2 of the magnitude, rounded to a multiple of 2^-16
//     (absolute error at most 2^-17; the measured errors are absolute,
//     1.5e-5 to 6.8e-5, and exact at powers of two), then to float32;
//   - special values: 1/0 and rsqrt(0) = +Inf (denormals and -0 read as 0);
//     1/±Inf = +0, rsqrt(Inf) = +0; log2(0) = -Inf, log2(Inf) = +Inf;
//     exp2 overflows to +Inf at 2^128 and flushes to +0 below 2^-126;
//     NaN patterns act as the Inf they stand for (float.go); results below
//     the smallest normal are +0. sfu_test.go checks every measured value
//     of sfu_accuracy.txt against this model within 2^-13.

// The SFU functions, numbered as their write address minus SFU_RECIP.
const (
	sfuRecip     = 0
	sfuRecipSqrt = 1
	sfuExp2      = 2
	sfuLog2      = 3
)

// round13 rounds a positive or negative finite float64 to 13 explicit
// mantissa bits and converts it to float32 bits, flushing results below the
// smallest normal to +0 and overflowing at 2^128 to Inf.
func round13(x float64) uint32 {
	if x == 0 || math.IsNaN(x) {
		return 0
	}
	if math.IsInf(x, 0) {
		return infWithSign(x < 0)
	}
	m, e := math.Frexp(x) // x = m * 2^e, 0.5 <= |m| < 1
	m = math.Round(m*(1<<14)) / (1 << 14)
	r := math.Ldexp(m, e)
	if math.Abs(r) >= twoTo128 {
		return infWithSign(r < 0)
	}
	b := math.Float32bits(float32(r)) // exact: r has 14 significant bits
	if b&expMask == 0 {
		return 0
	}
	return b
}

// sfuValue reads an SFU operand: denormals and -0 as +0, NaN as Inf.
func sfuValue(x uint32) float64 {
	x = flushIn(x)
	if isNaNBits(x) {
		x &^= mantMask
	}
	return float64(math.Float32frombits(x))
}

// sfu computes SFU function fn of one element.
func sfu(fn int, x uint32) uint32 {
	v := sfuValue(x)
	switch fn {
	case sfuRecip:
		if v == 0 {
			return posInf
		}
		if math.IsInf(v, 0) {
			return 0
		}
		return round13(1 / v)
	case sfuRecipSqrt:
		v = math.Abs(v)
		if v == 0 {
			return posInf
		}
		if math.IsInf(v, 0) {
			return 0
		}
		return round13(1 / math.Sqrt(v))
	case sfuExp2:
		if math.IsInf(v, -1) || v < -200 {
			return 0
		}
		if v >= 128 {
			return posInf
		}
		return round13(math.Exp2(v))
	default: // sfuLog2
		v = math.Abs(v)
		if v == 0 {
			return negInf
		}
		if math.IsInf(v, 0) {
			return posInf
		}
		l := math.Round(math.Log2(v)*(1<<16)) / (1 << 16)
		b := math.Float32bits(float32(l))
		if b&expMask == 0 {
			return 0
		}
		return b
	}
}
