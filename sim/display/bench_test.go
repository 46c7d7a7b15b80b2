package display_test

import (
	"testing"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/sim/display"
	"github.com/vccube/vccube/uapi"
)

// flipLoop sets up a CRTC with two framebuffers and returns a function
// that flips to the other one and reads the event, as a program's frame
// loop does.
func flipLoop(tb testing.TB, opts display.Options) func() {
	r := newRig(tb, opts)
	f := r.openNonblock()
	a, _, _ := dumbFB(tb, f, 1920, 1080)
	b, _, _ := dumbFB(tb, f, 1920, 1080)
	setCrtc(tb, f, a, modeNamed(tb, f, "1920x1080@60"))
	events := drm.NewEventReader(f)
	arg := &uapi.ModeCrtcPageFlip{CrtcID: display.CrtcID, Flags: uapi.PageFlipEvent}
	fbs := [2]uint32{b, a}
	i := 0
	return func() {
		arg.FbID, arg.UserData = fbs[i&1], uint64(i)
		i++
		if err := drm.PageFlip(f, arg); err != nil {
			tb.Fatal(err)
		}
		if _, err := events.Next(); err != nil {
			tb.Fatal(err)
		}
	}
}

// TestPageFlipDoesNotAllocate: a frame's flip and its event allocate
// nothing in the display (nor, today, in the device around it).
func TestPageFlipDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	step := flipLoop(t, display.Options{})
	step()
	if n := testing.AllocsPerRun(100, step); n != 0 {
		t.Fatalf("a page flip and its event allocate %.1f times", n)
	}
	// With a hook the completed flips are handed over without allocating.
	calls := 0
	step = flipLoop(t, display.Options{OnFlip: func(display.Flip) { calls++ }})
	step()
	if n := testing.AllocsPerRun(100, step); n != 0 {
		t.Fatalf("a page flip with an OnFlip hook allocates %.1f times", n)
	}
	if calls < 100 {
		t.Fatalf("OnFlip called %d times", calls)
	}
}

// BenchmarkPageFlip measures PAGE_FLIP and reading its event through the
// simulated device under the virtual clock: the simulator's cost per
// presented frame.
func BenchmarkPageFlip(b *testing.B) {
	step := flipLoop(b, display.Options{})
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		step()
	}
}

// BenchmarkReadScanout1080p measures copying a 1920x1080 XRGB8888
// scanout and converting it to RGBA, what a capture or viewer does per
// frame.
func BenchmarkReadScanout1080p(b *testing.B) {
	r := newRig(b, display.Options{})
	f := r.open()
	fb, _, _ := dumbFB(b, f, 1920, 1080)
	setCrtc(b, f, fb, modeNamed(b, f, "1920x1080@60"))
	var fr display.Frame
	if err := r.disp.ReadScanout(&fr); err != nil {
		b.Fatal(err)
	}
	img, err := fr.Image()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(1920 * 1080 * 4)
	b.ResetTimer()
	for range b.N {
		if err := r.disp.ReadScanout(&fr); err != nil {
			b.Fatal(err)
		}
		if err := fr.DrawInto(img); err != nil {
			b.Fatal(err)
		}
	}
}
