//go:build !purego

package lanes

// Fill stores x in every element of d, 16 bytes a store (fillSSE2). The
// GPU model's kernels read a vector 16 bytes at a time, often just after
// it was written, and a load wider than the recent stores it covers
// cannot be forwarded from the store buffer: it waits for them to reach
// the cache. Eight 8-byte stores (FillGo), just before a kernel reads
// them, cost about as much as the kernel (qpuexec's
// BenchmarkFillThenKernel).
func Fill(d *[16]uint32, x uint32) { fillSSE2(d, x) }

//go:noescape
func fillSSE2(d *[16]uint32, x uint32)
