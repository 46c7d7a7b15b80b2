package display

import (
	"syscall"
	"time"
	"unsafe"

	"github.com/vccube/vccube/sim/kernel"
	"github.com/vccube/vccube/uapi"
)

// Atomic commits: DRM_IOCTL_MODE_ATOMIC (drm_atomic_uapi.c
// drm_mode_atomic_ioctl) and DRM_IOCTL_MODE_OBJ_SETPROPERTY
// (drm_mode_object.c set_property_atomic), on the same state the legacy
// SETCRTC and PAGE_FLIP change (the kernel implements those on top of
// atomic commits: drm_atomic_helper_set_config, drm_atomic_helper_page_flip).
//
// The commit's steps, in the kernel's order: the ioctl's own checks; each
// object (ENOENT for an unknown one or one without properties) and each
// property (ENOENT when the object has none of that id; EINVAL for a
// value drm_property_change_valid_get refuses; then the property's own
// rule, drm_atomic_{plane,crtc,connector}_set_property); the events and
// out-fences (prepare_signaling); the check (drm_atomic_check_only:
// drm_atomic_plane_check, drm_atomic_crtc_check, the modeset helpers, and
// a modeset without ALLOW_MODESET is EINVAL); then, unless TEST_ONLY, the
// commit (a NONBLOCK one is EBUSY while the CRTC's last commit has not
// landed). A failed or test-only commit changes nothing.
//
// What the simulator does not model, answered with ENOSYS: showing
// overlay or cursor planes; a primary plane that does not cover the whole
// CRTC, is scaled, rotated, reflected or made translucent; GAMMA_LUT
// contents; ASYNC atomic flips. A nonblocking modeset is done in the
// ioctl, as a blocking one (its event and out-fence still come at the
// vblank it lands at).

// planeProps are the properties of a plane the simulator stores without
// acting on them.
type planeProps struct {
	alpha, rotation, colorEncoding, colorRange uint64
}

func defaultPlaneProps() planeProps {
	// drm_plane_create_alpha_property: opaque; the rotation property's
	// default DRM_MODE_ROTATE_0; vc4_plane_init's BT.709 limited range.
	return planeProps{alpha: 0xffff, rotation: uapi.Rotate0, colorEncoding: 1, colorRange: 0}
}

// atomicState is the new state a commit builds: the CRTC, its primary
// plane and the connector (only one of each), the other planes'
// properties, and what the commit touched.
type atomicState struct {
	enable, active, routed bool
	mode                   uapi.ModeModeInfo
	modeBlob               *blob // a reference while the state lives
	vrr                    bool
	gammaLUT               *blob // a reference

	fb                     *framebuffer // the primary plane's; its CRTC is bound iff fb != nil
	planeCrtc              bool         // the primary plane's CRTC_ID
	crtcX, crtcY           int32
	crtcW, crtcH           uint32
	srcX, srcY, srcW, srcH uint32
	planes                 [numPlanes]planeProps
	otherOn                bool // an overlay or the cursor was given a framebuffer or the CRTC

	dpms, linkStatus uint64

	crtcIn      bool // the CRTC is in the commit
	outFencePtr uint64
	inFence     *kernel.Fence // a reference
}

// snapshot is the current state, as a commit starts from it.
func (d *Display) snapshot(s *atomicState) {
	c := &d.crtc
	*s = atomicState{enable: c.enable, active: c.active, routed: c.routed, mode: c.mode,
		modeBlob: c.modeBlob.get(), vrr: c.vrr, gammaLUT: c.gammaLUT.get(),
		fb: c.fb, planeCrtc: c.fb != nil, crtcX: c.crtcX, crtcY: c.crtcY, crtcW: c.crtcW, crtcH: c.crtcH,
		srcX: c.x << 16, srcY: c.y << 16, srcW: c.srcW, srcH: c.srcH, planes: d.planes,
		dpms: d.dpms, linkStatus: d.linkStatus}
}

// release drops the state's references.
func (d *Display) release(s *atomicState) {
	d.putBlob(s.modeBlob)
	d.putBlob(s.gammaLUT)
	s.modeBlob, s.gammaLUT = nil, nil
	if s.inFence != nil {
		s.inFence.Put()
		s.inFence = nil
	}
}

// atomic is DRM_IOCTL_MODE_ATOMIC.
func (d *Display) atomic(cs *clientState, r *uapi.ModeAtomic) error {
	if !cs.atomic {
		return errorf(syscall.EINVAL, "commit failed: atomic cap not enabled")
	}
	if r.Flags&^uapi.AtomicFlags != 0 {
		return errorf(syscall.EINVAL, "commit failed: invalid flag 0x%x", r.Flags&^uapi.AtomicFlags)
	}
	if r.Reserved != 0 {
		return errorf(syscall.EINVAL, "commit failed: reserved field set")
	}
	if r.Flags&uapi.PageFlipAsync != 0 {
		return errorf(syscall.ENOSYS, "asynchronous atomic flips (DRM_MODE_PAGE_FLIP_ASYNC) are not modelled by the simulated display")
	}
	if r.Flags&uapi.AtomicTestOnly != 0 && r.Flags&uapi.PageFlipEvent != 0 {
		return errorf(syscall.EINVAL, "commit failed: page-flip event requested with test-only commit")
	}
	s := &d.scratch
	d.snapshot(s)
	defer d.release(s)
	u := cs.c.User()
	copiedProps := uint64(0)
	for i := uint64(0); i < uint64(r.CountObjs); i++ {
		objID, err := d.getUint32(u, r.ObjsPtr+4*i)
		if err != nil {
			return err
		}
		typ := d.objectType(objID)
		if typ == 0 {
			return errorf(syscall.ENOENT, "unknown object %d", objID)
		}
		props := objectProps(typ)
		if props == nil {
			return errorf(syscall.ENOENT, "[OBJECT:%d] has no properties", objID)
		}
		n, err := d.getUint32(u, r.CountPropsPtr+4*i)
		if err != nil {
			return err
		}
		if typ == uapi.ObjectCrtc || (typ == uapi.ObjectConnector && s.routed) || (typ == uapi.ObjectPlane && objID == PrimaryPlaneID && s.planeCrtc) {
			// drm_atomic_get_{crtc,connector,plane}_state: an object's
			// state brings its CRTC's into the commit.
			s.crtcIn = true
		}
		for j := uint32(0); j < n; j++ {
			propID, err := d.getUint32(u, r.PropsPtr+4*copiedProps)
			if err != nil {
				return err
			}
			p := findProperty(propID)
			if p == nil || !hasProp(props, p) {
				return errorf(syscall.ENOENT, "[OBJECT:%d] has no property %d", objID, propID)
			}
			v, err := d.getUint64(u, r.PropValuesPtr+8*copiedProps)
			if err != nil {
				return err
			}
			if err := d.setProperty(cs, s, typ, objID, p, v); err != nil {
				return err
			}
			copiedProps++
		}
	}
	// prepare_signaling: a PAGE_FLIP_EVENT needs a CRTC in the commit.
	event := r.Flags&uapi.PageFlipEvent != 0
	if event && !s.crtcIn {
		return errorf(syscall.EINVAL, "commit failed: page-flip event requested without a CRTC in the commit")
	}
	test := r.Flags&uapi.AtomicTestOnly != 0
	if event {
		if err := cs.c.ReserveEvent(eventSize); err != nil {
			return err
		}
	}
	err := d.check(s, r.Flags&uapi.AtomicAllowModeset != 0, event || s.outFencePtr != 0)
	if err == nil && !test {
		err = d.commit(cs, s, r.Flags&uapi.AtomicNonblock != 0, event, r.UserData)
	}
	if err != nil && event {
		cs.c.CancelEvent(eventSize)
	}
	return err
}

func hasProp(list []*property, p *property) bool {
	for _, x := range list {
		if x == p {
			return true
		}
	}
	return false
}

// valid is drm_property_change_valid_get: immutable properties take no
// value; ranges, enums and bitmasks their own; a blob or object property
// 0 or an existing blob or object of its type.
func (d *Display) valid(p *property, v uint64) bool {
	if p.flags&uapi.PropImmutable != 0 {
		return false
	}
	switch p.kind() {
	case uapi.PropRange:
		return v >= p.values[0] && v <= p.values[1]
	case uapi.PropSignedRange:
		return int64(v) >= int64(p.values[0]) && int64(v) <= int64(p.values[1])
	case uapi.PropEnum:
		for _, e := range p.enums {
			if e.value == v {
				return true
			}
		}
		return false
	case uapi.PropBitmask:
		mask := uint64(0)
		for _, e := range p.enums {
			mask |= 1 << e.value
		}
		return v&^mask == 0
	case uapi.PropBlob:
		return v == 0 || (v <= 0xffffffff && d.blobs[uint32(v)] != nil)
	case uapi.PropObject:
		return v == 0 || (v <= 0xffffffff && d.objectType(uint32(v)) == uint32(p.values[0]))
	}
	return false
}

// setProperty is drm_atomic_set_property.
func (d *Display) setProperty(cs *clientState, s *atomicState, typ, id uint32, p *property, v uint64) error {
	if !d.valid(p, v) {
		return errorf(syscall.EINVAL, "[OBJECT:%d] property %s: invalid value %#x", id, p.name, v)
	}
	switch typ {
	case uapi.ObjectPlane:
		return d.setPlaneProperty(cs, s, planeIndex(id), p, v)
	case uapi.ObjectCrtc:
		return d.setCrtcProperty(cs, s, p, v)
	case uapi.ObjectConnector:
		switch p {
		case propConnCrtcID:
			// drm_atomic_set_crtc_for_connector: the new CRTC joins the
			// commit.
			s.routed = v != 0
			if s.routed {
				s.crtcIn = true
			}
		case propDPMS:
			// "setting DPMS property requires special handling, which is
			// done in legacy setprop path for us. Disallow (for now?)
			// atomic writes to DPMS property"
			return errorf(syscall.EINVAL, "atomic writes to DPMS are refused")
		case propLinkStatus:
			// Never downgraded from GOOD by user space, only by the
			// hardware (drm_atomic_connector_set_property).
			if s.linkStatus != uapi.LinkStatusGood {
				s.linkStatus = v
			}
		}
	}
	return nil
}

// setPlaneProperty is drm_atomic_plane_set_property.
func (d *Display) setPlaneProperty(cs *clientState, s *atomicState, i int, p *property, v uint64) error {
	if i != 0 {
		switch p {
		case propFBID, propPlaneCrtcID:
			if v != 0 {
				s.otherOn = true
			}
		case propInFenceFD:
			if int64(v) != -1 {
				return errorf(syscall.ENOSYS, "showing overlay and cursor planes is not modelled by the simulated display")
			}
		case propAlpha:
			s.planes[i].alpha = v
		case propRotation:
			if v&uapi.RotateMask == 0 || v&uapi.RotateMask&(v&uapi.RotateMask-1) != 0 {
				return errorf(syscall.EINVAL, "[PLANE:%d] bad rotation bitmask: 0x%x", planeIDs[i], v)
			}
			s.planes[i].rotation = v
		case propColorEncoding:
			s.planes[i].colorEncoding = v
		case propColorRange:
			s.planes[i].colorRange = v
		}
		return nil
	}
	switch p {
	case propFBID:
		s.fb = nil
		if v != 0 {
			s.fb = d.lookupFB(uint32(v))
		}
	case propInFenceFD:
		// A plane takes one in-fence per commit; -1 is none.
		if s.inFence != nil {
			return errorf(syscall.EINVAL, "[PLANE:%d] IN_FENCE_FD given twice", PrimaryPlaneID)
		}
		if int64(v) == -1 {
			return nil
		}
		f, err := kernel.SyncFileFence(cs.c.Files(), int32(v))
		if err != nil {
			return errorf(syscall.EINVAL, "[PLANE:%d] IN_FENCE_FD %d is not a sync file", PrimaryPlaneID, int32(v))
		}
		s.inFence = f
	case propPlaneCrtcID:
		s.planeCrtc = v != 0
		s.crtcIn = true // drm_atomic_set_crtc_for_plane adds the old and new CRTC
	case propCrtcX:
		s.crtcX = int32(v)
	case propCrtcY:
		s.crtcY = int32(v)
	case propCrtcW:
		s.crtcW = uint32(v)
	case propCrtcH:
		s.crtcH = uint32(v)
	case propSrcX:
		s.srcX = uint32(v)
	case propSrcY:
		s.srcY = uint32(v)
	case propSrcW:
		s.srcW = uint32(v)
	case propSrcH:
		s.srcH = uint32(v)
	case propAlpha:
		s.planes[0].alpha = v
	case propRotation:
		if v&uapi.RotateMask == 0 || v&uapi.RotateMask&(v&uapi.RotateMask-1) != 0 {
			return errorf(syscall.EINVAL, "[PLANE:%d] bad rotation bitmask: 0x%x", PrimaryPlaneID, v)
		}
		s.planes[0].rotation = v
	case propColorEncoding:
		s.planes[0].colorEncoding = v
	case propColorRange:
		s.planes[0].colorRange = v
	}
	return nil
}

// setCrtcProperty is drm_atomic_crtc_set_property.
func (d *Display) setCrtcProperty(cs *clientState, s *atomicState, p *property, v uint64) error {
	switch p {
	case propActive:
		s.active = v != 0
	case propModeID:
		// drm_atomic_replace_property_blob_from_id with the size of
		// struct drm_mode_modeinfo, then drm_atomic_set_mode_prop_for_crtc.
		if v == 0 {
			d.putBlob(s.modeBlob)
			s.modeBlob, s.enable, s.mode = nil, false, uapi.ModeModeInfo{}
			return nil
		}
		b := d.blobs[uint32(v)]
		if len(b.data) != int(unsafe.Sizeof(uapi.ModeModeInfo{})) {
			return errorf(syscall.EINVAL, "[CRTC:%d] MODE_ID blob %d is %d bytes, not a struct drm_mode_modeinfo", CrtcID, v, len(b.data))
		}
		var um uapi.ModeModeInfo
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&um)), unsafe.Sizeof(um)), b.data)
		if !cs.aspectRatio && um.Flags&uapi.ModeFlagPicARMask != 0 {
			return errorf(syscall.EINVAL, "[CRTC:%d] mode with aspect-ratio flags from a file without the ASPECT_RATIO capability", CrtcID)
		}
		mode, err := convertUmode(&um)
		if err != nil {
			return errorf(syscall.EINVAL, "[CRTC:%d] invalid MODE_ID blob %d: %v", CrtcID, v, err)
		}
		d.putBlob(s.modeBlob)
		s.modeBlob, s.mode, s.enable = b.get(), mode, true
	case propOutFencePtr:
		if v == 0 {
			return nil
		}
		// put_user(-1, fence_ptr): the program sees -1 if the commit fails.
		if err := d.putUint32(cs.c.User(), v, ^uint32(0)); err != nil {
			return err
		}
		s.outFencePtr = v
	case propVrrEnabled:
		s.vrr = v != 0
	case propGammaLUT:
		if v != 0 {
			b := d.blobs[uint32(v)]
			if len(b.data)%8 != 0 { // struct drm_color_lut entries
				return errorf(syscall.EINVAL, "[CRTC:%d] GAMMA_LUT blob of %d bytes is not a table of struct drm_color_lut", CrtcID, len(b.data))
			}
			return errorf(syscall.ENOSYS, "gamma tables are not modelled by the simulated display")
		}
		d.putBlob(s.gammaLUT)
		s.gammaLUT = nil
	}
	return nil
}

// needsModeset is drm_atomic_crtc_needs_modeset after
// drm_atomic_helper_check_modeset: the mode, enable, active or the
// connector's routing changed.
func (d *Display) needsModeset(s *atomicState) bool {
	c := &d.crtc
	return s.enable != c.enable || s.active != c.active || s.routed != c.routed ||
		(s.enable && !sameTimings(&s.mode, &c.mode))
}

// check is drm_atomic_check_only for the state.
func (d *Display) check(s *atomicState, allowModeset, event bool) error {
	c := &d.crtc
	// drm_atomic_plane_check.
	if s.planeCrtc && s.fb == nil {
		return errorf(syscall.EINVAL, "[PLANE:%d] CRTC set but no FB", PrimaryPlaneID)
	}
	if !s.planeCrtc && s.fb != nil {
		return errorf(syscall.EINVAL, "[PLANE:%d] FB set but no CRTC", PrimaryPlaneID)
	}
	if s.otherOn {
		return errorf(syscall.ENOSYS, "showing overlay and cursor planes is not modelled by the simulated display")
	}
	if s.fb != nil {
		if !s.fb.format.supports(s.fb.modifier) {
			return errorf(syscall.EINVAL, "[PLANE:%d] invalid pixel format %s, modifier 0x%x", PrimaryPlaneID, s.fb.format, s.fb.modifier)
		}
		if s.crtcW > 1<<31-1-uint32(max(s.crtcX, 0)) || s.crtcH > 1<<31-1-uint32(max(s.crtcY, 0)) {
			return errorf(syscall.ERANGE, "[PLANE:%d] invalid CRTC coordinates %dx%d+%d+%d", PrimaryPlaneID, s.crtcW, s.crtcH, s.crtcX, s.crtcY)
		}
		if err := checkSrcCoords(s.srcX, s.srcY, s.srcW, s.srcH, s.fb); err != nil {
			return err
		}
	}
	// drm_atomic_crtc_check.
	if s.active && !s.enable {
		return errorf(syscall.EINVAL, "[CRTC:%d] active without enabled", CrtcID)
	}
	if event && !s.active && !c.active {
		return errorf(syscall.EINVAL, "[CRTC:%d] requesting event but off", CrtcID)
	}
	// drm_atomic_helper_check_modeset: an enabled CRTC needs its
	// connector and the connector an enabled CRTC.
	if s.enable != s.routed {
		return errorf(syscall.EINVAL, "[CRTC:%d] enabled/connectors mismatch", CrtcID)
	}
	if s.enable {
		if why := validateVC4(&s.mode); why != "" {
			return errorf(syscall.EINVAL, "[CRTC:%d] mode %s refused: %s", CrtcID, modeString(&s.mode), why)
		}
	}
	if !allowModeset && d.needsModeset(s) {
		return errorf(syscall.EINVAL, "[CRTC:%d] requires full modeset", CrtcID)
	}
	// What the simulated scanout shows: the primary plane unscaled over
	// the whole mode.
	if s.fb != nil && s.enable {
		if s.crtcX != 0 || s.crtcY != 0 || s.crtcW != uint32(s.mode.Hdisplay) || s.crtcH != uint32(s.mode.Vdisplay) ||
			s.srcW != s.crtcW<<16 || s.srcH != s.crtcH<<16 || s.srcX&0xffff != 0 || s.srcY&0xffff != 0 {
			return errorf(syscall.ENOSYS, "a primary plane that does not show a whole-pixel, unscaled %dx%d area over the whole CRTC is not modelled "+
				"(CRTC %dx%d+%d+%d, source %#x x %#x + %#x + %#x)", s.mode.Hdisplay, s.mode.Vdisplay, s.crtcW, s.crtcH, s.crtcX, s.crtcY,
				s.srcW, s.srcH, s.srcX, s.srcY)
		}
	}
	if s.fb != nil && (s.planes[0].rotation != uapi.Rotate0 || s.planes[0].alpha != 0xffff) {
		return errorf(syscall.ENOSYS, "a rotated, reflected or translucent primary plane is not modelled by the simulated display")
	}
	return nil
}

// commit applies a checked state: a modeset, or a plane update that
// lands at the next vblank.
func (d *Display) commit(cs *clientState, s *atomicState, nonblock, event bool, userData uint64) error {
	c := &d.crtc
	modeset := d.needsModeset(s)
	if !modeset && nonblock && c.pending.active {
		// drm_atomic_helper_setup_commit, stall_checks.
		return errorf(syscall.EBUSY, "[CRTC:%d] busy with a previous commit", CrtcID)
	}
	// vc4_prepare_fb: a framebuffer entering the plane's state is
	// marked in use (the state's use from then on).
	prepared := false
	if s.fb != nil && s.fb != c.fb {
		if err := prepareFB(s.fb); err != nil {
			return err
		}
		prepared = true
	}
	// The out-fence (drm_crtc_create_fence) and its sync file: the
	// kernel installs the descriptor once the commit succeeded.
	var fence *kernel.Fence
	if s.outFencePtr != 0 {
		c.fenceSeqno++
		fence = kernel.NewFence(c.fenceCtx, c.fenceSeqno, "vc4", c.timelineName)
		fd, err := kernel.NewSyncFile(cs.c.Files(), fence)
		if err == nil {
			err = d.putUint32(cs.c.User(), s.outFencePtr, uint32(fd))
		}
		if err != nil {
			fence.Put()
			if prepared {
				cleanupFB(s.fb)
			}
			return err
		}
	}
	// The commit's work waits for the in-fence and for the job rendering
	// into the framebuffer (drm_atomic_helper_wait_for_fences): the flip
	// lands at the first vblank after both. A nonblocking page flip under
	// the real clock leaves that wait to the commit (awaitRender) and the
	// ioctl returns at once, as the kernel's does; every other commit is
	// done in the ioctl, so it waits there.
	awaiting := d.opts.Clock == RealClock && nonblock && !modeset && c.active && s.fb != nil &&
		((s.inFence != nil && !s.inFence.Signaled()) || !s.fb.bos[0].WritesDone())
	if !awaiting {
		if s.inFence != nil && !s.inFence.Signaled() {
			s.inFence.Wait()
		}
		if s.fb != nil && !s.fb.bos[0].WritesDone() {
			s.fb.bos[0].WaitWrites()
		}
	}

	// The state swap.
	newFB := s.fb != c.fb
	d.swapProps(s)
	if modeset {
		d.finishPending()
		now := d.clockNow()
		wasActive, oldMode, count := c.active, c.mode, c.vblankCount(now)
		d.swapCrtcState(s)
		if newFB {
			d.setPlaneFB(s.fb)
		}
		c.x, c.y = s.srcX>>16, s.srcY>>16
		if !c.active {
			// vc4_crtc_atomic_disable: the commit is done once the
			// pixelvalve stops; the vblank counter freezes.
			c.off = count
			d.setScan(nil, c.off, now, false, false, true)
			d.signalCommit(cs, fence, event, userData, c.off, now)
			return nil
		}
		if !wasActive || !sameTimings(&oldMode, &c.mode) {
			c.tl = newTimeline(&c.mode, now, count)
		}
		seq, at := c.tl.next(now)
		d.waitUntil(at)
		d.setScan(c.fb, seq, at, false, event, true)
		d.signalCommit(cs, fence, event, userData, seq, at)
		return nil
	}
	if !nonblock {
		d.finishPending()
	}
	if newFB {
		d.setPlaneFB(s.fb)
	}
	c.x, c.y = s.srcX>>16, s.srcY>>16
	if !c.active {
		// An inactive CRTC's commit completes at once (no vblank).
		now := d.clockNow()
		d.signalCommit(cs, fence, event, userData, c.off, now)
		return nil
	}
	c.pending = pendingFlip{active: true, event: event, userData: userData, fence: fence}
	if event {
		c.pending.client = cs
	}
	if awaiting {
		var in *kernel.Fence
		if s.inFence != nil {
			in = s.inFence.Get()
		}
		d.awaitRender(s.fb.bos[0], in)
		return nil
	}
	_, target := c.tl.next(d.clockNow())
	c.pending.target = target
	switch d.opts.Clock {
	case VirtualClock:
		d.waitUntil(target)
	case RealClock:
		d.timer.Reset(time.Duration(target - monotonicNow()))
	case SteppedClock:
		if !nonblock {
			d.waitUntil(target)
		}
	}
	return nil
}

// signalCommit completes a commit that landed at once: its out-fence, then
// its event, in drm_send_event_helper's order (see completeDue).
func (d *Display) signalCommit(cs *clientState, fence *kernel.Fence, event bool, userData, seq uint64, at int64) {
	if fence != nil {
		fence.Signal(at)
		fence.Put()
	}
	if event {
		d.sendEvent(cs, userData, seq, at)
	}
}

// swapProps makes the stored properties the state's.
func (d *Display) swapProps(s *atomicState) {
	c := &d.crtc
	d.planes = s.planes
	d.dpms, d.linkStatus = s.dpms, s.linkStatus
	c.vrr = s.vrr
	c.crtcX, c.crtcY, c.crtcW, c.crtcH = s.crtcX, s.crtcY, s.crtcW, s.crtcH
	c.srcW, c.srcH = s.srcW, s.srcH
}

// swapCrtcState makes the CRTC's mode, enable, active and routing the
// state's.
func (d *Display) swapCrtcState(s *atomicState) {
	c := &d.crtc
	c.enable, c.active, c.routed, c.mode = s.enable, s.active, s.routed, s.mode
	old := c.modeBlob
	c.modeBlob = s.modeBlob.get()
	d.putBlob(old)
}

// setPlaneFB puts fb (prepared, or nil) in the primary plane's state.
func (d *Display) setPlaneFB(fb *framebuffer) {
	c := &d.crtc
	if fb != nil {
		d.swapStateFB(fb)
		return
	}
	if c.fb != nil {
		cleanupFB(c.fb)
		d.put(c.fb)
		c.fb = nil
	}
}

// objSetProperty is DRM_IOCTL_MODE_OBJ_SETPROPERTY (drm_mode_object.c
// drm_mode_obj_set_property_ioctl, set_property_atomic): one property in
// a blocking commit without ALLOW_MODESET, except DPMS, which turns the
// connector's CRTC on or off (drm_atomic_connector_commit_dpms).
func (d *Display) objSetProperty(cs *clientState, r *uapi.ModeObjSetProperty) error {
	typ := d.objectType(r.ObjID)
	if typ == 0 || (r.ObjType != uapi.ObjectAny && r.ObjType != typ) {
		return errorf(syscall.ENOENT, "no object %d of type 0x%08x", r.ObjID, r.ObjType)
	}
	props := objectProps(typ)
	if props == nil {
		return errorf(syscall.EINVAL, "object %d has no properties", r.ObjID)
	}
	p := findProperty(r.PropID)
	if p == nil || !hasProp(props, p) {
		return errorf(syscall.EINVAL, "object %d has no property %d", r.ObjID, r.PropID)
	}
	s := &d.scratch
	d.snapshot(s)
	defer d.release(s)
	if p == propDPMS {
		if !d.valid(p, r.Value) {
			return errorf(syscall.EINVAL, "DPMS value %d", r.Value)
		}
		s.dpms = r.Value
		if s.routed {
			s.active = r.Value == uapi.DPMSOn
			s.crtcIn = true
		}
		if err := d.check(s, true, false); err != nil {
			return err
		}
		return d.commit(cs, s, false, false, 0)
	}
	if typ == uapi.ObjectCrtc || (typ == uapi.ObjectPlane && r.ObjID == PrimaryPlaneID) {
		s.crtcIn = true
	}
	if err := d.setProperty(cs, s, typ, r.ObjID, p, r.Value); err != nil {
		return err
	}
	if err := d.check(s, false, false); err != nil {
		return err
	}
	return d.commit(cs, s, false, false, 0)
}
