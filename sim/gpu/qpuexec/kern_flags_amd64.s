//go:build !purego

#include "textflag.h"

// SSE2 versions of the general code's per-element flag and merge loops
// (nzFlags in ref_alu.go, mergeLanes in ref_exec.go), four elements per
// instruction, for the fast path's conditional instructions; kern_flags_test.go
// holds them to the Go loops. See kern_flags_amd64.go.

// SPLATARG puts a 32-bit argument in all four elements of reg (through BX).
#define SPLATARG(arg, reg) MOVL arg, BX; MOVQ BX, reg; PSHUFD $0, reg, reg

// NZ4(off, shift) ORs the sign bits of elements off/4 .. off/4+3 into AX
// and their all-zero bits into BX, at bit shift. X7 is zero.
#define NZ4(off, shift) \
	MOVOU off(SI), X0 \
	MOVMSKPS X0, CX \
	SHLL $shift, CX \
	ORL CX, AX \
	PCMPEQL X7, X0 \
	MOVMSKPS X0, CX \
	SHLL $shift, CX \
	ORL CX, BX

// func nzSSE2(r *vec) (nz uint32)
TEXT ·nzSSE2(SB), NOSPLIT, $0-12
	MOVQ r+0(FP), SI
	PXOR X7, X7
	XORL AX, AX
	XORL BX, BX
	NZ4(0, 0)
	NZ4(16, 4)
	NZ4(32, 8)
	NZ4(48, 12)
	SHLL $16, BX
	ORL BX, AX
	MOVL AX, nz+8(FP)
	RET

// MERGE4(off) merges elements off/4 .. off/4+3 of SI into DI under the
// four lanes in the low bits of AX (shifted out afterwards): the lane
// masks come from the table at R8, ANDed with the bits in X6.
#define MERGE4(off) \
	MOVL AX, CX \
	ANDL $15, CX \
	SHLL $4, CX \
	MOVOU (R8)(CX*1), X0 \
	PAND X6, X0 \
	MOVOU off(SI), X1 \
	MOVOU off(DI), X2 \
	PAND X0, X1 \
	PANDN X2, X0 \
	POR X1, X0 \
	MOVOU X0, off(DI) \
	SHRL $4, AX

// func mergeSSE2(d, v *vec, lanes uint32, bits uint32, masks *[16][4]uint32)
TEXT ·mergeSSE2(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ v+8(FP), SI
	MOVL lanes+16(FP), AX
	SPLATARG(bits+20(FP), X6)
	MOVQ masks+24(FP), R8
	MERGE4(0)
	MERGE4(16)
	MERGE4(32)
	MERGE4(48)
	RET

// LT4(off, shift) ORs into AX, at bit shift, the elements off/4 ..
// off/4+3 where SI's is less than DI's, compared as signed integers
// after both are XORed with X6.
#define LT4(off, shift) \
	MOVOU off(SI), X0 \
	MOVOU off(DI), X1 \
	PXOR X6, X0 \
	PXOR X6, X1 \
	PCMPGTL X0, X1 \
	MOVMSKPS X1, CX \
	SHLL $shift, CX \
	ORL CX, AX

// func lessSSE2(a, b *vec, flip uint32) (lt uint32)
TEXT ·lessSSE2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	SPLATARG(flip+16(FP), X6)
	XORL AX, AX
	LT4(0, 0)
	LT4(16, 4)
	LT4(32, 8)
	LT4(48, 12)
	MOVL AX, lt+24(FP)
	RET

// SUBNZC4(off, shift) stores SI's elements off/4 .. off/4+3 less DX's
// at DI and ORs into AX, at bit shift, the differences' sign bits, into
// BX their all-zero bits, and into R9 where SI's is below DX's unsigned.
// X6 holds the sign bit, X7 zero.
#define SUBNZC4(off, shift) \
	MOVOU off(SI), X0 \
	MOVOU off(DX), X1 \
	MOVO X0, X2 \
	PSUBL X1, X2 \
	MOVOU X2, off(DI) \
	MOVMSKPS X2, CX \
	SHLL $shift, CX \
	ORL CX, AX \
	PCMPEQL X7, X2 \
	MOVMSKPS X2, CX \
	SHLL $shift, CX \
	ORL CX, BX \
	PXOR X6, X0 \
	PXOR X6, X1 \
	PCMPGTL X0, X1 \
	MOVMSKPS X1, CX \
	SHLL $shift, CX \
	ORL CX, R9

// func subNZCSSE2(d, a, b *vec) (nzc uint64)
TEXT ·subNZCSSE2(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	SPLATARG($0x80000000, X6)
	PXOR X7, X7
	XORL AX, AX
	XORL BX, BX
	XORL R9, R9
	SUBNZC4(0, 0)
	SUBNZC4(16, 4)
	SUBNZC4(32, 8)
	SUBNZC4(48, 12)
	SHLQ $16, BX
	ORQ BX, AX
	SHLQ $32, R9
	ORQ R9, AX
	MOVQ AX, nzc+24(FP)
	RET
