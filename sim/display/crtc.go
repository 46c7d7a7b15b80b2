package display

import (
	"fmt"
	"syscall"
	"unsafe"

	"github.com/vccube/vccube/sim/kernel"
	"github.com/vccube/vccube/uapi"
)

// crtc is the one CRTC (a pixelvalve fed by an HVS channel) with its
// primary plane, in the atomic state the legacy ioctls read and write.
type crtc struct {
	enable bool              // crtc_state->enable: a mode is set (legacy users set enable and active together)
	active bool              // crtc_state->active: the pixelvalve runs
	mode   uapi.ModeModeInfo // the mode as SETCRTC or MODE_ID gave it (type masked, name copied)
	routed bool              // HDMI-A-1's connector state points at this CRTC

	modeBlob *blob // MODE_ID: the blob holding mode, nil when disabled
	vrr      bool  // VRR_ENABLED (stored; a Pi's HDMI has no VRR)
	gammaLUT *blob // GAMMA_LUT (only 0 is accepted)

	// The out-fences' timeline (drm_crtc_init_with_planes: fence_context,
	// timeline_name "CRTC:<id>-<name>").
	fenceCtx, fenceSeqno uint64
	timelineName         string

	// The primary plane's destination and source size (CRTC_X/Y/W/H,
	// SRC_W/H; SRC_X/Y are x and y below, in whole pixels).
	crtcX, crtcY int32
	crtcW, crtcH uint32
	srcW, srcH   uint32
	tl           timeline // the vblanks while active
	off          uint64   // the vblank counter, frozen while off

	// The primary plane's state: the framebuffer (GETCRTC's fb_id) and
	// the source origin (src_x, src_y >> 16); the source size is the
	// mode's.
	fb   *framebuffer
	x, y uint32

	// scan is what the hardware shows: the state's framebuffer from the
	// vblank its commit landed at. Until then the previous one.
	scan     *framebuffer
	scanSeq  uint64
	scanTime int64

	pending pendingFlip
	flipGen uint64           // counts the flips that waited for a render (pendingFlip.gen)
	ev      uapi.EventVblank // the event record being queued, reused
}

// pendingFlip is a committed page flip waiting for its vblank (the
// commit's flip_done not yet signalled).
type pendingFlip struct {
	active   bool
	client   *clientState // who gets the event; nil when none or the file closed
	event    bool
	userData uint64
	target   int64         // the vblank it completes at, once rendered
	fence    *kernel.Fence // an atomic commit's out-fence, signalled with the flip
	// rendering is the framebuffer BO whose render job the commit's work
	// still waits for (with the in-fence, inFence, when one was given),
	// under the real clock; target is set when both are done
	// (awaitRender). nil when the flip only waits for its vblank.
	rendering *kernel.BO
	inFence   *kernel.Fence // a reference, dropped when the wait ends
	gen       uint64        // which flip awaitRender's goroutine waits for
}

// vblankCount is the CRTC's vblank counter at time t.
func (c *crtc) vblankCount(t int64) uint64 {
	if !c.active {
		return c.off
	}
	return c.tl.count(t)
}

// getResources is DRM_IOCTL_MODE_GETRESOURCES (drm_mode_config.c
// drm_mode_getresources): the file's own framebuffers (newest first), the
// size limits, and the CRTC, encoder and connector ids. Each array gets as
// many ids as its count allows, and every count is set to the real number.
func (d *Display) getResources(cs *clientState, r *uapi.ModeCardRes) error {
	count := uint32(0)
	for _, fb := range cs.fbs {
		if count < r.CountFbs {
			if err := putUint32s(cs.c.User(), r.FbIDPtr+4*uint64(count), []uint32{fb.id}); err != nil {
				return err
			}
		}
		count++
	}
	r.CountFbs = count
	r.MinWidth, r.MaxWidth = 0, maxWidth
	r.MinHeight, r.MaxHeight = 0, maxHeight
	for _, list := range []struct {
		n   *uint32
		ptr uint64
		id  uint32
	}{{&r.CountCrtcs, r.CrtcIDPtr, CrtcID}, {&r.CountEncoders, r.EncoderIDPtr, EncoderID}, {&r.CountConnectors, r.ConnectorIDPtr, ConnectorID}} {
		if *list.n >= 1 {
			if err := putUint32s(cs.c.User(), list.ptr, []uint32{list.id}); err != nil {
				return err
			}
		}
		*list.n = 1
	}
	return nil
}

// getConnector is DRM_IOCTL_MODE_GETCONNECTOR (drm_connector.c
// drm_mode_getconnector). An array is filled only when its count holds
// every entry; the counts are always set to the real numbers. A count of
// modes 0 asks the DRM master's call to probe the connector again
// (non-masters get the last probe's result); the simulated monitor never
// changes, so a probe finds what the last one found.
//
// Connector properties are not modelled: count_props is 0, where a real
// vc4 HDMI connector has about a dozen (EDID, DPMS, link-status, ...).
func (d *Display) getConnector(cs *clientState, r *uapi.ModeGetConnector) error {
	if r.ConnectorID != ConnectorID {
		return errorf(syscall.ENOENT, "unknown connector %d", r.ConnectorID)
	}
	if r.CountEncoders >= 1 {
		if err := putUint32s(cs.c.User(), r.EncodersPtr, []uint32{EncoderID}); err != nil {
			return err
		}
	}
	r.CountEncoders = 1
	r.ConnectorType = uint32(uapi.ConnectorHDMIA)
	r.ConnectorTypeID = 1
	r.Subpixel = 0 // SubPixelUnknown: the EDID parser does not set it for HDMI
	if d.unplugged {
		r.Connection = uint32(uapi.StatusDisconnected)
		r.MmWidth, r.MmHeight = 0, 0
	} else {
		r.Connection = uint32(uapi.StatusConnected)
		r.MmWidth, r.MmHeight = d.mon.WidthMM, d.mon.HeightMM
	}
	n := uint32(0)
	for i := range d.modes {
		if exposed(cs, &d.modes[i]) {
			n++
		}
	}
	if r.CountModes >= n && n > 0 {
		copied := uint64(0)
		for i := range d.modes {
			if !exposed(cs, &d.modes[i]) {
				continue
			}
			if err := putStruct(cs.c.User(), r.ModesPtr+copied*uint64(unsafe.Sizeof(d.modes[i])), &d.modes[i]); err != nil {
				return err
			}
			copied++
		}
	}
	r.CountModes = n
	r.EncoderID = 0
	if d.crtc.routed {
		r.EncoderID = EncoderID
	}
	r.CountProps = 0
	return nil
}

// exposed is drm_mode_expose_to_userspace for mode m and file cs: stereo
// modes only for files with the STEREO_3D capability. (Its other rule,
// hiding aspect-ratio twins from files without ASPECT_RATIO, has nothing
// to hide: the connector's modes carry no aspect ratio.)
func exposed(cs *clientState, m *uapi.ModeModeInfo) bool {
	return cs.stereo || m.Flags&uapi.ModeFlag3DMask == 0
}

// getEncoder is DRM_IOCTL_MODE_GETENCODER (drm_encoder.c
// drm_mode_getencoder): the TMDS encoder of the HDMI block, which can be
// driven by the CRTC (possible_crtcs bit 0) and clones only itself (the
// core sets possible_clones to the encoder's own bit when the driver
// leaves it 0, drm_mode_config.c fixup_encoder_possible_clones).
func (d *Display) getEncoder(r *uapi.ModeGetEncoder) error {
	if r.EncoderID != EncoderID {
		return errorf(syscall.ENOENT, "unknown encoder %d", r.EncoderID)
	}
	r.CrtcID = 0
	if d.crtc.routed {
		r.CrtcID = CrtcID
	}
	r.EncoderType = uint32(uapi.EncoderTMDS)
	r.PossibleCrtcs = 1
	r.PossibleClones = 1
	return nil
}

// getCrtc is DRM_IOCTL_MODE_GETCRTC (drm_crtc.c drm_mode_getcrtc): the
// gamma size, the primary plane's framebuffer and source origin, and the
// mode when the CRTC is enabled. When it is not, mode_valid is 0 and the
// caller's mode bytes are left as they came.
func (d *Display) getCrtc(cs *clientState, r *uapi.ModeCrtc) error {
	if r.CrtcID != CrtcID {
		return errorf(syscall.ENOENT, "unknown CRTC %d", r.CrtcID)
	}
	c := &d.crtc
	r.GammaSize = gammaSize
	r.FbID = 0
	if c.fb != nil {
		r.FbID = c.fb.id
	}
	r.X, r.Y = c.x, c.y
	if c.enable {
		r.Mode = c.mode
		r.Mode.Vrefresh = vrefresh(&c.mode) // drm_mode_convert_to_umode
		r.ModeValid = 1
	} else {
		r.ModeValid = 0
	}
	if !cs.aspectRatio {
		r.Mode.Flags &^= uapi.ModeFlagPicARMask
	}
	return nil
}

// setCrtc is DRM_IOCTL_MODE_SETCRTC (drm_crtc.c drm_mode_setcrtc) followed
// by the atomic helpers' set_config and a blocking commit: with a mode, it
// shows framebuffer fb_id (or, for fb_id -1, the current one) from (x, y)
// on the listed connectors; without one it turns the CRTC off.
func (d *Display) setCrtc(cs *clientState, r *uapi.ModeCrtc) error {
	// Universal plane source offsets are 16.16 fixed point.
	if r.X&0xffff0000 != 0 || r.Y&0xffff0000 != 0 {
		return errorf(syscall.ERANGE, "position %d,%d does not fit the plane's 16.16 source offsets", r.X, r.Y)
	}
	if r.CrtcID != CrtcID {
		return errorf(syscall.ENOENT, "unknown CRTC ID %d", r.CrtcID)
	}
	c := &d.crtc
	var fb *framebuffer
	var mode uapi.ModeModeInfo
	if r.ModeValid != 0 {
		if r.FbID == ^uint32(0) {
			if c.fb == nil {
				return errorf(syscall.EINVAL, "CRTC doesn't have current FB (fb_id -1 asks to keep it)")
			}
			fb = c.fb
		} else if fb = d.lookupFB(r.FbID); fb == nil {
			return errorf(syscall.ENOENT, "unknown FB ID %d", r.FbID)
		}
		if !cs.aspectRatio && r.Mode.Flags&uapi.ModeFlagPicARMask != 0 {
			return errorf(syscall.EINVAL, "unexpected aspect-ratio flag bits (the file did not set the ASPECT_RATIO client capability)")
		}
		var err error
		if mode, err = convertUmode(&r.Mode); err != nil {
			return err
		}
		if !fb.format.supports(fb.modifier) {
			return errorf(syscall.EINVAL, "invalid pixel format %s, modifier 0x%x", fb.format, fb.modifier)
		}
		// drm_crtc_check_viewport: the mode's visible area at (x, y) lies
		// inside the framebuffer. 16.16 values in 32 bits, as the kernel
		// computes them.
		if err := checkSrcCoords(r.X<<16, r.Y<<16, uint32(mode.Hdisplay)<<16, uint32(mode.Vdisplay)<<16, fb); err != nil {
			return err
		}
	}
	if r.CountConnectors == 0 && r.ModeValid != 0 {
		return errorf(syscall.EINVAL, "count connectors is 0 but mode set")
	}
	if r.CountConnectors > 0 && (r.ModeValid == 0 || fb == nil) {
		return errorf(syscall.EINVAL, "count connectors is %d but no mode or fb set", r.CountConnectors)
	}
	if r.CountConnectors > 1 { // config->num_connector
		return errorf(syscall.EINVAL, "%d connectors, the device has 1", r.CountConnectors)
	}
	if r.CountConnectors == 1 {
		id, err := d.getUint32(cs.c.User(), r.SetConnectorsPtr)
		if err != nil {
			return err
		}
		if id != ConnectorID {
			return errorf(syscall.ENOENT, "connector id %d unknown", id)
		}
	}

	// The atomic check: what vc4's CRTC and HDMI encoder refuse.
	if r.ModeValid != 0 {
		if why := validateVC4(&mode); why != "" {
			return errorf(syscall.EINVAL, "mode %s refused: %s", modeString(&mode), why)
		}
	}

	// The commit prepares the new plane state (vc4_prepare_fb), then,
	// being a blocking one, waits for the previous commit on the CRTC
	// (drm_atomic_helper_wait_for_dependencies) before it applies.
	if r.ModeValid != 0 {
		if err := prepareFB(fb); err != nil {
			return err
		}
		// A blocking commit waits for the framebuffer's exclusive fence,
		// the GPU job rendering into it (drm_atomic_helper_commit:
		// drm_atomic_helper_wait_for_fences).
		fb.bos[0].WaitWrites()
	}
	d.finishPending()
	now := d.clockNow()
	if r.ModeValid == 0 {
		// Disabling: vc4_crtc_atomic_disable signals the commit as soon as
		// the pixelvalve stops; there is no vblank to wait for.
		if c.active {
			c.off = c.tl.count(now)
		}
		c.enable, c.active, c.routed = false, false, false
		d.putBlob(c.modeBlob)
		c.modeBlob = nil
		if c.fb != nil {
			cleanupFB(c.fb)
			d.put(c.fb)
			c.fb = nil
		}
		c.x, c.y = 0, 0
		c.crtcX, c.crtcY, c.crtcW, c.crtcH, c.srcW, c.srcH = 0, 0, 0, 0, 0, 0
		d.setScan(nil, c.off, now, false, false, true)
		return nil
	}
	if !c.active || !c.routed || !sameTimings(&c.mode, &mode) {
		// A modeset: the pixelvalve restarts, and the vblank counter goes
		// on from where it was (drm_crtc_vblank_off/on).
		c.tl = newTimeline(&mode, now, c.vblankCount(now))
	}
	// drm_atomic_helper_set_config: the mode's blob
	// (drm_atomic_set_mode_for_crtc), and the primary plane over the
	// whole mode from (x, y).
	mb := d.modeBlob(&mode)
	d.putBlob(c.modeBlob)
	c.modeBlob = mb
	c.enable, c.active, c.routed = true, true, true
	c.mode = mode
	d.swapStateFB(fb)
	c.x, c.y = r.X, r.Y
	c.crtcX, c.crtcY = 0, 0
	c.crtcW, c.crtcH = uint32(mode.Hdisplay), uint32(mode.Vdisplay)
	c.srcW, c.srcH = c.crtcW<<16, c.crtcH<<16
	// The commit returns once the new state is on screen: at the first
	// vblank of a new timeline, or the next one of the running timeline.
	seq, at := c.tl.next(now)
	d.waitUntil(at)
	d.setScan(c.fb, seq, at, false, false, true)
	return nil
}

// convertUmode is drm_mode_convert_umode (drm_modes.c): it refuses clocks
// and refresh rates above INT_MAX (ERANGE), an unknown picture aspect
// ratio and modes drm_mode_validate_basic refuses (EINVAL); it keeps only
// the DRM_MODE_TYPE_ALL bits of the type and a NUL-terminated copy of the
// name.
func convertUmode(in *uapi.ModeModeInfo) (uapi.ModeModeInfo, error) {
	const intMax = 1<<31 - 1
	if in.Clock > intMax || in.Vrefresh > intMax {
		return uapi.ModeModeInfo{}, errorf(syscall.ERANGE, "mode clock %d or refresh %d above INT_MAX", in.Clock, in.Vrefresh)
	}
	m := *in
	m.Type &= modeTypeAll
	if ar := (m.Flags & uapi.ModeFlagPicARMask) >> picARShift; ar > picARMax {
		return uapi.ModeModeInfo{}, errorf(syscall.EINVAL, "invalid picture aspect ratio %d in the mode flags", ar)
	}
	// strscpy_pad: at most 31 characters, then NULs.
	name := m.Name
	m.Name = [uapi.DisplayModeLen]byte{}
	for i := 0; i < uapi.DisplayModeLen-1 && name[i] != 0; i++ {
		m.Name[i] = name[i]
	}
	check := m
	check.Flags &^= uapi.ModeFlagPicARMask // the aspect ratio is kept apart, not a flag
	if why := validateBasic(&check); why != "" {
		return uapi.ModeModeInfo{}, errorf(syscall.EINVAL, "invalid mode %s: %s", modeString(&m), why)
	}
	return m, nil
}

// checkSrcCoords is drm_framebuffer_check_src_coords (drm_framebuffer.c):
// the 16.16 source rectangle lies inside the framebuffer, or ENOSPC.
func checkSrcCoords(srcX, srcY, srcW, srcH uint32, fb *framebuffer) error {
	fbW, fbH := fb.width<<16, fb.height<<16
	if srcW > fbW || srcX > fbW-srcW || srcH > fbH || srcY > fbH-srcH {
		return errorf(syscall.ENOSPC, "invalid source coordinates %dx%d+%d+%d (fb %dx%d)",
			srcW>>16, srcH>>16, srcX>>16, srcY>>16, fb.width, fb.height)
	}
	return nil
}

// modeString formats a mode for messages, e.g. "1920x1080@60" or
// "1920x1080i@60": the size, "i" when interlaced, and the mode's vrefresh
// (computed as the kernel does when the field is 0).
func modeString(m *uapi.ModeModeInfo) string {
	hz := m.Vrefresh
	if hz == 0 {
		hz = vrefresh(m)
	}
	i := ""
	if m.Flags&uapi.ModeFlagInterlace != 0 {
		i = "i"
	}
	return fmt.Sprintf("%dx%d%s@%d", m.Hdisplay, m.Vdisplay, i, hz)
}
