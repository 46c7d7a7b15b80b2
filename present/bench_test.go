package present_test

import (
	"testing"

	"github.com/vccube/vccube/present"
	"github.com/vccube/vccube/sim/display"
	"github.com/vccube/vccube/uapi"
)

// monitorOf is a monitor whose one mode is w x h at 60 Hz (its blanking
// 16 pixels and 8 lines, the clock rounded to the kHz).
func monitorOf(w, h uint16) *display.Monitor {
	ht, vt := uint32(w)+16, uint32(h)+8
	m := uapi.ModeModeInfo{Clock: (ht*vt*60 + 999) / 1000, Hdisplay: w, HsyncStart: w + 2, HsyncEnd: w + 4, Htotal: uint16(ht),
		Vdisplay: h, VsyncStart: h + 2, VsyncEnd: h + 4, Vtotal: uint16(vt), Type: uapi.ModeTypePreferred}
	return &display.Monitor{Modes: []uapi.ModeModeInfo{m}}
}

// frameLoop presents one frame the way a program does on a display that is
// not the GPU's card: acquire, copy the finished frame in, present; on the
// simulated display under its virtual clock, where each flip completes at
// its vblank.
func frameLoop(t testing.TB, w, h int) func() { return frameLoopWith(t, w, h, false) }

// frameLoopWith is frameLoop, with atomic commits if atomic.
func frameLoopWith(t testing.TB, w, h int, atomic bool) func() {
	r := newRig(t, rigOptions{monitor: monitorOf(uint16(w), uint16(h))})
	d := openOn(t, r.conn)
	if atomic {
		if err := d.EnableAtomic(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() }) // closes the pending commit's out-fence
	}
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

// The frame loop allocates nothing: neither present nor, today, the
// simulated device under it (sim/display's TestPageFlipDoesNotAllocate).
func TestFrameLoopAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	for _, atomic := range []bool{false, true} {
		frame := frameLoopWith(t, 64, 32, atomic)
		for i := 0; i < 4; i++ {
			frame() // the mode set and the first flips may allocate once
		}
		if n := testing.AllocsPerRun(200, frame); n != 0 {
			t.Errorf("atomic %v: %v allocations per frame, want 0", atomic, n)
		}
	}
}

// BenchmarkFrame measures the CPU cost of presenting a 1024x768 frame
// through the dumb-buffer copy path on the simulated display: Acquire,
// CopyFrom (3 MiB), Present, and the event wait, the device's own cost
// included.
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
	buf := &present.Buffer{Width: 1920, Height: 1080, Pitch: 7680, Pixels: make([]byte, 7680*1080)}
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
