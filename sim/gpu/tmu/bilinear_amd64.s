//go:build !purego

#include "go_asm.h"
#include "textflag.h"

// bilinearT32AVX2 is bilinearT32Go (filter.go) with AVX2: the same float64
// texel coordinates fixCoord(c)·n − ½ (four elements to a register, the
// truncation a VROUNDPD toward zero), the range test
// (below 2^30 either way; NaN fails it), floor (VROUNDPD toward −∞, where
// the Go code corrects a truncation: the same integer), the weight
// (c·n − ½ − floor)·256 truncated, then, eight elements to a register,
// each wrapped texel as max(lo, min(·, hi)) & mask, FLIPY, the utile
// index and the offset in the utile; the texels are fetched without
// bounds checks, which planLookups made unnecessary (bilinearT32Go says
// why). Coordinates out of range are first clamped to ±2^30 (NaN to
// −2^30) so that their texels too lie in the level; their results are
// unspecified and the function returns false.
//
// It works in two passes over the 16 elements. INDEX8 (elements 0–7, then
// 8–15) does the coordinates and leaves on the stack each corner's utile
// indices and bytes in the utile, and the weights; SAMPLE8 then fetches
// each texel with scalar loads (the utile's offset from utab, plus the
// byte, in mem, inserted into its vector with VPINSRD) and blends. The
// texels are not gathered (VPGATHERDD): on AMD's Zen cores a gather is
// microcoded, many micro-ops for its four loads (Agner Fog, "Instruction
// tables": VPGATHERDD on AMD Zen), and a texel gather must wait for the
// gather of its utile offsets; on Intel's cores from Skylake to Tiger
// Lake the microcode that mitigates Gather Data Sampling (Intel's
// advisory INTEL-SA-00828, 2023) slows gathers down as well. Once INDEX8
// is done, the 64 fetches, each a chain of four loads, are independent of
// each other and of the blends, so the out-of-order core overlaps them
// instead of waiting on four elements' texels before each blend. On an
// AMD EPYC (Zen 3) this took about half the time of the gathering
// version it replaced (BenchmarkBilinearT32, both in one run); both
// benchmarks of this package compare it with bilinearT32Go.
//
// The blend is bilinear()'s sum Σ c·w with w the products of the axes'
// weights, factored exactly: A = c00·(256−fx) + c10·fx and likewise B
// for the second row (one VPMADDWD per channel pair: the factors are
// below 2^15), then A·(256−fy) + B·fy = A·256 + (B−A)·fy, rounded as
// (· + 2^15) >> 16. Channels 0 and 2 ("even") and 1 and 3 ("odd") are
// blended in separate registers, four elements to a register.
//
// The frame (640 bytes): for elements 0–7 at g = 0 and 8–15 at g = 256,
// corner k (0: x0, y0; 1: x1, y0; 2: x0, y1; 3: x1, y1) has its eight
// utile indices at g+64k and its eight bytes in the utile at g+64k+32;
// the weights fx are at 512+g/8, fy at 576+g/8.
//
// Every instruction is VEX-encoded and the function ends with VZEROUPPER
// (see sim/gpu/qpuexec/kern_avx2_amd64.s on the transition penalty).

// CONST32 defines a 32-byte constant of one 8-byte pattern repeated: four
// float64s, or eight 32-bit lanes.
#define CONST32(name, bits) DATA name+0(SB)/8, bits; DATA name+8(SB)/8, bits; DATA name+16(SB)/8, bits; DATA name+24(SB)/8, bits; GLOBL name(SB), RODATA|NOPTR, $32

CONST32(bilinHalf<>, $0x3FE0000000000000)  // 0.5
CONST32(bilinBig<>, $0x41D0000000000000)   // 2^30
CONST32(bilinNBig<>, $0xC1D0000000000000)  // -2^30
CONST32(bilinAbs<>, $0x7FFFFFFFFFFFFFFF)   // float64 sign off
CONST32(bilinAbs32<>, $0x7FFFFFFF7FFFFFFF) // float32 sign off
CONST32(bilin256<>, $0x4070000000000000)   // 256.0
CONST32(bilinIOne<>, $0x0000000100000001)  // int32 1
CONST32(bilinI256<>, $0x0000010000000100)  // int32 256
CONST32(bilinThree<>, $0x0000000300000003) // int32 3
CONST32(bilinFF<>, $0x00FF00FF00FF00FF)
CONST32(bilinRound<>, $0x0000800000008000) // int32 2^15
CONST32(bilinSix<>, $0x0000000600000006)   // int32 6
CONST32(bilinFifteen<>, $0x0000000F0000000F) // int32 15

// ·tXBytes and ·tYBytes (nearest_amd64.s, TADDR8) are the x and y
// parts of a texel's offset in its sub-tile by the coordinate's low
// four bits, y's shifted right by 4.

// AXIS4 leaves, for the four coordinates c at off(src) on the axis whose
// fixCoord scales and factors are the fields sp, sn, gp and gn (texelFix:
// p for c ≥ 0, n for c < 0, chosen by c's sign bit): X0 the first
// texel, floor (not yet wrapped), X2 the weight; it ANDs the range test
// (|c·n − ½| < 2^30, which NaN fails) into Y14. Uses Y3, Y4 and Y5.
#define AXIS4(src, off, sp, sn, gp, gn) \
	VCVTPS2PD off(src), Y3 \
	VMOVUPD sp(CX), Y4 \
	VBLENDVPD Y3, sn(CX), Y4, Y4 \
	VMOVUPD gp(CX), Y5 \
	VBLENDVPD Y3, gn(CX), Y5, Y5 \
	VMULPD Y4, Y3, Y3 \
	VROUNDPD $3, Y3, Y3 \
	VMULPD Y5, Y3, Y3 \
	VSUBPD bilinHalf<>(SB), Y3, Y3 \
	VANDPD bilinAbs<>(SB), Y3, Y4 \
	VCMPPD $1, bilinBig<>(SB), Y4, Y4 \
	VANDPD Y4, Y14, Y14 \
	VMAXPD bilinNBig<>(SB), Y3, Y3 \
	VMINPD bilinBig<>(SB), Y3, Y3 \
	VROUNDPD $1, Y3, Y4 \
	VSUBPD Y4, Y3, Y3 \
	VMULPD bilin256<>(SB), Y3, Y3 \
	VCVTTPD2DQY Y3, X2 \
	VCVTTPD2DQY Y4, X0

// WRAP8 leaves in x0 and x1 the wrapped texels max(lo, min(·, hi)) & mask
// of the eight floors f and f + 1 (f in x0, the bounds and mask the fields
// lo, hi and m). Y6 holds int32 1s.
#define WRAP8(x0, x1, lo, hi, m) \
	VPADDD Y6, x0, x1 \
	VPMINSD hi(CX), x0, x0 \
	VPMAXSD lo(CX), x0, x0 \
	VPAND m(CX), x0, x0 \
	VPMINSD hi(CX), x1, x1 \
	VPMAXSD lo(CX), x1, x1 \
	VPAND m(CX), x1, x1

// STOREC stores one corner's eight utile indices urow + ucol at slot(SP)
// and its bytes in the utile orow | ocol at slot+32(SP). Uses Y0 and Y1.
#define STOREC(urow, ucol, orow, ocol, slot) \
	VPADDD urow, ucol, Y0 \
	VPOR orow, ocol, Y1 \
	VMOVDQU Y0, slot(SP) \
	VMOVDQU Y1, slot+32(SP)

// AXIS8I is AXIS4 for bilinearT32IntAVX2, eight coordinates c at
// off(src) to a register, in int32 (intAxis says why it is exact) on the
// axis whose intAxis is at the field ax: it leaves the first texels,
// floor (not yet wrapped), in dst and the weights in Y2. The sign of c
// chooses the scale and the factor (VBLENDVPS). Uses Y3, Y4 and Y5.
#define AXIS8I(src, off, ax, dst) \
	VMOVUPS off(src), X3 \
	VINSERTF128 $1, off+16(src), Y3, Y3 \
	VMOVUPS ax+intAxis_sp(CX), Y4 \
	VBLENDVPS Y3, ax+intAxis_sn(CX), Y4, Y4 \
	VMULPS Y3, Y4, Y4 \
	VCVTTPS2DQ Y4, Y4 \
	VMOVDQU ax+intAxis_wp(CX), Y5 \
	VBLENDVPS Y3, ax+intAxis_wn(CX), Y5, Y5 \
	VPMULLD Y5, Y4, Y4 \
	VPSUBD ax+intAxis_half(CX), Y4, Y4 \
	VPSRAD ax+intAxis_shift(CX), Y4, dst \
	VPAND ax+intAxis_mask(CX), Y4, Y4 \
	VPSLLD $8, Y4, Y4 \
	VPSRLD ax+intAxis_shift(CX), Y4, Y2

// INDEX8I is INDEX8 with AXIS8I.
#define INDEX8I(off, g) \
	AXIS8I(SI, off, bilinT32_ix, Y7) \
	VMOVDQU Y2, 512+g/8(SP) \
	AXIS8I(DX, off, bilinT32_iy, Y0) \
	VMOVDQU Y2, 576+g/8(SP) \
	TEXELS8(g)

// INDEX8IT is INDEX8I on a level in T format (bilinearT32IntTAVX2):
// each corner's slot holds its eight texels' byte offsets (TEXELS8T).
#define INDEX8IT(off, g) \
	AXIS8I(SI, off, bilinT32_ix, Y7) \
	VMOVDQU Y2, 512+g/8(SP) \
	AXIS8I(DX, off, bilinT32_iy, Y0) \
	VMOVDQU Y2, 576+g/8(SP) \
	TEXELS8T(g)

// INDEX8 does elements off/4 .. off/4+7 up to their texels: it stores
// their corners' utile indices and bytes in the utile at g(SP) and their
// weights fx and fy at 512+g/8(SP) and 576+g/8(SP) (see the frame above).
#define INDEX8(off, g) \
	AXIS4(SI, off, bilinT32_sxp, bilinT32_sxn, bilinT32_gxp, bilinT32_gxn) \
	VMOVDQA X0, X7 \
	VMOVDQU X2, 512+g/8(SP) \
	AXIS4(SI, off+16, bilinT32_sxp, bilinT32_sxn, bilinT32_gxp, bilinT32_gxn) \
	VINSERTI128 $1, X0, Y7, Y7 \
	VMOVDQU X2, 528+g/8(SP) \
	AXIS4(DX, off, bilinT32_syp, bilinT32_syn, bilinT32_gyp, bilinT32_gyn) \
	VMOVDQA X0, X9 \
	VMOVDQU X2, 576+g/8(SP) \
	AXIS4(DX, off+16, bilinT32_syp, bilinT32_syn, bilinT32_gyp, bilinT32_gyn) \
	VINSERTI128 $1, X0, Y9, Y0 \
	VMOVDQU X2, 592+g/8(SP) \
	TEXELS8(g)

// TEXELS8 is the rest of INDEX8 and INDEX8I: from the eight first
// texels, floor, of each axis (x in Y7, y in Y0), the wrapped texels and
// the corners stored at g(SP).
#define TEXELS8(g) \
	VMOVDQU bilinIOne<>(SB), Y6 \
	WRAP8(Y7, Y8, bilinT32_lox, bilinT32_hix, bilinT32_mx) \
	WRAP8(Y0, Y1, bilinT32_loy, bilinT32_hiy, bilinT32_my) \
	VPXOR bilinT32_flip8(CX), Y0, Y0 \
	VPADDD bilinT32_hf8(CX), Y0, Y0 \
	VPXOR bilinT32_flip8(CX), Y1, Y1 \
	VPADDD bilinT32_hf8(CX), Y1, Y1 \
	VPSRLD $2, Y0, Y3 \
	VPMULLD bilinT32_upr8(CX), Y3, Y3 \
	VPSRLD $2, Y1, Y4 \
	VPMULLD bilinT32_upr8(CX), Y4, Y4 \
	VPAND bilinThree<>(SB), Y0, Y5 \
	VPSLLD $4, Y5, Y5 \
	VPAND bilinThree<>(SB), Y1, Y6 \
	VPSLLD $4, Y6, Y6 \
	VPSRLD $2, Y7, Y10 \
	VPSRLD $2, Y8, Y11 \
	VPAND bilinThree<>(SB), Y7, Y12 \
	VPSLLD $2, Y12, Y12 \
	VPAND bilinThree<>(SB), Y8, Y13 \
	VPSLLD $2, Y13, Y13 \
	STOREC(Y3, Y10, Y5, Y12, g) \
	STOREC(Y3, Y11, Y5, Y13, g+64) \
	STOREC(Y4, Y10, Y6, Y12, g+128) \
	STOREC(Y4, Y11, Y6, Y13, g+192)

// TEXELS8T is TEXELS8 on a level in T format: from the wrapped texels
// (x0, x1, y0, y1 after FLIPY) it works out each corner's eight byte
// offsets in the level as nearest_amd64.s's TADDR8 does, in parts
// shared by the corners of a row (TROW) or a column (TCOL), and stores
// them at g+64k (TCORNER). Uses every register but Y0's and Y7's inputs.
#define TEXELS8T(g) \
	VMOVDQU bilinIOne<>(SB), Y6 \
	WRAP8(Y7, Y8, bilinT32_lox, bilinT32_hix, bilinT32_mx) \
	WRAP8(Y0, Y1, bilinT32_loy, bilinT32_hiy, bilinT32_my) \
	VPXOR bilinT32_flip8(CX), Y0, Y0 \
	VPADDD bilinT32_hf8(CX), Y0, Y0 \
	VPXOR bilinT32_flip8(CX), Y1, Y1 \
	VPADDD bilinT32_hf8(CX), Y1, Y1 \
	TROW(Y0, Y2, Y3) \
	TROW(Y1, Y4, Y5) \
	TCOL(Y7, Y9, Y10, Y11) \
	TCOL(Y8, Y12, Y13, Y14) \
	TCORNER(Y2, Y3, Y9, Y10, Y11, g) \
	TCORNER(Y2, Y3, Y12, Y13, Y14, g+64) \
	TCORNER(Y4, Y5, Y9, Y10, Y11, g+128) \
	TCORNER(Y4, Y5, Y12, Y13, Y14, g+192)

// TROW leaves in a the parts of a T-format offset that depend on the
// row y alone: ty·tpr·4096 (ty = y>>5; VPMADDWD on the 16-bit halves,
// both factors below 2^15) plus (y&3)<<4 | (y&12)<<6 (·tYBytes
// shifted left by 4); and in q the row's choices: bit 31 the tile
// row's parity (odd rows run right to left), bits 1 and 2 y>>4&1 and
// ty&1, the sub-tile index's (TCORNER). It leaves y changed; uses Y6.
#define TROW(y, a, q) \
	VPSLLD $26, y, q \
	VPSRLD $3, y, Y6 \
	VPAND bilinSix<>(SB), Y6, Y6 \
	VPOR Y6, q, q \
	VPSRLD $5, y, a \
	VPMADDWD bilinT32_tpr8(CX), a, a \
	VPSLLD $12, a, a \
	VPAND bilinFifteen<>(SB), y, y \
	VMOVDQU ·tYBytes(SB), Y6 \
	VPSHUFB y, Y6, y \
	VPSLLD $4, y, y \
	VPADDD y, a, a

// TCOL leaves the parts of a T-format offset that depend on the column
// x alone: in c tx·4096 (tx = x>>5) and in cr (tpr-1-tx)·4096, the tile
// column on an even and on an odd tile row, each plus (x&3)<<2 |
// (x&12)<<4 (·tXBytes); in sx the sub-tile column x>>4&1. It
// leaves x changed; uses Y6.
#define TCOL(x, c, cr, sx) \
	VPSRLD $4, x, sx \
	VPAND bilinIOne<>(SB), sx, sx \
	VPSRLD $5, x, c \
	VMOVDQU bilinT32_tpr18(CX), cr \
	VPSUBD c, cr, cr \
	VPSLLD $12, c, c \
	VPSLLD $12, cr, cr \
	VPAND bilinFifteen<>(SB), x, x \
	VMOVDQU ·tXBytes(SB), Y6 \
	VPSHUFB x, Y6, x \
	VPADDD x, c, c \
	VPADDD x, cr, cr

// TCORNER stores at slot(SP) the byte offsets of the corner on the row
// of a and q (TROW) and the column of c, cr and sx (TCOL): a plus c, or
// cr on an odd tile row, plus the sub-tile's offset tsub at q's bits
// with sx (VPERMD reads the low three bits). Uses Y6 and Y15.
#define TCORNER(a, q, c, cr, sx, slot) \
	VBLENDVPS q, cr, c, Y6 \
	VPADDD a, Y6, Y6 \
	VPOR sx, q, Y15 \
	VPERMD bilinT32_tsub(CX), Y15, Y15 \
	VPADDD Y15, Y6, Y6 \
	VMOVDQU Y6, slot(SP)

// TEXEL puts into lane k of dst the texel of element k at slot(SP) (see
// STOREC): the utile's offset utab (AX) at the utile index, plus the byte
// in the utile, in mem (BX). The sum is below 2^31 (planLookups), so the
// 32-bit MOVL and ADDL, which zero the upper half of r, give the offset.
#define TEXEL(slot, k, r, dst) \
	MOVL slot+4*k(SP), r \
	MOVL (AX)(r*4), r \
	ADDL slot+32+4*k(SP), r \
	VPINSRD $k, (BX)(r*1), dst, dst

// FETCH4 fetches the texels of the four elements at slot(SP) into dst.
#define FETCH4(slot, dst) \
	MOVL slot(SP), R8 \
	MOVL (AX)(R8*4), R8 \
	ADDL slot+32(SP), R8 \
	VMOVD (BX)(R8*1), dst \
	TEXEL(slot, 1, R9, dst) \
	TEXEL(slot, 2, R10, dst) \
	TEXEL(slot, 3, R11, dst)

// FETCH8 fetches the texels of one corner of eight elements, stored at
// slot(SP), into ydst (whose low half is xdst). Uses X0.
#define FETCH8(slot, xdst, ydst) \
	FETCH4(slot, xdst) \
	FETCH4(slot+16, X0) \
	VINSERTI128 $1, X0, ydst, ydst

// TEXELT and FETCH4T are TEXEL and FETCH4 for slots that hold the
// texels' byte offsets in mem (TCORNER).
#define TEXELT(slot, k, r, dst) \
	MOVL slot+4*k(SP), r \
	VPINSRD $k, (BX)(r*1), dst, dst

#define FETCH4T(slot, dst) \
	MOVL slot(SP), R8 \
	VMOVD (BX)(R8*1), dst \
	TEXELT(slot, 1, R9, dst) \
	TEXELT(slot, 2, R10, dst) \
	TEXELT(slot, 3, R11, dst)

// FETCH8T is FETCH8 with FETCH4T.
#define FETCH8T(slot, xdst, ydst) \
	FETCH4T(slot, xdst) \
	FETCH4T(slot+16, X0) \
	VINSERTI128 $1, X0, ydst, ydst

// BLENDROW leaves in lo and hi the row sums c0·(256−fx) + c1·fx of a
// channel pair (even: 0, 2; odd: 1, 3 after the shift) of elements 0, 1,
// 4, 5 and 2, 3, 6, 7 (the unpacks work within 128-bit halves); Y3 holds
// (256−fx) | fx<<16 per element. Uses Y0 and Y1.
#define BLENDROW(c0, c1, lo, hi) \
	VPAND bilinFF<>(SB), c0, Y0 \
	VPAND bilinFF<>(SB), c1, Y1 \
	VPUNPCKLWD Y1, Y0, lo \
	VPUNPCKHWD Y1, Y0, hi \
	VPUNPCKLDQ Y3, Y3, Y0 \
	VPMADDWD Y0, lo, lo \
	VPUNPCKHDQ Y3, Y3, Y1 \
	VPMADDWD Y1, hi, hi

// BLEND8 blends one channel pair (even, or odd after the shift) of eight
// elements: the rows' sums from the texels c00, c10 (Y7, Y8) and c01, c11
// (Y10, Y11), then A·256 + (B−A)·fy rounded, left in Y12 (elements 0, 1,
// 4, 5) and Y13 (2, 3, 6, 7). Y2 holds fy per element, Y3 the row weights
// (see BLENDROW). Uses Y0, Y1, Y4 and Y5.
#define BLEND8 \
	BLENDROW(Y7, Y8, Y12, Y13) \
	BLENDROW(Y10, Y11, Y4, Y5) \
	VPSUBD Y12, Y4, Y4 \
	VPSUBD Y13, Y5, Y5 \
	VPUNPCKLDQ Y2, Y2, Y0 \
	VPUNPCKHDQ Y2, Y2, Y1 \
	VPMULLD Y0, Y4, Y4 \
	VPMULLD Y1, Y5, Y5 \
	VPSLLD $8, Y12, Y12 \
	VPSLLD $8, Y13, Y13 \
	VPADDD Y12, Y4, Y12 \
	VPADDD Y13, Y5, Y13 \
	VPADDD bilinRound<>(SB), Y12, Y12 \
	VPADDD bilinRound<>(SB), Y13, Y13 \
	VPSRLD $16, Y12, Y12 \
	VPSRLD $16, Y13, Y13

// SAMPLE8 fetches and blends elements off/4 .. off/4+7 from what INDEX8
// stored at g.
#define SAMPLE8(off, g) \
	FETCH8(g, X7, Y7) \
	FETCH8(g+64, X8, Y8) \
	FETCH8(g+128, X10, Y10) \
	FETCH8(g+192, X11, Y11) \
	BLENDOUT(off, g)

// SAMPLE8T is SAMPLE8 for what INDEX8IT stored at g: the texels' byte
// offsets.
#define SAMPLE8T(off, g) \
	FETCH8T(g, X7, Y7) \
	FETCH8T(g+64, X8, Y8) \
	FETCH8T(g+128, X10, Y10) \
	FETCH8T(g+192, X11, Y11) \
	BLENDOUT(off, g)

// BLENDOUT is the rest of SAMPLE8 and SAMPLE8T: from the four corners'
// texels (Y7, Y8, Y10, Y11) and the weights at g, the blend of elements
// off/4 .. off/4+7, stored at off(DI).
#define BLENDOUT(off, g) \
	VMOVDQU 512+g/8(SP), Y9 \
	VMOVDQU 576+g/8(SP), Y2 \
	VMOVDQU bilinI256<>(SB), Y3 \
	VPSUBD Y9, Y3, Y3 \
	VPSLLD $16, Y9, Y9 \
	VPOR Y9, Y3, Y3 \
	BLEND8 \
	VPSRLD $8, Y7, Y7 \
	VPSRLD $8, Y8, Y8 \
	VPSRLD $8, Y10, Y10 \
	VPSRLD $8, Y11, Y11 \
	VMOVDQA Y12, Y6 \
	VMOVDQA Y13, Y9 \
	BLEND8 \
	VPSLLD $8, Y12, Y12 \
	VPSLLD $8, Y13, Y13 \
	VPOR Y12, Y6, Y6 \
	VPOR Y13, Y9, Y9 \
	VPACKUSDW Y9, Y6, Y6 \
	VMOVDQU Y6, off(DI)

// LOADC loads the eight coordinates at off(src) into y (x its low
// half) 16 bytes at a time, as nearest_amd64.s's LOAD8 does and for its
// reason: the unit's copy of T is written with 16-byte stores just
// before the lookup, and a 32-byte load spanning two of them is not
// forwarded from the store buffer. AXIS8I loads its coordinates the
// same way.
#define LOADC(src, off, x, y) \
	VMOVUPS off(src), x \
	VINSERTF128 $1, off+16(src), y, y

// func bilinearT32(p *bilinT32, s, t, out *[16]uint32) bool
//
// The choice of version (bilinear_amd64.go), taken with a jump: the
// arguments are where the version reads them. With AVX2, when every
// coordinate is within its axis' intAxis bound (which NaN is not), the
// integer form bilinearT32IntAVX2, else bilinearT32AVX2.
TEXT ·bilinearT32(SB), NOSPLIT, $0-33
	CMPB ·hasAVX2(SB), $0
	JEQ  bilinearGo
	MOVQ p+0(FP), CX
	MOVQ s+8(FP), SI
	MOVQ t+16(FP), DX
	VMOVUPS bilinAbs32<>(SB), Y0
	LOADC(SI, 0, X1, Y1)
	VANDPS Y1, Y0, Y1
	VCMPPS $1, bilinT32_ix+intAxis_bound(CX), Y1, Y1
	LOADC(SI, 32, X2, Y2)
	VANDPS Y2, Y0, Y2
	VCMPPS $1, bilinT32_ix+intAxis_bound(CX), Y2, Y2
	VANDPS Y2, Y1, Y1
	LOADC(DX, 0, X2, Y2)
	VANDPS Y2, Y0, Y2
	VCMPPS $1, bilinT32_iy+intAxis_bound(CX), Y2, Y2
	VANDPS Y2, Y1, Y1
	LOADC(DX, 32, X2, Y2)
	VANDPS Y2, Y0, Y2
	VCMPPS $1, bilinT32_iy+intAxis_bound(CX), Y2, Y2
	VANDPS Y2, Y1, Y1
	VMOVMSKPS Y1, AX
	CMPL AX, $0xFF
	JNE  bilinearFloat
	CMPB bilinT32_tform(CX), $0
	JNE  bilinearIntT
	JMP  ·bilinearT32IntAVX2(SB)

bilinearIntT:
	JMP ·bilinearT32IntTAVX2(SB)

bilinearFloat:
	JMP ·bilinearT32AVX2(SB)

bilinearGo:
	JMP ·bilinearT32Go(SB)

// func bilinearT32IntAVX2(p *bilinT32, s, t, out *[16]uint32) bool
//
// bilinearT32AVX2 with the coordinates worked out in int32, eight to a
// register (AXIS8I), for a request whose every coordinate is within its
// axis' bound (bilinearT32 checks): then every element is in range, and
// it returns true.
TEXT ·bilinearT32IntAVX2(SB), NOSPLIT, $640-33
	MOVQ p+0(FP), CX
	MOVQ s+8(FP), SI
	MOVQ t+16(FP), DX
	MOVQ out+24(FP), DI
	MOVQ bilinT32_utab(CX), AX
	MOVQ bilinT32_mem(CX), BX
	INDEX8I(0, 0)
	INDEX8I(32, 256)
	SAMPLE8(0, 0)
	SAMPLE8(32, 256)
	MOVB $1, ret+32(FP)
	VZEROUPPER
	RET

// func bilinearT32AVX2(p *bilinT32, s, t, out *[16]uint32) bool
TEXT ·bilinearT32AVX2(SB), NOSPLIT, $640-33
	MOVQ p+0(FP), CX
	MOVQ s+8(FP), SI
	MOVQ t+16(FP), DX
	MOVQ out+24(FP), DI
	MOVQ bilinT32_utab(CX), AX
	MOVQ bilinT32_mem(CX), BX
	VPCMPEQD Y14, Y14, Y14
	INDEX8(0, 0)
	INDEX8(32, 256)
	SAMPLE8(0, 0)
	SAMPLE8(32, 256)
	VMOVMSKPD Y14, R8
	CMPL R8, $15
	SETEQ ret+32(FP)
	VZEROUPPER
	RET

// func bilinearT32IntTAVX2(p *bilinT32, s, t, out *[16]uint32) bool
//
// bilinearT32IntAVX2 on a level in T format (tform, setT): each texel's
// byte offset is worked out in the vectors (TEXELS8T), so a fetch is one
// load from the frame and the texel's, where the utile table took three
// loads one after another. bilinearT32 chooses it.
TEXT ·bilinearT32IntTAVX2(SB), NOSPLIT, $640-33
	MOVQ p+0(FP), CX
	MOVQ s+8(FP), SI
	MOVQ t+16(FP), DX
	MOVQ out+24(FP), DI
	MOVQ bilinT32_mem(CX), BX
	INDEX8IT(0, 0)
	INDEX8IT(32, 256)
	SAMPLE8T(0, 0)
	SAMPLE8T(32, 256)
	MOVB $1, ret+32(FP)
	VZEROUPPER
	RET
