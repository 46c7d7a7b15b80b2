//go:build !purego

#include "textflag.h"

// func Fill(d *[16]uint32, x uint32)
//
// Legacy SSE2 (every amd64 CPU has it): the caller is Go code, whose
// upper YMM halves are clean (every AVX function ends with VZEROUPPER).
TEXT ·Fill(SB), NOSPLIT, $0-12
	MOVQ d+0(FP), DI
	MOVL x+8(FP), AX
	MOVQ AX, X0
	PSHUFL $0, X0, X0
	MOVOU X0, 0(DI)
	MOVOU X0, 16(DI)
	MOVOU X0, 32(DI)
	MOVOU X0, 48(DI)
	RET
