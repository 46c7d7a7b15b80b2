package qpuexec

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vccube/vccube/shaders/qpu"
)

// testKernel is a kernel of the fast path and the general code it stands
// for.
type testKernel struct {
	name string
	fast kernel
	ref  func(d, a, b *vec)
	same bool // the kernel of an instruction whose operands are one input
}

// allKernels returns every add and mul op's kernel, and the copy kernel
// where an op with equal operands uses it.
func allKernels() []testKernel {
	var ks []testKernel
	for op := qpu.AddOp(1); op < 32; op++ {
		if op.Reserved() {
			continue
		}
		ks = append(ks, testKernel{"add " + op.String(), addKernel(op), func(d, a, b *vec) { addALU(op, d, a, b) }, false})
		if addSameIsCopy(op) {
			ks = append(ks, testKernel{"add " + op.String() + " a, a", kCopy, func(d, a, b *vec) { addALU(op, d, a, b) }, true})
		}
	}
	for op := qpu.MulOp(1); op < 8; op++ {
		ks = append(ks, testKernel{"mul " + op.String(), mulKernel(op), func(d, a, b *vec) { mulALU(op, d, a, b) }, false})
		if mulSameIsCopy(op) {
			ks = append(ks, testKernel{"mul " + op.String() + " a, a", kCopy, func(d, a, b *vec) { mulALU(op, d, a, b) }, true})
		}
	}
	// Every set's kernel of every op: the Go loops, which other
	// architectures (and the purego tag) use, whatever this build's
	// choice, and each assembly set this machine can run.
	for _, set := range kernelSets() {
		for op := qpu.AddOp(1); op < 32; op++ {
			if op.Reserved() {
				continue
			}
			ks = append(ks, testKernel{set.name + " add " + op.String(), set.addKernel(op), func(d, a, b *vec) { addALU(op, d, a, b) }, false})
		}
		for op := qpu.MulOp(1); op < 8; op++ {
			ks = append(ks, testKernel{set.name + " mul " + op.String(), set.mulKernel(op), func(d, a, b *vec) { mulALU(op, d, a, b) }, false})
		}
		// The float kernels for a destination that is an operand
		// (intoKernel), here also run into a vector of their own.
		ks = append(ks,
			testKernel{set.name + " fadd into", set.intoKernel(wideFAdd, nil), func(d, a, b *vec) { addALU(qpu.AddFAdd, d, a, b) }, false},
			testKernel{set.name + " fsub into", set.intoKernel(wideFSub, nil), func(d, a, b *vec) { addALU(qpu.AddFSub, d, a, b) }, false},
			testKernel{set.name + " fmul into", set.intoKernel(wideFMul, nil), func(d, a, b *vec) { mulALU(qpu.MulFMul, d, a, b) }, false})
	}
	return ks
}

// kernelSets returns the Go loops' set and every assembly set this
// machine runs.
func kernelSets() []*kernelSet { return append([]*kernelSet{&goKernels}, simdSets()...) }

// TestKernelsMatchGeneralALUs runs every kernel and addALU/mulALU on
// random vectors — any bits, the special words (zeros, denormals, Infs,
// NaNs, extremes), nearby exponents, colours, replicated bytes — and
// requires the same bits in every element: 20000 vector pairs, 16
// elements each, per kernel, each also with its destination the first
// and the second operand.
func TestKernelsMatchGeneralALUs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	g := &progGen{r: r}
	ks := allKernels()
	for n := 0; n < 20000; n++ {
		var a, b vec
		k := uint32(r.IntN(256)) * 0x01010101
		for i := range a {
			a[i], b[i] = g.word(), g.word()
			switch n % 4 {
			case 1:
				b[i] = b[i]&^expMask | a[i]&expMask
			case 2:
				b[i] = k
			case 3:
				if i&2 == 0 {
					b[i] = k
				}
			}
		}
		for _, tk := range ks {
			bb := &b
			if tk.same {
				bb = &a
			}
			var got, want vec
			tk.fast(&got, &a, bb)
			tk.ref(&want, &a, bb)
			if got != want {
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("%s element %d: (%#08x, %#08x) = %#08x, general %#08x", tk.name, i, a[i], bb[i], got[i], want[i])
					}
				}
			}
			// The same with the destination one of the operands, as a
			// bound program's kernel writing straight into a register
			// it reads (r0 = r0 + r5): bound_bind.go directWrites.
			for _, alias := range [2]bool{false, true} {
				x, y := a, *bb
				d, xp, yp := &x, &x, &y
				if tk.same {
					yp = &x
				} else if alias {
					d = &y
				}
				tk.fast(d, xp, yp)
				if *d != want {
					t.Fatalf("%s into its operand %d: (%#08x, %#08x) = %#08x, general %#08x", tk.name, map[bool]int{false: 1, true: 2}[alias], a, *bb, *d, want)
				}
			}
		}
	}
}

// TestKernelsHardwareTable runs every row of the hardware table through
// the fast path's kernels, as TestHardwareALUTable does through addALU and
// mulALU (results; the flags come from the same code on both paths).
func TestKernelsHardwareTable(t *testing.T) {
	for _, r := range loadHWRows(t) {
		var a, b, d vec
		for i := range a {
			a[i], b[i] = r.a, r.b
		}
		if op, ok := hwAddOps[r.op]; ok {
			addKernel(op)(&d, &a, &b)
			if d[0] != r.r {
				t.Errorf("line %d: add kernel %s %#08x, %#08x = %#08x, hardware %#08x", r.line, r.op, r.a, r.b, d[0], r.r)
			}
			if r.a == r.b && addSameIsCopy(op) {
				if kCopy(&d, &a, &a); d[0] != r.r {
					t.Errorf("line %d: %s with one operand as a copy: %#08x, hardware %#08x", r.line, r.op, d[0], r.r)
				}
			}
		}
		if op, ok := hwMulOps[r.op]; ok {
			mulKernel(op)(&d, &a, &b)
			if d[0] != r.r {
				t.Errorf("line %d: mul kernel %s %#08x, %#08x = %#08x, hardware %#08x", r.line, r.op, r.a, r.b, d[0], r.r)
			}
			if r.a == r.b && mulSameIsCopy(op) {
				if kCopy(&d, &a, &a); d[0] != r.r {
					t.Errorf("line %d: %s with one operand as a copy: %#08x, hardware %#08x", r.line, r.op, d[0], r.r)
				}
			}
		}
	}
}

// TestFloatKernelsEdgeCases runs the float kernels against addALU and
// mulALU on the operand mixes TestFastFloatPathsAgreeWithSlowOnes uses for
// the scalar fast paths — any bits, nearby exponents (cancellation, exact
// sums), products near the smallest normal and near the overflow
// threshold, and specials — 40000 vectors of 16 elements each.
func TestFloatKernelsEdgeCases(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	next := r.Uint32
	special := [...]uint32{0, signBit, 1, 0x807fffff, posInf, negInf, 0x7fc00000, 0xff800001}
	pick := func(i int) (a, b uint32) {
		a, b = next(), next()
		switch i % 6 {
		case 1:
			b = b&^expMask | a&expMask
		case 2:
			ea := 1 + next()%126
			eb := 127 - ea + next()%3
			a, b = a&^expMask|ea<<23, b&^expMask|eb<<23
		case 3:
			ea := 128 + next()%126
			eb := 255 - ea + next()%3
			a, b = a&^expMask|ea<<23, b&^expMask|min(eb, 254)<<23
		case 4:
			b = special[next()%uint32(len(special))]
		case 5:
			a = special[next()%uint32(len(special))]
		}
		return a, b
	}
	for n := 0; n < 40000; n++ {
		var a, b vec
		for i := range a {
			a[i], b[i] = pick(n + i)
		}
		check := func(name string, k kernel, ref func(d, a, b *vec)) { checkKernel(t, name, k, ref, &a, &b) }
		for _, set := range kernelSets() {
			check(set.name+" fadd", set.fadd, func(d, a, b *vec) { addALU(qpu.AddFAdd, d, a, b) })
			check(set.name+" fsub", set.fsub, func(d, a, b *vec) { addALU(qpu.AddFSub, d, a, b) })
			check(set.name+" fmul", set.fmul, func(d, a, b *vec) { mulALU(qpu.MulFMul, d, a, b) })
		}
	}
}

// colourPackVec (SSE2, AVX2 and AVX-512 on amd64) gives colourPack's word
// for every element, in packed and in the pack's bits of a destination of
// random bits (the others kept): every float32 whose f·255 lies within 64
// steps of a rounding boundary k + ½ (k = 0…255) and of the integers, 2^20
// random words of any bits, and the specials and edges in every lane,
// under all five colour packs.
func TestColourPackVec(t *testing.T) {
	var words []uint32
	for k := 0; k <= 256; k++ {
		for _, c := range []float64{(float64(k) + 0.5) / 255, float64(k) / 255} {
			b := math.Float32bits(float32(c))
			for d := -64; d <= 64; d++ {
				words = append(words, b+uint32(d), (b+uint32(d))|signBit)
			}
		}
	}
	r := rand.New(rand.NewPCG(7, 8))
	for range 1 << 20 {
		words = append(words, r.Uint32())
	}
	// The edges in every lane of a vector, the AVX-512 form's two halves
	// and the AVX2 form's four quarters included: NaNs and infinities of
	// both signs, denormals, -0, 1 and just above, >1, 0.5/255 and the
	// tie 254.5/255 with their neighbours.
	edges := append([]uint32{0x007fffff, 0x80000001, 0x3f800001, 0x40000000, 0x7f800001, 0xffc00000, 0x7fbfffff,
		math.Float32bits(0.5 / 255), math.Float32bits(0.5/255) - 1, math.Float32bits(0.5/255) + 1,
		math.Float32bits(254.5 / 255), math.Float32bits(254.5/255) - 1, math.Float32bits(254.5/255) + 1,
		math.Float32bits(-0.5 / 255), math.Float32bits(1e-30), math.Float32bits(3e38)}, specialWords...)
	for lane := range 16 {
		for len(words)%16 != lane {
			words = append(words, 0)
		}
		words = append(words, edges...)
	}
	for len(words)%16 != 0 {
		words = append(words, 0)
	}
	for _, k := range colourPackVecs() {
		for _, p := range []qpu.Pack{qpu.PackMul8888, qpu.PackMul8A, qpu.PackMul8B, qpu.PackMul8C, qpu.PackMul8D} {
			mask := colourPackMask(p)
			for i := 0; i < len(words); i += 16 {
				var in, got, d, d0 vec
				copy(in[:], words[i:])
				for e := range d {
					d[e] = r.Uint32()
				}
				d0 = d
				k.f(p, &d, &got, &in)
				for e := range got {
					want := colourPack(p, in[e])
					if got[e] != want || d[e] != d0[e]&^mask|want {
						t.Fatalf("%s %v of %#08x into %#08x: packed %#08x, written %#08x; colourPack %#08x", k.name, p, in[e], d0[e], got[e], d[e], want)
					}
				}
			}
		}
		t.Logf("%s: %d words under each pack", k.name, len(words))
	}
}

// namedColourPack is one version of colourPackVec (colourPackVecs).
type namedColourPack struct {
	name string
	f    func(p qpu.Pack, d, packed, r *vec)
}

// unpackAVec and unpackR4Vec give unpackA and unpackR4 of every element,
// for every unpack code, on 20000 random vectors of any bits, colours and
// float16 halves.
func TestUnpackVecs(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	g := &progGen{r: r}
	for n := 0; n < 20000; n++ {
		var a vec
		for i := range a {
			a[i] = g.word()
			if n%3 == 1 {
				a[i] = uint32(r.IntN(1<<16)) | uint32(r.IntN(1<<16))<<16
			}
		}
		for u := qpu.Unpack(0); u < 8; u++ {
			for _, float := range []bool{false, true} {
				var got vec
				unpackAVec(u, float, &got, &a)
				for i := range got {
					if want := unpackA(u, float, a[i]); got[i] != want {
						t.Fatalf("unpackAVec %v float %v of %#08x: %#08x, unpackA %#08x", u, float, a[i], got[i], want)
					}
				}
			}
			var got vec
			unpackR4Vec(u, &got, &a)
			for i := range got {
				if want := unpackR4(u, a[i]); got[i] != want {
					t.Fatalf("unpackR4Vec %v of %#08x: %#08x, unpackR4 %#08x", u, a[i], got[i], want)
				}
			}
		}
	}
}

// TestIntegerKernelsEdgeCases runs every set's kernels of the ops that
// convert, shift, compare or multiply against addALU and mulALU on the
// operands where their shortcuts could go wrong: floats with exponents
// near 2^31 (ftoi's limit) and near 2^24 and 2^0, integers near ±2^24
// (where itof starts to round) and ±2^31, shift counts 0…63 (only the low
// five bits count), words equal but for the sign, and the special words;
// 40000 vectors of 16 elements each.
func TestIntegerKernelsEdgeCases(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	next := r.Uint32
	pick := func(i int) (a, b uint32) {
		a, b = next(), next()
		switch i % 8 {
		case 1: // floats of magnitude near 2^31, 2^24, 1
			e := []uint32{157, 158, 159, 150, 151, 126, 127, 0, 255}[next()%9]
			a = a&^expMask | e<<23
			if next()%4 == 0 {
				a &^= mantMask
			}
		case 2: // integers near ±2^24 and ±2^31
			base := []uint32{1 << 24, 0xFF000000, 1 << 31, 1<<31 - 1, 0}[next()%5]
			a = base + next()%64 - 32
		case 3: // shift counts of every value, and beyond 31
			b = next() % 64
		case 4: // a and b differ only in sign (fmin, fmax of ±x)
			b = a ^ signBit
		case 5:
			b = a
		case 6:
			a = specialWords[next()%uint32(len(specialWords))]
		case 7:
			b = specialWords[next()%uint32(len(specialWords))]
		}
		return a, b
	}
	adds := []qpu.AddOp{qpu.AddFMin, qpu.AddFMax, qpu.AddFMinAbs, qpu.AddFMaxAbs, qpu.AddFToI, qpu.AddIToF,
		qpu.AddShr, qpu.AddAsr, qpu.AddRor, qpu.AddShl, qpu.AddMin, qpu.AddMax, qpu.AddNot, qpu.AddClz}
	sets := kernelSets()
	for n := 0; n < 40000; n++ {
		var a, b vec
		for i := range a {
			a[i], b[i] = pick(n + i)
		}
		check := func(name string, k kernel, ref func(d, a, b *vec)) { checkKernel(t, name, k, ref, &a, &b) }
		for _, set := range sets {
			for _, op := range adds {
				check(set.name+" "+op.String(), set.addKernel(op), func(d, a, b *vec) { addALU(op, d, a, b) })
			}
			check(set.name+" mul24", set.mul24, func(d, a, b *vec) { mulALU(qpu.MulMul24, d, a, b) })
		}
	}
}

// Every set's colour unpack gives colourToFloat of the byte at its shift:
// all 256 bytes at each of the four byte positions, with random bits in
// the other bytes, and the table itself is rtz32(b/255) (ref_float.go).
func TestColourToFloatKernels(t *testing.T) {
	for i := range 256 {
		if want := rtz32(float64(i) / 255); colourToFloat[i] != want {
			t.Fatalf("colourToFloat[%d] = %#08x, rtz32(%d/255) %#08x", i, colourToFloat[i], i, want)
		}
	}
	r := rand.New(rand.NewPCG(13, 14))
	for _, set := range append(kernelSets(), colourToFloatVecs()...) {
		for shift := uint(0); shift < 32; shift += 8 {
			for round := range 4 {
				for base := 0; base < 256; base += 16 {
					var a, got vec
					for i := range a {
						a[i] = r.Uint32()&^(0xFF<<shift) | uint32((base+i+round*5)&0xFF)<<shift
					}
					set.colour(&got, &a, shift)
					for i := range got {
						if want := colourToFloat[a[i]>>shift&0xFF]; got[i] != want {
							t.Fatalf("%s colour unpack of byte %d (shift %d) of %#08x: %#08x, colourToFloat %#08x", set.name, a[i]>>shift&0xFF, shift, a[i], got[i], want)
						}
					}
				}
			}
		}
	}
}

// checkKernel runs kernel k and the general code ref on a and b and fails
// the test at the first element where they differ.
func checkKernel(t *testing.T, name string, k kernel, ref func(d, a, b *vec), a, b *vec) {
	t.Helper()
	var got, want vec
	k(&got, a, b)
	ref(&want, a, b)
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s element %d: (%#08x, %#08x) = %#08x, general %#08x", name, i, a[i], b[i], got[i], want[i])
		}
	}
}

// TestFloatKernelsDenormals runs fadd, fsub and fmul of every kernel set
// and of the general ALU code on operands around the smallest normal
// (2^-126): denormal operands of either sign, sums and differences that
// cancel into the denormal range, sums whose rounding error lies there,
// and products just below and above it. These are the operands that make
// an x86 float unit see a denormal, where it may take a slow assist. Every
// set gives the general code's bits (ref_float.go: denormal inputs read as
// +0, a result below the smallest normal is +0), a denormal operand gives
// what +0 gives, and no result is a denormal or -0.
func TestFloatKernelsDenormals(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	tiny := func(maxExp uint32) uint32 {
		return r.Uint32()&(signBit|mantMask) | r.Uint32()%(maxExp+1)<<23
	}
	const smallest = 0x1p-126
	var denSums, denProds, denInputs int
	for n := range 20000 {
		var a, b vec
		for i := range a {
			x, y := tiny(24), tiny(24)
			switch (n + i) % 5 {
			case 1: // near x with the other sign: cancellation
				y = x ^ signBit
				if x&mantMask > 64 {
					y -= uint32(r.IntN(64))
				}
			case 2: // x tiny, y up to 2^-76: the sum's rounding error below 2^-126
				y = y&^expMask | (1+r.Uint32()%50)<<23
			case 3: // products around 2^-126
				ea := 1 + r.Uint32()%126
				x = x&^expMask | ea<<23
				y = y&^expMask | max(1, 127-ea+r.Uint32()%3)<<23
			case 4: // denormal operands
				x &^= expMask
				if r.IntN(2) == 0 {
					y &^= expMask
				}
			}
			a[i], b[i] = x, y
			fa, fb := float64(math.Float32frombits(flushIn(x))), float64(math.Float32frombits(flushIn(y)))
			if s := math.Abs(fa + fb); s != 0 && s < smallest {
				denSums++
			}
			if p := math.Abs(fa * fb); p != 0 && p < smallest {
				denProds++
			}
			if x&expMask == 0 && x&mantMask != 0 {
				denInputs++
			}
		}
		flushed := func(v *vec) (f vec) {
			for i := range v {
				f[i] = flushIn(v[i])
			}
			return f
		}
		fa, fb := flushed(&a), flushed(&b)
		refs := []struct {
			op  string
			ref func(d, a, b *vec)
		}{
			{"fadd", func(d, a, b *vec) { addALU(qpu.AddFAdd, d, a, b) }},
			{"fsub", func(d, a, b *vec) { addALU(qpu.AddFSub, d, a, b) }},
			{"fmul", func(d, a, b *vec) { mulALU(qpu.MulFMul, d, a, b) }},
		}
		for _, set := range kernelSets() {
			for j, k := range [...]kernel{set.fadd, set.fsub, set.fmul} {
				name := set.name + " " + refs[j].op
				checkKernel(t, name, k, refs[j].ref, &a, &b)
				var got, zeroed vec
				k(&got, &a, &b)
				k(&zeroed, &fa, &fb)
				for i := range got {
					if got[i] != zeroed[i] {
						t.Fatalf("%s element %d: (%#08x, %#08x) = %#08x, but %#08x with denormals as +0", name, i, a[i], b[i], got[i], zeroed[i])
					}
					if got[i]&expMask == 0 && got[i] != 0 {
						t.Fatalf("%s element %d: (%#08x, %#08x) = %#08x, a denormal or -0", name, i, a[i], b[i], got[i])
					}
				}
			}
		}
	}
	// The operands reached what the test is for.
	if denSums < 1000 || denProds < 1000 || denInputs < 1000 {
		t.Fatalf("too few cases: %d sums, %d products below 2^-126, %d denormal operands", denSums, denProds, denInputs)
	}
	t.Logf("%d sums and %d products below 2^-126, %d denormal first operands", denSums, denProds, denInputs)
}

// TestFloatSumsNearOverflow runs fadd and fsub of every kernel set and of
// the general ALU code on operands of 2^125 and above, whose sums lie
// near 2^128, against ref_float.go's definition (faddSlow, fsubSlow). The
// fast paths' error term (Knuth's TwoSum) is exact only while its steps
// do not overflow: 0x7e7e7e7e - 0x7f7fffff, whose sum rounds to nearest
// at 2^127.6, has s - a round to -2^128, and the correction went wrong.
func TestFloatSumsNearOverflow(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	big := func() uint32 { return r.Uint32()&(signBit|mantMask) | (252+r.Uint32()%3)<<23 }
	for n := range 20000 {
		var a, b vec
		for i := range a {
			a[i], b[i] = big(), big()
		}
		if n == 0 {
			a[0], b[0] = 0x7e7e7e7e, 0x7f7fffff
			a[1], b[1] = 0x7e7e7e7e, 0xff7fffff
		}
		defs := [...]struct {
			op  string
			def func(a, b uint32) uint32
			k   func(set *kernelSet) kernel
		}{
			{"fadd", faddSlow, func(set *kernelSet) kernel { return set.fadd }},
			{"fsub", fsubSlow, func(set *kernelSet) kernel { return set.fsub }},
		}
		for _, def := range defs {
			ks := []testKernel{{name: "general " + def.op, fast: func(d, a, b *vec) {
				addALU(map[string]qpu.AddOp{"fadd": qpu.AddFAdd, "fsub": qpu.AddFSub}[def.op], d, a, b)
			}}}
			for _, set := range kernelSets() {
				ks = append(ks, testKernel{name: set.name + " " + def.op, fast: def.k(set)})
			}
			for _, k := range ks {
				var got vec
				k.fast(&got, &a, &b)
				for i := range got {
					if want := def.def(a[i], b[i]); got[i] != want {
						t.Fatalf("%s element %d: (%#08x, %#08x) = %#08x, ref_float.go %#08x", k.name, i, a[i], b[i], got[i], want)
					}
				}
			}
		}
	}
}

// colourPackVec gives colourPack's byte for every float32 from 0 to 2 (the
// rounding's whole range and beyond the saturation), each in one lane, on
// the form this machine runs: the AVX-512 form rounds in float32, not as
// colourPack does, so its range is checked word by word. Skipped with
// -short.
func TestColourPackVecEveryColour(t *testing.T) {
	if testing.Short() {
		t.Skip("every float32 from 0 to 2: skipped with -short")
	}
	var in, packed, d vec
	for x := uint32(0); x < 0x40000000; x += 16 {
		for e := range in {
			in[e] = x + uint32(e)
		}
		colourPackVec(qpu.PackMul8A, &d, &packed, &in)
		for e, w := range in {
			if want := floatToColour(w); packed[e] != want {
				t.Fatalf("colourPack 8a of %#08x (%g): %#08x, want %#08x", w, math.Float32frombits(w), packed[e], want)
			}
		}
	}
}
