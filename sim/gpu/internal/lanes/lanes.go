// Package lanes holds what the GPU model's units share about 16-element
// vectors (a QPU register, a TMU request's coordinates, a TLB write).
package lanes

import "unsafe"

// Copy copies s to d. A plain assignment of a [16]uint32 through pointers
// compiles to a call of runtime.memmove; the two halves assigned one
// statement each compile to four 16-byte moves with no temporary, cheap
// enough for the compiler to inline Copy where it is called (d and s must
// be the same vector or disjoint, as whole registers and buffers are).
func Copy(d, s *[16]uint32) {
	dh, sh := (*[2][32]byte)(unsafe.Pointer(d)), (*[2][32]byte)(unsafe.Pointer(s))
	dh[0] = sh[0]
	dh[1] = sh[1]
}

// fillWords is Fill where there is no assembly: two elements a store
// (inlined where it is called).
func fillWords(d *[16]uint32, x uint32) {
	w := uint64(x) | uint64(x)<<32
	p := (*[8]uint64)(unsafe.Pointer(d))
	p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7] = w, w, w, w, w, w, w, w
}
