//go:build !purego

package tmu

import "golang.org/x/sys/cpu"

// bilinearT32Versions returns the names of bilinearT32's versions this
// machine can run: Go always, AVX2 when the CPU has it.
func bilinearT32Versions() []string {
	if cpu.X86.HasAVX2 {
		return []string{"Go", "AVX2"}
	}
	return []string{"Go"}
}

// useBilinearT32 makes bilinearT32 the version named (one of
// bilinearT32Versions) until restore is called.
func useBilinearT32(name string) (restore func()) {
	old := hasAVX2
	hasAVX2 = name == "AVX2"
	return func() { hasAVX2 = old }
}

// nearestClampT32Versions returns the names of nearestClampT32's
// assembly versions this machine can run: SSE2 always, AVX2 when the
// CPU has it.
func nearestClampT32Versions() []string {
	if cpu.X86.HasAVX2 {
		return []string{"SSE2", "AVX2"}
	}
	return []string{"SSE2"}
}

// useNearestClampT32 makes nearestClampT32 the version named (one of
// nearestClampT32Versions) until restore is called.
func useNearestClampT32(name string) (restore func()) {
	old := useNearestAVX2
	useNearestAVX2 = name == "AVX2"
	return func() { useNearestAVX2 = old }
}
