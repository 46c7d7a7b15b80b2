//go:build !purego

#include "textflag.h"

// zBlockSSE2 and colorBlockSSE2 are depth.go's zBlockGo and colorBlockGo
// four elements at a time with SSE2. Elements 4k..4k+3 are the pixel
// pairs Pair[2k] and Pair[2k+1]: one 8-byte load (MOVQ, MOVHPS) each
// brings their stored words into one register, and one 8-byte store each
// puts them back. Every element is written back, its old word where it
// does not pass (or is not in the mask), so no branch depends on an
// element. The 24-bit depths compare as signed 32-bit integers (both are
// below 2^24), so PCMPGTL gives the orders.
//
// Registers: DI the buffer, BX the Block, SI the elements' values, AX
// the mask still to use (4 bits per group), R11 the passing elements;
// X13 the lane bits 1, 2, 4, 8.

DATA lanebits<>+0(SB)/4, $1
DATA lanebits<>+4(SB)/4, $2
DATA lanebits<>+8(SB)/4, $4
DATA lanebits<>+12(SB)/4, $8
GLOBL lanebits<>(SB), RODATA|NOPTR, $16

// PAIRS(k) loads group k's two pixel offsets (Pair[2k], Pair[2k+1],
// masked even and inside the tile) into R8 and R9.
#define PAIRS(k) \
	MOVWLZX (k*4)(BX), R8 \
	ANDL $4094, R8 \
	MOVWLZX (k*4+2)(BX), R9 \
	ANDL $4094, R9

// LANES sets X5 to all ones in the lanes whose bit of AX's low nibble is
// set and moves AX on to the next group.
#define LANES \
	MOVQ AX, X5 \
	PSHUFD $0, X5, X5 \
	PAND X13, X5 \
	PCMPEQL X13, X5 \
	SHRL $4, AX

// TEST(k) tests group k: X0 the stored words, X1 the fragments' 24-bit
// depths, X4 all ones in the lanes that pass the function. The orders
// exclude each other, so the function's answer is its "equal" answer
// with its "below" and "above" answers swapped in where they differ:
// X8 is all ones when the function passes equal depths, X7 and X9 the
// "below" and "above" answers XOR the "equal" one. X10 holds 0xFFFFFF.
#define TEST(k) \
	PAIRS(k) \
	MOVQ (DI)(R8*4), X0 \
	MOVHPS (DI)(R9*4), X0 \
	MOVOU (k*16)(SI), X1 \
	PAND X10, X1 \
	MOVO X0, X2 \
	PSRLL $8, X2 \
	MOVO X1, X4 \
	PCMPGTL X2, X4 \
	PCMPGTL X1, X2 \
	PAND X9, X4 \
	PAND X7, X2 \
	PXOR X2, X4 \
	PXOR X8, X4

// PASSED(k) ORs group k's passing lanes, X4, into R11.
#define PASSED(k) \
	MOVMSKPS X4, R10 \
	SHLL $(k*4), R10 \
	ORL R10, R11

// MASKED limits X4 to the group's lanes of the mask.
#define MASKED \
	LANES \
	PAND X5, X4

// UPDATE(k) stores group k: the fragment's Z with the stored stencil
// where it passed, the stored word elsewhere. X11 holds 0xFF.
#define UPDATE(k) \
	PSLLL $8, X1 \
	MOVO X0, X6 \
	PAND X11, X6 \
	POR X6, X1 \
	PXOR X0, X1 \
	PAND X4, X1 \
	PXOR X0, X1 \
	MOVQ X1, (DI)(R8*4) \
	MOVHPS X1, (DI)(R9*4)

// SPLAT(bit, x) sets x to all ones when bit of CX is set, else zeros.
#define SPLAT(bit, x) \
	MOVL CX, DX \
	SHRL $bit, DX \
	ANDL $1, DX \
	NEGL DX \
	MOVQ DX, x \
	PSHUFD $0, x, x

// func zBlockSSE2(zs *[Pixels]uint32, blk *Block, z *[16]uint32, mask, f uint32, update bool) (pass uint32)
TEXT ·zBlockSSE2(SB), NOSPLIT, $0-44
	MOVQ zs+0(FP), DI
	MOVQ blk+8(FP), BX
	MOVQ z+16(FP), SI
	MOVL mask+24(FP), AX
	MOVL f+28(FP), CX
	SPLAT(0, X7)
	SPLAT(1, X8)
	SPLAT(2, X9)
	PXOR X8, X7
	PXOR X8, X9
	MOVL $0xFFFFFF, DX
	MOVQ DX, X10
	PSHUFD $0, X10, X10
	XORL R11, R11
	CMPB update+32(FP), $0
	JEQ test
	MOVL $0xFF, DX
	MOVQ DX, X11
	PSHUFD $0, X11, X11
	CMPL AX, $0xFFFF
	JEQ updateall
	MOVOU lanebits<>(SB), X13
	TEST(0)
	MASKED
	PASSED(0)
	UPDATE(0)
	TEST(1)
	MASKED
	PASSED(1)
	UPDATE(1)
	TEST(2)
	MASKED
	PASSED(2)
	UPDATE(2)
	TEST(3)
	MASKED
	PASSED(3)
	UPDATE(3)
	MOVL R11, pass+40(FP)
	RET
updateall:
	TEST(0)
	PASSED(0)
	UPDATE(0)
	TEST(1)
	PASSED(1)
	UPDATE(1)
	TEST(2)
	PASSED(2)
	UPDATE(2)
	TEST(3)
	PASSED(3)
	UPDATE(3)
	MOVL R11, pass+40(FP)
	RET
test:
	CMPL AX, $0xFFFF
	JEQ testall
	MOVOU lanebits<>(SB), X13
	TEST(0)
	MASKED
	PASSED(0)
	TEST(1)
	MASKED
	PASSED(1)
	TEST(2)
	MASKED
	PASSED(2)
	TEST(3)
	MASKED
	PASSED(3)
	MOVL R11, pass+40(FP)
	RET
testall:
	TEST(0)
	PASSED(0)
	TEST(1)
	PASSED(1)
	TEST(2)
	PASSED(2)
	TEST(3)
	PASSED(3)
	MOVL R11, pass+40(FP)
	RET

// COLOR(k) writes group k's colours where the lanes pass, the stored
// colours elsewhere.
#define COLOR(k) \
	PAIRS(k) \
	MOVQ (DI)(R8*4), X0 \
	MOVHPS (DI)(R9*4), X0 \
	MOVOU (k*16)(SI), X1 \
	LANES \
	PXOR X0, X1 \
	PAND X5, X1 \
	PXOR X0, X1 \
	MOVQ X1, (DI)(R8*4) \
	MOVHPS X1, (DI)(R9*4)

// COLORALL(k) writes all of group k's colours.
#define COLORALL(k) \
	PAIRS(k) \
	MOVOU (k*16)(SI), X1 \
	MOVQ X1, (DI)(R8*4) \
	MOVHPS X1, (DI)(R9*4)

// func colorBlockSSE2(color *[Pixels]uint32, blk *Block, c *[16]uint32, mask uint32)
TEXT ·colorBlockSSE2(SB), NOSPLIT, $0-28
	MOVQ color+0(FP), DI
	MOVQ blk+8(FP), BX
	MOVQ c+16(FP), SI
	MOVL mask+24(FP), AX
	CMPL AX, $0xFFFF
	JEQ all
	MOVOU lanebits<>(SB), X13
	COLOR(0)
	COLOR(1)
	COLOR(2)
	COLOR(3)
	RET
all:
	COLORALL(0)
	COLORALL(1)
	COLORALL(2)
	COLORALL(3)
	RET

// func nonZeroSSE2(v *[16]uint32) uint32
//
// nonZeroSSE2 is nonZeroGo: the lanes equal to zero, packed to bytes in
// element order (PACKSSLW, PACKSSWB keep 0 and -1), gathered by PMOVMSKB
// and inverted.
TEXT ·nonZeroSSE2(SB), NOSPLIT, $0-12
	MOVQ v+0(FP), SI
	PXOR X4, X4
	MOVOU (SI), X0
	MOVOU 16(SI), X1
	MOVOU 32(SI), X2
	MOVOU 48(SI), X3
	PCMPEQL X4, X0
	PCMPEQL X4, X1
	PCMPEQL X4, X2
	PCMPEQL X4, X3
	PACKSSLW X1, X0
	PACKSSLW X3, X2
	PACKSSWB X2, X0
	PMOVMSKB X0, AX
	XORL $0xFFFF, AX
	MOVL AX, ret+8(FP)
	RET
