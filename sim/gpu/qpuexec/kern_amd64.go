//go:build !purego

package qpuexec

import (
	"math/bits"

	"golang.org/x/sys/cpu"

	"github.com/vccube/vccube/shaders/qpu"
)

// The amd64 kernels:
//   - SSE2 assembly (kern_sse2_amd64.s) for the operations the cube's and
//     Mesa's shaders run most;
//   - AVX2 twins (kern_avx2_amd64.s), used instead where the CPU has AVX2;
//     fadd, fsub and fmul have AVX-512 forms there too, used where the CPU
//     has AVX-512F (they round toward zero in the instruction itself);
//   - kern.go's Go loops for the ops without assembly in a set.
//
// The fadd, fsub and fmul kernels return the elements that the Go code's
// general path (ref_float.go) then computes, as kFAddGo and friends do
// element by element: Inf and NaN operands or results, and sums near
// 2^128 (sumBig). A kernel's destination must not be one of its operands
// (the steps' are the ALU result latches).

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
func notSSE2(d, a, b *vec)

//go:noescape
func addSSE2(d, a, b *vec)

//go:noescape
func subSSE2(d, a, b *vec)

// The AVX2 twins (kern_avx2_amd64.s).

//go:noescape
func faddAVX2(d, a, b *vec, neg uint32) (slow uint32)

//go:noescape
func fmulAVX2(d, a, b *vec) (slow uint32)

//go:noescape
func v8muldAVX2(d, a, b *vec)

// chainAVX2 runs the chainSteps from d (chain.go) until one whose op is
// chainEnd; a and b are unused.
func chainAVX2(d, a, b *vec)

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
func notAVX2(d, a, b *vec)

//go:noescape
func addAVX2(d, a, b *vec)

//go:noescape
func subAVX2(d, a, b *vec)

// The kernels of the other add ops and mul24: fmin, fmax and their abs
// forms as integer compares of the bit patterns (floatOrder), ftoi
// handing vectors with the conversion's out-of-range value 0x80000000
// back to kFToIGo (ftoiSSE2Wide), itof through
// float64 as kIToFGo; colourToFloat* is colourToFloatGo. The AVX2 set
// also has the shifts (a count per element) and mul24.

//go:noescape
func fminSSE2(d, a, b *vec)

//go:noescape
func fmaxSSE2(d, a, b *vec)

//go:noescape
func fminabsSSE2(d, a, b *vec)

//go:noescape
func fmaxabsSSE2(d, a, b *vec)

//go:noescape
func minSSE2(d, a, b *vec)

//go:noescape
func maxSSE2(d, a, b *vec)

//go:noescape
func ftoiSSE2(d, a, b *vec) (wide uint32)

//go:noescape
func itofSSE2(d, a, b *vec)

//go:noescape
func colourToFloatSSE2(d, a *vec, shift uint)

//go:noescape
func fminAVX2(d, a, b *vec)

//go:noescape
func fmaxAVX2(d, a, b *vec)

//go:noescape
func fminabsAVX2(d, a, b *vec)

//go:noescape
func fmaxabsAVX2(d, a, b *vec)

//go:noescape
func minAVX2(d, a, b *vec)

//go:noescape
func maxAVX2(d, a, b *vec)

//go:noescape
func ftoiAVX2(d, a, b *vec) (wide uint32)

//go:noescape
func itofAVX2(d, a, b *vec)

//go:noescape
func shrAVX2(d, a, b *vec)

//go:noescape
func asrAVX2(d, a, b *vec)

//go:noescape
func rorAVX2(d, a, b *vec)

//go:noescape
func shlAVX2(d, a, b *vec)

//go:noescape
func mul24AVX2(d, a, b *vec)

//go:noescape
func colourToFloatAVX2(d, a *vec, shift uint)

// The float kernels: the SIMD pass, then the general path for the
// elements it hands back, which reads those elements' operands again: a
// destination that is an operand goes through a temporary (every kernel
// may write into its operands, bound_bind.go directWrites).

func kFAddSSE2(d, a, b *vec) {
	if d == a || d == b {
		kFAddSSE2Into(d, a, b)
		return
	}
	for m := faddSSE2(d, a, b, 0); m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		d[i] = faddSlow(a[i], b[i])
	}
}

func kFSubSSE2(d, a, b *vec) {
	if d == a || d == b {
		kFSubSSE2Into(d, a, b)
		return
	}
	for m := faddSSE2(d, a, b, signBit); m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		d[i] = fsubSlow(a[i], b[i])
	}
}

func kFMulSSE2(d, a, b *vec) {
	if d == a || d == b {
		kFMulSSE2Into(d, a, b)
		return
	}
	for m := fmulSSE2(d, a, b); m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		d[i] = fmulSlow(a[i], b[i])
	}
}

// The AVX2 set's float kernels each choose between the AVX-512 and
// AVX2 forms themselves: a helper that chose for them (faddAVX512 or
// faddAVX2) costs 130 by the Go inliner's count, over its budget of 80,
// so it would put a call more on the cube's hottest float path
// (kFAddAVX2Into: go build -gcflags=-m=2).
func kFAddAVX2(d, a, b *vec) {
	if d == a || d == b {
		kFAddAVX2Into(d, a, b)
		return
	}
	var m uint32
	if floatAVX512 {
		m = faddAVX512(d, a, b, 0)
	} else {
		m = faddAVX2(d, a, b, 0)
	}
	for ; m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		d[i] = faddSlow(a[i], b[i])
	}
}

func kFSubAVX2(d, a, b *vec) {
	if d == a || d == b {
		kFSubAVX2Into(d, a, b)
		return
	}
	var m uint32
	if floatAVX512 {
		m = faddAVX512(d, a, b, signBit)
	} else {
		m = faddAVX2(d, a, b, signBit)
	}
	for ; m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		d[i] = fsubSlow(a[i], b[i])
	}
}

func kFMulAVX2(d, a, b *vec) {
	if d == a || d == b {
		kFMulAVX2Into(d, a, b)
		return
	}
	var m uint32
	if floatAVX512 {
		m = fmulAVX512(d, a, b)
	} else {
		m = fmulAVX2(d, a, b)
	}
	for ; m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		d[i] = fmulSlow(a[i], b[i])
	}
}

// The kernels into one of their own operands (r0 = r0 + r5, bound_bind.go
// directWrites). The assembly loads each element's operands before it
// stores that element's result, and an element's result depends on its
// own operands alone, so it may write over them: only the elements it
// leaves to the slow path need the operands it overwrote, kept in s. (A
// zeroed temporary for the result, a call and a copy back cost about 9
// instructions more a call: bench/icount on the cube's frame, which
// makes one a block.)

func kFAddSSE2Into(d, a, b *vec) {
	s := *d
	sa, sb := operands(&s, d, a, b)
	for m := faddSSE2(d, a, b, 0); m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		d[i] = faddSlow(sa[i], sb[i])
	}
}

func kFSubSSE2Into(d, a, b *vec) {
	s := *d
	sa, sb := operands(&s, d, a, b)
	for m := faddSSE2(d, a, b, signBit); m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		d[i] = fsubSlow(sa[i], sb[i])
	}
}

func kFMulSSE2Into(d, a, b *vec) {
	s := *d
	sa, sb := operands(&s, d, a, b)
	for m := fmulSSE2(d, a, b); m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		d[i] = fmulSlow(sa[i], sb[i])
	}
}

func kFAddAVX2Into(d, a, b *vec) {
	s := *d
	sa, sb := operands(&s, d, a, b)
	var m uint32
	if floatAVX512 {
		m = faddAVX512(d, a, b, 0)
	} else {
		m = faddAVX2(d, a, b, 0)
	}
	for ; m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		d[i] = faddSlow(sa[i], sb[i])
	}
}

func kFSubAVX2Into(d, a, b *vec) {
	s := *d
	sa, sb := operands(&s, d, a, b)
	var m uint32
	if floatAVX512 {
		m = faddAVX512(d, a, b, signBit)
	} else {
		m = faddAVX2(d, a, b, signBit)
	}
	for ; m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		d[i] = fsubSlow(sa[i], sb[i])
	}
}

func kFMulAVX2Into(d, a, b *vec) {
	s := *d
	sa, sb := operands(&s, d, a, b)
	var m uint32
	if floatAVX512 {
		m = fmulAVX512(d, a, b)
	} else {
		m = fmulAVX2(d, a, b)
	}
	for ; m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		d[i] = fmulSlow(sa[i], sb[i])
	}
}

// operands returns a and b with s, the saved d, in place of the one (or
// both) that is d.
func operands(s, d, a, b *vec) (*vec, *vec) {
	if a == d {
		a = s
	}
	if b == d {
		b = s
	}
	return a, b
}

// colourPackVec is colourPackGo into packed, then mergeLanes of packed
// into d in the pack's bits, in one pass: in AVX-512 where the CPU has it
// (colourUsesAVX512), else colourPackWith with AVX2 where the CPU has it
// (the assembly itself, kern_avx2_amd64.s), else SSE2 (colourPackSSE2).
//
//go:noescape
func colourPackVec(p qpu.Pack, d, packed, r *vec)

// colourPacks is opColours' run of n colour packs into d (colours.go):
// in AVX-512 where the CPU has it, else colourPacksGo (the assembly,
// kern_avx2_amd64.s).
//
//go:noescape
func colourPacks(d, packed, lat *vec, s *colourStep, n int)

// colourToFloatVec is the colour unpack of every element's byte at bit
// shift (colourToFloatGo): colourToFloatAVX2 where the CPU has AVX2,
// else colourToFloatSSE2, chosen in the assembly (kern_avx2_amd64.s).
//
//go:noescape
func colourToFloatVec(d, a *vec, shift uint)

// colourPackSSE2 is colourPackVec where the CPU lacks AVX2.
func colourPackSSE2(p qpu.Pack, d, packed, r *vec) { colourPackWith(false, p, d, packed, r) }

// floatAVX512 chooses faddAVX512 and fmulAVX512 (kern_avx2_amd64.s)
// over faddAVX2 and fmulAVX2 in the AVX2 set's fadd, fsub and fmul: the
// CPU (and the operating system, which must save the ZMM and mask
// registers) has AVX-512. Tests run the AVX2 set both ways.
var floatAVX512 = cpu.X86.HasAVX512F

// colourUsesAVX2 chooses colourAVX2 over colourSSE2.
var colourUsesAVX2 = cpu.X86.HasAVX2

// colourUsesAVX512 chooses, in colourPackVec, the AVX-512 form of the
// colour pack (COLOUR16, kern_avx2_amd64.s) over the AVX2 one, where the
// CPU and the operating system have AVX-512, as floatAVX512 does for the
// float kernels. colourUsesAVX2 is checked first: false sends every pack
// to colourPackSSE2. Tests run colourPackVec all three ways.
var colourUsesAVX512 = cpu.X86.HasAVX512F

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
	sse2Kernels = kernelSet{
		name: "SSE2",
		fadd: kFAddSSE2, fsub: kFSubSSE2, fmul: kFMulSSE2,
		v8muld: v8muldSSE2, v8adds: v8addsSSE2, v8subs: v8subsSSE2, v8min: v8minSSE2, v8max: v8maxSSE2,
		and: andSSE2, or: orSSE2, xor: xorSSE2, add: addSSE2, sub: subSSE2,
		fmin: fminSSE2, fmax: fmaxSSE2, fminabs: fminabsSSE2, fmaxabs: fmaxabsSSE2, ftoi: ftoiSSE2Wide, itof: itofSSE2,
		// SSE2 has no shift by a count per element, nor a 32-bit
		// multiply keeping the low half, nor a leading-zero count.
		shr: kShrGo, asr: kAsrGo, ror: kRorGo, shl: kShlGo, min: minSSE2, max: maxSSE2,
		not: notSSE2, clz: kClzGo, mul24: kMul24Go,
		colour:   colourToFloatSSE2,
		faddInto: kFAddSSE2Into, fsubInto: kFSubSSE2Into, fmulInto: kFMulSSE2Into,
	}
	avx2Kernels = kernelSet{
		name: "AVX2",
		fadd: withAVX512(kFAddAVX512Direct, kFAddAVX2Direct), fsub: withAVX512(kFSubAVX512Direct, kFSubAVX2Direct), fmul: withAVX512(kFMulAVX512Direct, kFMulAVX2Direct),
		v8muld: v8muldAVX2, v8adds: v8addsAVX2, v8subs: v8subsAVX2, v8min: v8minAVX2, v8max: v8maxAVX2,
		and: andAVX2, or: orAVX2, xor: xorAVX2, add: addAVX2, sub: subAVX2,
		fmin: fminAVX2, fmax: fmaxAVX2, fminabs: fminabsAVX2, fmaxabs: fmaxabsAVX2, ftoi: ftoiAVX2Wide, itof: itofAVX2,
		shr: shrAVX2, asr: asrAVX2, ror: rorAVX2, shl: shlAVX2, min: minAVX2, max: maxAVX2,
		not: notAVX2, clz: kClzGo, mul24: mul24AVX2,
		colour:   colourToFloatAVX2,
		faddInto: kFAddAVX2Into, fsubInto: kFSubAVX2Into, fmulInto: kFMulAVX2Into,
		chain: chainAVX2,
	}
)

// kernels is the set programs are compiled with: AVX2's where the CPU
// (and the operating system, which must save the YMM registers) has it,
// else SSE2's, which every amd64 CPU has.
var kernels = simdKernels()

// simdKernels returns the set this CPU runs.
func simdKernels() *kernelSet {
	if cpu.X86.HasAVX2 {
		return &avx2Kernels
	}
	return &sse2Kernels
}

// ftoiSSE2Wide and ftoiAVX2Wide are ftoi: the assembly converts vectors
// whose elements are all below 2^31 in magnitude and leaves the others
// to kFToIGo (ftoi wraps them modulo 2^32), telling them apart from the
// conversion's own out-of-range value (0x80000000) rather than by a
// pass of Go over the operand, which took 5 % of glmark2 terrain's CPU
// time.
func ftoiSSE2Wide(d, a, b *vec) {
	if ftoiSSE2(d, a, b) != 0 {
		kFToIGo(d, a, b)
	}
}

func ftoiAVX2Wide(d, a, b *vec) {
	if ftoiAVX2(d, a, b) != 0 {
		kFToIGo(d, a, b)
	}
}

// The AVX2 set's fadd, fsub and fmul as kernels of their own
// (kern_avx2_amd64.s): a kernel value calls them through Go's ABI
// wrapper alone, not through kFAddAVX2 and friends, which they fall back
// to for a destination that is an operand or an element for the Go path.

//go:noescape
func kFAddAVX2Direct(d, a, b *vec)

//go:noescape
func kFSubAVX2Direct(d, a, b *vec)

//go:noescape
func kFMulAVX2Direct(d, a, b *vec)

//go:noescape
func kFAddAVX512Direct(d, a, b *vec)

//go:noescape
func kFSubAVX512Direct(d, a, b *vec)

//go:noescape
func kFMulAVX512Direct(d, a, b *vec)

//go:noescape
func varyAddMulAVX512(s *varyStep) (left uint32)

// varyAddMul is an opVaryingFAddFMul's two kernels in one call where the
// float kernels take their AVX-512 forms (varyAddMulAVX512); elsewhere it
// leaves both to the kernels (1). See varyings.go.
func varyAddMul(s *varyStep) uint32 {
	if floatAVX512 {
		return varyAddMulAVX512(s)
	}
	return 1
}

// hasVaryAddMul reports whether the bound programs take
// opVaryingFAddFMul: where the AVX2 set runs its float kernels' AVX-512
// forms, as hasFloatN.
func hasVaryAddMul() bool { return floatAVX512 && kernels == &avx2Kernels }

// withAVX512 is z where the float kernels take their AVX-512 forms
// (floatAVX512), else y.
func withAVX512(z, y kernel) kernel {
	if floatAVX512 {
		return z
	}
	return y
}

// The AVX-512 forms of faddAVX2 and fmulAVX2 (floatAVX512).

//go:noescape
func faddAVX512(d, a, b *vec, neg uint32) (slow uint32)

//go:noescape
func fmulAVX512(d, a, b *vec) (slow uint32)

//go:noescape
func faddNZAVX512(d, a, b *vec, neg uint32) (r uint64)

// hasFAddFlags says whether faddFlagsVec has its one-pass form here and
// the float kernels are the AVX2 set's, whose AVX-512 forms it shares
// (as hasFloatN): the bound programs use opFloatNZ only then (elsewhere
// it would be opKernelNZ with a call more: 2 % more instructions on
// glmark2 conditionals, bench/icount on the AVX2 path), and a test of
// another kernel set runs that set's fadd and fsub.
func hasFAddFlags() bool { return floatAVX512 && kernels == &avx2Kernels }

// faddFlagsVec is the fadd (neg 0) or fsub (neg signBit) kernel of a and
// b into d with the N and Z flags of the result (ref_alu.go nzFlags), in
// one AVX-512 pass, for a bound fadd.sf or fsub.sf (opFloatNZ). ok is
// false, and d untouched, where the CPU lacks AVX-512 (floatAVX512) or d
// is an operand: the caller runs the kernel and nzFlagsVec.
func faddFlagsVec(d, a, b *vec, neg uint32) (n, z uint16, ok bool) {
	if !floatAVX512 || d == a || d == b {
		return 0, 0, false
	}
	r := faddNZAVX512(d, a, b, neg)
	m := uint32(r) & 0xFFFF
	if m == 0 {
		return uint16(r >> 16), uint16(r >> 32), true
	}
	for ; m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		if neg != 0 {
			d[i] = fsubSlow(a[i], b[i])
		} else {
			d[i] = faddSlow(a[i], b[i])
		}
	}
	n, z = nzFlagsVec(d)
	return n, z, true
}

// The batch forms of the AVX-512 fadd, fsub and fmul (batch.go
// floatN), used when the kernels are the AVX2 set's float kernels with
// floatAVX512.

//go:noescape
func faddAVX512N(d, a, b *[MaxBatch]*vec, n int, neg uint32) (slow uint32)

//go:noescape
func fmulAVX512N(d, a, b *[MaxBatch]*vec, n int) (slow uint32)

// floatN runs float kernel op (wideFAdd, wideFSub, wideFMul) on n
// blocks in one call, if this build and CPU have the batch forms and
// the programs' kernels are the AVX2 set's; it returns the blocks left
// to their own kernel (a lane for the Go path), or ok false to have every
// block run its own.
func floatN(op int32, d, a, b *[MaxBatch]*vec, n int) (slow uint32, ok bool) {
	if !hasFloatN() {
		return 0, false
	}
	switch op {
	case wideFAdd:
		return faddAVX512N(d, a, b, n, 0), true
	case wideFSub:
		return faddAVX512N(d, a, b, n, signBit), true
	}
	return fmulAVX512N(d, a, b, n), true
}

// hasFloatN reports whether floatN has the batch forms.
func hasFloatN() bool { return floatAVX512 && kernels == &avx2Kernels }
