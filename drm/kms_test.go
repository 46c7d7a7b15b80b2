package drm_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/drm/drmtest"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// mode builds a display mode from its timings and name.
func mode(name string, clock uint32, h, hss, hse, ht, v, vss, vse, vt uint16, hz, typ uint32) drm.ModeInfo {
	var m drm.ModeInfo
	m.Clock, m.Hdisplay, m.HsyncStart, m.HsyncEnd, m.Htotal = clock, h, hss, hse, ht
	m.Vdisplay, m.VsyncStart, m.VsyncEnd, m.Vtotal = v, vss, vse, vt
	m.Vrefresh, m.Type = hz, typ
	copy(m.ModeModeInfo.Name[:], name)
	return m
}

// CEA-861 1080p60 and 720p60 timings (the modes a Pi's HDMI port lists).
var (
	mode1080 = mode("1920x1080", 148500, 1920, 2008, 2052, 2200, 1080, 1084, 1089, 1125, 60, uapi.ModeTypeDriver|uapi.ModeTypePreferred)
	mode720  = mode("1280x720", 74250, 1280, 1390, 1430, 1650, 720, 725, 730, 750, 60, uapi.ModeTypeDriver)
)

// kmsDevice is a fake of the kernel's KMS ioctls, answering with the
// kernel's count-then-fill rules (drm_mode_config.c: drm_mode_getresources
// fills min(count, real) ids; drm_connector.c: drm_mode_getconnector fills
// an array only when its count is at least the real count; both always
// write back the real counts).
type kmsDevice struct {
	*drmtest.Conn
	fbs, crtcs, encoders, connectors []uint32
	modes                            []drm.ModeInfo // of every connector
	connEncoders                     []uint32
	afterCall                        func(req uapi.Request, call int) // hook: change the device between passes
	probes                           int
	calls                            map[uapi.Request]int
}

func newKMSDevice() *kmsDevice {
	d := &kmsDevice{Conn: drmtest.NewConn(), fbs: []uint32{70}, crtcs: []uint32{31, 32}, encoders: []uint32{33},
		connectors: []uint32{34}, modes: []drm.ModeInfo{mode1080, mode720}, connEncoders: []uint32{33},
		calls: map[uapi.Request]int{}}
	drmtest.On(d.Conn, uapi.IoctlModeGetResources, func(r *uapi.ModeCardRes) error {
		fill := func(ptr uint64, count uint32, ids []uint32) uint32 {
			copy(uapi.UserSlice[uint32](ptr, int(min(count, uint32(len(ids))))), ids)
			return uint32(len(ids))
		}
		r.CountFbs = fill(r.FbIDPtr, r.CountFbs, d.fbs)
		r.CountCrtcs = fill(r.CrtcIDPtr, r.CountCrtcs, d.crtcs)
		r.CountEncoders = fill(r.EncoderIDPtr, r.CountEncoders, d.encoders)
		r.CountConnectors = fill(r.ConnectorIDPtr, r.CountConnectors, d.connectors)
		r.MinWidth, r.MaxWidth, r.MinHeight, r.MaxHeight = 0, 2048, 0, 2048
		d.after(uapi.IoctlModeGetResources)
		return nil
	})
	drmtest.On(d.Conn, uapi.IoctlModeGetConnector, func(g *uapi.ModeGetConnector) error {
		if g.ConnectorID != 34 {
			return unix.ENOENT
		}
		if g.CountModes == 0 {
			d.probes++
		}
		if n := uint32(len(d.connEncoders)); g.CountEncoders >= n && n > 0 {
			copy(uapi.UserSlice[uint32](g.EncodersPtr, int(n)), d.connEncoders)
		}
		g.CountEncoders = uint32(len(d.connEncoders))
		if n := uint32(len(d.modes)); g.CountModes >= n && n > 0 {
			copy(uapi.UserSlice[uapi.ModeModeInfo](g.ModesPtr, int(n)), modesOf(d.modes))
		}
		g.CountModes = uint32(len(d.modes))
		g.ConnectorType, g.ConnectorTypeID, g.Connection = uint32(uapi.ConnectorHDMIA), 1, uint32(uapi.StatusConnected)
		g.EncoderID, g.MmWidth, g.MmHeight = 33, 510, 290
		d.after(uapi.IoctlModeGetConnector)
		return nil
	})
	return d
}

func modesOf(ms []drm.ModeInfo) []uapi.ModeModeInfo {
	out := make([]uapi.ModeModeInfo, len(ms))
	for i, m := range ms {
		out[i] = m.ModeModeInfo
	}
	return out
}

func (d *kmsDevice) after(req uapi.Request) {
	d.calls[req]++
	if d.afterCall != nil {
		d.afterCall(req, d.calls[req])
	}
}

func TestGetResources(t *testing.T) {
	d := newKMSDevice()
	r, err := drm.GetResources(d)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.CRTCs, []uint32{31, 32}) || !slices.Equal(r.Connectors, []uint32{34}) || !slices.Equal(r.Encoders, []uint32{33}) ||
		!slices.Equal(r.FBs, []uint32{70}) || r.MaxWidth != 2048 {
		t.Errorf("resources = %+v", r)
	}
	if n := d.Calls(uapi.IoctlModeGetResources); n != 2 {
		t.Errorf("%d GETRESOURCES calls, want 2 (count, then fill)", n)
	}
}

func TestGetResourcesCountsGrowBetweenPasses(t *testing.T) {
	d := newKMSDevice()
	d.afterCall = func(req uapi.Request, call int) {
		if call == 1 { // a writeback connector and an encoder appear after the first pass
			d.connectors = append(d.connectors, 35)
			d.encoders = append(d.encoders, 36)
		}
	}
	r, err := drm.GetResources(d)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Connectors, []uint32{34, 35}) || !slices.Equal(r.Encoders, []uint32{33, 36}) {
		t.Errorf("after growth: connectors %v encoders %v", r.Connectors, r.Encoders)
	}
	if n := d.Calls(uapi.IoctlModeGetResources); n != 3 {
		t.Errorf("%d GETRESOURCES calls, want 3 (count, short fill, fill)", n)
	}
}

func TestGetResourcesCountsShrinkBetweenPasses(t *testing.T) {
	d := newKMSDevice()
	d.afterCall = func(req uapi.Request, call int) {
		if call == 1 {
			d.crtcs = d.crtcs[:1]
		}
	}
	r, err := drm.GetResources(d)
	if err != nil || !slices.Equal(r.CRTCs, []uint32{31}) {
		t.Fatalf("crtcs %v, %v; want [31]", r.CRTCs, err)
	}
}

func TestGetResourcesGivesUpOnEndlessGrowth(t *testing.T) {
	d := newKMSDevice()
	d.afterCall = func(req uapi.Request, call int) { d.connectors = append(d.connectors, uint32(100+call)) }
	_, err := drm.GetResources(d)
	var de *drm.Error
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "kept changing") {
		t.Fatalf("err = %v", err)
	}
}

func TestGetResourcesImplausibleCount(t *testing.T) {
	c := drmtest.NewConn()
	drmtest.On(c, uapi.IoctlModeGetResources, func(r *uapi.ModeCardRes) error { r.CountConnectors = 1 << 30; return nil })
	if _, err := drm.GetResources(c); err == nil || !strings.Contains(err.Error(), "implausible") {
		t.Fatalf("err = %v", err)
	}
}

func TestGetConnector(t *testing.T) {
	d := newKMSDevice()
	con, err := drm.GetConnector(d, 34)
	if err != nil {
		t.Fatal(err)
	}
	if con.Name() != "HDMI-A-1" || con.Status != uapi.StatusConnected || con.EncoderID != 33 ||
		!slices.Equal(con.Encoders, []uint32{33}) || len(con.Modes) != 2 || con.MmWidth != 510 {
		t.Errorf("connector = %+v", con)
	}
	if s := con.String(); s != "HDMI-A-1 (connected, 2 modes)" {
		t.Errorf("String = %q", s)
	}
	if con.Modes[0] != mode1080 || con.Modes[1] != mode720 {
		t.Errorf("modes = %v", con.Modes)
	}
	if m, ok := con.PreferredMode(); !ok || m.String() != "1920x1080@60" || m.Name() != "1920x1080" {
		t.Errorf("preferred = %v %v", m, ok)
	}
	if d.probes != 1 {
		t.Errorf("GetConnector forced %d probes, want 1 (the first pass only)", d.probes)
	}
}

func TestGetConnectorCurrentDoesNotProbe(t *testing.T) {
	d := newKMSDevice()
	d.modes = nil // a disconnected connector lists no modes: the passes must still not probe
	con, err := drm.GetConnectorCurrent(d, 34)
	if err != nil {
		t.Fatal(err)
	}
	if d.probes != 0 || len(con.Modes) != 0 {
		t.Errorf("%d probes, %d modes; want 0, 0", d.probes, len(con.Modes))
	}
}

func TestGetConnectorModesGrowBetweenPasses(t *testing.T) {
	d := newKMSDevice()
	d.modes = nil
	d.afterCall = func(req uapi.Request, call int) {
		if call == 1 { // a display is plugged in between the passes
			d.modes = []drm.ModeInfo{mode1080, mode720}
		}
	}
	con, err := drm.GetConnector(d, 34)
	if err != nil {
		t.Fatal(err)
	}
	if len(con.Modes) != 2 || con.Modes[1] != mode720 {
		t.Errorf("modes = %v", con.Modes)
	}
	if n := d.Calls(uapi.IoctlModeGetConnector); n != 3 {
		t.Errorf("%d GETCONNECTOR calls, want 3", n)
	}
}

func TestGetConnectorUnknownID(t *testing.T) {
	d := newKMSDevice()
	_, err := drm.GetConnector(d, 99)
	if !errors.Is(err, unix.ENOENT) || !strings.Contains(err.Error(), "DRM_IOCTL_MODE_GETCONNECTOR") ||
		!strings.Contains(err.Error(), "connector 99") {
		t.Fatalf("err = %v", err)
	}
}

func TestModeStrings(t *testing.T) {
	if r := mode1080.RefreshMilliHz(); r != 60000 {
		t.Errorf("1080p60 refresh = %d mHz, want 60000", r)
	}
	// 59.94 Hz: 148352 kHz / (2200 * 1125) = 59.940 Hz.
	m := mode("1920x1080", 148352, 1920, 2008, 2052, 2200, 1080, 1084, 1089, 1125, 0, 0)
	if r, s := m.RefreshMilliHz(), m.String(); r != 59940 || s != "1920x1080@60" {
		t.Errorf("59.94: %d mHz, %q", r, s)
	}
	// 1080i: 74250 kHz / (2200*1125) doubled for interlace = 60 Hz.
	i := mode("1920x1080i", 74250, 1920, 2008, 2052, 2200, 1080, 1084, 1094, 1125, 0, 0)
	i.Flags = uapi.ModeFlagInterlace
	if s := i.String(); s != "1920x1080i@60" {
		t.Errorf("interlaced = %q", s)
	}
	if (drm.ModeInfo{}).RefreshMilliHz() != 0 {
		t.Error("empty timings should give 0 Hz")
	}
	if unsafe.Sizeof(drm.ModeInfo{}) != unsafe.Sizeof(uapi.ModeModeInfo{}) {
		t.Error("ModeInfo must have the layout of drm_mode_modeinfo: the kernel fills []ModeInfo")
	}
}

func TestConnectorTypeNames(t *testing.T) {
	// Names from drm_connector.c (drm_connector_enum_list).
	for typ, want := range map[uapi.ConnectorType]string{
		uapi.ConnectorHDMIA: "HDMI-A", uapi.ConnectorComposite: "Composite", uapi.ConnectorDSI: "DSI",
		uapi.ConnectorDPI: "DPI", uapi.Connector9PinDIN: "DIN", uapi.ConnectorDisplayPort: "DP",
		uapi.ConnectorWriteback: "Writeback", uapi.ConnectorType(99): "Connector99",
	} {
		if typ.String() != want {
			t.Errorf("%d: %q, want %q", typ, typ.String(), want)
		}
	}
	c := drm.Connector{Type: uapi.ConnectorComposite, TypeID: 1}
	if c.Name() != "Composite-1" {
		t.Errorf("Name = %q", c.Name())
	}
	if uapi.EncoderTMDS.String() != "TMDS" || uapi.StatusDisconnected.String() != "disconnected" {
		t.Error("encoder or status names")
	}
}

func TestSetCrtcAndGetCrtc(t *testing.T) {
	c := drmtest.NewConn()
	var got uapi.ModeCrtc
	var gotConns []uint32
	drmtest.On(c, uapi.IoctlModeSetCrtc, func(a *uapi.ModeCrtc) error {
		got = *a
		gotConns = append([]uint32(nil), uapi.UserSlice[uint32](a.SetConnectorsPtr, int(a.CountConnectors))...)
		return nil
	})
	drmtest.On(c, uapi.IoctlModeGetCrtc, func(a *uapi.ModeCrtc) error {
		a.FbID, a.ModeValid, a.Mode, a.GammaSize = 70, 1, mode720.ModeModeInfo, 256
		return nil
	})
	m := mode1080
	if err := drm.SetCrtc(c, 31, 71, 0, 0, []uint32{34}, &m); err != nil {
		t.Fatal(err)
	}
	if got.CrtcID != 31 || got.FbID != 71 || got.ModeValid != 1 || got.Mode != mode1080.ModeModeInfo || !slices.Equal(gotConns, []uint32{34}) {
		t.Errorf("SETCRTC got %+v, connectors %v", got, gotConns)
	}
	if err := drm.SetCrtc(c, 31, 0, 0, 0, nil, nil); err != nil || got.ModeValid != 0 || got.SetConnectorsPtr != 0 {
		t.Errorf("turning off: %v, %+v", err, got)
	}
	crtc, err := drm.GetCrtc(c, 31)
	if err != nil || crtc.FbID != 70 || !crtc.ModeValid || crtc.Mode != mode720 || crtc.ID != 31 {
		t.Errorf("GetCrtc = %+v, %v", crtc, err)
	}
}

func TestAddFramebuffer(t *testing.T) {
	c := drmtest.NewConn()
	var got uapi.ModeFbCmd2
	drmtest.On(c, uapi.IoctlModeAddFB2, func(a *uapi.ModeFbCmd2) error { got = *a; a.FbID = 80; return nil })
	id, err := drm.AddFramebuffer(c, 1920, 1080, uapi.FormatXRGB8888, 5, 7680, uapi.FormatModBroadcomVC4TTiled)
	if err != nil || id != 80 {
		t.Fatalf("AddFramebuffer = %d, %v", id, err)
	}
	if got.Flags != uapi.FbModifiers || got.Modifier[0] != 0x0700000000000001 || got.Handles[0] != 5 ||
		got.Pitches[0] != 7680 || got.PixelFormat != 0x34325258 {
		t.Errorf("ADDFB2 got %+v", got)
	}
	if _, err := drm.AddFramebuffer(c, 64, 64, uapi.FormatARGB8888, 6, 256, uapi.FormatModLinear); err != nil || got.Flags != 0 || got.Modifier[0] != 0 {
		t.Errorf("linear: flags %d modifier %x, %v", got.Flags, got.Modifier[0], err)
	}
	c.Fail(uapi.IoctlModeAddFB2, unix.EINVAL)
	_, err = drm.AddFramebuffer(c, 64, 64, uapi.FormatARGB8888, 6, 256, 0)
	if !errors.Is(err, unix.EINVAL) || !strings.Contains(err.Error(), "64x64 AR24, handle 6, pitch 256") {
		t.Errorf("err = %v", err)
	}
}

func TestPageFlip(t *testing.T) {
	c := drmtest.NewConn()
	var got uapi.ModeCrtcPageFlip
	drmtest.On(c, uapi.IoctlModePageFlip, func(a *uapi.ModeCrtcPageFlip) error { got = *a; return nil })
	arg := &uapi.ModeCrtcPageFlip{CrtcID: 31, FbID: 71, Flags: uapi.PageFlipEvent, UserData: 0xdeadbeef}
	if err := drm.PageFlip(c, arg); err != nil || got != *arg {
		t.Fatalf("PageFlip: %v, kernel saw %+v", err, got)
	}
	allocs := testing.AllocsPerRun(100, func() {
		arg.UserData++
		if err := drm.PageFlip(c, arg); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("PageFlip allocates %.1f times per call", allocs)
	}
}

func TestDumbBuffers(t *testing.T) {
	c := drmtest.NewConn()
	drmtest.On(c, uapi.IoctlModeCreateDumb, func(a *uapi.ModeCreateDumb) error {
		a.Handle, a.Pitch = 9, a.Width*a.Bpp/8
		a.Size = uint64(a.Pitch) * uint64(a.Height)
		return nil
	})
	drmtest.On(c, uapi.IoctlModeMapDumb, func(a *uapi.ModeMapDumb) error { a.Offset = 0x10000000; return nil })
	destroyed := uint32(0)
	drmtest.On(c, uapi.IoctlModeDestroyDumb, func(a *uapi.ModeDestroyDumb) error { destroyed = a.Handle; return nil })
	b, err := drm.CreateDumb(c, 640, 480, 32)
	if err != nil || b != (drm.DumbBuffer{Handle: 9, Pitch: 2560, Size: 2560 * 480}) {
		t.Fatalf("CreateDumb = %+v, %v", b, err)
	}
	if off, err := drm.MapDumb(c, 9); err != nil || off != 0x10000000 {
		t.Errorf("MapDumb = %#x, %v", off, err)
	}
	if err := drm.DestroyDumb(c, 9); err != nil || destroyed != 9 {
		t.Errorf("DestroyDumb: %v, destroyed %d", err, destroyed)
	}
	c.Fail(uapi.IoctlModeCreateDumb, unix.ENOMEM)
	if _, err := drm.CreateDumb(c, 640, 480, 32); !errors.Is(err, unix.ENOMEM) || !strings.Contains(err.Error(), "cma-256") {
		t.Errorf("ENOMEM: %v", err)
	}
}

func TestGetEncoderAndRmFB(t *testing.T) {
	c := drmtest.NewConn()
	drmtest.On(c, uapi.IoctlModeGetEncoder, func(a *uapi.ModeGetEncoder) error {
		a.EncoderType, a.CrtcID, a.PossibleCrtcs = uint32(uapi.EncoderTMDS), 31, 0b10
		return nil
	})
	var removed uint32
	drmtest.On(c, uapi.IoctlModeRmFB, func(fb *uint32) error { removed = *fb; return nil })
	e, err := drm.GetEncoder(c, 33)
	if err != nil || e != (drm.Encoder{ID: 33, Type: uapi.EncoderTMDS, CrtcID: 31, PossibleCrtcs: 2}) {
		t.Errorf("GetEncoder = %+v, %v", e, err)
	}
	if err := drm.RmFB(c, 71); err != nil || removed != 71 {
		t.Errorf("RmFB: %v, removed %d", err, removed)
	}
}
