package present_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/present"
	"github.com/vccube/vccube/uapi"
)

func TestParseModeSpec(t *testing.T) {
	good := []struct {
		in   string
		want present.ModeSpec
		str  string
	}{
		{"", present.ModeSpec{}, "the preferred mode"},
		{"1280x720", present.ModeSpec{Width: 1280, Height: 720}, "1280x720"},
		{"1280X720@60", present.ModeSpec{Width: 1280, Height: 720, RefreshMilliHz: 60000}, "1280x720@60"},
		{"1920x1080@59.94", present.ModeSpec{Width: 1920, Height: 1080, RefreshMilliHz: 59940, Exact: true}, "1920x1080@59.94"},
		{"1920x1080i@60", present.ModeSpec{Width: 1920, Height: 1080, Interlaced: true, RefreshMilliHz: 60000}, "1920x1080i@60"},
		{"640x480i", present.ModeSpec{Width: 640, Height: 480, Interlaced: true}, "640x480i"},
	}
	for _, g := range good {
		got, err := present.ParseModeSpec(g.in)
		if err != nil || got != g.want {
			t.Errorf("ParseModeSpec(%q) = %+v, %v; want %+v", g.in, got, err, g.want)
			continue
		}
		if s := got.String(); s != g.str {
			t.Errorf("ParseModeSpec(%q).String() = %q, want %q", g.in, s, g.str)
		}
	}
	for _, in := range []string{"1280", "x720", "1280x", "0x720", "1280x0", "1280x720@", "1280x720@abc",
		"1280x720@0", "1280x720@-60", "70000x480", "1280x720x3", "1280 x 720", "axb"} {
		_, err := present.ParseModeSpec(in)
		if !errors.Is(err, present.ErrBadModeSpec) {
			t.Errorf("ParseModeSpec(%q) = %v, want ErrBadModeSpec", in, err)
			continue
		}
		if !strings.Contains(err.Error(), "1280x720@60") {
			t.Errorf("ParseModeSpec(%q) error %q does not show the form to use", in, err)
		}
	}
}

// mkMode builds a mode from its timings; hz is the kernel's rounded
// vrefresh.
func mkMode(name string, clock uint32, h, hss, hse, ht, v, vss, vse, vt uint16, hz, typ, flags uint32) drm.ModeInfo {
	var m drm.ModeInfo
	m.Clock, m.Hdisplay, m.HsyncStart, m.HsyncEnd, m.Htotal = clock, h, hss, hse, ht
	m.Vdisplay, m.VsyncStart, m.VsyncEnd, m.Vtotal = v, vss, vse, vt
	m.Vrefresh, m.Type, m.Flags = hz, typ, flags
	copy(m.ModeModeInfo.Name[:], name)
	return m
}

// Modes from CEA-861 and VESA DMT (the timings a Pi's HDMI port and VKMS
// list, drm_edid.c), with the kernel's rounded rates: mode choice is
// tested on them, including the 59.94 Hz and interlaced variants the
// simulated monitor does not offer.
var (
	cea1080p60   = mkMode("1920x1080", 148500, 1920, 2008, 2052, 2200, 1080, 1084, 1089, 1125, 60, uapi.ModeTypeDriver|uapi.ModeTypePreferred, uapi.ModeFlagPHSync|uapi.ModeFlagPVSync)
	cea1080p5994 = mkMode("1920x1080", 148352, 1920, 2008, 2052, 2200, 1080, 1084, 1089, 1125, 60, uapi.ModeTypeDriver, uapi.ModeFlagPHSync|uapi.ModeFlagPVSync)
	cea1080p50   = mkMode("1920x1080", 148500, 1920, 2448, 2492, 2640, 1080, 1084, 1089, 1125, 50, uapi.ModeTypeDriver, uapi.ModeFlagPHSync|uapi.ModeFlagPVSync)
	cea1080i60   = mkMode("1920x1080i", 74250, 1920, 2008, 2052, 2200, 1080, 1084, 1094, 1125, 60, uapi.ModeTypeDriver, uapi.ModeFlagPHSync|uapi.ModeFlagPVSync|uapi.ModeFlagInterlace)
	cea720p60    = mkMode("1280x720", 74250, 1280, 1390, 1430, 1650, 720, 725, 730, 750, 60, uapi.ModeTypeDriver, uapi.ModeFlagPHSync|uapi.ModeFlagPVSync)
	cea720p50    = mkMode("1280x720", 74250, 1280, 1720, 1760, 1980, 720, 725, 730, 750, 50, uapi.ModeTypeDriver, uapi.ModeFlagPHSync|uapi.ModeFlagPVSync)
	dmt1024x768  = mkMode("1024x768", 65000, 1024, 1048, 1184, 1344, 768, 771, 777, 806, 60, uapi.ModeTypeDriver, uapi.ModeFlagNHSync|uapi.ModeFlagNVSync)
	dmt640x480   = mkMode("640x480", 25175, 640, 656, 752, 800, 480, 490, 492, 525, 60, uapi.ModeTypeDriver, uapi.ModeFlagNHSync|uapi.ModeFlagNVSync)
)

// connectorWith is a connected HDMI-A-1 listing modes in the given order.
func connectorWith(modes ...drm.ModeInfo) *drm.Connector {
	return &drm.Connector{ID: 61, Type: uapi.ConnectorHDMIA, TypeID: 1, Status: uapi.StatusConnected, Modes: modes}
}

func TestChooseModeDefault(t *testing.T) {
	// The preferred mode wins even when listed later.
	c := connectorWith(cea720p60, cea1080p50, cea1080p60)
	if m, err := present.ChooseMode(c, present.ModeSpec{}); err != nil || m != cea1080p60 {
		t.Errorf("preferred: got %v, %v; want the preferred 1080p60", m, err)
	}
	// Without a preferred mode: the largest, and of two of that size the
	// faster one (kmscube takes the largest area).
	var unpreferred = cea1080p60
	unpreferred.Type = uapi.ModeTypeDriver
	c = connectorWith(cea720p60, cea1080p50, unpreferred, dmt640x480)
	if m, err := present.ChooseMode(c, present.ModeSpec{}); err != nil || m != unpreferred {
		t.Errorf("largest: got %v, %v; want 1920x1080 at 60 Hz", m, err)
	}
	c = connectorWith()
	if _, err := present.ChooseMode(c, present.ModeSpec{}); !errors.Is(err, present.ErrNoDisplay) {
		t.Errorf("no modes: got %v, want ErrNoDisplay", err)
	}
}

func TestChooseModeBySpec(t *testing.T) {
	c := connectorWith(cea1080p60, cea1080p5994, cea1080p50, cea1080i60, cea720p60, cea720p50, dmt640x480)
	cases := []struct {
		spec string
		want drm.ModeInfo
	}{
		{"1280x720", cea720p60},           // the first listed of that size
		{"1280x720@50", cea720p50},        // by rate
		{"1920x1080@60", cea1080p60},      // "@60" is the rounded rate: the first listed
		{"1920x1080@59.94", cea1080p5994}, // 148352 kHz / (2200*1125) = 59.9402 Hz
		{"1920x1080@60.00", cea1080p60},   // 148500 kHz / (2200*1125) = 60.000 Hz
		{"1920x1080@50", cea1080p50},
		{"1920x1080i", cea1080i60}, // only the interlaced mode
		{"1920x1080i@60", cea1080i60},
		{"640x480@60", dmt640x480}, // 25175 kHz / (800*525) = 59.94 Hz, vrefresh 60
	}
	for _, tc := range cases {
		spec, err := present.ParseModeSpec(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		m, err := present.ChooseMode(c, spec)
		if err != nil || m != tc.want {
			t.Errorf("%s: got %v (%d kHz), %v; want %v (%d kHz)", tc.spec, m, m.Clock, err, tc.want, tc.want.Clock)
		}
	}
}

func TestChooseModeUnknownListsModes(t *testing.T) {
	c := connectorWith(cea1080p60, cea1080p5994, cea1080p50, cea1080i60, cea720p60, dmt640x480)
	for _, spec := range []string{"1366x768", "1280x720@50", "1920x1080@30", "1920x1080@59.90", "640x480i"} {
		s, _ := present.ParseModeSpec(spec)
		_, err := present.ChooseMode(c, s)
		if !errors.Is(err, present.ErrUnknownMode) {
			t.Fatalf("%s: got %v, want ErrUnknownMode", spec, err)
		}
		// Each size and rate once, in the kernel's order, the preferred marked.
		list := "1920x1080@60 (preferred), 1920x1080@50, 1920x1080i@60, 1280x720@60, 640x480@60"
		if !strings.HasSuffix(err.Error(), "HDMI-A-1 offers no "+s.String()+"; choose one of: "+list) {
			t.Errorf("%s: error %q does not end with the mode list %q", spec, err, list)
		}
	}
}
