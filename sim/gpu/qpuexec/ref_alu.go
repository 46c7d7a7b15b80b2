package qpuexec

import (
	"math/bits"
	"unsafe"

	"github.com/vccube/vccube/shaders/qpu"
)

// vec is one 16-element SIMD vector.
type vec = [16]uint32

// addALU computes op_add (AG Table 12) on every element: d[i] = a[i] op
// b[i]. Semantics of the float ops in ref_float.go; the integer ops, measured
// against the hardware tables (doe300/VC4C test/opcode_test.h), are:
// add/sub wrap; shr, asr, ror and shl shift by b & 31; min and max compare
// signed; clz(0) = 32; v8adds/v8subs saturate each byte to 0..255. The
// reserved opcodes are refused when the program is loaded.
func addALU(op qpu.AddOp, d, a, b *vec) {
	switch op {
	case qpu.AddFAdd:
		// sumRTZ per element (ref_float.go; its scalar form is in
		// kern_scalar_test.go): one loop, kern.go's, for both paths.
		kFAddGo(d, a, b)
	case qpu.AddFSub:
		kFSubGo(d, a, b)
	case qpu.AddFMin:
		for i := range d {
			if floatKey(a[i]) <= floatKey(b[i]) {
				d[i] = a[i]
			} else {
				d[i] = b[i]
			}
		}
	case qpu.AddFMax:
		for i := range d {
			if floatKey(a[i]) > floatKey(b[i]) {
				d[i] = a[i]
			} else {
				d[i] = b[i]
			}
		}
	case qpu.AddFMinAbs:
		for i := range d {
			x, y := a[i]&^signBit, b[i]&^signBit
			if x <= y {
				d[i] = x
			} else {
				d[i] = y
			}
		}
	case qpu.AddFMaxAbs:
		for i := range d {
			x, y := a[i]&^signBit, b[i]&^signBit
			if x > y {
				d[i] = x
			} else {
				d[i] = y
			}
		}
	case qpu.AddFToI:
		for i := range d {
			d[i] = ftoi(a[i])
		}
	case qpu.AddIToF:
		for i := range d {
			d[i] = itof(a[i])
		}
	case qpu.AddAdd:
		for i := range d {
			d[i] = a[i] + b[i]
		}
	case qpu.AddSub:
		for i := range d {
			d[i] = a[i] - b[i]
		}
	case qpu.AddShr:
		for i := range d {
			d[i] = a[i] >> (b[i] & 31)
		}
	case qpu.AddAsr:
		for i := range d {
			d[i] = uint32(int32(a[i]) >> (b[i] & 31))
		}
	case qpu.AddRor:
		for i := range d {
			d[i] = bits.RotateLeft32(a[i], -int(b[i]&31))
		}
	case qpu.AddShl:
		for i := range d {
			d[i] = a[i] << (b[i] & 31)
		}
	case qpu.AddMin:
		for i := range d {
			if int32(a[i]) <= int32(b[i]) {
				d[i] = a[i]
			} else {
				d[i] = b[i]
			}
		}
	case qpu.AddMax:
		for i := range d {
			if int32(a[i]) > int32(b[i]) {
				d[i] = a[i]
			} else {
				d[i] = b[i]
			}
		}
	case qpu.AddAnd:
		d2, a2, b2 := pairs(d), pairs(a), pairs(b)
		for i := range d2 {
			d2[i] = a2[i] & b2[i]
		}
	case qpu.AddOr:
		d2, a2, b2 := pairs(d), pairs(a), pairs(b)
		for i := range d2 {
			d2[i] = a2[i] | b2[i]
		}
	case qpu.AddXor:
		d2, a2, b2 := pairs(d), pairs(a), pairs(b)
		for i := range d2 {
			d2[i] = a2[i] ^ b2[i]
		}
	case qpu.AddNot:
		d2, a2 := pairs(d), pairs(a)
		for i := range d2 {
			d2[i] = ^a2[i]
		}
	case qpu.AddClz:
		for i := range d {
			d[i] = uint32(bits.LeadingZeros32(a[i]))
		}
	case qpu.AddV8Adds:
		d2, a2, b2 := pairs(d), pairs(a), pairs(b)
		for i := range d2 {
			d2[i] = v8adds64(a2[i], b2[i])
		}
	case qpu.AddV8Subs:
		d2, a2, b2 := pairs(d), pairs(a), pairs(b)
		for i := range d2 {
			d2[i] = v8subs64(a2[i], b2[i])
		}
	}
}

// mulALU computes op_mul (AG Table 13) on every element. mul24 multiplies
// the low 24 bits of each operand and keeps the low 32 bits of the product;
// v8muld multiplies each byte pair as colours in [0, 1] and rounds:
// (a*b + 127) / 255 (doe300/VC4C OpCodes.cpp; matches every row of the
// hardware table, and equals round(a*b/255) since a*b/255 is never a tie).
func mulALU(op qpu.MulOp, d, a, b *vec) {
	switch op {
	case qpu.MulFMul:
		// mulRTZ per element (ref_float.go; its scalar form is in
		// kern_scalar_test.go): kern.go's loop, for both paths.
		kFMulGo(d, a, b)
	case qpu.MulMul24:
		for i := range d {
			d[i] = (a[i] & 0xFFFFFF) * (b[i] & 0xFFFFFF)
		}
	case qpu.MulV8Muld:
		d2, a2, b2 := pairs(d), pairs(a), pairs(b)
		for i := range d2 {
			// A second operand that is one byte in all eight positions
			// (a uniform such as the cube's light constants) takes the
			// multiply-per-four-bytes path; others go byte by byte.
			if k := b2[i] & 0xFF; b2[i] == k*0x0101010101010101 {
				d2[i] = v8muldByte64(a2[i], k)
				continue
			}
			d[2*i] = v8muld(a[2*i], b[2*i])
			d[2*i+1] = v8muld(a[2*i+1], b[2*i+1])
		}
	case qpu.MulV8Min:
		d2, a2, b2 := pairs(d), pairs(a), pairs(b)
		for i := range d2 {
			d2[i] = v8min64(a2[i], b2[i])
		}
	case qpu.MulV8Max:
		d2, a2, b2 := pairs(d), pairs(a), pairs(b)
		for i := range d2 {
			d2[i] = v8max64(a2[i], b2[i])
		}
	case qpu.MulV8Adds:
		d2, a2, b2 := pairs(d), pairs(a), pairs(b)
		for i := range d2 {
			d2[i] = v8adds64(a2[i], b2[i])
		}
	case qpu.MulV8Subs:
		d2, a2, b2 := pairs(d), pairs(a), pairs(b)
		for i := range d2 {
			d2[i] = v8subs64(a2[i], b2[i])
		}
	}
}

// The per-byte ops work on the bytes of a uint64 at once (SWAR): two
// elements per word in the vector loops (pairs), one element with the top
// half zero for the scalar forms. Bytes never interact, so which element
// lands in which half (host byte order) does not matter. h selects each
// byte's top bit, l the other seven.
const (
	h8 = 0x8080808080808080
	l8 = 0x7F7F7F7F7F7F7F7F
)

// pairs views a vector as eight words of two elements each, for the ops
// that act on each byte (or bit) on its own.
func pairs(v *vec) *[8]uint64 { return (*[8]uint64)(unsafe.Pointer(v)) }

// sum8 returns the per-byte sums a+b mod 256 and the bytes that carried out.
func sum8(a, b uint64) (s, carry uint64) {
	s = (a&l8 + b&l8) ^ (a^b)&h8
	carry = (a&b | (a|b)&^s) & h8 // carry out of each byte's bit 7
	return s, carry
}

// diff8 returns the per-byte differences a-b mod 256 and the bytes that
// borrowed (a < b).
func diff8(a, b uint64) (d, borrow uint64) {
	d = ((a | h8) - b&l8) ^ (a^^b)&h8
	borrow = (^a&b | ^(a^b)&d) & h8 // borrow out of each byte's bit 7
	return d, borrow
}

// byteMask widens each byte's top bit to the whole byte.
func byteMask(top uint64) uint64 { return top >> 7 * 0xFF }

func v8adds64(a, b uint64) uint64 {
	s, c := sum8(a, b)
	return s | byteMask(c)
}

func v8subs64(a, b uint64) uint64 {
	d, br := diff8(a, b)
	return d &^ byteMask(br)
}

// v8min64 is a − (a ∸ b) per byte and v8max64 b + (a ∸ b), with ∸ the
// saturating difference: neither can carry or borrow out of a byte.
func v8min64(a, b uint64) uint64 { return a - v8subs64(a, b) }
func v8max64(a, b uint64) uint64 { return b + v8subs64(a, b) }

// v8muld computes (a_i*b_i + 127)/255 per byte. t/255 = (t + 1 + (t>>8))>>8
// for every t up to 65152 (checked exhaustively in ref_alu_test.go), which spares
// the division. When b is one byte replicated (the cube's light constants
// are), the products fit the 16-bit lanes of 64-bit multiplies.
func v8muld(a, b uint32) uint32 {
	if k := b & 0xFF; b == k*0x01010101 {
		return uint32(v8muldByte64(uint64(a), uint64(k)))
	}
	var r uint32
	for sh := uint(0); sh < 32; sh += 8 {
		t := a>>sh&0xFF*(b>>sh&0xFF) + 127
		r |= (t + 1 + t>>8) >> 8 << sh
	}
	return r
}

// v8muldByte64 is v8muld of each byte of a by the byte k: the even bytes
// go to the four 16-bit lanes of one word, the odd bytes to those of
// another, and one multiply serves each four; every lane stays below
// 65536, so nothing carries between lanes.
func v8muldByte64(a, k uint64) uint64 {
	const m = 0x00FF00FF00FF00FF
	const r = 0x007F007F007F007F // + 127
	const one = 0x0001000100010001
	lo := (a&m)*k + r
	hi := (a>>8&m)*k + r
	lo = (lo + one + lo>>8&m) >> 8 & m
	hi = (hi + one + hi>>8&m) >> 8 & m
	return lo | hi<<8
}

// addCarry returns the C flags of an add-ALU result, one bit per element,
// as measured on hardware (every row of VC4C's opcode_test.h):
// fadd, fsub, itof: result > 0; fmin, fmax (and the abs forms on the
// magnitudes): a > b; add: unsigned carry out of bit 31; sub: unsigned
// borrow (a < b); shr, asr: the last bit shifted out; shl: bit 32 of the
// unshifted product; min, max: a > b signed; the others clear C. (The
// guide leaves sub's carry undefined; VC4C's measured table settles it,
// doc/hardware.md#machine.)
func addCarry(op qpu.AddOp, a, b, r *vec) (c uint16) {
	for i := range r {
		var set bool
		switch op {
		case qpu.AddFAdd, qpu.AddFSub, qpu.AddIToF:
			set = r[i] != 0 && r[i]&signBit == 0
		case qpu.AddFMin, qpu.AddFMax:
			set = floatKey(a[i]) > floatKey(b[i])
		case qpu.AddFMinAbs, qpu.AddFMaxAbs:
			set = a[i]&^signBit > b[i]&^signBit
		case qpu.AddAdd:
			set = r[i] < a[i]
		case qpu.AddSub:
			set = a[i] < b[i]
		case qpu.AddShr, qpu.AddAsr:
			s := b[i] & 31
			set = s != 0 && a[i]>>(s-1)&1 != 0
		case qpu.AddShl:
			s := b[i] & 31
			set = s != 0 && a[i]>>(32-s)&1 != 0
		case qpu.AddMin, qpu.AddMax:
			set = int32(a[i]) > int32(b[i])
		}
		if set {
			c |= 1 << i
		}
	}
	return c
}

// carryFunc computes the C flags of one ALU's result from its operands a
// and b and its result r, one bit per element (addCarry, mulCarry).
type carryFunc func(a, b, r *vec) uint16

// addCarryFunc returns addCarry for op with the choice of rule made once:
// a loop with no switch per element, or one SSE2 compare on amd64
// (kern_flags_amd64.go), for the ops compiled programs set flags with.
// TestCarryFuncs holds each to addCarry.
func addCarryFunc(op qpu.AddOp) carryFunc {
	switch addCarryKind(op) {
	case carryKPositive:
		return carryPositive
	case carryKAdd:
		return carryAddVec
	case carryKSub:
		return carrySubVec
	case carryKSigned:
		return carrySignedGreaterVec
	case carryKOther:
		return func(a, b, r *vec) uint16 { return addCarry(op, a, b, r) }
	}
	return carryNone
}

// The add ALU's C rules as addCarryFunc tells them apart.
const (
	carryKNone     = iota // C is 0
	carryKPositive        // the result is > 0 as a float (carryPositive)
	carryKAdd             // carryAddVec
	carryKSub             // carrySubVec
	carryKSigned          // carrySignedGreaterVec
	carryKOther           // addCarry itself
)

// addCarryKind returns the C rule of add op (addCarry).
func addCarryKind(op qpu.AddOp) uint8 {
	switch op {
	case qpu.AddFAdd, qpu.AddFSub, qpu.AddIToF:
		return carryKPositive
	case qpu.AddAdd:
		return carryKAdd
	case qpu.AddSub:
		return carryKSub
	case qpu.AddMin, qpu.AddMax:
		return carryKSigned
	case qpu.AddFMin, qpu.AddFMax, qpu.AddFMinAbs, qpu.AddFMaxAbs,
		qpu.AddShr, qpu.AddAsr, qpu.AddShl:
		return carryKOther
	}
	return carryKNone
}

// mulCarryFunc returns mulCarry for op.
func mulCarryFunc(op qpu.MulOp) carryFunc {
	if op == qpu.MulMul24 {
		return func(a, b, _ *vec) uint16 { return mulCarry(op, a, b) }
	}
	return carryNone
}

func carryNone(_, _, _ *vec) uint16 { return 0 }

// carryPositive: r > 0 as a float (fadd, fsub, itof).
func carryPositive(_, _, r *vec) (c uint16) {
	for i, x := range r {
		if x != 0 && x&signBit == 0 {
			c |= 1 << i
		}
	}
	return c
}

// carryAdd: the unsigned carry out of bit 31.
func carryAdd(a, _, r *vec) (c uint16) {
	for i := range r {
		if r[i] < a[i] {
			c |= 1 << i
		}
	}
	return c
}

// carrySub: the unsigned borrow.
func carrySub(a, b, _ *vec) (c uint16) {
	for i := range a {
		if a[i] < b[i] {
			c |= 1 << i
		}
	}
	return c
}

// carrySignedGreater: a > b as signed integers (min, max).
func carrySignedGreater(a, b, _ *vec) (c uint16) {
	for i := range a {
		if int32(a[i]) > int32(b[i]) {
			c |= 1 << i
		}
	}
	return c
}

// mulCarry returns the C flags of a mul-ALU result (when the add ALU is
// idle, AG Table 1). The hardware tables record the add ALU's flags for mul
// ops, so they say nothing here; we follow VC4C OpCodes.cpp: mul24 sets C
// when the 48-bit product does not fit 32 bits, the others clear it.
func mulCarry(op qpu.MulOp, a, b *vec) (c uint16) {
	if op != qpu.MulMul24 {
		return 0
	}
	for i := range a {
		if uint64(a[i]&0xFFFFFF)*uint64(b[i]&0xFFFFFF) > 0xFFFFFFFF {
			c |= 1 << i
		}
	}
	return c
}

// nzFlags returns the N (bit 31 set) and Z (all bits zero) flags of a
// result, for floats and integers alike (VC4C ElementFlags::fromLiteral;
// the tables agree).
func nzFlags(r *vec) (n, z uint16) {
	for i, x := range r {
		n |= uint16(x>>31) << i
		if x == 0 {
			z |= 1 << i
		}
	}
	return n, z
}

// addOverflow returns the elements in which an add or sub overflowed as
// signed 32-bit integers; the regfile-A packs use it (ref_pack.go).
func addOverflow(op qpu.AddOp, a, b, r *vec) (v uint16) {
	for i := range r {
		var o bool
		switch op {
		case qpu.AddAdd:
			o = (a[i]^r[i])&(b[i]^r[i])&signBit != 0
		case qpu.AddSub:
			o = (a[i]^b[i])&(a[i]^r[i])&signBit != 0
		}
		if o {
			v |= 1 << i
		}
	}
	return v
}

// resultIsFloatAdd reports whether an add op produces a float, which makes
// the regfile-A 16-bit packs convert to float16 (AG Table 7 "if input was
// float result"): fadd ... fmaxabs and itof (the hardware pack table agrees).
func resultIsFloatAdd(op qpu.AddOp) bool {
	return (op >= qpu.AddFAdd && op <= qpu.AddFMaxAbs) || op == qpu.AddIToF
}
