package texture

import "testing"

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
