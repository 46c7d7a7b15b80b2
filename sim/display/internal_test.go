package display

import (
	"testing"
	"time"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/uapi"
)

// The vblank times below are worked out by hand from the timings: a frame
// is htotal·vtotal pixels at the pixel clock.
func TestTimeline(t *testing.T) {
	// 1920x1080@60: 2200·1125 / 148.5 MHz = 1/60 s exactly.
	tl := newTimeline(&Mode1920x1080p60, 0, 0)
	for _, tc := range []struct {
		k    uint64
		want int64
	}{{0, 0}, {1, 16_666_666}, {2, 33_333_333}, {3, 50_000_000}, {60, 1_000_000_000}, {216_000, 3_600_000_000_000}} {
		if got := tl.at(tc.k); got != tc.want {
			t.Errorf("60 Hz vblank %d at %d ns, want %d", tc.k, got, tc.want)
		}
	}
	for _, tc := range []struct {
		t    int64
		want uint64
	}{{0, 0}, {16_666_665, 0}, {16_666_666, 1}, {33_333_332, 1}, {33_333_333, 2}, {999_999_999, 59}, {1_000_000_000, 60}} {
		if got := tl.passed(tc.t); got != tc.want {
			t.Errorf("vblanks by %d ns: %d, want %d", tc.t, got, tc.want)
		}
	}
	if seq, at := tl.next(16_666_666); seq != 2 || at != 33_333_333 {
		t.Errorf("next after vblank 1: %d at %d", seq, at)
	}
	if seq, at := tl.next(16_666_665); seq != 1 || at != 16_666_666 {
		t.Errorf("next just before vblank 1: %d at %d", seq, at)
	}
	if seq, at := tl.last(20_000_000); seq != 1 || at != 16_666_666 {
		t.Errorf("last at 20 ms: %d at %d", seq, at)
	}

	// 640x480@60: 800·525 / 25.175 MHz = 16 683 217.4776... ns, so
	// vblank 1000 is at 16 683 217 477 ns, not 1000 times the rounded
	// period; counting starts at base 7 from t0 = 5 s.
	tl = newTimeline(&Mode640x480p60, 5_000_000_000, 7)
	if got := tl.at(1000); got != 5_000_000_000+16_683_217_477 {
		t.Errorf("59.94 Hz vblank 1000 at %d", got)
	}
	if got := tl.count(5_000_000_000 + 16_683_217_477); got != 1007 {
		t.Errorf("count at vblank 1000: %d, want 1007", got)
	}
	if got := tl.count(4_000_000_000); got != 7 {
		t.Errorf("count before t0: %d, want the base 7", got)
	}
	if tl.period() != 16_683_217 {
		t.Errorf("period %v", tl.period())
	}

	// An interlaced mode has a vblank per field: 1920x1080i@60 (CEA VIC 5,
	// 74.25 MHz over 2200x1125) has fields every 1/60 s.
	i60 := uapi.ModeModeInfo{Clock: 74250, Hdisplay: 1920, HsyncStart: 2008, HsyncEnd: 2052, Htotal: 2200,
		Vdisplay: 1080, VsyncStart: 1084, VsyncEnd: 1094, Vtotal: 1125, Flags: uapi.ModeFlagInterlace | uapi.ModeFlagPHSync | uapi.ModeFlagPVSync}
	tl = newTimeline(&i60, 0, 0)
	if got := tl.at(3); got != 50_000_000 {
		t.Errorf("interlaced field 3 at %d", got)
	}
	if vrefresh(&i60) != 60 {
		t.Errorf("interlaced vrefresh %d", vrefresh(&i60))
	}
	setName(&i60)
	if got := (drm.ModeInfo{ModeModeInfo: i60}).Name(); got != "1920x1080i" {
		t.Errorf("interlaced name %q", got)
	}
	// Far ahead the arithmetic neither overflows nor drifts: a year of
	// 60 Hz frames is exactly 365·86400 s.
	tl = newTimeline(&Mode1920x1080p60, 0, 0)
	year := uint64(365 * 86400 * 60)
	if got := tl.at(year); got != int64(365*86400*time.Second) {
		t.Errorf("a year of vblanks ends at %d", got)
	}
	if got := tl.passed(int64(365 * 86400 * time.Second)); got != year {
		t.Errorf("a year holds %d vblanks", got)
	}
}

func TestVrefresh(t *testing.T) {
	for _, tc := range []struct {
		m    uapi.ModeModeInfo
		want uint32
	}{
		{Mode1920x1080p60, 60}, {Mode1920x1080p50, 50}, {Mode1280x720p50, 50},
		{Mode640x480p60, 60},  // 59.94
		{Mode800x600p60, 60},  // 60.32
		{Mode1024x768p60, 60}, // 60.004
		{uapi.ModeModeInfo{Clock: 1000, Htotal: 100, Vtotal: 100, Vscan: 2}, 50},
		{uapi.ModeModeInfo{Clock: 1000, Htotal: 100, Vtotal: 100, Flags: uapi.ModeFlagDblScan}, 50},
		{uapi.ModeModeInfo{Clock: 1000}, 0},
	} {
		if got := vrefresh(&tc.m); got != tc.want {
			t.Errorf("vrefresh(%+v) = %d, want %d", tc.m, got, tc.want)
		}
	}
}

func TestFormatModifiers(t *testing.T) {
	xr24, rg24, nv12 := lookupFormat(uapi.FormatXRGB8888), lookupFormat(uapi.Fourcc('R', 'G', '2', '4')), lookupFormat(uapi.Fourcc('N', 'V', '1', '2'))
	tiledWithParam := uint64(uapi.FormatModBroadcomVC4TTiled | 5<<8)
	for _, tc := range []struct {
		f    *format
		mod  uint64
		want bool
	}{
		{xr24, uapi.FormatModLinear, true},
		{xr24, uapi.FormatModBroadcomVC4TTiled, true},
		{xr24, tiledWithParam, true}, // fourcc_mod_broadcom_mod drops the parameter
		{xr24, 0x100, true},          // a "linear" with parameter bits passes the same switch
		{xr24, modBroadcomSAND128, false},
		{xr24, uapi.FormatModInvalid, false},
		{rg24, uapi.FormatModLinear, true},
		{rg24, 0x100, false}, // the default case wants exactly LINEAR
		{rg24, uapi.FormatModBroadcomVC4TTiled, false},
		{nv12, modBroadcomSAND128 | 96<<8, true},
		{nv12, uapi.FormatModBroadcomVC4TTiled, false},
	} {
		if got := tc.f.supports(tc.mod); got != tc.want {
			t.Errorf("%s with modifier %#x: %v, want %v", tc.f, tc.mod, got, tc.want)
		}
	}
	if len(Formats()) != 30 || Formats()[0] != uapi.FormatXRGB8888 {
		t.Errorf("formats %v: want vc4's 30 non-HVS5 formats, XR24 first", Formats())
	}
}

// TestClientPredictsTheKernelsTimings checks that package drm, which
// predicts on the client side what the kernel computes from a mode's
// timings (its rounded vrefresh and its vblank period), agrees with the
// simulated kernel's own computations (drm_mode_vrefresh; the vblank
// timeline of drm_calc_timestamping_constants) on every standard mode and
// on the interlaced, double-scan and vscan factors.
func TestClientPredictsTheKernelsTimings(t *testing.T) {
	modes := append(DefaultMonitor().Modes,
		timing(74250, 1920, 2008, 2052, 2200, 1080, 1084, 1094, 1125, uapi.ModeFlagInterlace),
		uapi.ModeModeInfo{Clock: 1000, Htotal: 100, Vtotal: 100, Vscan: 3},
		uapi.ModeModeInfo{Clock: 1000, Htotal: 100, Vtotal: 100, Flags: uapi.ModeFlagDblScan},
		uapi.ModeModeInfo{Clock: 1000})
	for _, m := range modes {
		client := drm.ModeInfo{ModeModeInfo: m}
		if got, want := client.VrefreshHz(), vrefresh(&m); got != want {
			t.Errorf("%s: drm predicts vrefresh %d, the kernel computes %d", modeString(&m), got, want)
		}
		if m.Clock == 0 || m.Htotal == 0 || m.Vtotal == 0 {
			continue
		}
		tl := newTimeline(&m, 0, 0)
		if got, want := client.FramePeriod(), tl.period(); got != want {
			t.Errorf("%s: drm predicts a frame period of %v, the kernel's vblanks come every %v", modeString(&m), got, want)
		}
	}
}

// period is the frame time in nanoseconds, rounded down.
func (tl *timeline) period() time.Duration { return time.Duration(tl.num / tl.den) }

// Formats lists the pixel formats (fourcc codes) the primary plane scans
// out, in the order vc4 lists them.
func Formats() []uint32 {
	out := make([]uint32, len(formats))
	for i := range formats {
		out[i] = formats[i].fourcc
	}
	return out
}
