package qpuexec

import "math"

// The special functions unit (AG §3 "Special Functions Unit"): writing
// SFU_RECIP, SFU_RECIPSQRT, SFU_EXP or SFU_LOG (waddr 52-55) computes the
// function of each element and returns it in r4 for the third instruction
// after the write; the two in between still see the old r4 (AG: "Instruction
// N+3 can read r4"). EXP is 2^x and LOG is log2(x) (doe300/VC4C
// doc/sfu_accuracy.txt: "EXP is 2^x !!!", "log is log2(x) !!!").
//
// Precision. The only measurements we have are VC4C's doc/sfu_accuracy.txt: a
// Pi's results for 16 inputs of recip(recip(x)), exp2(log2(x)),
// recip(rsqrt(x))-style round trips, exp2(x) and log2(x). The round trips
// through recip and rsqrt err by up to about 1e-4 relative, of both signs
// (recip(recip(2)) = 2.000183). Exp2 and log2 err less but one-sidedly:
// exp2(0) = 1.000031 (1 + 2^-15), exp2(1) = 2.000061, exp2(2) = 4.000122,
// and every non-integer result 1e-5 to 3.5e-5 above the exact value
// (exp2(-1) = 0.4999847 and exp2(-2) = 0.2499924 are the exceptions, below
// by 2^-15); log2 is exact at 1 and 2, 1.8 to 4.5 units of 2^-16 below the
// exact value at the other positive results (log2(pi) = 1.651428, exact
// 1.651496; log2(100) = 6.643829) and one unit of 2^-16 above it at 0.5,
// 0.25 and 0.125 (-0.9999847, -1.999985, -2.999985). The log of a negative
// number is the log of its magnitude (log(-1) = 0, exp2(log2(-2)) = 2), and
// likewise for rsqrt. VC4C's own emulator (src/tools/Emulator.cpp
// addSFUError) clears the low 10 mantissa bits of the exact result.
//
// Our model, chosen to have the measured size and direction of error
// without pretending to reproduce the hardware's bits (which no source
// gives; doc/hardware.md#qpu):
//   - recip and rsqrt: the exact function of the (flushed) input, rounded
//     to nearest with 13 explicit mantissa bits (relative error at most
//     2^-14 ≈ 6.1e-5, the size of the measured errors);
//   - exp2: the exact 2^x times (1 + 2^-15), rounded to float32: the
//     measured bias at the integers from 0 up, within 1.2e-5 (relative) of
//     the measured results at positive non-integers and within 3e-5 at
//     negative ones, but 6.1e-5 above the Pi's at -1 and -2;
//   - log2: a fixed-point result with 16 fraction bits, the exponent plus
//     the mantissa's log2 truncated to 2^-16 less 3 units (not below 0),
//     one unit added when the exponent is negative: exact at powers of two
//     from 1 up, 3 to 4 units below the exact value elsewhere, and the
//     measured -1 + 2^-16 at 0.5;
//   - special values: 1/0 and rsqrt(0) = +Inf (denormals and -0 read as 0);
//     1/±Inf = +0, rsqrt(Inf) = +0; log2(0) = -Inf, log2(Inf) = +Inf;
//     exp2 overflows to +Inf from 2^128 and flushes to +0 below 2^-126;
//     NaN patterns act as the Inf they stand for (ref_float.go); results below
//     the smallest normal are +0. ref_sfu_test.go checks every measured value
//     of doc/sfu_accuracy.txt against this model.
//
// The biases are why piglit's glsl-1.10 built-in-functions tests of exp2,
// log and log2 fail on a Pi 3 (their tolerance is 1e-5 of the expected
// value), as Mesa CI's record of a Pi 3 (conform/pi3/testdata) says they
// do.

// The SFU functions, numbered as their write address minus SFU_RECIP.
const (
	sfuRecip     = 0
	sfuRecipSqrt = 1
	sfuExp2      = 2
	sfuLog2      = 3
)

// round13 rounds a finite float64 to 13 explicit mantissa bits, half away
// from zero, and converts it to float32 bits, flushing results below the
// smallest normal to +0 and overflowing at 2^128 to ±Inf; NaN gives +0.
//
// It works on the float64's bits: adding half a unit of the 13th mantissa
// bit to the magnitude and clearing the 39 bits below rounds the magnitude
// half away from zero, and a mantissa that overflows carries into the
// exponent, which is math.Round at the 14th significant bit followed by
// math.Ldexp. The rounded magnitude's bits, compared as an integer, decide
// flush and overflow; in between, rebiasing the exponent and dropping 29
// bits gives the float32. ref_sfu_test.go compares it with the math-package
// version (round13Reference) on its edges and over every SFU input.
func round13(x float64) uint32 {
	const (
		half      = 1 << 38             // half a unit of the 13th mantissa bit
		minNormal = (1023 - 126) << 52  // 2^-126, the smallest float32 normal
		overflow  = (1023 + 128) << 52  // 2^128
		rebias    = (1023 - 127) << 52  // float64 exponent bias minus float32's
		inf64     = 0x7FF0000000000000  // float64 +Inf
		sign64    = 1 << 63             // float64 sign
		dropped   = 1<<(39-(52-23)) - 1 // float32 mantissa bits below the 13th
	)
	b := math.Float64bits(x)
	mag := b&^sign64 + half
	if mag < minNormal {
		return 0 // zero, float64 denormals, and results below 2^-126
	}
	sign := uint32(b>>32) & signBit
	if mag >= overflow {
		if b&^sign64 > inf64 {
			return 0 // NaN
		}
		return posInf | sign
	}
	return sign | uint32((mag-rebias)>>(52-23))&^dropped
}

// sfuVec computes SFU function fn of each element of src into dst. The
// function is chosen once for the vector; each element's operand reads
// denormals and -0 as +0 and NaN as the Inf it stands for (ref_float.go).
//
//   - recip is 1/x: +Inf for ±0 and denormals, +0 for ±Inf and NaN;
//   - rsqrt is 1/sqrt(|x|): the same special values;
//   - exp2 and log2: sfuExp2Of and sfuLog2Of.
//
// recip and rsqrt, the common ones, are written out in their loops so that
// round13 inlines there.
func sfuVec(fn int, dst, src *vec) {
	switch fn {
	case sfuRecip:
		for i, x := range src {
			if normal(x) {
				dst[i] = round13(1 / float64(math.Float32frombits(x)))
			} else {
				dst[i] = recipSpecial(x)
			}
		}
	case sfuRecipSqrt:
		for i, x := range src {
			if normal(x) {
				dst[i] = round13(1 / math.Sqrt(float64(math.Float32frombits(x&^signBit))))
			} else {
				dst[i] = recipSpecial(x)
			}
		}
	case sfuExp2:
		for i, x := range src {
			dst[i] = sfuExp2Of(x)
		}
	default:
		for i, x := range src {
			dst[i] = sfuLog2Of(x)
		}
	}
}

// normal reports whether float32 x is neither ±0, denormal, ±Inf nor NaN:
// its exponent field less one is below 254, in one unsigned comparison.
func normal(x uint32) bool { return x&expMask-1<<23 < expMask-1<<23 }

// recipSpecial is recip and rsqrt of an operand that is not normal: +Inf for
// ±0 and denormals, +0 for ±Inf and NaN.
func recipSpecial(x uint32) uint32 {
	if x&expMask == 0 {
		return posInf
	}
	return 0
}

// Float32 bit patterns that bound sfuExp2Of's cases.
const (
	f32Bits128    = 0x43000000 // 128
	f32BitsNeg200 = 0xC3480000 // -200
)

// exp2Bias is the measured relative bias of the SFU's exp2 (see above).
const exp2Bias = 1 + 0x1p-15

// f32Overflow is the smallest float64 that rounds to float32 +Inf: half a
// float32 unit above the largest float32.
const f32Overflow = 0x1p128 - 0x1p103

// sfuExp2Of is 2^x (1 + 2^-15) rounded to float32: 1 + 2^-15 for ±0 and
// denormals, +Inf from 128 up (+Inf and +NaN included) and for results
// that round to 2^128, +0 below -200 (-Inf and -NaN included) and for
// results below 2^-126.
func sfuExp2Of(x uint32) uint32 {
	if int32(x) >= f32Bits128 {
		return posInf
	}
	if x > f32BitsNeg200 {
		return 0
	}
	if x&expMask == 0 {
		x = 0
	}
	v := math.Exp2(float64(math.Float32frombits(x))) * exp2Bias
	if v >= f32Overflow {
		return posInf
	}
	b := math.Float32bits(float32(v))
	if b&expMask == 0 {
		return 0
	}
	return b
}

// log2Deficit is how many units of 2^-16 the model's log2 of a mantissa
// above 1 lies below the truncated exact value (the Pi's results lie 1.8
// to 4.5 units below the exact value; see above).
const log2Deficit = 3

// sfuLog2Of is the SFU's log2(|x|) in units of 2^-16: the exponent e, plus
// the mantissa m's log2 truncated to 2^-16 less log2Deficit units (not
// below 0), plus one unit when e is negative; -Inf for ±0 and denormals,
// +Inf for ±Inf and NaN. |result| < 128 · 2^16 < 2^24 units, exact in
// float32.
func sfuLog2Of(x uint32) uint32 {
	switch x & expMask {
	case 0:
		return negInf
	case expMask:
		return posInf
	}
	e := int32(x>>23&0xFF) - 127
	r := e << 16
	if m := x & mantMask; m != 0 {
		// log2 of 1 + m/2^23 lies in (0, 1): truncation is floor.
		if f := int32(math.Log2(1+float64(m)*0x1p-23)*(1<<16)) - log2Deficit; f > 0 {
			r += f
		}
	}
	if e < 0 {
		r++
	}
	if r == 0 {
		return 0
	}
	return math.Float32bits(float32(r) * (1.0 / (1 << 16)))
}
