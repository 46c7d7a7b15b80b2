//go:build !amd64 || purego

package qpuexec

import "github.com/vccube/vccube/shaders/qpu"

// colourPackVec is colourPackGo into packed, then mergeLanes of packed
// into d in the pack's bits.
func colourPackVec(p qpu.Pack, d, packed, r *vec) {
	colourPackGo(p, packed, r)
	mergeLanes(d, packed, 0xFFFF, colourPackMask(p))
}

// colourPacks is opColours' run of n colour packs into d: colourPacksGo.
func colourPacks(d, packed, lat *vec, s *colourStep, n int) { colourPacksGo(d, packed, lat, s, n) }

// colourToFloatVec is the colour unpack of every element's byte at bit
// shift: colourToFloatGo.
func colourToFloatVec(d, a *vec, shift uint) { colourToFloatGo(d, a, shift) }

// Without the amd64 assembly (other architectures, or the purego build
// tag) the kernels are kern.go's Go loops.
var kernels = &goKernels

// floatN has no batch form in this build: every block runs its own
// kernel.
func floatN(op int32, d, a, b *[MaxBatch]*vec, n int) (slow uint32, ok bool) { return 0, false }

// hasFloatN reports whether floatN has the batch forms: not in this
// build.
func hasFloatN() bool { return false }

// sfuFast is sfuVec (sfu_amd64.go has the assembly).
func sfuFast(fn int, d, s *vec) { sfuVec(fn, d, s) }

// varyAddMul leaves an opVaryingFAddFMul's kernels to themselves (1):
// this build has no fused form, and hasVaryAddMul keeps the four
// micro-operations apart.
func varyAddMul(s *varyStep) uint32 { return 1 }

// hasVaryAddMul reports whether the bound programs take
// opVaryingFAddFMul: not in this build.
func hasVaryAddMul() bool { return false }
