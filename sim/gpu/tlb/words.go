package tlb

import (
	"encoding/binary"
	"unsafe"
)

// hostLittleEndian is true when the host stores a uint32 as the V3D's
// memory does (little-endian): then a row of 32-bit pixels moves between
// the tile buffer and memory with one copy.
var hostLittleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// putWords stores src as little-endian words at the start of dst.
func putWords(dst []byte, src []uint32) {
	if len(src) == 0 {
		return
	}
	if hostLittleEndian {
		copy(dst[:4*len(src)], unsafe.Slice((*byte)(unsafe.Pointer(&src[0])), 4*len(src)))
		return
	}
	for i, w := range src {
		binary.LittleEndian.PutUint32(dst[4*i:], w)
	}
}

// getWords loads little-endian words from the start of src into dst.
func getWords(dst []uint32, src []byte) {
	if len(dst) == 0 {
		return
	}
	if hostLittleEndian {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), 4*len(dst)), src[:4*len(dst)])
		return
	}
	for i := range dst {
		dst[i] = binary.LittleEndian.Uint32(src[4*i:])
	}
}

// fill sets every element of s to v, doubling the filled part with copy.
func fill(s []uint32, v uint32) {
	if len(s) == 0 {
		return
	}
	s[0] = v
	for n := 1; n < len(s); n *= 2 {
		copy(s[n:], s[:n])
	}
}

// putUtile stores a 4×4 block of 32-bit pixels, the tile buffer's
// elements at, at+1, … at+3 of four rows 64 apart, as one 64-byte utile.
func putUtile(dst []byte, src []uint32, at int) {
	dst = dst[:64]
	if hostLittleEndian {
		for row := 0; row < 4; row++ {
			*(*[4]uint32)(unsafe.Pointer(&dst[16*row])) = *(*[4]uint32)(src[at+Size*row:])
		}
		return
	}
	for row := 0; row < 4; row++ {
		putWords(dst[16*row:], src[at+Size*row:at+Size*row+4])
	}
}

// putRowsGo stores h rows of w pixels of the tile buffer, src[0:w],
// src[Size:Size+w], …, as little-endian words to dst, rows pitch bytes
// apart.
func putRowsGo(dst []byte, pitch int, src []uint32, w, h int) {
	for row := 0; row < h; row++ {
		putWords(dst[row*pitch:], src[row*Size:row*Size+w])
	}
}

// putUtilesGo stores a whole tile as 16×16 utiles of 4×4 pixels: utile
// (ux, uy) as 64 contiguous bytes at dst[off[uy·perRow+ux]:].
func putUtilesGo(dst []byte, off []int32, perRow int, src *[Pixels]uint32) {
	const n = Size / 4
	for uy := 0; uy < n; uy++ {
		for ux, o := range off[uy*perRow : uy*perRow+n] {
			putUtile(dst[o:], src[:], 4*uy*Size+4*ux)
		}
	}
}
