package convert

import (
	"testing"
	"time"

	"github.com/vccube/vccube/texture"
)

// The conversions are measured against a plain copy() of the same 4 MiB,
// the yardstick: the goal is tiling at ≥ 0.5× the copy's speed with 0
// allocs/op. Every buffer is written before it is timed. A buffer that is
// only ever read is backed by the kernel's shared zero page (a fresh
// anonymous mapping reads as zeros from one physical page), so reading it
// never misses the cache and a copy from it looks faster than a copy from
// real data; and whether a buffer had been written depended on which
// benchmarks ran before. BenchmarkTileVsCopy1024 gives the ratio itself,
// from the two operations interleaved on the same buffers.

// bench1024 returns a written 1024×1024 RGBA8888 picture and a written
// destination of T-format size.
func bench1024(b *testing.B) (texture.Layout, texture.Picture, []byte) {
	l := mustLayout(b, texture.TFormat, 4, 1024, 1024)
	pic, err := texture.NewPicture(1024, 1024, 4)
	if err != nil {
		b.Fatal(err)
	}
	fill(pic.Pix)
	dst := make([]byte, l.Size())
	fill(dst)
	return l, pic, dst
}

// fill writes every byte of buf (every page gets its own frame), with a
// pattern that is not constant.
func fill(buf []byte) {
	for i := range buf {
		buf[i] = byte(i*7 + i>>12)
	}
}

// BenchmarkTile1024 converts a 1024×1024 RGBA8888 picture to T format into
// a caller's buffer (the upload path).
func BenchmarkTile1024(b *testing.B) {
	l, pic, dst := bench1024(b)
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
	l, pic, dst := bench1024(b)
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
	l, pic, src := bench1024(b)
	b.SetBytes(int64(len(pic.Pix)))
	b.ReportAllocs()
	for b.Loop() {
		if err := ToLinear(l, pic, src, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCopy1024 is the yardstick: copy() of the 4 MiB BenchmarkTile1024
// converts, from written memory to written memory.
func BenchmarkCopy1024(b *testing.B) {
	_, pic, dst := bench1024(b)
	b.SetBytes(int64(len(pic.Pix)))
	b.ReportAllocs()
	for b.Loop() {
		copy(dst, pic.Pix)
	}
}

// BenchmarkTileVsCopy1024 times BenchmarkTile1024's conversion and
// BenchmarkCopy1024's copy in turns, on the same source and destination,
// taking turns at going first, so both see the same caches and the same
// machine load. It reports each one's time and "tile/copy", the tiling's
// speed as a fraction of the copy's (copy time over tile time; the goal
// is ≥ 0.5). Compare runs with benchstat (go test -bench TileVsCopy
// -count 10).
func BenchmarkTileVsCopy1024(b *testing.B) {
	l, pic, dst := bench1024(b)
	var tile, cp time.Duration
	timeTile := func() {
		t := time.Now()
		if err := FromLinear(l, dst, pic, false); err != nil {
			b.Fatal(err)
		}
		tile += time.Since(t)
	}
	timeCopy := func() {
		t := time.Now()
		copy(dst, pic.Pix)
		cp += time.Since(t)
	}
	n := 0
	for b.Loop() {
		if n&1 == 0 {
			timeTile()
			timeCopy()
		} else {
			timeCopy()
			timeTile()
		}
		n++
	}
	b.ReportMetric(float64(tile.Nanoseconds())/float64(n), "tile-ns/op")
	b.ReportMetric(float64(cp.Nanoseconds())/float64(n), "copy-ns/op")
	b.ReportMetric(float64(cp)/float64(tile), "tile/copy")
}
