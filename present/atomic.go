package present

import (
	"fmt"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// Atomic presentation (kmscube -A's way, drm-atomic.c): the same frames
// and rules as the legacy path, but the mode set and each flip are atomic
// commits of the CRTC's primary plane, with properties looked up by name.
// NewSwapchain first makes a test-only commit of the mode set; the first
// Present commits it (ALLOW_MODESET, blocking); every later one commits
// the plane's new framebuffer without blocking, with a flip event and the
// CRTC's out-fence (OUT_FENCE_PTR), a sync file the swapchain checks is
// signalled when the event arrives. Restore puts the CRTC back exactly as
// the legacy path does (SETCRTC, which an atomic driver implements as a
// commit too: drm_atomic_helper_set_config) and then gives up the mode's
// property blob.

// atomicKMS is what the atomic commits need: the plane and the
// properties by name, the mode's blob, the request (reused: a frame's
// commit allocates nothing) and the pending commit's out-fence.
type atomicKMS struct {
	plane                        uint32
	planeProps, crtcProps, conns map[string]uint32
	modeBlob                     uint32
	req                          drm.AtomicRequest
	fence                        int // the pending commit's out-fence, -1 when none
}

// EnableAtomic switches the display to atomic commits: it sets the ATOMIC
// client capability (which also lists the primary plane), finds the
// CRTC's primary plane by its "type" property, the properties of the
// plane, the CRTC and the connector by name, and stores the mode in a
// property blob. Call it after Open and before NewSwapchain. A driver
// without atomic modesetting refuses the capability (EOPNOTSUPP or
// EINVAL): the error says so.
func (d *Display) EnableAtomic() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.atomic != nil {
		return nil
	}
	if err := drm.SetClientCapability(d.conn, uapi.ClientCapAtomic, 1); err != nil {
		return fmt.Errorf("present: the display driver has no atomic modesetting (DRM_CLIENT_CAP_ATOMIC refused); run without -atomic: %w", err)
	}
	planes, err := drm.GetPlaneResources(d.conn)
	if err != nil {
		return fmt.Errorf("present: listing the planes: %w", err)
	}
	a := &atomicKMS{fence: -1}
	for _, id := range planes {
		p, err := drm.GetPlane(d.conn, id)
		if err != nil {
			return fmt.Errorf("present: %w", err)
		}
		if d.crtcIndex >= 32 || p.PossibleCrtcs&(1<<d.crtcIndex) == 0 {
			continue
		}
		props, err := drm.GetObjectProperties(d.conn, id, uapi.ObjectPlane)
		if err != nil {
			return fmt.Errorf("present: %w", err)
		}
		if props.Values["type"] == uapi.PlaneTypePrimary {
			a.plane, a.planeProps = id, props.IDs
			break
		}
	}
	if a.plane == 0 {
		return fmt.Errorf("present: CRTC %d has no primary plane among the planes %v", d.crtc, planes)
	}
	crtc, err := drm.GetObjectProperties(d.conn, d.crtc, uapi.ObjectCrtc)
	if err != nil {
		return fmt.Errorf("present: %w", err)
	}
	conn, err := drm.GetObjectProperties(d.conn, d.connector.ID, uapi.ObjectConnector)
	if err != nil {
		return fmt.Errorf("present: %w", err)
	}
	a.crtcProps, a.conns = crtc.IDs, conn.IDs
	for _, need := range []struct {
		what  string
		props map[string]uint32
		names []string
	}{
		{"plane", a.planeProps, []string{"FB_ID", "CRTC_ID", "SRC_X", "SRC_Y", "SRC_W", "SRC_H", "CRTC_X", "CRTC_Y", "CRTC_W", "CRTC_H"}},
		{"CRTC", a.crtcProps, []string{"MODE_ID", "ACTIVE", "OUT_FENCE_PTR"}},
		{"connector", a.conns, []string{"CRTC_ID"}},
	} {
		for _, n := range need.names {
			if need.props[n] == 0 {
				return fmt.Errorf("present: the %s has no %q property, which atomic presentation needs; run without -atomic", need.what, n)
			}
		}
	}
	if a.modeBlob, err = drm.CreateModeBlob(d.conn, &d.mode); err != nil {
		return fmt.Errorf("present: storing the mode for the atomic commit: %w", err)
	}
	d.atomic = a
	return nil
}

// Atomic reports whether the display presents with atomic commits.
func (d *Display) Atomic() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.atomic != nil
}

// addPlane adds the primary plane showing fb over the whole mode.
func (d *Display) addPlane(fb uint32) {
	a := &d.atomic.req
	p := d.atomic.planeProps
	w, h := uint64(d.mode.Hdisplay), uint64(d.mode.Vdisplay)
	pl := d.atomic.plane
	a.Add(pl, p["FB_ID"], uint64(fb))
	a.Add(pl, p["CRTC_ID"], uint64(d.crtc))
	a.Add(pl, p["SRC_X"], 0)
	a.Add(pl, p["SRC_Y"], 0)
	a.Add(pl, p["SRC_W"], w<<16)
	a.Add(pl, p["SRC_H"], h<<16)
	a.Add(pl, p["CRTC_X"], 0)
	a.Add(pl, p["CRTC_Y"], 0)
	a.Add(pl, p["CRTC_W"], w)
	a.Add(pl, p["CRTC_H"], h)
}

// modesetRequest builds the mode set showing fb: the connector's CRTC,
// the mode, ACTIVE, and the plane.
func (d *Display) modesetRequest(fb uint32) {
	a := d.atomic
	a.req.Reset()
	a.req.Add(d.connector.ID, a.conns["CRTC_ID"], uint64(d.crtc))
	a.req.Add(d.crtc, a.crtcProps["MODE_ID"], uint64(a.modeBlob))
	a.req.Add(d.crtc, a.crtcProps["ACTIVE"], 1)
	d.addPlane(fb)
}

// testModeset is the test-only commit of the mode set showing fb: the
// driver checks it and changes nothing.
func (d *Display) testModeset(fb uint32) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.atomic == nil {
		return nil
	}
	d.modesetRequest(fb)
	if err := d.atomic.req.Commit(d.conn, uapi.AtomicTestOnly|uapi.AtomicAllowModeset, 0); err != nil {
		return fmt.Errorf("present: the display driver refuses the atomic mode set of %s (a test-only commit): %w", d, err)
	}
	return nil
}

// atomicModeset commits the mode set showing fb, blocking until it is on
// screen; its out-fence is closed at once (it has signalled).
func (d *Display) atomicModeset(fb uint32) error {
	a := d.atomic
	d.modesetRequest(fb)
	a.req.AddOutFence(d.crtc, a.crtcProps["OUT_FENCE_PTR"])
	if err := a.req.Commit(d.conn, uapi.AtomicAllowModeset, 0); err != nil {
		return err
	}
	if fd := a.req.OutFence(); fd >= 0 {
		unix.Close(fd)
	}
	return nil
}

// atomicFlip commits the plane's new framebuffer without blocking, with
// a flip event carrying userData and the CRTC's out-fence, kept until the
// event arrives (takeOutFence).
func (d *Display) atomicFlip(fb uint32, userData uint64) error {
	a := d.atomic
	a.req.Reset()
	d.addPlane(fb)
	a.req.AddOutFence(d.crtc, a.crtcProps["OUT_FENCE_PTR"])
	if err := a.req.Commit(d.conn, uapi.AtomicNonblock|uapi.PageFlipEvent, userData); err != nil {
		return err
	}
	a.fence = a.req.OutFence()
	return nil
}

// takeOutFence hands over the pending commit's out-fence (-1 when none).
func (d *Display) takeOutFence() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.atomic == nil {
		return -1
	}
	fd := d.atomic.fence
	d.atomic.fence = -1
	return fd
}

// releaseAtomic gives up the mode's blob and a pending out-fence (after
// the CRTC was put back).
func (d *Display) releaseAtomic() error {
	a := d.atomic
	if a == nil {
		return nil
	}
	if a.fence >= 0 {
		unix.Close(a.fence)
		a.fence = -1
	}
	if a.modeBlob == 0 {
		return nil
	}
	err := drm.DestroyPropertyBlob(d.conn, a.modeBlob)
	a.modeBlob = 0
	if err != nil {
		return fmt.Errorf("present: giving up the mode's property blob: %w", err)
	}
	return nil
}

// signalled reports whether sync file fd polls readable now.
func signalled(fd int, pfd *[1]unix.PollFd) bool {
	pfd[0] = unix.PollFd{Fd: int32(fd), Events: unix.POLLIN}
	for {
		n, err := unix.Poll(pfd[:], 0)
		if err == unix.EINTR {
			continue
		}
		return err == nil && n == 1 && pfd[0].Revents&unix.POLLIN != 0
	}
}
