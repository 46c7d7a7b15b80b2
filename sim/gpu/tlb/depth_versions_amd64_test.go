//go:build !purego

package tlb

import "golang.org/x/sys/cpu"

// zBlockVersions returns the names of zBlock's versions this machine can
// run: SSE2 always, AVX2 when the CPU has it.
func zBlockVersions() []string {
	if cpu.X86.HasAVX2 {
		return []string{"SSE2", "AVX2"}
	}
	return []string{"SSE2"}
}

// useZBlock makes zBlock the version named (one of zBlockVersions) until
// restore is called.
func useZBlock(name string) (restore func()) {
	old := zBlockUsesAVX2
	zBlockUsesAVX2 = name == "AVX2"
	return func() { zBlockUsesAVX2 = old }
}
