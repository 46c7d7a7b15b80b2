package qpuexec

import (
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
	// whatever this build's table holds.
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
	}
}
