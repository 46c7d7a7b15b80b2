//go:build !purego

package qpuexec

// nzFlagsVec is nzFlags (ref_alu.go) with SSE2 (kern_flags_amd64.s): a register's
// sign bits and zero tests, sixteen elements in eight instructions.
func nzFlagsVec(r *vec) (n, z uint16) {
	nz := nzSSE2(r)
	return uint16(nz), uint16(nz >> 16)
}

// mergeLanesVec is mergeLanes (ref_exec.go) with SSE2, without a branch per
// element: a conditional write's lanes depend on the data.
func mergeLanesVec(d, v *vec, lanes uint16, bits uint32) {
	mergeSSE2(d, v, uint32(lanes), bits, &laneMasks)
}

// The C flags of add, sub, min and max (ref_alu.go addCarry) as one compare
// each: a < b unsigned is a < b signed once both have their sign bits
// flipped.
func carryAddVec(a, _, r *vec) uint16           { return uint16(lessSSE2(r, a, signBit)) }
func carrySubVec(a, b, _ *vec) uint16           { return uint16(lessSSE2(a, b, signBit)) }
func carrySignedGreaterVec(a, b, _ *vec) uint16 { return uint16(lessSSE2(b, a, 0)) }

// laneMasks[k] is four elements' masks for the lanes in the bits of k.
var laneMasks = func() (t [16][4]uint32) {
	for k := range t {
		for j := range t[k] {
			if k>>j&1 != 0 {
				t[k][j] = 0xFFFFFFFF
			}
		}
	}
	return t
}()

//go:noescape
func nzSSE2(r *vec) (nz uint32)

//go:noescape
func lessSSE2(a, b *vec, flip uint32) (lt uint32)

//go:noescape
func mergeSSE2(d, v *vec, lanes uint32, bits uint32, masks *[16][4]uint32)

// subFlagsVec is the sub kernel of a and b into d with the N, Z and C
// flags of every element (ref_alu.go nzFlags, carrySub) in one pass,
// for a bound sub.sf (opSubFlags). d may be a or b.
func subFlagsVec(d, a, b *vec) (n, z, c uint16) {
	x := subNZCSSE2(d, a, b)
	return uint16(x), uint16(x >> 16), uint16(x >> 32)
}

//go:noescape
func subNZCSSE2(d, a, b *vec) (nzc uint64)
