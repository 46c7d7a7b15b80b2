package tlb

import (
	"testing"

	"github.com/vccube/vccube/cl"
)

// The images a Buffer keeps (images.image) are what newImage makes for
// the same arguments, whatever the order of the loads and stores: the
// colour and Z/stencil images of one frame taking turns, a frame of
// another size, format or tiling, and the same layout at another
// address.
func TestImageCacheMatchesNewImage(t *testing.T) {
	type call struct {
		addr   uint32
		tiling cl.Tiling
		cpp    int
		w, h   int
	}
	calls := []call{
		{0x100000, cl.TilingT, 4, 800, 600},
		{0x100000, cl.TilingT, 4, 800, 600},
		{0x300000, cl.TilingT, 4, 800, 600}, // Z/stencil: same layout, another address
		{0x100000, cl.TilingT, 4, 800, 600},
		{0x100000, cl.TilingT, 2, 800, 600}, // RGB565
		{0x100000, cl.TilingLinear, 4, 800, 600},
		{0x100000, cl.TilingLT, 4, 800, 600},
		{0x100000, cl.TilingT, 4, 1920, 1080},
		{0x100000, cl.TilingT, 4, 1920, 1088},
		{0x100000, cl.TilingT, 4, 800, 600},
		{0x200000, cl.TilingLinear, 2, 64, 64},
		{0x200000, cl.TilingLinear, 2, 64, 64},
		{0x200000, cl.TilingLinear, 4, 64, 64},
		{0x100000, cl.TilingT, 4, 800, 600},
	}
	var c images
	for round := range 2 {
		for i, k := range calls {
			f := &Frame{Width: k.w, Height: k.h}
			want, err := newImage(k.addr, k.tiling, k.cpp, f)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.image(k.addr, k.tiling, k.cpp, f)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("round %d, call %d (%+v): cached image %+v, newImage %+v", round, i, k, got, want)
			}
		}
	}
	// A bad tiling is newImage's error, and is not kept.
	f := &Frame{Width: 64, Height: 64}
	if _, err := c.image(0, cl.Tiling(3), 4, f); err == nil {
		t.Fatal("tiling 3: no error")
	}
	if _, err := c.image(0, cl.Tiling(3), 4, f); err == nil {
		t.Fatal("tiling 3, again: no error")
	}
}
