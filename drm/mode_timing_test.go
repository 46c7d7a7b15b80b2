package drm

import (
	"testing"
	"time"

	"github.com/vccube/vccube/uapi"
)

// Frame periods worked out by hand from the modes' timings (the kernel's
// tables in drm_edid.c): htotal·vtotal·10⁶ / clock in kHz, truncated.
func TestFramePeriod(t *testing.T) {
	for _, c := range []struct {
		name           string
		clock          uint32
		htotal, vtotal uint16
		interlaced     bool
		want           time.Duration
	}{
		{"640x480@60 (DMT 0x04)", 25175, 800, 525, false, 16683217},   // 420000000000/25175
		{"800x600@60 (DMT 0x09)", 40000, 1056, 628, false, 16579200},  // 663168000000/40000
		{"1024x768@60 (DMT 0x10)", 65000, 1344, 806, false, 16665600}, // 1083264000000/65000
		{"1920x1080@60 (VIC 16)", 148500, 2200, 1125, false, 16666666},
		{"1920x1080i@60 (VIC 5): a field", 74250, 2200, 1125, true, 16666666},
		{"no clock", 0, 800, 525, false, 0},
	} {
		m := ModeInfo{}
		m.Clock, m.Htotal, m.Vtotal = c.clock, c.htotal, c.vtotal
		if c.interlaced {
			m.Flags = uapi.ModeFlagInterlace
		}
		if got := m.FramePeriod(); got != c.want {
			t.Errorf("%s: %d ns, want %d", c.name, got, c.want)
		}
	}
}

// Refresh rates as the kernel rounds them into vrefresh
// (drm_mode_vrefresh: DIV_ROUND_CLOSEST(clock·1000, htotal·vtotal)).
func TestVrefreshHz(t *testing.T) {
	for _, c := range []struct {
		clock          uint32
		htotal, vtotal uint16
		flags          uint32
		hz             uint32
		mhz            uint64
	}{
		{25175, 800, 525, 0, 60, 59940},                        // 640x480@60: 59.9405 Hz
		{40000, 1056, 628, 0, 60, 60317},                       // 800x600@60: 60.3165 Hz
		{148500, 2200, 1125, 0, 60, 60000},                     // 1920x1080@60
		{74250, 2200, 1125, uapi.ModeFlagInterlace, 60, 60000}, // 1080i: fields per second
		{0, 0, 0, 0, 0, 0},
	} {
		m := ModeInfo{uapi.ModeModeInfo{Clock: c.clock, Htotal: c.htotal, Vtotal: c.vtotal, Flags: c.flags}}
		if got := m.VrefreshHz(); got != c.hz {
			t.Errorf("%+v: VrefreshHz %d, want %d", c, got, c.hz)
		}
		if got := m.RefreshMilliHz(); got != c.mhz {
			t.Errorf("%+v: RefreshMilliHz %d, want %d", c, got, c.mhz)
		}
	}
}
