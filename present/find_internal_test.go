package present

import (
	"errors"
	"strings"
	"testing"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/drm/drmtest"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/display"
	"github.com/vccube/vccube/sim/kernel/cleargpu"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

func TestAcceptDisplay(t *testing.T) {
	// The simulated Pi with its display: one CRTC, one connector.
	disp := display.New(display.Options{})
	dev, err := sim.New(sim.Options{GPU: cleargpu.New(), CMASize: 16 << 20, Display: disp})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	f, err := dev.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := acceptDisplay(f, drm.Card{}); err != nil {
		t.Errorf("a card with a CRTC and a connector: %v", err)
	}
	// Without a display, as a render-only driver (v3d, vgem): EOPNOTSUPP.
	renderOnly, err := sim.New(sim.Options{GPU: cleargpu.New(), CMASize: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer renderOnly.Close()
	g, err := renderOnly.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if err := acceptDisplay(g, drm.Card{}); !errors.Is(err, unix.EOPNOTSUPP) {
		t.Errorf("a render-only card: %v", err)
	}
	// A KMS driver with no outputs (nothing a Pi's display can be): a
	// fake answering GETRESOURCES with no CRTC and no connector.
	none := drmtest.NewConn()
	drmtest.On(none, uapi.IoctlModeGetResources, func(r *uapi.ModeCardRes) error {
		r.CountCrtcs, r.CountConnectors = 0, 0
		return nil
	})
	if err := acceptDisplay(none, drm.Card{}); err == nil || !strings.Contains(err.Error(), "0 connectors and 0 CRTCs") {
		t.Errorf("a card without outputs: %v", err)
	}
}

func TestFindDisplayInAnEmptyDirectory(t *testing.T) {
	_, _, err := FindDisplay(t.TempDir())
	var nc *drm.NoCardError
	if !errors.As(err, &nc) || !strings.Contains(err.Error(), "card that drives a display") {
		t.Errorf("got %v; want a *drm.NoCardError", err)
	}
}
