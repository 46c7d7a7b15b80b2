package display

import (
	"errors"
	"fmt"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/vccube/vccube/sim/kernel"
	"github.com/vccube/vccube/uapi"
)

// Client is one open file as the display sees it: the kernel model's
// Client (ID, LookupBO, IsMaster and the event queue), which sim.File
// implements.
// sim.Client is the same alias, so *Display implements sim.Display as it is.
type Client = kernel.Client

// Object ids. The kernel hands out KMS object ids from one idr shared with
// properties and property blobs (drm_mode_object.c __drm_mode_object_add:
// idr_alloc from 1, lowest free id first), so on a real Pi the CRTC,
// encoder and connector get ids in the tens or hundreds that depend on the
// kernel version. These are the simulator's, in vc4's creation order (the
// CRTC when the pixelvalve binds, then the HDMI encoder and connector);
// programs must take ids from GETRESOURCES and never assume them.
const (
	CrtcID      = 95
	EncoderID   = 97
	ConnectorID = 98
	// firstFBID is where framebuffer and user blob ids start: the lowest
	// id no other object holds, reused after one is freed, as idr_alloc
	// does (props.go has the planes' ids).
	firstFBID = CursorPlaneID + 1
)

// gammaSize is the CRTC's gamma table size on a Pi 0-3 (vc4_crtc.c
// vc4_crtc_init: drm_mode_crtc_set_gamma_size(crtc,
// ARRAY_SIZE(vc4_crtc->lut_r)), 256 entries).
const gammaSize = 256

// Options configure a Display.
type Options struct {
	// Clock is the time the display runs on; VirtualClock by default (and
	// for any value that is not a ClockMode).
	Clock ClockMode
	// Start is the virtual clock's time at creation (VirtualClock and
	// SteppedClock); event timestamps count from it. Negative values are
	// taken as 0: the kernel's timestamps are never negative.
	Start time.Duration
	// Monitor is the display plugged into HDMI-A-1; nil means
	// DefaultMonitor.
	Monitor *Monitor
	// Unplugged leaves HDMI-A-1 without a display: the connector reports
	// disconnected with no modes.
	Unplugged bool
	// OnFlip, if set, is called after every completed page flip (and
	// every modeset that changed the picture), on the goroutine that
	// completed it (the PAGE_FLIP caller under VirtualClock, Advance's
	// caller under SteppedClock, the display's timer under RealClock),
	// with no lock held: it may call ReadScanout. It must not block for
	// long, since it holds up the next vblank's work.
	OnFlip func(Flip)
}

// Flip describes a picture that became visible.
type Flip struct {
	CrtcID   uint32
	FbID     uint32        // 0 when the CRTC shows no framebuffer
	Sequence uint64        // the CRTC's vblank counter at that vblank
	Time     time.Duration // the vblank's time on the display's clock
	Async    bool          // a DRM_MODE_PAGE_FLIP_ASYNC flip, done without waiting for vblank
	Event    bool          // a flip-complete event went to the file that asked for one
	Modeset  bool          // the picture came from a mode set (SETCRTC), not a page flip
}

// Display is the simulated KMS half of a Pi 0-3's vc4: one HDMI connector,
// its TMDS encoder and one CRTC with its primary plane, the framebuffers
// of every open file, and page flips on a vblank clock. Its methods may be
// called from any goroutine.
type Display struct {
	opts Options

	mu      sync.Mutex
	now     int64 // virtual time in ns (VirtualClock, SteppedClock)
	timer   *time.Timer
	closed  bool
	modes   []uapi.ModeModeInfo // the connector's probed modes
	mon     Monitor
	crtc    crtc
	fbs     map[uint32]*framebuffer // every live framebuffer by id
	blobs   map[uint32]*blob        // every live property blob by id
	clients map[uint64]*clientState
	// unplugged: the connector reports disconnected (Options.Unplugged,
	// Unplug).
	unplugged bool

	planes           [numPlanes]planeProps // the planes' stored properties
	dpms, linkStatus uint64                // the connector's DPMS and link-status
	scratch          atomicState           // the state an atomic commit builds, reused
	ubuf             [8]byte               // get_user and put_user's buffer, under mu

	// notify holds the flips completed under mu whose OnFlip calls are
	// due once mu is released; spare is the other buffer, swapped in so
	// that completing flips does not allocate.
	notify, spare []Flip
}

// clientState is what the display keeps per open file (struct drm_file's
// KMS fields).
type clientState struct {
	c     Client
	fbs   []*framebuffer // newest first, as list_add puts them on file_priv->fbs
	blobs []*blob        // the property blobs it created (file_priv->blobs)

	stereo, universalPlanes, atomic, aspectRatio, writeback bool
}

// New creates a display.
func New(opts Options) *Display {
	if opts.Clock != SteppedClock && opts.Clock != RealClock {
		opts.Clock = VirtualClock
	}
	d := &Display{opts: opts, fbs: map[uint32]*framebuffer{}, clients: map[uint64]*clientState{},
		blobs: map[uint32]*blob{inFormatsBlobID: {id: inFormatsBlobID, data: inFormatsBlob(), refs: 1}}}
	for i := range d.planes {
		d.planes[i] = defaultPlaneProps()
	}
	d.crtc.fenceCtx = kernel.FenceContextAlloc()
	d.crtc.timelineName = fmt.Sprintf("CRTC:%d-crtc-0", CrtcID)
	d.now = max(int64(opts.Start), 0)
	if opts.Monitor != nil {
		d.mon = *opts.Monitor
	} else {
		d.mon = DefaultMonitor()
	}
	d.unplugged = opts.Unplugged
	if !opts.Unplugged {
		d.modes = probeModes(&d.mon)
	}
	if opts.Clock == RealClock {
		d.timer = time.AfterFunc(time.Hour, d.onTimer)
		d.timer.Stop()
	}
	d.notify = make([]Flip, 0, 4)
	d.spare = make([]Flip, 0, 4)
	return d
}

// Close stops the display's timer. Pending flips never complete after it.
func (d *Display) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	if d.timer != nil {
		d.timer.Stop()
	}
	if p := &d.crtc.pending; p.inFence != nil {
		p.inFence.Put()
		p.inFence = nil
	}
	return nil
}

// Modes returns the connector's modes as GETCONNECTOR lists them.
func (d *Display) Modes() []uapi.ModeModeInfo {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]uapi.ModeModeInfo(nil), d.modes...)
}

// Now returns the display's clock: virtual time, or CLOCK_MONOTONIC under
// RealClock.
func (d *Display) Now() time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	return time.Duration(d.clockNow())
}

func (d *Display) clockNow() int64 {
	if d.opts.Clock == RealClock {
		return monotonicNow()
	}
	return d.now
}

// waitUntil is the display making its caller wait until time t, as a
// blocking commit does: virtual time jumps to t, real time sleeps (with
// the lock held, as the kernel holds its modeset locks across a blocking
// commit). Flips due by then complete.
func (d *Display) waitUntil(t int64) {
	if d.opts.Clock == RealClock {
		if dt := t - monotonicNow(); dt > 0 {
			time.Sleep(time.Duration(dt))
		}
	} else if t > d.now {
		d.now = t
	}
	d.completeDue()
}

// Advance moves a virtual clock forward by dt, completing the flips whose
// vblank it passes (their events are queued and OnFlip called before it
// returns). Under RealClock it is an error.
func (d *Display) Advance(dt time.Duration) error {
	if dt < 0 {
		return fmt.Errorf("display: Advance(%v): time runs forward only", dt)
	}
	d.mu.Lock()
	if d.opts.Clock == RealClock {
		d.mu.Unlock()
		return errors.New("display: Advance needs a virtual clock; this display runs on the wall clock")
	}
	d.now += int64(dt)
	d.completeDue()
	d.unlock()
	return nil
}

// AdvanceToVblank moves a virtual clock to the CRTC's next vblank and
// returns the vblank counter there. It fails when the CRTC is off (no
// vblanks) or the clock is real.
func (d *Display) AdvanceToVblank() (uint64, error) {
	d.mu.Lock()
	if d.opts.Clock == RealClock {
		d.mu.Unlock()
		return 0, errors.New("display: AdvanceToVblank needs a virtual clock; this display runs on the wall clock")
	}
	if !d.crtc.active {
		d.mu.Unlock()
		return 0, errors.New("display: the CRTC is off, so there are no vblanks to advance to; set a mode first")
	}
	seq, at := d.crtc.tl.next(d.now)
	d.now = at
	d.completeDue()
	d.unlock()
	return seq, nil
}

// VblankCount returns the CRTC's vblank counter now.
func (d *Display) VblankCount() uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.crtc.vblankCount(d.clockNow())
}

// unlock releases mu and then calls OnFlip for the flips completed while
// it was held.
func (d *Display) unlock() {
	if len(d.notify) == 0 || d.opts.OnFlip == nil {
		d.notify = d.notify[:0]
		d.mu.Unlock()
		return
	}
	batch := d.notify
	d.notify, d.spare = d.spare[:0], nil
	d.mu.Unlock()
	for _, f := range batch {
		d.opts.OnFlip(f)
	}
	d.mu.Lock()
	if d.spare == nil {
		d.spare = batch[:0]
	}
	d.mu.Unlock()
}

// onTimer runs under RealClock when a pending flip's vblank should have
// passed.
func (d *Display) onTimer() {
	d.mu.Lock()
	if !d.closed {
		d.completeDue()
	}
	d.unlock()
}

// client returns the state of c, creating it on first sight.
func (d *Display) client(c Client) *clientState {
	id := c.ID()
	cs := d.clients[id]
	if cs == nil {
		cs = &clientState{c: c}
		d.clients[id] = cs
	}
	return cs
}

// errorf builds the error an ioctl returns: the errno and the reason the
// kernel would print with drm.debug set. Failure paths only.
func errorf(errno syscall.Errno, format string, args ...any) error {
	return &kernel.Error{Errno: errno, Msg: fmt.Sprintf(format, args...)}
}

// Ioctl handles the mode-setting requests the device routes to the
// display. arg is the kernel's copy of the argument, laid out as req's drm
// struct. Requests the simulator does not model fail with ENOSYS, which
// the kernel never returns for them.
func (d *Display) Ioctl(c Client, req uapi.Request, arg unsafe.Pointer) error {
	d.mu.Lock()
	defer d.unlock()
	if d.closed {
		return errorf(syscall.ENODEV, "the display was closed")
	}
	cs := d.client(c)
	switch req {
	case uapi.IoctlModeGetResources:
		return d.getResources(cs, (*uapi.ModeCardRes)(arg))
	case uapi.IoctlModeGetConnector:
		return d.getConnector(cs, (*uapi.ModeGetConnector)(arg))
	case uapi.IoctlModeGetEncoder:
		return d.getEncoder((*uapi.ModeGetEncoder)(arg))
	case uapi.IoctlModeGetCrtc:
		return d.getCrtc(cs, (*uapi.ModeCrtc)(arg))
	case uapi.IoctlModeSetCrtc:
		return d.setCrtc(cs, (*uapi.ModeCrtc)(arg))
	case uapi.IoctlModeAddFB2:
		return d.addFB2(cs, (*uapi.ModeFbCmd2)(arg))
	case uapi.IoctlModeRmFB:
		return d.rmFB(cs, *(*uint32)(arg))
	case uapi.IoctlModePageFlip:
		return d.pageFlip(cs, (*uapi.ModeCrtcPageFlip)(arg))
	case uapi.IoctlModeGetPlaneResources:
		return d.getPlaneResources(cs, (*uapi.ModeGetPlaneRes)(arg))
	case uapi.IoctlModeGetPlane:
		return d.getPlane(cs, (*uapi.ModeGetPlane)(arg))
	case uapi.IoctlModeObjGetProperties:
		return d.objGetProperties(cs, (*uapi.ModeObjGetProperties)(arg))
	case uapi.IoctlModeObjSetProperty:
		return d.objSetProperty(cs, (*uapi.ModeObjSetProperty)(arg))
	case uapi.IoctlModeGetProperty:
		return d.getProperty(cs, (*uapi.ModeGetProperty)(arg))
	case uapi.IoctlModeGetPropBlob:
		return d.getPropBlob(cs, (*uapi.ModeGetBlob)(arg))
	case uapi.IoctlModeCreatePropBlob:
		return d.createPropBlob(cs, (*uapi.ModeCreateBlob)(arg))
	case uapi.IoctlModeDestroyPropBlob:
		return d.destroyPropBlob(cs, (*uapi.ModeDestroyBlob)(arg))
	case uapi.IoctlModeAtomic:
		return d.atomic(cs, (*uapi.ModeAtomic)(arg))
	}
	return errorf(syscall.ENOSYS, "%s is not modelled by the simulated display (it models GETRESOURCES, GETCONNECTOR, "+
		"GETENCODER, GETCRTC, SETCRTC, ADDFB2, RMFB, PAGE_FLIP, GETPLANERESOURCES, GETPLANE, OBJ_GETPROPERTIES, "+
		"OBJ_SETPROPERTY, GETPROPERTY, GETPROPBLOB, CREATEPROPBLOB, DESTROYPROPBLOB and ATOMIC)", uapi.IoctlName(req))
}

// Cap answers GET_CAP for the KMS capabilities as drm_getcap does for
// vc4: dumb buffers (vc4 has dumb_create), the preferred depth 24 and
// async page flips that vc4_kms_load sets, no page_flip_target (vc4's CRTC
// has page_flip only), the default 64x64 cursor, modifiers, the CRTC id in
// vblank events, and atomic async flips (vc4 is DRIVER_ATOMIC). Unknown
// capabilities are EINVAL.
func (d *Display) Cap(capability uint64) (uint64, error) {
	switch capability {
	case uapi.CapDumbBuffer, uapi.CapVblankHighCrtc, uapi.CapAsyncPageFlip, uapi.CapAddFB2Modifiers,
		uapi.CapCrtcInVblankEvent, uapi.CapAtomicAsyncPageFlip:
		return 1, nil
	case uapi.CapDumbPreferredDepth:
		return 24, nil
	case uapi.CapDumbPreferShadow, uapi.CapPageFlipTarget:
		return 0, nil
	case uapi.CapCursorWidth, uapi.CapCursorHeight:
		return 64, nil
	}
	return 0, errorf(syscall.EINVAL, "unknown capability %d", capability)
}

// SetClientCap is drm_setclientcap (drm_ioctl.c) for a DRIVER_ATOMIC
// driver without DRIVER_CURSOR_HOTSPOT: each capability takes 0 or 1
// (ATOMIC also 2, and turns on universal planes and aspect ratios with it;
// WRITEBACK_CONNECTORS needs ATOMIC first).
func (d *Display) SetClientCap(c Client, capability, value uint64) error {
	d.mu.Lock()
	defer d.unlock()
	cs := d.client(c)
	tooBig := func(max uint64) error {
		return errorf(syscall.EINVAL, "client capability %d takes 0 to %d, not %d", capability, max, value)
	}
	switch capability {
	case uapi.ClientCapStereo3D:
		if value > 1 {
			return tooBig(1)
		}
		cs.stereo = value != 0
	case uapi.ClientCapUniversalPlanes:
		if value > 1 {
			return tooBig(1)
		}
		cs.universalPlanes = value != 0
	case uapi.ClientCapAtomic:
		if value > 2 {
			return tooBig(2)
		}
		cs.atomic, cs.universalPlanes, cs.aspectRatio = value != 0, value != 0, value != 0
	case uapi.ClientCapAspectRatio:
		if value > 1 {
			return tooBig(1)
		}
		cs.aspectRatio = value != 0
	case uapi.ClientCapWritebackConnectors:
		if !cs.atomic {
			return errorf(syscall.EINVAL, "WRITEBACK_CONNECTORS needs the ATOMIC client capability first")
		}
		if value > 1 {
			return tooBig(1)
		}
		cs.writeback = value != 0
	case uapi.ClientCapCursorPlaneHotspot:
		return errorf(syscall.EOPNOTSUPP, "CURSOR_PLANE_HOTSPOT is for virtualised drivers (DRIVER_CURSOR_HOTSPOT), not vc4")
	default:
		return errorf(syscall.EINVAL, "unknown client capability %d", capability)
	}
	return nil
}

// Release forgets a closed file as drm_file_free does: its pending events
// are dropped (drm_events_release), then its framebuffers are removed
// (drm_fb_release), which turns off the primary plane of a CRTC still
// showing one of them.
func (d *Display) Release(c Client) {
	d.mu.Lock()
	defer d.unlock()
	cs := d.clients[c.ID()]
	if cs == nil {
		return
	}
	if p := &d.crtc.pending; p.active && p.client == cs {
		p.client = nil // the event is not delivered to a closed file
	}
	for len(cs.blobs) > 0 {
		d.dropUserBlob(cs, cs.blobs[0])
	}
	for len(cs.fbs) > 0 {
		fb := cs.fbs[0]
		cs.fbs = cs.fbs[1:]
		fb.owner = nil
		d.removeFB(fb)
	}
	delete(d.clients, c.ID())
}
