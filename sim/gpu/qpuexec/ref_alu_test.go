package qpuexec

import (
	"bufio"
	"compress/gzip"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/vccube/vccube/shaders/qpu"
)

// hwRow is one row of testdata/vc4c-hw-ops.txt.gz: an opcode run on a
// Raspberry Pi (see testdata/README.md).
type hwRow struct {
	op      string
	a, b, r uint32
	flags   string
	packs   [15]uint32 // sat32, 16aS, 16aT, 16bS, 16bT, 8aS, 8aT, ..., 8888S, 8888T
	line    int
}

// hwPackColumns maps the table's pack columns to regfile-A pack codes.
var hwPackColumns = [15]qpu.Pack{
	qpu.Pack32Sat,
	qpu.Pack16ASat, qpu.Pack16A, qpu.Pack16BSat, qpu.Pack16B,
	qpu.Pack8ASat, qpu.Pack8A, qpu.Pack8BSat, qpu.Pack8B,
	qpu.Pack8CSat, qpu.Pack8C, qpu.Pack8DSat, qpu.Pack8D,
	qpu.Pack8888Sat, qpu.Pack8888,
}

func loadHWRows(t *testing.T) []hwRow {
	t.Helper()
	f, err := os.Open("testdata/vc4c-hw-ops.txt.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var rows []hwRow
	sc := bufio.NewScanner(z)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) != 20 {
			t.Fatalf("line %d: %d fields", n, len(fs))
		}
		hex := func(s string) uint32 {
			v, err := strconv.ParseUint(s, 16, 32)
			if err != nil {
				t.Fatalf("line %d: %v", n, err)
			}
			return uint32(v)
		}
		r := hwRow{op: fs[0], a: hex(fs[1]), b: hex(fs[2]), r: hex(fs[3]), flags: fs[4], line: n}
		for i := range r.packs {
			r.packs[i] = hex(fs[5+i])
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 24*225+4*15 {
		t.Fatalf("%d rows, want %d", len(rows), 24*225+4*15)
	}
	return rows
}

var hwAddOps = map[string]qpu.AddOp{
	"FADD": qpu.AddFAdd, "FSUB": qpu.AddFSub, "FMIN": qpu.AddFMin, "FMAX": qpu.AddFMax,
	"FMINABS": qpu.AddFMinAbs, "FMAXABS": qpu.AddFMaxAbs, "FTOI": qpu.AddFToI, "ITOF": qpu.AddIToF,
	"ADD": qpu.AddAdd, "SUB": qpu.AddSub, "SHR": qpu.AddShr, "ASR": qpu.AddAsr, "ROR": qpu.AddRor,
	"SHL": qpu.AddShl, "MIN": qpu.AddMin, "MAX": qpu.AddMax, "AND": qpu.AddAnd, "OR": qpu.AddOr,
	"XOR": qpu.AddXor, "NOT": qpu.AddNot, "CLZ": qpu.AddClz, "V8ADDS": qpu.AddV8Adds, "V8SUBS": qpu.AddV8Subs,
}

var hwMulOps = map[string]qpu.MulOp{
	"FMUL": qpu.MulFMul, "MUL24": qpu.MulMul24, "V8MULD": qpu.MulV8Muld, "V8MIN": qpu.MulV8Min,
	"V8MAX": qpu.MulV8Max, "V8ADDS": qpu.MulV8Adds, "V8SUBS": qpu.MulV8Subs,
}

func flagString(n, c, z bool) string {
	s := ""
	if n {
		s += "n"
	}
	if c {
		s += "c"
	}
	if z {
		s += "z"
	}
	if s == "" {
		return "-"
	}
	return s
}

// TestHardwareALUTable runs every row of the hardware table through the
// ALUs: results for every op, and the N/C/Z flags for add-ALU ops (the
// table's mul rows carry the add ALU's flags, testdata/README.md).
func TestHardwareALUTable(t *testing.T) {
	rows := loadHWRows(t)
	bad := 0
	for _, r := range rows {
		var a, b, d vec
		for i := range a {
			a[i], b[i] = r.a, r.b
		}
		if op, ok := hwAddOps[r.op]; ok {
			addALU(op, &d, &a, &b)
			n, z := nzFlags(&d)
			c := addCarry(op, &a, &b, &d)
			got := flagString(n&1 != 0, c&1 != 0, z&1 != 0)
			if d[0] != r.r || got != r.flags {
				bad++
				if bad < 20 {
					t.Errorf("line %d: add %s %#08x, %#08x = %#08x flags %s, hardware %#08x flags %s",
						r.line, r.op, r.a, r.b, d[0], got, r.r, r.flags)
				}
			}
		}
		if op, ok := hwMulOps[r.op]; ok {
			mulALU(op, &d, &a, &b)
			if d[0] != r.r {
				bad++
				if bad < 20 {
					t.Errorf("line %d: mul %s %#08x, %#08x = %#08x, hardware %#08x", r.line, r.op, r.a, r.b, d[0], r.r)
				}
			}
		}
	}
}

// hwPackExceptions are the table entries our pack model does not
// reproduce, with the reason (ref_pack.go packA).
var hwPackExceptions = map[[4]uint32]string{
	{0x7fffffff, 0x7fffffff, uint32(qpu.Pack16ASat), 0}: "overflowing add, saturating 16-bit pack: hardware 0x7fff, the N/Z/C rule gives 0",
	{0x7fffffff, 0x7fffffff, uint32(qpu.Pack16BSat), 0}: "same, high half",
}

// TestHardwarePackTable writes every row's result through every regfile-A
// pack into a zeroed register and compares with the hardware.
func TestHardwarePackTable(t *testing.T) {
	rows := loadHWRows(t)
	skipped := 0
	for _, r := range rows {
		float := false
		var f packFlags
		if op, ok := hwAddOps[r.op]; ok && r.op != "V8ADDS" && r.op != "V8SUBS" {
			float = resultIsFloatAdd(op)
			a, b, d := vec{r.a}, vec{r.b}, vec{r.r}
			v := addOverflow(op, &a, &b, &d)
			c := addCarry(op, &a, &b, &d)
			f = packFlags{overflow: v&1 != 0, c: c&1 != 0, n: r.r>>31 != 0, z: r.r == 0}
		} else if op, ok := hwMulOps[r.op]; ok {
			float = op == qpu.MulFMul
		}
		for i, p := range hwPackColumns {
			got := packA(p, float, r.r, f) & packMask(p)
			if got == r.packs[i] {
				continue
			}
			if why, ok := hwPackExceptions[[4]uint32{r.a, r.b, uint32(p), 0}]; ok && r.op == "ADD" {
				t.Logf("known difference, line %d %s %s: %s", r.line, r.op, p, why)
				skipped++
				continue
			}
			t.Errorf("line %d: %s %#08x, %#08x = %#08x packed %s: got %#08x, hardware %#08x",
				r.line, r.op, r.a, r.b, r.r, p, got, r.packs[i])
		}
	}
	if skipped != len(hwPackExceptions) {
		t.Errorf("%d known differences met, %d listed", skipped, len(hwPackExceptions))
	}
}

// TestFloatRounding checks the rounding model on values the hardware table
// does not reach, worked out by hand: the results round toward zero.
func TestFloatRounding(t *testing.T) {
	f := math.Float32bits
	one := f(1)
	tiny := f(0x1p-30)
	cases := []struct {
		name string
		got  uint32
		want uint32
	}{
		// 1 - 2^-30: the exact value lies between 1-2^-24 and 1; toward
		// zero gives 1-2^-24 (0x3f7fffff); nearest would give 1.0.
		{"1 - 2^-30", fadd(one, tiny|signBit), 0x3f7fffff},
		{"1 + 2^-30", fadd(one, tiny), one},
		{"-1 - 2^-30", fadd(one|signBit, tiny|signBit), one | signBit},
		{"-1 + 2^-30", fadd(one|signBit, tiny), 0xbf7fffff},
		// 1/3 * 3 in float32: 0x3eaaaaab * 3 = 1.0000000298 -> toward zero 1.0
		{"0x3eaaaaab * 3", fmul(0x3eaaaaab, f(3)), one},
		// (1+2^-23) * (1+2^-23) = 1 + 2^-22 + 2^-46 -> 1 + 2^-22
		{"(1+u)^2", fmul(0x3f800001, 0x3f800001), 0x3f800002},
		// (1-2^-24)^2 = 1 - 2^-23 + 2^-48: just above 0x3f7ffffe; truncates to it
		{"(1-u/2)^2", fmul(0x3f7fffff, 0x3f7fffff), 0x3f7ffffe},
		// Underflow: 2^-100 * 2^-30 is below 2^-126: +0, as is its negative.
		{"underflow", fmul(f(0x1p-100), f(0x1p-30)), 0},
		{"-underflow", fmul(f(0x1p-100), f(-0x1p-30)), 0},
		// Overflow: 2^100 * 2^30 = 2^130: +Inf; -2^127 - 2^127 = -2^128: -Inf.
		{"overflow", fmul(f(0x1p100), f(0x1p30)), posInf},
		{"-overflow", fadd(f(-0x1p127), f(-0x1p127)), negInf},
		// MaxFloat32 + 2^103 (half an ulp) truncates back to MaxFloat32.
		{"max + half ulp", fadd(f(math.MaxFloat32), f(0x1p103)), 0x7f7fffff},
		// Denormal inputs read as zero; -0 reads as +0.
		{"denormal + 0", fadd(0x00000001, 0), 0},
		{"-0 + -0", fadd(signBit, signBit), 0},
		{"1 * denormal", fmul(one, 0x007fffff), 0},
		// itof rounds toward zero: 16777217 -> 16777216, -16777217 -> -16777216.
		{"itof 2^24+1", itof(16777217), f(16777216)},
		{"itof -(2^24+1)", itof(uint32(0xFFFFFFFF - 16777216)), f(-16777216)},
		// ftoi truncates toward zero and keeps the low 32 bits: from
		// 2^31 to 2^32 the integer wraps (Mesa's f2u32 is ftoi, and
		// nir_lower_idiv's emit_udiv converts about 2^32 - 512 with it
		// for a divisor of 1: ref_float.go); from 2^55 on, and for Inf and
		// NaN patterns, every bit is shifted out and it gives 0.
		{"ftoi -2.75", ftoi(f(-2.75)), uint32(0xFFFFFFFE)},
		{"ftoi 2^31", ftoi(f(0x1p31)), 0x80000000},
		{"ftoi -2^31", ftoi(f(-0x1p31)), 0x80000000},
		{"ftoi 2^31-128", ftoi(f(2147483520)), 2147483520},
		{"ftoi 4294966784 (emit_udiv, divisor 1)", ftoi(0x4F7FFFFE), 0xFFFFFE00},
		{"ftoi -(2^31+256)", ftoi(f(-2147483904)), 0x7FFFFF00},
		{"ftoi 2^32", ftoi(f(0x1p32)), 0},
		{"ftoi 3*2^31", ftoi(f(0x3p31)), 0x80000000},
		{"ftoi 2^55", ftoi(f(0x1p55)), 0},
		{"ftoi 0x70000000", ftoi(0x70000000), 0},
		{"ftoi Inf", ftoi(posInf), 0},
		// Inf - Inf: the first operand's Inf.
		{"Inf - Inf", fsub(posInf, posInf), posInf},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s = %#08x, want %#08x", c.name, c.got, c.want)
		}
	}
}

// TestRtzSumExhaustiveAgainstBig checks rtzSum on random pairs against an
// exact computation with big-enough integers: both operands are scaled to a
// common exponent, added exactly, and truncated.
func TestRtzSumAgainstExact(t *testing.T) {
	seed := uint64(12345)
	next := func() uint32 {
		seed = seed*6364136223846793005 + 1442695040888963407
		return uint32(seed >> 32)
	}
	for i := 0; i < 200000; i++ {
		a, b := next(), next()
		// Keep exponents moderate and close-ish so the exact sum fits
		// comfortably in a float64 or exercises the far-apart branch.
		a = a&0x807FFFFF | (uint32(100+next()%60) << 23)
		b = b&0x807FFFFF | (uint32(100+next()%60) << 23)
		got := fadd(a, b)
		want := exactRTZSum(a, b)
		if got != want {
			t.Fatalf("fadd(%#08x, %#08x) = %#08x, exact toward zero %#08x", a, b, got, want)
		}
	}
}

// exactRTZSum adds two normal float32 values exactly with 128-bit integer
// arithmetic and truncates toward zero.
func exactRTZSum(a, b uint32) uint32 {
	type num struct {
		neg  bool
		exp  int    // value = mant * 2^(exp-150)
		mant uint64 // 24 bits
	}
	dec := func(x uint32) num {
		return num{x>>31 != 0, int(x >> 23 & 0xFF), uint64(x&mantMask | 1<<23)}
	}
	x, y := dec(a), dec(b)
	if x.exp < y.exp {
		x, y = y, x
	}
	d := x.exp - y.exp
	if d > 60 {
		// y is far below one ulp of x: the sum truncates to x, or to x
		// one unit closer to zero when y has the opposite sign.
		if x.neg == y.neg {
			return rebuild(x.neg, x.exp, x.mant<<3)
		}
		return rebuild(x.neg, x.exp, x.mant<<3-1)
	}
	// Work with 3 guard bits and shift y by d, remembering a sticky bit.
	xm := x.mant << 3
	ym := y.mant << 3
	sticky := uint64(0)
	if d > 0 {
		if ym&(1<<d-1) != 0 {
			sticky = 1
		}
		ym >>= d
	}
	var neg bool
	var m uint64
	if x.neg == y.neg {
		neg, m = x.neg, xm+ym
		// Sticky bits below: truncation ignores them for same signs.
	} else {
		if xm > ym || (xm == ym && sticky == 0) {
			neg = x.neg
			m = xm - ym
			if sticky != 0 {
				m-- // the true value is a bit less than m in magnitude: floor
			}
		} else {
			neg = y.neg
			m = ym - xm
		}
	}
	if m == 0 {
		return 0
	}
	return rebuild(neg, x.exp, m)
}

// rebuild truncates mant*2^(exp-153) to a float32 (3 guard bits below the
// 24-bit mantissa).
func rebuild(neg bool, exp int, mant uint64) uint32 {
	for mant >= 1<<27 {
		mant >>= 1
		exp++
	}
	for mant < 1<<26 {
		mant <<= 1
		exp--
	}
	if exp <= 0 {
		return 0
	}
	r := uint32(exp)<<23 | uint32(mant>>3)&mantMask
	if neg {
		r |= signBit
	}
	return r
}

func TestHalfConversions(t *testing.T) {
	f := math.Float32bits
	cases := []struct {
		in, want uint32
	}{
		{f(1), 0x3C00},
		{f(-2), 0xC000},
		{f(65504), 0x7BFF},
		{f(65520), 0x7C00},    // rounds up past the largest half: Inf
		{f(0x1p-14), 0x0400},  // smallest normal half
		{f(0x1p-15), 0},       // would be a half denormal: 0
		{0x3f800001, 0x3C01},  // any discarded bit rounds the magnitude up
		{0xbf800001, 0xBC01},  // ... for negatives too
		{0x3f801fff, 0x3C01},  // 13 discarded bits all set: still one step
		{f(0.333333), 0x3556}, // 0x3eaaaa9f -> mantissa 0x155 + 1
		{signBit, 0},          // -0 -> +0
		{0x7fc00000, 0x7C00},  // NaN -> Inf
		{0xffffffff, 0xFC00},  // -NaN -> -Inf
	}
	for _, c := range cases {
		if got := halfFromFloat(c.in); got != c.want {
			t.Errorf("halfFromFloat(%#08x) = %#04x, want %#04x", c.in, got, c.want)
		}
	}
	back := []struct{ h, want uint32 }{
		{0x3C00, f(1)},
		{0xC000, f(-2)},
		{0x7C00, posInf},
		{0x0001, 0x00002000}, // half denormal: mantissa shifted, exponent 0 (a float denormal)
		{0x8200, 0x80400000},
	}
	for _, c := range back {
		if got := floatFromHalf(c.h); got != c.want {
			t.Errorf("floatFromHalf(%#04x) = %#08x, want %#08x", c.h, got, c.want)
		}
	}
}

// TestByteOpsAgainstPerByteReference checks the SWAR byte ops against a
// byte-at-a-time reference written from their definitions (AG Tables
// 12-13; v8muld as VC4C measures it), on every pair of bytes in every
// position and on random words, with replicated and mixed second operands.
func TestByteOpsAgainstPerByteReference(t *testing.T) {
	ref := func(f func(x, y uint32) uint32) func(a, b uint32) uint32 {
		return func(a, b uint32) (r uint32) {
			for sh := uint(0); sh < 32; sh += 8 {
				r |= f(a>>sh&0xFF, b>>sh&0xFF) << sh
			}
			return r
		}
	}
	ops := []struct {
		name      string
		got, want func(a, b uint32) uint32
	}{
		{"v8adds", v8adds, ref(func(x, y uint32) uint32 { return min(x+y, 255) })},
		{"v8subs", v8subs, ref(func(x, y uint32) uint32 {
			if x < y {
				return 0
			}
			return x - y
		})},
		{"v8min", v8min, ref(func(x, y uint32) uint32 { return min(x, y) })},
		{"v8max", v8max, ref(func(x, y uint32) uint32 { return max(x, y) })},
		{"v8muld", v8muld, ref(func(x, y uint32) uint32 { return (x*y + 127) / 255 })},
	}
	check := func(a, b uint32) {
		for _, op := range ops {
			if g, w := op.got(a, b), op.want(a, b); g != w {
				t.Fatalf("%s(%#08x, %#08x) = %#08x, want %#08x", op.name, a, b, g, w)
			}
		}
	}
	for x := uint32(0); x < 256; x++ {
		for y := uint32(0); y < 256; y++ {
			check(x*0x01010101, y*0x01010101)     // replicated (v8muld's fast path)
			check(x<<24|y<<8|x, y<<16|x<<8|y)     // mixed bytes
			check(x*0x01010101, y<<24|0x00FF8001) // replicated a, mixed b
		}
	}
	seed := uint32(1)
	for i := 0; i < 100000; i++ {
		seed = seed*1664525 + 1013904223
		a := seed
		seed = seed*1664525 + 1013904223
		check(a, seed)
	}
}

// TestByteOpVectorsAgainstScalar checks the vector loops, which work on two
// elements per 64-bit word, against the scalar ops (checked above) element
// by element: random vectors whose second operand is random, one byte
// replicated in every element (v8muld's multiply path), or replicated in
// some word pairs and not others.
func TestByteOpVectorsAgainstScalar(t *testing.T) {
	type op struct {
		name string
		run  func(d, a, b *vec)
		ref  func(a, b uint32) uint32
	}
	ops := []op{
		{"add v8adds", func(d, a, b *vec) { addALU(qpu.AddV8Adds, d, a, b) }, v8adds},
		{"add v8subs", func(d, a, b *vec) { addALU(qpu.AddV8Subs, d, a, b) }, v8subs},
		{"mul v8adds", func(d, a, b *vec) { mulALU(qpu.MulV8Adds, d, a, b) }, v8adds},
		{"mul v8subs", func(d, a, b *vec) { mulALU(qpu.MulV8Subs, d, a, b) }, v8subs},
		{"v8min", func(d, a, b *vec) { mulALU(qpu.MulV8Min, d, a, b) }, v8min},
		{"v8max", func(d, a, b *vec) { mulALU(qpu.MulV8Max, d, a, b) }, v8max},
		{"v8muld", func(d, a, b *vec) { mulALU(qpu.MulV8Muld, d, a, b) }, v8muld},
		{"and", func(d, a, b *vec) { addALU(qpu.AddAnd, d, a, b) }, func(a, b uint32) uint32 { return a & b }},
		{"or", func(d, a, b *vec) { addALU(qpu.AddOr, d, a, b) }, func(a, b uint32) uint32 { return a | b }},
		{"xor", func(d, a, b *vec) { addALU(qpu.AddXor, d, a, b) }, func(a, b uint32) uint32 { return a ^ b }},
		{"not", func(d, a, b *vec) { addALU(qpu.AddNot, d, a, b) }, func(a, _ uint32) uint32 { return ^a }},
	}
	seed := uint64(7)
	next := func() uint32 {
		seed = seed*6364136223846793005 + 1442695040888963407
		return uint32(seed >> 32)
	}
	for n := 0; n < 20000; n++ {
		var a, b vec
		k := next() & 0xFF * 0x01010101
		for i := range a {
			a[i] = next()
			switch n % 3 {
			case 0:
				b[i] = next()
			case 1:
				b[i] = k
			default:
				if i&2 == 0 {
					b[i] = k
				} else {
					b[i] = next()
				}
			}
		}
		for _, o := range ops {
			var d vec
			o.run(&d, &a, &b)
			for i := range d {
				if w := o.ref(a[i], b[i]); d[i] != w {
					t.Fatalf("%s element %d: (%#08x, %#08x) = %#08x, want %#08x", o.name, i, a[i], b[i], d[i], w)
				}
			}
		}
	}
}

// TestFastFloatPathsAgreeWithSlowOnes checks fadd, fsub and fmul's
// branch-free fast paths (and the vector loops' hand-inlined copies)
// against the general code on random operands: any bits; nearby exponents
// (cancellation, exact cases); products near the smallest normal and the
// overflow threshold; and a share of zeros, -0, denormals, Infs and NaNs.
func TestFastFloatPathsAgreeWithSlowOnes(t *testing.T) {
	seed := uint64(99)
	next := func() uint32 {
		seed = seed*6364136223846793005 + 1442695040888963407
		return uint32(seed >> 32)
	}
	special := [...]uint32{0, signBit, 1, 0x807fffff, posInf, negInf, 0x7fc00000, 0xff800001}
	mulRef := func(a, b uint32) uint32 {
		fa, fb := flushIn(a), flushIn(b)
		switch {
		case fa == 0 || fb == 0:
			return 0
		case fa&expMask == expMask || fb&expMask == expMask:
			return infWithSign((a^b)&signBit != 0)
		}
		return rtz32(float64(math.Float32frombits(fa)) * float64(math.Float32frombits(fb)))
	}
	for i := 0; i < 600000; i++ {
		a, b := next(), next()
		switch i % 6 {
		case 1: // nearby exponents: cancellation and exact cases
			b = b&^expMask | a&expMask
		case 2: // products around 2^-126 (biased exponents summing to ~127)
			ea := 1 + next()%126
			eb := 127 - ea + next()%3
			a = a&^expMask | ea<<23
			b = b&^expMask | eb<<23
		case 3: // products around 2^128
			ea := 128 + next()%126
			eb := 255 - ea + next()%3
			a = a&^expMask | ea<<23
			b = b&^expMask | min(eb, 254)<<23
		case 4:
			b = special[next()%uint32(len(special))]
		case 5:
			a = special[next()%uint32(len(special))]
		}
		if got, want := fadd(a, b), faddSlow(a, b); got != want {
			t.Fatalf("fadd(%#08x, %#08x) = %#08x, general path %#08x", a, b, got, want)
		}
		if got, want := fsub(a, b), fsubSlow(a, b); got != want {
			t.Fatalf("fsub(%#08x, %#08x) = %#08x, general path %#08x", a, b, got, want)
		}
		if got, want := fsub(a, b), faddSlow(a, b^signBit); got != want && !isNaNBits(b) {
			t.Fatalf("fsub(%#08x, %#08x) = %#08x, fadd of the negation %#08x", a, b, got, want)
		}
		want := mulRef(a, b)
		if got := fmul(a, b); got != want {
			t.Fatalf("fmul(%#08x, %#08x) = %#08x, general path %#08x", a, b, got, want)
		}
		if got := fmulSlow(a, b); got != want {
			t.Fatalf("fmulSlow(%#08x, %#08x) = %#08x, definition %#08x", a, b, got, want)
		}
		// The vector loops carry hand-inlined copies of the fast paths.
		va, vb := vec{a, b}, vec{b, a}
		var d vec
		mulALU(qpu.MulFMul, &d, &va, &vb)
		if d[0] != want || d[1] != mulRef(b, a) {
			t.Fatalf("mulALU fmul(%#08x, %#08x) = %#08x, general path %#08x", a, b, d[0], want)
		}
		addALU(qpu.AddFAdd, &d, &va, &vb)
		if w := faddSlow(a, b); d[0] != w || d[1] != faddSlow(b, a) {
			t.Fatalf("addALU fadd(%#08x, %#08x) = %#08x, general path %#08x", a, b, d[0], w)
		}
		addALU(qpu.AddFSub, &d, &va, &vb)
		if w := fsubSlow(a, b); d[0] != w || d[1] != fsubSlow(b, a) {
			t.Fatalf("addALU fsub(%#08x, %#08x) = %#08x, general path %#08x", a, b, d[0], w)
		}
	}
}

// TestDivideBy255 checks the identity v8muld relies on.
func TestDivideBy255(t *testing.T) {
	for x := uint32(0); x <= 255*255+127; x++ {
		if (x+1+x>>8)>>8 != x/255 {
			t.Fatalf("(%d + 1 + %d>>8)>>8 != %d/255", x, x, x)
		}
	}
}

// TestCarryFuncs holds the per-op C-flag loops the fast path sets flags
// with (addCarryFunc, mulCarryFunc) to addCarry and mulCarry, for every
// op, on random words and on words built from the edge values of each
// rule (zero, the sign bit, ±Inf, NaN, equal operands, shift counts 0,
// 1 and 31, products around 2^32).
func TestCarryFuncs(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	edges := [...]uint32{0, 1, 2, 31, 32, 0x7FFFFFFF, signBit, 0xFFFFFFFF, posInf, negInf, 0x7fc00000, 0x00800000, 0x10000, 0xFFFFFF, 0x1000000}
	word := func() uint32 {
		if r.IntN(3) == 0 {
			return edges[r.IntN(len(edges))]
		}
		return r.Uint32()
	}
	for n := 0; n < 20000; n++ {
		var a, b, res vec
		for i := range a {
			a[i], b[i] = word(), word()
			if r.IntN(8) == 0 {
				b[i] = a[i]
			}
		}
		for op := qpu.AddOp(1); op < 32; op++ {
			if op.Reserved() {
				continue
			}
			addALU(op, &res, &a, &b)
			if got, want := addCarryFunc(op)(&a, &b, &res), addCarry(op, &a, &b, &res); got != want {
				t.Fatalf("add %v: C %#04x, addCarry %#04x (a %x, b %x)", op, got, want, a, b)
			}
		}
		for op := qpu.MulOp(1); op < 8; op++ {
			mulALU(op, &res, &a, &b)
			if got, want := mulCarryFunc(op)(&a, &b, &res), mulCarry(op, &a, &b); got != want {
				t.Fatalf("mul %v: C %#04x, mulCarry %#04x (a %x, b %x)", op, got, want, a, b)
			}
		}
	}
}
