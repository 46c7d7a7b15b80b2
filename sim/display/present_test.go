package display_test

import (
	"image/color"
	"testing"
	"time"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/internal/simrig"
	"github.com/vccube/vccube/present"
	"github.com/vccube/vccube/sim/display"
)

// TestPresentOnTheSimulatedDisplay drives the display with the program's
// own presentation package: mode choice, SETCRTC for the first frame,
// page flips with events, and the CRTC put back at the end.
func TestPresentOnTheSimulatedDisplay(t *testing.T) {
	r := newRig(t, display.Options{})
	f := r.open()
	d, err := present.Open(f, present.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if d.String() != "HDMI-A-1 1920x1080@60 on CRTC 95" {
		t.Fatalf("present chose %s", d)
	}
	var bufs []*present.Buffer
	for i := 0; i < 2; i++ {
		b, err := d.NewDumbBuffer()
		if err != nil {
			t.Fatal(err)
		}
		bufs = append(bufs, b)
	}
	sc, err := d.NewSwapchain(bufs...)
	if err != nil {
		t.Fatal(err)
	}
	const frames = 30
	for i := 0; i < frames; i++ {
		b, err := sc.Acquire()
		if err != nil {
			t.Fatal(err)
		}
		for o := 0; o < len(b.Pixels); o += 4 { // XRGB8888: B, G, R, X
			b.Pixels[o], b.Pixels[o+1], b.Pixels[o+2] = byte(i), 0x40, 0x80
		}
		if err := sc.Present(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := sc.Wait(); err != nil {
		t.Fatal(err)
	}
	st := sc.Stats()
	// The first frame is the modeset, the 29 others flips on consecutive
	// vblanks 1/60 s apart (to the µs the events keep).
	if !st.ModeSet || st.Flips != frames-1 || st.Completed != frames-1 || st.Missed != 0 ||
		st.LastSequence-st.FirstSequence != frames-2 ||
		st.MinInterval < 16666*time.Microsecond || st.MaxInterval > 16667*time.Microsecond {
		t.Fatalf("stats %+v", st)
	}
	img := simrig.Scanout(t, r.disp)
	if got, want := img.RGBAAt(1000, 500), (color.RGBA{0x80, 0x40, frames - 1, 0xff}); got != want {
		t.Fatalf("the screen shows %v, want the last frame's %v", got, want)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	// The CRTC was off when present.Open found it; Restore turns it off.
	if c, err := drm.GetCrtc(f, display.CrtcID); err != nil || c.ModeValid {
		t.Fatalf("CRTC after Close %+v, %v", c, err)
	}
}
