//go:build !purego

#include "textflag.h"

// blockWZSSE2 is blockWZGo (block.go) two elements at a time with SSE2:
// the same float64 sums, the divide, the rounding to float32 (CVTPD2PS,
// round to nearest, as Go's conversion), and zToFixed as
// trunc(min(max(z·2²⁴, 0), Z24)) (MAXPD returns its second operand, 0,
// for a NaN). col and row hold each element's byte offset into the
// per-column and per-row arrays.

// PAIR2(i) does elements i and i+1.
#define PAIR2(i) \
	MOVQ (i*8)(R8), AX \
	MOVQ (i*8+8)(R8), BX \
	MOVQ (i*8)(R9), CX \
	MOVQ (i*8+8)(R9), DX \
	MOVSD (SI)(AX*1), X0 \
	MOVHPD (SI)(BX*1), X0 \
	MOVSD (DI)(CX*1), X1 \
	MOVHPD (DI)(DX*1), X1 \
	ADDPD X1, X0 \
	MOVAPD X10, X2 \
	DIVPD X0, X2 \
	CVTPD2PS X2, X2 \
	MOVQ X2, (i*4)(R10) \
	MOVSD (R12)(AX*1), X3 \
	MOVHPD (R12)(BX*1), X3 \
	MOVSD (R13)(CX*1), X4 \
	MOVHPD (R13)(DX*1), X4 \
	ADDPD X4, X3 \
	ADDPD X14, X3 \
	MULPD X12, X3 \
	MAXPD X11, X3 \
	MINPD X13, X3 \
	CVTTPD2PL X3, X3 \
	MOVQ X3, (i*4)(R11)

// func blockWZSSE2(qx, qy, zx, zy *[4]float64, depth float64, col, row *[16]int64, w, z *[16]uint32)
TEXT ·blockWZSSE2(SB), NOSPLIT, $0-72
	MOVQ qx+0(FP), SI
	MOVQ qy+8(FP), DI
	MOVQ zx+16(FP), R12
	MOVQ zy+24(FP), R13
	MOVSD depth+32(FP), X14
	MOVLHPS X14, X14
	MOVQ col+40(FP), R8
	MOVQ row+48(FP), R9
	MOVQ w+56(FP), R10
	MOVQ z+64(FP), R11
	JMP ·blockWZSSE2Body(SB)

// blockWZSSE2Body is blockWZSSE2 after its arguments: qx in SI, qy in
// DI, zx in R12, zy in R13, depth in both halves of X14, col in R8, row
// in R9, w in R10, z in R11. blockWZPar (block_avx2_amd64.s) jumps to
// it too; it returns to their caller.
TEXT ·blockWZSSE2Body(SB), NOSPLIT, $0-0
	MOVQ $0x3FF0000000000000, AX // 1.0
	MOVQ AX, X10
	MOVLHPS X10, X10
	MOVQ $0x416FFFFFE0000000, AX // Z24 = 16777215.0
	MOVQ AX, X13
	MOVLHPS X13, X13
	MOVQ $0x4170000000000000, AX // ZScale = 2²⁴
	MOVQ AX, X12
	MOVLHPS X12, X12
	PXOR X11, X11
	PAIR2(0)
	PAIR2(2)
	PAIR2(4)
	PAIR2(6)
	PAIR2(8)
	PAIR2(10)
	PAIR2(12)
	PAIR2(14)
	RET

// blockVPSSE2 is blockVPGo (block.go) four elements at a time: the sums
// ax[column] + by[row] in float32 (ADDPS, round to nearest, as Go's
// float32 addition). col and row hold each element's byte offset into the
// float32 arrays.

// QUAD4(i) gathers elements i … i+3 and stores their sums.
#define QUAD4(i) \
	MOVQ (i*8)(R8), AX \
	MOVQ (i*8+8)(R8), BX \
	MOVQ (i*8+16)(R8), CX \
	MOVQ (i*8+24)(R8), DX \
	MOVSS (SI)(AX*1), X0 \
	MOVSS (SI)(BX*1), X1 \
	UNPCKLPS X1, X0 \
	MOVSS (SI)(CX*1), X2 \
	MOVSS (SI)(DX*1), X3 \
	UNPCKLPS X3, X2 \
	MOVLHPS X2, X0 \
	MOVQ (i*8)(R9), AX \
	MOVQ (i*8+8)(R9), BX \
	MOVQ (i*8+16)(R9), CX \
	MOVQ (i*8+24)(R9), DX \
	MOVSS (DI)(AX*1), X4 \
	MOVSS (DI)(BX*1), X5 \
	UNPCKLPS X5, X4 \
	MOVSS (DI)(CX*1), X6 \
	MOVSS (DI)(DX*1), X7 \
	UNPCKLPS X7, X6 \
	MOVLHPS X6, X4 \
	ADDPS X4, X0 \
	MOVOU X0, (i*4)(R10)

// func blockVPSSE2(ax, by *[4]float32, col, row *[16]int64, out *[16]uint32)
TEXT ·blockVPSSE2(SB), NOSPLIT, $0-40
	MOVQ ax+0(FP), SI
	MOVQ by+8(FP), DI
	MOVQ col+16(FP), R8
	MOVQ row+24(FP), R9
	MOVQ out+32(FP), R10
	JMP ·blockVPSSE2Body(SB)

// blockVPSSE2Body is blockVPSSE2 after its arguments: ax in SI, by in
// DI, col in R8, row in R9, out in R10. blockVPPar (block_avx2_amd64.s)
// jumps to it too; it returns to their caller.
TEXT ·blockVPSSE2Body(SB), NOSPLIT, $0-0
	QUAD4(0)
	QUAD4(4)
	QUAD4(8)
	QUAD4(12)
	RET
