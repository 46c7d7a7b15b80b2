package utiles

import (
	"testing"

	"github.com/vccube/vccube/texture"
)

// Every pixel of T and LT images of every byte size, odd sizes included,
// lies where texture.Layout.Offset (the one description) puts it.
func TestOffsetAgreesWithLayout(t *testing.T) {
	for _, tiling := range []texture.Tiling{texture.TFormat, texture.LTFormat} {
		for _, cpp := range []int{1, 2, 4, 8} {
			for _, size := range [][2]int{{1, 1}, {37, 19}, {64, 64}, {130, 70}} {
				l, err := texture.NewLayout(tiling, cpp, size[0], size[1])
				if err != nil {
					t.Fatal(err)
				}
				tab := For(l)
				for y := 0; y < l.AlignedHeight(); y++ {
					for x := 0; x < l.AlignedWidth(); x++ {
						if got, want := tab.Offset(x, y), l.Offset(x, y); got != want {
							t.Fatalf("%v pixel (%d,%d): offset %d, layout says %d", l, x, y, got, want)
						}
					}
				}
				if For(l) != tab {
					t.Errorf("%v: a second For built another table", l)
				}
			}
		}
	}
	l, _ := texture.NewLayout(texture.Linear, 4, 16, 16)
	if For(l) != nil {
		t.Error("a linear layout has no table")
	}
}

// Level 1 of a 24×24 texture is a 12×12 picture in a 16×16 container
// (texture.MipPlan), padded to 16×16 utiles of LT format; a 12×12 level 0
// is padded to 12×12. The two have equal pictures and different layouts,
// and their tables must follow their layouts.
func TestEqualPicturesInOtherContainers(t *testing.T) {
	big, err := texture.NewMipPlan(texture.RGBA8888, 24, 24, 2)
	if err != nil {
		t.Fatal(err)
	}
	small, err := texture.NewMipPlan(texture.RGBA8888, 12, 12, 1)
	if err != nil {
		t.Fatal(err)
	}
	a, b := small.Level(0).Layout, big.Level(1).Layout
	if a.Width() != b.Width() || a.AlignedWidth() == b.AlignedWidth() {
		t.Fatalf("the premise does not hold: %v and %v", a, b)
	}
	for _, l := range []texture.Layout{a, b} {
		tab := For(l)
		for y := 0; y < l.AlignedHeight(); y++ {
			for x := 0; x < l.AlignedWidth(); x++ {
				if got, want := tab.Offset(x, y), l.Offset(x, y); got != want {
					t.Fatalf("%v pixel (%d,%d): offset %d, layout says %d", l, x, y, got, want)
				}
			}
		}
	}
}

var sink int

// BenchmarkOffset compares a pixel's offset from the table with
// texture.Layout.Offset, for a 512×512 32-bit T-format image.
func BenchmarkOffset(b *testing.B) {
	l, _ := texture.NewLayout(texture.TFormat, 4, 512, 512)
	tab := For(l)
	b.Run("table", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			sink += tab.Offset(i*7&511, i*13&511)
		}
	})
	b.Run("layout", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			sink += l.Offset(i*7&511, i*13&511)
		}
	})
}
