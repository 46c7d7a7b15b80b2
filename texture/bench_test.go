package texture

import "testing"

// BenchmarkTile1024 converts a 1024×1024 RGBA8888 picture to T format into
// a caller's buffer (the upload path), next to BenchmarkCopy1024, a plain
// copy() of the same 4 MiB. Compare the two MB/s figures of one run: the
// goal is tiling at ≥ 0.5× the copy's speed with 0 allocs/op.
func BenchmarkTile1024(b *testing.B) {
	l := mustLayout(b, TFormat, 4, 1024, 1024)
	pic, _ := NewPicture(1024, 1024, 4)
	for i := range pic.Pix {
		pic.Pix[i] = byte(i * 7)
	}
	dst := make([]byte, l.Size())
	b.SetBytes(int64(len(pic.Pix)))
	b.ReportAllocs()
	for b.Loop() {
		if err := l.FromLinear(dst, pic, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTile1024Flipped is BenchmarkTile1024 with the rows flipped
// (FlipRows, alternative 1).
func BenchmarkTile1024Flipped(b *testing.B) {
	l := mustLayout(b, TFormat, 4, 1024, 1024)
	pic, _ := NewPicture(1024, 1024, 4)
	dst := make([]byte, l.Size())
	b.SetBytes(int64(len(pic.Pix)))
	b.ReportAllocs()
	for b.Loop() {
		if err := l.FromLinear(dst, pic, true); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUntile1024 is the reverse conversion, T format → linear.
func BenchmarkUntile1024(b *testing.B) {
	l := mustLayout(b, TFormat, 4, 1024, 1024)
	pic, _ := NewPicture(1024, 1024, 4)
	src := make([]byte, l.Size())
	b.SetBytes(int64(len(pic.Pix)))
	b.ReportAllocs()
	for b.Loop() {
		if err := l.ToLinear(pic, src, false); err != nil {
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

// BenchmarkOffset looks up 4096 scattered pixels of a 512×512 32-bpp
// T-format layout, the per-pixel address query of the simulated display
// and the TMU's and TLB's utile tables.
func BenchmarkOffset(b *testing.B) {
	l := mustLayout(b, TFormat, 4, 512, 512)
	sum := 0
	b.ReportAllocs()
	for b.Loop() {
		for y := 0; y < 64; y++ {
			for x := 0; x < 64; x++ {
				sum += l.Offset(x*7&511, y*5&511)
			}
		}
	}
	if sum < 0 {
		b.Fatal("negative offset inside the layout")
	}
}
