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

// FUNCMASKS(f, r) sets r to the address of depthFuncMasks[f&7]
// (depth_amd64.go): the function's answers as whole-lane masks, "below"
// and "above" XOR "equal" (X7/Y7 and X9/Y9), "equal" (X8/Y8), and
// 0xFFFFFF (X10/Y10), taken from one row instead of worked out from f's
// bits on every call.
#define FUNCMASKS(f, r) \
	ANDL $7, f \
	SHLL $4, f \
	LEAQ ·depthFuncMasks(SB), r \
	ADDQ f, r

// zbytes is 0xFF, the stencil byte of a Z/stencil word.
DATA zbytes<>+0(SB)/4, $0xFF
GLOBL zbytes<>(SB), RODATA|NOPTR, $4

// func zBlockSSE2(zs *[Pixels]uint32, blk *Block, z *[16]uint32, mask, f uint32, update bool) (pass uint32)
TEXT ·zBlockSSE2(SB), NOSPLIT, $0-44
	MOVQ zs+0(FP), DI
	MOVQ blk+8(FP), BX
	MOVQ z+16(FP), SI
	MOVL mask+24(FP), AX
	MOVL f+28(FP), CX
	FUNCMASKS(CX, DX)
	MOVSS (DX), X7
	PSHUFD $0, X7, X7
	MOVSS 4(DX), X8
	PSHUFD $0, X8, X8
	MOVSS 8(DX), X9
	PSHUFD $0, X9, X9
	MOVSS 12(DX), X10
	PSHUFD $0, X10, X10
	XORL R11, R11
	CMPB update+32(FP), $0
	JEQ test
	MOVSS zbytes<>+0(SB), X11
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

// func zBlockAny(zs *[Pixels]uint32, blk *Block, z *[16]uint32, mask, f uint32, update bool) (pass uint32)
//
// zBlockAny is zBlockAVX2 when zBlockUsesAVX2 is set, else zBlockSSE2:
// the choice made here rather than in a Go function of its own, which
// is one call more and does not inline.
TEXT ·zBlockAny(SB), NOSPLIT, $0-44
	CMPB ·zBlockUsesAVX2(SB), $0
	JEQ sse2
	JMP ·zBlockAVX2(SB)
sse2:
	JMP ·zBlockSSE2(SB)

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

// zBlockAVX2 is zBlockSSE2 with AVX2, eight elements (four pixel pairs)
// to a register: the same loads and stores of pairs, eight bytes each,
// the same comparisons and updates. Every instruction is VEX-encoded and
// the function ends with VZEROUPPER (sim/gpu/qpuexec/kern_avx2_amd64.s
// says why).
//
// Registers: DI the buffer, BX the Block, SI the elements' values, AX
// the mask still to use (8 bits per group), R11 the passing elements;
// Y7, Y8 and Y9 the function's answers as in zBlockSSE2, Y10 0xFFFFFF,
// Y11 0xFF, Y13 the lane bits 1 to 128.

DATA lanebits8<>+0(SB)/4, $1
DATA lanebits8<>+4(SB)/4, $2
DATA lanebits8<>+8(SB)/4, $4
DATA lanebits8<>+12(SB)/4, $8
DATA lanebits8<>+16(SB)/4, $16
DATA lanebits8<>+20(SB)/4, $32
DATA lanebits8<>+24(SB)/4, $64
DATA lanebits8<>+28(SB)/4, $128
GLOBL lanebits8<>(SB), RODATA|NOPTR, $32

// PAIRS8(g) loads group g's four pixel offsets (Pair[4g] to Pair[4g+3],
// masked even and inside the tile) into R8, R9, R12 and R13.
#define PAIRS8(g) \
	MOVWLZX (g*8)(BX), R8 \
	ANDL $4094, R8 \
	MOVWLZX (g*8+2)(BX), R9 \
	ANDL $4094, R9 \
	MOVWLZX (g*8+4)(BX), R12 \
	ANDL $4094, R12 \
	MOVWLZX (g*8+6)(BX), R13 \
	ANDL $4094, R13

// TEST8(g) tests group g: Y0 the stored words, Y1 the fragments' 24-bit
// depths, Y4 all ones in the lanes that pass the function.
#define TEST8(g) \
	PAIRS8(g) \
	VMOVQ (DI)(R8*4), X0 \
	VMOVHPS (DI)(R9*4), X0, X0 \
	VMOVQ (DI)(R12*4), X2 \
	VMOVHPS (DI)(R13*4), X2, X2 \
	VINSERTI128 $1, X2, Y0, Y0 \
	VPAND (g*32)(SI), Y10, Y1 \
	VPSRLD $8, Y0, Y2 \
	VPCMPGTD Y2, Y1, Y4 \
	VPCMPGTD Y1, Y2, Y5 \
	VPAND Y9, Y4, Y4 \
	VPAND Y7, Y5, Y5 \
	VPXOR Y5, Y4, Y4 \
	VPXOR Y8, Y4, Y4

// PASSED8(g) ORs group g's passing lanes, Y4, into R11.
#define PASSED8(g) \
	VMOVMSKPS Y4, R10 \
	SHLL $(g*8), R10 \
	ORL R10, R11

// MASKED8 limits Y4 to the group's lanes of the mask (AX's low byte) and
// moves AX on to the next group.
#define MASKED8 \
	VMOVD AX, X5 \
	VPBROADCASTD X5, Y5 \
	VPAND Y13, Y5, Y5 \
	VPCMPEQD Y13, Y5, Y5 \
	SHRL $8, AX \
	VPAND Y5, Y4, Y4

// UPDATE8 stores the group: the fragment's Z with the stored stencil
// where it passed, the stored word elsewhere.
#define UPDATE8 \
	VPSLLD $8, Y1, Y1 \
	VPAND Y11, Y0, Y6 \
	VPOR Y6, Y1, Y1 \
	VPXOR Y0, Y1, Y1 \
	VPAND Y4, Y1, Y1 \
	VPXOR Y0, Y1, Y1 \
	VMOVQ X1, (DI)(R8*4) \
	VMOVHPS X1, (DI)(R9*4) \
	VEXTRACTI128 $1, Y1, X1 \
	VMOVQ X1, (DI)(R12*4) \
	VMOVHPS X1, (DI)(R13*4)

// func zBlockAVX2(zs *[Pixels]uint32, blk *Block, z *[16]uint32, mask, f uint32, update bool) (pass uint32)
TEXT ·zBlockAVX2(SB), NOSPLIT, $0-44
	MOVQ zs+0(FP), DI
	MOVQ blk+8(FP), BX
	MOVQ z+16(FP), SI
	MOVL mask+24(FP), AX
	MOVL f+28(FP), CX
	FUNCMASKS(CX, DX)
	VPBROADCASTD (DX), Y7
	VPBROADCASTD 4(DX), Y8
	VPBROADCASTD 8(DX), Y9
	VPBROADCASTD 12(DX), Y10
	XORL R11, R11
	CMPL AX, $0xFFFF
	JEQ all
	VMOVDQU lanebits8<>(SB), Y13
	CMPB update+32(FP), $0
	JEQ testmasked
	TEST8(0)
	MASKED8
	PASSED8(0)
	VPBROADCASTD zbytes<>+0(SB), Y11
	UPDATE8
	TEST8(1)
	MASKED8
	PASSED8(1)
	UPDATE8
	JMP done
testmasked:
	TEST8(0)
	MASKED8
	PASSED8(0)
	TEST8(1)
	MASKED8
	PASSED8(1)
	JMP done
all:
	CMPB update+32(FP), $0
	JEQ testall
	VPBROADCASTD zbytes<>+0(SB), Y11
	TEST8(0)
	PASSED8(0)
	UPDATE8
	TEST8(1)
	PASSED8(1)
	UPDATE8
	JMP done
testall:
	TEST8(0)
	PASSED8(0)
	TEST8(1)
	PASSED8(1)
done:
	VZEROUPPER
	MOVL R11, pass+40(FP)
	RET

// ZSTORE(k) stores group k for zStoreSSE2 (zStoreGo): the fragments' Z
// with the stored stencil in the lanes of the mask, the stored words
// elsewhere. X11 holds 0xFF.
#define ZSTORE(k) \
	PAIRS(k) \
	MOVQ (DI)(R8*4), X0 \
	MOVHPS (DI)(R9*4), X0 \
	MOVOU (k*16)(SI), X1 \
	PSLLL $8, X1 \
	MOVO X0, X6 \
	PAND X11, X6 \
	POR X6, X1 \
	LANES \
	PXOR X0, X1 \
	PAND X5, X1 \
	PXOR X0, X1 \
	MOVQ X1, (DI)(R8*4) \
	MOVHPS X1, (DI)(R9*4)

// ZSTOREALL(k) stores group k when every lane is in the mask.
#define ZSTOREALL(k) \
	PAIRS(k) \
	MOVQ (DI)(R8*4), X0 \
	MOVHPS (DI)(R9*4), X0 \
	MOVOU (k*16)(SI), X1 \
	PSLLL $8, X1 \
	PAND X11, X0 \
	POR X0, X1 \
	MOVQ X1, (DI)(R8*4) \
	MOVHPS X1, (DI)(R9*4)

// func zStoreSSE2(zs *[Pixels]uint32, blk *Block, z *[16]uint32, mask uint32)
//
// zStoreSSE2 is zStoreGo with SSE2: zBlockSSE2's update without its
// test, the lanes to update being the mask's.
TEXT ·zStoreSSE2(SB), NOSPLIT, $0-28
	MOVQ zs+0(FP), DI
	MOVQ blk+8(FP), BX
	MOVQ z+16(FP), SI
	MOVL mask+24(FP), AX
	MOVSS zbytes<>+0(SB), X11
	PSHUFD $0, X11, X11
	CMPL AX, $0xFFFF
	JEQ all
	MOVOU lanebits<>(SB), X13
	ZSTORE(0)
	ZSTORE(1)
	ZSTORE(2)
	ZSTORE(3)
	RET
all:
	ZSTOREALL(0)
	ZSTOREALL(1)
	ZSTOREALL(2)
	ZSTOREALL(3)
	RET

// LOADZS8(g) loads group g's stored words into Y0 (as TEST8).
#define LOADZS8(g) \
	PAIRS8(g) \
	VMOVQ (DI)(R8*4), X0 \
	VMOVHPS (DI)(R9*4), X0, X0 \
	VMOVQ (DI)(R12*4), X2 \
	VMOVHPS (DI)(R13*4), X2, X2 \
	VINSERTI128 $1, X2, Y0, Y0

// NEWZS8(g) sets Y1 to group g's fragment Z with the stored stencil.
#define NEWZS8(g) \
	VMOVDQU (g*32)(SI), Y1 \
	VPSLLD $8, Y1, Y1 \
	VPAND Y11, Y0, Y6 \
	VPOR Y6, Y1, Y1

// STOREZS8 stores Y1 to the group's four pairs.
#define STOREZS8 \
	VMOVQ X1, (DI)(R8*4) \
	VMOVHPS X1, (DI)(R9*4) \
	VEXTRACTI128 $1, Y1, X1 \
	VMOVQ X1, (DI)(R12*4) \
	VMOVHPS X1, (DI)(R13*4)

// ZSTORE8(g) stores group g in the lanes of the mask (AX's low byte),
// the stored words elsewhere, and moves AX on to the next group.
#define ZSTORE8(g) \
	LOADZS8(g) \
	NEWZS8(g) \
	VMOVD AX, X5 \
	VPBROADCASTD X5, Y5 \
	VPAND Y13, Y5, Y5 \
	VPCMPEQD Y13, Y5, Y5 \
	SHRL $8, AX \
	VPXOR Y0, Y1, Y1 \
	VPAND Y5, Y1, Y1 \
	VPXOR Y0, Y1, Y1 \
	STOREZS8

// func zStoreAVX2(zs *[Pixels]uint32, blk *Block, z *[16]uint32, mask uint32)
//
// zStoreAVX2 is zStoreSSE2 with AVX2, eight elements to a register, as
// zBlockAVX2 is zBlockSSE2.
TEXT ·zStoreAVX2(SB), NOSPLIT, $0-28
	MOVQ zs+0(FP), DI
	MOVQ blk+8(FP), BX
	MOVQ z+16(FP), SI
	MOVL mask+24(FP), AX
	VPBROADCASTD zbytes<>+0(SB), Y11
	CMPL AX, $0xFFFF
	JEQ all
	VMOVDQU lanebits8<>(SB), Y13
	ZSTORE8(0)
	ZSTORE8(1)
	VZEROUPPER
	RET
all:
	LOADZS8(0)
	NEWZS8(0)
	STOREZS8
	LOADZS8(1)
	NEWZS8(1)
	STOREZS8
	VZEROUPPER
	RET

// func zStoreAny(zs *[Pixels]uint32, blk *Block, z *[16]uint32, mask uint32)
//
// zStoreAny is zStoreAVX2 when zBlockUsesAVX2 is set, else zStoreSSE2,
// as zBlockAny chooses.
TEXT ·zStoreAny(SB), NOSPLIT, $0-28
	CMPB ·zBlockUsesAVX2(SB), $0
	JEQ sse2
	JMP ·zStoreAVX2(SB)
sse2:
	JMP ·zStoreSSE2(SB)
