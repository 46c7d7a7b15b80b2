package termview

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// Taps worked out by hand: positions in units of 1/D source pixel, output
// i covers [iS, (i+1)S), source j covers [jD, (j+1)D).
func TestAxisTaps(t *testing.T) {
	type tap struct{ src, w int }
	tests := []struct {
		s, d int
		want [][]tap
	}{
		// Halving: each output pixel is two source pixels, weight 2 each
		// (in units of 1/2).
		{4, 2, [][]tap{{{0, 2}, {1, 2}}, {{2, 2}, {3, 2}}}},
		// 3 onto 2 (units of 1/2): [0,3) meets [0,2) and [2,4);
		// [3,6) meets [2,4) and [4,6).
		{3, 2, [][]tap{{{0, 2}, {1, 1}}, {{1, 1}, {2, 2}}}},
		// Enlarging 2 onto 3 (units of 1/3): [0,2) lies in [0,3);
		// [2,4) straddles; [4,6) lies in [3,6).
		{2, 3, [][]tap{{{0, 2}}, {{0, 1}, {1, 1}}, {{1, 2}}}},
		// Same size: one tap each.
		{3, 3, [][]tap{{{0, 3}}, {{1, 3}}, {{2, 3}}}},
	}
	for _, tc := range tests {
		a := newAxis(tc.s, tc.d)
		var got [][]tap
		for i := 0; i < tc.d; i++ {
			var ts []tap
			for k := a.first[i]; k < a.first[i+1]; k++ {
				ts = append(ts, tap{int(a.src[k]), int(a.w[k])})
			}
			got = append(got, ts)
		}
		if !slices.EqualFunc(got, tc.want, slices.Equal) {
			t.Errorf("newAxis(%d, %d) = %v, want %v", tc.s, tc.d, got, tc.want)
		}
		if a.total != uint32(tc.s) {
			t.Errorf("newAxis(%d, %d).total = %d", tc.s, tc.d, a.total)
		}
	}
}

// Every output pixel's weights add up to S and cover the source pixels
// it overlaps, in order, for many sizes.
func TestAxisWeightsSum(t *testing.T) {
	for s := 1; s <= 40; s++ {
		for d := 1; d <= 40; d++ {
			a := newAxis(s, d)
			next := 0 // the first source pixel the next output may start at
			for i := 0; i < d; i++ {
				sum := uint32(0)
				for k := a.first[i]; k < a.first[i+1]; k++ {
					sum += a.w[k]
				}
				if sum != uint32(s) {
					t.Fatalf("S=%d D=%d: output %d weighs %d", s, d, i, sum)
				}
				if first := int(a.src[a.first[i]]); first != next && first != next-1 {
					t.Fatalf("S=%d D=%d: output %d starts at source %d after %d", s, d, i, first, next)
				}
				next = int(a.src[a.first[i+1]-1]) + 1
			}
			if next != s {
				t.Fatalf("S=%d D=%d: the last output ends at %d", s, d, next)
			}
		}
	}
}

// xrgb builds an XRGB8888 frame by hand (bytes B, G, R, X; X is set to
// 0x99 so that reading it as a colour would show) with pad bytes after
// each row.
func xrgb(w, h, pad int, px []uint32) (buf []byte, pitch int) {
	pitch = 4*w + pad
	buf = make([]byte, pitch*h)
	for i := range buf {
		buf[i] = 0xee // padding that must not be read
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := px[y*w+x]
			p := buf[y*pitch+4*x:]
			p[0], p[1], p[2], p[3] = byte(c), byte(c>>8), byte(c>>16), 0x99
		}
	}
	return buf, pitch
}

func scaleFrame(w, h, dw, dh int, px []uint32) []uint32 {
	buf, pitch := xrgb(w, h, 12, px)
	out := make([]uint32, dw*dh)
	newScaler(w, h, dw, dh).scale(out, buf, pitch, xrgbChans)
	return out
}

func TestScaleByHand(t *testing.T) {
	tests := []struct {
		name         string
		w, h, dw, dh int
		px, want     []uint32
	}{
		{
			// 2×2 → 1: R (10+20+30+42)/4 = 25.5 → 26 (halves round up),
			// G (20+30+40+50)/4 = 35, B (30+40+50+61)/4 = 45.25 → 45.
			"2x2 to 1", 2, 2, 1, 1,
			[]uint32{0x0a141e, 0x141e28, 0x1e2832, 0x2a323d},
			[]uint32{0x1a232d},
		},
		{
			// 3 → 2 along x: (2·0 + 1·90)/3 = 30; (1·90 + 2·255)/3 = 200.
			"3 to 2", 3, 1, 2, 1,
			[]uint32{0x000000, 0x5a0000, 0xff0000},
			[]uint32{0x1e0000, 0xc80000},
		},
		{
			// 2 → 3 along y: 0; (0 + 99)/2 = 49.5 → 50; 99.
			"2 to 3", 1, 2, 1, 3,
			[]uint32{0x000000, 0x000063},
			[]uint32{0x000000, 0x000032, 0x000063},
		},
		{
			// 4×4 → 2×2 in both directions: block averages.
			"4x4 to 2x2", 4, 4, 2, 2,
			[]uint32{
				0x000000, 0x000004, 0x400000, 0x400000,
				0x000008, 0x00000c, 0x400000, 0x400000,
				0x001000, 0x001000, 0xffffff, 0xffffff,
				0x001000, 0x001001, 0xffffff, 0xfffffd,
			},
			// (0+4+8+12)/4 = 6; 0x40; G 0x10 with B 1/4 → 0; white with
			// B (255·3 + 253)/4 = 254.5 → 255.
			[]uint32{0x000006, 0x400000, 0x001000, 0xffffff},
		},
	}
	for _, tc := range tests {
		if got := scaleFrame(tc.w, tc.h, tc.dw, tc.dh, tc.px); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %06x, want %06x", tc.name, got, tc.want)
		}
	}
}

// A frame of one colour stays exactly that colour at any size: vkcube's
// 0.2 grey background must not turn into 50 or 52 at the edges of the
// scaled picture.
func TestScaleUniform(t *testing.T) {
	const grey = 0x333333
	for _, sz := range [][4]int{{800, 600, 160, 120}, {7, 5, 3, 2}, {3, 3, 11, 7}, {640, 480, 173, 77}} {
		px := make([]uint32, sz[0]*sz[1])
		for i := range px {
			px[i] = grey
		}
		for i, c := range scaleFrame(sz[0], sz[1], sz[2], sz[3], px) {
			if c != grey {
				t.Fatalf("%v: pixel %d is %06x", sz, i, c)
			}
		}
	}
}

// Compare with a straightforward floating-point area average, written
// separately: for each output pixel, integrate the source over the
// rectangle it covers. The two may differ by 1 where the exact average is
// within rounding error of a half.
func TestScaleMatchesFloatAverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 30; n++ {
		w, h := 1+rng.IntN(30), 1+rng.IntN(30)
		dw, dh := 1+rng.IntN(30), 1+rng.IntN(30)
		px := make([]uint32, w*h)
		for i := range px {
			px[i] = rng.Uint32() & 0xffffff
		}
		got := scaleFrame(w, h, dw, dh, px)
		for oy := 0; oy < dh; oy++ {
			for ox := 0; ox < dw; ox++ {
				x0, x1 := float64(ox)*float64(w)/float64(dw), float64(ox+1)*float64(w)/float64(dw)
				y0, y1 := float64(oy)*float64(h)/float64(dh), float64(oy+1)*float64(h)/float64(dh)
				var sum [3]float64
				for y := 0; y < h; y++ {
					cy := min(y1, float64(y+1)) - max(y0, float64(y))
					if cy <= 0 {
						continue
					}
					for x := 0; x < w; x++ {
						cx := min(x1, float64(x+1)) - max(x0, float64(x))
						if cx <= 0 {
							continue
						}
						c := px[y*w+x]
						for k := 0; k < 3; k++ {
							sum[k] += cx * cy * float64(c>>(16-8*k)&0xff)
						}
					}
				}
				area := (x1 - x0) * (y1 - y0)
				g := got[oy*dw+ox]
				for k := 0; k < 3; k++ {
					want := sum[k] / area
					have := float64(g >> (16 - 8*k) & 0xff)
					if have < want-0.5-1e-6 || have > want+0.5+1e-6 {
						t.Fatalf("%dx%d→%dx%d pixel %d,%d channel %d: %v, float average %.4f", w, h, dw, dh, ox, oy, k, have, want)
					}
				}
			}
		}
	}
}
