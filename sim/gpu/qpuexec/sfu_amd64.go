//go:build !purego

package qpuexec

import "golang.org/x/sys/cpu"

// sfuFast is sfuVec for the fast paths: recip and rsqrt in
// sfuRecipAVX512 where the CPU has AVX-512, the rest in Go.
//
// The assembly does what sfuVec's loops do, in the same order and
// precision: the float32 operand widened to float64 (exact), the square
// root and the division each rounded to nearest (VSQRTPD and VDIVPD, as
// Go's float64 operations, under the MXCSR rounding mode Go leaves at
// round to nearest), then round13's integer steps. TestSFUFastMatchesReference
// holds it to sfuReference; TestSFUExhaustive does every input.
func sfuFast(fn int, d, s *vec) {
	if sfuAVX512 && fn <= sfuRecipSqrt {
		sfuRecipAVX512(d, s, uint32(fn))
		return
	}
	sfuVec(fn, d, s)
}

// sfuAVX512 chooses sfuRecipAVX512.
var sfuAVX512 = cpu.X86.HasAVX512F

//go:noescape
func sfuRecipAVX512(d, s *vec, sqrt uint32)
