package present_test

import (
	"testing"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/uapi"
)

// frameLoop presents one frame the way a program does on a display that is
// not the GPU's card: acquire, copy the finished frame in, present.
func frameLoop(t testing.TB, w, h int) func() {
	f := newFakeKMS(t)
	f.connectors[0].modes = []drm.ModeInfo{mkMode("frame", 65000, uint16(w), 0, 0, uint16(w+64), uint16(h), 0, 0, uint16(h+8), 60,
		uapi.ModeTypePreferred, 0)}
	_, d := f, openOn(t, f)
	s := dumbChain(t, d, 2)
	src := make([]byte, w*h*4)
	return func() {
		b, err := s.Acquire()
		if err != nil {
			t.Fatal(err)
		}
		if err := b.CopyFrom(src, w*4); err != nil {
			t.Fatal(err)
		}
		if err := s.Present(b); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFrameLoopAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	frame := frameLoop(t, 64, 32)
	for i := 0; i < 4; i++ {
		frame() // the mode set and the first flips may allocate once
	}
	if n := testing.AllocsPerRun(200, frame); n != 0 {
		t.Errorf("%v allocations per frame, want 0", n)
	}
}

// BenchmarkFrame measures the CPU cost of presenting a 1024x768 frame
// through the dumb-buffer copy path against the fake device: Acquire,
// CopyFrom (3 MiB), Present, and the event wait.
func BenchmarkFrame(b *testing.B) {
	frame := frameLoop(b, 1024, 768)
	b.SetBytes(1024 * 768 * 4)
	b.ReportAllocs()
	for b.Loop() {
		frame()
	}
}

// BenchmarkCopyFrom measures the copy alone with differing pitches (row by
// row), the case of a renderer whose pitch is not the dumb buffer's.
func BenchmarkCopyFrom(b *testing.B) {
	f := newFakeKMS(b)
	d := openOn(b, f) // 1920x1080, pitch padded to 64 bytes: 7680
	buf, err := d.NewDumbBuffer()
	if err != nil {
		b.Fatal(err)
	}
	const srcPitch = 1920*4 + 256
	src := make([]byte, srcPitch*1080)
	b.SetBytes(1920 * 1080 * 4)
	b.ReportAllocs()
	for b.Loop() {
		if err := buf.CopyFrom(src, srcPitch); err != nil {
			b.Fatal(err)
		}
	}
}
