package qpuexec

import (
	"math"
	"testing"
)

func f32(b uint32) float64 { return float64(math.Float32frombits(b)) }

// TestSFUPrecisionBounds checks the model's stated error bounds (sfu.go)
// over a spread of inputs: relative 2^-14 for recip, rsqrt and exp2,
// absolute 2^-17 (plus the float32 rounding) for log2.
func TestSFUPrecisionBounds(t *testing.T) {
	for e := -100; e <= 100; e++ {
		for k := 0; k < 64; k++ {
			x := math.Ldexp(1+float64(k)/64, e)
			xb := fbits(float32(x))
			x = f32(xb)
			rel := func(got, want float64) float64 { return math.Abs(got-want) / math.Abs(want) }
			if d := rel(f32(sfu(sfuRecip, xb)), 1/x); d > 0x1p-14 {
				t.Fatalf("recip(%g): relative error %g > 2^-14", x, d)
			}
			if d := rel(f32(sfu(sfuRecipSqrt, xb)), 1/math.Sqrt(x)); d > 0x1p-14 {
				t.Fatalf("rsqrt(%g): relative error %g > 2^-14", x, d)
			}
			if d := math.Abs(f32(sfu(sfuLog2, xb)) - math.Log2(x)); d > 0x1p-17+math.Abs(math.Log2(x))*0x1p-24 {
				t.Fatalf("log2(%g): absolute error %g > 2^-17", x, d)
			}
			if y := float64(e) / 8; true {
				yb := fbits(float32(y + float64(k)/512))
				y = f32(yb)
				if d := rel(f32(sfu(sfuExp2, yb)), math.Exp2(y)); d > 0x1p-14 {
					t.Fatalf("exp2(%g): relative error %g > 2^-14", y, d)
				}
			}
		}
	}
}

// TestSFUAgainstMeasurements compares the model with the values a
// Raspberry Pi returned in doe300/VC4C doc/sfu_accuracy.txt (copied here as
// printed there, 7 significant digits). The model does not claim the
// hardware's bits; it must be as close to them as the hardware is to the
// exact function.
func TestSFUAgainstMeasurements(t *testing.T) {
	in := []float64{0, 1, 2, 3.141593, 2.718282, 100, 1000, 1e5, 0.5, 0.25, 0.125, -1, -2, -0.5, -1e5, -3.141593}
	// exp: 2^x measured.
	exp := []float64{1.000031, 2.000061, 4.000122, 8.825195, 6.581055, 1.267689e30, math.Inf(1), math.Inf(1),
		1.414246, 1.189240, 1.090546, 0.4999847, 0.2499924, 0.7071075, 0, 0.1133175}
	// log: log2(x) measured (the magnitude's log for negative x).
	log := []float64{math.Inf(-1), 0, 1, 1.651428, 1.442627, 6.643829, 9.965729, 16.60959,
		-0.9999847, -1.999985, -2.999985, 0, 1, -0.9999847, 16.60959, 1.651428}
	// recip(recip(x)) measured.
	rr := []float64{0, 1, 2.000183, 3.141602, 2.718323, 100.0039, 999.9844, 1e5, 0.5000458, 0.2500229, 0.1250114,
		-1, -2.000183, -0.5000458, -1e5, -3.141602}
	// exp2(log2(x)) measured.
	el := []float64{0, 1.000031, 2.000061, 3.141541, 2.718262, 100.002, 999.9531, 99996, 0.5000153, 0.2500076,
		0.1250038, 1.000031, 2.000061, 0.5000153, 99996, 3.141541}
	close := func(got, want, tol float64) bool {
		if math.IsInf(want, 0) || want == 0 {
			return got == want
		}
		return math.Abs(got-want) <= tol*math.Abs(want)
	}
	for i, x := range in {
		xb := fbits(float32(x))
		if got := f32(sfu(sfuExp2, xb)); !close(got, exp[i], 0x1p-13) {
			t.Errorf("exp2(%g) = %g, the Pi gave %g", x, got, exp[i])
		}
		if got := f32(sfu(sfuLog2, xb)); !(math.Abs(got-log[i]) <= 0x1p-13 || got == log[i]) {
			t.Errorf("log2(%g) = %g, the Pi gave %g", x, got, log[i])
		}
		if got := f32(sfu(sfuRecip, sfu(sfuRecip, xb))); !close(got, rr[i], 0x1p-12) {
			t.Errorf("recip(recip(%g)) = %g, the Pi gave %g", x, got, rr[i])
		}
		if got := f32(sfu(sfuExp2, sfu(sfuLog2, xb))); !close(got, el[i], 0x1p-12) {
			t.Errorf("exp2(log2(%g)) = %g, the Pi gave %g", x, got, el[i])
		}
	}
}

func TestSFUSpecialValues(t *testing.T) {
	cases := []struct {
		name string
		fn   int
		x    uint32
		want uint32
	}{
		{"1/0", sfuRecip, 0, posInf},
		{"1/-0", sfuRecip, signBit, posInf},
		{"1/denormal", sfuRecip, 1, posInf},
		{"1/Inf", sfuRecip, posInf, 0},
		{"1/-Inf", sfuRecip, negInf, 0},
		{"1/huge (denormal result)", sfuRecip, fbits(0x1p127), 0},
		{"1/-4", sfuRecip, fbits(-4), fbits(-0.25)},
		{"rsqrt(0)", sfuRecipSqrt, 0, posInf},
		{"rsqrt(-4)", sfuRecipSqrt, fbits(-4), fbits(0.5)},
		{"rsqrt(Inf)", sfuRecipSqrt, posInf, 0},
		{"log2(0)", sfuLog2, 0, negInf},
		{"log2(-8)", sfuLog2, fbits(-8), fbits(3)},
		{"log2(Inf)", sfuLog2, posInf, posInf},
		{"exp2(-Inf)", sfuExp2, negInf, 0},
		{"exp2(128)", sfuExp2, fbits(128), posInf},
		{"exp2(-127)", sfuExp2, fbits(-127), 0},
		{"exp2(-126)", sfuExp2, fbits(-126), fbits(0x1p-126)},
		{"exp2(3)", sfuExp2, fbits(3), fbits(8)},
		{"exp2(NaN)", sfuExp2, 0x7fc00000, posInf},
	}
	for _, c := range cases {
		if got := sfu(c.fn, c.x); got != c.want {
			t.Errorf("%s = %#08x, want %#08x", c.name, got, c.want)
		}
	}
}
