package bench

import (
	"testing"
	"time"

	"github.com/vccube/vccube/present"
)

// A 16 ms display (a round period so the cases read easily) and flips
// worked out by hand: each case gives the queue time of the flip, its
// completion's sequence and timestamp, and what it adds to the counts.
func TestPacingByHand(t *testing.T) {
	const P = 16 * time.Millisecond
	p := Pacing{Period: P, Classify: true}
	ms := func(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }
	steps := []struct {
		queued   time.Duration
		seq      uint32
		at       time.Duration
		late, aq uint64
	}{
		// The first completion only sets the reference: vblank 100 at 1600 ms.
		{ms(1590), 100, ms(1600), 0, 0},
		// Queued 6 ms after it, shown at the next vblank: nothing missed.
		{ms(1606), 101, ms(1616), 0, 0},
		// Queued 40 ms after vblank 101 (at 1656): vblanks 102 (1632) and
		// 103 (1648) passed before it; shown at 104 (1664): 2 late.
		{ms(1656), 104, ms(1664), 2, 0},
		// Queued at 1670, 6 ms before vblank 105 (1680), shown at 106
		// (1696): vblank 105 was missed after the flip was queued.
		{ms(1670), 106, ms(1696), 0, 1},
		// Queued at 1700 (after vblank 106), then a stall: shown at 109
		// (1744). Vblanks 107 (1712) and 108 (1728) came after the queue:
		// 2 after queueing, the earliest 12 ms after it.
		{ms(1700), 109, ms(1744), 0, 2},
		// Queued exactly at vblank 109's time + 16 ms = 1760, the time of
		// vblank 110, and shown at 111 (1776): a vblank at the very moment
		// of queueing counts as passed (the flip was not yet queued).
		{ms(1760), 111, ms(1776), 1, 0},
	}
	var late, aq uint64
	for i, s := range steps {
		p.Queued(s.queued)
		p.Flip(present.Flip{N: uint64(i + 1), Sequence: s.seq, Time: s.at})
		late += s.late
		aq += s.aq
		if p.late != late || p.afterQ != aq {
			t.Errorf("after flip %d: %d late, %d after queueing; want %d, %d", i+1, p.late, p.afterQ, late, aq)
		}
	}
	if p.marginMax != 12*time.Millisecond {
		t.Errorf("largest margin %v, want 12ms (flip 5: queued at 1700, vblank 107 at 1712)", p.marginMax)
	}
	if p.errMax != 0 {
		t.Errorf("interval error %v on exact timestamps", p.errMax)
	}
}

// Intervals are checked against the sequence step times the period: a
// timestamp 3 µs off shows as an error of 3 µs, whatever the step.
func TestPacingIntervalError(t *testing.T) {
	const P = 16683217 * time.Nanosecond // 640x480@60: 800·525 pixels at 25175 kHz
	p := Pacing{Period: P}
	// Timestamps in whole µs, as events carry them (tv_usec).
	us := func(d time.Duration) time.Duration { return d / time.Microsecond * time.Microsecond }
	t0 := 5 * time.Second
	p.Flip(present.Flip{Sequence: 10, Time: us(t0)})
	p.Flip(present.Flip{Sequence: 11, Time: us(t0 + P)})
	if p.errMax > time.Microsecond {
		t.Errorf("one exact step: error %v, want at most the 1 µs of rounding", p.errMax)
	}
	// Sequence 14, 3 µs late: at 5.066732868 s truncated to 5.066732 s,
	// plus 3 µs. From 5.016683 s that is 50.052 ms over a step of three,
	// 3·P = 50.049651 ms: an error of 2.349 µs.
	p.Flip(present.Flip{Sequence: 14, Time: us(t0+4*P) + 3*time.Microsecond})
	if p.errMax != 2349*time.Nanosecond {
		t.Errorf("a timestamp 3 µs late: error %v, want 2.349µs", p.errMax)
	}
	// Without Classify the missed vblanks are not split.
	if p.late != 0 || p.afterQ != 0 {
		t.Errorf("split without Classify: %d, %d", p.late, p.afterQ)
	}
}

func TestPacingAllocatesNothing(t *testing.T) {
	p := Pacing{Period: 16 * time.Millisecond, Classify: true}
	seq := uint32(0)
	if a := testing.AllocsPerRun(1000, func() {
		seq += 2
		p.Queued(time.Duration(seq) * 16 * time.Millisecond)
		p.Flip(present.Flip{Sequence: seq, Time: time.Duration(seq) * 16 * time.Millisecond})
	}); a != 0 {
		t.Errorf("%v allocations per flip", a)
	}
}
