// Package bench measures vccube's frame loop the way kmscube reports it and
// adds what a benchmark of a GPU path needs: the frame count and time
// excluding frame 0 (kmscube's common.c starts its CLOCK_MONOTONIC clock at
// frame 1, so start-up costs are left out), the fps, frame-time percentiles
// from a fixed-size histogram (so recording a frame never allocates), and a
// report for people (kmscube's "Rendered N frames in S sec (F fps)", so the
// numbers compare with kmscube's on the same board) and for machines (JSON).
package bench

import (
	"math/bits"
	"time"
)

// Histogram counts durations in buckets of bounded relative width, so that
// percentiles over any number of frames cost a fixed 64 KiB and recording
// allocates nothing. Durations are kept in microseconds: below 1024 µs
// each microsecond has its own bucket; above, each power of two is split
// into 512 buckets, so a bucket is at most 0.2 % of its value wide. The
// largest duration is kept exactly.
type Histogram struct {
	counts [histBuckets]uint32
	n      uint64
	max    time.Duration
}

const (
	histLinear  = 1024 // exact microsecond buckets below this
	histSub     = 512  // buckets per power of two above it
	histOctaves = 30   // 1024 µs · 2^30 ≈ 12 days: longer frames share the last bucket
	histBuckets = histLinear + histOctaves*histSub
)

// bucket returns the bucket of a duration of us microseconds.
func bucket(us uint64) int {
	if us < histLinear {
		return int(us)
	}
	e := bits.Len64(us) - 10 // us >> e is in [512, 1024)
	if e > histOctaves {
		return histBuckets - 1
	}
	return histLinear + (e-1)*histSub + int(us>>uint(e)) - histSub
}

// lower returns the smallest duration in microseconds that falls in bucket
// b.
func lower(b int) uint64 {
	if b < histLinear {
		return uint64(b)
	}
	b -= histLinear
	e := b/histSub + 1
	return uint64(b%histSub+histSub) << uint(e)
}

// Add counts one duration (negative ones as 0).
func (h *Histogram) Add(d time.Duration) {
	if d < 0 {
		d = 0
	}
	h.counts[bucket(uint64(d/time.Microsecond))]++
	h.n++
	if d > h.max {
		h.max = d
	}
}

// Count returns the number of durations added.
func (h *Histogram) Count() uint64 { return h.n }

// Max returns the largest duration added.
func (h *Histogram) Max() time.Duration { return h.max }

// Percentile returns the duration below which p percent of the added
// durations fall (nearest rank: the ceil(p/100·n)-th smallest), to the
// resolution of its bucket (the bucket's lower bound, never more than
// Max; the 100th percentile is Max itself), or 0 for an empty histogram.
func (h *Histogram) Percentile(p float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(p / 100 * float64(h.n))
	if float64(rank) < p/100*float64(h.n) {
		rank++
	}
	if rank < 1 {
		rank = 1
	}
	if rank >= h.n {
		return h.max // the largest is known exactly
	}
	var seen uint64
	for b, c := range h.counts {
		seen += uint64(c)
		if seen >= rank {
			d := time.Duration(lower(b)) * time.Microsecond
			if d > h.max {
				d = h.max
			}
			return d
		}
	}
	return h.max
}
