//go:build !purego

package qpuexec

import (
	"github.com/vccube/vccube/shaders/qpu"
	"golang.org/x/sys/cpu"
)

// simdSets returns the kernel sets this machine can run: SSE2 always,
// AVX2 when the CPU has it (its tests are skipped, and said so, where it
// does not). Where the AVX2 set's fadd, fsub and fmul run their AVX-512
// forms (floatAVX512), a copy of the set whose float kernels run their
// AVX2 forms follows it, so that both are tested.
func simdSets() []*kernelSet {
	if !cpu.X86.HasAVX2 {
		return []*kernelSet{&sse2Kernels}
	}
	sets := []*kernelSet{&sse2Kernels, &avx2Kernels}
	if floatAVX512 {
		noZ := avx2Kernels
		noZ.name = "AVX2 without AVX-512"
		noZ.fadd, noZ.fsub, noZ.fmul = withoutAVX512(kFAddAVX2), withoutAVX512(kFSubAVX2), withoutAVX512(kFMulAVX2)
		noZ.faddInto, noZ.fsubInto, noZ.fmulInto = withoutAVX512(kFAddAVX2Into), withoutAVX512(kFSubAVX2Into), withoutAVX512(kFMulAVX2Into)
		sets = append(sets, &noZ)
		// The AVX2 forms called directly (kFAddAVX2Direct...), which
		// the AVX2 set takes where the CPU lacks AVX-512.
		direct := avx2Kernels
		direct.name = "AVX2 direct without AVX-512"
		direct.fadd, direct.fsub, direct.fmul = withoutAVX512(kFAddAVX2Direct), withoutAVX512(kFSubAVX2Direct), withoutAVX512(kFMulAVX2Direct)
		direct.faddInto, direct.fsubInto, direct.fmulInto = noZ.faddInto, noZ.fsubInto, noZ.fmulInto
		sets = append(sets, &direct)
	}
	return sets
}

// withoutAVX512 is k run with floatAVX512 off. The package's tests do not
// run in parallel, so no other kernel sees the change.
func withoutAVX512(k kernel) kernel {
	return func(d, a, b *vec) {
		floatAVX512 = false
		defer func() { floatAVX512 = true }()
		k(d, a, b)
	}
}

// colourPackVecs returns colourPackVec's versions this machine can run,
// named: SSE2 always, AVX2 when the CPU has it, and the direct entry each
// way it goes: AVX-512 (where the CPU has it), AVX2, SSE2.
func colourPackVecs() []namedColourPack {
	v := []namedColourPack{{"SSE2", func(p qpu.Pack, d, packed, r *vec) { colourPackWith(false, p, d, packed, r) }}}
	if cpu.X86.HasAVX2 {
		direct := "AVX2 direct"
		if colourUsesAVX512 {
			direct = "AVX-512 direct"
		}
		v = append(v, namedColourPack{"AVX2", func(p qpu.Pack, d, packed, r *vec) { colourPackWith(true, p, d, packed, r) }},
			namedColourPack{direct, colourPackVec},
			namedColourPack{"AVX2 direct, SSE2 chosen", func(p qpu.Pack, d, packed, r *vec) {
				colourUsesAVX2 = false
				defer func() { colourUsesAVX2 = true }()
				colourPackVec(p, d, packed, r)
			}})
		if colourUsesAVX512 {
			v = append(v, namedColourPack{"AVX2 direct without AVX-512", func(p qpu.Pack, d, packed, r *vec) {
				colourUsesAVX512 = false
				defer func() { colourUsesAVX512 = true }()
				colourPackVec(p, d, packed, r)
			}})
		}
	}
	return v
}

// colourToFloatVecs returns colourToFloatVec as the colour kernel of a
// set of its own, both ways its assembly goes where the CPU has AVX2.
func colourToFloatVecs() []*kernelSet {
	v := []*kernelSet{{name: "colourToFloatVec", colour: colourToFloatVec}}
	if cpu.X86.HasAVX2 {
		v = append(v, &kernelSet{name: "colourToFloatVec, SSE2 chosen", colour: func(d, a *vec, shift uint) {
			colourUsesAVX2 = false
			defer func() { colourUsesAVX2 = true }()
			colourToFloatVec(d, a, shift)
		}})
	}
	return v
}

// colourForms are the ways colourPacks can go on this machine: as the
// CPU chooses (AVX-512 where it has it), and, where it has them, with
// AVX-512 turned off and with SSE2 chosen (colourPacksGo either way).
var colourForms = func() []colourForm {
	v := []colourForm{{"as chosen", func() {}, func() {}}}
	if cpu.X86.HasAVX2 {
		v = append(v, colourForm{"SSE2 chosen", func() { colourUsesAVX2 = false }, func() { colourUsesAVX2 = true }})
	}
	if colourUsesAVX512 {
		v = append(v, colourForm{"without AVX-512", func() { colourUsesAVX512 = false }, func() { colourUsesAVX512 = true }})
	}
	return v
}()
