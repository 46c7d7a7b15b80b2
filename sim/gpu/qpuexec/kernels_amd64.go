//go:build !purego

package qpuexec

import (
	"math/bits"

	"github.com/vccube/vccube/shaders/qpu"
)

// The amd64 kernels: SSE2 assembly (kernels_amd64.s) for the operations
// the cube's and Mesa's shaders run most. The float ones return the
// elements whose inputs or sum are Inf or NaN, which the Go code's general
// path (float.go) then computes, as kFAddGo and friends do element by
// element. A kernel's destination must not be one of its operands (the
// steps' are the ALU result latches).

//go:noescape
func faddSSE2(d, a, b *vec, neg uint32) (slow uint32)

//go:noescape
func fmulSSE2(d, a, b *vec) (slow uint32)

//go:noescape
func colourSSE2(d, r *vec, shift uint64, rep uint32)

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

func kFAdd(d, a, b *vec) {
	for m := faddSSE2(d, a, b, 0); m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		d[i] = faddSlow(a[i], b[i])
	}
}

func kFSub(d, a, b *vec) {
	for m := faddSSE2(d, a, b, signBit); m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		d[i] = fsubSlow(a[i], b[i])
	}
}

func kFMul(d, a, b *vec) {
	for m := fmulSSE2(d, a, b); m != 0; m &= m - 1 {
		i := bits.TrailingZeros32(m)
		d[i] = fmulSlow(a[i], b[i])
	}
}

// colourPackVec is colourPackGo with SSE2 (kernels_amd64.s).
func colourPackVec(p qpu.Pack, d, r *vec) {
	if p == qpu.PackMul8888 {
		colourSSE2(d, r, 0, 0xFFFFFFFF)
		return
	}
	colourSSE2(d, r, uint64(8*(p-qpu.PackMul8A)), 0)
}

var (
	kV8Muld kernel = v8muldSSE2
	kV8Adds kernel = v8addsSSE2
	kV8Subs kernel = v8subsSSE2
	kV8Min  kernel = v8minSSE2
	kV8Max  kernel = v8maxSSE2
	kAnd    kernel = andSSE2
	kOr     kernel = orSSE2
	kXor    kernel = xorSSE2
	kAdd    kernel = addSSE2
	kSub    kernel = subSSE2
)
