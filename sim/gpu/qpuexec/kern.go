package qpuexec

import (
	"math"
	"math/bits"

	"github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/sim/gpu/internal/lanes"
)

// A kernel computes one ALU operation on all 16 elements: d[i] = a[i] op
// b[i]. A compiled step (step_exec.go) calls the kernel its opcode
// selects, once per instruction. The general executors call addALU and
// mulALU instead, which choose the operation element by element.
//
// Every op has a loop of its own, written for speed: no branch on the
// data, the element function inlined. On amd64 there is assembly where
// it pays. Every kernel must give the bits addALU or mulALU give (the
// reference). kern_test.go checks this for every set, on random and
// special operands and on every row of the hardware tables.
type kernel func(d, a, b *vec)

// kernelSet is one implementation of every SIMD kernel. goKernels is the
// Go loops, which every architecture has. On amd64 there are also an SSE2
// and an AVX2 set (kern_amd64.go). They use assembly where it pays and
// the Go loops for the rest. colour is the 8-bit colour unpack of every
// element's byte at bit shift (colourToFloatGo).
type kernelSet struct {
	name                                                                           string
	fadd, fsub, fmul, v8muld, v8adds, v8subs, v8min, v8max, and, or, xor, add, sub kernel
	fmin, fmax, fminabs, fmaxabs, ftoi, itof, shr, asr, ror, shl, min, max         kernel
	not, clz, mul24                                                                kernel
	colour                                                                         func(d, a *vec, shift uint)
	// faddInto, fsubInto and fmulInto are fadd, fsub and fmul for a
	// destination that is one of the operands (directWrites): fadd and
	// friends may handle that case less directly.
	faddInto, fsubInto, fmulInto kernel
	// chain, if not nil, runs a list of integer kernels in one call
	// (chain.go): d is the first of its chainSteps, a and b unused.
	chain kernel
}

// goKernels is the set of Go loops (kern.go), the one other
// architectures and the purego build run.
var goKernels = kernelSet{
	name: "Go",
	fadd: kFAddGo, fsub: kFSubGo, fmul: kFMulGo,
	v8muld: kV8MuldGo, v8adds: kV8AddsGo, v8subs: kV8SubsGo, v8min: kV8MinGo, v8max: kV8MaxGo,
	and: kAndGo, or: kOrGo, xor: kXorGo, add: kAddGo, sub: kSubGo,
	fmin: kFMinGo, fmax: kFMaxGo, fminabs: kFMinAbsGo, fmaxabs: kFMaxAbsGo, ftoi: kFToIGo, itof: kIToFGo,
	shr: kShrGo, asr: kAsrGo, ror: kRorGo, shl: kShlGo, min: kMinGo, max: kMaxGo,
	not: kNotGo, clz: kClzGo, mul24: kMul24Go,
	colour:   colourToFloatGo,
	faddInto: kFAddGo, fsubInto: kFSubGo, fmulInto: kFMulGo,
}

// addKernel returns the kernel of add op op, or nil for NOP (and the
// reserved opcodes, which a program cannot load with).
func addKernel(op qpu.AddOp) kernel { return kernels.addKernel(op) }

// mulKernel returns the kernel of mul op op, or nil for NOP.
func mulKernel(op qpu.MulOp) kernel { return kernels.mulKernel(op) }

// addKernel returns set k's kernel of add op op, or nil for NOP and the
// reserved opcodes.
func (k *kernelSet) addKernel(op qpu.AddOp) kernel {
	switch op {
	case qpu.AddFAdd:
		return k.fadd
	case qpu.AddFSub:
		return k.fsub
	case qpu.AddFMin:
		return k.fmin
	case qpu.AddFMax:
		return k.fmax
	case qpu.AddFMinAbs:
		return k.fminabs
	case qpu.AddFMaxAbs:
		return k.fmaxabs
	case qpu.AddFToI:
		return k.ftoi
	case qpu.AddIToF:
		return k.itof
	case qpu.AddAdd:
		return k.add
	case qpu.AddSub:
		return k.sub
	case qpu.AddShr:
		return k.shr
	case qpu.AddAsr:
		return k.asr
	case qpu.AddRor:
		return k.ror
	case qpu.AddShl:
		return k.shl
	case qpu.AddMin:
		return k.min
	case qpu.AddMax:
		return k.max
	case qpu.AddAnd:
		return k.and
	case qpu.AddOr:
		return k.or
	case qpu.AddXor:
		return k.xor
	case qpu.AddNot:
		return k.not
	case qpu.AddClz:
		return k.clz
	case qpu.AddV8Adds:
		return k.v8adds
	case qpu.AddV8Subs:
		return k.v8subs
	}
	return nil // NOP and the reserved opcodes
}

// mulKernel returns set k's kernel of mul op op, or nil for NOP.
func (k *kernelSet) mulKernel(op qpu.MulOp) kernel {
	switch op {
	case qpu.MulFMul:
		return k.fmul
	case qpu.MulMul24:
		return k.mul24
	case qpu.MulV8Muld:
		return k.v8muld
	case qpu.MulV8Min:
		return k.v8min
	case qpu.MulV8Max:
		return k.v8max
	case qpu.MulV8Adds:
		return k.v8adds
	case qpu.MulV8Subs:
		return k.v8subs
	}
	return nil // NOP
}

// intoKernel returns k, the kernel of a float op of batch form wide
// (wideFAdd, wideFSub, wideFMul, or 0 for another op), for a destination
// that is one of its operands: set k's faddInto, fsubInto or fmulInto,
// or k itself for another op.
func (k *kernelSet) intoKernel(wide int32, kn kernel) kernel {
	switch wide {
	case wideFAdd:
		return k.faddInto
	case wideFSub:
		return k.fsubInto
	case wideFMul:
		return k.fmulInto
	}
	return kn
}

// kCopy is the kernel of an op whose result is its operand when both
// operands are the same input (sameOperandIsCopy): or and v8min are the
// assembler's and Mesa's mov and mmov.
func kCopy(d, a, _ *vec) { copyVec(d, a) }

// copyVec copies s to d (lanes.Copy: inlined, no memmove call).
func copyVec(d, s *vec) { lanes.Copy(d, s) }

// addSameIsCopy reports whether add op op returns a when both operands
// are a: or, and, min and max (signed), fmin and fmax (which return an
// operand unchanged, ref_float.go).
func addSameIsCopy(op qpu.AddOp) bool {
	switch op {
	case qpu.AddOr, qpu.AddAnd, qpu.AddMin, qpu.AddMax, qpu.AddFMin, qpu.AddFMax:
		return true
	}
	return false
}

// mulSameIsCopy reports whether mul op op returns a when both operands are
// a: v8min and v8max (each byte's min or max with itself).
func mulSameIsCopy(op qpu.MulOp) bool { return op == qpu.MulV8Min || op == qpu.MulV8Max }

// kFAddGo is fadd: ref_float.go's sumRTZ per element, with its general
// path (faddSlow) for the elements whose sum rounds to 2^127 or more in
// magnitude (sumBig): Inf and NaN, and the sums near 2^128 where a step
// of the error term can overflow.
func kFAddGo(d, a, b *vec) {
	for i := range d {
		x, y := a[i], b[i]
		fa := math.Float32frombits(x & nonZeroExp(x))
		fb := math.Float32frombits(y & nonZeroExp(y))
		s := fa + fb
		r := math.Float32bits(s)
		if r&expMask >= sumBig {
			d[i] = faddSlow(x, y)
			continue
		}
		bb := s - fa
		e := math.Float32bits((fa - (s - bb)) + (fb - bb))
		r -= (e ^ r) >> 31 & isNonZero(e&^signBit)
		d[i] = r & nonZeroExp(r)
	}
}

// kFSubGo is fsub: kFAddGo with the second operand's sign flipped (a NaN
// second operand goes to fsubSlow, which gives its own sign rule).
func kFSubGo(d, a, b *vec) {
	for i := range d {
		x, y := a[i], b[i]
		fa := math.Float32frombits(x & nonZeroExp(x))
		fb := math.Float32frombits((y & nonZeroExp(y)) ^ signBit)
		s := fa + fb
		r := math.Float32bits(s)
		if r&expMask >= sumBig {
			d[i] = fsubSlow(x, y)
			continue
		}
		bb := s - fa
		e := math.Float32bits((fa - (s - bb)) + (fb - bb))
		r -= (e ^ r) >> 31 & isNonZero(e&^signBit)
		d[i] = r & nonZeroExp(r)
	}
}

// kFMulGo is fmul: ref_float.go's mulRTZ per element, fmulSlow for Inf and NaN
// operands.
func kFMulGo(d, a, b *vec) {
	for i := range d {
		x, y := a[i], b[i]
		if x&expMask == expMask || y&expMask == expMask {
			d[i] = fmulSlow(x, y)
			continue
		}
		p := float64(math.Float32frombits(x&nonZeroExp(x))) * float64(math.Float32frombits(y&nonZeroExp(y)))
		pb := math.Float64bits(p)
		r := math.Float32bits(float32(math.Float64frombits(pb &^ (1<<29 - 1))))
		d[i] = r & uint32((896-int64(pb>>52&0x7FF))>>63)
	}
}

func kAddGo(d, a, b *vec) {
	for i := range d {
		d[i] = a[i] + b[i]
	}
}

func kSubGo(d, a, b *vec) {
	for i := range d {
		d[i] = a[i] - b[i]
	}
}

func kAndGo(d, a, b *vec) {
	d2, a2, b2 := pairs(d), pairs(a), pairs(b)
	for i := range d2 {
		d2[i] = a2[i] & b2[i]
	}
}

func kOrGo(d, a, b *vec) {
	d2, a2, b2 := pairs(d), pairs(a), pairs(b)
	for i := range d2 {
		d2[i] = a2[i] | b2[i]
	}
}

func kXorGo(d, a, b *vec) {
	d2, a2, b2 := pairs(d), pairs(a), pairs(b)
	for i := range d2 {
		d2[i] = a2[i] ^ b2[i]
	}
}

func kV8AddsGo(d, a, b *vec) {
	d2, a2, b2 := pairs(d), pairs(a), pairs(b)
	for i := range d2 {
		d2[i] = v8adds64(a2[i], b2[i])
	}
}

func kV8SubsGo(d, a, b *vec) {
	d2, a2, b2 := pairs(d), pairs(a), pairs(b)
	for i := range d2 {
		d2[i] = v8subs64(a2[i], b2[i])
	}
}

func kV8MinGo(d, a, b *vec) {
	d2, a2, b2 := pairs(d), pairs(a), pairs(b)
	for i := range d2 {
		d2[i] = v8min64(a2[i], b2[i])
	}
}

func kV8MaxGo(d, a, b *vec) {
	d2, a2, b2 := pairs(d), pairs(a), pairs(b)
	for i := range d2 {
		d2[i] = v8max64(a2[i], b2[i])
	}
}

// kV8MuldGo is v8muld. When the second operand is one byte in every byte of
// every element (a uniform such as the cube's light constants), one
// v8muldByte64 per pair of elements does it; otherwise each pair whose
// second operand is not one byte replicated goes element by element.
func kV8MuldGo(d, a, b *vec) {
	d2, a2, b2 := pairs(d), pairs(a), pairs(b)
	for i := range d2 {
		if k := b2[i] & 0xFF; b2[i] == k*0x0101010101010101 {
			d2[i] = v8muldByte64(a2[i], k)
			continue
		}
		d[2*i] = v8muld(a[2*i], b[2*i])
		d[2*i+1] = v8muld(a[2*i+1], b[2*i+1])
	}
}

// colourPackGo is the mul ALU's colour pack (ref_pack.go colourPack) of every
// element, for an unconditional write: d[i] = colourPack(p, r[i]).
func colourPackGo(p qpu.Pack, d, r *vec) {
	for i := range d {
		d[i] = colourPack(p, r[i])
	}
}

// colourToFloatGo is the 8-bit colour unpack (colourToFloat) of the byte
// at bit shift of every element.
func colourToFloatGo(d, a *vec, shift uint) {
	for i := range d {
		d[i] = colourToFloat[a[i]>>(shift&24)&0xFF]
	}
}

// unpackAVec is the regfile-A unpack (ref_pack.go unpackA) of every element,
// with the choice of unpack made once.
func unpackAVec(u qpu.Unpack, float bool, d, a *vec) {
	switch {
	case u == qpu.Unpack8DRep:
		for i := range d {
			d[i] = (a[i] >> 24) * 0x01010101
		}
	case u >= qpu.Unpack8A && u <= qpu.Unpack8D && float:
		colourToFloatVec(d, a, 8*uint(u-qpu.Unpack8A))
	case u >= qpu.Unpack8A && u <= qpu.Unpack8D:
		sh := 8 * uint(u-qpu.Unpack8A)
		for i := range d {
			d[i] = a[i] >> sh & 0xFF
		}
	default:
		for i := range d {
			d[i] = unpackA(u, float, a[i])
		}
	}
}

// unpackR4Vec is the r4 unpack (ref_pack.go unpackR4) of every element.
func unpackR4Vec(u qpu.Unpack, d, a *vec) {
	switch {
	case u == qpu.Unpack8DRep:
		for i := range d {
			d[i] = (a[i] >> 24) * 0x01010101
		}
	case u >= qpu.Unpack8A && u <= qpu.Unpack8D:
		colourToFloatVec(d, a, 8*uint(u-qpu.Unpack8A))
	default:
		for i := range d {
			d[i] = unpackR4(u, a[i])
		}
	}
}

// The remaining ops' Go loops: each is addALU's or mulALU's loop for its
// op (the reference, which kern_test.go compares them with), written
// without a branch on the data, so that lanes which disagree (a sign, a
// NaN in one lane) cost nothing to mispredict, and with the element
// function inlined.

// floatOrder maps a float bit pattern to an int32 that orders as floatKey
// does (sign-magnitude, -0 equal to +0): the magnitude, negated when the
// sign is set. The magnitude is below 2^31, so the negation cannot wrap.
func floatOrder(x uint32) int32 {
	s := uint32(int32(x) >> 31)
	return int32((x&^signBit ^ s) - s)
}

// gtMask is all ones when x > y, else zero (the difference of two int32s
// fits an int64).
func gtMask(x, y int32) uint32 { return uint32((int64(y) - int64(x)) >> 63) }

// kFMinGo is fmin: a if a <= b (floatKey) else b.
func kFMinGo(d, a, b *vec) {
	for i := range d {
		x, y := a[i], b[i]
		d[i] = x ^ (x^y)&gtMask(floatOrder(x), floatOrder(y))
	}
}

// kFMaxGo is fmax: a if a > b (floatKey) else b.
func kFMaxGo(d, a, b *vec) {
	for i := range d {
		x, y := a[i], b[i]
		d[i] = y ^ (x^y)&gtMask(floatOrder(x), floatOrder(y))
	}
}

// kFMinAbsGo is fminabs: the smaller magnitude (the magnitudes are below
// 2^31, so they compare as int32).
func kFMinAbsGo(d, a, b *vec) {
	for i := range d {
		x, y := a[i]&^signBit, b[i]&^signBit
		d[i] = x ^ (x^y)&gtMask(int32(x), int32(y))
	}
}

// kFMaxAbsGo is fmaxabs: the larger magnitude.
func kFMaxAbsGo(d, a, b *vec) {
	for i := range d {
		x, y := a[i]&^signBit, b[i]&^signBit
		d[i] = y ^ (x^y)&gtMask(int32(x), int32(y))
	}
}

// kFToIGo is ftoi (ref_float.go): Go's conversion truncates toward zero and
// gives 0 for denormals and ±0; an exponent of 158 or more (magnitude
// 2^31 and beyond, Inf and NaN patterns), where Go leaves the
// conversion's value to the implementation, goes to ftoi, which wraps.
// Each element is read before it is written: d may be a.
func kFToIGo(d, a, _ *vec) {
	for i := range d {
		x := a[i]
		if x&expMask >= 158<<23 {
			d[i] = ftoi(x)
			continue
		}
		d[i] = uint32(int32(math.Float32frombits(x)))
	}
}

// kIToFGo is itof (ref_float.go): the int32 is exact as a float64; clearing
// the 29 mantissa bits a float32 lacks truncates it toward zero, and the
// conversion to float32 is then exact. (An integer's magnitude is never
// below the smallest normal nor beyond 2^31, so rtz32's flush and
// overflow never apply.)
func kIToFGo(d, a, _ *vec) {
	for i := range d {
		f := math.Float64bits(float64(int32(a[i])))
		d[i] = math.Float32bits(float32(math.Float64frombits(f &^ (1<<29 - 1))))
	}
}

func kShrGo(d, a, b *vec) {
	for i := range d {
		d[i] = a[i] >> (b[i] & 31)
	}
}

func kAsrGo(d, a, b *vec) {
	for i := range d {
		d[i] = uint32(int32(a[i]) >> (b[i] & 31))
	}
}

func kRorGo(d, a, b *vec) {
	for i := range d {
		d[i] = bits.RotateLeft32(a[i], -int(b[i]&31))
	}
}

func kShlGo(d, a, b *vec) {
	for i := range d {
		d[i] = a[i] << (b[i] & 31)
	}
}

// kMinGo is min, signed: a if a <= b else b.
func kMinGo(d, a, b *vec) {
	for i := range d {
		x, y := a[i], b[i]
		d[i] = x ^ (x^y)&gtMask(int32(x), int32(y))
	}
}

// kMaxGo is max, signed: a if a > b else b.
func kMaxGo(d, a, b *vec) {
	for i := range d {
		x, y := a[i], b[i]
		d[i] = y ^ (x^y)&gtMask(int32(x), int32(y))
	}
}

func kNotGo(d, a, _ *vec) {
	d2, a2 := pairs(d), pairs(a)
	for i := range d2 {
		d2[i] = ^a2[i]
	}
}

func kClzGo(d, a, _ *vec) {
	for i := range d {
		d[i] = uint32(bits.LeadingZeros32(a[i]))
	}
}

// kMul24Go is mul24: the low 32 bits of the product of the low 24 bits.
func kMul24Go(d, a, b *vec) {
	for i := range d {
		d[i] = (a[i] & 0xFFFFFF) * (b[i] & 0xFFFFFF)
	}
}
