package render

import (
	"testing"

	"github.com/vccube/vccube/sim/gpu/qpuexec"
	"github.com/vccube/vccube/sim/gpu/tlb"
)

// A chain starts from a clear tile buffer. A worker skips clearing it only
// when the last chain it ran ended with the store that cleared it to the
// same values; these run empty chains on one worker in the orders that
// would catch a skip too many.
func TestChainStartsFromAClearBuffer(t *testing.T) {
	r := New(qpuexec.NewCache(), Options{Workers: 1})
	defer r.Close()
	w := r.workers[0]
	x, y := tlb.ClearValues{Color: 0x11111111, Z: 0x111111}, tlb.ClearValues{Color: 0x22222222, Z: 0x222222}
	run := func(clear tlb.ClearValues, endsCleared bool) {
		t.Helper()
		if err := w.runChain(&chain{start: snapshot{control: control{clear: clear}}, cleared: endsCleared}); err != nil {
			t.Fatal(err)
		}
	}
	check := func(what string, c tlb.ClearValues) {
		t.Helper()
		if w.buf.Color[100] != c.Color || w.buf.ZS[100] != tlb.ZS(c.Z, c.Stencil) {
			t.Fatalf("%s: buffer %#x %#x, want %#x %#x", what, w.buf.Color[100], w.buf.ZS[100], c.Color, tlb.ZS(c.Z, c.Stencil))
		}
	}
	// What a chain drew: a write through the buffer's methods, which
	// record the rows a clear must fill again.
	draw := func() {
		idx, c := [16]uint16{100}, [16]uint32{0xBAD}
		w.buf.WriteColor(&idx, &c, 1)
	}
	draw()
	run(x, false)
	check("first chain", x)

	// A chain that does not end with a clearing store (the last of a
	// batch) leaves what it drew: the next chain clears.
	draw()
	run(x, false)
	check("after a chain that did not end clear", x)
	draw()
	run(x, false)
	check("after a chain that drew", x)

	// A chain that ended clear to x is no start for a chain that wants y.
	run(x, true)
	run(y, true)
	check("after a chain that ended clear to other values", y)

	// And the same values: the buffer is clear either way.
	run(y, true)
	check("after a chain that ended clear to the same values", y)
}
