package present_test

import (
	"testing"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/drm/drmtest"
	"github.com/vccube/vccube/present"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// topology is a device with more outputs than the simulated Pi display's
// one CRTC and one connector: Open's choice of a connector among several
// and of a CRTC among those an encoder can drive needs two of each. It
// answers only the ioctls Open issues, none of which changes anything:
// SET_MASTER (granted) and GETRESOURCES, GETCONNECTOR, GETENCODER and
// GETCRTC, filled as the kernel fills them (drm_mode_config.c
// drm_mode_getresources: min(count, real) ids, the real counts written
// back; drm_connector.c drm_mode_getconnector: an array only when its
// count holds it all).
type topology struct {
	*drmtest.Conn
	crtcs      []topoCrtc
	encoders   []topoEncoder
	connectors []topoConnector
}

type topoCrtc struct {
	id, fb uint32
	mode   *drm.ModeInfo // nil: off
}

type topoEncoder struct {
	id, crtc, possible uint32 // possible: bit i is the i-th CRTC
}

type topoConnector struct {
	id, typeID uint32 // HDMI-A-<typeID>
	connected  bool
	encoder    uint32 // driving it now, or 0
	encoders   []uint32
	modes      []drm.ModeInfo
}

// newTopology returns two CRTCs (41 showing a console's framebuffer 70 at
// 1080p60, 42 off), two encoders (51 on CRTC 41, able to drive both; 52
// idle, able to drive only 42) and two HDMI connectors: HDMI-A-1 (61)
// connected through encoder 51, HDMI-A-2 (62) disconnected.
func newTopology() *topology {
	m := cea1080p60
	tp := &topology{
		Conn:     drmtest.NewConn(),
		crtcs:    []topoCrtc{{id: 41, fb: 70, mode: &m}, {id: 42}},
		encoders: []topoEncoder{{id: 51, crtc: 41, possible: 0b11}, {id: 52, possible: 0b10}},
		connectors: []topoConnector{
			{id: 61, typeID: 1, connected: true, encoder: 51, encoders: []uint32{51}, modes: []drm.ModeInfo{cea1080p60, cea720p60}},
			{id: 62, typeID: 2, encoders: []uint32{52}},
		},
	}
	tp.OnNoArg(uapi.IoctlSetMaster, func() error { return nil })
	drmtest.On(tp.Conn, uapi.IoctlModeGetResources, func(r *uapi.ModeCardRes) error {
		var crtcs, encs, conns []uint32
		for _, c := range tp.crtcs {
			crtcs = append(crtcs, c.id)
		}
		for _, e := range tp.encoders {
			encs = append(encs, e.id)
		}
		for _, c := range tp.connectors {
			conns = append(conns, c.id)
		}
		fill := func(ptr uint64, count uint32, ids []uint32) uint32 {
			copy(uapi.UserSlice[uint32](ptr, int(min(count, uint32(len(ids))))), ids)
			return uint32(len(ids))
		}
		r.CountFbs = 0
		r.CountCrtcs = fill(r.CrtcIDPtr, r.CountCrtcs, crtcs)
		r.CountEncoders = fill(r.EncoderIDPtr, r.CountEncoders, encs)
		r.CountConnectors = fill(r.ConnectorIDPtr, r.CountConnectors, conns)
		r.MinWidth, r.MaxWidth, r.MinHeight, r.MaxHeight = 1, 4096, 1, 4096
		return nil
	})
	drmtest.On(tp.Conn, uapi.IoctlModeGetConnector, func(g *uapi.ModeGetConnector) error {
		for _, c := range tp.connectors {
			if c.id != g.ConnectorID {
				continue
			}
			if n := uint32(len(c.encoders)); g.CountEncoders >= n && n > 0 {
				copy(uapi.UserSlice[uint32](g.EncodersPtr, int(n)), c.encoders)
			}
			g.CountEncoders = uint32(len(c.encoders))
			if n := uint32(len(c.modes)); g.CountModes >= n && n > 0 {
				dst := uapi.UserSlice[uapi.ModeModeInfo](g.ModesPtr, int(n))
				for i, m := range c.modes {
					dst[i] = m.ModeModeInfo
				}
			}
			g.CountModes = uint32(len(c.modes))
			g.ConnectorType, g.ConnectorTypeID = uint32(uapi.ConnectorHDMIA), c.typeID
			g.Connection = uint32(uapi.StatusDisconnected)
			if c.connected {
				g.Connection = uint32(uapi.StatusConnected)
			}
			g.EncoderID = c.encoder
			return nil
		}
		return unix.ENOENT
	})
	drmtest.On(tp.Conn, uapi.IoctlModeGetEncoder, func(g *uapi.ModeGetEncoder) error {
		for _, e := range tp.encoders {
			if e.id == g.EncoderID {
				g.EncoderType, g.CrtcID, g.PossibleCrtcs = uint32(uapi.EncoderTMDS), e.crtc, e.possible
				return nil
			}
		}
		return unix.ENOENT
	})
	drmtest.On(tp.Conn, uapi.IoctlModeGetCrtc, func(g *uapi.ModeCrtc) error {
		for _, c := range tp.crtcs {
			if c.id == g.CrtcID {
				g.FbID, g.GammaSize = c.fb, 256
				g.ModeValid, g.Mode = 0, uapi.ModeModeInfo{}
				if c.mode != nil {
					g.ModeValid, g.Mode = 1, c.mode.ModeModeInfo
				}
				return nil
			}
		}
		return unix.ENOENT
	})
	return tp
}

var _ uapi.Conn = (*topology)(nil)

// openTopology opens tp's display with cfg, failing the test on an error.
func openTopology(t *testing.T, tp *topology, cfg present.Config) *present.Display {
	t.Helper()
	d, err := present.Open(tp, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
