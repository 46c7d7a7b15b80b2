//go:build !purego

package tmu

import "golang.org/x/sys/cpu"

// hasAVX2 chooses bilinearT32AVX2 (bilinear_amd64.s), which needs AVX2's
// 256-bit integer instructions, over bilinearT32Go.
var hasAVX2 = cpu.X86.HasAVX2

// bilinearT32 is bilinearT32AVX2 where the CPU has AVX2, else
// bilinearT32Go; TestBilinearT32MatchesGo compares the two. The choice is
// made in assembly (bilinear_amd64.s), which jumps to the version chosen,
// as nearestClampT32's is.
//
//go:noescape
func bilinearT32(p *bilinT32, s, t, out *[16]uint32) bool

// bilinearT32AVX2 is bilinearT32Go with AVX2, eight elements at a time
// (four for the float64 coordinates), the texels fetched with scalar
// loads.
//
//go:noescape
func bilinearT32AVX2(p *bilinT32, s, t, out *[16]uint32) bool

// bilinearT32IntAVX2 is bilinearT32AVX2 for a request whose every
// coordinate is within its axis' intAxis bound, in int32 arithmetic
// (bilinearT32 chooses it).
//
//go:noescape
func bilinearT32IntAVX2(p *bilinT32, s, t, out *[16]uint32) bool

// bilinearT32IntTAVX2 is bilinearT32IntAVX2 on a level in T format
// (bilinT32.tform), the texels' offsets worked out without the utile
// table (bilinearT32 chooses it).
//
//go:noescape
func bilinearT32IntTAVX2(p *bilinT32, s, t, out *[16]uint32) bool
