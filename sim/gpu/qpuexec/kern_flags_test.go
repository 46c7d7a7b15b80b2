package qpuexec

import (
	"math/rand/v2"
	"testing"
)

// The fast path's flag and merge loops (SSE2 on amd64) against the general
// code's: every lane mask with random and zero-heavy vectors, and random
// bit masks.
func TestFlagsAndMergeVec(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	word := func() uint32 {
		switch r.IntN(4) {
		case 0:
			return 0
		case 1:
			return signBit
		}
		return r.Uint32()
	}
	for n := 0; n < 200000; n++ {
		var a, d vec
		for i := range a {
			a[i], d[i] = word(), r.Uint32()
		}
		gn, gz := nzFlagsVec(&a)
		wn, wz := nzFlags(&a)
		if gn != wn || gz != wz {
			t.Fatalf("nzFlagsVec(%x) = %#04x, %#04x; nzFlags %#04x, %#04x", a, gn, gz, wn, wz)
		}
		lanes := uint16(r.Uint32())
		if n < 1<<16 {
			lanes = uint16(n)
		}
		bits := uint32(0xFFFFFFFF)
		if r.IntN(2) == 0 {
			bits = r.Uint32()
		}
		got, want := d, d
		mergeLanesVec(&got, &a, lanes, bits)
		mergeLanes(&want, &a, lanes, bits)
		if got != want {
			t.Fatalf("mergeLanesVec(lanes %#04x, bits %#08x) = %x, mergeLanes %x", lanes, bits, got, want)
		}
	}
}
