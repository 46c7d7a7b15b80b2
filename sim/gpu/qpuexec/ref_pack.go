package qpuexec

import "github.com/vccube/vccube/shaders/qpu"

// Pack and unpack (AG §3 "Pack/Unpack Bits", Tables 6-9). With pm = 0 the
// unpack field converts every operand read through raddr_a and the pack
// field converts the result written to a physical register of file A; with
// pm = 1 the unpack field converts operands taken from r4 and the pack field
// converts the mul ALU's float result to an 8-bit colour, into any
// destination. Partial packs write only their bytes; the destination keeps
// the others (Mesa vc4_qir.c qir_channels_written; doc/hardware.md#pack-and-unpack).

// unpackA is the regfile-A unpack (pm = 0, AG Table 6) of one value. float
// says whether an ALU consuming the value runs a float op: then 16a/16b
// convert a float16 and 8a-8d a colour byte (x/255) to float32, otherwise
// they sign-extend the half-word or zero-extend the byte.
func unpackA(u qpu.Unpack, float bool, x uint32) uint32 {
	switch u {
	case qpu.Unpack16A:
		if float {
			return floatFromHalf(x & 0xFFFF)
		}
		return uint32(int32(int16(x)))
	case qpu.Unpack16B:
		if float {
			return floatFromHalf(x >> 16)
		}
		return uint32(int32(int16(x >> 16)))
	case qpu.Unpack8DRep:
		return (x >> 24) * 0x01010101
	case qpu.Unpack8A, qpu.Unpack8B, qpu.Unpack8C, qpu.Unpack8D:
		b := x >> (8 * uint(u-qpu.Unpack8A)) & 0xFF
		if float {
			return colourToFloat[b]
		}
		return b
	}
	return x
}

// unpackR4 is the r4 unpack (pm = 1, AG Table 8): always the float forms
// (half to float, colour byte to float), and the alpha replicate.
func unpackR4(u qpu.Unpack, x uint32) uint32 {
	switch u {
	case qpu.Unpack16A:
		return floatFromHalf(x & 0xFFFF)
	case qpu.Unpack16B:
		return floatFromHalf(x >> 16)
	case qpu.Unpack8DRep:
		return (x >> 24) * 0x01010101
	case qpu.Unpack8A, qpu.Unpack8B, qpu.Unpack8C, qpu.Unpack8D:
		return colourToFloat[x>>(8*uint(u-qpu.Unpack8A))&0xFF]
	}
	return x
}

// packMask returns the bits of the destination a regfile-A pack (pm = 0)
// writes.
func packMask(p qpu.Pack) uint32 {
	switch p {
	case qpu.Pack16A, qpu.Pack16ASat:
		return 0x0000FFFF
	case qpu.Pack16B, qpu.Pack16BSat:
		return 0xFFFF0000
	case qpu.Pack8A, qpu.Pack8ASat:
		return 0x000000FF
	case qpu.Pack8B, qpu.Pack8BSat:
		return 0x0000FF00
	case qpu.Pack8C, qpu.Pack8CSat:
		return 0x00FF0000
	case qpu.Pack8D, qpu.Pack8DSat:
		return 0xFF000000
	}
	return 0xFFFFFFFF
}

// colourPackMask returns the bits a mul colour pack (pm = 1, AG Table 9)
// writes: 8888 all, 8a-8d one byte.
func colourPackMask(p qpu.Pack) uint32 {
	switch p {
	case qpu.PackMul8A, qpu.PackMul8B, qpu.PackMul8C, qpu.PackMul8D:
		return 0xFF << (8 * uint(p-qpu.PackMul8A))
	}
	return 0xFFFFFFFF
}

// colourPack is the mul colour pack of one float result: the colour byte in
// the pack's byte, or replicated to all four for 8888.
func colourPack(p qpu.Pack, x uint32) uint32 {
	c := floatToColour(x)
	if p == qpu.PackMul8888 {
		return c * 0x01010101
	}
	return c << (8 * uint(p-qpu.PackMul8A))
}

// packFlags is what the regfile-A pack of an integer result needs to know
// about the ALU operation beyond the result: AG Table 7 saturates "given
// overflow/carry flags". Only add and sub overflow.
type packFlags struct {
	overflow, c, n, z bool
}

func sat(v, lo, hi int64) int64 { return max(lo, min(hi, v)) }

// packA is the regfile-A pack (pm = 0, AG Table 7) of one result r; the
// returned value has the packed bits in place (see packMask). float says the
// result is a float (fadd, fsub, fmin, fmax, fminabs, fmaxabs, itof, fmul).
//
// Measured behaviour (every row of doe300/VC4C test/opcode_pack_test.h but
// two, see below), beyond the guide's table:
//   - For a float result the 16-bit packs, saturating or not, convert to
//     float16 (halfFromFloat); the 8-bit and 32-bit packs treat the float's
//     bits as an integer, as for integer results.
//   - The saturating packs saturate the signed 32-bit value: to -32768..
//     32767 for 16 bits, to 0..255 for 8 bits.
//   - When an add or sub overflows (signed), every pack first saturates the
//     32-bit result, towards INT_MIN if the carry flag is set and towards
//     INT_MAX if not (so 0x80000000 - 0x7fffffff gives 0x7fffffff: the
//     hardware trusts C, not the sign); the truncating 16-bit packs then
//     give the 16-bit saturated value (0x8000 or 0x7fff), and the saturating
//     8- and 16-bit packs give 0 when exactly one of N, Z and C is set
//     (VC4C OpCodes.cpp packLiteral "overloadAndNegativeXorCarry"). The one
//     case this rule misses is 0x7fffffff + 0x7fffffff with a saturating
//     16-bit pack, which the hardware gave as 0x7fff; VC4C special-cases
//     it, we do not (the tests list it).
func packA(p qpu.Pack, float bool, r uint32, f packFlags) uint32 {
	if float {
		switch p {
		case qpu.Pack16A, qpu.Pack16ASat:
			return halfFromFloat(r)
		case qpu.Pack16B, qpu.Pack16BSat:
			return halfFromFloat(r) << 16
		}
		f = packFlags{}
	}
	v := int64(int32(r))
	zeroSat := false
	if f.overflow {
		if f.c {
			v = -1 << 31
		} else {
			v = 1<<31 - 1
		}
		r = uint32(v)
		zeroSat = b2i(f.c)+b2i(f.n)+b2i(f.z) == 1
	}
	switch p {
	case qpu.Pack32Sat:
		return r
	case qpu.Pack16A, qpu.Pack16B:
		h := r & 0xFFFF
		if f.overflow {
			h = uint32(sat(v, -32768, 32767)) & 0xFFFF
		}
		if p == qpu.Pack16B {
			return h << 16
		}
		return h
	case qpu.Pack16ASat, qpu.Pack16BSat:
		h := uint32(sat(v, -32768, 32767)) & 0xFFFF
		if zeroSat {
			h = 0
		}
		if p == qpu.Pack16BSat {
			return h << 16
		}
		return h
	case qpu.Pack8888:
		return (r & 0xFF) * 0x01010101
	case qpu.Pack8A, qpu.Pack8B, qpu.Pack8C, qpu.Pack8D:
		return (r & 0xFF) << (8 * uint(p-qpu.Pack8A))
	case qpu.Pack8888Sat:
		if zeroSat {
			return 0
		}
		return uint32(sat(v, 0, 255)) * 0x01010101
	case qpu.Pack8ASat, qpu.Pack8BSat, qpu.Pack8CSat, qpu.Pack8DSat:
		if zeroSat {
			return 0
		}
		return uint32(sat(v, 0, 255)) << (8 * uint(p-qpu.Pack8ASat))
	}
	return r
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
