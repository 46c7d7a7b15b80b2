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
