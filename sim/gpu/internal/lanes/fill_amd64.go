//go:build !purego

package lanes

// Fill stores x in every element of d, 16 bytes a store
// (fill_amd64.s). The QPU's kernels read their operands 16 bytes at a
// time (sim/gpu/qpuexec kern_sse2_amd64.s, kern_avx2_amd64.s LOADY), and
// a uniform is most often read into a register just before a kernel
// reads it: a 16-byte load that spans two narrower stores still in the
// store buffer is not forwarded from them and waits until they reach the
// cache, while a load that lies within one store is.
//
//go:noescape
func Fill(d *[16]uint32, x uint32)
