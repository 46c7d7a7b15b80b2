package present_test

import (
	"encoding/binary"
	"fmt"
	"sync"
	"testing"
	"unsafe"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/drm/drmtest"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// fakeKMS is a small model of the kernel's legacy KMS ioctls for the tests
// of this package, built on drmtest.Conn. It answers as the kernel does
// where present depends on it, each rule with its source:
//
//   - SET_MASTER fails with EBUSY while another file is master
//     (drm_auth.c: drm_setmaster_ioctl); SETCRTC and PAGE_FLIP are
//     DRM_MASTER ioctls, refused with EACCES otherwise (drm_ioctl.c:
//     drm_ioctl_permit).
//   - GETRESOURCES fills min(count, real) ids; GETCONNECTOR fills an array
//     only when its count is at least the real one; both write back the
//     real counts (drm_mode_config.c: drm_mode_getresources;
//     drm_connector.c: drm_mode_getconnector).
//   - SETCRTC: a mode needs a framebuffer that exists (ENOENT) and covers
//     the mode (ENOSPC, drm_crtc_check_viewport); a mode without
//     connectors and connectors without a mode or fb are EINVAL
//     (drm_crtc.c: drm_mode_setcrtc).
//   - PAGE_FLIP: unknown flags EINVAL; a CRTC showing no fb EBUSY; unknown
//     fb ENOENT; too small ENOSPC; a flip still pending EBUSY (drm_plane.c:
//     drm_mode_page_flip_ioctl; drm_atomic_helper.c: stall_checks for a
//     nonblocking commit).
//   - RMFB of a shown fb turns its CRTC off (drm_framebuffer.c:
//     drm_framebuffer_remove).
//   - ADDFB2 of an unknown handle is ENOENT; a pitch below the row, or a
//     buffer too small for pitch*height, is EINVAL (drm_gem_framebuffer_
//     helper.c: drm_gem_fb_init_with_funcs); modifiers need
//     DRM_CAP_ADDFB2_MODIFIERS (drm_framebuffer.c: framebuffer_check).
//
// One simplification errs on the strict side: a flip stays pending until
// its event has been read, where the kernel clears it at the vblank. A
// caller that flips again without consuming the event fails here.
//
// Events are struct drm_event_vblank records (drm.h), written here byte by
// byte rather than through package drm's struct, so the parser is checked
// against an independent encoding. Fd is an eventfd in semaphore mode that
// is readable while events are queued, so poll(2) works as on a DRM fd.
type fakeKMS struct {
	*drmtest.Conn
	efd int

	mu          sync.Mutex
	otherMaster bool // another program holds master
	master      bool
	modifiers   bool   // DRM_CAP_ADDFB2_MODIFIERS
	pitchAlign  uint32 // CREATE_DUMB pads pitches to this many bytes
	periodUsec  uint32 // vblank period in µs
	skip        uint32 // vblanks the next flip completes late by
	dropEvents  bool   // never deliver flip events (a broken driver)
	dumbLimit   int    // CREATE_DUMB fails with ENOMEM beyond this many buffers (0: no limit)
	nextID      uint32

	crtcs      []*fakeCrtc
	encoders   []*fakeEncoder
	connectors []*fakeConnector
	fbs        map[uint32]*fakeFB
	handles    map[uint32]uint64 // GEM handle -> size (dumb or BO)
	dumbs      map[uint32][]byte
	nextHandle uint32

	events    [][32]byte // queued event records, in order
	flipCalls int
	shown     []uint32 // fb of every SETCRTC and PAGE_FLIP, in order (preallocated)
	setcrtcs  []uapi.ModeCrtc
}

type fakeCrtc struct {
	id          uint32
	fb          uint32
	x, y        uint32
	modeValid   bool
	mode        uapi.ModeModeInfo
	seq         uint32
	pendingFlip bool
	pendingUser uint64
}

type fakeEncoder struct {
	id, crtc, possible uint32
}

type fakeConnector struct {
	id, typ, typeID, status, encoder uint32
	encoders                         []uint32
	modes                            []drm.ModeInfo
}

type fakeFB struct {
	w, h, handle, pitch uint32
	format              uint32
	owned               bool // added by this file
}

// mkMode builds a mode from its timings; hz is the kernel's rounded
// vrefresh.
func mkMode(name string, clock uint32, h, hss, hse, ht, v, vss, vse, vt uint16, hz, typ, flags uint32) drm.ModeInfo {
	var m drm.ModeInfo
	m.Clock, m.Hdisplay, m.HsyncStart, m.HsyncEnd, m.Htotal = clock, h, hss, hse, ht
	m.Vdisplay, m.VsyncStart, m.VsyncEnd, m.Vtotal = v, vss, vse, vt
	m.Vrefresh, m.Type, m.Flags = hz, typ, flags
	copy(m.ModeModeInfo.Name[:], name)
	return m
}

// Modes from CEA-861 and VESA DMT (the timings a Pi's HDMI port and VKMS
// list), with the kernel's rounded rates.
var (
	cea1080p60    = mkMode("1920x1080", 148500, 1920, 2008, 2052, 2200, 1080, 1084, 1089, 1125, 60, uapi.ModeTypeDriver|uapi.ModeTypePreferred, uapi.ModeFlagPHSync|uapi.ModeFlagPVSync)
	cea1080p5994  = mkMode("1920x1080", 148352, 1920, 2008, 2052, 2200, 1080, 1084, 1089, 1125, 60, uapi.ModeTypeDriver, uapi.ModeFlagPHSync|uapi.ModeFlagPVSync)
	cea1080p50    = mkMode("1920x1080", 148500, 1920, 2448, 2492, 2640, 1080, 1084, 1089, 1125, 50, uapi.ModeTypeDriver, uapi.ModeFlagPHSync|uapi.ModeFlagPVSync)
	cea1080i60    = mkMode("1920x1080i", 74250, 1920, 2008, 2052, 2200, 1080, 1084, 1094, 1125, 60, uapi.ModeTypeDriver, uapi.ModeFlagPHSync|uapi.ModeFlagPVSync|uapi.ModeFlagInterlace)
	cea720p60     = mkMode("1280x720", 74250, 1280, 1390, 1430, 1650, 720, 725, 730, 750, 60, uapi.ModeTypeDriver, uapi.ModeFlagPHSync|uapi.ModeFlagPVSync)
	cea720p50     = mkMode("1280x720", 74250, 1280, 1720, 1760, 1980, 720, 725, 730, 750, 50, uapi.ModeTypeDriver, uapi.ModeFlagPHSync|uapi.ModeFlagPVSync)
	dmt1024x768   = mkMode("1024x768", 65000, 1024, 1048, 1184, 1344, 768, 771, 777, 806, 60, uapi.ModeTypeDriver, uapi.ModeFlagNHSync|uapi.ModeFlagNVSync)
	dmt640x480    = mkMode("640x480", 25175, 640, 656, 752, 800, 480, 490, 492, 525, 60, uapi.ModeTypeDriver, uapi.ModeFlagNHSync|uapi.ModeFlagNVSync)
	tinyMode      = mkMode("100x50", 330, 100, 102, 104, 110, 50, 51, 52, 50, 60, uapi.ModeTypeDriver|uapi.ModeTypePreferred, 0)
	consoleFBMode = cea1080p60
)

// newFakeKMS returns a device with two CRTCs (41, 42), two encoders (51
// on CRTC 41, able to drive both; 52 idle, able to drive only 42) and two
// HDMI connectors: HDMI-A-1 (61) connected through encoder 51, showing a
// console framebuffer (70, not ours) at 1080p60; HDMI-A-2 (62)
// disconnected.
func newFakeKMS(t testing.TB) *fakeKMS {
	t.Helper()
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK|unix.EFD_SEMAPHORE)
	if err != nil {
		t.Fatalf("eventfd: %v", err)
	}
	f := &fakeKMS{
		Conn: drmtest.NewConn(), efd: efd, pitchAlign: 64, periodUsec: 16666, nextID: 100, nextHandle: 1,
		fbs:     map[uint32]*fakeFB{70: {w: 1920, h: 1080, pitch: 7680, format: uapi.FormatXRGB8888}},
		handles: map[uint32]uint64{}, dumbs: map[uint32][]byte{},
		shown: make([]uint32, 0, 4096),
	}
	f.crtcs = []*fakeCrtc{
		{id: 41, fb: 70, modeValid: true, mode: consoleFBMode.ModeModeInfo, seq: 1000},
		{id: 42, seq: 5000},
	}
	f.encoders = []*fakeEncoder{{id: 51, crtc: 41, possible: 0b11}, {id: 52, possible: 0b10}}
	f.connectors = []*fakeConnector{
		{id: 61, typ: uint32(uapi.ConnectorHDMIA), typeID: 1, status: uint32(uapi.StatusConnected), encoder: 51,
			encoders: []uint32{51}, modes: []drm.ModeInfo{cea1080p60, cea1080p5994, cea1080p50, cea1080i60, cea720p60, cea720p50, dmt640x480}},
		{id: 62, typ: uint32(uapi.ConnectorHDMIA), typeID: 2, status: uint32(uapi.StatusDisconnected),
			encoders: []uint32{52}},
	}
	t.Cleanup(func() { unix.Close(efd) })
	f.install()
	return f
}

// Fd implements uapi.Conn: the eventfd, readable while events are queued.
func (f *fakeKMS) Fd() int { return f.efd }

// Read implements uapi.Conn as drm_read does: as many whole queued events
// as fit, EAGAIN when none is queued (the fd is non-blocking). Reading a
// flip's event ends its pending state (see the type's comment).
func (f *fakeKMS) Read(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for len(f.events) > 0 && n+32 <= len(p) {
		ev := &f.events[0]
		copy(p[n:], ev[:])
		n += 32
		if binary.LittleEndian.Uint32(ev[0:]) == uapi.EventTypeFlipComplete {
			if c := f.crtc(binary.LittleEndian.Uint32(ev[28:])); c != nil {
				c.pendingFlip = false
			}
		}
		copy(f.events, f.events[1:])
		f.events = f.events[:len(f.events)-1]
		var one [8]byte
		if _, err := unix.Read(f.efd, one[:]); err != nil {
			panic(fmt.Sprintf("fakeKMS: eventfd out of step with the queue: %v", err))
		}
	}
	if n == 0 {
		return 0, unix.EAGAIN
	}
	return n, nil
}

// queueEvent appends a struct drm_event_vblank record (drm.h: type, length,
// user_data, tv_sec, tv_usec, sequence, crtc_id) and signals the eventfd.
func (f *fakeKMS) queueEvent(typ uint32, user uint64, usec uint64, seq, crtc uint32) {
	var ev [32]byte
	binary.LittleEndian.PutUint32(ev[0:], typ)
	binary.LittleEndian.PutUint32(ev[4:], 32)
	binary.LittleEndian.PutUint64(ev[8:], user)
	binary.LittleEndian.PutUint32(ev[16:], uint32(usec/1e6))
	binary.LittleEndian.PutUint32(ev[20:], uint32(usec%1e6))
	binary.LittleEndian.PutUint32(ev[24:], seq)
	binary.LittleEndian.PutUint32(ev[28:], crtc)
	f.events = append(f.events, ev)
	one := [8]byte{1}
	if _, err := unix.Write(f.efd, one[:]); err != nil {
		panic(err)
	}
}

// vblankTime is the timestamp of vblank seq in µs: a fixed clock.
func (f *fakeKMS) vblankTime(seq uint32) uint64 { return 100e6 + uint64(seq)*uint64(f.periodUsec) }

func (f *fakeKMS) crtc(id uint32) *fakeCrtc {
	for _, c := range f.crtcs {
		if c.id == id {
			return c
		}
	}
	return nil
}

func (f *fakeKMS) encoder(id uint32) *fakeEncoder {
	for _, e := range f.encoders {
		if e.id == id {
			return e
		}
	}
	return nil
}

func (f *fakeKMS) connector(id uint32) *fakeConnector {
	for _, c := range f.connectors {
		if c.id == id {
			return c
		}
	}
	return nil
}

// addGEM registers a GEM handle of size bytes (a renderer's BO).
func (f *fakeKMS) addGEM(size uint64) uint32 {
	f.mu.Lock()
	defer f.mu.Unlock()
	h := f.nextHandle
	f.nextHandle++
	f.handles[h] = size
	return h
}

// ownedFBs lists the framebuffers this file added and still has.
func (f *fakeKMS) ownedFBs() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, fb := range f.fbs {
		if fb.owned {
			n++
		}
	}
	return n
}

// crtcState returns CRTC id's framebuffer, mode and whether it is on.
func (f *fakeKMS) crtcState(id uint32) (fb uint32, mode uapi.ModeModeInfo, on bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.crtc(id)
	return c.fb, c.mode, c.modeValid
}

func (f *fakeKMS) install() {
	f.OnNoArg(uapi.IoctlSetMaster, func() error {
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.otherMaster {
			return unix.EBUSY
		}
		f.master = true
		return nil
	})
	drmtest.On(f.Conn, uapi.IoctlModeGetResources, func(r *uapi.ModeCardRes) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		var fbs []uint32
		for id, fb := range f.fbs {
			if fb.owned {
				fbs = append(fbs, id)
			}
		}
		var crtcs, encs, conns []uint32
		for _, c := range f.crtcs {
			crtcs = append(crtcs, c.id)
		}
		for _, e := range f.encoders {
			encs = append(encs, e.id)
		}
		for _, c := range f.connectors {
			conns = append(conns, c.id)
		}
		fill := func(ptr uint64, count uint32, ids []uint32) uint32 {
			copy(uapi.UserSlice[uint32](ptr, int(min(count, uint32(len(ids))))), ids)
			return uint32(len(ids))
		}
		r.CountFbs = fill(r.FbIDPtr, r.CountFbs, fbs)
		r.CountCrtcs = fill(r.CrtcIDPtr, r.CountCrtcs, crtcs)
		r.CountEncoders = fill(r.EncoderIDPtr, r.CountEncoders, encs)
		r.CountConnectors = fill(r.ConnectorIDPtr, r.CountConnectors, conns)
		r.MinWidth, r.MaxWidth, r.MinHeight, r.MaxHeight = 1, 4096, 1, 4096
		return nil
	})
	drmtest.On(f.Conn, uapi.IoctlModeGetConnector, func(g *uapi.ModeGetConnector) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		c := f.connector(g.ConnectorID)
		if c == nil {
			return unix.ENOENT
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
		g.ConnectorType, g.ConnectorTypeID, g.Connection = c.typ, c.typeID, c.status
		g.EncoderID = c.encoder
		return nil
	})
	drmtest.On(f.Conn, uapi.IoctlModeGetEncoder, func(g *uapi.ModeGetEncoder) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		e := f.encoder(g.EncoderID)
		if e == nil {
			return unix.ENOENT
		}
		g.EncoderType, g.CrtcID, g.PossibleCrtcs = uint32(uapi.EncoderTMDS), e.crtc, e.possible
		return nil
	})
	drmtest.On(f.Conn, uapi.IoctlModeGetCrtc, func(g *uapi.ModeCrtc) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		c := f.crtc(g.CrtcID)
		if c == nil {
			return unix.ENOENT
		}
		g.FbID, g.X, g.Y, g.GammaSize = c.fb, c.x, c.y, 256
		g.ModeValid, g.Mode = 0, uapi.ModeModeInfo{}
		if c.modeValid {
			g.ModeValid, g.Mode = 1, c.mode
		}
		return nil
	})
	drmtest.On(f.Conn, uapi.IoctlModeSetCrtc, func(s *uapi.ModeCrtc) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		if !f.master {
			return unix.EACCES
		}
		c := f.crtc(s.CrtcID)
		if c == nil {
			return unix.ENOENT
		}
		var fb *fakeFB
		if s.ModeValid != 0 {
			if fb = f.fbs[s.FbID]; fb == nil {
				return unix.ENOENT
			}
			if uint32(s.Mode.Hdisplay)+s.X > fb.w || uint32(s.Mode.Vdisplay)+s.Y > fb.h {
				return unix.ENOSPC
			}
		}
		if s.CountConnectors == 0 && s.ModeValid != 0 {
			return unix.EINVAL
		}
		if s.CountConnectors > 0 && (s.ModeValid == 0 || fb == nil) {
			return unix.EINVAL
		}
		ids := uapi.UserSlice[uint32](s.SetConnectorsPtr, int(s.CountConnectors))
		for _, id := range ids {
			if f.connector(id) == nil {
				return unix.ENOENT
			}
		}
		f.setcrtcs = append(f.setcrtcs, *s)
		// Detach whatever this CRTC drove, then attach the new set.
		for _, e := range f.encoders {
			if e.crtc == c.id {
				e.crtc = 0
				for _, cn := range f.connectors {
					if cn.encoder == e.id {
						cn.encoder = 0
					}
				}
			}
		}
		c.fb, c.x, c.y, c.modeValid, c.mode = s.FbID, s.X, s.Y, s.ModeValid != 0, s.Mode
		if !c.modeValid {
			c.fb, c.mode = 0, uapi.ModeModeInfo{}
		}
		crtcIndex := 0
		for i, o := range f.crtcs {
			if o == c {
				crtcIndex = i
			}
		}
		for _, id := range ids {
			cn := f.connector(id)
			for _, eid := range cn.encoders {
				if e := f.encoder(eid); e.possible&(1<<crtcIndex) != 0 {
					e.crtc, cn.encoder = c.id, e.id
					break
				}
			}
		}
		if c.modeValid {
			f.shown = append(f.shown, c.fb)
		}
		return nil
	})
	drmtest.On(f.Conn, uapi.IoctlModePageFlip, func(p *uapi.ModeCrtcPageFlip) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.flipCalls++
		if !f.master {
			return unix.EACCES
		}
		if p.Flags&^uint32(uapi.PageFlipEvent|uapi.PageFlipAsync) != 0 || p.Reserved != 0 {
			return unix.EINVAL
		}
		c := f.crtc(p.CrtcID)
		if c == nil {
			return unix.ENOENT
		}
		if c.fb == 0 {
			return unix.EBUSY
		}
		fb := f.fbs[p.FbID]
		if fb == nil {
			return unix.ENOENT
		}
		if uint32(c.mode.Hdisplay) > fb.w || uint32(c.mode.Vdisplay) > fb.h {
			return unix.ENOSPC
		}
		if fb.format != f.fbs[c.fb].format {
			return unix.EINVAL
		}
		if c.pendingFlip {
			return unix.EBUSY
		}
		c.fb = p.FbID
		f.shown = append(f.shown, p.FbID)
		c.seq += 1 + f.skip
		f.skip = 0
		if p.Flags&uapi.PageFlipEvent != 0 && !f.dropEvents {
			c.pendingFlip, c.pendingUser = true, p.UserData
			f.queueEvent(uapi.EventTypeFlipComplete, p.UserData, f.vblankTime(c.seq), c.seq, c.id)
		}
		return nil
	})
	drmtest.On(f.Conn, uapi.IoctlModeAddFB2, func(a *uapi.ModeFbCmd2) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		size, ok := f.handles[a.Handles[0]]
		if !ok {
			return unix.ENOENT
		}
		if a.PixelFormat != uapi.FormatXRGB8888 || a.Width == 0 || a.Height == 0 {
			return unix.EINVAL
		}
		if a.Flags&uapi.FbModifiers != 0 && !f.modifiers {
			return unix.EINVAL
		}
		if a.Pitches[0] < a.Width*4 || uint64(a.Pitches[0])*uint64(a.Height) > size {
			return unix.EINVAL
		}
		a.FbID = f.nextID
		f.nextID++
		f.fbs[a.FbID] = &fakeFB{w: a.Width, h: a.Height, handle: a.Handles[0], pitch: a.Pitches[0], format: a.PixelFormat, owned: true}
		return nil
	})
	drmtest.On(f.Conn, uapi.IoctlModeRmFB, func(id *uint32) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		fb := f.fbs[*id]
		if fb == nil || !fb.owned {
			return unix.ENOENT
		}
		delete(f.fbs, *id)
		for _, c := range f.crtcs {
			if c.fb == *id {
				c.fb, c.modeValid, c.mode = 0, false, uapi.ModeModeInfo{}
			}
		}
		return nil
	})
	drmtest.On(f.Conn, uapi.IoctlModeCreateDumb, func(a *uapi.ModeCreateDumb) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		if a.Width == 0 || a.Height == 0 || a.Bpp == 0 {
			return unix.EINVAL
		}
		if f.dumbLimit > 0 && len(f.dumbs) >= f.dumbLimit {
			return unix.ENOMEM
		}
		pitch := (a.Width*a.Bpp/8 + f.pitchAlign - 1) / f.pitchAlign * f.pitchAlign
		size := (uint64(pitch)*uint64(a.Height) + 4095) &^ 4095
		h := f.nextHandle
		f.nextHandle++
		f.handles[h] = size
		mem := make([]byte, size)
		f.dumbs[h] = mem
		f.Conn.Map(uint64(h)<<20, mem)
		a.Handle, a.Pitch, a.Size = h, pitch, size
		return nil
	})
	drmtest.On(f.Conn, uapi.IoctlModeMapDumb, func(a *uapi.ModeMapDumb) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		if _, ok := f.dumbs[a.Handle]; !ok {
			return unix.ENOENT
		}
		a.Offset = uint64(a.Handle) << 20
		return nil
	})
	drmtest.On(f.Conn, uapi.IoctlModeDestroyDumb, func(a *uapi.ModeDestroyDumb) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		if _, ok := f.dumbs[a.Handle]; !ok {
			return unix.ENOENT
		}
		delete(f.dumbs, a.Handle)
		delete(f.handles, a.Handle)
		return nil
	})
}

var _ uapi.Conn = (*fakeKMS)(nil)

// The record layout the fake writes must be the kernel's 32 bytes.
var _ = [1]struct{}{}[unsafe.Sizeof(uapi.EventVblank{})-32]
