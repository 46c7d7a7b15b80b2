package display

import (
	"fmt"
	"sort"

	"github.com/vccube/vccube/uapi"
)

// Monitor is the display plugged into the HDMI connector, as its EDID
// would describe it: its physical size and its modes.
type Monitor struct {
	// WidthMM and HeightMM are the picture's physical size (the EDID's
	// detailed timing image size), which GETCONNECTOR reports.
	WidthMM, HeightMM uint32
	// Modes are the display's timings in any order; exactly one should
	// carry uapi.ModeTypePreferred. Only the timing fields, Flags and the
	// PREFERRED bit of Type are read: the connector names each mode,
	// derives its refresh rate and marks it DRIVER, as the kernel's EDID
	// parser does (drm_edid.c, drm_modes.c: drm_mode_set_name,
	// drm_mode_vrefresh).
	Modes []uapi.ModeModeInfo
}

// Timings of the standard modes (clock in kHz; h: display, sync start, sync
// end, total; v: the same; sync polarities). They are the entries of the
// kernel's tables in drm_edid.c: edid_cea_modes_1[] for the CEA-861 modes
// (VIC numbers below) and drm_dmt_modes[] for the VESA DMT ones (DMT ids).
var (
	// Mode1920x1080p60 is CEA-861 VIC 16, 1920x1080@60: 148.5 MHz.
	Mode1920x1080p60 = timing(148500, 1920, 2008, 2052, 2200, 1080, 1084, 1089, 1125, uapi.ModeFlagPHSync|uapi.ModeFlagPVSync)
	// Mode1920x1080p50 is CEA-861 VIC 31, 1920x1080@50.
	Mode1920x1080p50 = timing(148500, 1920, 2448, 2492, 2640, 1080, 1084, 1089, 1125, uapi.ModeFlagPHSync|uapi.ModeFlagPVSync)
	// Mode1280x1024p60 is VESA DMT 0x23, 1280x1024@60.
	Mode1280x1024p60 = timing(108000, 1280, 1328, 1440, 1688, 1024, 1025, 1028, 1066, uapi.ModeFlagPHSync|uapi.ModeFlagPVSync)
	// Mode1280x720p60 is CEA-861 VIC 4, 1280x720@60.
	Mode1280x720p60 = timing(74250, 1280, 1390, 1430, 1650, 720, 725, 730, 750, uapi.ModeFlagPHSync|uapi.ModeFlagPVSync)
	// Mode1280x720p50 is CEA-861 VIC 19, 1280x720@50.
	Mode1280x720p50 = timing(74250, 1280, 1720, 1760, 1980, 720, 725, 730, 750, uapi.ModeFlagPHSync|uapi.ModeFlagPVSync)
	// Mode1024x768p60 is VESA DMT 0x10, 1024x768@60.
	Mode1024x768p60 = timing(65000, 1024, 1048, 1184, 1344, 768, 771, 777, 806, uapi.ModeFlagNHSync|uapi.ModeFlagNVSync)
	// Mode800x600p60 is VESA DMT 0x09, 800x600@60, the mode of the
	// bare-metal cube vccube is modelled on (the post "vc4: cube demo –
	// 'from scratch'", 2023-07-04).
	Mode800x600p60 = timing(40000, 800, 840, 968, 1056, 600, 601, 605, 628, uapi.ModeFlagPHSync|uapi.ModeFlagPVSync)
	// Mode640x480p60 is VESA DMT 0x04 and CEA-861 VIC 1, 640x480@60
	// (25.175 MHz, 59.94 Hz).
	Mode640x480p60 = timing(25175, 640, 656, 752, 800, 480, 490, 492, 525, uapi.ModeFlagNHSync|uapi.ModeFlagNVSync)
)

func timing(clock uint32, hd, hss, hse, ht, vd, vss, vse, vt uint16, flags uint32) uapi.ModeModeInfo {
	return uapi.ModeModeInfo{Clock: clock, Hdisplay: hd, HsyncStart: hss, HsyncEnd: hse, Htotal: ht,
		Vdisplay: vd, VsyncStart: vss, VsyncEnd: vse, Vtotal: vt, Flags: flags}
}

// DefaultMonitor is a typical 24-inch full-HD HDMI monitor: 527x296 mm,
// preferring 1920x1080@60 and also offering the usual CEA and DMT modes,
// among them 1280x720@60 and 800x600@60.
func DefaultMonitor() Monitor {
	preferred := Mode1920x1080p60
	preferred.Type = uapi.ModeTypePreferred
	return Monitor{
		WidthMM: 527, HeightMM: 296,
		// In the order an EDID would list them: detailed timing first,
		// then the established and standard timings, then the CEA block.
		Modes: []uapi.ModeModeInfo{preferred, Mode800x600p60, Mode640x480p60, Mode1024x768p60,
			Mode1280x1024p60, Mode1280x720p60, Mode1920x1080p50, Mode1280x720p50},
	}
}

// maxPixelClockKHz is the HDMI encoder's limit on a Pi 0-3 (vc4_hdmi.c:
// bcm2835_variant.max_pixel_clock = 162000000 Hz); faster modes are
// pruned from the connector (MODE_CLOCK_HIGH) and refused by SETCRTC.
const maxPixelClockKHz = 162000

// Mode-config limits of a Pi 0-3 (vc4_kms.c: vc4_kms_load sets max_width
// and max_height to 2048 for VC4_GEN_4 and leaves the minimums 0).
const (
	maxWidth  = 2048
	maxHeight = 2048
)

// Mode validity bits (drm_mode.h, and drm_modes.c for the 3D maximum).
const (
	modeTypeAll = uapi.ModeTypePreferred | uapi.ModeTypeUserdef | uapi.ModeTypeDriver // DRM_MODE_TYPE_ALL
	// modeFlagAll is DRM_MODE_FLAG_ALL: the sync, interlace, scan, skew and
	// clock bits and the 3D mask; the deprecated BCAST and PIXMUX (10, 11)
	// and the aspect-ratio bits are not in it.
	modeFlagAll = uapi.ModeFlagPHSync | uapi.ModeFlagNHSync | uapi.ModeFlagPVSync | uapi.ModeFlagNVSync |
		uapi.ModeFlagInterlace | uapi.ModeFlagDblScan | uapi.ModeFlagCSync | uapi.ModeFlagPCSync |
		uapi.ModeFlagNCSync | uapi.ModeFlagHSkew | uapi.ModeFlagDblClk | uapi.ModeFlagClkDiv2 | uapi.ModeFlag3DMask
	// modeFlag3DMax is DRM_MODE_FLAG_3D_MAX, DRM_MODE_FLAG_3D_SIDE_BY_SIDE_HALF (8<<14).
	modeFlag3DMax = 8 << 14
	// The picture aspect ratio sits in flag bits 22:19
	// (DRM_MODE_FLAG_PIC_AR_MASK); drm_mode_convert_umode refuses values
	// above DRM_MODE_PICTURE_ASPECT_256_135.
	picARShift = 19
	picARMax   = 4
)

// setName is drm_mode_set_name: "WxH", with "i" for interlaced modes.
func setName(m *uapi.ModeModeInfo) {
	i := ""
	if m.Flags&uapi.ModeFlagInterlace != 0 {
		i = "i"
	}
	m.Name = [uapi.DisplayModeLen]byte{}
	copy(m.Name[:uapi.DisplayModeLen-1], fmt.Sprintf("%dx%d%s", m.Hdisplay, m.Vdisplay, i))
}

// vrefresh is drm_mode_vrefresh (drm_modes.c): the refresh rate in whole Hz
// that the kernel stores in a mode's vrefresh field, DIV_ROUND_CLOSEST of
// clock·1000 (doubled for an interlaced mode) over htotal·vtotal (doubled
// for double scan, times vscan when above 1); 0 when a total is 0.
func vrefresh(m *uapi.ModeModeInfo) uint32 {
	if m.Htotal == 0 || m.Vtotal == 0 {
		return 0
	}
	num := uint64(m.Clock) * 1000
	den := uint64(m.Htotal) * uint64(m.Vtotal)
	if m.Flags&uapi.ModeFlagInterlace != 0 {
		num *= 2
	}
	if m.Flags&uapi.ModeFlagDblScan != 0 {
		den *= 2
	}
	if m.Vscan > 1 {
		den *= uint64(m.Vscan)
	}
	return uint32((num + den/2) / den)
}

// validateBasic is drm_mode_validate_basic (drm_modes.c), the sanity check
// every mode from user space passes: known type and flag bits, a 3D mode
// the core knows, a clock, and sync pulses inside the totals. It returns
// what is wrong, or "".
func validateBasic(m *uapi.ModeModeInfo) string {
	switch {
	case m.Type&^modeTypeAll != 0:
		return fmt.Sprintf("unknown type bits 0x%x", m.Type&^modeTypeAll)
	case m.Flags&^modeFlagAll != 0:
		return fmt.Sprintf("unknown flag bits 0x%x", m.Flags&^modeFlagAll)
	case m.Flags&uapi.ModeFlag3DMask > modeFlag3DMax:
		return "unknown 3D layout"
	case m.Clock == 0:
		return "pixel clock 0 (MODE_CLOCK_LOW)"
	case m.Hdisplay == 0 || m.HsyncStart < m.Hdisplay || m.HsyncEnd < m.HsyncStart || m.Htotal < m.HsyncEnd:
		return fmt.Sprintf("horizontal timings %d/%d/%d/%d out of order (MODE_H_ILLEGAL)", m.Hdisplay, m.HsyncStart, m.HsyncEnd, m.Htotal)
	case m.Vdisplay == 0 || m.VsyncStart < m.Vdisplay || m.VsyncEnd < m.VsyncStart || m.Vtotal < m.VsyncEnd:
		return fmt.Sprintf("vertical timings %d/%d/%d/%d out of order (MODE_V_ILLEGAL)", m.Vdisplay, m.VsyncStart, m.VsyncEnd, m.Vtotal)
	}
	return ""
}

// validateVC4 is what a Pi 0-3's display pipeline refuses on top of the
// basic checks: double scan (vc4_crtc.c: vc4_crtc_mode_valid,
// MODE_NO_DBLESCAN) and pixel clocks above the HDMI encoder's limit
// (vc4_hdmi.c, bcm2835_variant.max_pixel_clock). It returns what is
// wrong, or "".
func validateVC4(m *uapi.ModeModeInfo) string {
	if m.Flags&uapi.ModeFlagDblScan != 0 {
		return "double-scan modes are refused (vc4_crtc_mode_valid)"
	}
	if m.Clock > maxPixelClockKHz {
		return fmt.Sprintf("pixel clock %d kHz above the HDMI encoder's %d kHz", m.Clock, maxPixelClockKHz)
	}
	return ""
}

// probeModes turns a monitor's timings into the connector's mode list as
// drm_helper_probe_single_connector_modes (drm_probe_helper.c) leaves it:
// modes the basic checks, the size limits (drm_mode_validate_size) or the
// HDMI encoder refuse are pruned; each survivor is named, gets its
// refresh rate and the DRIVER type, loses any picture aspect ratio (EDID
// CEA modes have one, which the kernel shows only to files with the
// ASPECT_RATIO capability; not modelled); duplicates merge; the list is sorted by drm_mode_sort
// (drm_modes.c drm_mode_compare: preferred first, then larger area, then
// higher refresh, then higher clock; a stable sort, as list_sort is).
func probeModes(mon *Monitor) []uapi.ModeModeInfo {
	var out []uapi.ModeModeInfo
	for _, m := range mon.Modes {
		m.Type = m.Type&uapi.ModeTypePreferred | uapi.ModeTypeDriver
		m.Flags &^= uapi.ModeFlagPicARMask
		if validateBasic(&m) != "" || validateVC4(&m) != "" || m.Hdisplay > maxWidth || m.Vdisplay > maxHeight {
			continue
		}
		m.Vrefresh = vrefresh(&m)
		setName(&m)
		// drm_connector_list_update merges a mode probed twice.
		dup := false
		for i := range out {
			if sameTimings(&out[i], &m) {
				out[i].Type |= m.Type
				dup = true
			}
		}
		if !dup {
			out = append(out, m)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := &out[i], &out[j]
		if pa, pb := a.Type&uapi.ModeTypePreferred != 0, b.Type&uapi.ModeTypePreferred != 0; pa != pb {
			return pa
		}
		if aa, ab := int(a.Hdisplay)*int(a.Vdisplay), int(b.Hdisplay)*int(b.Vdisplay); aa != ab {
			return aa > ab
		}
		if a.Vrefresh != b.Vrefresh {
			return a.Vrefresh > b.Vrefresh
		}
		return a.Clock > b.Clock
	})
	return out
}

// sameTimings is drm_mode_equal (drm_modes.c) on user modes: timings,
// clock and flags (the aspect-ratio bits included) match; names and types
// do not matter. The atomic helpers do a full modeset when it is false.
func sameTimings(a, b *uapi.ModeModeInfo) bool {
	return a.Clock == b.Clock && a.Hdisplay == b.Hdisplay && a.HsyncStart == b.HsyncStart &&
		a.HsyncEnd == b.HsyncEnd && a.Htotal == b.Htotal && a.Hskew == b.Hskew &&
		a.Vdisplay == b.Vdisplay && a.VsyncStart == b.VsyncStart && a.VsyncEnd == b.VsyncEnd &&
		a.Vtotal == b.Vtotal && a.Vscan == b.Vscan && a.Flags == b.Flags
}

// MonitorPreferring is the default monitor (DefaultMonitor) with a mode of
// w×h at refreshMilliHz (0: 60 Hz, or any rate for a standard size) as its
// preferred mode, listed first as an EDID's first detailed timing is: a
// standard mode of that size and rate when the monitor has one, else a
// timing made for it by the VESA CVT reduced-blanking formula (see
// cvtReduced), as a panel's EDID would carry in a detailed timing
// descriptor, whose active size may be any number of pixels (the kernel
// takes hactive and vactive as they are: drm_edid.c drm_mode_detailed).
// The other modes stay, no longer preferred.
//
// It refuses what a Pi 0-3 cannot scan out, saying what would do: a size
// beyond the mode config's 2048×2048 (vc4_kms.c vc4_kms_load) or a pixel
// clock above the HDMI encoder's 162 MHz (vc4_hdmi.c
// bcm2835_variant.max_pixel_clock), for which it names the highest whole
// refresh rate that fits.
func MonitorPreferring(w, h int, refreshMilliHz uint64) (Monitor, error) {
	if w < 1 || h < 1 || w > maxWidth || h > maxHeight {
		return Monitor{}, fmt.Errorf("%dx%d is beyond what a Pi 0-3 scans out: width and height are 1 to %d and 1 to %d (vc4_kms.c: vc4_kms_load's mode_config.max_width and max_height)", w, h, maxWidth, maxHeight)
	}
	if refreshMilliHz > 1000_000 {
		return Monitor{}, fmt.Errorf("%dx%d@%g: say a refresh rate from 1 to 1000 Hz", w, h, float64(refreshMilliHz)/1000)
	}
	mon := DefaultMonitor()
	found := -1
	for i := range mon.Modes {
		m := &mon.Modes[i]
		m.Type &^= uapi.ModeTypePreferred
		if found < 0 && int(m.Hdisplay) == w && int(m.Vdisplay) == h && rateMatches(m, refreshMilliHz) {
			m.Type |= uapi.ModeTypePreferred
			found = i
		}
	}
	if found >= 0 {
		mon.Modes[0], mon.Modes[found] = mon.Modes[found], mon.Modes[0]
		return mon, nil
	}
	if refreshMilliHz == 0 {
		refreshMilliHz = 60_000
	}
	m := cvtReduced(w, h, refreshMilliHz)
	if m.Clock > maxPixelClockKHz {
		best := 0
		for hz := 1; hz <= 1000; hz++ {
			if cvtReduced(w, h, uint64(hz)*1000).Clock > maxPixelClockKHz {
				break
			}
			best = hz
		}
		return Monitor{}, fmt.Errorf("%dx%d at %g Hz needs a pixel clock of %.2f MHz, above the HDMI encoder's %d MHz on a Pi 0-3 (vc4_hdmi.c bcm2835_variant.max_pixel_clock): ask for %dx%d@%d or less",
			w, h, float64(refreshMilliHz)/1000, float64(m.Clock)/1000, maxPixelClockKHz/1000, w, h, best)
	}
	if why := validateBasic(&m); why != "" {
		return Monitor{}, fmt.Errorf("%dx%d at %g Hz: the timing made for it is refused: %s; ask for a higher refresh rate", w, h, float64(refreshMilliHz)/1000, why)
	}
	m.Type = uapi.ModeTypePreferred
	mon.Modes = append([]uapi.ModeModeInfo{m}, mon.Modes...)
	return mon, nil
}

// rateMatches says whether m runs at refreshMilliHz: any rate when it is
// 0, the kernel's rounded vrefresh for a whole number of Hz, the exact rate
// within 5 mHz otherwise.
func rateMatches(m *uapi.ModeModeInfo, refreshMilliHz uint64) bool {
	if refreshMilliHz == 0 {
		return true
	}
	if refreshMilliHz%1000 == 0 {
		return uint64(vrefresh(m))*1000 == refreshMilliHz
	}
	exact := float64(m.Clock) * 1e6 / (float64(m.Htotal) * float64(m.Vtotal))
	d := exact - float64(refreshMilliHz)
	return d > -5 && d < 5
}

// cvtReduced is the VESA Coordinated Video Timings standard's reduced
// blanking timing (CVT 1.1, the formula of drm_modes.c drm_cvt_mode with
// reduced set, without its rounding of the width down to a multiple of 8:
// a detailed timing descriptor holds any width) for w×h at refreshMilliHz:
// a horizontal blank of 160 pixels with a 32-pixel sync 48 pixels after
// the active area; a vertical front porch of 3 lines, a sync of 4 to 10
// lines by the aspect ratio and a blank of at least 460 µs and at least
// 3+sync+6 lines; +hsync, -vsync. The pixel clock is rounded to the
// nearest 10 kHz, the unit a detailed timing descriptor stores it in
// (drm_edid.c drm_mode_detailed multiplies it by 10), rather than down to
// CVT's 250 kHz step, which would leave a mode of a few pixels no clock.
func cvtReduced(w, h int, refreshMilliHz uint64) uapi.ModeModeInfo {
	const (
		hBlank, hSync, hFront = 160, 32, 48
		vFront, vBackMin      = 3, 6
		minVBlankUs           = 460.0
		clockStepKHz          = 10
	)
	vsync := 10 // a size of no standard aspect ratio
	switch {
	case h%3 == 0 && h*4/3 == w:
		vsync = 4
	case h%9 == 0 && h*16/9 == w:
		vsync = 5
	case h%10 == 0 && h*16/10 == w:
		vsync = 6
	case h%4 == 0 && h*5/4 == w, h%9 == 0 && h*15/9 == w:
		vsync = 7
	}
	hz := float64(refreshMilliHz) / 1000
	hPeriodUs := (1e6/hz - minVBlankUs) / float64(h)
	vblank := vFront + vsync + vBackMin
	if hPeriodUs > 0 {
		vblank = max(vblank, int(minVBlankUs/hPeriodUs)+1)
	}
	htotal, vtotal := w+hBlank, h+vblank
	clockOf := func(htotal int) uint64 {
		clock := float64(htotal) * float64(vtotal) * hz / 1000 // kHz
		return uint64(clock/clockStepKHz+0.5) * clockStepKHz
	}
	// In a mode of a few pixels a 10 kHz step is a large part of the
	// clock, and the rounding can move the refresh rate by a hertz: the
	// horizontal back porch then grows until the kernel's rounded rate
	// (drm_mode_vrefresh) is the one asked for.
	for pad := 0; pad <= hBlank && refreshMilliHz%1000 == 0; pad++ {
		n := uint64((htotal + pad) * vtotal)
		if (clockOf(htotal+pad)*1000+n/2)/n == refreshMilliHz/1000 {
			htotal += pad
			break
		}
	}
	clockKHz := clockOf(htotal)
	if clockKHz > 1<<31 || htotal > 0xffff || vtotal > 0xffff {
		clockKHz = 1 << 31 // beyond any encoder; the caller refuses it
	}
	return timing(uint32(clockKHz), uint16(w), uint16(w+hFront), uint16(w+hFront+hSync), uint16(htotal),
		uint16(h), uint16(h+vFront), uint16(h+vFront+vsync), uint16(vtotal), uapi.ModeFlagPHSync|uapi.ModeFlagNVSync)
}
