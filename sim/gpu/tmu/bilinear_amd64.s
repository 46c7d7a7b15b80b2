//go:build !purego

#include "go_asm.h"
#include "textflag.h"

// bilinearT32AVX2 is bilinearT32Go (filter.go) four elements at a time:
// the same float64 texel coordinates c·n − ½, the range test (below 2^30
// either way; NaN fails it), floor (VROUNDPD toward −∞, where the Go code
// corrects a truncation: the same integer), the weight (c·n − ½ − floor)·256
// truncated, each wrapped texel as max(lo, min(·, hi)) & mask, FLIPY, the
// utile index and the offset in the utile; the texels are gathered without
// bounds checks, which planLookups made unnecessary (bilinearT32Go says
// why). Coordinates out of range are first clamped to ±2^30 (NaN to
// −2^30) so that their texels too lie in the level; their results are
// unspecified and the function returns false.
//
// The blend is bilinear()'s sum Σ c·w with w the products of the axes'
// weights, factored exactly: A = c00·(256−fx) + c10·fx and likewise B
// for the second row (one VPMADDWD per channel pair: the factors are
// below 2^15), then A·(256−fy) + B·fy = A·256 + (B−A)·fy, rounded as
// (· + 2^15) >> 16. Channels 0 and 2 ("even") and 1 and 3 ("odd") are
// blended in separate registers, two elements to a register.
//
// Every instruction is VEX-encoded and the function ends with VZEROUPPER
// (see sim/gpu/qpuexec/kernels_avx2_amd64.s on the transition penalty).

// CONST32 and CONST16 define a 32- or 16-byte constant of one 8-byte
// pattern repeated: four float64s, or two or four 32-bit lanes.
#define CONST32(name, bits) DATA name+0(SB)/8, bits; DATA name+8(SB)/8, bits; DATA name+16(SB)/8, bits; DATA name+24(SB)/8, bits; GLOBL name(SB), RODATA|NOPTR, $32
#define CONST16(name, bits) DATA name+0(SB)/8, bits; DATA name+8(SB)/8, bits; GLOBL name(SB), RODATA|NOPTR, $16

CONST32(bilinHalf<>, $0x3FE0000000000000)  // 0.5
CONST32(bilinBig<>, $0x41D0000000000000)   // 2^30
CONST32(bilinNBig<>, $0xC1D0000000000000)  // -2^30
CONST32(bilinOne<>, $0x3FF0000000000000)   // 1.0
CONST32(bilin256<>, $0x4070000000000000)   // 256.0
CONST16(bilinI256<>, $0x0000010000000100)  // int32 256
CONST16(bilinThree<>, $0x0000000300000003) // int32 3
CONST16(bilinFF<>, $0x00FF00FF00FF00FF)
CONST16(bilinRound<>, $0x0000800000008000) // int32 2^15

// AXIS4 leaves, for the four coordinates at off(src) on the axis whose
// scale, low and high bounds are the fields sc, lo and hi: X0 the first
// texel (floor, wrapped but for the mask), X1 the second (floor + 1), X2
// the weight; it ANDs the range test into Y14. Uses Y3–Y6.
#define AXIS4(src, off, sc, lo, hi) \
	VCVTPS2PD off(src), Y3 \
	VMULPD sc(CX), Y3, Y3 \
	VSUBPD bilinHalf<>(SB), Y3, Y3 \
	VCMPPD $1, bilinBig<>(SB), Y3, Y4 \
	VANDPD Y4, Y14, Y14 \
	VMOVUPD bilinNBig<>(SB), Y5 \
	VCMPPD $1, Y3, Y5, Y4 \
	VANDPD Y4, Y14, Y14 \
	VMAXPD bilinNBig<>(SB), Y3, Y3 \
	VMINPD bilinBig<>(SB), Y3, Y3 \
	VROUNDPD $1, Y3, Y4 \
	VSUBPD Y4, Y3, Y3 \
	VMULPD bilin256<>(SB), Y3, Y3 \
	VCVTTPD2DQY Y3, X2 \
	VMAXPD lo(CX), Y4, Y3 \
	VMINPD hi(CX), Y3, Y3 \
	VCVTTPD2DQY Y3, X0 \
	VADDPD bilinOne<>(SB), Y4, Y4 \
	VMAXPD lo(CX), Y4, Y4 \
	VMINPD hi(CX), Y4, Y4 \
	VCVTTPD2DQY Y4, X1

// FETCH4 gathers the texels at byte sub of utiles idx (four each) into
// dst: utab (AX) then mem (BX). X0 is the gathers' mask, X1 scratch; dst
// must differ from idx.
#define FETCH4(idx, sub, dst) \
	VPCMPEQD X0, X0, X0 \
	VPGATHERDD X0, (AX)(idx*4), X1 \
	VPADDD sub, X1, X1 \
	VPCMPEQD X0, X0, X0 \
	VPGATHERDD X0, (BX)(X1*1), dst

// BLENDROW leaves in lo and hi the row sums c0·(256−fx) + c1·fx of
// channels (even: 0, 2; odd: 1, 3 after the shift) of elements 0, 1 and
// 2, 3; X3 holds (256−fx) | fx<<16 per element. Uses X0 and X1.
#define BLENDROW(c0, c1, lo, hi) \
	VPAND bilinFF<>(SB), c0, X0 \
	VPAND bilinFF<>(SB), c1, X1 \
	VPUNPCKLWD X1, X0, lo \
	VPUNPCKHWD X1, X0, hi \
	VPUNPCKLDQ X3, X3, X0 \
	VPMADDWD X0, lo, lo \
	VPUNPCKHDQ X3, X3, X1 \
	VPMADDWD X1, hi, hi

// BLEND4 blends one channel pair (even, or odd after the shift) of the
// four elements: the rows' sums from the texels c00, c10 (X7, X8) and c01,
// c11 (X10, X11), then A·256 + (B−A)·fy rounded, left in X12 (elements 0,
// 1) and X13 (2, 3). X2 holds fy per element, X3 the row weights (see
// BLENDROW). Uses X0, X1, X4 and X5.
#define BLEND4 \
	BLENDROW(X7, X8, X12, X13) \
	BLENDROW(X10, X11, X4, X5) \
	VPSUBD X12, X4, X4 \
	VPSUBD X13, X5, X5 \
	VPUNPCKLDQ X2, X2, X0 \
	VPUNPCKHDQ X2, X2, X1 \
	VPMULLD X0, X4, X4 \
	VPMULLD X1, X5, X5 \
	VPSLLD $8, X12, X12 \
	VPSLLD $8, X13, X13 \
	VPADDD X12, X4, X12 \
	VPADDD X13, X5, X13 \
	VPADDD bilinRound<>(SB), X12, X12 \
	VPADDD bilinRound<>(SB), X13, X13 \
	VPSRLD $16, X12, X12 \
	VPSRLD $16, X13, X13

// CORNER fetches one corner's four texels into dst: utile index row +
// column (urow + ucol) and byte in the utile row | column (orow | ocol),
// computed into the scratch registers su and so.
#define CORNER(urow, ucol, orow, ocol, su, so, dst) \
	VPADDD urow, ucol, su \
	VPOR orow, ocol, so \
	FETCH4(su, so, dst)

// GROUP4 does elements off/4 .. off/4+3.
#define GROUP4(off) \
	AXIS4(SI, off, bilinT32_sx, bilinT32_lox, bilinT32_hix) \
	VPAND bilinT32_mx(CX), X0, X7 \
	VPAND bilinT32_mx(CX), X1, X8 \
	VMOVDQA X2, X9 \
	AXIS4(DX, off, bilinT32_sy, bilinT32_loy, bilinT32_hiy) \
	VPAND bilinT32_my(CX), X0, X0 \
	VPAND bilinT32_my(CX), X1, X1 \
	VPXOR bilinT32_flip4(CX), X0, X0 \
	VPADDD bilinT32_hf4(CX), X0, X0 \
	VPXOR bilinT32_flip4(CX), X1, X1 \
	VPADDD bilinT32_hf4(CX), X1, X1 \
	VPSRLD $2, X0, X3 \
	VPMULLD bilinT32_upr4(CX), X3, X3 \
	VPSRLD $2, X1, X4 \
	VPMULLD bilinT32_upr4(CX), X4, X4 \
	VPAND bilinThree<>(SB), X0, X5 \
	VPSLLD $4, X5, X5 \
	VPAND bilinThree<>(SB), X1, X6 \
	VPSLLD $4, X6, X6 \
	VPSRLD $2, X7, X10 \
	VPSRLD $2, X8, X11 \
	VPAND bilinThree<>(SB), X7, X12 \
	VPSLLD $2, X12, X12 \
	VPAND bilinThree<>(SB), X8, X13 \
	VPSLLD $2, X13, X13 \
	CORNER(X3, X10, X5, X12, X7, X8, X7) \
	CORNER(X3, X11, X5, X13, X3, X5, X8) \
	CORNER(X4, X10, X6, X12, X3, X5, X10) \
	CORNER(X4, X11, X6, X13, X3, X5, X11) \
	VMOVDQU bilinI256<>(SB), X3 \
	VPSUBD X9, X3, X3 \
	VPSLLD $16, X9, X9 \
	VPOR X9, X3, X3 \
	BLEND4 \
	VPSRLD $8, X7, X7 \
	VPSRLD $8, X8, X8 \
	VPSRLD $8, X10, X10 \
	VPSRLD $8, X11, X11 \
	VMOVDQA X12, X6 \
	VMOVDQA X13, X9 \
	BLEND4 \
	VPSLLD $8, X12, X12 \
	VPSLLD $8, X13, X13 \
	VPOR X12, X6, X6 \
	VPOR X13, X9, X9 \
	VPACKUSDW X9, X6, X6 \
	VMOVDQU X6, off(DI)

// func bilinearT32AVX2(p *bilinT32, s, t, out *[16]uint32) bool
TEXT ·bilinearT32AVX2(SB), NOSPLIT, $0-33
	MOVQ p+0(FP), CX
	MOVQ s+8(FP), SI
	MOVQ t+16(FP), DX
	MOVQ out+24(FP), DI
	MOVQ bilinT32_utab(CX), AX
	MOVQ bilinT32_mem(CX), BX
	VPCMPEQD Y14, Y14, Y14
	GROUP4(0)
	GROUP4(16)
	GROUP4(32)
	GROUP4(48)
	VMOVMSKPD Y14, R8
	CMPL R8, $15
	SETEQ ret+32(FP)
	VZEROUPPER
	RET
