package qpuexec

import (
	"testing"

	"github.com/vccube/vccube/shaders/qpu"
)

// BenchmarkKernels runs each set's kernel of each add and mul op on
// operands just copied in (lanes.Copy, as the steps' reads and the TMU's
// results are), so that a kernel that reads its operands in wider pieces
// than they were written pays the store-buffer stall it would in a
// shader; colour is the r4 colour unpack of byte 1.
func BenchmarkKernels(b *testing.B) {
	var src [2]vec
	for i := range src[0] {
		src[0][i] = fbits(float32(i)*3.7 - 20)
		src[1][i] = uint32(i * 7)
	}
	for _, set := range kernelSets() {
		type named struct {
			name string
			k    kernel
		}
		var ks []named
		for op := qpu.AddOp(1); op < 32; op++ {
			if k := set.addKernel(op); k != nil {
				ks = append(ks, named{op.String(), k})
			}
		}
		for op := qpu.MulOp(1); op < 8; op++ {
			ks = append(ks, named{op.String(), set.mulKernel(op)})
		}
		ks = append(ks, named{"colour", func(d, a, _ *vec) { set.colour(d, a, 8) }})
		for _, k := range ks {
			b.Run(set.name+"/"+k.name, func(b *testing.B) {
				var x, y, d vec
				for range b.N {
					copyVec(&x, &src[0])
					copyVec(&y, &src[1])
					k.k(&d, &x, &y)
				}
			})
		}
	}
}

// BenchmarkKernelsUniform is BenchmarkKernels for a few ops whose second
// operand is a uniform just read into a register (fill, as opUniform
// does) rather than a vector copied in: a kernel's 16-byte loads meet
// fill's stores there.
func BenchmarkKernelsUniform(b *testing.B) {
	var src vec
	for i := range src {
		src[i] = fbits(float32(i)*3.7 - 20)
	}
	u := fbits(0.75)
	for _, set := range kernelSets() {
		for _, op := range []qpu.AddOp{qpu.AddFAdd, qpu.AddFMin, qpu.AddAnd, qpu.AddAdd} {
			k := set.addKernel(op)
			b.Run(set.name+"/"+op.String(), func(b *testing.B) {
				var x, y, d vec
				for range b.N {
					copyVec(&x, &src)
					fill(&y, u)
					k(&d, &x, &y)
				}
			})
		}
		k := set.mulKernel(qpu.MulFMul)
		b.Run(set.name+"/fmul", func(b *testing.B) {
			var x, y, d vec
			for range b.N {
				copyVec(&x, &src)
				fill(&y, u)
				k(&d, &x, &y)
			}
		})
	}
}
