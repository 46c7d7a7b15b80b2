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
	// The Go loops, which other architectures (and the purego tag) use,
	// whatever this build's table holds. (fadd, fsub and fmul's are
	// addALU's and mulALU's own: the scalar forms in fastpath_test.go
	// and the ALU tables check those.)
	goKernels := []struct {
		name string
		k    kernel
		add  qpu.AddOp
		mul  qpu.MulOp
	}{
		{"go fadd", kFAddGo, qpu.AddFAdd, 0}, {"go fsub", kFSubGo, qpu.AddFSub, 0},
		{"go add", kAddGo, qpu.AddAdd, 0}, {"go sub", kSubGo, qpu.AddSub, 0},
		{"go and", kAndGo, qpu.AddAnd, 0}, {"go or", kOrGo, qpu.AddOr, 0}, {"go xor", kXorGo, qpu.AddXor, 0},
		{"go v8adds", kV8AddsGo, qpu.AddV8Adds, 0}, {"go v8subs", kV8SubsGo, qpu.AddV8Subs, 0},
		{"go fmul", kFMulGo, 0, qpu.MulFMul}, {"go v8muld", kV8MuldGo, 0, qpu.MulV8Muld},
		{"go v8min", kV8MinGo, 0, qpu.MulV8Min}, {"go v8max", kV8MaxGo, 0, qpu.MulV8Max},
	}
	// Each assembly set this machine runs, whichever the build chose.
	for _, set := range simdSets() {
		for _, g := range []struct {
			name string
			k    kernel
			add  qpu.AddOp
			mul  qpu.MulOp
		}{
			{"fadd", set.fadd, qpu.AddFAdd, 0}, {"fsub", set.fsub, qpu.AddFSub, 0},
			{"add", set.add, qpu.AddAdd, 0}, {"sub", set.sub, qpu.AddSub, 0},
			{"and", set.and, qpu.AddAnd, 0}, {"or", set.or, qpu.AddOr, 0}, {"xor", set.xor, qpu.AddXor, 0},
			{"v8adds", set.v8adds, qpu.AddV8Adds, 0}, {"v8subs", set.v8subs, qpu.AddV8Subs, 0},
			{"fmul", set.fmul, 0, qpu.MulFMul}, {"v8muld", set.v8muld, 0, qpu.MulV8Muld},
			{"v8min", set.v8min, 0, qpu.MulV8Min}, {"v8max", set.v8max, 0, qpu.MulV8Max},
		} {
			goKernels = append(goKernels, struct {
				name string
				k    kernel
				add  qpu.AddOp
				mul  qpu.MulOp
			}{set.name + " " + g.name, g.k, g.add, g.mul})
		}
	}
	for _, g := range goKernels {
		add, mul := g.add, g.mul
		ref := func(d, a, b *vec) { addALU(add, d, a, b) }
		if mul != 0 {
			ref = func(d, a, b *vec) { mulALU(mul, d, a, b) }
		}
		ks = append(ks, testKernel{g.name, g.k, ref, false})
	}
	return ks
}

// TestKernelsMatchGeneralALUs runs every kernel and addALU/mulALU on
// random vectors — any bits, the special words (zeros, denormals, Infs,
// NaNs, extremes), nearby exponents, colours, replicated bytes — and
// requires the same bits in every element: 20000 vector pairs, 16
// elements each, per kernel.
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
		check := func(name string, k kernel, ref func(d, a, b *vec)) {
			var got, want vec
			k(&got, &a, &b)
			ref(&want, &a, &b)
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%s element %d: (%#08x, %#08x) = %#08x, general %#08x", name, i, a[i], b[i], got[i], want[i])
				}
			}
		}
		check("fadd", kFAdd, func(d, a, b *vec) { addALU(qpu.AddFAdd, d, a, b) })
		check("fsub", kFSub, func(d, a, b *vec) { addALU(qpu.AddFSub, d, a, b) })
		check("fmul", kFMul, func(d, a, b *vec) { mulALU(qpu.MulFMul, d, a, b) })
		for _, set := range simdSets() {
			check(set.name+" fadd", set.fadd, func(d, a, b *vec) { addALU(qpu.AddFAdd, d, a, b) })
			check(set.name+" fsub", set.fsub, func(d, a, b *vec) { addALU(qpu.AddFSub, d, a, b) })
			check(set.name+" fmul", set.fmul, func(d, a, b *vec) { mulALU(qpu.MulFMul, d, a, b) })
		}
	}
}

// colourPackVec (SSE2 and AVX2 on amd64) gives colourPack's word for every element,
// in packed and in the pack's bits of a destination of random bits (the
// others kept): every float32 whose f·255 lies within 64 steps of a
// rounding boundary k + ½ (k = 0…255) and of the integers, 2^20 random
// words of any bits, and the specials, under all five colour packs.
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
	words = append(words, specialWords...)
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
