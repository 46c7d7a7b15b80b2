package display_test

import (
	"slices"
	"syscall"
	"testing"

	"unsafe"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/internal/simrig"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/display"
	"github.com/vccube/vccube/sim/internal/simtest"
	"github.com/vccube/vccube/uapi"
)

func TestGetResources(t *testing.T) {
	r := newRig(t, display.Options{})
	f := r.open()
	res, err := drm.GetResources(f)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.CRTCs, []uint32{display.CrtcID}) || !slices.Equal(res.Encoders, []uint32{display.EncoderID}) ||
		!slices.Equal(res.Connectors, []uint32{display.ConnectorID}) || len(res.FBs) != 0 {
		t.Fatalf("resources %+v", res)
	}
	// vc4_kms_load: 2048x2048 on a Pi 0-3, minimums 0.
	if res.MinWidth != 0 || res.MinHeight != 0 || res.MaxWidth != 2048 || res.MaxHeight != 2048 {
		t.Fatalf("size limits %d-%d x %d-%d, want 0-2048 x 0-2048", res.MinWidth, res.MaxWidth, res.MinHeight, res.MaxHeight)
	}

	// Framebuffers are the file's own, newest first; the array gets as
	// many as its count allows (drm_mode_getresources fills partially).
	var fbs []uint32
	for i := 0; i < 3; i++ {
		fb, _, _ := dumbFB(t, f, 640, 480)
		fbs = append(fbs, fb)
	}
	ids := []uint32{0xdead, 0xdead, 0xdead}
	crtcs := []uint32{0xdead}
	arg := uapi.ModeCardRes{FbIDPtr: simtest.Ptr(t, ids), CountFbs: 2, CrtcIDPtr: simtest.Ptr(t, crtcs), CountCrtcs: 0}
	simtest.WantErrno(t, "GETRESOURCES", simtest.Ioctl(f, uapi.IoctlModeGetResources, &arg), 0)
	if arg.CountFbs != 3 || ids[0] != fbs[2] || ids[1] != fbs[1] || ids[2] != 0xdead {
		t.Fatalf("fb ids %x count %d, want the two newest of %v then untouched, count 3", ids, arg.CountFbs, fbs)
	}
	if arg.CountCrtcs != 1 || crtcs[0] != 0xdead || arg.CountConnectors != 1 || arg.CountEncoders != 1 {
		t.Fatalf("counts %d %d %d, crtc array %x: want counts 1 and nothing written for count 0", arg.CountCrtcs,
			arg.CountConnectors, arg.CountEncoders, crtcs)
	}
	// Another file sees none of them.
	other := r.open()
	res, err = drm.GetResources(other)
	if err != nil || len(res.FBs) != 0 {
		t.Fatalf("another file's resources %+v, %v: want no framebuffers", res, err)
	}
	// A bad array address is EFAULT, as put_user fails.
	arg = uapi.ModeCardRes{CrtcIDPtr: 8, CountCrtcs: 1}
	simtest.WantErrno(t, "GETRESOURCES to address 8", simtest.Ioctl(f, uapi.IoctlModeGetResources, &arg), syscall.EFAULT)
}

// wantModes is HDMI-A-1's mode list for the default monitor, written from
// drm_edid.c's tables (CEA VICs 16, 31, 4, 19, 1 and DMT 0x23, 0x10, 0x09)
// and sorted as drm_mode_sort does: preferred, then larger, then faster
// refresh. vrefresh is the clock over htotal x vtotal, rounded.
var wantModes = []struct {
	name                string
	clock               uint32
	hd, hss, hse, ht    uint16
	vd, vss, vse, vt    uint16
	flags, typ, refresh uint32
	wantString          string
}{
	{"1920x1080", 148500, 1920, 2008, 2052, 2200, 1080, 1084, 1089, 1125, 0x5, 0x48, 60, "1920x1080@60"},
	{"1920x1080", 148500, 1920, 2448, 2492, 2640, 1080, 1084, 1089, 1125, 0x5, 0x40, 50, "1920x1080@50"},
	{"1280x1024", 108000, 1280, 1328, 1440, 1688, 1024, 1025, 1028, 1066, 0x5, 0x40, 60, "1280x1024@60"}, // 60.02 Hz
	{"1280x720", 74250, 1280, 1390, 1430, 1650, 720, 725, 730, 750, 0x5, 0x40, 60, "1280x720@60"},
	{"1280x720", 74250, 1280, 1720, 1760, 1980, 720, 725, 730, 750, 0x5, 0x40, 50, "1280x720@50"},
	{"1024x768", 65000, 1024, 1048, 1184, 1344, 768, 771, 777, 806, 0xa, 0x40, 60, "1024x768@60"}, // 60.004 Hz
	{"800x600", 40000, 800, 840, 968, 1056, 600, 601, 605, 628, 0x5, 0x40, 60, "800x600@60"},      // 60.317 Hz
	{"640x480", 25175, 640, 656, 752, 800, 480, 490, 492, 525, 0xa, 0x40, 60, "640x480@60"},       // 59.94 Hz
}

func TestGetConnector(t *testing.T) {
	r := newRig(t, display.Options{})
	f := r.open()
	cn, err := drm.GetConnector(f, display.ConnectorID)
	if err != nil {
		t.Fatal(err)
	}
	if cn.Name() != "HDMI-A-1" || cn.Status != uapi.StatusConnected || cn.MmWidth != 527 || cn.MmHeight != 296 ||
		cn.EncoderID != 0 || !slices.Equal(cn.Encoders, []uint32{display.EncoderID}) {
		t.Fatalf("connector %+v", cn)
	}
	if len(cn.Modes) != len(wantModes) {
		t.Fatalf("%d modes, want %d: %v", len(cn.Modes), len(wantModes), cn.Modes)
	}
	for i, w := range wantModes {
		m := cn.Modes[i]
		if m.Name() != w.name || m.Clock != w.clock || m.Hdisplay != w.hd || m.HsyncStart != w.hss || m.HsyncEnd != w.hse ||
			m.Htotal != w.ht || m.Vdisplay != w.vd || m.VsyncStart != w.vss || m.VsyncEnd != w.vse || m.Vtotal != w.vt ||
			m.Flags != w.flags || m.Type != w.typ || m.Vrefresh != w.refresh || m.String() != w.wantString || m.Hskew != 0 || m.Vscan != 0 {
			t.Errorf("mode %d: %+v, want %+v", i, m.ModeModeInfo, w)
		}
	}
	if p, ok := cn.PreferredMode(); !ok || p.String() != "1920x1080@60" {
		t.Errorf("preferred mode %v", p)
	}

	// The count-then-fill protocol: a mode array too small for all the
	// modes is left alone, and the real count comes back.
	modes := make([]uapi.ModeModeInfo, 3)
	for i := range modes {
		modes[i].Clock = 0xdead
	}
	enc := []uint32{0xdead}
	arg := uapi.ModeGetConnector{ConnectorID: display.ConnectorID, CountModes: 3, ModesPtr: simtest.Ptr(t, modes), EncodersPtr: simtest.Ptr(t, enc)}
	simtest.WantErrno(t, "GETCONNECTOR", simtest.Ioctl(f, uapi.IoctlModeGetConnector, &arg), 0)
	if arg.CountModes != 8 || modes[0].Clock != 0xdead || arg.CountEncoders != 1 || enc[0] != 0xdead || arg.CountProps != 0 {
		t.Fatalf("short arrays: counts %d modes %d encoders, first mode clock %d, encoder %x", arg.CountModes, arg.CountEncoders, modes[0].Clock, enc[0])
	}
	arg = uapi.ModeGetConnector{ConnectorID: display.ConnectorID, CountModes: 8, ModesPtr: 12}
	simtest.WantErrno(t, "GETCONNECTOR into address 12", simtest.Ioctl(f, uapi.IoctlModeGetConnector, &arg), syscall.EFAULT)

	for _, id := range []uint32{0, display.CrtcID, display.EncoderID, display.ConnectorID + 1} {
		_, err := drm.GetConnector(f, id)
		simtest.WantErrno(t, "GETCONNECTOR of a non-connector", err, syscall.ENOENT)
	}
}

func TestMonitorModesArePruned(t *testing.T) {
	wide := uapi.ModeModeInfo{Clock: 241500, Hdisplay: 2560, HsyncStart: 2608, HsyncEnd: 2640, Htotal: 2720,
		Vdisplay: 1440, VsyncStart: 1443, VsyncEnd: 1448, Vtotal: 1481, Flags: uapi.ModeFlagPHSync | uapi.ModeFlagNVSync}
	tooWide := display.Mode1920x1080p60 // 2100 pixels wide at a legal clock: beyond max_width
	tooWide.Hdisplay, tooWide.HsyncStart, tooWide.HsyncEnd, tooWide.Htotal = 2100, 2110, 2120, 2200
	dblscan := display.Mode640x480p60
	dblscan.Flags |= uapi.ModeFlagDblScan
	broken := display.Mode800x600p60
	broken.HsyncStart = 700 // before the end of the visible line
	preferred := display.Mode1280x720p60
	preferred.Type = uapi.ModeTypePreferred | uapi.ModeTypeUserdef // the user bit is dropped
	mon := display.Monitor{WidthMM: 100, HeightMM: 50, Modes: []uapi.ModeModeInfo{
		wide, display.Mode1024x768p60, tooWide, dblscan, broken, preferred, display.Mode1024x768p60}}
	r := newRig(t, display.Options{Monitor: &mon})
	got := connectorModes(t, r.open())
	var names []string
	for _, m := range got {
		names = append(names, m.String())
	}
	if !slices.Equal(names, []string{"1280x720@60", "1024x768@60"}) {
		t.Fatalf("modes %v: want the 1280x720 (preferred) and one 1024x768", names)
	}
	if got[0].Type != uapi.ModeTypePreferred|uapi.ModeTypeDriver || got[1].Type != uapi.ModeTypeDriver {
		t.Fatalf("types %#x %#x", got[0].Type, got[1].Type)
	}
}

func TestUnplugged(t *testing.T) {
	r := newRig(t, display.Options{Unplugged: true})
	cn, err := drm.GetConnector(r.open(), display.ConnectorID)
	if err != nil {
		t.Fatal(err)
	}
	if cn.Status != uapi.StatusDisconnected || len(cn.Modes) != 0 || cn.MmWidth != 0 {
		t.Fatalf("unplugged connector %v, %dx%d mm", cn, cn.MmWidth, cn.MmHeight)
	}
}

func TestGetEncoderAndRouting(t *testing.T) {
	r := newRig(t, display.Options{})
	f := r.open()
	e, err := drm.GetEncoder(f, display.EncoderID)
	if err != nil {
		t.Fatal(err)
	}
	want := drm.Encoder{ID: display.EncoderID, Type: uapi.EncoderTMDS, CrtcID: 0, PossibleCrtcs: 1, PossibleClones: 1}
	if e != want {
		t.Fatalf("encoder %+v, want %+v", e, want)
	}
	_, err = drm.GetEncoder(f, display.ConnectorID)
	simtest.WantErrno(t, "GETENCODER of the connector's id", err, syscall.ENOENT)

	fb, _, _ := dumbFB(t, f, 1920, 1080)
	setCrtc(t, f, fb, modeNamed(t, f, "1920x1080@60"))
	if e, _ := drm.GetEncoder(f, display.EncoderID); e.CrtcID != display.CrtcID {
		t.Fatalf("encoder CRTC %d after SETCRTC, want %d", e.CrtcID, display.CrtcID)
	}
	if cn, _ := drm.GetConnector(f, display.ConnectorID); cn.EncoderID != display.EncoderID {
		t.Fatalf("connector encoder %d after SETCRTC", cn.EncoderID)
	}
	simtest.WantErrno(t, "SETCRTC off", drm.SetCrtc(f, display.CrtcID, 0, 0, 0, nil, nil), 0)
	if e, _ := drm.GetEncoder(f, display.EncoderID); e.CrtcID != 0 {
		t.Fatalf("encoder CRTC %d after turning it off", e.CrtcID)
	}
}

func TestSetCrtcAndGetCrtc(t *testing.T) {
	r := newRig(t, display.Options{})
	f := r.open()
	c, err := drm.GetCrtc(f, display.CrtcID)
	if err != nil {
		t.Fatal(err)
	}
	if c.ModeValid || c.FbID != 0 || c.GammaSize != 256 {
		t.Fatalf("CRTC at start %+v: want off, no fb, gamma 256 (vc4_crtc_init)", c)
	}
	// A framebuffer larger than the mode, shown from (16, 8).
	fb, _, _ := dumbFB(t, f, 1300, 740)
	m := modeNamed(t, f, "1280x720@60")
	m.ModeModeInfo.Name = [32]byte{'m', 'y', 'm', 'o', 'd', 'e'}
	m.Vrefresh = 0 // the kernel recomputes it
	simtest.WantErrno(t, "SETCRTC", drm.SetCrtc(f, display.CrtcID, fb, 16, 8, []uint32{display.ConnectorID}, &m), 0)
	c, err = drm.GetCrtc(f, display.CrtcID)
	if err != nil {
		t.Fatal(err)
	}
	if !c.ModeValid || c.FbID != fb || c.X != 16 || c.Y != 8 || c.Mode.Name() != "mymode" || c.Mode.Vrefresh != 60 ||
		c.Mode.Clock != 74250 || c.Mode.Htotal != 1650 || c.Mode.Type != uapi.ModeTypeDriver {
		t.Fatalf("CRTC after SETCRTC %+v", c)
	}
	// fb_id -1 keeps the current framebuffer.
	simtest.WantErrno(t, "SETCRTC fb -1", drm.SetCrtc(f, display.CrtcID, ^uint32(0), 0, 0, []uint32{display.ConnectorID}, &m), 0)
	if c, _ = drm.GetCrtc(f, display.CrtcID); c.FbID != fb || c.X != 0 {
		t.Fatalf("CRTC after SETCRTC fb -1 %+v", c)
	}
	// Off: mode_valid 0, no framebuffer; the caller's mode bytes are left.
	simtest.WantErrno(t, "SETCRTC off", drm.SetCrtc(f, display.CrtcID, 0, 0, 0, nil, nil), 0)
	arg := uapi.ModeCrtc{CrtcID: display.CrtcID, Mode: uapi.ModeModeInfo{Clock: 1234}}
	simtest.WantErrno(t, "GETCRTC", simtest.Ioctl(f, uapi.IoctlModeGetCrtc, &arg), 0)
	if arg.ModeValid != 0 || arg.FbID != 0 || arg.Mode.Clock != 1234 {
		t.Fatalf("GETCRTC of an off CRTC %+v", arg)
	}
	_, err = drm.GetCrtc(f, display.EncoderID)
	simtest.WantErrno(t, "GETCRTC of the encoder's id", err, syscall.ENOENT)
}

func TestSetCrtcErrors(t *testing.T) {
	r := newRig(t, display.Options{})
	f := r.open()
	fb, _, _ := dumbFB(t, f, 1920, 1080)
	small, _, _ := dumbFB(t, f, 800, 600)
	good := modeNamed(t, f, "1920x1080@60").ModeModeInfo
	conns := []uint32{display.ConnectorID}
	two := []uint32{display.ConnectorID, display.ConnectorID}
	bad := []uint32{display.EncoderID}
	with := func(change func(*uapi.ModeModeInfo)) uapi.ModeModeInfo { m := good; change(&m); return m }
	for _, tc := range []struct {
		name string
		arg  uapi.ModeCrtc
		want syscall.Errno
	}{
		{"x beyond 16 bits", uapi.ModeCrtc{CrtcID: display.CrtcID, X: 1 << 16, FbID: fb, ModeValid: 1, Mode: good}, syscall.ERANGE},
		{"unknown CRTC", uapi.ModeCrtc{CrtcID: display.ConnectorID, FbID: fb, ModeValid: 1, Mode: good}, syscall.ENOENT},
		{"unknown fb", uapi.ModeCrtc{CrtcID: display.CrtcID, FbID: 12345, ModeValid: 1, Mode: good}, syscall.ENOENT},
		{"fb 0 with a mode", uapi.ModeCrtc{CrtcID: display.CrtcID, ModeValid: 1, Mode: good}, syscall.ENOENT},
		{"fb -1 with none current", uapi.ModeCrtc{CrtcID: display.CrtcID, FbID: ^uint32(0), ModeValid: 1, Mode: good}, syscall.EINVAL},
		{"aspect ratio without the cap", uapi.ModeCrtc{CrtcID: display.CrtcID, FbID: fb, ModeValid: 1,
			Mode: with(func(m *uapi.ModeModeInfo) { m.Flags |= 2 << 19 })}, syscall.EINVAL},
		{"clock above INT_MAX", uapi.ModeCrtc{CrtcID: display.CrtcID, FbID: fb, ModeValid: 1,
			Mode: with(func(m *uapi.ModeModeInfo) { m.Clock = 1 << 31 })}, syscall.ERANGE},
		{"vrefresh above INT_MAX", uapi.ModeCrtc{CrtcID: display.CrtcID, FbID: fb, ModeValid: 1,
			Mode: with(func(m *uapi.ModeModeInfo) { m.Vrefresh = 1 << 31 })}, syscall.ERANGE},
		{"an unknown 3D layout", uapi.ModeCrtc{CrtcID: display.CrtcID, FbID: fb, ModeValid: 1,
			Mode: with(func(m *uapi.ModeModeInfo) { m.Flags |= 9 << 14 })}, syscall.EINVAL},
		{"clock 0", uapi.ModeCrtc{CrtcID: display.CrtcID, FbID: fb, ModeValid: 1, Mode: with(func(m *uapi.ModeModeInfo) { m.Clock = 0 })}, syscall.EINVAL},
		{"hsync before the line ends", uapi.ModeCrtc{CrtcID: display.CrtcID, FbID: fb, ModeValid: 1,
			Mode: with(func(m *uapi.ModeModeInfo) { m.HsyncStart = 1900 })}, syscall.EINVAL},
		{"vtotal inside vsync", uapi.ModeCrtc{CrtcID: display.CrtcID, FbID: fb, ModeValid: 1,
			Mode: with(func(m *uapi.ModeModeInfo) { m.Vtotal = 1088 })}, syscall.EINVAL},
		{"unknown flag", uapi.ModeCrtc{CrtcID: display.CrtcID, FbID: fb, ModeValid: 1,
			Mode: with(func(m *uapi.ModeModeInfo) { m.Flags |= 1 << 10 })}, syscall.EINVAL},
		{"fb smaller than the mode", uapi.ModeCrtc{CrtcID: display.CrtcID, FbID: small, ModeValid: 1, Mode: good,
			SetConnectorsPtr: simtest.Ptr(t, conns), CountConnectors: 1}, syscall.ENOSPC},
		{"viewport past the fb's right edge", uapi.ModeCrtc{CrtcID: display.CrtcID, FbID: fb, X: 1, ModeValid: 1, Mode: good,
			SetConnectorsPtr: simtest.Ptr(t, conns), CountConnectors: 1}, syscall.ENOSPC},
		{"mode without connectors", uapi.ModeCrtc{CrtcID: display.CrtcID, FbID: fb, ModeValid: 1, Mode: good}, syscall.EINVAL},
		{"connectors without a mode", uapi.ModeCrtc{CrtcID: display.CrtcID, SetConnectorsPtr: simtest.Ptr(t, conns), CountConnectors: 1}, syscall.EINVAL},
		{"more connectors than exist", uapi.ModeCrtc{CrtcID: display.CrtcID, FbID: fb, ModeValid: 1, Mode: good,
			SetConnectorsPtr: simtest.Ptr(t, two), CountConnectors: 2}, syscall.EINVAL},
		{"unknown connector", uapi.ModeCrtc{CrtcID: display.CrtcID, FbID: fb, ModeValid: 1, Mode: good,
			SetConnectorsPtr: simtest.Ptr(t, bad), CountConnectors: 1}, syscall.ENOENT},
		{"bad connector array", uapi.ModeCrtc{CrtcID: display.CrtcID, FbID: fb, ModeValid: 1, Mode: good,
			SetConnectorsPtr: 16, CountConnectors: 1}, syscall.EFAULT},
		{"clock above the HDMI encoder's 162 MHz", uapi.ModeCrtc{CrtcID: display.CrtcID, FbID: fb, ModeValid: 1,
			Mode: with(func(m *uapi.ModeModeInfo) { m.Clock = 170000 }), SetConnectorsPtr: simtest.Ptr(t, conns), CountConnectors: 1}, syscall.EINVAL},
		{"double scan", uapi.ModeCrtc{CrtcID: display.CrtcID, FbID: fb, ModeValid: 1,
			Mode: with(func(m *uapi.ModeModeInfo) { m.Flags |= uapi.ModeFlagDblScan }), SetConnectorsPtr: simtest.Ptr(t, conns), CountConnectors: 1}, syscall.EINVAL},
	} {
		arg := tc.arg
		simtest.WantErrno(t, tc.name, simtest.Ioctl(f, uapi.IoctlModeSetCrtc, &arg), tc.want)
	}
	if c, _ := drm.GetCrtc(f, display.CrtcID); c.ModeValid {
		t.Fatalf("a refused SETCRTC changed the CRTC: %+v", c)
	}
	// With the ASPECT_RATIO capability the aspect bits are accepted, and
	// GETCRTC shows them only to such files.
	simtest.WantErrno(t, "SET_CLIENT_CAP ASPECT_RATIO", drm.SetClientCapability(f, uapi.ClientCapAspectRatio, 1), 0)
	ar := drm.ModeInfo{ModeModeInfo: with(func(m *uapi.ModeModeInfo) { m.Flags |= 2 << 19 })}
	simtest.WantErrno(t, "SETCRTC 16:9", drm.SetCrtc(f, display.CrtcID, fb, 0, 0, conns, &ar), 0)
	if c, _ := drm.GetCrtc(f, display.CrtcID); c.Mode.Flags != 0x5|2<<19 {
		t.Fatalf("flags %#x for a file with ASPECT_RATIO", c.Mode.Flags)
	}
	if c, _ := drm.GetCrtc(r.open(), display.CrtcID); c.Mode.Flags != 0x5 {
		t.Fatalf("flags %#x for a file without ASPECT_RATIO", c.Mode.Flags)
	}
	ar.Flags = 0x5 | 7<<19
	simtest.WantErrno(t, "SETCRTC with aspect ratio 7", drm.SetCrtc(f, display.CrtcID, fb, 0, 0, conns, &ar), syscall.EINVAL)
}

func TestMasterRules(t *testing.T) {
	r := newRig(t, display.Options{})
	master := r.open()
	other := r.open() // opened while master is held: not master
	fb, _, _ := dumbFB(t, master, 1920, 1080)
	mode := modeNamed(t, other, "1920x1080@60") // reading is for anyone

	err := drm.SetCrtc(other, display.CrtcID, fb, 0, 0, []uint32{display.ConnectorID}, &mode)
	simtest.WantErrno(t, "SETCRTC by a non-master", err, syscall.EACCES)
	setCrtc(t, master, fb, mode)
	simtest.WantErrno(t, "PAGE_FLIP by a non-master", flip(other, fb, uapi.PageFlipEvent, 1), syscall.EACCES)
	// A non-master may add framebuffers, and the master may show them:
	// framebuffer ids are global (drm_framebuffer_lookup).
	ofb, _, _ := dumbFB(t, other, 1920, 1080)
	simtest.WantErrno(t, "PAGE_FLIP to another file's fb", flip(master, ofb, uapi.PageFlipEvent, 1), 0)
	// ... but only the maker may remove one (drm_mode_closefb).
	simtest.WantErrno(t, "RMFB of another file's fb", drm.RmFB(master, ofb), syscall.ENOENT)

	// Once the master drops master, the other may not take it (no
	// CAP_SYS_ADMIN, never master), but a root file may.
	simtest.WantErrno(t, "DROP_MASTER", drm.DropMaster(master), 0)
	simtest.WantErrno(t, "SET_MASTER by a never-master", drm.SetMaster(other), syscall.EACCES)
	simtest.WantErrno(t, "PAGE_FLIP after DROP_MASTER", flip(master, fb, 0, 0), syscall.EACCES)
	root, err := r.dev.OpenWith(sim.OpenOptions{Root: true})
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	simtest.WantErrno(t, "SET_MASTER by root", drm.SetMaster(root), 0)
	simtest.WantErrno(t, "PAGE_FLIP by the new master", flip(root, fb, 0, 0), 0)
}

func TestCapabilities(t *testing.T) {
	r := newRig(t, display.Options{})
	f := r.open()
	for _, tc := range []struct {
		cap  uint64
		want uint64
	}{
		{uapi.CapDumbBuffer, 1}, {uapi.CapVblankHighCrtc, 1}, {uapi.CapDumbPreferredDepth, 24}, {uapi.CapDumbPreferShadow, 0},
		{uapi.CapAsyncPageFlip, 1}, {uapi.CapCursorWidth, 64}, {uapi.CapCursorHeight, 64}, {uapi.CapAddFB2Modifiers, 1},
		{uapi.CapPageFlipTarget, 0}, {uapi.CapCrtcInVblankEvent, 1}, {uapi.CapTimestampMonotonic, 1},
	} {
		v, err := drm.GetCapability(f, tc.cap)
		if err != nil || v != tc.want {
			t.Errorf("capability %#x: %d, %v; want %d", tc.cap, v, err, tc.want)
		}
	}
	_, err := drm.GetCapability(f, 0x99)
	simtest.WantErrno(t, "unknown capability", err, syscall.EINVAL)

	for _, tc := range []struct {
		cap, value uint64
		want       syscall.Errno
	}{
		{uapi.ClientCapStereo3D, 2, syscall.EINVAL},
		{uapi.ClientCapUniversalPlanes, 1, 0},
		{uapi.ClientCapWritebackConnectors, 1, syscall.EINVAL}, // needs ATOMIC first
		{uapi.ClientCapAtomic, 3, syscall.EINVAL},
		{uapi.ClientCapAtomic, 1, 0},
		{uapi.ClientCapWritebackConnectors, 1, 0},
		{uapi.ClientCapAspectRatio, 2, syscall.EINVAL},
		{6, 1, syscall.EOPNOTSUPP}, // CURSOR_PLANE_HOTSPOT: not a virtualised driver
		{99, 1, syscall.EINVAL},
	} {
		simtest.WantErrno(t, "SET_CLIENT_CAP", drm.SetClientCapability(f, tc.cap, tc.value), tc.want)
	}
}

func TestUnmodelledIoctlsSayENOSYS(t *testing.T) {
	r := newRig(t, display.Options{})
	f := r.open()
	// DRM_IOCTL_MODE_SETPLANE: DRM_IOWR(0xB7, struct drm_mode_set_plane), 48 bytes.
	var buf [48]byte
	err := f.Ioctl(uapi.IOWR(0xB7, 48), unsafe.Pointer(&buf[0]))
	simtest.WantErrno(t, "SETPLANE", err, syscall.ENOSYS)
}

func TestClosedDisplayIsENODEV(t *testing.T) {
	r := newRig(t, display.Options{})
	f := r.open()
	r.disp.Close()
	_, err := drm.GetResources(f)
	simtest.WantErrno(t, "GETRESOURCES after the display closed", err, syscall.ENODEV)
}

func TestGEMReferencesFollowFramebuffers(t *testing.T) {
	r := newRig(t, display.Options{})
	f := r.open()
	h := simrig.AllocBO(t, f, 1920*1080*4)
	fb, err := drm.AddFramebuffer(f, 1920, 1080, uapi.FormatXRGB8888, h, 1920*4, uapi.FormatModLinear)
	if err != nil {
		t.Fatal(err)
	}
	setCrtc(t, f, fb, modeNamed(t, f, "1920x1080@60"))
	// Closing the handle leaves the BO alive: the framebuffer holds it.
	simtest.WantErrno(t, "GEM_CLOSE", drm.CloseHandle(f, h), 0)
	var fr display.Frame
	if err := r.disp.ReadScanout(&fr); err != nil || fr.FbID != fb || len(fr.Data) != 1920*1080*4 {
		t.Fatalf("scanout after GEM_CLOSE: fb %d, %d bytes, %v", fr.FbID, len(fr.Data), err)
	}
}
