package convert

import (
	"testing"

	"github.com/vccube/vccube/texture"
)

// BenchmarkTile1024 converts a 1024×1024 RGBA8888 picture to T format into
// a caller's buffer (the upload path), next to BenchmarkCopy1024, a plain
// copy() of the same 4 MiB. Compare the two MB/s figures of one run: the
// goal is tiling at ≥ 0.5× the copy's speed with 0 allocs/op.
func BenchmarkTile1024(b *testing.B) {
	l := mustLayout(b, texture.TFormat, 4, 1024, 1024)
	pic, _ := texture.NewPicture(1024, 1024, 4)
	for i := range pic.Pix {
		pic.Pix[i] = byte(i * 7)
	}
	dst := make([]byte, l.Size())
	b.SetBytes(int64(len(pic.Pix)))
	b.ReportAllocs()
	for b.Loop() {
		if err := FromLinear(l, dst, pic, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTile1024Flipped is BenchmarkTile1024 with the rows flipped
// (FlipRows, alternative 1).
func BenchmarkTile1024Flipped(b *testing.B) {
	l := mustLayout(b, texture.TFormat, 4, 1024, 1024)
	pic, _ := texture.NewPicture(1024, 1024, 4)
	dst := make([]byte, l.Size())
	b.SetBytes(int64(len(pic.Pix)))
	b.ReportAllocs()
	for b.Loop() {
		if err := FromLinear(l, dst, pic, true); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUntile1024 is the reverse conversion, T format → linear.
func BenchmarkUntile1024(b *testing.B) {
	l := mustLayout(b, texture.TFormat, 4, 1024, 1024)
	pic, _ := texture.NewPicture(1024, 1024, 4)
	src := make([]byte, l.Size())
	b.SetBytes(int64(len(pic.Pix)))
	b.ReportAllocs()
	for b.Loop() {
		if err := ToLinear(l, pic, src, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCopy1024 is the yardstick: copy() of the 4 MiB BenchmarkTile1024
// converts.
func BenchmarkCopy1024(b *testing.B) {
	src := make([]byte, 1024*1024*4)
	dst := make([]byte, len(src))
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		copy(dst, src)
	}
}
