//go:build !purego

#include "textflag.h"

// depthOrderSSE2 is depthOrderGo (depth.go) four elements at a time with
// SSE2: the 24-bit depths compare as signed 32-bit integers (both are
// below 2^24), so PCMPGTD and PCMPEQD give the orders and MOVMSKPS their
// bits.

// ORDER4(off, shift) ORs elements off/4 … off/4+3's bits into BX (z <
// zb) and CX (z == zb) at bit shift.
#define ORDER4(off, shift) \
	MOVOU off(SI), X0 \
	PAND X7, X0 \
	MOVOU off(DI), X1 \
	MOVO X1, X2 \
	PCMPGTL X0, X1 \
	PCMPEQL X0, X2 \
	MOVMSKPS X1, AX \
	SHLL $shift, AX \
	ORL AX, BX \
	MOVMSKPS X2, AX \
	SHLL $shift, AX \
	ORL AX, CX

// func depthOrderSSE2(z, zb *[16]uint32) (lt, eq uint32)
TEXT ·depthOrderSSE2(SB), NOSPLIT, $0-24
	MOVQ z+0(FP), SI
	MOVQ zb+8(FP), DI
	MOVL $0xFFFFFF, AX
	MOVQ AX, X7
	PSHUFD $0, X7, X7
	XORL BX, BX
	XORL CX, CX
	ORDER4(0, 0)
	ORDER4(16, 4)
	ORDER4(32, 8)
	ORDER4(48, 12)
	MOVL BX, lt+16(FP)
	MOVL CX, eq+20(FP)
	RET
