//go:build !purego

#include "go_asm.h"
#include "textflag.h"

// nearestClampT32SSE2 is nearestClampT32Go (filter.go) four elements at
// a time with SSE2: the same float64 products, the clamp as max(·, 0) then
// min(·, n-1) (MAXPD returns its second operand, 0, for a NaN first
// one), truncation, and the utile arithmetic in 32-bit integers; then
// each element's utile offset and texel are fetched without bounds
// checks, which planLookups made unnecessary: every clamped texel's
// utile index is below len(utab), and mem holds each of those utiles
// whole.

// AXIS4 leaves in X1 the four clamped texel indices of the coordinates at
// off(src): scale holds n, maxv n-1, both as two float64s; X12 is zero.
#define AXIS4(src, off, scale, maxv) \
	MOVOU off(src), X0 \
	CVTPS2PD X0, X1 \
	MOVHLPS X0, X0 \
	CVTPS2PD X0, X2 \
	MULPD scale, X1 \
	MULPD scale, X2 \
	MAXPD X12, X1 \
	MAXPD X12, X2 \
	MINPD maxv, X1 \
	MINPD maxv, X2 \
	CVTTPD2PL X1, X1 \
	CVTTPD2PL X2, X2 \
	PUNPCKLQDQ X2, X1

// FETCH2 fetches two texels to off(DI) and off+4(DI): the utile indices
// are the low and high halves of R8, the offsets in the utile those of
// R9 (all non-negative, so the 32-bit moves' zero extension is right).
#define FETCH2(off) \
	MOVL R8, R10 \
	SHRQ $32, R8 \
	MOVL R9, R11 \
	SHRQ $32, R9 \
	MOVL (AX)(R10*4), R10 \
	MOVL (AX)(R8*4), R8 \
	ADDL R11, R10 \
	ADDL R9, R8 \
	MOVL (BX)(R10*1), R10 \
	MOVL (BX)(R8*1), R8 \
	MOVL R10, off(DI) \
	MOVL R8, off+4(DI)

// GROUP4 does elements off/4 .. off/4+3: utile index
// (y>>2)·upr + x>>2 (one PMADDWD on the 16-bit halves: both factors are
// below 2^15), offset in the utile (y&3)<<4 | (x&3)<<2, then the fetches.
#define GROUP4(off) \
	AXIS4(SI, off, X8, X10) \
	MOVO X1, X3 \
	AXIS4(DX, off, X9, X11) \
	PXOR X13, X1 \
	PADDL X14, X1 \
	MOVO X1, X4 \
	PSRAL $2, X4 \
	PMADDWL X7, X4 \
	MOVO X3, X5 \
	PSRAL $2, X5 \
	PADDL X5, X4 \
	PAND X6, X1 \
	PSLLL $4, X1 \
	PAND X6, X3 \
	PSLLL $2, X3 \
	POR X3, X1 \
	MOVQ X4, R8 \
	MOVQ X1, R9 \
	FETCH2(off) \
	PSHUFD $0xEE, X4, X4 \
	PSHUFD $0xEE, X1, X1 \
	MOVQ X4, R8 \
	MOVQ X1, R9 \
	FETCH2(off+8)

// func nearestClampT32SSE2(p *clampT32, s, t, out *[16]uint32)
TEXT ·nearestClampT32SSE2(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), CX
	MOVQ s+8(FP), SI
	MOVQ t+16(FP), DX
	MOVQ out+24(FP), DI
	MOVQ clampT32_utab(CX), AX
	MOVQ clampT32_mem(CX), BX
	MOVSD clampT32_fw(CX), X8
	MOVLHPS X8, X8
	MOVSD clampT32_fh(CX), X9
	MOVLHPS X9, X9
	MOVSD clampT32_wm1(CX), X10
	MOVLHPS X10, X10
	MOVSD clampT32_hm1(CX), X11
	MOVLHPS X11, X11
	PXOR X12, X12
	MOVL clampT32_flip(CX), R8
	MOVQ R8, X13
	PSHUFD $0, X13, X13
	MOVL clampT32_hf(CX), R8
	MOVQ R8, X14
	PSHUFD $0, X14, X14
	MOVL clampT32_upr(CX), R8
	MOVQ R8, X7
	PSHUFD $0, X7, X7
	MOVL $3, R8
	MOVQ R8, X6
	PSHUFD $0, X6, X6
	GROUP4(0)
	GROUP4(16)
	GROUP4(32)
	GROUP4(48)
	RET

// nearestClampT32AVX2 is nearestClampT32SSE2 with AVX2: the same float64
// products, clamps and truncation four elements to a register, the
// utile arithmetic eight to a register; then each texel is fetched with
// a scalar load (no VPGATHERDD: bilinear_amd64.s says why) into its
// lane, four to a 16-byte store. nearestFixClampT32AVX2 is the same for
// a clampT32 with fix set, with its own coordinate arithmetic
// (AXIS8FIX), and nearestP2ClampT32AVX2 for one without, on a level
// whose sides are powers of two (p2), in float32 (AXIS8P2). Every instruction is VEX-encoded and each function ends
// with VZEROUPPER.
//
// The utile indices and offsets go from the vector registers to the
// fetches through general registers (VMOVQ, VPEXTRQ), eight elements at
// a time, as the SSE2 loop does. They used to go through the frame, with
// 32-byte stores and 4-byte loads: the register moves took 14 to 16 %
// less time for the kernels alone (BenchmarkNearestClampT32) and 3 %
// less for glmark2's effect2d blur job (doc/performance.md, "The TMU's
// clamped lookups").
//
// Registers: Y8 and Y9 hold w and h (AXIS8, AXIS8P2) or sx and sy
// (AXIS8FIX), Y10 and Y11 w-1 and h-1, Y15 and Y0 w and h as int32s (AXIS8FIX), Y12
// zero, Y13 the flip, Y14 hf, Y7 upr, Y6 int32 3s.

// AXIS8 leaves in Y1 the eight clamped texel indices of the coordinates
// at off(src): scale holds n, maxv n-1, as four float64s; Y12 is zero.
// VMAXPD returns its second source, 0, for a NaN first one.
#define AXIS8(src, off, scale, maxv) \
	VCVTPS2PD off(src), Y1 \
	VCVTPS2PD off+16(src), Y2 \
	VMULPD scale, Y1, Y1 \
	VMULPD scale, Y2, Y2 \
	VMAXPD Y12, Y1, Y1 \
	VMAXPD Y12, Y2, Y2 \
	VMINPD maxv, Y1, Y1 \
	VMINPD maxv, Y2, Y2 \
	VCVTTPD2DQY Y1, X1 \
	VCVTTPD2DQY Y2, X2 \
	VINSERTI128 $1, X2, Y1, Y1

// LOAD8 loads the eight coordinates at off(src) into Y1 16 bytes at a
// time. The unit's copy of T (Unit.Write, WriteAtOnce: lanes.Copy) is
// written with 16-byte stores just before the S write that starts the
// lookup, and a 32-byte load spanning two of them while they are still
// in the store buffer is not forwarded from them: it waits until both
// reach the cache. In a CPU profile of the cube's 1920x1080 frame the
// instruction after the 32-byte load of T had 16 % of the kernel's
// samples (doc/performance.md, "The TMU's loads of S and T"). A 16-byte
// load within one store is forwarded.
#define LOAD8(src, off) \
	VMOVUPS off(src), X1 \
	VINSERTF128 $1, off+16(src), Y1, Y1

// AXIS8FIX leaves in Y1 the eight texel indices of the coordinates at
// off(src) with the fix, in float32 and int32 arithmetic (setFix says
// why it is exact): m = trunc(min(max(c·sx, 0), sx)) (VMAXPS returns its
// second source, 0, for a NaN first one), then min(m·n >> e, n-1).
// scale holds sx as float32s, n and nm1 n and n-1 as int32s, shift e.
#define AXIS8FIX(src, off, scale, n, shift, nm1) \
	LOAD8(src, off) \
	VMULPS Y1, scale, Y1 \
	VMAXPS Y12, Y1, Y1 \
	VMINPS scale, Y1, Y1 \
	VCVTTPS2DQ Y1, Y1 \
	VPMULLD n, Y1, Y1 \
	VPSRLD shift, Y1, Y1 \
	VPMINSD nm1, Y1, Y1

// AXIS8P2 leaves in Y1 the eight clamped texel indices of the coordinates
// at off(src) on an axis of a power of two n texels, in float32:
// trunc(min(max(c·n, 0), n-1)). c·n is exact in float32 (n a power of
// two; an overflow to ±Inf clamps as the float64 product does), so this
// is AXIS8's answer (VMAXPS returns its second source, 0, for a NaN
// first one). scale holds n, maxv n-1, as float32s; Y12 is zero.
#define AXIS8P2(src, off, scale, maxv) \
	LOAD8(src, off) \
	VMULPS Y1, scale, Y1 \
	VMAXPS Y12, Y1, Y1 \
	VMINPS maxv, Y1, Y1 \
	VCVTTPS2DQ Y1, Y1

// UTILE8 leaves in Y4 the utile indices (y>>2)·upr + x>>2 of eight
// elements whose x is in Y3 and y in Y1 (VPMADDWD on the 16-bit halves,
// both factors below 2^15), and in Y1 their offsets in the utile
// (y&3)<<4 | (x&3)<<2, y after FLIPY.
#define UTILE8 \
	VPXOR Y13, Y1, Y1 \
	VPADDD Y14, Y1, Y1 \
	VPSRAD $2, Y1, Y4 \
	VPMADDWD Y7, Y4, Y4 \
	VPSRAD $2, Y3, Y5 \
	VPADDD Y5, Y4, Y4 \
	VPAND Y6, Y1, Y1 \
	VPSLLD $4, Y1, Y1 \
	VPAND Y6, Y3, Y3 \
	VPSLLD $2, Y3, Y3 \
	VPOR Y3, Y1, Y1

// PAIR fetches the texels of two elements into lanes 0 and 1 of x: their
// utile indices are the halves of R8, their offsets in the utile those
// of R9 (all non-negative, so the 32-bit moves' zero extension is
// right). The VMOVD starts x afresh, so that each pair's loads wait for
// nothing before them.
#define PAIR(x) \
	MOVL R8, R10 \
	SHRQ $32, R8 \
	MOVL R9, R11 \
	SHRQ $32, R9 \
	MOVL (AX)(R10*4), R10 \
	MOVL (AX)(R8*4), R8 \
	ADDL R11, R10 \
	ADDL R9, R8 \
	VMOVD (BX)(R10*1), x \
	VPINSRD $1, (BX)(R8*1), x, x

// QUAD fetches four elements whose indices and offsets are in X4 and X1
// and stores their texels at off(DI) with one 16-byte store: the QPU's
// ldtmu copies the result 16 bytes at a time soon after, and a load
// spanning several narrower stores still in the store buffer waits for
// them to reach the cache. Uses X2 and X3.
#define QUAD(off) \
	VMOVQ X4, R8 \
	VMOVQ X1, R9 \
	PAIR(X2) \
	VPEXTRQ $1, X4, R8 \
	VPEXTRQ $1, X1, R9 \
	PAIR(X3) \
	VPUNPCKLQDQ X3, X2, X2 \
	VMOVDQU X2, off(DI)

// FETCH8 fetches the eight elements whose indices and offsets are in Y4
// and Y1 into off(DI).
#define FETCH8(off) \
	QUAD(off) \
	VEXTRACTI128 $1, Y4, X4 \
	VEXTRACTI128 $1, Y1, X1 \
	QUAD(off+16)

// INDEX8 does elements off/4 .. off/4+7 up to UTILE8's Y4 and Y1.
#define INDEX8(off) \
	AXIS8(SI, off, Y8, Y10) \
	VMOVDQA Y1, Y3 \
	AXIS8(DX, off, Y9, Y11) \
	UTILE8

// INDEX8P2 is INDEX8 with AXIS8P2.
#define INDEX8P2(off) \
	AXIS8P2(SI, off, Y8, Y10) \
	VMOVDQA Y1, Y3 \
	AXIS8P2(DX, off, Y9, Y11) \
	UTILE8

// INDEX8FIX is INDEX8 with AXIS8FIX.
#define INDEX8FIX(off) \
	AXIS8FIX(SI, off, Y8, Y15, clampT32_ex(CX), Y10) \
	VMOVDQA Y1, Y3 \
	AXIS8FIX(DX, off, Y9, Y0, clampT32_ey(CX), Y11) \
	UTILE8

// TADDR8 leaves in Y4 the byte offsets in a T-format level (32-bit
// texels) of eight elements whose x is in Y3 and y in Y1, y after
// FLIPY: texture.Layout.Offset, from its parts ([AG] §11 "Micro-tiles",
// "Texture Format (T-format)"; Mesa vc4_tiling.c t_utile_address()):
//
//   - the tile: (ty·tpr + tx)·4096 with ty = y>>5 and tx = x>>5, or
//     tpr-1-tx on an odd tile row, whose tiles run right to left
//     (VPMADDWD on the 16-bit halves, both factors below 2^15);
//   - the sub-tile: tsub at (ty&1)<<2 | (y>>4&1)<<1 | x>>4&1 (VPERMD
//     reads the low three bits of each index);
//   - the utile in its sub-tile and the texel in its utile, from the
//     low four bits of each coordinate: (x&3)<<2 | (x&12)<<4 and
//     (y&3)<<4 | (y&12)<<6, each looked up by VPSHUFB in a table of
//     16 bytes (tXBytes; tYBytes holds the y part shifted right by 4).
//
// Uses Y0, Y2 and Y5; Y6 holds tpr-1, Y7 tXBytes, Y15 tYBytes.
#define TADDR8 \
	VPXOR Y13, Y1, Y1 \
	VPADDD Y14, Y1, Y1 \
	VPSRLD $5, Y1, Y4 \
	VPMADDWD clampT32_tpr(CX), Y4, Y4 \
	VPSRLD $5, Y3, Y5 \
	VPSUBD Y5, Y6, Y0 \
	VPSLLD $26, Y1, Y2 \
	VBLENDVPS Y2, Y0, Y5, Y5 \
	VPADDD Y5, Y4, Y4 \
	VPSLLD $12, Y4, Y4 \
	VPSRLD $3, Y1, Y0 \
	VPAND tSix<>(SB), Y0, Y0 \
	VPSRLD $4, Y3, Y2 \
	VPAND tOne<>(SB), Y2, Y2 \
	VPOR Y2, Y0, Y0 \
	VPERMD clampT32_tsub(CX), Y0, Y0 \
	VPADDD Y0, Y4, Y4 \
	VPAND tFifteen<>(SB), Y3, Y3 \
	VPSHUFB Y3, Y7, Y3 \
	VPAND tFifteen<>(SB), Y1, Y1 \
	VPSHUFB Y1, Y15, Y1 \
	VPSLLD $4, Y1, Y1 \
	VPOR Y3, Y1, Y1 \
	VPADDD Y1, Y4, Y4

// PAIRT fetches the texels of two elements into lanes 0 and 1 of x:
// their byte offsets are the halves of R8 (non-negative).
#define PAIRT(x) \
	MOVL R8, R10 \
	SHRQ $32, R8 \
	VMOVD (BX)(R10*1), x \
	VPINSRD $1, (BX)(R8*1), x, x

// QUADT is QUAD for offsets in X4.
#define QUADT(off) \
	VMOVQ X4, R8 \
	PAIRT(X2) \
	VPEXTRQ $1, X4, R8 \
	PAIRT(X3) \
	VPUNPCKLQDQ X3, X2, X2 \
	VMOVDQU X2, off(DI)

// FETCHT8 fetches the eight elements whose byte offsets are in Y4 into
// off(DI).
#define FETCHT8(off) \
	QUADT(off) \
	VEXTRACTI128 $1, Y4, X4 \
	QUADT(off+16)

// The constants of TADDR8: int32 6, 1 and 15, and the tables of the x
// and y parts of a texel's offset in its sub-tile by its coordinate's
// low four bits (tYBytes shifted right by 4), in both 128-bit lanes.
#define CONST32T(name, bits) DATA name+0(SB)/8, bits; DATA name+8(SB)/8, bits; DATA name+16(SB)/8, bits; DATA name+24(SB)/8, bits; GLOBL name(SB), RODATA|NOPTR, $32
CONST32T(tSix<>, $0x0000000600000006)
CONST32T(tOne<>, $0x0000000100000001)
CONST32T(tFifteen<>, $0x0000000F0000000F)
DATA ·tXBytes+0(SB)/8, $0x4c4844400c080400
DATA ·tXBytes+8(SB)/8, $0xccc8c4c08c888480
DATA ·tXBytes+16(SB)/8, $0x4c4844400c080400
DATA ·tXBytes+24(SB)/8, $0xccc8c4c08c888480
GLOBL ·tXBytes(SB), RODATA|NOPTR, $32
DATA ·tYBytes+0(SB)/8, $0x1312111003020100
DATA ·tYBytes+8(SB)/8, $0x3332313023222120
DATA ·tYBytes+16(SB)/8, $0x1312111003020100
DATA ·tYBytes+24(SB)/8, $0x3332313023222120
GLOBL ·tYBytes(SB), RODATA|NOPTR, $32

// INDEX8FIXT does elements off/4 .. off/4+7 of
// nearestFixTClampT32AVX2 up to TADDR8's offsets in Y4.
#define INDEX8FIXT(off) \
	VPBROADCASTD clampT32_iw(CX), Y15 \
	VPBROADCASTD clampT32_ih(CX), Y0 \
	AXIS8FIX(SI, off, Y8, Y15, clampT32_ex(CX), Y10) \
	VMOVDQA Y1, Y3 \
	AXIS8FIX(DX, off, Y9, Y0, clampT32_ey(CX), Y11) \
	VMOVDQU ·tYBytes(SB), Y15 \
	TADDR8

// SETUP loads the arguments and the integer constants.
#define SETUP \
	MOVQ p+0(FP), CX \
	MOVQ s+8(FP), SI \
	MOVQ t+16(FP), DX \
	MOVQ out+24(FP), DI \
	MOVQ clampT32_utab(CX), AX \
	MOVQ clampT32_mem(CX), BX \
	VPXOR Y12, Y12, Y12 \
	VPBROADCASTD clampT32_flip(CX), Y13 \
	VPBROADCASTD clampT32_hf(CX), Y14 \
	VPBROADCASTD clampT32_upr(CX), Y7 \
	MOVL $3, R8 \
	VMOVD R8, X6 \
	VPBROADCASTD X6, Y6

// func nearestClampT32AVX2(p *clampT32, s, t, out *[16]uint32)
TEXT ·nearestClampT32AVX2(SB), NOSPLIT, $0-32
	SETUP
	VBROADCASTSD clampT32_fw(CX), Y8
	VBROADCASTSD clampT32_fh(CX), Y9
	VBROADCASTSD clampT32_wm1(CX), Y10
	VBROADCASTSD clampT32_hm1(CX), Y11
	INDEX8(0)
	FETCH8(0)
	INDEX8(32)
	FETCH8(32)
	VZEROUPPER
	RET

// func nearestFixClampT32AVX2(p *clampT32, s, t, out *[16]uint32)
TEXT ·nearestFixClampT32AVX2(SB), NOSPLIT, $0-32
	SETUP
	VBROADCASTSS clampT32_sx32(CX), Y8
	VBROADCASTSS clampT32_sy32(CX), Y9
	VPBROADCASTD clampT32_iw(CX), Y15
	VPBROADCASTD clampT32_ih(CX), Y0
	VPBROADCASTD clampT32_iwm1(CX), Y10
	VPBROADCASTD clampT32_ihm1(CX), Y11
	INDEX8FIX(0)
	FETCH8(0)
	INDEX8FIX(32)
	FETCH8(32)
	VZEROUPPER
	RET

// func nearestClampT32(p *clampT32, s, t, out *[16]uint32)
//
// The choice of version (nearest_amd64.go), each taken with a jump: the
// arguments are where the version reads them.
TEXT ·nearestClampT32(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), AX
	CMPB ·useNearestAVX2(SB), $0
	JEQ  nearestSSE2
	CMPB clampT32_fix(AX), $0
	JNE  nearestFixAVX2
	CMPB clampT32_p2(AX), $0
	JNE  nearestP2AVX2
	JMP  ·nearestClampT32AVX2(SB)

nearestP2AVX2:
	CMPB clampT32_tform(AX), $0
	JNE  nearestP2TAVX2
	JMP  ·nearestP2ClampT32AVX2(SB)

nearestP2TAVX2:
	JMP ·nearestP2TClampT32AVX2(SB)

nearestFixAVX2:
	CMPB clampT32_tform(AX), $0
	JNE  nearestFixTAVX2
	JMP  ·nearestFixClampT32AVX2(SB)

nearestFixTAVX2:
	JMP ·nearestFixTClampT32AVX2(SB)

nearestSSE2:
	CMPB clampT32_fix(AX), $0
	JNE  nearestFixSSE2
	JMP  ·nearestClampT32SSE2(SB)

nearestFixSSE2:
	JMP ·nearestFixClampT32SSE2(SB)

// func nearestP2ClampT32AVX2(p *clampT32, s, t, out *[16]uint32)
TEXT ·nearestP2ClampT32AVX2(SB), NOSPLIT, $0-32
	SETUP
	VBROADCASTSS clampT32_fw32(CX), Y8
	VBROADCASTSS clampT32_fh32(CX), Y9
	VBROADCASTSS clampT32_wm132(CX), Y10
	VBROADCASTSS clampT32_hm132(CX), Y11
	INDEX8P2(0)
	FETCH8(0)
	INDEX8P2(32)
	FETCH8(32)
	VZEROUPPER
	RET

// SETUPT is SETUP for the T-format kernels (TADDR8): no utile table,
// but tpr-1 in Y6 and the shuffle table tXBytes in Y7.
#define SETUPT \
	MOVQ p+0(FP), CX \
	MOVQ s+8(FP), SI \
	MOVQ t+16(FP), DX \
	MOVQ out+24(FP), DI \
	MOVQ clampT32_mem(CX), BX \
	VPXOR Y12, Y12, Y12 \
	VPBROADCASTD clampT32_flip(CX), Y13 \
	VPBROADCASTD clampT32_hf(CX), Y14 \
	VMOVDQU clampT32_tpr1(CX), Y6 \
	VMOVDQU ·tXBytes(SB), Y7

// nearestP2TClampT32AVX2 is nearestP2ClampT32AVX2 on a level in T format
// (tform, setT): each element's byte offset in the level is worked out in
// the vector registers (TADDR8) from its texel (x, y), where the other
// loops load its utile's offset from utab and add the texel's offset in
// the utile. A fetch then takes one load, not two one after the other,
// and one index, not two, moves out of the vectors.
//
// Registers as nearestP2ClampT32AVX2's, but Y6 holds tpr-1 and Y7 and
// Y15 the shuffle tables tXBytes and tYBytes.
//
// func nearestP2TClampT32AVX2(p *clampT32, s, t, out *[16]uint32)
TEXT ·nearestP2TClampT32AVX2(SB), NOSPLIT, $0-32
	SETUPT
	VMOVDQU ·tYBytes(SB), Y15
	VBROADCASTSS clampT32_fw32(CX), Y8
	VBROADCASTSS clampT32_fh32(CX), Y9
	VBROADCASTSS clampT32_wm132(CX), Y10
	VBROADCASTSS clampT32_hm132(CX), Y11
	AXIS8P2(SI, 0, Y8, Y10)
	VMOVDQA Y1, Y3
	AXIS8P2(DX, 0, Y9, Y11)
	TADDR8
	FETCHT8(0)
	AXIS8P2(SI, 32, Y8, Y10)
	VMOVDQA Y1, Y3
	AXIS8P2(DX, 32, Y9, Y11)
	TADDR8
	FETCHT8(32)
	VZEROUPPER
	RET

// nearestFixTClampT32AVX2 is nearestFixClampT32AVX2 on a level in T
// format (tform, setT), its offsets worked out as
// nearestP2TClampT32AVX2's are. TADDR8 needs Y0 and Y15, which hold
// the sizes for AXIS8FIX: each group loads them again, and the table
// tYBytes into Y15 after them.
//
// func nearestFixTClampT32AVX2(p *clampT32, s, t, out *[16]uint32)
TEXT ·nearestFixTClampT32AVX2(SB), NOSPLIT, $0-32
	SETUPT
	VBROADCASTSS clampT32_sx32(CX), Y8
	VBROADCASTSS clampT32_sy32(CX), Y9
	VPBROADCASTD clampT32_iwm1(CX), Y10
	VPBROADCASTD clampT32_ihm1(CX), Y11
	INDEX8FIXT(0)
	FETCHT8(0)
	INDEX8FIXT(32)
	FETCHT8(32)
	VZEROUPPER
	RET
