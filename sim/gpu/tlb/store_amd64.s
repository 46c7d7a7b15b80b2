//go:build !purego

#include "textflag.h"

// Tile stores with SSE2 non-temporal stores: whole cache lines go to
// memory through the write-combining buffers without being read first, as
// Go's memmove does for large copies (runtime/memmove_amd64.s); the frame
// a tile is stored to is not read again by the model while it renders.
// The destination must be 16-byte aligned. Each function ends with
// SFENCE, which orders its non-temporal stores before any later store
// (Intel SDM, "MOVNTDQ"), so the stored tile is in memory, for every
// other thread, like one stored with ordinary moves.

// func putRowsNT(dst unsafe.Pointer, pitch int, src *uint32, chunks, rows int)
//
// putRowsNT stores rows rows of chunks 16-byte chunks (4 pixels each)
// from the tile buffer rows at src (Size·4 bytes apart) to dst, rows
// pitch bytes apart.
TEXT ·putRowsNT(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ pitch+8(FP), DX
	MOVQ src+16(FP), SI
	MOVQ chunks+24(FP), CX
	MOVQ rows+32(FP), BX
	TESTQ BX, BX
	JZ done
row:
	XORQ R8, R8
	MOVQ CX, AX
	CMPQ AX, $4
	JB one
four:
	MOVOU (SI)(R8*1), X0
	MOVOU 16(SI)(R8*1), X1
	MOVOU 32(SI)(R8*1), X2
	MOVOU 48(SI)(R8*1), X3
	MOVNTO X0, (DI)(R8*1)
	MOVNTO X1, 16(DI)(R8*1)
	MOVNTO X2, 32(DI)(R8*1)
	MOVNTO X3, 48(DI)(R8*1)
	ADDQ $64, R8
	SUBQ $4, AX
	CMPQ AX, $4
	JAE four
one:
	TESTQ AX, AX
	JZ next
	MOVOU (SI)(R8*1), X0
	MOVNTO X0, (DI)(R8*1)
	ADDQ $16, R8
	DECQ AX
	JMP one
next:
	ADDQ DX, DI
	ADDQ $256, SI
	DECQ BX
	JNZ row
	SFENCE
done:
	RET

// func putUtilesNT(dst unsafe.Pointer, off *int32, perRow int, src *uint32)
//
// putUtilesNT stores a whole tile as 16×16 utiles of 4×4 pixels: utile
// (ux, uy) of the tile buffer (at src + 4·uy·Size·4 + ux·16) as 64
// contiguous bytes at dst + off[uy·perRow + ux].
TEXT ·putUtilesNT(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ off+8(FP), BX
	MOVQ perRow+16(FP), DX
	MOVQ src+24(FP), SI
	MOVQ $16, R9
urow:
	XORQ CX, CX
utile:
	MOVLQSX (BX)(CX*4), AX
	ADDQ DI, AX
	MOVOU (SI), X0
	MOVOU 256(SI), X1
	MOVOU 512(SI), X2
	MOVOU 768(SI), X3
	MOVNTO X0, (AX)
	MOVNTO X1, 16(AX)
	MOVNTO X2, 32(AX)
	MOVNTO X3, 48(AX)
	ADDQ $16, SI
	INCQ CX
	CMPQ CX, $16
	JB utile
	LEAQ (BX)(DX*4), BX
	ADDQ $768, SI
	DECQ R9
	JNZ urow
	SFENCE
	RET
