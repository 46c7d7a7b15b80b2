//go:build !purego

#include "textflag.h"

// The sub-tile moves of convert.go's moveSubtile16 with SSE2: each 16-byte
// utile row is one unaligned 16-byte load and store. A T-format sub-tile
// (1 KiB) is 4×4 utiles of 64 bytes in raster order, each utile 4 rows of
// 16 bytes (the Reference Guide's "Texture Format (T-format)";
// doc/hardware.md#texture-formats): picture row i of the
// sub-tile holds row i%4 of utiles (0..3, i/4), at (i/4)·256 + ux·64 +
// (i%4)·16.

// Going to memory, the sub-tile is written in order, one whole 64-byte
// utile after another (the four rows of a utile come from four picture
// rows), so every cache line of the destination is written whole at once.
// Coming back, the sub-tile is read in order the same way.
//
// Registers: DI the sub-tile's current utile row (4 utiles, 256 bytes);
// SI, R8, R9, R10 the four picture rows that make it; DX the picture's
// row step (negative for flipped rows).

// ROWS4 points R8, R9, R10 at the three picture rows after SI.
#define ROWS4 \
	LEAQ (SI)(DX*1), R8 \
	LEAQ (SI)(DX*2), R9 \
	LEAQ (R8)(DX*2), R10

// UTILEIN moves utile ux of the utile row: 16 bytes of each picture row.
#define UTILEIN(ux) \
	MOVOU (ux*16)(SI), X0 \
	MOVOU (ux*16)(R8), X1 \
	MOVOU (ux*16)(R9), X2 \
	MOVOU (ux*16)(R10), X3 \
	MOVOU X0, (ux*64)(DI) \
	MOVOU X1, (ux*64+16)(DI) \
	MOVOU X2, (ux*64+32)(DI) \
	MOVOU X3, (ux*64+48)(DI)

// UTILEINNT is UTILEIN with non-temporal stores (the destination must be
// 16-byte aligned): whole cache lines go to memory through the write-
// combining buffers without being read first, as Go's memmove does for
// large copies (runtime/memmove_amd64.s).
#define UTILEINNT(ux) \
	MOVOU (ux*16)(SI), X0 \
	MOVOU (ux*16)(R8), X1 \
	MOVOU (ux*16)(R9), X2 \
	MOVOU (ux*16)(R10), X3 \
	MOVNTO X0, (ux*64)(DI) \
	MOVNTO X1, (ux*64+16)(DI) \
	MOVNTO X2, (ux*64+32)(DI) \
	MOVNTO X3, (ux*64+48)(DI)

// UTILEOUT is UTILEIN the other way.
#define UTILEOUT(ux) \
	MOVOU (ux*64)(DI), X0 \
	MOVOU (ux*64+16)(DI), X1 \
	MOVOU (ux*64+32)(DI), X2 \
	MOVOU (ux*64+48)(DI), X3 \
	MOVOU X0, (ux*16)(SI) \
	MOVOU X1, (ux*16)(R8) \
	MOVOU X2, (ux*16)(R9) \
	MOVOU X3, (ux*16)(R10)

// func subtile16In(sub, row unsafe.Pointer, step int)
TEXT ·subtile16In(SB), NOSPLIT, $0-24
	MOVQ sub+0(FP), DI
	MOVQ row+8(FP), SI
	MOVQ step+16(FP), DX
	MOVQ $4, CX
in:
	ROWS4
	UTILEIN(0)
	UTILEIN(1)
	UTILEIN(2)
	UTILEIN(3)
	LEAQ (SI)(DX*4), SI
	ADDQ $256, DI
	DECQ CX
	JNZ in
	RET

// func subtile16InNT(sub, row unsafe.Pointer, step int)
TEXT ·subtile16InNT(SB), NOSPLIT, $0-24
	MOVQ sub+0(FP), DI
	MOVQ row+8(FP), SI
	MOVQ step+16(FP), DX
	MOVQ $4, CX
innt:
	ROWS4
	UTILEINNT(0)
	UTILEINNT(1)
	UTILEINNT(2)
	UTILEINNT(3)
	LEAQ (SI)(DX*4), SI
	ADDQ $256, DI
	DECQ CX
	JNZ innt
	RET

// func storeFence()
TEXT ·storeFence(SB), NOSPLIT, $0-0
	SFENCE
	RET

// func subtile16Out(sub, row unsafe.Pointer, step int)
TEXT ·subtile16Out(SB), NOSPLIT, $0-24
	MOVQ sub+0(FP), DI
	MOVQ row+8(FP), SI
	MOVQ step+16(FP), DX
	MOVQ $4, CX
out:
	ROWS4
	UTILEOUT(0)
	UTILEOUT(1)
	UTILEOUT(2)
	UTILEOUT(3)
	LEAQ (SI)(DX*4), SI
	ADDQ $256, DI
	DECQ CX
	JNZ out
	RET
