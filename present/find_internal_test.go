package present

import (
	"errors"
	"strings"
	"testing"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/drm/drmtest"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

func TestAcceptDisplay(t *testing.T) {
	// resources answers GETRESOURCES with n CRTCs and m connectors (ids
	// from 1), filling arrays as drm_mode_getresources does.
	resources := func(crtcs, conns int) *drmtest.Conn {
		c := drmtest.NewConn()
		drmtest.On(c, uapi.IoctlModeGetResources, func(r *uapi.ModeCardRes) error {
			fill := func(ptr uint64, count uint32, n int) uint32 {
				ids := uapi.UserSlice[uint32](ptr, int(min(count, uint32(n))))
				for i := range ids {
					ids[i] = uint32(i + 1)
				}
				return uint32(n)
			}
			r.CountCrtcs = fill(r.CrtcIDPtr, r.CountCrtcs, crtcs)
			r.CountConnectors = fill(r.ConnectorIDPtr, r.CountConnectors, conns)
			return nil
		})
		return c
	}
	if err := acceptDisplay(resources(1, 2), drm.Card{}); err != nil {
		t.Errorf("a card with a CRTC and connectors: %v", err)
	}
	if err := acceptDisplay(resources(0, 0), drm.Card{}); err == nil || !strings.Contains(err.Error(), "0 connectors and 0 CRTCs") {
		t.Errorf("a card without outputs: %v", err)
	}
	renderOnly := drmtest.NewConn()
	renderOnly.Fail(uapi.IoctlModeGetResources, unix.EOPNOTSUPP)
	if err := acceptDisplay(renderOnly, drm.Card{}); !errors.Is(err, unix.EOPNOTSUPP) {
		t.Errorf("a render-only card: %v", err)
	}
}

func TestFindDisplayInAnEmptyDirectory(t *testing.T) {
	_, _, err := FindDisplay(t.TempDir())
	var nc *drm.NoCardError
	if !errors.As(err, &nc) || !strings.Contains(err.Error(), "card that drives a display") {
		t.Errorf("got %v; want a *drm.NoCardError", err)
	}
}
