package qpuexec

import (
	"math/rand/v2"
	"testing"

	"github.com/vccube/vccube/shaders/qpu"
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

// TestSubFlagsVec holds subFlagsVec (opSubFlags) to the general code:
// addALU's sub, nzFlags and addCarry, on random and edge operands, with
// the result written over a, over b, or elsewhere.
func TestSubFlagsVec(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	edges := [...]uint32{0, 1, 0x7FFFFFFF, 0x80000000, 0x80000001, 0xFFFFFFFF}
	for n := 0; n < 20000; n++ {
		var a, b vec
		for i := range a {
			a[i], b[i] = r.Uint32(), r.Uint32()
			switch r.IntN(6) {
			case 0:
				b[i] = a[i]
			case 1:
				a[i], b[i] = edges[r.IntN(len(edges))], edges[r.IntN(len(edges))]
			}
		}
		var want vec
		addALU(qpu.AddSub, &want, &a, &b)
		wn, wz := nzFlags(&want)
		wc := addCarry(qpu.AddSub, &a, &b, &want)
		for k, what := range []string{"apart", "over a", "over b"} {
			x, y := a, b
			d := &vec{}
			switch k {
			case 1:
				d = &x
			case 2:
				d = &y
			}
			gn, gz, gc := subFlagsVec(d, &x, &y)
			if *d != want || gn != wn || gz != wz || gc != wc {
				t.Fatalf("sub %x - %x (%s): %x N %#04x Z %#04x C %#04x; the general code %x N %#04x Z %#04x C %#04x", a, b, what, *d, gn, gz, gc, want, wn, wz, wc)
			}
		}
	}
}

// TestFAddFlagsVec holds faddFlagsVec (opFloatNZ) to the general code:
// addALU's fadd and fsub and nzFlags, on random floats and on the edges
// its slow elements come from (zeros of both signs, denormals, the
// largest finite values, infinities, NaNs), where the CPU has the
// one-pass form.
func TestFAddFlagsVec(t *testing.T) {
	var d, a0 vec
	if _, _, ok := faddFlagsVec(&d, &a0, &a0, 0); !ok {
		t.Skip("no one-pass fadd with flags on this build or CPU")
	}
	r := rand.New(rand.NewPCG(43, 44))
	edges := [...]uint32{0, 0x80000000, 1, 0x807FFFFF, 0x3F800000, 0xBF800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F7FFFFE, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFFFFFFF}
	slow := 0
	for n := 0; n < 20000; n++ {
		var a, b vec
		for i := range a {
			a[i], b[i] = r.Uint32(), r.Uint32()
			switch r.IntN(5) {
			case 0:
				b[i] = a[i]
			case 1:
				b[i] = a[i] ^ 0x80000000
			case 2:
				a[i], b[i] = edges[r.IntN(len(edges))], edges[r.IntN(len(edges))]
			}
		}
		for _, op := range []qpu.AddOp{qpu.AddFAdd, qpu.AddFSub} {
			var want vec
			addALU(op, &want, &a, &b)
			wn, wz := nzFlags(&want)
			neg := uint32(0)
			if op == qpu.AddFSub {
				neg = signBit
			}
			var got vec
			gn, gz, _ := faddFlagsVec(&got, &a, &b, neg)
			if got != want || gn != wn || gz != wz {
				t.Fatalf("%v %x, %x: %x N %#04x Z %#04x; the general code %x N %#04x Z %#04x", op, a, b, got, gn, gz, want, wn, wz)
			}
			for _, x := range want {
				if x&0x7FFFFFFF >= 0x7F7FFFFF {
					slow++ // a result the assembly leaves to faddSlow or fsubSlow
				}
			}
		}
	}
	if slow == 0 {
		t.Error("no operands took the slow elements' path")
	}
}
