//go:build !purego

package tlb

import "unsafe"

//go:noescape
func putRowsNT(dst unsafe.Pointer, pitch int, src *uint32, chunks, rows int)

//go:noescape
func putUtilesNT(dst unsafe.Pointer, off *int32, perRow int, src *uint32)

// putRows is putRowsGo with SSE2 non-temporal stores (store_amd64.s) when
// the rows are whole 16-byte chunks, at least a cache line long (a
// non-temporal store of part of a line costs more than an ordinary one),
// and every row 16-byte aligned. The slices are checked here, as the Go
// loop's indexing would check them.
func putRows(dst []byte, pitch int, src []uint32, w, h int) {
	if w < 16 || h <= 0 || w%4 != 0 || pitch <= 0 || pitch%16 != 0 || uintptr(unsafe.Pointer(&dst[0]))%16 != 0 {
		putRowsGo(dst, pitch, src, w, h)
		return
	}
	_ = dst[(h-1)*pitch+4*w-1]
	_ = src[(h-1)*Size+w-1]
	putRowsNT(unsafe.Pointer(&dst[0]), pitch, &src[0], w/4, h)
}

// putUtiles is putUtilesGo with SSE2 non-temporal stores (store_amd64.s)
// when dst is 16-byte aligned (a utile's offset is a multiple of 64).
// The caller has checked every utile's bytes.
func putUtiles(dst []byte, off []int32, perRow int, src *[Pixels]uint32) {
	_ = off[15*perRow+15]
	if uintptr(unsafe.Pointer(&dst[0]))%16 != 0 {
		putUtilesGo(dst, off, perRow, src)
		return
	}
	putUtilesNT(unsafe.Pointer(&dst[0]), &off[0], perRow, &src[0])
}
