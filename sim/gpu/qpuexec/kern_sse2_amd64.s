//go:build !purego

#include "textflag.h"

// SSE2 (every amd64 CPU) versions of the hot kernels, four elements per
// instruction. Each computes exactly the integer and float32/float64 steps
// of its Go counterpart in kern.go (same IEEE operations, same rounding
// mode: Go leaves MXCSR at round-to-nearest without flush-to-zero), so
// the results are the same bits; kern_test.go checks them against the
// general ALU code. See kern_amd64.go for the Go side.

// Four-element constants, built in registers:
//   X13 expMask 0x7F800000    X12 0x7FFFFFFF    X11 zero

// ARGS3 loads a kernel's arguments (d, a, b *vec) into DI, SI and DX.
#define ARGS3 \
	MOVQ d+0(FP), DI \
	MOVQ a+8(FP), SI \
	MOVQ b+16(FP), DX

#define SPLAT(val, reg) MOVL $val, AX; MOVQ AX, reg; PSHUFD $0, reg, reg

// FADD4 computes elements off/4 .. off/4+3 of kFAddGo (X14: the sign
// flipped on b, zero for fadd), and ORs into BX, at bit shift, the
// elements whose sum's exponent is sumBig's or more (ref_float.go: Inf, NaN
// and sums of 2^127 or more; the caller's faddSlow/fsubSlow). X10 holds
// sumBig - 1<<23.
#define FADD4(off, shift) \
	MOVOU off(SI), X0 \
	MOVOU off(DX), X1 \
	MOVO X0, X2 \
	PAND X13, X2 \
	PCMPEQL X11, X2 \
	PANDN X0, X2 \
	MOVO X1, X3 \
	PAND X13, X3 \
	PCMPEQL X11, X3 \
	PANDN X1, X3 \
	PXOR X14, X3 \
	MOVO X2, X4 \
	ADDPS X3, X4 \
	MOVO X4, X5 \
	PAND X13, X5 \
	PCMPGTL X10, X5 \
	MOVMSKPS X5, AX \
	SHLL $shift, AX \
	ORL AX, BX \
	MOVO X4, X6 \
	SUBPS X2, X6 \
	MOVO X4, X7 \
	SUBPS X6, X7 \
	MOVO X2, X8 \
	SUBPS X7, X8 \
	MOVO X3, X9 \
	SUBPS X6, X9 \
	ADDPS X9, X8 \
	MOVO X8, X9 \
	PXOR X4, X9 \
	PSRLL $31, X9 \
	PAND X12, X8 \
	PCMPEQL X11, X8 \
	PANDN X9, X8 \
	PSUBL X8, X4 \
	MOVO X4, X9 \
	PAND X13, X9 \
	PCMPEQL X11, X9 \
	PANDN X4, X9 \
	MOVOU X9, off(DI)

// func faddSSE2(d, a, b *vec, neg uint32) (slow uint32)
TEXT ·faddSSE2(SB), NOSPLIT, $0-36
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVL neg+24(FP), AX
	MOVQ AX, X14
	PSHUFD $0, X14, X14
	SPLAT(0x7F800000, X13)
	SPLAT(0x7FFFFFFF, X12)
	SPLAT(0x7E800000, X10)
	PXOR X11, X11
	XORL BX, BX
	FADD4(0, 0)
	FADD4(16, 4)
	FADD4(32, 8)
	FADD4(48, 12)
	MOVL BX, slow+32(FP)
	RET

// FMUL4 computes elements off/4 .. off/4+3 of kFMulGo and ORs into BX the
// elements with an Inf or NaN operand (the caller's fmulSlow). X10 holds
// the float64 truncation mask ^(1<<29 - 1), X9 0x7FF00000 (a float64's
// exponent in its high word), X8 896<<20.
#define FMUL4(off, shift) \
	MOVOU off(SI), X0 \
	MOVOU off(DX), X1 \
	MOVO X0, X2 \
	PAND X13, X2 \
	MOVO X2, X3 \
	PCMPEQL X13, X2 \
	PCMPEQL X11, X3 \
	PANDN X0, X3 \
	MOVO X1, X4 \
	PAND X13, X4 \
	MOVO X4, X5 \
	PCMPEQL X13, X4 \
	POR X4, X2 \
	MOVMSKPS X2, AX \
	SHLL $shift, AX \
	ORL AX, BX \
	PCMPEQL X11, X5 \
	PANDN X1, X5 \
	CVTPS2PD X3, X0 \
	CVTPS2PD X5, X1 \
	MULPD X1, X0 \
	MOVHLPS X3, X3 \
	MOVHLPS X5, X5 \
	CVTPS2PD X3, X2 \
	CVTPS2PD X5, X4 \
	MULPD X4, X2 \
	PSHUFD $0x0D, X0, X6 \
	PSHUFD $0x0D, X2, X7 \
	PUNPCKLQDQ X7, X6 \
	PAND X9, X6 \
	PCMPGTL X8, X6 \
	PAND X10, X0 \
	PAND X10, X2 \
	CVTPD2PS X0, X0 \
	CVTPD2PS X2, X2 \
	MOVLHPS X2, X0 \
	PAND X6, X0 \
	MOVOU X0, off(DI)

// func fmulSSE2(d, a, b *vec) (slow uint32)
TEXT ·fmulSSE2(SB), NOSPLIT, $0-28
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	SPLAT(0x7F800000, X13)
	PXOR X11, X11
	MOVQ $0xFFFFFFFFE0000000, AX
	MOVQ AX, X10
	PUNPCKLQDQ X10, X10
	SPLAT(0x7FF00000, X9)
	SPLAT(0x38000000, X8)
	XORL BX, BX
	FMUL4(0, 0)
	FMUL4(16, 4)
	FMUL4(32, 8)
	FMUL4(48, 12)
	MOVL BX, slow+24(FP)
	RET

// V8MULD4 is v8muld of 16 bytes: per byte (a·b + 127) / 255 as
// (t + 1 + t>>8) >> 8 with t = a·b + 127, in 16-bit lanes (t ≤ 65152 and
// the sum ≤ 65407 fit). X12 holds 127 per word, X13 1 per word.
#define V8MULD4(off) \
	MOVOU off(SI), X0 \
	MOVOU off(DX), X1 \
	MOVO X0, X2 \
	PUNPCKLBW X11, X2 \
	PUNPCKHBW X11, X0 \
	MOVO X1, X3 \
	PUNPCKLBW X11, X3 \
	PUNPCKHBW X11, X1 \
	PMULLW X3, X2 \
	PMULLW X1, X0 \
	PADDW X12, X2 \
	PADDW X12, X0 \
	MOVO X2, X4 \
	PSRLW $8, X4 \
	PADDW X13, X2 \
	PADDW X4, X2 \
	PSRLW $8, X2 \
	MOVO X0, X5 \
	PSRLW $8, X5 \
	PADDW X13, X0 \
	PADDW X5, X0 \
	PSRLW $8, X0 \
	PACKUSWB X0, X2 \
	MOVOU X2, off(DI)

// func v8muldSSE2(d, a, b *vec)
TEXT ·v8muldSSE2(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	PXOR X11, X11
	SPLAT(0x007F007F, X12)
	SPLAT(0x00010001, X13)
	V8MULD4(0)
	V8MULD4(16)
	V8MULD4(32)
	V8MULD4(48)
	RET

// BYTEOP is one SSE2 instruction on all 64 bytes.
#define BYTEOP(op) \
	MOVQ d+0(FP), DI \
	MOVQ a+8(FP), SI \
	MOVQ b+16(FP), DX \
	MOVOU 0(SI), X0 \
	MOVOU 16(SI), X1 \
	MOVOU 32(SI), X2 \
	MOVOU 48(SI), X3 \
	MOVOU 0(DX), X4 \
	MOVOU 16(DX), X5 \
	MOVOU 32(DX), X6 \
	MOVOU 48(DX), X7 \
	op X4, X0 \
	op X5, X1 \
	op X6, X2 \
	op X7, X3 \
	MOVOU X0, 0(DI) \
	MOVOU X1, 16(DI) \
	MOVOU X2, 32(DI) \
	MOVOU X3, 48(DI) \
	RET

// func v8addsSSE2(d, a, b *vec): per byte min(a + b, 255)
TEXT ·v8addsSSE2(SB), NOSPLIT, $0-24
	BYTEOP(PADDUSB)

// func v8subsSSE2(d, a, b *vec): per byte max(a - b, 0)
TEXT ·v8subsSSE2(SB), NOSPLIT, $0-24
	BYTEOP(PSUBUSB)

// func v8minSSE2(d, a, b *vec)
TEXT ·v8minSSE2(SB), NOSPLIT, $0-24
	BYTEOP(PMINUB)

// func v8maxSSE2(d, a, b *vec)
TEXT ·v8maxSSE2(SB), NOSPLIT, $0-24
	BYTEOP(PMAXUB)

// func andSSE2(d, a, b *vec)
TEXT ·andSSE2(SB), NOSPLIT, $0-24
	BYTEOP(PAND)

// func orSSE2(d, a, b *vec)
TEXT ·orSSE2(SB), NOSPLIT, $0-24
	BYTEOP(POR)

// func xorSSE2(d, a, b *vec)
TEXT ·xorSSE2(SB), NOSPLIT, $0-24
	BYTEOP(PXOR)

// func notSSE2(d, a, b *vec): d = ^a, b unused (AG Table 12 "not"), as
// an XOR with all ones.
TEXT ·notSSE2(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVOU 0(SI), X0
	MOVOU 16(SI), X1
	MOVOU 32(SI), X2
	MOVOU 48(SI), X3
	PCMPEQL X4, X4
	PXOR X4, X0
	PXOR X4, X1
	PXOR X4, X2
	PXOR X4, X3
	MOVOU X0, 0(DI)
	MOVOU X1, 16(DI)
	MOVOU X2, 32(DI)
	MOVOU X3, 48(DI)
	RET

// func addSSE2(d, a, b *vec)
TEXT ·addSSE2(SB), NOSPLIT, $0-24
	BYTEOP(PADDL)

// func subSSE2(d, a, b *vec)
TEXT ·subSSE2(SB), NOSPLIT, $0-24
	BYTEOP(PSUBL)

// COLOUR4 is colourPackGo's colour byte of elements off/4 .. off/4+3,
// placed as X7 (shift count) and X6 (8888: all four bytes) say: the
// float64 product f·255 is exact, rounding half away from zero is
// trunc(f·255 + ½) for it, MINPD with 255 saturates (and returns 255 for a
// NaN product, the Inf the pattern stands for), and a set sign bit gives
// 0. X13 holds 255.0, X12 0.5 (two float64s each).
#define COLOUR4(off) \
	MOVOU off(SI), X0 \
	MOVO X0, X5 \
	PSRAL $31, X5 \
	CVTPS2PD X0, X1 \
	MOVHLPS X0, X0 \
	CVTPS2PD X0, X2 \
	MULPD X13, X1 \
	MULPD X13, X2 \
	ADDPD X12, X1 \
	ADDPD X12, X2 \
	MINPD X13, X1 \
	MINPD X13, X2 \
	CVTTPD2PL X1, X1 \
	CVTTPD2PL X2, X2 \
	PUNPCKLQDQ X2, X1 \
	PANDN X1, X5 \
	MOVO X5, X3 \
	PSLLL $8, X3 \
	MOVO X5, X4 \
	PSLLL $16, X4 \
	POR X4, X3 \
	PSLLL $8, X4 \
	POR X4, X3 \
	PAND X6, X3 \
	POR X3, X5 \
	PSLLL X7, X5 \
	MOVOU X5, off(DI) \
	MOVOU off(R8), X9 \
	MOVO X11, X10 \
	PANDN X9, X10 \
	POR X5, X10 \
	MOVOU X10, off(R8)

// colourSSE2 stores the packed words in packed (the general code's
// q.packed) and writes them into d in the pack's bits, mask: d = d&^mask |
// packed (the packed word has no other bits set), mergeLanes' result for
// every element.
//
// func colourSSE2(packed, r *vec, shift uint64, rep uint32, d *vec, mask uint32)
TEXT ·colourSSE2(SB), NOSPLIT, $0-44
	MOVQ packed+0(FP), DI
	MOVQ r+8(FP), SI
	MOVQ shift+16(FP), X7
	MOVL rep+24(FP), AX
	MOVQ AX, X6
	PSHUFD $0, X6, X6
	MOVQ d+32(FP), R8
	MOVL mask+40(FP), AX
	MOVQ AX, X11
	PSHUFD $0, X11, X11
	MOVQ $0x406FE00000000000, AX
	MOVQ AX, X13
	MOVLHPS X13, X13
	MOVQ $0x3FE0000000000000, AX
	MOVQ AX, X12
	MOVLHPS X12, X12
	COLOUR4(0)
	COLOUR4(16)
	COLOUR4(32)
	COLOUR4(48)
	RET

// The compare-and-select kernels (kFMinGo and friends): X3 = all ones in
// the elements where the first operand's key is greater, then the result
// is keep ^ ((x ^ y) & X3), keep being x (X4) for the min forms and y (X5)
// for the max forms. X12 holds 0x7FFFFFFF.

// FLOATKEY4 turns the float bit pattern in reg into floatOrder's int32:
// the magnitude, negated (two's complement) when the sign is set. X2 is
// scratch.
#define FLOATKEY4(reg) \
	MOVO reg, X2 \
	PSRAL $31, X2 \
	PAND X12, reg \
	PXOR X2, reg \
	PSUBL X2, reg

// SELECT4 stores keep ^ ((X4 ^ X5) & X3) at off(DI).
#define SELECT4(off, keep) \
	MOVO X4, X0 \
	PXOR X5, X0 \
	PAND X3, X0 \
	PXOR keep, X0 \
	MOVOU X0, off(DI)

// FMINMAX4 is fmin (keep X4, a) or fmax (keep X5, b) of elements off/4 ..
// off/4+3.
#define FMINMAX4(off, keep) \
	MOVOU off(SI), X4 \
	MOVOU off(DX), X5 \
	MOVO X4, X3 \
	MOVO X5, X6 \
	FLOATKEY4(X3) \
	FLOATKEY4(X6) \
	PCMPGTL X6, X3 \
	SELECT4(off, keep)

// ABSMINMAX4 is fminabs or fmaxabs: the compare and the result on the
// magnitudes (X4, X5).
#define ABSMINMAX4(off, keep) \
	MOVOU off(SI), X4 \
	MOVOU off(DX), X5 \
	PAND X12, X4 \
	PAND X12, X5 \
	MOVO X4, X3 \
	PCMPGTL X5, X3 \
	SELECT4(off, keep)

// INTMINMAX4 is min or max, signed.
#define INTMINMAX4(off, keep) \
	MOVOU off(SI), X4 \
	MOVOU off(DX), X5 \
	MOVO X4, X3 \
	PCMPGTL X5, X3 \
	SELECT4(off, keep)

// func fminSSE2(d, a, b *vec)
TEXT ·fminSSE2(SB), NOSPLIT, $0-24
	ARGS3
	SPLAT(0x7FFFFFFF, X12)
	FMINMAX4(0, X4)
	FMINMAX4(16, X4)
	FMINMAX4(32, X4)
	FMINMAX4(48, X4)
	RET

// func fmaxSSE2(d, a, b *vec)
TEXT ·fmaxSSE2(SB), NOSPLIT, $0-24
	ARGS3
	SPLAT(0x7FFFFFFF, X12)
	FMINMAX4(0, X5)
	FMINMAX4(16, X5)
	FMINMAX4(32, X5)
	FMINMAX4(48, X5)
	RET

// func fminabsSSE2(d, a, b *vec)
TEXT ·fminabsSSE2(SB), NOSPLIT, $0-24
	ARGS3
	SPLAT(0x7FFFFFFF, X12)
	ABSMINMAX4(0, X4)
	ABSMINMAX4(16, X4)
	ABSMINMAX4(32, X4)
	ABSMINMAX4(48, X4)
	RET

// func fmaxabsSSE2(d, a, b *vec)
TEXT ·fmaxabsSSE2(SB), NOSPLIT, $0-24
	ARGS3
	SPLAT(0x7FFFFFFF, X12)
	ABSMINMAX4(0, X5)
	ABSMINMAX4(16, X5)
	ABSMINMAX4(32, X5)
	ABSMINMAX4(48, X5)
	RET

// func minSSE2(d, a, b *vec)
TEXT ·minSSE2(SB), NOSPLIT, $0-24
	ARGS3
	INTMINMAX4(0, X4)
	INTMINMAX4(16, X4)
	INTMINMAX4(32, X4)
	INTMINMAX4(48, X4)
	RET

// func maxSSE2(d, a, b *vec)
TEXT ·maxSSE2(SB), NOSPLIT, $0-24
	ARGS3
	INTMINMAX4(0, X5)
	INTMINMAX4(16, X5)
	INTMINMAX4(32, X5)
	INTMINMAX4(48, X5)
	RET

// FTOI4 converts elements off/4 .. off/4+3 of a into x, as kFToIGo
// does those below 2^31 in magnitude: CVTTPS2PL truncates toward zero
// (denormals and ±0 give 0) and gives 0x80000000 for NaN, Inf and every
// magnitude of 2^31 or more, -2^31 itself included, and for no other
// input. It ORs into X4 the elements that are 0x80000000 (X12).
#define FTOI4(off, x, t) \
	MOVOU off(SI), x \
	CVTTPS2PL x, x \
	MOVO x, t \
	PCMPEQL X12, t \
	POR t, X4

// func ftoiSSE2(d, a, b *vec) (wide uint32)
//
// ftoiSSE2 stores kFToIGo of a in d and returns 0, or, where an element
// of a has a magnitude of 2^31 or more (NaN and Inf included), leaves d
// as it was and returns nonzero: the caller then converts with kFToIGo.
TEXT ·ftoiSSE2(SB), NOSPLIT, $0-28
	ARGS3
	SPLAT(0x80000000, X12)
	PXOR X4, X4
	FTOI4(0, X0, X5)
	FTOI4(16, X1, X6)
	FTOI4(32, X2, X7)
	FTOI4(48, X3, X8)
	PMOVMSKB X4, AX
	TESTL AX, AX
	JNZ wide
	MOVOU X0, 0(DI)
	MOVOU X1, 16(DI)
	MOVOU X2, 32(DI)
	MOVOU X3, 48(DI)
wide:
	MOVL AX, wide+24(FP)
	RET

// CVT4 converts the four int32s in X0 to float64s in X1 (elements 0, 1)
// and X2 (2, 3).
#define CVT4 \
	CVTPL2PD X0, X1 \
	PSHUFD $0x0E, X0, X0 \
	CVTPL2PD X0, X2

// TRUNC4 clears the 29 mantissa bits a float32 lacks in X1 and X2 (X10
// holds the mask), which truncates them toward zero, converts the exact
// results to float32 and stores the four at off(DI): kIToFGo's last steps
// and colourToFloatGo's.
#define TRUNC4(off) \
	PAND X10, X1 \
	PAND X10, X2 \
	CVTPD2PS X1, X1 \
	CVTPD2PS X2, X2 \
	MOVLHPS X2, X1 \
	MOVOU X1, off(DI)

#define ITOF4(off) \
	MOVOU off(SI), X0 \
	CVT4 \
	TRUNC4(off)

#define TRUNCMASK(reg) MOVQ $0xFFFFFFFFE0000000, AX; MOVQ AX, reg; PUNPCKLQDQ reg, reg

// func itofSSE2(d, a, b *vec)
TEXT ·itofSSE2(SB), NOSPLIT, $0-24
	ARGS3
	TRUNCMASK(X10)
	ITOF4(0)
	ITOF4(16)
	ITOF4(32)
	ITOF4(48)
	RET

// COLOURF4 is colourToFloatGo of four elements: the byte at shift X7
// (X12 0xFF per element) times 1/255 as a float64 (X13), truncated to a
// float32. The product is the float64 nearest the quotient b/255 that
// colourToFloat rounds, for every byte (TestColourToFloatKernels checks
// all 256 at all four shifts), and truncation is rtz32 for these normal
// values.
#define COLOURF4(off) \
	MOVOU off(SI), X0 \
	PSRLL X7, X0 \
	PAND X12, X0 \
	CVT4 \
	MULPD X13, X1 \
	MULPD X13, X2 \
	TRUNC4(off)

// func colourToFloatSSE2(d, a *vec, shift uint)
TEXT ·colourToFloatSSE2(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ shift+16(FP), X7
	SPLAT(0xFF, X12)
	TRUNCMASK(X10)
	MOVQ $0x3F70101010101010, AX
	MOVQ AX, X13
	PUNPCKLQDQ X13, X13
	COLOURF4(0)
	COLOURF4(16)
	COLOURF4(32)
	COLOURF4(48)
	RET
