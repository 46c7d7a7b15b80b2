//go:build !amd64 || purego

package qpuexec

// simdSets returns no assembly kernel sets: this build runs the Go loops.
func simdSets() []*kernelSet { return nil }

// kernelSet is one implementation of every SIMD kernel (amd64 only).
type kernelSet struct {
	name                                                                           string
	fadd, fsub, fmul, v8muld, v8adds, v8subs, v8min, v8max, and, or, xor, add, sub kernel
}
