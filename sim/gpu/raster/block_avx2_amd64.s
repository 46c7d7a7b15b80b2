//go:build !purego

#include "textflag.h"

// The AVX2 versions of blockWZSSE2 and blockVPSSE2 (block_amd64.s): the
// same operations on each element, eight float32 or four float64 elements
// an instruction, with each element's column and row terms picked by
// VPERMPS from the four-entry arrays held whole in a register (the
// indices: laneColIdx, laneRowIdx and their float64 forms laneColIdx2,
// laneRowIdx2, in block_amd64.go), instead of loaded one by one. Every
// instruction is VEX-encoded and the functions end with VZEROUPPER: a
// legacy SSE instruction after dirty upper halves costs a state
// transition on many CPUs.

// wzconsts holds the float64 constants of W and Z, each broadcast to
// every element of a register by one VBROADCASTSD: 1.0, Z24 =
// 16777215.0 and ZScale = 2²⁴.
DATA wzconsts<>+0(SB)/8, $0x3FF0000000000000
DATA wzconsts<>+8(SB)/8, $0x416FFFFFE0000000
DATA wzconsts<>+16(SB)/8, $0x4170000000000000
GLOBL wzconsts<>(SB), RODATA|NOPTR, $24

// WZ8(i) does elements i … i+7, in two halves of four: their qx, qy,
// zx, zy terms by permuting the 32-bit halves of Y0-Y3 with the index
// pairs at (i*8)(R8) and (i*8)(R9) (the second half's 32 bytes on),
// W = 1/(qx+qy) to float32 (VCVTPD2PS: round to nearest, as Go's
// conversion), Z = trunc(min(max((zx+zy+depth)·2²⁴, 0), Z24))
// (VMAXPD's second source, 0, for a NaN, as MAXPD's). The halves are
// joined (VINSERTF128) and stored 32 bytes at a time: W and Z are read
// at once by the depth kernels and the QPU's, 32 bytes a load, and a
// load that spans two narrower stores still in the store buffer is not
// forwarded from them but waits until they reach the cache.
#define WZ8(i) \
	VMOVDQU (i*8)(R8), Y4 \
	VMOVDQU (i*8)(R9), Y5 \
	VMOVDQU (i*8+32)(R8), Y8 \
	VMOVDQU (i*8+32)(R9), Y9 \
	VPERMPS Y0, Y4, Y6 \
	VPERMPS Y1, Y5, Y7 \
	VADDPD Y7, Y6, Y6 \
	VDIVPD Y6, Y10, Y6 \
	VPERMPS Y0, Y8, Y15 \
	VPERMPS Y1, Y9, Y7 \
	VADDPD Y7, Y15, Y15 \
	VDIVPD Y15, Y10, Y15 \
	VCVTPD2PSY Y6, X6 \
	VCVTPD2PSY Y15, X15 \
	VINSERTF128 $1, X15, Y6, Y6 \
	VMOVUPS Y6, (i*4)(R10) \
	VPERMPS Y2, Y4, Y6 \
	VPERMPS Y3, Y5, Y7 \
	VADDPD Y7, Y6, Y6 \
	VADDPD Y14, Y6, Y6 \
	VMULPD Y12, Y6, Y6 \
	VMAXPD Y11, Y6, Y6 \
	VMINPD Y13, Y6, Y6 \
	VCVTTPD2DQY Y6, X6 \
	VPERMPS Y2, Y8, Y15 \
	VPERMPS Y3, Y9, Y7 \
	VADDPD Y7, Y15, Y15 \
	VADDPD Y14, Y15, Y15 \
	VMULPD Y12, Y15, Y15 \
	VMAXPD Y11, Y15, Y15 \
	VMINPD Y13, Y15, Y15 \
	VCVTTPD2DQY Y15, X15 \
	VINSERTI128 $1, X15, Y6, Y6 \
	VMOVDQU Y6, (i*4)(R11)

// func blockWZAVX2(qx, qy, zx, zy *[4]float64, depth float64, col, row *[32]int32, w, z *[16]uint32)
TEXT ·blockWZAVX2(SB), NOSPLIT, $0-72
	MOVQ qx+0(FP), SI
	MOVQ qy+8(FP), DI
	MOVQ zx+16(FP), R12
	MOVQ zy+24(FP), R13
	VMOVUPD (SI), Y0
	VMOVUPD (DI), Y1
	VMOVUPD (R12), Y2
	VMOVUPD (R13), Y3
	VBROADCASTSD depth+32(FP), Y14
	MOVQ col+40(FP), R8
	MOVQ row+48(FP), R9
	MOVQ w+56(FP), R10
	MOVQ z+64(FP), R11
	VBROADCASTSD wzconsts<>+0(SB), Y10  // 1.0
	VBROADCASTSD wzconsts<>+8(SB), Y13  // Z24
	VBROADCASTSD wzconsts<>+16(SB), Y12 // ZScale
	VXORPD Y11, Y11, Y11
	WZ8(0)
	WZ8(8)
	VZEROUPPER
	RET

// func blockWZPar(c *ColTerms, r *RowTerms, depth float64, w, z *[16]uint32)
//
// blockWZPar is blockWZOf in one call, as blockVPPar is blockVP (below),
// taking the block's column and row terms whole (q at offset 0, z at 32,
// the row's parity at 64; block_amd64.go checks the offsets): it picks
// the parity's index tables and the AVX2 or the SSE2 version.
TEXT ·blockWZPar(SB), NOSPLIT, $0-40
	MOVQ c+0(FP), SI
	LEAQ 32(SI), R12
	MOVQ r+8(FP), DI
	LEAQ 32(DI), R13
	MOVQ 64(DI), CX
	ANDQ $1, CX
	SHLQ $7, CX // 128 bytes a parity's [32]int32 or [16]int64
	MOVQ w+24(FP), R10
	MOVQ z+32(FP), R11
	CMPB ·hasAVX2(SB), $0
	JEQ sse2
	LEAQ ·laneColIdx2(SB), R8
	ADDQ CX, R8
	LEAQ ·laneRowIdx2(SB), R9
	ADDQ CX, R9
	VMOVUPD (SI), Y0
	VMOVUPD (DI), Y1
	VMOVUPD (R12), Y2
	VMOVUPD (R13), Y3
	VBROADCASTSD depth+16(FP), Y14
	VBROADCASTSD wzconsts<>+0(SB), Y10  // 1.0
	VBROADCASTSD wzconsts<>+8(SB), Y13  // Z24
	VBROADCASTSD wzconsts<>+16(SB), Y12 // ZScale
	VXORPD Y11, Y11, Y11
	WZ8(0)
	WZ8(8)
	VZEROUPPER
	RET

sse2:
	LEAQ ·laneColOff(SB), R8
	ADDQ CX, R8
	LEAQ ·laneRowOff(SB), R9
	ADDQ CX, R9
	MOVSD depth+16(FP), X14
	MOVLHPS X14, X14
	JMP ·blockWZSSE2Body(SB)

// VP8(i) does elements i … i+7: ax[column] + by[row] in float32 (VADDPS:
// round to nearest, as Go's float32 addition).
#define VP8(i) \
	VMOVDQU (i*4)(R8), Y4 \
	VMOVDQU (i*4)(R9), Y5 \
	VPERMPS Y0, Y4, Y6 \
	VPERMPS Y1, Y5, Y7 \
	VADDPS Y7, Y6, Y6 \
	VMOVUPS Y6, (i*4)(R10)

// func blockVPAVX2(ax, by *[4]float32, col, row *[16]int32, out *[16]uint32)
TEXT ·blockVPAVX2(SB), NOSPLIT, $0-40
	MOVQ ax+0(FP), SI
	MOVQ by+8(FP), DI
	VMOVUPS (SI), X0
	VMOVUPS (DI), X1
	MOVQ col+16(FP), R8
	MOVQ row+24(FP), R9
	MOVQ out+32(FP), R10
	VP8(0)
	VP8(8)
	VZEROUPPER
	RET

// func blockVPPar(ax, by *[4]float32, par int, out *[16]uint32)
//
// blockVPPar is blockVP in one call: it picks the block parity's index
// tables and the AVX2 or the SSE2 version (hasAVX2) itself, so that
// blockVP, which only calls it, is inlined into its callers.
TEXT ·blockVPPar(SB), NOSPLIT, $0-32
	MOVQ ax+0(FP), SI
	MOVQ by+8(FP), DI
	MOVQ par+16(FP), CX
	ANDQ $1, CX
	MOVQ out+24(FP), R10
	CMPB ·hasAVX2(SB), $0
	JEQ vpsse2
	SHLQ $6, CX // 64 bytes a parity's [16]int32
	LEAQ ·laneColIdx(SB), R8
	ADDQ CX, R8
	LEAQ ·laneRowIdx(SB), R9
	ADDQ CX, R9
	VMOVUPS (SI), X0
	VMOVUPS (DI), X1
	VP8(0)
	VP8(8)
	VZEROUPPER
	RET

vpsse2:
	SHLQ $7, CX // 128 bytes a parity's [16]int64
	LEAQ ·laneColOff4(SB), R8
	ADDQ CX, R8
	LEAQ ·laneRowOff4(SB), R9
	ADDQ CX, R9
	JMP ·blockVPSSE2Body(SB)

// func blockVPCLanes(ax *[4]float32, row *[16]float32, par int, out *[16]uint32, cbits uint32, c *[16]uint32)
//
// blockVPCLanes is blockVPCLanesGo (block.go): a varying read's VP, from
// the block's column terms and its row's terms already in element order
// (Varying.RowLanes), and C broadcast. Elements 0–7 of a block take the
// columns 0, 1, 0, 1, … and elements 8–15 the columns 2, 3, 2, 3, … in
// even block rows, the other way round in odd ones (LaneX), so each half
// is one pair of column terms broadcast: no index tables, no VPERMPS.
// The column term is the addition's first operand, as in blockVPGo.
TEXT ·blockVPCLanes(SB), NOSPLIT, $0-48
	MOVQ ax+0(FP), SI
	MOVQ row+8(FP), DI
	MOVQ par+16(FP), CX
	ANDQ $1, CX
	SHLQ $3, CX // the byte offset of elements 0–7's pair: 0 or 8
	MOVQ out+24(FP), R10
	MOVL cbits+32(FP), AX
	MOVQ c+40(FP), R11
	CMPB ·hasAVX2(SB), $0
	JEQ lanessse2
	VMOVD AX, X2
	VPBROADCASTD X2, Y2
	VMOVDQU Y2, (R11)
	VMOVDQU Y2, 32(R11)
	VPBROADCASTQ (SI)(CX*1), Y0
	XORQ $8, CX
	VPBROADCASTQ (SI)(CX*1), Y1
	VADDPS (DI), Y0, Y0
	VADDPS 32(DI), Y1, Y1
	VMOVUPS Y0, (R10)
	VMOVUPS Y1, 32(R10)
	VZEROUPPER
	RET

lanessse2:
	MOVL AX, X2
	PSHUFD $0, X2, X2
	MOVOU X2, (R11)
	MOVOU X2, 16(R11)
	MOVOU X2, 32(R11)
	MOVOU X2, 48(R11)
	MOVQ (SI)(CX*1), X0
	PUNPCKLQDQ X0, X0
	XORQ $8, CX
	MOVQ (SI)(CX*1), X1
	PUNPCKLQDQ X1, X1
	MOVUPS (DI), X3
	MOVAPS X0, X4
	ADDPS X3, X4
	MOVUPS X4, (R10)
	MOVUPS 16(DI), X3
	ADDPS X3, X0
	MOVUPS X0, 16(R10)
	MOVUPS 32(DI), X3
	MOVAPS X1, X4
	ADDPS X3, X4
	MOVUPS X4, 32(R10)
	MOVUPS 48(DI), X3
	ADDPS X3, X1
	MOVUPS X1, 48(R10)
	RET
