//go:build !purego

package qpuexec

import (
	"math/bits"

	"golang.org/x/sys/cpu"

	"github.com/vccube/vccube/shaders/qpu"
)

// The amd64 kernels: SSE2 assembly (kernels_amd64.s) for the operations
// the cube's and Mesa's shaders run most, and AVX2 twins
// (kernels_avx2_amd64.s) used instead where the CPU has AVX2. The float ones return the
// elements whose inputs or sum are Inf or NaN, which the Go code's general
// path (float.go) then computes, as kFAddGo and friends do element by
// element. A kernel's destination must not be one of its operands (the
// steps' are the ALU result latches).

//go:noescape
func faddSSE2(d, a, b *vec, neg uint32) (slow uint32)

//go:noescape
func fmulSSE2(d, a, b *vec) (slow uint32)

//go:noescape
func colourSSE2(packed, r *vec, shift uint64, rep uint32, d *vec, mask uint32)

//go:noescape
func colourAVX2(packed, r *vec, shift uint64, rep uint32, d *vec, mask uint32)

//go:noescape
func v8muldSSE2(d, a, b *vec)

//go:noescape
func v8addsSSE2(d, a, b *vec)

//go:noescape
func v8subsSSE2(d, a, b *vec)

//go:noescape
func v8minSSE2(d, a, b *vec)

//go:noescape
func v8maxSSE2(d, a, b *vec)

//go:noescape
func andSSE2(d, a, b *vec)

//go:noescape
func orSSE2(d, a, b *vec)

//go:noescape
func xorSSE2(d, a, b *vec)

//go:noescape
func addSSE2(d, a, b *vec)

//go:noescape
func subSSE2(d, a, b *vec)

// The AVX2 twins (kernels_avx2_amd64.s).

//go:noescape
func faddAVX2(d, a, b *vec, neg uint32) (slow uint32)

//go:noescape
func fmulAVX2(d, a, b *vec) (slow uint32)

//go:noescape
func v8muldAVX2(d, a, b *vec)

//go:noescape
func v8addsAVX2(d, a, b *vec)

//go:noescape
func v8subsAVX2(d, a, b *vec)

//go:noescape
func v8minAVX2(d, a, b *vec)

//go:noescape
func v8maxAVX2(d, a, b *vec)

//go:noescape
func andAVX2(d, a, b *vec)

//go:noescape
func orAVX2(d, a, b *vec)

//go:noescape
func xorAVX2(d, a, b *vec)

//go:noescape
func addAVX2(d, a, b *vec)

//go:noescape
func subAVX2(d, a, b *vec)

// The float kernels: the SIMD pass, then the general path for the
// elements it hands back.

func kFAddSSE2(d, a, b *vec) {
	for m := faddSSE2(d, a, b, 0); m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		d[i] = faddSlow(a[i], b[i])
	}
}

func kFSubSSE2(d, a, b *vec) {
	for m := faddSSE2(d, a, b, signBit); m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		d[i] = fsubSlow(a[i], b[i])
	}
}

func kFMulSSE2(d, a, b *vec) {
	for m := fmulSSE2(d, a, b); m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		d[i] = fmulSlow(a[i], b[i])
	}
}

func kFAddAVX2(d, a, b *vec) {
	for m := faddAVX2(d, a, b, 0); m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		d[i] = faddSlow(a[i], b[i])
	}
}

func kFSubAVX2(d, a, b *vec) {
	for m := faddAVX2(d, a, b, signBit); m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		d[i] = fsubSlow(a[i], b[i])
	}
}

func kFMulAVX2(d, a, b *vec) {
	for m := fmulAVX2(d, a, b); m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		d[i] = fmulSlow(a[i], b[i])
	}
}

// colourPackVec is colourPackGo into packed, then mergeLanes of packed
// into d in the pack's bits, in one pass with AVX2 where the CPU has it,
// else SSE2.
func colourPackVec(p qpu.Pack, d, packed, r *vec) { colourPackWith(colourUsesAVX2, p, d, packed, r) }

// colourUsesAVX2 chooses colourAVX2 over colourSSE2.
var colourUsesAVX2 = cpu.X86.HasAVX2

// colourPackWith is colourPackVec with colourAVX2 or colourSSE2.
func colourPackWith(avx2 bool, p qpu.Pack, d, packed, r *vec) {
	shift, rep, mask := uint64(0), uint32(0xFFFFFFFF), uint32(0xFFFFFFFF)
	if p != qpu.PackMul8888 {
		shift, rep, mask = uint64(8*(p-qpu.PackMul8A)), 0, colourPackMask(p)
	}
	if avx2 {
		colourAVX2(packed, r, shift, rep, d, mask)
		return
	}
	colourSSE2(packed, r, shift, rep, d, mask)
}

var (
	sse2Kernels = kernelSet{"SSE2", kFAddSSE2, kFSubSSE2, kFMulSSE2, v8muldSSE2, v8addsSSE2, v8subsSSE2,
		v8minSSE2, v8maxSSE2, andSSE2, orSSE2, xorSSE2, addSSE2, subSSE2}
	avx2Kernels = kernelSet{"AVX2", kFAddAVX2, kFSubAVX2, kFMulAVX2, v8muldAVX2, v8addsAVX2, v8subsAVX2,
		v8minAVX2, v8maxAVX2, andAVX2, orAVX2, xorAVX2, addAVX2, subAVX2}
)

// The kernels programs are compiled with: AVX2's where the CPU (and the
// operating system, which must save the YMM registers) has it, else
// SSE2's, which every amd64 CPU has.
var (
	kFAdd, kFSub, kFMul, kV8Muld, kV8Adds, kV8Subs, kV8Min, kV8Max, kAnd, kOr, kXor, kAdd, kSub = useKernels(simdKernels())
)

// simdKernels returns the set this CPU runs.
func simdKernels() *kernelSet {
	if cpu.X86.HasAVX2 {
		return &avx2Kernels
	}
	return &sse2Kernels
}

func useKernels(k *kernelSet) (fadd, fsub, fmul, v8muld, v8adds, v8subs, v8min, v8max, and, or, xor, add, sub kernel) {
	return k.fadd, k.fsub, k.fmul, k.v8muld, k.v8adds, k.v8subs, k.v8min, k.v8max, k.and, k.or, k.xor, k.add, k.sub
}
