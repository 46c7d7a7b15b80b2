package present

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/uapi"
)

// Config says what to drive; the zero Config takes the first connected
// connector at its preferred mode.
type Config struct {
	// Connector is a connector's name such as "HDMI-A-1" (any case), or
	// empty for the first connected one.
	Connector string
	// Mode is the mode to set; the zero ModeSpec is the preferred mode.
	Mode ModeSpec
}

// Errors of Open that a caller may test for with errors.Is. Each is
// wrapped in a message that says what was found and what to do.
var (
	// ErrNoDisplay: no connector (or not the named one) has a display.
	ErrNoDisplay = errors.New("no display is connected")
	// ErrUnknownConnector: no connector has the asked name.
	ErrUnknownConnector = errors.New("no such connector")
	// ErrNotMaster: another program holds DRM master, so modesetting is
	// refused; the wrapped *drm.Error carries drm.HintNotMaster.
	ErrNotMaster = errors.New("cannot take DRM master")
	// ErrNoCrtc: no CRTC can drive the chosen connector.
	ErrNoCrtc = errors.New("no CRTC can drive the connector")
)

// ErrRestored is returned by Present and the buffer functions once the
// display was restored: the program is ending and shows no more frames.
var ErrRestored = errors.New("present: the display was restored (the program is ending); no more frames are shown")

// hintForceOutput tells how to light an output with no display detected:
// the video= kernel parameter's "D" suffix forces a connector on as
// digital (Documentation/fb/modedb.rst).
const hintForceOutput = "connect a display and start again, or force the output on with the kernel parameter " +
	"video=<CONNECTOR>:1280x720@60D (Documentation/fb/modedb.rst)"

// Display is one CRTC driving one connector in one mode, with the state
// to put back when the program ends. Its methods may be called from
// several goroutines; the Swapchain built on it is for one goroutine.
type Display struct {
	conn      uapi.Conn
	connector *drm.Connector
	mode      drm.ModeInfo
	crtc      uint32
	crtcIndex int        // the CRTC's place in GETRESOURCES (its possible_crtcs bit)
	atomic    *atomicKMS // set by EnableAtomic

	saved           drm.Crtc // the CRTC as Open found it
	savedConnectors []uint32 // the connectors it drove then

	mu         sync.Mutex
	modeSet    bool  // a SETCRTC of ours succeeded: Restore must undo it
	restored   bool  // Restore ran: no more frames
	restoreErr error // what Restore reported, returned again by later calls
	closed     bool
	fbs        []uint32  // framebuffers we added and have not removed
	dumbs      []*Buffer // dumb buffers we created, freed by Close
	flipArg    uapi.ModeCrtcPageFlip
	status     *statusScratch // Connected's argument, made on its first call
	waiter     *eventWaiter   // made by the first swapchain, closed by Close
	waiterMade bool
}

// eventWaiter returns the display's waiter for its events, made on the
// first call (after the swapchain has made the Conn non-blocking); nil
// when the Conn's descriptor cannot be waited on in the poller.
func (d *Display) eventWaiter() *eventWaiter {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.waiterMade && !d.closed {
		d.waiterMade = true
		d.waiter = newEventWaiter(d.conn.Fd())
	}
	return d.waiter
}

// Open chooses the connector, mode and CRTC of the display behind c (see
// Config), makes sure this file may set modes (DRM master), and saves the
// CRTC's state for Restore. It changes nothing on the screen: the first
// Present of a Swapchain sets the mode.
//
// c stays the caller's: Close does not close it.
func Open(c uapi.Conn, cfg Config) (*Display, error) {
	// SET_MASTER succeeds at once for the file that is master already
	// (opening a node nobody holds makes the opener master) and fails
	// with EBUSY, EACCES or EPERM while another program holds it
	// (drm_auth.c: drm_setmaster_ioctl, drm_master_check_perm). Asking
	// here gives the clear error before anything is allocated.
	if err := drm.SetMaster(c); err != nil {
		return nil, fmt.Errorf("present: %w: %w", ErrNotMaster, err)
	}
	res, err := drm.GetResources(c)
	if err != nil {
		return nil, fmt.Errorf("present: listing the display's connectors: %w", err)
	}
	if len(res.Connectors) == 0 || len(res.CRTCs) == 0 {
		return nil, fmt.Errorf("present: %w: the device has %d connectors and %d CRTCs; it cannot show anything",
			ErrNoDisplay, len(res.Connectors), len(res.CRTCs))
	}
	conns := make([]*drm.Connector, 0, len(res.Connectors))
	for _, id := range res.Connectors {
		cn, err := drm.GetConnector(c, id)
		if err != nil {
			return nil, fmt.Errorf("present: %w", err)
		}
		conns = append(conns, cn)
	}
	cn, err := chooseConnector(conns, cfg.Connector)
	if err != nil {
		return nil, fmt.Errorf("present: %w", err)
	}
	mode, err := ChooseMode(cn, cfg.Mode)
	if err != nil {
		return nil, fmt.Errorf("present: %w", err)
	}
	encoders := map[uint32]drm.Encoder{}
	encoder := func(id uint32) (drm.Encoder, error) {
		if e, ok := encoders[id]; ok {
			return e, nil
		}
		e, err := drm.GetEncoder(c, id)
		if err == nil {
			encoders[id] = e
		}
		return e, err
	}
	crtc, err := chooseCrtc(c, res, cn, encoder)
	if err != nil {
		return nil, fmt.Errorf("present: %w", err)
	}
	saved, err := drm.GetCrtc(c, crtc)
	if err != nil {
		return nil, fmt.Errorf("present: saving the CRTC's state: %w", err)
	}
	// GETCRTC does not say which connectors the CRTC drives; each
	// connector's current encoder and that encoder's CRTC do.
	var savedConns []uint32
	for _, other := range conns {
		if other.EncoderID == 0 {
			continue
		}
		e, err := encoder(other.EncoderID)
		if err != nil {
			return nil, fmt.Errorf("present: saving the CRTC's state: %w", err)
		}
		if e.CrtcID == crtc {
			savedConns = append(savedConns, other.ID)
		}
	}
	index := 0
	for i, id := range res.CRTCs {
		if id == crtc {
			index = i
		}
	}
	return &Display{conn: c, connector: cn, mode: mode, crtc: crtc, crtcIndex: index, saved: saved, savedConnectors: savedConns}, nil
}

// chooseConnector returns the named connector, or the first connected one.
func chooseConnector(conns []*drm.Connector, name string) (*drm.Connector, error) {
	list := func() string {
		s := make([]string, len(conns))
		for i, c := range conns {
			s[i] = fmt.Sprintf("%s (%s)", c.Name(), c.Status)
		}
		return strings.Join(s, ", ")
	}
	if name != "" {
		for _, c := range conns {
			if strings.EqualFold(c.Name(), name) {
				if c.Status != uapi.StatusConnected {
					return nil, fmt.Errorf("%w on connector %s (it is %s): %s",
						ErrNoDisplay, c.Name(), c.Status, strings.Replace(hintForceOutput, "<CONNECTOR>", c.Name(), 1))
				}
				return c, nil
			}
		}
		return nil, fmt.Errorf("%w %q; the connectors are: %s", ErrUnknownConnector, name, list())
	}
	for _, c := range conns {
		if c.Status == uapi.StatusConnected {
			return c, nil
		}
	}
	return nil, fmt.Errorf("%w; the connectors are: %s. To fix: %s",
		ErrNoDisplay, list(), strings.Replace(hintForceOutput, "<CONNECTOR>", conns[0].Name(), 1))
}

// chooseCrtc returns the CRTC that the connector's current encoder
// drives, else the first CRTC one of its encoders can use (bit i of
// possible_crtcs is the i-th CRTC of GETRESOURCES), preferring one that is
// off, so that another display's CRTC is not taken over. kmscube
// (drm-common.c: find_crtc_for_connector) takes the first possible one.
func chooseCrtc(c uapi.Conn, res *drm.Resources, cn *drm.Connector, encoder func(uint32) (drm.Encoder, error)) (uint32, error) {
	if cn.EncoderID != 0 {
		e, err := encoder(cn.EncoderID)
		if err != nil {
			return 0, err
		}
		if e.CrtcID != 0 {
			return e.CrtcID, nil
		}
	}
	var first uint32
	for _, id := range cn.Encoders {
		e, err := encoder(id)
		if err != nil {
			return 0, err
		}
		for i, crtc := range res.CRTCs {
			if i >= 32 || e.PossibleCrtcs&(1<<i) == 0 {
				continue
			}
			st, err := drm.GetCrtc(c, crtc)
			if err != nil {
				return 0, err
			}
			if !st.ModeValid {
				return crtc, nil
			}
			if first == 0 {
				first = crtc
			}
		}
	}
	if first == 0 {
		return 0, fmt.Errorf("%w %s (its encoders %v allow none of the CRTCs %v)", ErrNoCrtc, cn.Name(), cn.Encoders, res.CRTCs)
	}
	return first, nil
}

// Conn returns the display's device.
func (d *Display) Conn() uapi.Conn { return d.conn }

// Connector returns the connector being driven.
func (d *Display) Connector() *drm.Connector { return d.connector }

// Mode returns the mode being set.
func (d *Display) Mode() drm.ModeInfo { return d.mode }

// Size returns the mode's visible size in pixels: the size of every
// scanout buffer.
func (d *Display) Size() (width, height uint32) {
	return uint32(d.mode.Hdisplay), uint32(d.mode.Vdisplay)
}

// CrtcID returns the CRTC being driven.
func (d *Display) CrtcID() uint32 { return d.crtc }

// Saved returns the CRTC's state as Open found it, which Restore puts
// back, and the connectors it drove.
func (d *Display) Saved() (drm.Crtc, []uint32) { return d.saved, d.savedConnectors }

// String describes the choice: "HDMI-A-1 1920x1080@60 on CRTC 41".
func (d *Display) String() string {
	return fmt.Sprintf("%s %s on CRTC %d", d.connector.Name(), d.mode, d.crtc)
}

// setMode shows fb in the display's mode on its connector (SETCRTC).
func (d *Display) setMode(fb uint32) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.restored {
		return ErrRestored
	}
	if d.atomic != nil {
		if err := d.atomicModeset(fb); err != nil {
			return err
		}
	} else if err := drm.SetCrtc(d.conn, d.crtc, fb, 0, 0, []uint32{d.connector.ID}, &d.mode); err != nil {
		return err
	}
	d.modeSet = true
	return nil
}

// flip queues a page flip to fb with a completion event carrying
// userData. The argument struct is the Display's, so a flip allocates
// nothing (see drm.PageFlip).
func (d *Display) flip(fb uint32, userData uint64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.restored {
		return ErrRestored
	}
	if d.atomic != nil {
		return d.atomicFlip(fb, userData)
	}
	d.flipArg = uapi.ModeCrtcPageFlip{CrtcID: d.crtc, FbID: fb, Flags: uapi.PageFlipEvent, UserData: userData}
	return drm.PageFlip(d.conn, &d.flipArg)
}

// Restore puts the CRTC back as Open found it (framebuffer, mode,
// position, connectors; or off, if it was off) when a frame of ours was
// shown, and removes every framebuffer the Display added. It is
// idempotent: later calls return the first call's result. Afterwards
// Present returns ErrRestored. Restore is safe to call from any
// goroutine, such as a signal handler's (see RestoreOnSignal); it does not
// unmap the dumb buffers (the frame loop may still be copying into one):
// Close does that.
func (d *Display) Restore() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.restoreLocked()
}

func (d *Display) restoreLocked() error {
	if d.restored {
		return d.restoreErr
	}
	d.restored = true
	var errs []error
	if d.modeSet {
		if err := d.putBackCrtc(); err != nil {
			errs = append(errs, fmt.Errorf("present: restoring CRTC %d: %w", d.crtc, err))
		}
	}
	// Removing a framebuffer that is still shown takes it off the screen
	// (drm_framebuffer.c drm_framebuffer_remove: a legacy driver's CRTC
	// is turned off; an atomic driver's plane is committed without it,
	// and the CRTC too if the driver refuses a CRTC with no primary
	// plane, which vc4 does not), so even when the old state could not be
	// put back, no picture of ours stays on screen.
	for _, fb := range d.fbs {
		if err := drm.RmFB(d.conn, fb); err != nil {
			errs = append(errs, fmt.Errorf("present: removing framebuffer %d: %w", fb, err))
		}
	}
	d.fbs = d.fbs[:0]
	if err := d.releaseAtomic(); err != nil {
		errs = append(errs, err)
	}
	d.restoreErr = errors.Join(errs...)
	return d.restoreErr
}

// putBackCrtc sets the saved state. Legacy SETCRTC cannot express "on,
// without a framebuffer" (drm_crtc.c: drm_mode_setcrtc needs an fb with a
// mode and connectors), so such a CRTC, and one that was off, is turned
// off.
func (d *Display) putBackCrtc() error {
	s := d.saved
	if !s.ModeValid || s.FbID == 0 {
		return drm.SetCrtc(d.conn, d.crtc, 0, 0, 0, nil, nil)
	}
	conns := d.savedConnectors
	if len(conns) == 0 {
		conns = []uint32{d.connector.ID}
	}
	return drm.SetCrtc(d.conn, d.crtc, s.FbID, s.X, s.Y, conns, &s.Mode)
}

// owns reports whether fb is a framebuffer this Display added and has not
// removed.
func (d *Display) owns(fb uint32) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, f := range d.fbs {
		if f == fb {
			return true
		}
	}
	return false
}

// Restored reports whether Restore has run (or begun: it is set before
// the CRTC is put back), after which no frame of this Display is shown.
func (d *Display) Restored() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.restored
}

// Close restores the display (see Restore), then unmaps and frees the
// dumb buffers it created and closes the duplicate of the Conn's
// descriptor its swapchains wait on (eventWaiter). Call it from the goroutine that draws, after
// the last frame. It is idempotent; the Conn stays open.
func (d *Display) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	err := d.restoreLocked()
	if d.closed {
		return err
	}
	d.closed = true
	errs := []error{err, d.waiter.close()}
	for _, b := range d.dumbs {
		errs = append(errs, b.free(d.conn))
	}
	d.dumbs = nil
	return errors.Join(errs...)
}

// FindDisplay opens the first card of dir (drm.DefaultDir on a real system)
// that does modesetting, for a program told to find a display by itself:
// as kmscube does without -D (drm-common.c: find_drm_device), the first
// card whose GETRESOURCES succeeds; here it must also list a connector and
// a CRTC. Render-only cards (v3d, vgem) answer GETRESOURCES with
// EOPNOTSUPP and are passed over; the error, a *drm.NoCardError, lists
// every card and why. Open then picks the connector and says when no
// display is attached.
func FindDisplay(dir string) (uapi.Conn, drm.Card, error) {
	return drm.OpenFirst(dir, "card that drives a display (KMS)", acceptDisplay)
}

// acceptDisplay is FindDisplay's test of a card.
func acceptDisplay(c uapi.Conn, _ drm.Card) error {
	res, err := drm.GetResources(c)
	if err != nil {
		return err
	}
	if len(res.Connectors) == 0 || len(res.CRTCs) == 0 {
		return fmt.Errorf("it has %d connectors and %d CRTCs", len(res.Connectors), len(res.CRTCs))
	}
	return nil
}
