package display_test

import (
	"syscall"
	"testing"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/display"
	"github.com/vccube/vccube/sim/kernel/cleargpu"
	"github.com/vccube/vccube/uapi"
)

// *display.Display implements sim.Display as it is: both name the kernel
// model's Client.
var _ sim.Display = (*display.Display)(nil)

// rig is a simulated Pi 3 with a display.
type rig struct {
	t    testing.TB
	dev  *sim.Device
	disp *display.Display
}

func newRig(t testing.TB, opts display.Options) *rig {
	t.Helper()
	disp := display.New(opts)
	return newRigOn(t, disp, disp)
}

// newRigOn is newRig with disp as the device sees it given by as (disp
// itself, or a wrapper of it).
func newRigOn(t testing.TB, disp *display.Display, as sim.Display) *rig {
	t.Helper()
	dev, err := sim.New(sim.Options{GPU: cleargpu.New(), CMASize: 64 << 20, Display: as})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { disp.Close(); dev.Close(); dev.Pool().Close() })
	return &rig{t: t, dev: dev, disp: disp}
}

// open opens the primary node (the first opener becomes DRM master).
func (r *rig) open() *sim.File {
	r.t.Helper()
	f, err := r.dev.Open()
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { f.Close() })
	return f
}

// dumbFB makes an XRGB8888 dumb buffer of w x h with its framebuffer and
// returns the framebuffer id, the buffer's pitch and its CPU mapping.
func dumbFB(t testing.TB, c uapi.Conn, w, h uint32) (fb, pitch uint32, pix []byte) {
	t.Helper()
	db, err := drm.CreateDumb(c, w, h, 32)
	if err != nil {
		t.Fatal(err)
	}
	off, err := drm.MapDumb(c, db.Handle)
	if err != nil {
		t.Fatal(err)
	}
	pix, err = c.Mmap(off, int(db.Size), syscall.PROT_READ|syscall.PROT_WRITE)
	if err != nil {
		t.Fatal(err)
	}
	fb, err = drm.AddFramebuffer(c, w, h, uapi.FormatXRGB8888, db.Handle, db.Pitch, uapi.FormatModLinear)
	if err != nil {
		t.Fatal(err)
	}
	return fb, db.Pitch, pix
}

// connectorModes returns HDMI-A-1's modes through drm.GetConnector.
func connectorModes(t testing.TB, c uapi.Conn) []drm.ModeInfo {
	t.Helper()
	cn, err := drm.GetConnector(c, display.ConnectorID)
	if err != nil {
		t.Fatal(err)
	}
	return cn.Modes
}

// modeNamed finds a mode of the connector by its String, e.g. "1920x1080@60".
func modeNamed(t testing.TB, c uapi.Conn, name string) drm.ModeInfo {
	t.Helper()
	for _, m := range connectorModes(t, c) {
		if m.String() == name {
			return m
		}
	}
	t.Fatalf("no mode %s on the connector", name)
	return drm.ModeInfo{}
}

// setCrtc shows fb in mode m on HDMI-A-1.
func setCrtc(t testing.TB, c uapi.Conn, fb uint32, m drm.ModeInfo) {
	t.Helper()
	if err := drm.SetCrtc(c, display.CrtcID, fb, 0, 0, []uint32{display.ConnectorID}, &m); err != nil {
		t.Fatal(err)
	}
}

// flip asks for a page flip to fb with an event carrying userData.
func flip(c uapi.Conn, fb uint32, flags uint32, userData uint64) error {
	arg := &uapi.ModeCrtcPageFlip{CrtcID: display.CrtcID, FbID: fb, Flags: flags, UserData: userData}
	return drm.PageFlip(c, arg)
}

// vblankNS is the time of vblank k of a 60.000 Hz mode (148.5 MHz over
// 2200x1125, or 74.25 MHz over 1650x750): exactly k/60 s, rounded down to
// the nanosecond.
func vblankNS(k int64) int64 { return k * 1_000_000_000 / 60 }
