package tlb

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// alignedBytes returns n bytes starting skew bytes past a 64-byte
// boundary.
func alignedBytes(n, skew int) []byte {
	b := make([]byte, n+64+skew)
	a := int(-uintptr(unsafe.Pointer(&b[0])) & 63)
	return b[a+skew : a+skew+n]
}

// putRows (non-temporal SSE2 stores on amd64) stores what putRowsGo
// stores, and nothing else: every width from 1 to 64 pixels, heights,
// pitches, and destinations aligned and not.
func TestPutRowsMatchesGo(t *testing.T) {
	var b Buffer
	pattern(&b)
	r := rand.New(rand.NewPCG(7, 8))
	for n := 0; n < 2000; n++ {
		w := 1 + n%Size
		h := 1 + r.IntN(Size)
		pitch := 4*w + 16*r.IntN(8)
		if n%3 == 0 {
			pitch = 4*w + 4*r.IntN(8)
		}
		skew := 0
		if n%4 == 1 {
			skew = 4 * (1 + r.IntN(3))
		} else if n%4 == 2 {
			skew = 1 + r.IntN(15)
		}
		x, y := r.IntN(Size-w+1), r.IntN(Size-h+1)
		size := (h-1)*pitch + 4*w + 64
		got, want := alignedBytes(size, skew), alignedBytes(size, skew)
		for i := range got {
			got[i], want[i] = byte(i*7), byte(i*7)
		}
		putRows(got, pitch, b.Color[y*Size+x:], w, h)
		putRowsGo(want, pitch, b.Color[y*Size+x:], w, h)
		if !bytes.Equal(got, want) {
			t.Fatalf("case %d: %d×%d pixels from (%d, %d), pitch %d, skew %d: putRows differs from putRowsGo", n, w, h, x, y, pitch, skew)
		}
	}
}

// putUtiles (non-temporal SSE2 stores on amd64) stores what putUtilesGo
// stores: the utiles at shuffled offsets of a row 20 utiles wide, to
// destinations aligned and not.
func TestPutUtilesMatchesGo(t *testing.T) {
	var b Buffer
	pattern(&b)
	const perRow = 20
	r := rand.New(rand.NewPCG(9, 10))
	for _, skew := range []int{0, 16, 32, 4, 3} {
		off := make([]int32, 16*perRow)
		for i, p := range r.Perm(len(off)) {
			off[i] = int32(64 * p)
		}
		size := 64*len(off) + 64
		got, want := alignedBytes(size, skew), alignedBytes(size, skew)
		for i := range got {
			got[i], want[i] = byte(i*5), byte(i*5)
		}
		putUtiles(got, off, perRow, &b.Color)
		putUtilesGo(want, off, perRow, &b.Color)
		if !bytes.Equal(got, want) {
			t.Fatalf("skew %d: putUtiles differs from putUtilesGo", skew)
		}
	}
}
