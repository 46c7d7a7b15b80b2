//go:build !purego

#include "textflag.h"

// AVX2 versions of kern_sse2_amd64.s's kernels, eight elements per
// instruction, chosen at start-up when the CPU has AVX2 (kern_amd64.go).
// Each does exactly the integer and float32/float64 operations of its SSE2
// twin, in the same order, with the VEX three-operand forms (so fewer
// register copies); the float operations are the same IEEE ones under the
// same MXCSR, so the results are the same bits. kern_test.go runs both
// sets against the general ALU code. Every instruction is VEX-encoded
// (VMOVD/VMOVQ, not MOVQ, into an XMM register), or EVEX-encoded in the
// AVX-512 forms of fadd and fmul at the end, and every function ends
// with VZEROUPPER: a legacy SSE instruction while the upper halves are
// dirty costs hundreds of cycles on some CPUs and hypervisors (measured
// here: fadd 253 ns instead of 11 with one MOVQ AX, X14 in it).

// ARGS3 loads a kernel's arguments (d, a, b *vec) into DI, SI and DX.
#define ARGS3 \
	MOVQ d+0(FP), DI \
	MOVQ a+8(FP), SI \
	MOVQ b+16(FP), DX

#define SPLATY(val, x, y) MOVL $val, AX; VMOVD AX, x; VPBROADCASTD x, y

// SPLATARG sets every 32-bit element of y to the uint32 argument arg.
#define SPLATARG(arg, x, y) MOVL arg, AX; VMOVD AX, x; VPBROADCASTD x, y

// SPLATSD sets every float64 element of y to the float64 whose bits are
// bits.
#define SPLATSD(bits, x, y) MOVQ $bits, AX; VMOVQ AX, x; VBROADCASTSD x, y

// LOADY loads the 32 bytes at off(base) into y as two 16-byte loads.
// An operand is often stored just before the kernel runs, by lanes.Copy's
// 16-byte moves (a register written from a latch): a 32-byte load that
// spans two pending stores cannot take its data from the store buffer and
// waits until both stores have been written to the cache, while a 16-byte
// load that lies within one store (16 or 32 bytes wide) is forwarded
// (as COLOUR8 and COLOURF4Y below). Every kernel here reads its operands
// through LOADY, or 16 bytes at a time. Measured on this project's machine
// (BenchmarkKernels, which copies the operands in with lanes.Copy first;
// medians): fadd 17.0 ns a call with 32-byte loads, 9.3 with 16-byte
// ones; fsub 21.5 and 8.0; fmul 17.8 and 10.5; and the others 7.6-9.9 ns
// with 32-byte loads, 5.5-5.8 with 16-byte ones (v8muld 11.7 and 5.7).
#define LOADY(off, base, x, y) \
	VMOVDQU off(base), x \
	VINSERTI128 $1, off+16(base), y, y

// LOADZ loads the 64 bytes at base into z as four 16-byte loads (see
// LOADY).
#define LOADZ(base, x, z) \
	VMOVDQU32 0(base), x \
	VINSERTI32X4 $1, 16(base), z, z \
	VINSERTI32X4 $2, 32(base), z, z \
	VINSERTI32X4 $3, 48(base), z, z

// FADD8 computes elements off/4 .. off/4+7 of kFAddGo (Y14: the sign
// flipped on b, zero for fadd), and ORs into BX, at bit shift, the
// elements whose sum's exponent is sumBig's or more (ref_float.go). Y13
// expMask, Y12 0x7FFFFFFF, Y11 0, Y10 sumBig - 1<<23.
#define FADD8(off, shift) \
	LOADY(off, SI, X0, Y0) \
	LOADY(off, DX, X1, Y1) \
	VPAND Y13, Y0, Y2 \
	VPCMPEQD Y11, Y2, Y2 \
	VPANDN Y0, Y2, Y2 \
	VPAND Y13, Y1, Y3 \
	VPCMPEQD Y11, Y3, Y3 \
	VPANDN Y1, Y3, Y3 \
	VPXOR Y14, Y3, Y3 \
	VADDPS Y3, Y2, Y4 \
	VPAND Y13, Y4, Y5 \
	VPCMPGTD Y10, Y5, Y5 \
	VMOVMSKPS Y5, AX \
	SHLL $shift, AX \
	ORL AX, BX \
	VSUBPS Y2, Y4, Y6 \
	VSUBPS Y6, Y4, Y7 \
	VSUBPS Y7, Y2, Y8 \
	VSUBPS Y6, Y3, Y9 \
	VADDPS Y9, Y8, Y8 \
	VPXOR Y4, Y8, Y9 \
	VPSRLD $31, Y9, Y9 \
	VPAND Y12, Y8, Y8 \
	VPCMPEQD Y11, Y8, Y8 \
	VPANDN Y9, Y8, Y8 \
	VPSUBD Y8, Y4, Y4 \
	VPAND Y13, Y4, Y9 \
	VPCMPEQD Y11, Y9, Y9 \
	VPANDN Y4, Y9, Y9 \
	VMOVDQU Y9, off(DI)

// FADDY is faddAVX2's body, Y14 already holding the sign to flip on b.
#define FADDY \
	SPLATY(0x7F800000, X13, Y13) \
	SPLATY(0x7FFFFFFF, X12, Y12) \
	SPLATY(0x7E800000, X10, Y10) \
	VPXOR Y11, Y11, Y11 \
	XORL BX, BX \
	FADD8(0, 0) \
	FADD8(32, 8) \
	VZEROUPPER

// func faddAVX2(d, a, b *vec, neg uint32) (slow uint32)
TEXT ·faddAVX2(SB), NOSPLIT, $0-36
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	SPLATARG(neg+24(FP), X14, Y14)
	FADDY
	MOVL BX, slow+32(FP)
	RET

// FMUL8 computes elements off/4 .. off/4+7 of kFMulGo and ORs into BX the
// elements with an Inf or NaN operand. The products are formed as float64
// four at a time; a product whose exponent is 896 or less (below
// float32's normal range) is cleared to +0 before it is narrowed, which
// narrows to the 0 kFMulGo's mask gives. Y13 expMask, Y11 0, Y10 the
// float64 truncation mask ^(1<<29 - 1), Y9 a float64's exponent field,
// Y8 896<<52.
#define FMUL8(off, shift) \
	LOADY(off, SI, X0, Y0) \
	LOADY(off, DX, X1, Y1) \
	VPAND Y13, Y0, Y2 \
	VPCMPEQD Y13, Y2, Y3 \
	VPCMPEQD Y11, Y2, Y2 \
	VPANDN Y0, Y2, Y2 \
	VPAND Y13, Y1, Y4 \
	VPCMPEQD Y13, Y4, Y5 \
	VPCMPEQD Y11, Y4, Y4 \
	VPANDN Y1, Y4, Y4 \
	VPOR Y5, Y3, Y3 \
	VMOVMSKPS Y3, AX \
	SHLL $shift, AX \
	ORL AX, BX \
	VCVTPS2PD X2, Y0 \
	VCVTPS2PD X4, Y1 \
	VMULPD Y1, Y0, Y0 \
	VEXTRACTF128 $1, Y2, X2 \
	VEXTRACTF128 $1, Y4, X4 \
	VCVTPS2PD X2, Y2 \
	VCVTPS2PD X4, Y4 \
	VMULPD Y4, Y2, Y2 \
	VPAND Y9, Y0, Y6 \
	VPCMPGTQ Y8, Y6, Y6 \
	VPAND Y10, Y0, Y0 \
	VPAND Y6, Y0, Y0 \
	VPAND Y9, Y2, Y7 \
	VPCMPGTQ Y8, Y7, Y7 \
	VPAND Y10, Y2, Y2 \
	VPAND Y7, Y2, Y2 \
	VCVTPD2PSY Y0, X0 \
	VCVTPD2PSY Y2, X2 \
	VINSERTF128 $1, X2, Y0, Y0 \
	VMOVDQU Y0, off(DI)

// FMULY is fmulAVX2's body: FMUL8's constants, then both halves.
#define FMULY \
	SPLATY(0x7F800000, X13, Y13) \
	VPXOR Y11, Y11, Y11 \
	MOVQ $0xFFFFFFFFE0000000, AX \
	VMOVQ AX, X10 \
	VPBROADCASTQ X10, Y10 \
	MOVQ $0x7FF0000000000000, AX \
	VMOVQ AX, X9 \
	VPBROADCASTQ X9, Y9 \
	MOVQ $0x3800000000000000, AX \
	VMOVQ AX, X8 \
	VPBROADCASTQ X8, Y8 \
	XORL BX, BX \
	FMUL8(0, 0) \
	FMUL8(32, 8) \
	VZEROUPPER

// func fmulAVX2(d, a, b *vec) (slow uint32)
TEXT ·fmulAVX2(SB), NOSPLIT, $0-28
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	FMULY
	MOVL BX, slow+24(FP)
	RET

// V8MULD8 is v8muld of 32 bytes, as V8MULD4 (the unpacks and the pack
// work within each 128-bit half, so the bytes come back in order). Y12
// holds 127 per word, Y13 1 per word, Y11 zero.
#define V8MULD8(off) \
	LOADY(off, SI, X0, Y0) \
	LOADY(off, DX, X1, Y1) \
	VPUNPCKLBW Y11, Y0, Y2 \
	VPUNPCKHBW Y11, Y0, Y0 \
	VPUNPCKLBW Y11, Y1, Y3 \
	VPUNPCKHBW Y11, Y1, Y1 \
	VPMULLW Y3, Y2, Y2 \
	VPMULLW Y1, Y0, Y0 \
	VPADDW Y12, Y2, Y2 \
	VPADDW Y12, Y0, Y0 \
	VPSRLW $8, Y2, Y4 \
	VPADDW Y13, Y2, Y2 \
	VPADDW Y4, Y2, Y2 \
	VPSRLW $8, Y2, Y2 \
	VPSRLW $8, Y0, Y5 \
	VPADDW Y13, Y0, Y0 \
	VPADDW Y5, Y0, Y0 \
	VPSRLW $8, Y0, Y0 \
	VPACKUSWB Y0, Y2, Y2 \
	VMOVDQU Y2, off(DI)

// func v8muldAVX2(d, a, b *vec)
TEXT ·v8muldAVX2(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	VPXOR Y11, Y11, Y11
	SPLATY(0x007F007F, X12, Y12)
	SPLATY(0x00010001, X13, Y13)
	V8MULD8(0)
	V8MULD8(32)
	VZEROUPPER
	RET

// BYTEOPY is one AVX2 instruction on each 32 bytes: d = a op b.
#define BYTEOPY(op) \
	MOVQ d+0(FP), DI \
	MOVQ a+8(FP), SI \
	MOVQ b+16(FP), DX \
	LOADY(0, SI, X0, Y0) \
	LOADY(32, SI, X1, Y1) \
	LOADY(0, DX, X2, Y2) \
	LOADY(32, DX, X3, Y3) \
	op Y2, Y0, Y0 \
	op Y3, Y1, Y1 \
	VMOVDQU Y0, 0(DI) \
	VMOVDQU Y1, 32(DI) \
	VZEROUPPER \
	RET

// func v8addsAVX2(d, a, b *vec)
TEXT ·v8addsAVX2(SB), NOSPLIT, $0-24
	BYTEOPY(VPADDUSB)

// func v8subsAVX2(d, a, b *vec)
TEXT ·v8subsAVX2(SB), NOSPLIT, $0-24
	BYTEOPY(VPSUBUSB)

// func v8minAVX2(d, a, b *vec)
TEXT ·v8minAVX2(SB), NOSPLIT, $0-24
	BYTEOPY(VPMINUB)

// func v8maxAVX2(d, a, b *vec)
TEXT ·v8maxAVX2(SB), NOSPLIT, $0-24
	BYTEOPY(VPMAXUB)

// func andAVX2(d, a, b *vec)
TEXT ·andAVX2(SB), NOSPLIT, $0-24
	BYTEOPY(VPAND)

// func orAVX2(d, a, b *vec)
TEXT ·orAVX2(SB), NOSPLIT, $0-24
	BYTEOPY(VPOR)

// func xorAVX2(d, a, b *vec)
TEXT ·xorAVX2(SB), NOSPLIT, $0-24
	BYTEOPY(VPXOR)

// func notAVX2(d, a, b *vec): d = ^a, b unused (AG Table 12 "not"), as
// an XOR with all ones.
TEXT ·notAVX2(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	LOADY(0, SI, X0, Y0)
	LOADY(32, SI, X1, Y1)
	VPCMPEQD Y2, Y2, Y2
	VPXOR Y2, Y0, Y0
	VPXOR Y2, Y1, Y1
	VMOVDQU Y0, 0(DI)
	VMOVDQU Y1, 32(DI)
	VZEROUPPER
	RET

// func addAVX2(d, a, b *vec)
TEXT ·addAVX2(SB), NOSPLIT, $0-24
	BYTEOPY(VPADDD)

// func subAVX2(d, a, b *vec)
TEXT ·subAVX2(SB), NOSPLIT, $0-24
	BYTEOPY(VPSUBD)

// COLOUR8 is COLOUR4 (kern_sse2_amd64.s) for elements off/4 .. off/4+7: the
// same float64 product, rounding, saturation (VMINPD's second source,
// 255, for a NaN product) and truncation, four products an instruction,
// then the merge into d. Y13 holds 255.0 and Y12 0.5 (float64s), Y6 the
// replication mask, X7 the shift count, Y11 the pack's bits. The inputs
// are read 16 bytes at a time: the latch was just written that way (a
// register copy, lanes.Copy), and a wider load of narrower recent stores
// cannot take them from the store buffer on most x86 cores
// (BenchmarkColourPack on this project's machine: 97 ns with 32-byte
// loads, 91 with 16-byte ones, within its noise).
#define COLOUR8(off) \
	VMOVDQU off(SI), X0 \
	VINSERTI128 $1, off+16(SI), Y0, Y0 \
	VPSRAD $31, Y0, Y5 \
	VCVTPS2PD off(SI), Y1 \
	VCVTPS2PD off+16(SI), Y2 \
	VMULPD Y13, Y1, Y1 \
	VMULPD Y13, Y2, Y2 \
	VADDPD Y12, Y1, Y1 \
	VADDPD Y12, Y2, Y2 \
	VMINPD Y13, Y1, Y1 \
	VMINPD Y13, Y2, Y2 \
	VCVTTPD2DQY Y1, X1 \
	VCVTTPD2DQY Y2, X2 \
	VINSERTI128 $1, X2, Y1, Y1 \
	VPANDN Y1, Y5, Y5 \
	VPSLLD $8, Y5, Y3 \
	VPSLLD $16, Y5, Y4 \
	VPOR Y4, Y3, Y3 \
	VPSLLD $24, Y5, Y4 \
	VPOR Y4, Y3, Y3 \
	VPAND Y6, Y3, Y3 \
	VPOR Y3, Y5, Y5 \
	VPSLLD X7, Y5, Y5 \
	VMOVDQU Y5, off(DI) \
	VMOVDQU off(R8), X9 \
	VINSERTI128 $1, off+16(R8), Y9, Y9 \
	VPANDN Y9, Y11, Y10 \
	VPOR Y5, Y10, Y10 \
	VMOVDQU Y10, off(R8)

// COLOURBYTES16 is COLOUR16's pack of the sixteen floats in Z0 (which it
// overwrites) into Z3, the packed words: the colour byte, replicated
// where Z6 is all ones, shifted by X7.
#define COLOURBYTES16 \
	VPSRAD $31, Z0, Z5 \
	VFMADD213PS.RZ_SAE Z12, Z13, Z0 \
	VMINPS Z13, Z0, Z1 \
	VCVTTPS2DQ Z1, Z1 \
	VPANDND Z1, Z5, Z5 \
	VPSLLD $8, Z5, Z3 \
	VPORD Z5, Z3, Z3 \
	VPSLLD $16, Z3, Z4 \
	VPORD Z4, Z3, Z3 \
	VPTERNLOGD $0xEA, Z5, Z6, Z3 \
	VPSLLD X7, Z3, Z3

// COLOUR16 is COLOUR8's colour byte for all sixteen elements at once, in
// AVX-512F (colourUsesAVX512), in float32: one fused multiply-add gives
// f·255 + ½ rounded toward zero ({rz-sae}, EVEX embedded rounding, as in
// faddAVX512 below; Intel SDM vol. 2, VFMADD132PS/VFMADD213PS/VFMADD231PS),
// and for the exact sum w, at or above zero, floor of that is floor(w):
// every integer up to 2^24 is a float32, so rounding toward zero never
// crosses one. floor(f·255 + ½) is floatToColour's rounding of f·255 (half
// away from zero, f not negative). VMINPS with 255 (its second source,
// 255, for a NaN) saturates, sums at or beyond 2^128 included (the
// largest float32 toward zero, or Inf from an Inf); a set sign bit gives
// 0, as in COLOUR8. This drops COLOUR8's float64 steps (the widening, the
// two halves and their join), the chain a pack waits on. The input is
// read 16 bytes at a time (LOADZ). Byte replication (8888) is x | y<<16
// with y = x | x<<8, kept where Z6 (the replication mask) is all ones;
// the merge into d is one VPTERNLOGD, d&^mask | packed (0xBA: A d, B the
// mask, C packed). Z13 holds 255.0 and Z12 0.5 (float32s), X7 the shift
// count, Z11 the pack's bits.
#define COLOUR16 \
	LOADZ(SI, X0, Z0) \
	COLOURBYTES16 \
	VMOVDQU32 Z3, 0(DI) \
	LOADZ(R8, X9, Z9) \
	VPTERNLOGD $0xBA, Z3, Z11, Z9 \
	VMOVDQU32 Z9, 0(R8)

// colourPackVec (kern_amd64.go) is colourAVX2 with its shift, replication
// and mask worked out from the pack p (colourPackWith's), called from Go
// directly: a Go function between the step and colourAVX2 cost about 37
// instructions a pack (callgrind, glmark2 pulsar). Where the CPU has
// AVX-512 (colourUsesAVX512) it runs COLOUR16 instead of two COLOUR8s;
// where it lacks AVX2 (colourUsesAVX2) it jumps to colourPackSSE2 with its
// arguments as they came. p is PackMul8888 (3) or one of PackMul8A..8D
// (4-7), as for colourPackWith.
//
// func colourPackVec(p qpu.Pack, d, packed, r *vec)
TEXT ·colourPackVec(SB), NOSPLIT, $0-32
	CMPB ·colourUsesAVX2(SB), $0
	JEQ sse2
	// AX the shift, BX the mask, DX the replication mask; 8888: the
	// byte in every byte of d.
	MOVBLZX p+0(FP), CX
	XORL AX, AX
	MOVL $-1, BX
	MOVL $-1, DX
	CMPL CX, $3
	JEQ args
	// 8A..8D: the colour byte at bit 8·(p-4) of d, not replicated.
	SUBL $4, CX
	SHLL $3, CX
	MOVL CX, AX
	MOVL $0xFF, BX
	SHLL CX, BX
	XORL DX, DX
args:
	MOVQ packed+16(FP), DI
	MOVQ r+24(FP), SI
	MOVQ d+8(FP), R8
	VMOVQ AX, X7
	CMPB ·colourUsesAVX512(SB), $0
	JEQ avx2
	VPBROADCASTD BX, Z11
	VPBROADCASTD DX, Z6
	MOVL $0x437F0000, AX // 255.0
	VPBROADCASTD AX, Z13
	MOVL $0x3F000000, AX // 0.5
	VPBROADCASTD AX, Z12
	COLOUR16
	VZEROUPPER
	RET
avx2:
	VMOVD BX, X11
	VPBROADCASTD X11, Y11
	VMOVD DX, X6
	VPBROADCASTD X6, Y6
	SPLATSD(0x406FE00000000000, X13, Y13) // 255.0
	SPLATSD(0x3FE0000000000000, X12, Y12) // 0.5
	COLOUR8(0)
	COLOUR8(32)
	VZEROUPPER
	RET
sse2:
	JMP ·colourPackSSE2(SB)

// colourPacks (kern_amd64.go) is a run of colour packs into one register
// d (colours.go opColours): where the CPU has AVX-512 (colourUsesAVX512,
// and colourUsesAVX2, which the tests turn off to choose SSE2), d is
// read once into Z9, each step's source packed by COLOURBYTES16 and
// merged into Z9 in order (VPTERNLOGD 0xBA, as in COLOUR16), and d,
// packed (the last step's words) and lat (the last step's source, which
// Z8 keeps) are written once at the end. The constants are set once; a
// step's shift, bits and replication come from its colourStep (src 0,
// shift 8, mask 12, rep 16; 24 bytes). Elsewhere it jumps to
// colourPacksGo, the packs one by one. n is at least 1.
//
// func colourPacks(d, packed, lat *vec, s *colourStep, n int)
TEXT ·colourPacks(SB), NOSPLIT, $0-40
	CMPB ·colourUsesAVX2(SB), $0
	JEQ slow
	CMPB ·colourUsesAVX512(SB), $0
	JEQ slow
	MOVQ d+0(FP), R8
	MOVQ s+24(FP), R10
	MOVQ n+32(FP), CX
	MOVL $0x437F0000, AX // 255.0
	VPBROADCASTD AX, Z13
	MOVL $0x3F000000, AX // 0.5
	VPBROADCASTD AX, Z12
	LOADZ(R8, X9, Z9)
step:
	MOVQ 0(R10), SI
	VMOVD 8(R10), X7
	VPBROADCASTD 12(R10), Z11
	VPBROADCASTD 16(R10), Z6
	LOADZ(SI, X0, Z0)
	VMOVDQA32 Z0, Z8
	COLOURBYTES16
	VPTERNLOGD $0xBA, Z3, Z11, Z9
	ADDQ $24, R10
	DECQ CX
	JNZ step
	MOVQ packed+8(FP), DI
	MOVQ lat+16(FP), R9
	VMOVDQU32 Z3, 0(DI)
	VMOVDQU32 Z9, 0(R8)
	VMOVDQU32 Z8, 0(R9)
	VZEROUPPER
	RET
slow:
	JMP ·colourPacksGo(SB)

// colourAVX2 is colourSSE2 (kern_sse2_amd64.s) eight elements at a time.
//
// func colourAVX2(packed, r *vec, shift uint64, rep uint32, d *vec, mask uint32)
TEXT ·colourAVX2(SB), NOSPLIT, $0-44
	MOVQ packed+0(FP), DI
	MOVQ r+8(FP), SI
	VMOVQ shift+16(FP), X7
	SPLATARG(rep+24(FP), X6, Y6)
	MOVQ d+32(FP), R8
	SPLATARG(mask+40(FP), X11, Y11)
	SPLATSD(0x406FE00000000000, X13, Y13) // 255.0
	SPLATSD(0x3FE0000000000000, X12, Y12) // 0.5
	COLOUR8(0)
	COLOUR8(32)
	VZEROUPPER
	RET

// The compare-and-select kernels, as their SSE2 twins: Y3 = all ones in
// the elements where the first operand's key is greater, the result keep
// ^ ((x ^ y) & Y3) with keep x (Y4) for the min forms, y (Y5) for the max
// forms. Y12 holds 0x7FFFFFFF.

// FLOATKEY8 sets dst to floatOrder of the float bit patterns in src. Y2
// is scratch.
#define FLOATKEY8(src, dst) \
	VPSRAD $31, src, Y2 \
	VPAND Y12, src, dst \
	VPXOR Y2, dst, dst \
	VPSUBD Y2, dst, dst

#define SELECT8(off, keep) \
	VPXOR Y5, Y4, Y0 \
	VPAND Y3, Y0, Y0 \
	VPXOR keep, Y0, Y0 \
	VMOVDQU Y0, off(DI)

#define FMINMAX8(off, keep) \
	LOADY(off, SI, X4, Y4) \
	LOADY(off, DX, X5, Y5) \
	FLOATKEY8(Y4, Y3) \
	FLOATKEY8(Y5, Y6) \
	VPCMPGTD Y6, Y3, Y3 \
	SELECT8(off, keep)

#define ABSMINMAX8(off, keep) \
	LOADY(off, SI, X4, Y4) \
	LOADY(off, DX, X5, Y5) \
	VPAND Y12, Y4, Y4 \
	VPAND Y12, Y5, Y5 \
	VPCMPGTD Y5, Y4, Y3 \
	SELECT8(off, keep)

// func fminAVX2(d, a, b *vec)
TEXT ·fminAVX2(SB), NOSPLIT, $0-24
	ARGS3
	SPLATY(0x7FFFFFFF, X12, Y12)
	FMINMAX8(0, Y4)
	FMINMAX8(32, Y4)
	VZEROUPPER
	RET

// func fmaxAVX2(d, a, b *vec)
TEXT ·fmaxAVX2(SB), NOSPLIT, $0-24
	ARGS3
	SPLATY(0x7FFFFFFF, X12, Y12)
	FMINMAX8(0, Y5)
	FMINMAX8(32, Y5)
	VZEROUPPER
	RET

// func fminabsAVX2(d, a, b *vec)
TEXT ·fminabsAVX2(SB), NOSPLIT, $0-24
	ARGS3
	SPLATY(0x7FFFFFFF, X12, Y12)
	ABSMINMAX8(0, Y4)
	ABSMINMAX8(32, Y4)
	VZEROUPPER
	RET

// func fmaxabsAVX2(d, a, b *vec)
TEXT ·fmaxabsAVX2(SB), NOSPLIT, $0-24
	ARGS3
	SPLATY(0x7FFFFFFF, X12, Y12)
	ABSMINMAX8(0, Y5)
	ABSMINMAX8(32, Y5)
	VZEROUPPER
	RET

// func minAVX2(d, a, b *vec): signed; equal elements are the same bits,
// so which one min returns does not matter.
TEXT ·minAVX2(SB), NOSPLIT, $0-24
	BYTEOPY(VPMINSD)

// func maxAVX2(d, a, b *vec)
TEXT ·maxAVX2(SB), NOSPLIT, $0-24
	BYTEOPY(VPMAXSD)

// func ftoiAVX2(d, a, b *vec) (wide uint32) is ftoiSSE2 eight elements
// an instruction (FTOI4, kern_sse2_amd64.s).
TEXT ·ftoiAVX2(SB), NOSPLIT, $0-28
	ARGS3
	SPLATY(0x80000000, X12, Y12)
	LOADY(0, SI, X0, Y0)
	LOADY(32, SI, X1, Y1)
	VCVTTPS2DQ Y0, Y0
	VCVTTPS2DQ Y1, Y1
	VPCMPEQD Y12, Y0, Y2
	VPCMPEQD Y12, Y1, Y3
	VPOR Y3, Y2, Y2
	VPMOVMSKB Y2, AX
	TESTL AX, AX
	JNZ wide
	VMOVDQU Y0, 0(DI)
	VMOVDQU Y1, 32(DI)
wide:
	VZEROUPPER
	MOVL AX, wide+24(FP)
	RET

// ITOF4Y is kIToFGo of four elements: int32 to float64, the 29 low
// mantissa bits cleared (Y10), float64 to float32.
#define ITOF4Y(off) \
	VCVTDQ2PD off(SI), Y1 \
	VPAND Y10, Y1, Y1 \
	VCVTPD2PSY Y1, X1 \
	VMOVDQU X1, off(DI)

// func itofAVX2(d, a, b *vec)
TEXT ·itofAVX2(SB), NOSPLIT, $0-24
	ARGS3
	SPLATSD(0xFFFFFFFFE0000000, X10, Y10)
	ITOF4Y(0)
	ITOF4Y(16)
	ITOF4Y(32)
	ITOF4Y(48)
	VZEROUPPER
	RET

// COLOURF4Y is COLOURF4 (kern_sse2_amd64.s) with the float64 steps on four
// elements at once: X7 the shift, X12 0xFF per element, Y13 1/255 per
// float64, Y10 the truncation mask. It reads 16 bytes at a time, not 32:
// the operand is most often r4 just written by the TMU's 16-byte copies
// (lanes.Copy), and a load spanning two stores waits for them to leave
// the store buffer.
#define COLOURF4Y(off) \
	VMOVDQU off(SI), X0 \
	VPSRLD X7, X0, X0 \
	VPAND X12, X0, X0 \
	VCVTDQ2PD X0, Y1 \
	VMULPD Y13, Y1, Y1 \
	VPAND Y10, Y1, Y1 \
	VCVTPD2PSY Y1, X1 \
	VMOVDQU X1, off(DI)

// colourToFloatVec (kern_amd64.go) is colourToFloatAVX2 where the CPU
// has AVX2 (colourUsesAVX2), else colourToFloatSSE2, called from Go
// directly: through the kernel set's func value (kernels.colour) the
// call went through Go's ABI wrapper, about 10 instructions more an
// unpack (callgrind, glmark2 effect2d, which unpacks three channels of
// every texel it fetches).
//
// func colourToFloatVec(d, a *vec, shift uint)
TEXT ·colourToFloatVec(SB), NOSPLIT, $0-24
	CMPB ·colourUsesAVX2(SB), $0
	JEQ sse2
	JMP ·colourToFloatAVX2(SB)
sse2:
	JMP ·colourToFloatSSE2(SB)

// func colourToFloatAVX2(d, a *vec, shift uint)
TEXT ·colourToFloatAVX2(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ shift+16(FP), AX
	VMOVQ AX, X7
	SPLATY(0xFF, X12, Y12)
	SPLATSD(0xFFFFFFFFE0000000, X10, Y10)
	SPLATSD(0x3F70101010101010, X13, Y13)
	COLOURF4Y(0)
	COLOURF4Y(16)
	COLOURF4Y(32)
	COLOURF4Y(48)
	VZEROUPPER
	RET

// SHIFTY is a shift by a count per element, b & 31 (Y15 holds 31): d = a
// op (b & 31).
#define SHIFTY(op) \
	ARGS3 \
	SPLATY(31, X15, Y15) \
	LOADY(0, DX, X2, Y2) \
	LOADY(32, DX, X3, Y3) \
	VPAND Y15, Y2, Y2 \
	VPAND Y15, Y3, Y3 \
	LOADY(0, SI, X0, Y0) \
	LOADY(32, SI, X1, Y1) \
	op Y2, Y0, Y0 \
	op Y3, Y1, Y1 \
	VMOVDQU Y0, 0(DI) \
	VMOVDQU Y1, 32(DI) \
	VZEROUPPER \
	RET

// func shrAVX2(d, a, b *vec)
TEXT ·shrAVX2(SB), NOSPLIT, $0-24
	SHIFTY(VPSRLVD)

// func asrAVX2(d, a, b *vec)
TEXT ·asrAVX2(SB), NOSPLIT, $0-24
	SHIFTY(VPSRAVD)

// func shlAVX2(d, a, b *vec)
TEXT ·shlAVX2(SB), NOSPLIT, $0-24
	SHIFTY(VPSLLVD)

// ROR8 is ror of eight elements: a >> s | a << (32 - s) with s = b & 31;
// VPSLLVD gives 0 for the count 32 (s = 0), leaving a. Y15 holds 31, Y14
// 32.
#define ROR8(off) \
	LOADY(off, DX, X2, Y2) \
	VPAND Y15, Y2, Y2 \
	VPSUBD Y2, Y14, Y3 \
	LOADY(off, SI, X0, Y0) \
	VPSRLVD Y2, Y0, Y1 \
	VPSLLVD Y3, Y0, Y0 \
	VPOR Y1, Y0, Y0 \
	VMOVDQU Y0, off(DI)

// func rorAVX2(d, a, b *vec)
TEXT ·rorAVX2(SB), NOSPLIT, $0-24
	ARGS3
	SPLATY(31, X15, Y15)
	SPLATY(32, X14, Y14)
	ROR8(0)
	ROR8(32)
	VZEROUPPER
	RET

// MUL24Y is mul24 of eight elements: the low 24 bits of each operand (Y15
// 0xFFFFFF), VPMULLD keeping the low 32 bits of the product.
#define MUL24Y(off) \
	LOADY(off, SI, X0, Y0) \
	LOADY(off, DX, X1, Y1) \
	VPAND Y15, Y0, Y0 \
	VPAND Y15, Y1, Y1 \
	VPMULLD Y1, Y0, Y0 \
	VMOVDQU Y0, off(DI)

// func mul24AVX2(d, a, b *vec)
TEXT ·mul24AVX2(SB), NOSPLIT, $0-24
	ARGS3
	SPLATY(0xFFFFFF, X15, Y15)
	MUL24Y(0)
	MUL24Y(32)
	VZEROUPPER
	RET

// The AVX-512 forms of fadd and fmul, which kFAddAVX2, kFSubAVX2 and
// kFMulAVX2 call where the CPU has AVX-512 (floatAVX512): all sixteen
// elements in one ZMM register, and the sum or product rounded toward
// zero by the instruction itself ({rz-sae}, EVEX embedded rounding: the
// rounding mode for that one instruction, MXCSR untouched, no exception
// flags; Intel SDM vol. 2, VADDPS and VMULPS, and vol. 1's "Static
// Rounding Support in EVEX"). That is ref_float.go's rounding of the exact
// result, with no error term to compute. The operands are flushed first
// (denormals and -0 to +0, masks from VPTESTMD), the results below the
// smallest normal are made +0 after, and the elements whose result is
// 0x7F7FFFFF or more in magnitude go back to the caller: Inf and NaN
// results, and the largest finite one, which rounding toward zero also
// gives for an exact result at or beyond 2^128 (Inf in ref_float.go). They
// use Z0-Z15 only, whose upper halves VZEROUPPER clears, and K1-K4.
// Measured on this project's machine (AMD EPYC, family 25), CPU time a
// job: glmark2 terrain 0.93 and function 0.97 of the AVX2 forms'.

// FADDZ is faddAVX512's body: d = a + (b ^ AX) for DI, SI and DX, AX
// holding the sign to flip on b; it leaves the elements for the Go path
// in AX, the stored result in Z2 (for faddNZAVX512's flags) and the upper
// halves dirty (the caller's VZEROUPPER). faddAVX512, faddNZAVX512 and
// the kFAdd/kFSub direct entries share it.
#define FADDZ \
	VPBROADCASTD AX, Z14 \
	FLOATZIN \
	VPXORD Z14, Z1, Z1 \
	VADDPS.RZ_SAE Z1, Z0, Z2 \
	FLOATZOUT

// FMULZ is fmulAVX512's body, as FADDZ without the sign: fmulAVX512 and
// kFMulAVX512Direct share it.
#define FMULZ \
	FLOATZIN \
	VMULPS.RZ_SAE Z1, Z0, Z2 \
	FLOATZOUT

// FLOATZIN loads a (SI) into Z0 and b (DX) into Z1 with denormals and -0
// flushed to +0, Z13-Z11 holding the exponent mask, the magnitude mask
// and the largest finite magnitude but one.
#define FLOATZIN \
	MOVL $0x7F800000, AX \
	VPBROADCASTD AX, Z13 \
	MOVL $0x7FFFFFFF, AX \
	VPBROADCASTD AX, Z12 \
	MOVL $0x7F7FFFFE, AX \
	VPBROADCASTD AX, Z11 \
	LOADZ(SI, X0, Z0) \
	LOADZ(DX, X1, Z1) \
	VPTESTMD Z13, Z0, K1 \
	VPTESTMD Z13, Z1, K2 \
	VMOVDQU32.Z Z0, K1, Z0 \
	VMOVDQU32.Z Z1, K2, Z1

// FLOATZOUT marks in AX the elements of the result Z2 for the Go path
// (magnitude 0x7F7FFFFF or more), flushes results below the smallest
// normal to +0 and stores Z2 to d (DI).
#define FLOATZOUT \
	FLOATZRES \
	VMOVDQU32 Z2, 0(DI)

// FLOATZRES is FLOATZOUT without the store: AX the elements for the Go
// path, Z2 the result flushed.
#define FLOATZRES \
	VPANDD Z12, Z2, Z3 \
	VPCMPGTD Z11, Z3, K3 \
	KMOVW K3, AX \
	VPTESTMD Z13, Z2, K4 \
	VMOVDQU32.Z Z2, K4, Z2

// func faddAVX512(d, a, b *vec, neg uint32) (slow uint32)
TEXT ·faddAVX512(SB), NOSPLIT, $0-36
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVL neg+24(FP), AX
	FADDZ
	VZEROUPPER
	MOVL AX, slow+32(FP)
	RET

// faddNZAVX512 is faddAVX512 that also returns the N and Z flags of the
// result it stores (ref_alu.go nzFlags: the sign bit, all bits zero), for
// a bound fadd.sf or fsub.sf (opFloatNZ): slow in bits 15:0, N in 31:16,
// Z in 47:32. The flags of a slow element are those of what was stored;
// the caller recomputes them after fixing it.

// func faddNZAVX512(d, a, b *vec, neg uint32) (r uint64)
TEXT ·faddNZAVX512(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVL neg+24(FP), AX
	FADDZ
	// N: 0 > the element as a signed integer; Z: no bit set.
	VPXORD Z5, Z5, Z5
	VPCMPGTD Z2, Z5, K5
	VPTESTNMD Z2, Z2, K6
	KMOVW K5, BX
	KMOVW K6, CX
	SHLQ $16, BX
	SHLQ $32, CX
	ORQ BX, AX
	ORQ CX, AX
	VZEROUPPER
	MOVQ AX, r+32(FP)
	RET

// func fmulAVX512(d, a, b *vec) (slow uint32)
TEXT ·fmulAVX512(SB), NOSPLIT, $0-28
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	FMULZ
	VZEROUPPER
	MOVL AX, slow+24(FP)
	RET

// The batch forms of faddAVX512 and fmulAVX512 (batch.go): n blocks,
// block j's operands at a[j] and b[j], its result to d[j]. A block with
// a lane for the Go path is not stored: its bit in slow says so, and the
// caller runs the block's kernel on it.

// func faddAVX512N(d, a, b *[MaxBatch]*vec, n int, neg uint32) (slow uint32)
TEXT ·faddAVX512N(SB), NOSPLIT, $0-44
	MOVQ d+0(FP), R8
	MOVQ a+8(FP), R9
	MOVQ b+16(FP), R10
	MOVQ n+24(FP), CX
	MOVL neg+32(FP), AX
	VPBROADCASTD AX, Z14
	MOVL $0x7F800000, AX
	VPBROADCASTD AX, Z13
	MOVL $0x7FFFFFFF, AX
	VPBROADCASTD AX, Z12
	MOVL $0x7F7FFFFE, AX
	VPBROADCASTD AX, Z11
	XORL BX, BX
	XORQ R11, R11
faddN_loop:
	CMPQ R11, CX
	JGE faddN_done
	MOVQ (R9)(R11*8), SI
	MOVQ (R10)(R11*8), DX
	MOVQ (R8)(R11*8), DI
	LOADZ(SI, X0, Z0)
	LOADZ(DX, X1, Z1)
	VPTESTMD Z13, Z0, K1
	VPTESTMD Z13, Z1, K2
	VMOVDQU32.Z Z0, K1, Z0
	VMOVDQU32.Z Z1, K2, Z1
	VPXORD Z14, Z1, Z1
	VADDPS.RZ_SAE Z1, Z0, Z2
	VPANDD Z12, Z2, Z3
	VPCMPGTD Z11, Z3, K3
	KMOVW K3, AX
	TESTL AX, AX
	JNZ faddN_slow
	VPTESTMD Z13, Z2, K4
	VMOVDQU32.Z Z2, K4, Z2
	VMOVDQU32 Z2, 0(DI)
	INCQ R11
	JMP faddN_loop
faddN_slow:
	BTSL R11, BX
	INCQ R11
	JMP faddN_loop
faddN_done:
	VZEROUPPER
	MOVL BX, slow+40(FP)
	RET

// func fmulAVX512N(d, a, b *[MaxBatch]*vec, n int) (slow uint32)
TEXT ·fmulAVX512N(SB), NOSPLIT, $0-36
	MOVQ d+0(FP), R8
	MOVQ a+8(FP), R9
	MOVQ b+16(FP), R10
	MOVQ n+24(FP), CX
	MOVL $0x7F800000, AX
	VPBROADCASTD AX, Z13
	MOVL $0x7FFFFFFF, AX
	VPBROADCASTD AX, Z12
	MOVL $0x7F7FFFFE, AX
	VPBROADCASTD AX, Z11
	XORL BX, BX
	XORQ R11, R11
fmulN_loop:
	CMPQ R11, CX
	JGE fmulN_done
	MOVQ (R9)(R11*8), SI
	MOVQ (R10)(R11*8), DX
	MOVQ (R8)(R11*8), DI
	LOADZ(SI, X0, Z0)
	LOADZ(DX, X1, Z1)
	VPTESTMD Z13, Z0, K1
	VPTESTMD Z13, Z1, K2
	VMOVDQU32.Z Z0, K1, Z0
	VMOVDQU32.Z Z1, K2, Z1
	VMULPS.RZ_SAE Z1, Z0, Z2
	VPANDD Z12, Z2, Z3
	VPCMPGTD Z11, Z3, K3
	KMOVW K3, AX
	TESTL AX, AX
	JNZ fmulN_slow
	VPTESTMD Z13, Z2, K4
	VMOVDQU32.Z Z2, K4, Z2
	VMOVDQU32 Z2, 0(DI)
	INCQ R11
	JMP fmulN_loop
fmulN_slow:
	BTSL R11, BX
	INCQ R11
	JMP fmulN_loop
fmulN_done:
	VZEROUPPER
	MOVL BX, slow+32(FP)
	RET

// The kernels fadd, fsub and fmul called as they are (kernel values),
// without a Go function between the step and the assembly: each is
// faddAVX2, fmulAVX2, faddAVX512 or fmulAVX512 for a destination apart
// from both operands, returning at once when no element needs the Go
// path. Otherwise, or when the destination is an operand, it jumps to
// the Go kernel (kFAddAVX2, kFSubAVX2, kFMulAVX2) with its arguments as
// they came: that kernel then computes the whole vector again, as it
// would have without this entry. The Go function between cost about 28
// instructions a call (callgrind, the cube's frame: five calls a block).

// KAPART loads d, a and b into DI, SI and DX, and goes to general when d
// is a or b.
#define KAPART \
	ARGS3 \
	CMPQ DI, SI \
	JEQ general \
	CMPQ DI, DX \
	JEQ general

// func kFAddAVX2Direct(d, a, b *vec)
TEXT ·kFAddAVX2Direct(SB), NOSPLIT, $0-24
	KAPART
	VPXOR Y14, Y14, Y14
	FADDY
	TESTL BX, BX
	JNE general
	RET
general:
	JMP ·kFAddAVX2(SB)

// func kFSubAVX2Direct(d, a, b *vec)
TEXT ·kFSubAVX2Direct(SB), NOSPLIT, $0-24
	KAPART
	SPLATY(0x80000000, X14, Y14)
	FADDY
	TESTL BX, BX
	JNE general
	RET
general:
	JMP ·kFSubAVX2(SB)

// func kFMulAVX2Direct(d, a, b *vec)
TEXT ·kFMulAVX2Direct(SB), NOSPLIT, $0-24
	KAPART
	FMULY
	TESTL BX, BX
	JNE general
	RET
general:
	JMP ·kFMulAVX2(SB)

// func kFAddAVX512Direct(d, a, b *vec)
TEXT ·kFAddAVX512Direct(SB), NOSPLIT, $0-24
	KAPART
	XORL AX, AX
	FADDZ
	VZEROUPPER
	TESTL AX, AX
	JNE general
	RET
general:
	JMP ·kFAddAVX2(SB)

// func kFSubAVX512Direct(d, a, b *vec)
TEXT ·kFSubAVX512Direct(SB), NOSPLIT, $0-24
	KAPART
	MOVL $0x80000000, AX
	FADDZ
	VZEROUPPER
	TESTL AX, AX
	JNE general
	RET
general:
	JMP ·kFSubAVX2(SB)

// func kFMulAVX512Direct(d, a, b *vec)
TEXT ·kFMulAVX512Direct(SB), NOSPLIT, $0-24
	KAPART
	FMULZ
	VZEROUPPER
	TESTL AX, AX
	JNE general
	RET
general:
	JMP ·kFMulAVX2(SB)

// CHAINOP is one step of chainAVX2 of the byte or bitwise kernels of one
// instruction: as BYTEOPY, from SI and DX into DI, then the next step.
#define CHAINOP(op) \
	LOADY(0, SI, X0, Y0) \
	LOADY(32, SI, X1, Y1) \
	LOADY(0, DX, X2, Y2) \
	LOADY(32, DX, X3, Y3) \
	op Y2, Y0, Y0 \
	op Y3, Y1, Y1 \
	VMOVDQU Y0, 0(DI) \
	VMOVDQU Y1, 32(DI) \
	ADDQ $32, R8 \
	JMP chainloop

// func chainAVX2(d, a, b *vec): d is the first of a list of chainSteps
// (chain.go: op, d, a, b at offsets 0, 8, 16, 24), each run as its
// kernel above would, in order, until an op of 0 (chainEnd). The op
// numbers are chain.go's chainV8Muld .. chainSub.
TEXT ·chainAVX2(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), R8
	VPXOR Y11, Y11, Y11
	SPLATY(0x007F007F, X12, Y12)
	SPLATY(0x00010001, X13, Y13)
chainloop:
	MOVQ 0(R8), AX
	MOVQ 8(R8), DI
	MOVQ 16(R8), SI
	MOVQ 24(R8), DX
	CMPQ AX, $1
	JEQ chainmuld
	CMPQ AX, $3
	JEQ chainsubs
	CMPQ AX, $5
	JEQ chainmax
	CMPQ AX, $2
	JEQ chainadds
	CMPQ AX, $4
	JEQ chainmin
	CMPQ AX, $6
	JEQ chainand
	CMPQ AX, $7
	JEQ chainor
	CMPQ AX, $8
	JEQ chainxor
	CMPQ AX, $9
	JEQ chainadd
	CMPQ AX, $10
	JEQ chainsub
	VZEROUPPER
	RET
chainmuld:
	V8MULD8(0)
	V8MULD8(32)
	ADDQ $32, R8
	JMP chainloop
chainsubs:
	CHAINOP(VPSUBUSB)
chainmax:
	CHAINOP(VPMAXUB)
chainadds:
	CHAINOP(VPADDUSB)
chainmin:
	CHAINOP(VPMINUB)
chainand:
	CHAINOP(VPAND)
chainor:
	CHAINOP(VPOR)
chainxor:
	CHAINOP(VPXOR)
chainadd:
	CHAINOP(VPADDD)
chainsub:
	CHAINOP(VPSUBD)

// varyAddMulAVX512 is an opVaryingFAddFMul's two kernels (varyings.go):
// the fadd of s's aA and bA into dA (and wA if not nil), then the fmul
// of aM and bM into dM (and wM), each as kFAddAVX512Direct and
// kFMulAVX512Direct compute it (FLOATZIN, the rounding toward zero,
// FLOATZRES). The fmul's operands are loaded after the sum is stored, as
// the kernels one after the other read them. An element for the Go path
// stops it before that kernel's stores: 1, nothing stored; 2, the fadd's
// stored, not the fmul's; 0, both done. The caller runs the kernels left.
// It uses Z0-Z3, Z11-Z13 and K1-K4, as the kernels.

// func varyAddMulAVX512(s *varyStep) (left uint32)
TEXT ·varyAddMulAVX512(SB), NOSPLIT, $0-12
	MOVQ s+0(FP), R8
	MOVQ 8(R8), SI
	MOVQ 16(R8), DX
	FLOATZIN
	VADDPS.RZ_SAE Z1, Z0, Z2
	FLOATZRES
	TESTL AX, AX
	JNE addleft
	MOVQ 0(R8), DI
	VMOVDQU32 Z2, 0(DI)
	MOVQ 24(R8), DI
	TESTQ DI, DI
	JEQ mul
	VMOVDQU32 Z2, 0(DI)
mul:
	MOVQ 40(R8), SI
	MOVQ 48(R8), DX
	FLOATZIN
	VMULPS.RZ_SAE Z1, Z0, Z2
	FLOATZRES
	TESTL AX, AX
	JNE mulleft
	MOVQ 32(R8), DI
	VMOVDQU32 Z2, 0(DI)
	MOVQ 56(R8), DI
	TESTQ DI, DI
	JEQ done
	VMOVDQU32 Z2, 0(DI)
done:
	VZEROUPPER
	MOVL $0, left+8(FP)
	RET
addleft:
	VZEROUPPER
	MOVL $1, left+8(FP)
	RET
mulleft:
	VZEROUPPER
	MOVL $2, left+8(FP)
	RET
