//go:build !purego

#include "textflag.h"

// sfuRecipAVX512 is sfuVec's recip (sqrt = 0) or rsqrt (sqrt = 1) of
// all 16 elements of s into d (ref_sfu.go; sfu_amd64.go says why it is
// the same, bit for bit). Each half of the vector goes to float64 (eight
// lanes), through VSQRTPD and VDIVPD, which round to nearest as Go's
// float64 arithmetic does, and round13's steps on the bits as 64-bit
// integers; operands that are not normal floats take recipSpecial's
// values instead.

// func sfuRecipAVX512(d, s *vec, sqrt uint32)
TEXT ·sfuRecipAVX512(SB), NOSPLIT, $0-20
	MOVQ d+0(FP), DI
	MOVQ s+8(FP), SI
	MOVL sqrt+16(FP), CX
	VMOVDQU32 0(SI), Z0
	MOVL $0x7F800000, AX
	VPBROADCASTD AX, Z13 // the exponent field; +Inf
	MOVL $0x00800000, AX
	VPBROADCASTD AX, Z11
	MOVL $0x7F000000, AX
	VPBROADCASTD AX, Z10
	// K1: the normal operands, (x & exp) - 1<<23 < 0x7F000000 unsigned
	// (normal).
	VPANDD Z13, Z0, Z1
	VPSUBD Z11, Z1, Z1
	VPCMPUD $1, Z10, Z1, K1
	// Z9: recipSpecial, +Inf where the exponent field is 0, else +0.
	VPTESTNMD Z13, Z0, K2
	VMOVDQU32.Z Z13, K2, Z9
	TESTL CX, CX
	JZ halves
	// rsqrt takes |x|.
	MOVL $0x7FFFFFFF, AX
	VPBROADCASTD AX, Z12
	VPANDD Z12, Z0, Z0
halves:
	VEXTRACTI64X4 $1, Z0, Y2
	VCVTPS2PD Y0, Z1
	VCVTPS2PD Y2, Z2
	TESTL CX, CX
	JZ divide
	VSQRTPD Z1, Z1
	VSQRTPD Z2, Z2
divide:
	MOVQ $0x3FF0000000000000, AX // 1.0
	VPBROADCASTQ AX, Z8
	VDIVPD Z1, Z8, Z1
	VDIVPD Z2, Z8, Z2
	// round13: the float32 sign (the float64's, moved down 32 bits) ...
	MOVQ $0x80000000, AX
	VPBROADCASTQ AX, Z7
	VPSRLQ $32, Z1, Z3
	VPSRLQ $32, Z2, Z4
	VPANDQ Z7, Z3, Z3
	VPANDQ Z7, Z4, Z4
	// ... the magnitude plus half a unit of the 13th mantissa bit ...
	MOVQ $0x7FFFFFFFFFFFFFFF, AX
	VPBROADCASTQ AX, Z7
	VPANDQ Z7, Z1, Z1
	VPANDQ Z7, Z2, Z2
	MOVQ $0x4000000000, AX // 1 << 38
	VPBROADCASTQ AX, Z7
	VPADDQ Z7, Z1, Z1
	VPADDQ Z7, Z2, Z2
	// ... K3, K4: not below 2^-126 (below: +0) ...
	MOVQ $0x3810000000000000, AX // (1023-126) << 52
	VPBROADCASTQ AX, Z7
	VPCMPUQ $5, Z7, Z1, K3
	VPCMPUQ $5, Z7, Z2, K4
	// ... rebiased, shifted to float32's place, the bits below the 13th
	// cleared, the sign put in. (No result reaches 2^128: a normal
	// operand's reciprocal is below 2^126, its rsqrt's below 2^64.)
	MOVQ $0x3800000000000000, AX // (1023-127) << 52
	VPBROADCASTQ AX, Z7
	VPSUBQ Z7, Z1, Z1
	VPSUBQ Z7, Z2, Z2
	VPSRLQ $29, Z1, Z1
	VPSRLQ $29, Z2, Z2
	MOVQ $0xFFFFFC00, AX
	VPBROADCASTQ AX, Z7
	VPANDQ Z7, Z1, Z1
	VPANDQ Z7, Z2, Z2
	VPORQ Z3, Z1, Z1
	VPORQ Z4, Z2, Z2
	VMOVDQU64.Z Z1, K3, Z1
	VMOVDQU64.Z Z2, K4, Z2
	VPMOVQD Z1, Y1
	VPMOVQD Z2, Y2
	VINSERTI64X4 $1, Y2, Z1, Z1
	// The normal operands' results over the specials.
	VMOVDQU32 Z1, K1, Z9
	VMOVDQU32 Z9, 0(DI)
	VZEROUPPER
	RET
