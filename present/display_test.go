package present_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/present"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

func TestOpenChoosesFirstConnected(t *testing.T) {
	f := newFakeKMS(t)
	// Make the first connector the disconnected one.
	f.connectors[0], f.connectors[1] = f.connectors[1], f.connectors[0]
	d, err := present.Open(f, present.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Connector().Name(); got != "HDMI-A-1" {
		t.Errorf("connector %s, want the connected HDMI-A-1", got)
	}
	if d.Mode() != cea1080p60 || d.CrtcID() != 41 {
		t.Errorf("chose %v on CRTC %d; want the preferred 1080p60 on CRTC 41 (encoder 51's)", d.Mode(), d.CrtcID())
	}
	if w, h := d.Size(); w != 1920 || h != 1080 {
		t.Errorf("Size() = %dx%d", w, h)
	}
	saved, conns := d.Saved()
	if saved.FbID != 70 || !saved.ModeValid || saved.Mode != cea1080p60 || len(conns) != 1 || conns[0] != 61 {
		t.Errorf("saved %+v driving %v; want the console fb 70 at 1080p60 driving connector 61", saved, conns)
	}
	if got := d.String(); got != "HDMI-A-1 1920x1080@60 on CRTC 41" {
		t.Errorf("String() = %q", got)
	}
	if n := f.Calls(uapi.IoctlModeSetCrtc) + f.Calls(uapi.IoctlModeAddFB2); n != 0 {
		t.Errorf("Open changed the display (%d SETCRTC/ADDFB2 calls); it must only look", n)
	}
}

func TestOpenByNameAndMode(t *testing.T) {
	f := newFakeKMS(t)
	d, err := present.Open(f, present.Config{Connector: "hdmi-a-1", Mode: present.ModeSpec{Width: 1280, Height: 720}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Connector().ID != 61 || d.Mode() != cea720p60 {
		t.Errorf("got %s %v", d.Connector(), d.Mode())
	}
}

func TestOpenErrors(t *testing.T) {
	t.Run("named connector disconnected", func(t *testing.T) {
		f := newFakeKMS(t)
		_, err := present.Open(f, present.Config{Connector: "HDMI-A-2"})
		if !errors.Is(err, present.ErrNoDisplay) || !strings.Contains(err.Error(), "video=HDMI-A-2:1280x720@60D") {
			t.Errorf("got %v; want ErrNoDisplay with the video= hint for HDMI-A-2", err)
		}
	})
	t.Run("unknown connector", func(t *testing.T) {
		f := newFakeKMS(t)
		_, err := present.Open(f, present.Config{Connector: "DSI-1"})
		if !errors.Is(err, present.ErrUnknownConnector) ||
			!strings.Contains(err.Error(), "HDMI-A-1 (connected), HDMI-A-2 (disconnected)") {
			t.Errorf("got %v; want ErrUnknownConnector listing both connectors", err)
		}
	})
	t.Run("nothing connected", func(t *testing.T) {
		f := newFakeKMS(t)
		f.connectors[0].status = uint32(uapi.StatusDisconnected)
		_, err := present.Open(f, present.Config{})
		if !errors.Is(err, present.ErrNoDisplay) || !strings.Contains(err.Error(), "HDMI-A-1 (disconnected), HDMI-A-2 (disconnected)") ||
			!strings.Contains(err.Error(), "connect a display") {
			t.Errorf("got %v; want ErrNoDisplay listing the connectors and what to do", err)
		}
	})
	t.Run("unknown mode", func(t *testing.T) {
		f := newFakeKMS(t)
		_, err := present.Open(f, present.Config{Mode: present.ModeSpec{Width: 800, Height: 600}})
		if !errors.Is(err, present.ErrUnknownMode) || !strings.Contains(err.Error(), "1280x720@60") {
			t.Errorf("got %v; want ErrUnknownMode listing the modes", err)
		}
	})
	t.Run("another program is master", func(t *testing.T) {
		f := newFakeKMS(t)
		f.otherMaster = true
		_, err := present.Open(f, present.Config{})
		if !errors.Is(err, present.ErrNotMaster) || !errors.Is(err, unix.EBUSY) ||
			!strings.Contains(err.Error(), drm.HintNotMaster) {
			t.Errorf("got %v; want ErrNotMaster wrapping EBUSY with drm.HintNotMaster", err)
		}
		if f.Calls(uapi.IoctlModeGetResources) != 0 {
			t.Error("Open went on after SET_MASTER failed")
		}
	})
	t.Run("no CRTC for the connector", func(t *testing.T) {
		f := newFakeKMS(t)
		f.connectors[0].encoder = 0
		f.encoders[0].crtc, f.encoders[0].possible = 0, 0
		_, err := present.Open(f, present.Config{})
		if !errors.Is(err, present.ErrNoCrtc) {
			t.Errorf("got %v; want ErrNoCrtc", err)
		}
	})
	t.Run("not a modesetting device", func(t *testing.T) {
		f := newFakeKMS(t)
		f.Fail(uapi.IoctlModeGetResources, unix.EOPNOTSUPP)
		_, err := present.Open(f, present.Config{})
		if !errors.Is(err, unix.EOPNOTSUPP) || !strings.Contains(err.Error(), "does no modesetting") {
			t.Errorf("got %v; want drm's EOPNOTSUPP hint", err)
		}
	})
}

func TestOpenCrtcChoice(t *testing.T) {
	// The connector's encoder drives no CRTC: take the first possible
	// CRTC that is off, not the one showing another display's picture.
	f := newFakeKMS(t)
	f.connectors[0].encoder = 0
	f.encoders[0].crtc = 0
	d, err := present.Open(f, present.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if d.CrtcID() != 42 {
		t.Errorf("CRTC %d; want 42, the idle one of encoder 51's possible CRTCs", d.CrtcID())
	}
	if saved, conns := d.Saved(); saved.ModeValid || len(conns) != 0 {
		t.Errorf("saved %+v %v; want an idle CRTC driving nothing", saved, conns)
	}

	// Every possible CRTC is busy: the first possible one.
	f = newFakeKMS(t)
	f.connectors[0].encoder = 0
	f.encoders[0].crtc = 0
	f.crtcs[1].fb, f.crtcs[1].modeValid, f.crtcs[1].mode = 70, true, cea1080p60.ModeModeInfo
	d, err = present.Open(f, present.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if d.CrtcID() != 41 {
		t.Errorf("CRTC %d; want 41, the first possible", d.CrtcID())
	}
}
