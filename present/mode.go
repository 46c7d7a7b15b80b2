package present

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/vccube/vccube/drm"
)

// ModeSpec is a display mode a person asked for: "1280x720",
// "1280x720@60", "1920x1080@59.94" or "1920x1080i@60".
type ModeSpec struct {
	Width, Height uint16
	Interlaced    bool
	// RefreshMilliHz is the asked refresh rate in mHz; 0 means any.
	RefreshMilliHz uint64
	// Exact is set when the rate had decimals ("@59.94"): it is then
	// matched against the timings within 5 mHz; a whole number ("@60")
	// is matched against the kernel's rounded vrefresh instead, so "@60"
	// accepts a 59.94 Hz mode as the kernel's own mode names do.
	Exact bool
}

// ErrBadModeSpec is wrapped by ParseModeSpec's errors.
var ErrBadModeSpec = errors.New("not a mode")

// ParseModeSpec reads "WxH", "WxH@Hz" or "WxHi[@Hz]" (interlaced). The
// empty string is the zero ModeSpec: the display's preferred mode.
func ParseModeSpec(s string) (ModeSpec, error) {
	var m ModeSpec
	if s == "" {
		return m, nil
	}
	bad := func(why string) (ModeSpec, error) {
		return ModeSpec{}, fmt.Errorf("%w: %q %s (write WIDTHxHEIGHT or WIDTHxHEIGHT@HZ, e.g. 1280x720 or 1280x720@60)",
			ErrBadModeSpec, s, why)
	}
	size, rate, hasRate := strings.Cut(s, "@")
	w, h, ok := strings.Cut(strings.ToLower(size), "x")
	if !ok {
		return bad("has no 'x' between width and height")
	}
	if strings.HasSuffix(h, "i") {
		m.Interlaced, h = true, strings.TrimSuffix(h, "i")
	}
	wv, err1 := strconv.ParseUint(w, 10, 16)
	hv, err2 := strconv.ParseUint(h, 10, 16)
	if err1 != nil || err2 != nil || wv == 0 || hv == 0 {
		return bad("has a width or height that is not a whole number from 1 to 65535")
	}
	m.Width, m.Height = uint16(wv), uint16(hv)
	if hasRate {
		hz, err := strconv.ParseFloat(rate, 64)
		if err != nil || hz <= 0 || hz > 1000 {
			return bad("has a refresh rate that is not a number of Hz from 1 to 1000")
		}
		m.RefreshMilliHz = uint64(hz*1000 + 0.5)
		m.Exact = strings.Contains(rate, ".")
	}
	return m, nil
}

// String formats the spec as it would be typed.
func (m ModeSpec) String() string {
	if m.Width == 0 {
		return "the preferred mode"
	}
	s := fmt.Sprintf("%dx%d", m.Width, m.Height)
	if m.Interlaced {
		s += "i"
	}
	switch {
	case m.RefreshMilliHz == 0:
	case m.Exact:
		s += "@" + strconv.FormatFloat(float64(m.RefreshMilliHz)/1000, 'f', -1, 64)
	default:
		s += "@" + strconv.FormatUint(m.RefreshMilliHz/1000, 10)
	}
	return s
}

// matches reports whether mode m is what the spec asks for.
func (m ModeSpec) matches(mode drm.ModeInfo) bool {
	if mode.Hdisplay != m.Width || mode.Vdisplay != m.Height || mode.Interlaced() != m.Interlaced {
		return false
	}
	if m.RefreshMilliHz == 0 {
		return true
	}
	if m.Exact {
		d := int64(mode.RefreshMilliHz()) - int64(m.RefreshMilliHz)
		return d >= -5 && d <= 5
	}
	return uint64(roundedRefresh(mode))*1000 == m.RefreshMilliHz
}

// roundedRefresh is the mode's refresh rate in whole Hz: the kernel's
// vrefresh field, or the same rounding of the timings when a driver left
// it 0 (drm_modes.c: drm_mode_vrefresh rounds to the nearest Hz).
func roundedRefresh(mode drm.ModeInfo) uint32 {
	if mode.Vrefresh != 0 {
		return mode.Vrefresh
	}
	return mode.VrefreshHz()
}

// ErrUnknownMode is wrapped by the error for a mode the display does not
// offer; the message lists the modes it does.
var ErrUnknownMode = errors.New("the display does not offer that mode")

// ChooseMode picks a mode of connector c: the one spec names (the first
// listed that matches; the kernel lists modes preferred first, then larger
// and faster ones first, drm_modes.c: drm_mode_compare), or, for the zero
// spec, the mode the display prefers, else the largest (kmscube,
// drm-common.c: init_drm).
func ChooseMode(c *drm.Connector, spec ModeSpec) (drm.ModeInfo, error) {
	if len(c.Modes) == 0 {
		return drm.ModeInfo{}, fmt.Errorf("%w: connector %s lists no mode at all; check the cable or the display's input",
			ErrNoDisplay, c.Name())
	}
	if spec.Width == 0 {
		for _, m := range c.Modes {
			if m.Preferred() {
				return m, nil
			}
		}
		best := c.Modes[0]
		for _, m := range c.Modes[1:] {
			a, b := uint64(m.Hdisplay)*uint64(m.Vdisplay), uint64(best.Hdisplay)*uint64(best.Vdisplay)
			if a > b || (a == b && m.RefreshMilliHz() > best.RefreshMilliHz()) {
				best = m
			}
		}
		return best, nil
	}
	for _, m := range c.Modes {
		if spec.matches(m) {
			return m, nil
		}
	}
	return drm.ModeInfo{}, fmt.Errorf("%w: %s offers no %s; choose one of: %s",
		ErrUnknownMode, c.Name(), spec, ModeList(c))
}

// ModeList lists a connector's modes once each, as they would be typed,
// in the kernel's order, marking the preferred one: "1920x1080@60
// (preferred), 1280x720@60, 720x576@50".
func ModeList(c *drm.Connector) string {
	var b strings.Builder
	seen := map[string]bool{}
	for _, m := range c.Modes {
		s := m.String()
		if seen[s] {
			continue
		}
		seen[s] = true
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s)
		if m.Preferred() {
			b.WriteString(" (preferred)")
		}
	}
	return b.String()
}
