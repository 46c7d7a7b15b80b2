package present_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/present"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/display"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// On the simulated Pi with a console on screen, Open takes the connected
// HDMI-A-1, the monitor's preferred mode, the CRTC the connector's encoder
// drives, and saves what the console shows; it changes nothing.
func TestOpenChoosesTheConnectedDisplay(t *testing.T) {
	r := newRig(t, rigOptions{console: true})
	d, err := present.Open(r.conn, present.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Connector().Name(); got != "HDMI-A-1" {
		t.Errorf("connector %s, want HDMI-A-1", got)
	}
	if m := d.Mode(); m.ModeModeInfo.Hdisplay != 1920 || m.Vdisplay != 1080 || !m.Preferred() || d.CrtcID() != display.CrtcID {
		t.Errorf("chose %v on CRTC %d; want the preferred 1920x1080@60 on CRTC %d (the encoder's)", m, d.CrtcID(), display.CrtcID)
	}
	if w, h := d.Size(); w != 1920 || h != 1080 {
		t.Errorf("Size() = %dx%d", w, h)
	}
	saved, conns := d.Saved()
	if saved.FbID != r.consoleFB || !saved.ModeValid || saved.Mode.ModeModeInfo != r.consoleMode.ModeModeInfo || len(conns) != 1 || conns[0] != display.ConnectorID {
		t.Errorf("saved %+v driving %v; want the console's fb %d in %v driving HDMI-A-1", saved, conns, r.consoleFB, r.consoleMode)
	}
	if got, want := d.String(), "HDMI-A-1 1920x1080@60 on CRTC 95"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if n := r.conn.Calls(uapi.IoctlModeSetCrtc) + r.conn.Calls(uapi.IoctlModeAddFB2); n != 0 {
		t.Errorf("Open changed the display (%d SETCRTC/ADDFB2 calls); it must only look", n)
	}
}

// Of several connectors, the first connected one (topology: the first is
// disconnected).
func TestOpenChoosesFirstConnected(t *testing.T) {
	tp := newTopology()
	tp.connectors[0], tp.connectors[1] = tp.connectors[1], tp.connectors[0]
	d := openTopology(t, tp, present.Config{})
	if d.Connector().ID != 61 || d.Mode() != cea1080p60 || d.CrtcID() != 41 {
		t.Errorf("chose %s %v on CRTC %d; want HDMI-A-1's preferred 1080p60 on CRTC 41 (encoder 51's)", d.Connector(), d.Mode(), d.CrtcID())
	}
	if saved, conns := d.Saved(); saved.FbID != 70 || len(conns) != 1 || conns[0] != 61 {
		t.Errorf("saved %+v driving %v", saved, conns)
	}
}

func TestOpenByNameAndMode(t *testing.T) {
	r := newRig(t, rigOptions{})
	d, err := present.Open(r.conn, present.Config{Connector: "hdmi-a-1", Mode: present.ModeSpec{Width: 1280, Height: 720}})
	if err != nil {
		t.Fatal(err)
	}
	// The monitor offers 1280x720 at 60 and 50 Hz; the first listed of the
	// size is the faster (drm_modes.c drm_mode_compare).
	if m := d.Mode(); d.Connector().ID != display.ConnectorID || m.String() != "1280x720@60" || m.ModeModeInfo.Clock != display.Mode1280x720p60.Clock {
		t.Errorf("got %s %v", d.Connector(), m)
	}
}

func TestOpenErrors(t *testing.T) {
	t.Run("named connector disconnected", func(t *testing.T) {
		r := newRig(t, rigOptions{unplugged: true})
		_, err := present.Open(r.conn, present.Config{Connector: "HDMI-A-1"})
		if !errors.Is(err, present.ErrNoDisplay) || !strings.Contains(err.Error(), "video=HDMI-A-1:1280x720@60D") {
			t.Errorf("got %v; want ErrNoDisplay with the video= hint for HDMI-A-1", err)
		}
	})
	t.Run("unknown connector", func(t *testing.T) {
		r := newRig(t, rigOptions{})
		_, err := present.Open(r.conn, present.Config{Connector: "DSI-1"})
		if !errors.Is(err, present.ErrUnknownConnector) || !strings.Contains(err.Error(), "the connectors are: HDMI-A-1 (connected)") {
			t.Errorf("got %v; want ErrUnknownConnector listing HDMI-A-1", err)
		}
	})
	t.Run("nothing connected", func(t *testing.T) {
		r := newRig(t, rigOptions{unplugged: true})
		_, err := present.Open(r.conn, present.Config{})
		if !errors.Is(err, present.ErrNoDisplay) || !strings.Contains(err.Error(), "HDMI-A-1 (disconnected)") ||
			!strings.Contains(err.Error(), "connect a display") {
			t.Errorf("got %v; want ErrNoDisplay listing the connector and what to do", err)
		}
	})
	t.Run("unknown mode", func(t *testing.T) {
		r := newRig(t, rigOptions{})
		_, err := present.Open(r.conn, present.Config{Mode: present.ModeSpec{Width: 1366, Height: 768}})
		if !errors.Is(err, present.ErrUnknownMode) || !strings.Contains(err.Error(), "1280x720@60") {
			t.Errorf("got %v; want ErrUnknownMode listing the modes", err)
		}
	})
	t.Run("another program is master", func(t *testing.T) {
		// As root, SET_MASTER over another master's head is EBUSY; as a
		// user, EACCES (drm_auth.c drm_setmaster_ioctl,
		// drm_master_check_perm). Either way Open stops there.
		for _, root := range []bool{true, false} {
			want := unix.EACCES
			if root {
				want = unix.EBUSY
			}
			r := newRig(t, rigOptions{faults: sim.Faults{MasterHeldElsewhere: true}, root: root})
			_, err := present.Open(r.conn, present.Config{})
			if !errors.Is(err, present.ErrNotMaster) || !errors.Is(err, want) || !strings.Contains(err.Error(), drm.HintNotMaster) {
				t.Errorf("root %v: got %v; want ErrNotMaster wrapping %v with drm.HintNotMaster", root, err, want)
			}
			if r.conn.Calls(uapi.IoctlModeGetResources) != 0 {
				t.Error("Open went on after SET_MASTER failed")
			}
		}
	})
	t.Run("no CRTC for the connector", func(t *testing.T) {
		// A Pi's encoders can always drive a CRTC; a driver whose
		// possible_crtcs leaves a connector none is shown by topology.
		tp := newTopology()
		tp.connectors[0].encoder = 0
		tp.encoders[0].crtc, tp.encoders[0].possible = 0, 0
		_, err := present.Open(tp, present.Config{})
		if !errors.Is(err, present.ErrNoCrtc) {
			t.Errorf("got %v; want ErrNoCrtc", err)
		}
	})
	t.Run("not a modesetting device", func(t *testing.T) {
		r := newRig(t, rigOptions{noKMS: true})
		_, err := present.Open(r.conn, present.Config{})
		if !errors.Is(err, unix.EOPNOTSUPP) || !strings.Contains(err.Error(), "does no modesetting") {
			t.Errorf("got %v; want drm's EOPNOTSUPP hint", err)
		}
	})
}

// With no CRTC on the connector, Open takes a CRTC the connector's
// encoders can drive, preferring one that is off; on the simulated Pi
// the one CRTC, off when nothing is shown.
func TestOpenCrtcChoice(t *testing.T) {
	r := newRig(t, rigOptions{})
	d, err := present.Open(r.conn, present.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if d.CrtcID() != display.CrtcID {
		t.Errorf("CRTC %d, want %d", d.CrtcID(), display.CrtcID)
	}
	if saved, conns := d.Saved(); saved.ModeValid || len(conns) != 0 {
		t.Errorf("saved %+v %v; want an idle CRTC driving nothing", saved, conns)
	}

	// Of two possible CRTCs, the idle one, not the one showing another
	// display's picture.
	tp := newTopology()
	tp.connectors[0].encoder = 0
	tp.encoders[0].crtc = 0
	if d := openTopology(t, tp, present.Config{}); d.CrtcID() != 42 {
		t.Errorf("CRTC %d; want 42, the idle one of encoder 51's possible CRTCs", d.CrtcID())
	}
	// Every possible CRTC is busy: the first possible one.
	tp = newTopology()
	tp.connectors[0].encoder = 0
	tp.encoders[0].crtc = 0
	m := cea1080p60
	tp.crtcs[1].fb, tp.crtcs[1].mode = 70, &m
	if d := openTopology(t, tp, present.Config{}); d.CrtcID() != 41 {
		t.Errorf("CRTC %d; want 41, the first possible", d.CrtcID())
	}
}
