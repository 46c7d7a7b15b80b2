package display_test

import (
	"syscall"
	"testing"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/gem"
	"github.com/vccube/vccube/sim/display"
	"github.com/vccube/vccube/sim/internal/simtest"
	"github.com/vccube/vccube/uapi"
)

// A flip that asks for an event takes the event's 32 bytes of the file's
// 4 KiB event space at PAGE_FLIP (drm_mode_page_flip_ioctl:
// drm_event_reserve_init, ENOMEM when full), and gives them back when the
// flip then fails (drm_event_cancel_free). 4096 / 32 = 128 events fit,
// counting the unread ones and the reserved one of a pending flip.
func TestEventSpaceIsReservedAtPageFlip(t *testing.T) {
	r := newRig(t, display.Options{Clock: display.SteppedClock})
	f := r.openNonblock()
	a, _, _ := dumbFB(t, f, 800, 600)
	b, _, _ := dumbFB(t, f, 800, 600)
	setCrtc(t, f, a, modeNamed(t, f, "800x600@60"))
	fbs := [2]uint32{b, a}
	for i := 0; i < 126; i++ { // 126 events queued, none read
		simtest.WantErrno(t, "flip", flip(f, fbs[i%2], uapi.PageFlipEvent, uint64(i)), 0)
		if _, err := r.disp.AdvanceToVblank(); err != nil {
			t.Fatal(err)
		}
	}
	simtest.WantErrno(t, "flip 127, left pending", flip(f, fbs[0], uapi.PageFlipEvent, 126), 0)
	// Reserves the 128th slot, then fails: the slot comes back, so the
	// same flip fails the same way again instead of with ENOMEM.
	simtest.WantErrno(t, "flip during a pending one", flip(f, fbs[1], uapi.PageFlipEvent, 0), syscall.EBUSY)
	simtest.WantErrno(t, "flip during a pending one, again", flip(f, fbs[1], uapi.PageFlipEvent, 0), syscall.EBUSY)
	if _, err := r.disp.AdvanceToVblank(); err != nil {
		t.Fatal(err)
	}
	simtest.WantErrno(t, "flip 128", flip(f, fbs[1], uapi.PageFlipEvent, 127), 0)
	if _, err := r.disp.AdvanceToVblank(); err != nil {
		t.Fatal(err)
	}
	simtest.WantErrno(t, "flip 129 with 128 events unread", flip(f, fbs[0], uapi.PageFlipEvent, 128), syscall.ENOMEM)
	// Refused before the commit: the state keeps its framebuffer.
	if c, _ := drm.GetCrtc(f, display.CrtcID); c.FbID != fbs[1] {
		t.Fatalf("GETCRTC fb %d after the refused flip, want %d", c.FbID, fbs[1])
	}
	// A flip without an event needs no space.
	simtest.WantErrno(t, "flip without an event", flip(f, fbs[0], 0, 0), 0)
	if _, err := r.disp.AdvanceToVblank(); err != nil {
		t.Fatal(err)
	}
	// Reading one event makes room for one.
	var buf [32]byte
	if n, err := f.Read(buf[:]); n != 32 || err != nil {
		t.Fatalf("read: %d, %v", n, err)
	}
	if ev, _, err := drm.ParseEvent(buf[:]); err != nil || ev.UserData != 0 {
		t.Fatalf("first event %+v, %v", ev, err)
	}
	simtest.WantErrno(t, "flip after reading an event", flip(f, fbs[1], uapi.PageFlipEvent, 129), 0)
}

// A framebuffer in the primary plane's state marks its BO in use
// (vc4_plane.c vc4_prepare_fb: vc4_bo_inc_usecnt), so a BO marked
// DONTNEED is not purged while it is shown, and a BO marked DONTNEED
// cannot be put on screen (EINVAL from the commit). Once the plane has
// moved on (vc4_cleanup_fb), the BO is purgeable again.
func TestShownBOIsInUse(t *testing.T) {
	r := newRig(t, display.Options{})
	f := r.openNonblock()
	type buf struct{ fb, handle uint32 }
	mk := func() buf {
		db, err := drm.CreateDumb(f, 800, 600, 32)
		if err != nil {
			t.Fatal(err)
		}
		fb, err := drm.AddFramebuffer(f, 800, 600, uapi.FormatXRGB8888, db.Handle, db.Pitch, uapi.FormatModLinear)
		if err != nil {
			t.Fatal(err)
		}
		return buf{fb, db.Handle}
	}
	a, b := mk(), mk()
	madvise := func(h, madv uint32) bool {
		t.Helper()
		retained, err := gem.Madvise(f, h, madv)
		if err != nil {
			t.Fatal(err)
		}
		return retained
	}
	// Asking for the whole pool purges every purgeable BO and fails.
	pressure := func() {
		t.Helper()
		_, err := gem.AllocBO(f, r.dev.Pool().Size())
		simtest.WantErrno(t, "CREATE_BO of the whole pool", err, syscall.ENOMEM)
	}
	mode := modeNamed(t, f, "800x600@60")
	setCrtc(t, f, a.fb, mode)

	madvise(a.handle, uapi.MadvDontNeed) // allowed: the BO is in use
	pressure()
	if !madvise(a.handle, uapi.MadvDontNeed) {
		t.Fatal("the BO on screen was purged")
	}

	madvise(b.handle, uapi.MadvDontNeed)
	simtest.WantErrno(t, "flip to a DONTNEED BO", flip(f, b.fb, uapi.PageFlipEvent, 0), syscall.EINVAL)
	simtest.WantErrno(t, "async flip to a DONTNEED BO", flip(f, b.fb, uapi.PageFlipAsync, 0), syscall.EINVAL)
	m := mode
	simtest.WantErrno(t, "SETCRTC of a DONTNEED BO",
		drm.SetCrtc(f, display.CrtcID, b.fb, 0, 0, []uint32{display.ConnectorID}, &m), syscall.EINVAL)
	if c, _ := drm.GetCrtc(f, display.CrtcID); c.FbID != a.fb {
		t.Fatalf("GETCRTC fb %d after the refused commits, want %d", c.FbID, a.fb)
	}
	// Nothing was reserved for good by the refused flip with an event.
	var ev [32]byte
	if n, _ := f.Read(ev[:]); n != 0 {
		t.Fatalf("an event (%d bytes) from a refused flip", n)
	}

	madvise(b.handle, uapi.MadvWillNeed)
	simtest.WantErrno(t, "flip to b", flip(f, b.fb, 0, 0), 0) // completes at once under VirtualClock
	pressure()
	if madvise(a.handle, uapi.MadvWillNeed) {
		t.Fatal("the DONTNEED BO survived memory pressure once off screen")
	}
	if !madvise(b.handle, uapi.MadvWillNeed) {
		t.Fatal("the BO on screen was purged")
	}
	var fr display.Frame
	if err := r.disp.ReadScanout(&fr); err != nil || fr.FbID != b.fb {
		t.Fatalf("scanout fb %d (%v), want %d", fr.FbID, err, b.fb)
	}
}
