package display

import (
	"syscall"
	"time"
	"unsafe"

	"github.com/vccube/vccube/sim/kernel"
	"github.com/vccube/vccube/uapi"
)

// pageFlipFlags is DRM_MODE_PAGE_FLIP_FLAGS (drm_mode.h): EVENT, ASYNC
// and the two TARGET bits.
const (
	pageFlipTarget = uapi.PageFlipTargetAbsolute | uapi.PageFlipTargetRelative
	pageFlipFlags  = uapi.PageFlipEvent | uapi.PageFlipAsync | pageFlipTarget
)

// pageFlip is DRM_IOCTL_MODE_PAGE_FLIP: drm_mode_page_flip_ioctl
// (drm_plane.c), then vc4_page_flip (vc4_crtc.c), which hands a vsynced
// flip to drm_atomic_helper_page_flip (a nonblocking commit of the primary
// plane) and does an ASYNC one itself.
//
// A vsynced flip completes at the CRTC's first vblank after the request;
// until then another flip is EBUSY (drm_atomic_helper_setup_commit,
// stall_checks: "busy with a previous commit"). With
// DRM_MODE_PAGE_FLIP_EVENT the file gets a DRM_EVENT_FLIP_COMPLETE record
// carrying the user data, the vblank counter and the vblank's time
// (drm_vblank.c send_vblank_event) and the CRTC id.
func (d *Display) pageFlip(cs *clientState, r *uapi.ModeCrtcPageFlip) error {
	if r.Flags&^pageFlipFlags != 0 {
		return errorf(syscall.EINVAL, "unknown page-flip flags 0x%x", r.Flags&^pageFlipFlags)
	}
	// r.Reserved is the sequence of struct drm_mode_crtc_page_flip_target.
	if r.Reserved != 0 && r.Flags&pageFlipTarget == 0 {
		return errorf(syscall.EINVAL, "a target sequence %d without a TARGET flag", r.Reserved)
	}
	if r.Flags&pageFlipTarget == pageFlipTarget {
		return errorf(syscall.EINVAL, "TARGET_ABSOLUTE and TARGET_RELATIVE together")
	}
	// (DRM_MODE_PAGE_FLIP_ASYNC needs mode_config.async_page_flip, which
	// vc4_kms_load sets.)
	if r.CrtcID != CrtcID {
		return errorf(syscall.ENOENT, "unknown CRTC %d", r.CrtcID)
	}
	if r.Flags&pageFlipTarget != 0 {
		return errorf(syscall.EINVAL, "vc4's CRTC has no page_flip_target: target flips are not supported (DRM_CAP_PAGE_FLIP_TARGET is 0)")
	}
	c := &d.crtc
	if c.fb == nil {
		// "The framebuffer is currently unbound, presumably due to a
		// hotplug event, that userspace has not yet discovered."
		return errorf(syscall.EBUSY, "the primary plane has no framebuffer (the CRTC is off, or its framebuffer was removed); SETCRTC first")
	}
	fb := d.lookupFB(r.FbID)
	if fb == nil {
		return errorf(syscall.ENOENT, "unknown framebuffer %d", r.FbID)
	}
	if err := checkSrcCoords(c.x<<16, c.y<<16, uint32(c.mode.Hdisplay)<<16, uint32(c.mode.Vdisplay)<<16, fb); err != nil {
		return err
	}
	if fb.format != c.fb.format {
		return errorf(syscall.EINVAL, "page flip is not allowed to change frame buffer format (%s to %s)", c.fb.format, fb.format)
	}
	// The event's space in the file's queue is taken now, and given back
	// if the flip fails (drm_event_reserve_init, drm_event_cancel_free).
	event := r.Flags&uapi.PageFlipEvent != 0
	if event {
		if err := cs.c.ReserveEvent(eventSize); err != nil {
			return err
		}
	}
	if err := d.flip(cs, r, fb); err != nil {
		if event {
			cs.c.CancelEvent(eventSize)
		}
		return err
	}
	return nil
}

// eventSize is the size of a flip-complete event (struct drm_event_vblank).
const eventSize = int(unsafe.Sizeof(uapi.EventVblank{}))

// flip is vc4_page_flip: an ASYNC flip done at once, or a nonblocking
// atomic commit of the primary plane that completes at the next vblank.
func (d *Display) flip(cs *clientState, r *uapi.ModeCrtcPageFlip, fb *framebuffer) error {
	c := &d.crtc
	event := r.Flags&uapi.PageFlipEvent != 0
	now := d.clockNow()

	if r.Flags&uapi.PageFlipAsync != 0 {
		// vc4_async_page_flip: the BO is marked in use (an EINVAL for a
		// purgeable one), the plane's address is rewritten once the GPU
		// is done with the BO (vc4_queue_seqno_cb on the BO's last
		// seqno; the simulator waits for it in the ioctl, where the
		// kernel returns at once) and the event carries the last
		// vblank's count and time (drm_crtc_send_vblank_event).
		if err := prepareFB(fb); err != nil {
			return err
		}
		if !fb.bos[0].WritesDone() {
			fb.bos[0].WaitWrites()
			now = d.clockNow()
		}
		d.swapStateFB(fb)
		seq, at := c.tl.last(now)
		d.setScan(c.fb, seq, at, true, event, false)
		if event {
			d.sendEvent(cs, r.UserData, seq, at)
		}
		return nil
	}

	// drm_atomic_helper_page_flip: page_flip_common refuses an inactive
	// CRTC; the nonblocking commit refuses to get ahead of a pending one,
	// then prepares the new plane state (vc4_prepare_fb).
	if !c.active {
		return errorf(syscall.EINVAL, "CRTC %d disabled, rejecting legacy flip", CrtcID)
	}
	if c.pending.active {
		return errorf(syscall.EBUSY, "CRTC %d busy with a previous commit: wait for its flip event", CrtcID)
	}
	if err := prepareFB(fb); err != nil {
		return err
	}
	// The commit's work waits for the framebuffer's exclusive fence, the
	// GPU job still rendering into it, before the hardware may latch it
	// (commit_tail: drm_atomic_helper_wait_for_fences), so the flip lands
	// at the first vblank after the render finished. Under the real clock
	// that wait is the commit's own, as in the kernel's commit work, and
	// the ioctl returns at once; a virtual clock's flip is done in the
	// ioctl, so it waits there.
	rendering := !fb.bos[0].WritesDone()
	if rendering && d.opts.Clock != RealClock {
		fb.bos[0].WaitWrites()
		now = d.clockNow()
		rendering = false
	}
	// The commit swaps the state at once (GETCRTC reports the new
	// framebuffer); the hardware latches it at the next vblank.
	d.swapStateFB(fb)
	c.pending = pendingFlip{active: true, event: event, userData: r.UserData}
	if c.pending.event {
		c.pending.client = cs
	}
	if rendering {
		d.awaitRender(fb.bos[0], nil)
		return nil
	}
	_, target := c.tl.next(now)
	c.pending.target = target
	switch d.opts.Clock {
	case VirtualClock:
		d.waitUntil(target)
	case RealClock:
		d.timer.Reset(time.Duration(target - monotonicNow()))
	}
	return nil
}

// swapStateFB makes fb, already prepared (prepareFB), the primary plane's
// framebuffer in the state; the old state's is cleaned up.
func (d *Display) swapStateFB(fb *framebuffer) {
	c := &d.crtc
	fb.get()
	if c.fb != nil {
		cleanupFB(c.fb)
		d.put(c.fb)
	}
	c.fb = fb
}

// prepareFB is vc4_prepare_fb (vc4_plane.c): a framebuffer entering the
// primary plane's state marks the BO of its first plane in use
// (vc4_bo_inc_usecnt), so that a BO on screen is never purged, and a BO
// marked DONTNEED or already purged is refused with EINVAL. The commit
// fails before anything changes.
func prepareFB(fb *framebuffer) error {
	err := fb.bos[0].IncUsecnt()
	if ke, ok := err.(*kernel.Error); ok {
		return errorf(ke.Errno, "framebuffer %d cannot be shown: %s", fb.id, ke.Msg)
	}
	return err
}

// cleanupFB is vc4_cleanup_fb: a framebuffer leaving a plane state ends
// the use prepareFB began.
func cleanupFB(fb *framebuffer) { fb.bos[0].DecUsecnt() }

// finishPending is a blocking commit's stall: it waits for the pending
// flip's vblank, which completes it (first for its render, if it still
// waits for one).
func (d *Display) finishPending() {
	if p := &d.crtc.pending; p.active {
		if p.rendering != nil {
			if p.inFence != nil {
				p.inFence.Wait()
			}
			p.rendering.WaitWrites()
			d.rendered()
		}
		d.waitUntil(p.target)
	}
}

// awaitRender makes the pending flip, just committed under the real
// clock, wait for the job rendering into bo (and for the in-fence in, a
// reference the flip takes over, if not nil) in a goroutine of its own,
// the commit's work (drm_atomic_helper_commit_tail:
// drm_atomic_helper_wait_for_fences); the flip's vblank is the first
// after both (rendered).
func (d *Display) awaitRender(bo *kernel.BO, in *kernel.Fence) {
	c := &d.crtc
	c.flipGen++
	p := &c.pending
	p.rendering, p.inFence, p.gen = bo, in, c.flipGen
	go func(gen uint64) {
		if in != nil {
			in.Wait()
		}
		bo.WaitWrites()
		d.mu.Lock()
		if p := &d.crtc.pending; !d.closed && p.active && p.gen == gen && p.rendering != nil {
			d.rendered()
		}
		d.unlock()
	}(c.flipGen)
}

// rendered ends the pending flip's wait for its render: it lands at the
// next vblank from now.
func (d *Display) rendered() {
	c := &d.crtc
	p := &c.pending
	p.rendering = nil
	if p.inFence != nil {
		p.inFence.Put()
		p.inFence = nil
	}
	_, p.target = c.tl.next(d.clockNow())
	if d.timer != nil {
		d.timer.Reset(time.Duration(p.target - monotonicNow()))
	}
}

// completeDue completes the pending flip if the clock has reached its
// vblank: the hardware now shows the state's framebuffer, and the event
// goes to the file that asked (vc4_crtc_handle_page_flip,
// drm_crtc_send_vblank_event). Under RealClock it re-arms the timer when
// woken early.
func (d *Display) completeDue() {
	c := &d.crtc
	p := &c.pending
	if !p.active || p.rendering != nil {
		return
	}
	now := d.clockNow()
	if now < p.target {
		if d.timer != nil {
			d.timer.Reset(time.Duration(p.target - now))
		}
		return
	}
	at := p.target
	seq := c.tl.count(at)
	flip := *p
	*p = pendingFlip{}
	d.setScan(c.fb, seq, at, false, flip.client != nil, false)
	// The out-fence signals with the vblank's timestamp before the event
	// is queued, so that a program woken by the event finds it
	// signalled (drm_send_event_helper: dma_fence_signal_timestamp, then
	// list_add_tail on the file's event_list and the wake-up).
	if flip.fence != nil {
		flip.fence.Signal(at)
		flip.fence.Put()
	}
	if flip.client != nil {
		d.sendEvent(flip.client, flip.userData, seq, at)
	}
}

// sendEvent queues a DRM_EVENT_FLIP_COMPLETE record (struct
// drm_event_vblank) for cs. The record is built in the CRTC's buffer, so
// a flip does not allocate.
func (d *Display) sendEvent(cs *clientState, userData, seq uint64, at int64) {
	ev := &d.crtc.ev
	*ev = uapi.EventVblank{
		Base:     uapi.Event{Type: uapi.EventTypeFlipComplete, Length: uint32(unsafe.Sizeof(*ev))},
		UserData: userData,
		// The record's seconds and microseconds are 32 bits
		// (send_vblank_event: ktime_to_timespec64, tv_nsec / 1000).
		TvSec:    uint32(at / int64(time.Second)),
		TvUsec:   uint32(at % int64(time.Second) / int64(time.Microsecond)),
		Sequence: uint32(seq),
		CrtcID:   CrtcID,
	}
	// pageFlip reserved its space.
	cs.c.QueueEvent(unsafe.Slice((*byte)(unsafe.Pointer(ev)), unsafe.Sizeof(*ev)))
}

// setScan makes fb what the hardware shows from the vblank (seq, at) on,
// and records the change for OnFlip; modeset says SETCRTC made it.
func (d *Display) setScan(fb *framebuffer, seq uint64, at int64, async, event, modeset bool) {
	c := &d.crtc
	if fb != nil {
		// The hardware reads the BO until the next framebuffer is
		// latched: the old plane state is cleaned up only once its
		// successor is on screen (drm_atomic_helper_cleanup_planes after
		// the flip is done). fb is in the state, which holds a use
		// already, so this one cannot be refused.
		fb.get()
		_ = prepareFB(fb)
	}
	if c.scan != nil {
		cleanupFB(c.scan)
		d.put(c.scan)
	}
	c.scan, c.scanSeq, c.scanTime = fb, seq, at
	if d.opts.OnFlip != nil {
		f := Flip{CrtcID: CrtcID, Sequence: seq, Time: time.Duration(at), Async: async, Event: event, Modeset: modeset}
		if fb != nil {
			f.FbID = fb.id
		}
		d.notify = append(d.notify, f)
	}
}
