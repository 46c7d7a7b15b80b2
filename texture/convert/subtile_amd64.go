//go:build !purego

package convert

import (
	"unsafe"

	"github.com/vccube/vccube/texture"
)

// subtile16In and subtile16Out are subtile_amd64.s: the 16 picture rows
// starting at row, step bytes apart, to and from the sub-tile at sub.
//
//go:noescape
func subtile16In(sub, row unsafe.Pointer, step int)

//go:noescape
func subtile16InNT(sub, row unsafe.Pointer, step int)

// storeFence is SFENCE: it orders subtile16InNT's non-temporal stores
// before any later store, so that the converted texture is complete in
// memory before the converter returns (Intel SDM, "MOVNTDQ").
func storeFence()

//go:noescape
func subtile16Out(sub, row unsafe.Pointer, step int)

// moveSubtile16 is moveSubtile16Go with one 16-byte load and store per
// utile row (SSE2), the sub-tile written one whole utile (cache line)
// after another; into a 16-byte aligned sub-tile with non-temporal stores,
// which the converter orders with storeFence before it returns. The
// slices are checked here, as the Go loop's indexing would check them.
func moveSubtile16(sub, pix []byte, q, step int, toMem bool) {
	_ = sub[texture.SubtileBytes-1]
	last := q + 15*step
	_ = pix[q : q+64]
	_ = pix[last : last+64]
	if toMem && uintptr(unsafe.Pointer(&sub[0]))%16 == 0 {
		subtile16InNT(unsafe.Pointer(&sub[0]), unsafe.Pointer(&pix[q]), step)
	} else if toMem {
		subtile16In(unsafe.Pointer(&sub[0]), unsafe.Pointer(&pix[q]), step)
	} else {
		subtile16Out(unsafe.Pointer(&sub[0]), unsafe.Pointer(&pix[q]), step)
	}
}
