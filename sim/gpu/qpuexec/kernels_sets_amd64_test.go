//go:build !purego

package qpuexec

import "golang.org/x/sys/cpu"

// simdSets returns the kernel sets this machine can run: SSE2 always,
// AVX2 when the CPU has it (its tests are skipped, and said so, where it
// does not).
func simdSets() []*kernelSet {
	if cpu.X86.HasAVX2 {
		return []*kernelSet{&sse2Kernels, &avx2Kernels}
	}
	return []*kernelSet{&sse2Kernels}
}
