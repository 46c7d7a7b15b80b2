package bench

import (
	"bytes"
	"testing"
	"time"

	"github.com/vccube/vccube/report"
)

// Bucket boundaries worked out by hand: exact below 1024 µs; 1024–2047 µs
// in steps of 2 µs (buckets 1024–1535); 2048–4095 µs in steps of 4 µs.
func TestBuckets(t *testing.T) {
	for _, c := range []struct {
		us    uint64
		b     int
		lower uint64
	}{
		{0, 0, 0}, {1, 1, 1}, {1023, 1023, 1023},
		{1024, 1024, 1024}, {1025, 1024, 1024}, {1026, 1025, 1026}, {2047, 1535, 2046},
		{2048, 1536, 2048}, {2051, 1536, 2048}, {2052, 1537, 2052},
		{16667, 1024 + 4*512 + (16667 >> 5) - 512, (16667 >> 5) << 5}, // 16384–32767 µs: steps of 32 µs
	} {
		if b := bucket(c.us); b != c.b || lower(b) != c.lower {
			t.Errorf("%d µs: bucket %d (lower %d), want %d (lower %d)", c.us, b, lower(b), c.b, c.lower)
		}
	}
	if bucket(1<<62) != histBuckets-1 {
		t.Error("huge duration outside the last bucket")
	}
	// Every bucket's lower bound maps back to it, and buckets grow.
	for b := 1; b < histBuckets; b++ {
		if bucket(lower(b)) != b || lower(b) <= lower(b-1) {
			t.Fatalf("bucket %d: lower %d", b, lower(b))
		}
	}
}

// 100 frames of 1..100 ms: nearest-rank p50 is the 50th smallest (50 ms),
// p90 the 90th, p99 the 99th; max 100 ms. Buckets near 50 ms are 64 µs
// wide (32768–65535 µs, 512 per octave).
func TestPercentiles(t *testing.T) {
	var h Histogram
	for i := 100; i >= 1; i-- {
		h.Add(time.Duration(i) * time.Millisecond)
	}
	near := func(got, want time.Duration) bool {
		return got <= want && want-got < want/256
	}
	if p := h.Percentile(50); !near(p, 50*time.Millisecond) {
		t.Errorf("p50 %v", p)
	}
	if p := h.Percentile(90); !near(p, 90*time.Millisecond) {
		t.Errorf("p90 %v", p)
	}
	if p := h.Percentile(99); !near(p, 99*time.Millisecond) {
		t.Errorf("p99 %v", p)
	}
	if h.Max() != 100*time.Millisecond || h.Percentile(100) != 100*time.Millisecond || h.Count() != 100 {
		t.Errorf("max %v p100 %v n %d", h.Max(), h.Percentile(100), h.Count())
	}
	var empty Histogram
	if empty.Percentile(50) != 0 {
		t.Error("empty histogram")
	}
}

// A fake clock: frame 0 takes 500 ms (not counted), then 10 frames of
// 16 ms with a 1 s pause in the middle.
func TestRecorderLikeKmscube(t *testing.T) {
	var now, cpu time.Duration
	r := Recorder{Now: func() time.Duration { return now }, CPU: func() time.Duration { return cpu }}
	r.FrameStart(0)
	now += 500 * time.Millisecond
	cpu += 400 * time.Millisecond
	if r.FrameEnd(0) {
		t.Error("line due after frame 0")
	}
	due := 0
	for f := uint64(1); f <= 10; f++ {
		r.FrameStart(f)
		now += 16 * time.Millisecond
		cpu += 9 * time.Millisecond
		if r.FrameEnd(f) {
			due++
		}
		if f == 5 {
			r.Pause()
			now += time.Second
			cpu += 3 * time.Millisecond // the terminal view, say
			r.Resume()
		}
	}
	if r.Frames() != 10 || r.Elapsed() != 160*time.Millisecond || due != 0 {
		t.Errorf("frames %d elapsed %v due %d", r.Frames(), r.Elapsed(), due)
	}
	// CPU time counts like the clock: frame 0 and the pause left out.
	if r.CPUTime() != 90*time.Millisecond {
		t.Errorf("CPU time %v, want 90ms", r.CPUTime())
	}
	var b bytes.Buffer
	if err := r.Line(&b); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "Rendered 10 frames in 0.160000 sec (62.500000 fps)\n"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
	ft := r.FrameTimes()
	if ft.P50 != 16*time.Millisecond || ft.Max != 16*time.Millisecond {
		t.Errorf("frame times %+v", ft)
	}
	// A line is due once more than 2 s have passed since the last.
	now += 2*time.Second + 1
	r.FrameStart(11)
	if !r.FrameEnd(11) {
		t.Error("no line due after 2 s")
	}
}

// ProcessCPU reads a clock that moves with work.
func TestProcessCPU(t *testing.T) {
	start := ProcessCPU()
	x := 1.0
	for i := 0; i < 1e7 && ProcessCPU() == start; i++ {
		x = x*1.0000001 + 1e-9
	}
	if ProcessCPU() <= start || x == 0 {
		t.Errorf("CPU time did not move: %v", start)
	}
}

func TestRecorderAllocatesNothing(t *testing.T) {
	var r Recorder
	f := uint64(0)
	if a := testing.AllocsPerRun(1000, func() { r.FrameStart(f); r.FrameEnd(f); f++ }); a != 0 {
		t.Errorf("%v allocations per frame", a)
	}
}

// Fill copies kmscube's numbers and the percentiles into the report.
func TestFill(t *testing.T) {
	now, cpu := time.Duration(0), time.Duration(0)
	r := Recorder{Now: func() time.Duration { return now }, CPU: func() time.Duration { return cpu }}
	for f := uint64(0); f < 5; f++ {
		r.FrameStart(f)
		now += 20 * time.Millisecond
		cpu += 30 * time.Millisecond // two threads busy part of the time
		r.FrameEnd(f)
	}
	var rep report.Report
	r.Fill(&rep)
	// Frames 1-4 from frame 1's start: 4 frames in 80 ms, 50 fps, 120 ms
	// of CPU time.
	if rep.Frames != 4 || rep.Seconds != 0.08 || rep.FPS != 50 || rep.FrameTimeMs.P50 != 20 || rep.FrameTimeMs.Max != 20 ||
		rep.CPUSeconds != 0.12 || rep.CPUMsPerFrame != 30 {
		t.Errorf("report %+v", rep)
	}
}
