//go:build !purego

#include "textflag.h"

// clampIdxSSE2 is clampIdxGo (nearest_amd64.go) four elements at a time
// with SSE2: the same float64 products, the clamp as max(·, 0) then
// min(·, n-1) (MAXPD returns its second operand, 0, for a NaN first
// one), truncation, and the utile arithmetic in 32-bit integers.

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

// GROUP4 does elements off/4 .. off/4+3: idx = (y>>2)·upr + x>>2 (one
// PMADDWD on the 16-bit halves: both factors are below 2^15),
// sub = (y&3)<<4 | (x&3)<<2.
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
	MOVOU X4, off(DI) \
	PAND X6, X1 \
	PSLLL $4, X1 \
	PAND X6, X3 \
	PSLLL $2, X3 \
	POR X3, X1 \
	MOVOU X1, off(BX)

// func clampIdxSSE2(s, t *[16]uint32, fw, fh, wm1, hm1 float64, flip, hf, upr int32, idx, sub *[16]int32)
TEXT ·clampIdxSSE2(SB), NOSPLIT, $0-80
	MOVQ s+0(FP), SI
	MOVQ t+8(FP), DX
	MOVSD fw+16(FP), X8
	MOVLHPS X8, X8
	MOVSD fh+24(FP), X9
	MOVLHPS X9, X9
	MOVSD wm1+32(FP), X10
	MOVLHPS X10, X10
	MOVSD hm1+40(FP), X11
	MOVLHPS X11, X11
	PXOR X12, X12
	MOVL flip+48(FP), AX
	MOVQ AX, X13
	PSHUFD $0, X13, X13
	MOVL hf+52(FP), AX
	MOVQ AX, X14
	PSHUFD $0, X14, X14
	MOVL upr+56(FP), AX
	MOVQ AX, X7
	PSHUFD $0, X7, X7
	MOVL $3, AX
	MOVQ AX, X6
	PSHUFD $0, X6, X6
	MOVQ idx+64(FP), DI
	MOVQ sub+72(FP), BX
	GROUP4(0)
	GROUP4(16)
	GROUP4(32)
	GROUP4(48)
	RET
