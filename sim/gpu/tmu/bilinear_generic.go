//go:build !amd64 || purego

package tmu

// bilinearT32 is bilinearT32Go on architectures without the AVX2 version.
func bilinearT32(p *bilinT32, s, t, out *[16]uint32) bool { return bilinearT32Go(p, s, t, out) }
