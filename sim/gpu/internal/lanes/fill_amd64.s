//go:build !purego

#include "textflag.h"

// func fillSSE2(d *[16]uint32, x uint32)
TEXT ·fillSSE2(SB), NOSPLIT, $0-12
	MOVQ d+0(FP), DI
	MOVL x+8(FP), AX
	MOVQ AX, X0
	PSHUFD $0, X0, X0
	MOVOU X0, 0(DI)
	MOVOU X0, 16(DI)
	MOVOU X0, 32(DI)
	MOVOU X0, 48(DI)
	RET
