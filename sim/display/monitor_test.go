package display_test

import (
	"image/color"
	"strings"
	"testing"

	"github.com/vccube/vccube/internal/simrig"
	"github.com/vccube/vccube/sim/display"
	"github.com/vccube/vccube/uapi"
)

// A monitor asked to prefer any size the Pi can scan out lists that mode
// first and preferred, as the kernel lists an EDID's first detailed timing,
// and the mode can be set and scanned out: odd sizes included.
func TestMonitorPreferringAnySize(t *testing.T) {
	for _, tc := range []struct {
		w, h    int
		milliHz uint64
		name    string // the mode's String on the connector
		clock   uint32 // kHz, 0: not checked
	}{
		{1280, 720, 50_000, "1280x720@50", 74250}, // CEA VIC 19, the standard mode
		{640, 480, 0, "640x480@60", 25175},        // DMT 0x04
		{1001, 701, 0, "1001x701@60", 0},          // made by CVT-RB
		{1, 1, 60_000, "1x1@60", 0},               // the smallest
		{33, 2047, 30_000, "33x2047@30", 0},       // narrow and tall
		{2048, 2048, 35_000, "2048x2048@35", 0},   // the largest, slow enough for the encoder
		{1366, 768, 0, "1366x768@60", 0},          // no multiple of 8, kept as asked
		{800, 600, 59_940, "800x600@60", 0},       // no standard 59.94 Hz 800x600: made at 59.94
	} {
		mon, err := display.MonitorPreferring(tc.w, tc.h, tc.milliHz)
		if err != nil {
			t.Errorf("%dx%d: %v", tc.w, tc.h, err)
			continue
		}
		r := newRig(t, display.Options{Monitor: &mon})
		f := r.open()
		modes := connectorModes(t, f)
		m := modes[0]
		if m.String() != tc.name || m.Type&uapi.ModeTypePreferred == 0 || int(m.Hdisplay) != tc.w || int(m.Vdisplay) != tc.h {
			t.Errorf("%dx%d: the connector's first mode is %s (type 0x%x), want %s, preferred", tc.w, tc.h, m, m.Type, tc.name)
			continue
		}
		if tc.clock != 0 && m.Clock != tc.clock {
			t.Errorf("%s: clock %d kHz, want the standard mode's %d", tc.name, m.Clock, tc.clock)
		}
		if m.Clock > 162000 {
			t.Errorf("%s: clock %d kHz, above the HDMI encoder's 162 MHz", tc.name, m.Clock)
		}
		for _, o := range modes[1:] {
			if o.Type&uapi.ModeTypePreferred != 0 {
				t.Errorf("%s: %s is preferred too", tc.name, o)
			}
		}
		// The mode is set on a framebuffer of its size, and the
		// scanout reads its last pixel.
		fb, pitch, pix := dumbFB(t, f, uint32(tc.w), uint32(tc.h))
		o := (tc.h-1)*int(pitch) + 4*(tc.w-1)
		pix[o], pix[o+1], pix[o+2] = 1, 2, 3
		setCrtc(t, f, fb, m)
		img := simrig.Scanout(t, r.disp)
		if got := img.RGBAAt(tc.w-1, tc.h-1); got != (color.RGBA{3, 2, 1, 255}) {
			t.Errorf("%s: the last pixel scans out as %v", tc.name, got)
		}
	}
}

// What a Pi 0-3 cannot scan out is refused with what would do.
func TestMonitorPreferringRefuses(t *testing.T) {
	for _, tc := range []struct {
		w, h    int
		milliHz uint64
		want    string
	}{
		{2049, 100, 0, "1 to 2048"},
		{100, 3000, 0, "1 to 2048"},
		{0, 10, 0, "1 to 2048"},
		{2048, 2048, 60_000, "ask for 2048x2048@35 or less"},
		{1920, 1080, 120_000, "above the HDMI encoder's 162 MHz"},
	} {
		_, err := display.MonitorPreferring(tc.w, tc.h, tc.milliHz)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%dx%d@%d mHz: %v, want an error saying %q", tc.w, tc.h, tc.milliHz, err, tc.want)
		}
	}
}
