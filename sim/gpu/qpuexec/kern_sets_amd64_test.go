//go:build !purego

package qpuexec

import (
	"github.com/vccube/vccube/shaders/qpu"
	"golang.org/x/sys/cpu"
)

// simdSets returns the kernel sets this machine can run: SSE2 always,
// AVX2 when the CPU has it (its tests are skipped, and said so, where it
// does not).
func simdSets() []*kernelSet {
	if cpu.X86.HasAVX2 {
		return []*kernelSet{&sse2Kernels, &avx2Kernels}
	}
	return []*kernelSet{&sse2Kernels}
}

// colourPackVecs returns colourPackVec's versions this machine can run,
// named: SSE2 always, AVX2 when the CPU has it.
func colourPackVecs() []namedColourPack {
	v := []namedColourPack{{"SSE2", func(p qpu.Pack, d, packed, r *vec) { colourPackWith(false, p, d, packed, r) }}}
	if cpu.X86.HasAVX2 {
		v = append(v, namedColourPack{"AVX2", func(p qpu.Pack, d, packed, r *vec) { colourPackWith(true, p, d, packed, r) }})
	}
	return v
}
