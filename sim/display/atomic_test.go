package display_test

import (
	"encoding/binary"
	"errors"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/internal/pollwait"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/display"
	"github.com/vccube/vccube/sim/internal/simtest"
	"github.com/vccube/vccube/sim/kernel"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// atomicRig is a file with the ATOMIC capability and the ids kmscube -A
// looks up by name (drm-atomic.c init_drm_atomic, get_plane_id).
type atomicRig struct {
	*rig
	f                    *sim.File
	plane, crtc, conn    *drm.ObjectProperties
	mode                 drm.ModeInfo
	modeBlob             uint32
	fbA, fbB             uint32
	pixA, pixB           []byte
	req                  drm.AtomicRequest
	events               *drm.EventReader
	planeID              uint32
	fbProp, outFenceProp uint32
}

func newAtomicRig(t *testing.T, opts display.Options) *atomicRig {
	return newAtomicRigOn(t, newRig(t, opts))
}

func newAtomicRigOn(t *testing.T, r *rig) *atomicRig {
	a := &atomicRig{rig: r, f: r.openNonblock()}
	f := a.f
	if err := drm.SetClientCapability(f, uapi.ClientCapAtomic, 1); err != nil {
		t.Fatal(err)
	}
	planes, err := drm.GetPlaneResources(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range planes {
		props, err := drm.GetObjectProperties(f, id, uapi.ObjectPlane)
		if err != nil {
			t.Fatal(err)
		}
		if props.Values["type"] == uapi.PlaneTypePrimary {
			a.planeID, a.plane = id, props
			break
		}
	}
	if a.plane == nil {
		t.Fatal("no primary plane among", planes)
	}
	if a.crtc, err = drm.GetObjectProperties(f, display.CrtcID, uapi.ObjectCrtc); err != nil {
		t.Fatal(err)
	}
	if a.conn, err = drm.GetObjectProperties(f, display.ConnectorID, uapi.ObjectConnector); err != nil {
		t.Fatal(err)
	}
	a.mode = modeNamed(t, f, "640x480@60")
	if a.modeBlob, err = drm.CreateModeBlob(f, &a.mode); err != nil {
		t.Fatal(err)
	}
	a.fbA, _, a.pixA = dumbFB(t, f, 640, 480)
	a.fbB, _, a.pixB = dumbFB(t, f, 640, 480)
	a.fbProp, a.outFenceProp = a.plane.IDs["FB_ID"], a.crtc.IDs["OUT_FENCE_PTR"]
	a.events = drm.NewEventReader(f)
	return a
}

// first builds kmscube's first commit: the connector's CRTC, the mode and
// ACTIVE, and the plane over the whole mode.
func (a *atomicRig) first(fb uint32) {
	a.req.Reset()
	a.req.Add(display.ConnectorID, a.conn.IDs["CRTC_ID"], display.CrtcID)
	a.req.Add(display.CrtcID, a.crtc.IDs["MODE_ID"], uint64(a.modeBlob))
	a.req.Add(display.CrtcID, a.crtc.IDs["ACTIVE"], 1)
	a.plane1(fb)
}

// plane1 adds the plane's properties of every kmscube commit.
func (a *atomicRig) plane1(fb uint32) {
	p := a.plane.IDs
	w, h := uint64(a.mode.Hdisplay), uint64(a.mode.Vdisplay)
	for _, kv := range []struct {
		name string
		v    uint64
	}{{"FB_ID", uint64(fb)}, {"CRTC_ID", display.CrtcID}, {"SRC_X", 0}, {"SRC_Y", 0}, {"SRC_W", w << 16}, {"SRC_H", h << 16},
		{"CRTC_X", 0}, {"CRTC_Y", 0}, {"CRTC_W", w}, {"CRTC_H", h}} {
		a.req.Add(a.planeID, p[kv.name], kv.v)
	}
}

// inFence starts a plane update to fb whose IN_FENCE_FD is a sync file of
// a new fence, not signalled, which it returns (the test signals and puts
// it).
func (a *atomicRig) inFence(t *testing.T, fb uint32) *kernel.Fence {
	fence := kernel.NewFence(kernel.FenceContextAlloc(), 1, "test", "test")
	in, err := kernel.NewSyncFile(kernel.LocalFiles, fence)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(int(in)) })
	a.req.Reset()
	a.plane1(fb)
	a.req.Add(a.planeID, a.plane.IDs["IN_FENCE_FD"], uint64(in))
	return fence
}

func pollIn(t testing.TB, fd int) bool {
	t.Helper()
	ok, err := pollwait.Readable(fd, 0)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// The properties a Pi 3's vc4 exposes, and who sees what: overlays only
// without UNIVERSAL_PLANES, atomic-only properties only with ATOMIC
// (drm_mode_getplane_res, drm_mode_object_get_properties).
func TestPlanesAndProperties(t *testing.T) {
	r := newRig(t, display.Options{})
	f := r.open()
	planes, err := drm.GetPlaneResources(f)
	if err != nil || len(planes) != 16 {
		t.Fatalf("planes without UNIVERSAL_PLANES: %v, %v; want the 16 overlays", planes, err)
	}
	props, err := drm.GetObjectProperties(f, display.PrimaryPlaneID, uapi.ObjectPlane)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := props.IDs["FB_ID"]; ok {
		t.Error("FB_ID listed to a file without the ATOMIC capability")
	}
	if props.Values["type"] != uapi.PlaneTypePrimary {
		t.Errorf("primary plane type %d", props.Values["type"])
	}
	var arg uapi.ModeAtomic
	simtest.WantErrno(t, "ATOMIC without the capability", simtest.Ioctl(f, uapi.IoctlModeAtomic, &arg), syscall.EINVAL)
	if err := drm.SetClientCapability(f, uapi.ClientCapAtomic, 1); err != nil {
		t.Fatal(err)
	}
	if planes, _ = drm.GetPlaneResources(f); len(planes) != 18 || planes[0] != display.PrimaryPlaneID || planes[17] != display.CursorPlaneID {
		t.Errorf("planes with ATOMIC: %v; want primary, 16 overlays, cursor", planes)
	}
	for obj, want := range map[[2]uint32][]string{
		{display.PrimaryPlaneID, uapi.ObjectPlane}: {"type", "FB_ID", "IN_FENCE_FD", "CRTC_ID", "CRTC_X", "CRTC_Y", "CRTC_W", "CRTC_H",
			"SRC_X", "SRC_Y", "SRC_W", "SRC_H", "IN_FORMATS", "alpha", "rotation", "COLOR_ENCODING", "COLOR_RANGE"},
		{display.CrtcID, uapi.ObjectCrtc}:           {"ACTIVE", "MODE_ID", "OUT_FENCE_PTR", "VRR_ENABLED", "GAMMA_LUT", "GAMMA_LUT_SIZE"},
		{display.ConnectorID, uapi.ObjectConnector}: {"EDID", "DPMS", "link-status", "non-desktop", "TILE", "CRTC_ID"},
	} {
		props, err := drm.GetObjectProperties(f, obj[0], obj[1])
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range want {
			if _, ok := props.IDs[name]; !ok {
				t.Errorf("object %d has no %q", obj[0], name)
			}
		}
		if len(props.IDs) != len(want) {
			t.Errorf("object %d has %d properties, want %d", obj[0], len(props.IDs), len(want))
		}
	}
	simtest.WantErrno(t, "properties of an encoder", errOf(drm.GetObjectProperties(f, display.EncoderID, uapi.ObjectAny)), syscall.EINVAL)
	simtest.WantErrno(t, "a CRTC asked for as a plane", errOf(drm.GetObjectProperties(f, display.CrtcID, uapi.ObjectPlane)), syscall.ENOENT)

	p, err := drm.GetPlane(f, display.PrimaryPlaneID)
	if err != nil || len(p.Formats) != 30 || p.Formats[0] != uapi.FormatXRGB8888 || p.PossibleCrtcs != 1 {
		t.Errorf("GETPLANE: %+v, %v", p, err)
	}
	// IN_FORMATS: every format, and T-tiling only for the RGB ones.
	props, _ = drm.GetObjectProperties(f, display.PrimaryPlaneID, uapi.ObjectPlane)
	blob, err := drm.GetPropertyBlob(f, uint32(props.Values["IN_FORMATS"]))
	if err != nil {
		t.Fatal(err)
	}
	var hdr uapi.FormatModifierBlob
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&hdr)), unsafe.Sizeof(hdr)), blob)
	if hdr.Version != 1 || hdr.CountFormats != 30 || hdr.CountModifiers != 5 || hdr.FormatsOffset != 24 {
		t.Fatalf("IN_FORMATS header %+v", hdr)
	}
	var tiled uapi.FormatModifier
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&tiled)), unsafe.Sizeof(tiled)), blob[hdr.ModifiersOffset:])
	if tiled.Modifier != uapi.FormatModBroadcomVC4TTiled || tiled.Formats != 0xff {
		t.Errorf("IN_FORMATS T-tiled entry %+v, want the 8 RGB formats (mask 0xff)", tiled)
	}
	rot, err := drm.GetProperty(f, props.IDs["rotation"])
	if err != nil || rot.Flags&uapi.PropBitmask == 0 || len(rot.Enums) != 4 || rot.Enums["rotate-180"] != 2 {
		t.Errorf("rotation: %+v, %v", rot, err)
	}
	fence, _ := drm.GetProperty(f, props.IDs["IN_FENCE_FD"])
	if fence.Flags != uapi.PropSignedRange|uapi.PropAtomic || int64(fence.Values[0]) != -1 || props.Values["IN_FENCE_FD"] != ^uint64(0) {
		t.Errorf("IN_FENCE_FD: %+v, value %#x", fence, props.Values["IN_FENCE_FD"])
	}

	// Blobs: only their file destroys them; GETPROPBLOB wants the exact length.
	id, err := drm.CreatePropertyBlob(f, []byte{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	g := r.open()
	simtest.WantErrno(t, "another file's blob", drm.DestroyPropertyBlob(g, id), syscall.EINVAL)
	if b, err := drm.GetPropertyBlob(g, id); err != nil || string(b) != "\x01\x02\x03" {
		t.Errorf("GETPROPBLOB: %v %v", b, err)
	}
	simtest.WantErrno(t, "DESTROYPROPBLOB", drm.DestroyPropertyBlob(f, id), 0)
	simtest.WantErrno(t, "a destroyed blob", errOf(drm.GetPropertyBlob(f, id)), syscall.ENOENT)
	simtest.WantErrno(t, "an empty blob", simtest.Ioctl(f, uapi.IoctlModeCreatePropBlob, &uapi.ModeCreateBlob{}), syscall.EINVAL)
}

func errOf[T any](_ T, err error) error { return err }

// kmscube -A's frame loop on the simulated display: a test-only commit
// changes nothing, a modeset needs ALLOW_MODESET, each commit's out-fence
// is a sync file that polls readable when its flip lands, the flip event
// carries the vblank, and the legacy ioctls see the same state.
func TestAtomicCommits(t *testing.T) {
	a := newAtomicRig(t, display.Options{})
	f := a.f
	a.first(a.fbA)
	a.req.AddOutFence(display.CrtcID, a.outFenceProp)
	simtest.WantErrno(t, "modeset without ALLOW_MODESET", a.req.Commit(f, uapi.AtomicNonblock, 0), syscall.EINVAL)
	if a.req.OutFence() != -1 {
		t.Errorf("a failed commit wrote out-fence %d, want -1", a.req.OutFence())
	}
	simtest.WantErrno(t, "TEST_ONLY with an event", a.req.Commit(f, uapi.AtomicTestOnly|uapi.AtomicAllowModeset|uapi.PageFlipEvent, 0), syscall.EINVAL)
	simtest.WantErrno(t, "TEST_ONLY", a.req.Commit(f, uapi.AtomicTestOnly|uapi.AtomicAllowModeset, 0), 0)
	if c, _ := drm.GetCrtc(f, display.CrtcID); c.ModeValid || c.FbID != 0 {
		t.Errorf("a test-only commit changed the CRTC: %+v", c)
	}
	simtest.WantErrno(t, "first commit", a.req.Commit(f, uapi.AtomicNonblock|uapi.AtomicAllowModeset, 0), 0)
	fd := a.req.OutFence()
	if fd < 0 || !pollIn(t, fd) {
		t.Fatalf("out-fence %d of the landed modeset does not poll readable", fd)
	}
	info, err := drm.SyncFileInfo(f, fd)
	if err != nil || len(info.Fences) != 1 || cString(info.Fences[0].ObjName[:]) != "CRTC:95-crtc-0" ||
		cString(info.Fences[0].DriverName[:]) != "vc4" || info.Status != 1 {
		t.Errorf("out-fence info %+v, %v", info, err)
	}
	unix.Close(fd)
	if c, _ := drm.GetCrtc(f, display.CrtcID); !c.ModeValid || c.FbID != a.fbA || c.Mode.Hdisplay != 640 {
		t.Errorf("after the modeset GETCRTC says %+v", c)
	}
	crtcProps, _ := drm.GetObjectProperties(f, display.CrtcID, uapi.ObjectCrtc)
	if crtcProps.Values["ACTIVE"] != 1 || crtcProps.Values["MODE_ID"] != uint64(a.modeBlob) {
		t.Errorf("CRTC properties after the modeset: %v", crtcProps.Values)
	}
	// The user destroys the mode blob; the state keeps it.
	simtest.WantErrno(t, "DESTROYPROPBLOB of the mode in use", drm.DestroyPropertyBlob(f, a.modeBlob), 0)
	if b, err := drm.GetPropertyBlob(f, a.modeBlob); err != nil || len(b) != int(unsafe.Sizeof(uapi.ModeModeInfo{})) {
		t.Errorf("the CRTC's mode blob after DESTROYPROPBLOB: %d bytes, %v", len(b), err)
	}

	// Frames: FB_ID, CRTC_ID, the plane's rectangle and OUT_FENCE_PTR,
	// with the flip event.
	for k := 0; k < 3; k++ {
		fb := []uint32{a.fbB, a.fbA}[k%2]
		a.req.Reset()
		a.plane1(fb)
		a.req.AddOutFence(display.CrtcID, a.outFenceProp)
		if err := a.req.Commit(f, uapi.AtomicNonblock|uapi.PageFlipEvent, uint64(100+k)); err != nil {
			t.Fatal(err)
		}
		ev, err := a.events.Next()
		if err != nil || !ev.IsFlipComplete() || ev.UserData != uint64(100+k) || ev.CrtcID != display.CrtcID {
			t.Fatalf("frame %d: event %+v, %v", k, ev, err)
		}
		fd := a.req.OutFence()
		if !pollIn(t, fd) {
			t.Errorf("frame %d: the out-fence is not signalled after the flip event", k)
		}
		info, _ := drm.SyncFileInfo(f, fd)
		if ts := info.Fences[0].TimestampNs; time.Duration(ts).Truncate(time.Microsecond) != ev.Timestamp() {
			t.Errorf("frame %d: fence timestamp %d, event's %v", k, ts, ev.Timestamp())
		}
		unix.Close(fd)
		var fr display.Frame
		if err := a.disp.ReadScanout(&fr); err != nil || fr.FbID != fb {
			t.Errorf("frame %d: scanout shows fb %d (%v), want %d", k, fr.FbID, err, fb)
		}
	}
	// The legacy flip sees the atomic state and changes it.
	if err := flip(f, a.fbB, uapi.PageFlipEvent, 7); err != nil {
		t.Fatal(err)
	}
	if _, err := a.events.Next(); err != nil {
		t.Fatal(err)
	}
	props, _ := drm.GetObjectProperties(f, a.planeID, uapi.ObjectPlane)
	if props.Values["FB_ID"] != uint64(a.fbB) || props.Values["CRTC_W"] != 640 || props.Values["SRC_H"] != 480<<16 {
		t.Errorf("plane properties after a legacy flip: %v", props.Values)
	}

	// Refusals.
	a.req.Reset()
	a.req.Add(a.planeID, a.fbProp, 9999)
	simtest.WantErrno(t, "an unknown FB_ID", a.req.Commit(f, 0, 0), syscall.EINVAL)
	a.req.Reset()
	a.req.Add(4242, a.fbProp, uint64(a.fbA))
	simtest.WantErrno(t, "an unknown object", a.req.Commit(f, 0, 0), syscall.ENOENT)
	a.req.Reset()
	a.req.Add(display.EncoderID, a.fbProp, uint64(a.fbA))
	simtest.WantErrno(t, "an object without properties", a.req.Commit(f, 0, 0), syscall.ENOENT)
	a.req.Reset()
	a.req.Add(a.planeID, a.crtc.IDs["ACTIVE"], 1)
	simtest.WantErrno(t, "a CRTC property on a plane", a.req.Commit(f, 0, 0), syscall.ENOENT)
	a.req.Reset()
	a.req.Add(a.planeID, a.plane.IDs["IN_FORMATS"], 1)
	simtest.WantErrno(t, "an immutable property", a.req.Commit(f, 0, 0), syscall.EINVAL)
	a.req.Reset()
	a.req.Add(a.planeID, a.plane.IDs["IN_FENCE_FD"], uint64(pipeEnd(t)))
	simtest.WantErrno(t, "IN_FENCE_FD of a pipe", a.req.Commit(f, 0, 0), syscall.EINVAL)
	a.req.Reset()
	a.req.Add(a.planeID, a.plane.IDs["CRTC_ID"], 0)
	simtest.WantErrno(t, "an FB without a CRTC", a.req.Commit(f, 0, 0), syscall.EINVAL)
	a.req.Reset()
	a.req.Add(display.CursorPlaneID-1, a.fbProp, uint64(a.fbA))
	a.req.Add(display.CursorPlaneID-1, a.plane.IDs["CRTC_ID"], display.CrtcID)
	simtest.WantErrno(t, "an overlay on screen", a.req.Commit(f, 0, 0), syscall.ENOSYS)
	a.req.Reset()
	a.req.Add(a.planeID, a.fbProp, uint64(a.fbA))
	simtest.WantErrno(t, "an event with no CRTC in the commit", a.req.Commit(f, uapi.PageFlipEvent|uapi.AtomicTestOnly, 0), syscall.EINVAL)
	big := modeNamed(t, f, "1920x1080@60")
	blob, _ := drm.CreateModeBlob(f, &big)
	a.req.Reset()
	a.req.Add(display.CrtcID, a.crtc.IDs["MODE_ID"], uint64(blob))
	simtest.WantErrno(t, "a mode change without ALLOW_MODESET", a.req.Commit(f, 0, 0), syscall.EINVAL)
	var bad uapi.ModeAtomic
	bad.Reserved = 1
	simtest.WantErrno(t, "reserved set", simtest.Ioctl(f, uapi.IoctlModeAtomic, &bad), syscall.EINVAL)
	bad = uapi.ModeAtomic{Flags: 0x8000}
	simtest.WantErrno(t, "an unknown flag", simtest.Ioctl(f, uapi.IoctlModeAtomic, &bad), syscall.EINVAL)

	// Turning the CRTC off: ACTIVE 0, MODE_ID 0, the connector and plane
	// detached, in one modeset.
	a.req.Reset()
	a.req.Add(display.ConnectorID, a.conn.IDs["CRTC_ID"], 0)
	a.req.Add(display.CrtcID, a.crtc.IDs["ACTIVE"], 0)
	a.req.Add(display.CrtcID, a.crtc.IDs["MODE_ID"], 0)
	a.req.Add(a.planeID, a.fbProp, 0)
	a.req.Add(a.planeID, a.plane.IDs["CRTC_ID"], 0)
	simtest.WantErrno(t, "disabling", a.req.Commit(f, uapi.AtomicAllowModeset, 0), 0)
	if err := a.disp.ReadScanout(&display.Frame{}); !errors.Is(err, display.ErrCrtcOff) {
		t.Errorf("scanout after disabling: %v", err)
	}
	if n := kernel.LiveSyncFiles(); n != 0 {
		t.Errorf("%d sync files live after every out-fence was closed", n)
	}
}

// A nonblocking commit while the last one has not landed is EBUSY; an
// in-fence holds the flip back until it signals.
func TestAtomicNonblockAndInFence(t *testing.T) {
	a := newAtomicRig(t, display.Options{Clock: display.SteppedClock})
	f := a.f
	a.first(a.fbA)
	if err := a.req.Commit(f, uapi.AtomicAllowModeset, 0); err != nil {
		t.Fatal(err)
	}
	a.req.Reset()
	a.plane1(a.fbB)
	a.req.AddOutFence(display.CrtcID, a.outFenceProp)
	if err := a.req.Commit(f, uapi.AtomicNonblock|uapi.PageFlipEvent, 1); err != nil {
		t.Fatal(err)
	}
	fd := a.req.OutFence()
	defer unix.Close(fd)
	if pollIn(t, fd) {
		t.Error("the out-fence signalled before its vblank")
	}
	simtest.WantErrno(t, "a second nonblocking commit", a.req.Commit(f, uapi.AtomicNonblock, 2), syscall.EBUSY)
	if _, err := a.disp.AdvanceToVblank(); err != nil {
		t.Fatal(err)
	}
	if !pollIn(t, fd) {
		t.Error("the out-fence did not signal at the vblank")
	}

	// An in-fence that signals later: the commit waits for it.
	fence := a.inFence(t, a.fbA)
	done := make(chan error, 1)
	go func() { done <- a.req.Commit(f, uapi.AtomicNonblock, 3) }()
	simtest.Reached(t, "the commit with an in-fence not signalled", func() bool { return fence.Waiting() > 0 }, done)
	fence.Signal(1)
	fence.Put()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestAtomicFlipDoesNotAllocate: kmscube's per-frame commit with an
// out-fence, its event and closing the fence allocate nothing.
func TestAtomicFlipDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	a := newAtomicRig(t, display.Options{})
	f := a.f
	a.first(a.fbA)
	if err := a.req.Commit(f, uapi.AtomicAllowModeset, 0); err != nil {
		t.Fatal(err)
	}
	k := 0
	step := func() {
		a.req.Reset()
		a.plane1([]uint32{a.fbB, a.fbA}[k%2])
		k++
		a.req.AddOutFence(display.CrtcID, a.outFenceProp)
		if err := a.req.Commit(f, uapi.AtomicNonblock|uapi.PageFlipEvent, 0); err != nil {
			t.Fatal(err)
		}
		if _, err := a.events.Next(); err != nil {
			t.Fatal(err)
		}
		unix.Close(a.req.OutFence())
	}
	for i := 0; i < 10; i++ {
		step()
	}
	if n := testing.AllocsPerRun(100, step); n != 0 {
		t.Fatalf("an atomic flip with an out-fence allocates %.1f times", n)
	}
}

func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

func pipeEnd(t *testing.T) int {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(p[0]); unix.Close(p[1]) })
	return p[0]
}

var _ = binary.NativeEndian

// Under the real clock a nonblocking commit returns at once even with an
// in-fence that has not signalled, as the kernel's does
// (drm_atomic_nonblocking_commit): the commit's work waits for the fence
// (drm_atomic_helper_wait_for_fences), and the flip, its event and its
// out-fence come at a vblank after it signals.
func TestAtomicNonblockInFenceUnderRealClock(t *testing.T) {
	a := newAtomicRig(t, display.Options{Clock: display.RealClock})
	f := a.f
	a.first(a.fbA)
	if err := a.req.Commit(f, uapi.AtomicAllowModeset, 0); err != nil {
		t.Fatal(err)
	}
	fence := a.inFence(t, a.fbB)
	a.req.AddOutFence(display.CrtcID, a.outFenceProp)
	done := make(chan error, 1)
	go func() { done <- a.req.Commit(f, uapi.AtomicNonblock|uapi.PageFlipEvent, 9) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		fence.Signal(1)
		t.Fatal("the nonblocking commit waited for its in-fence in the ioctl")
	}
	out := a.req.OutFence()
	defer unix.Close(out)
	simtest.WantErrno(t, "a second nonblocking commit while the first waits for its in-fence", a.req.Commit(f, uapi.AtomicNonblock, 2), syscall.EBUSY)
	if pollIn(t, out) || pollIn(t, int(f.Fd())) {
		t.Error("the flip completed before its in-fence signalled")
	}

	fence.Signal(1)
	fence.Put()
	if ok, err := pollwait.Readable(out, 20*time.Second); !ok || err != nil {
		t.Fatalf("the out-fence did not signal after the in-fence did: %v %v", ok, err)
	}
	if ok, err := pollwait.Readable(int(f.Fd()), 20*time.Second); !ok || err != nil {
		t.Fatalf("no flip event after the in-fence signalled: %v %v", ok, err)
	}
	if ev, err := a.events.Next(); err != nil || ev.UserData != 9 {
		t.Errorf("the flip's event: %+v %v", ev, err)
	}
}

// eventWatch is the display as the device sees it, each file wrapped so
// that onEvent runs when the display queues an event for it, before the
// event is readable.
type eventWatch struct {
	*display.Display
	onEvent func()
	mu      sync.Mutex
	files   map[uint64]*watchedFile
}

type watchedFile struct {
	sim.Client
	w *eventWatch
}

func (f *watchedFile) QueueEvent(ev []byte) {
	f.w.onEvent()
	f.Client.QueueEvent(ev)
}

// wrap returns the one wrapper of c (the display keeps the Client it saw
// first).
func (w *eventWatch) wrap(c sim.Client) sim.Client {
	w.mu.Lock()
	defer w.mu.Unlock()
	f := w.files[c.ID()]
	if f == nil {
		f = &watchedFile{Client: c, w: w}
		w.files[c.ID()] = f
	}
	return f
}

func (w *eventWatch) Ioctl(c sim.Client, req uapi.Request, arg unsafe.Pointer) error {
	return w.Display.Ioctl(w.wrap(c), req, arg)
}

func (w *eventWatch) SetClientCap(c sim.Client, capability, value uint64) error {
	return w.Display.SetClientCap(w.wrap(c), capability, value)
}

func (w *eventWatch) Release(c sim.Client) { w.Display.Release(w.wrap(c)) }

// Under the real clock, a flip's out-fence has signalled by the time its
// event is queued, as the kernel orders them (drm_send_event_helper
// signals the event's fence, then adds the event to the file's
// event_list and wakes its readers): a program woken by the flip event
// finds the out-fence signalled. The check runs at the moment the event
// is queued, on the display's timer, so it does not depend on how soon
// the reader runs.
func TestOutFenceSignalsBeforeFlipEvent(t *testing.T) {
	w := &eventWatch{Display: display.New(display.Options{Clock: display.RealClock}), files: map[uint64]*watchedFile{}}
	var a *atomicRig
	var events, late int
	w.onEvent = func() {
		// Called with the display's lock held, as is the commit that
		// wrote the out-fence's descriptor: reading it here is ordered
		// after that write.
		events++
		fd := a.req.OutFence()
		if ok, err := pollwait.Readable(fd, 0); fd < 0 || !ok || err != nil {
			late++
		}
	}
	a = newAtomicRigOn(t, newRigOn(t, w.Display, w))
	f := a.f
	a.first(a.fbA)
	if err := a.req.Commit(f, uapi.AtomicAllowModeset, 0); err != nil {
		t.Fatal(err)
	}
	const flips = 5
	for k := 0; k < flips; k++ {
		a.req.Reset()
		a.plane1([]uint32{a.fbB, a.fbA}[k%2])
		a.req.AddOutFence(display.CrtcID, a.outFenceProp)
		if err := a.req.Commit(f, uapi.AtomicNonblock|uapi.PageFlipEvent, uint64(k)); err != nil {
			t.Fatal(err)
		}
		if ok, err := pollwait.Readable(int(f.Fd()), 20*time.Second); !ok || err != nil {
			t.Fatalf("flip %d: no event: %v %v", k, ok, err)
		}
		if _, err := a.events.Next(); err != nil {
			t.Fatal(err)
		}
		fd := a.req.OutFence()
		if !pollIn(t, fd) {
			t.Errorf("flip %d: the out-fence has not signalled after its event was read", k)
		}
		unix.Close(fd)
	}
	if events != flips || late != 0 {
		t.Errorf("%d of %d flip events were queued before their out-fence signalled (%d events)", late, flips, events)
	}
}
