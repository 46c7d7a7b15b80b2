package tlb

import (
	"testing"

	"github.com/vccube/vccube/cl"
)

// BenchmarkStore stores one 64×64 tile of a 1920×1080 frame, colour
// linear and Z/stencil T-format, as the cube's frames do.
func BenchmarkStore(b *testing.B) {
	v, r, _ := memoryB(b, 1920*1088*4)
	var buf Buffer
	pattern(&buf)
	f := Frame{Width: 1920, Height: 1080}
	for _, c := range []struct {
		name   string
		tiling cl.Tiling
		zs     bool
	}{{"color-linear", cl.TilingLinear, false}, {"zs-T", cl.TilingT, true}, {"color-T", cl.TilingT, false}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(Pixels * 4)
			for i := 0; i < b.N; i++ {
				t := Tile{i % 30, i / 30 % 16}
				var err error
				if c.zs {
					err = buf.StoreZS(v, r.Addr, c.tiling, t, &f)
				} else {
					err = buf.StoreColor(v, r.Addr, c.tiling, cl.LoadStoreFormatRGBA8888, t, &f)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
