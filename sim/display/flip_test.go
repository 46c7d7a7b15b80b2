package display_test

import (
	"encoding/binary"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/internal/pollwait"
	"github.com/vccube/vccube/internal/simrig"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/display"
	"github.com/vccube/vccube/sim/internal/simtest"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// openNonblock opens the primary node non-blocking (O_NONBLOCK), so that
// a missing event is EAGAIN instead of a hang.
func (r *rig) openNonblock() *sim.File {
	r.t.Helper()
	f, err := r.dev.OpenWith(sim.OpenOptions{Nonblock: true})
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { f.Close() })
	return f
}

// readable polls the file's Fd without waiting.
func readable(t testing.TB, c uapi.Conn, wait time.Duration) bool {
	t.Helper()
	ok, err := pollwait.Readable(int(c.Fd()), wait)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

func TestNFlipsTakeNVblanks(t *testing.T) {
	r := newRig(t, display.Options{})
	f := r.openNonblock()
	a, _, _ := dumbFB(t, f, 1920, 1080)
	b, _, _ := dumbFB(t, f, 1920, 1080)
	// SETCRTC starts the mode's vblanks at t = 0 and returns once the
	// picture is up, at the first vblank (a blocking commit).
	setCrtc(t, f, a, modeNamed(t, f, "1920x1080@60"))
	if now := r.disp.Now(); now != time.Duration(vblankNS(1)) {
		t.Fatalf("SETCRTC returned at %v, want the first vblank %v", now, time.Duration(vblankNS(1)))
	}
	events := drm.NewEventReader(f)
	const n = 100
	fbs := []uint32{b, a}
	for i := 0; i < n; i++ {
		userData := 0xc0ffee0000 + uint64(i)
		if err := flip(f, fbs[i%2], uapi.PageFlipEvent, userData); err != nil {
			t.Fatalf("flip %d: %v", i, err)
		}
		ev, err := events.Next()
		if err != nil {
			t.Fatalf("flip %d: no event: %v", i, err)
		}
		k := int64(2 + i) // the vblank after the previous one
		if !ev.IsFlipComplete() || ev.Base.Length != 32 || ev.UserData != userData || ev.Sequence != uint32(k) ||
			ev.CrtcID != display.CrtcID || ev.Timestamp() != time.Duration(vblankNS(k)/1000*1000) {
			t.Fatalf("flip %d: event %+v, want sequence %d at %v with user data %#x", i, ev, k, time.Duration(vblankNS(k)), userData)
		}
	}
	// N flips took exactly N refresh periods of virtual time.
	if now := r.disp.Now(); now != time.Duration(vblankNS(1+n)) {
		t.Fatalf("after %d flips the clock is %v, want %v", n, now, time.Duration(vblankNS(1+n)))
	}
	if got := r.disp.VblankCount(); got != 1+n {
		t.Fatalf("vblank counter %d, want %d", got, 1+n)
	}
	var fr display.Frame
	if err := r.disp.ReadScanout(&fr); err != nil || fr.FbID != fbs[(n-1)%2] || fr.Sequence != 1+n {
		t.Fatalf("scanout fb %d at sequence %d (%v), want fb %d at %d", fr.FbID, fr.Sequence, err, fbs[(n-1)%2], 1+n)
	}
}

func TestPendingFlipIsEBUSY(t *testing.T) {
	r := newRig(t, display.Options{Clock: display.SteppedClock})
	f := r.openNonblock()
	a, _, _ := dumbFB(t, f, 1280, 720)
	b, _, _ := dumbFB(t, f, 1280, 720)
	setCrtc(t, f, a, modeNamed(t, f, "1280x720@60")) // 74.25 MHz / 1650x750: 60 Hz
	events := drm.NewEventReader(f)

	simtest.WantErrno(t, "flip", flip(f, b, uapi.PageFlipEvent, 7), 0)
	if readable(t, f, 0) {
		t.Fatal("the Fd is readable before the flip's vblank")
	}
	_, err := events.Next()
	simtest.WantErrno(t, "event before the vblank", err, syscall.EAGAIN)
	// The state has the new framebuffer at once; the screen, not yet.
	if c, _ := drm.GetCrtc(f, display.CrtcID); c.FbID != b {
		t.Fatalf("GETCRTC fb %d during the flip, want the new %d", c.FbID, b)
	}
	var fr display.Frame
	if r.disp.ReadScanout(&fr); fr.FbID != a {
		t.Fatalf("scanned-out fb %d during the flip, want the old %d", fr.FbID, a)
	}
	simtest.WantErrno(t, "second flip", flip(f, a, uapi.PageFlipEvent, 8), syscall.EBUSY)
	simtest.WantErrno(t, "second flip without event", flip(f, a, 0, 0), syscall.EBUSY)

	// Half a frame later it is still pending.
	if err := r.disp.Advance(8 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	simtest.WantErrno(t, "flip half a frame later", flip(f, a, uapi.PageFlipEvent, 8), syscall.EBUSY)
	seq, err := r.disp.AdvanceToVblank()
	if err != nil || seq != 2 {
		t.Fatalf("AdvanceToVblank: %d, %v; want vblank 2", seq, err)
	}
	if !readable(t, f, 0) {
		t.Fatal("the Fd is not readable after the flip's vblank")
	}
	ev, err := events.Next()
	if err != nil || ev.UserData != 7 || ev.Sequence != 2 || ev.Timestamp() != time.Duration(vblankNS(2)/1000*1000) {
		t.Fatalf("event %+v, %v", ev, err)
	}
	if readable(t, f, 0) {
		t.Fatal("the Fd stays readable with no event left")
	}
	if r.disp.ReadScanout(&fr); fr.FbID != b || fr.Sequence != 2 || fr.Time != time.Duration(vblankNS(2)) {
		t.Fatalf("scanout %d at %d/%v after the vblank", fr.FbID, fr.Sequence, fr.Time)
	}

	// Without DRM_MODE_PAGE_FLIP_EVENT the flip happens but sends nothing.
	simtest.WantErrno(t, "flip without event", flip(f, a, 0, 99), 0)
	if _, err := r.disp.AdvanceToVblank(); err != nil {
		t.Fatal(err)
	}
	_, err = events.Next()
	simtest.WantErrno(t, "event of a flip without the flag", err, syscall.EAGAIN)
	if r.disp.ReadScanout(&fr); fr.FbID != a || fr.Sequence != 3 {
		t.Fatalf("scanout %d at %d after the event-less flip", fr.FbID, fr.Sequence)
	}

	// SETCRTC waits for a pending flip (a blocking commit stalls), whose
	// event arrives, then lands at the next vblank.
	simtest.WantErrno(t, "flip", flip(f, b, uapi.PageFlipEvent, 10), 0)
	setCrtc(t, f, b, modeNamed(t, f, "1280x720@60"))
	ev, err = events.Next()
	if err != nil || ev.UserData != 10 || ev.Sequence != 4 {
		t.Fatalf("event of the flip SETCRTC waited for: %+v, %v", ev, err)
	}
	if now := r.disp.Now(); now != time.Duration(vblankNS(5)) {
		t.Fatalf("SETCRTC returned at %v, want vblank 5 at %v", now, time.Duration(vblankNS(5)))
	}
	// A mode change restarts the vblanks from the SETCRTC, counting on.
	setCrtc(t, f, b, modeNamed(t, f, "1280x720@50"))
	if now, want := r.disp.Now(), time.Duration(vblankNS(5)+20_000_000); now != want {
		t.Fatalf("modeset to 50 Hz returned at %v, want one 20 ms frame later, %v", now, want)
	}
	if got := r.disp.VblankCount(); got != 6 {
		t.Fatalf("vblank counter %d after the modeset, want 6", got)
	}
}

func TestPageFlipErrors(t *testing.T) {
	r := newRig(t, display.Options{})
	f := r.openNonblock()
	a, _, _ := dumbFB(t, f, 1920, 1080)
	b, _, _ := dumbFB(t, f, 1920, 1080)
	small, _, _ := dumbFB(t, f, 800, 600)
	h := simrig.AllocBO(t, f, 1920*1080*4)
	argb, err := drm.AddFramebuffer(f, 1920, 1080, uapi.FormatARGB8888, h, 1920*4, uapi.FormatModLinear)
	if err != nil {
		t.Fatal(err)
	}
	simtest.WantErrno(t, "flip with the CRTC off", flip(f, b, uapi.PageFlipEvent, 0), syscall.EBUSY)
	mode := modeNamed(t, f, "1920x1080@60")
	setCrtc(t, f, a, mode)
	for _, tc := range []struct {
		name string
		arg  uapi.ModeCrtcPageFlip
		want syscall.Errno
	}{
		{"unknown flag", uapi.ModeCrtcPageFlip{CrtcID: display.CrtcID, FbID: b, Flags: 0x10}, syscall.EINVAL},
		{"a sequence without a target flag", uapi.ModeCrtcPageFlip{CrtcID: display.CrtcID, FbID: b, Reserved: 5}, syscall.EINVAL},
		{"both target flags", uapi.ModeCrtcPageFlip{CrtcID: display.CrtcID, FbID: b,
			Flags: uapi.PageFlipTargetAbsolute | uapi.PageFlipTargetRelative}, syscall.EINVAL},
		{"a relative target (no page_flip_target)", uapi.ModeCrtcPageFlip{CrtcID: display.CrtcID, FbID: b,
			Flags: uapi.PageFlipTargetRelative, Reserved: 1}, syscall.EINVAL},
		{"unknown CRTC", uapi.ModeCrtcPageFlip{CrtcID: display.EncoderID, FbID: b}, syscall.ENOENT},
		{"unknown fb", uapi.ModeCrtcPageFlip{CrtcID: display.CrtcID, FbID: 7777}, syscall.ENOENT},
		{"fb smaller than the mode", uapi.ModeCrtcPageFlip{CrtcID: display.CrtcID, FbID: small}, syscall.ENOSPC},
		{"another format", uapi.ModeCrtcPageFlip{CrtcID: display.CrtcID, FbID: argb}, syscall.EINVAL},
		{"good", uapi.ModeCrtcPageFlip{CrtcID: display.CrtcID, FbID: b, Flags: uapi.PageFlipEvent}, 0},
	} {
		arg := tc.arg
		simtest.WantErrno(t, tc.name, drm.PageFlip(f, &arg), tc.want)
	}
	simtest.WantErrno(t, "SETCRTC off", drm.SetCrtc(f, display.CrtcID, 0, 0, 0, nil, nil), 0)
	simtest.WantErrno(t, "flip after turning the CRTC off", flip(f, b, uapi.PageFlipEvent, 0), syscall.EBUSY)
}

func TestAsyncFlip(t *testing.T) {
	var mu sync.Mutex
	var flips []display.Flip
	r := newRig(t, display.Options{Clock: display.SteppedClock, OnFlip: func(f display.Flip) {
		mu.Lock()
		flips = append(flips, f)
		mu.Unlock()
	}})
	f := r.openNonblock()
	a, _, _ := dumbFB(t, f, 1920, 1080)
	b, _, _ := dumbFB(t, f, 1920, 1080)
	setCrtc(t, f, a, modeNamed(t, f, "1920x1080@60"))
	if err := r.disp.Advance(5 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	// vc4_async_page_flip: shown at once, with the last vblank's count and
	// time in the event (drm_crtc_send_vblank_event).
	simtest.WantErrno(t, "async flip", flip(f, b, uapi.PageFlipAsync|uapi.PageFlipEvent, 42), 0)
	ev, err := drm.NewEventReader(f).Next()
	if err != nil || ev.UserData != 42 || ev.Sequence != 1 || ev.Timestamp() != time.Duration(vblankNS(1)/1000*1000) {
		t.Fatalf("async flip event %+v, %v", ev, err)
	}
	var fr display.Frame
	if r.disp.ReadScanout(&fr); fr.FbID != b {
		t.Fatalf("scanout %d right after an async flip, want %d", fr.FbID, b)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(flips) != 2 || flips[0].FbID != a || flips[0].Async || flips[1].FbID != b || !flips[1].Async || !flips[1].Event {
		t.Fatalf("OnFlip calls %+v", flips)
	}
}

func TestEventRecordBytes(t *testing.T) {
	start := 1234*time.Second + 567891*time.Microsecond
	r := newRig(t, display.Options{Start: start})
	f := r.openNonblock()
	a, _, _ := dumbFB(t, f, 1920, 1080)
	setCrtc(t, f, a, modeNamed(t, f, "1920x1080@60"))
	simtest.WantErrno(t, "flip", flip(f, a, uapi.PageFlipEvent, 0x1122334455667788), 0)

	// drm_read returns whole events only: a buffer too small for the first
	// one gets nothing (0 bytes) and the event stays queued.
	small := make([]byte, 16)
	if n, err := f.Read(small); n != 0 || err != nil {
		t.Fatalf("read of 16 bytes: %d, %v; want 0, nil (drm_read puts the event back)", n, err)
	}
	buf := make([]byte, 100)
	n, err := f.Read(buf)
	if err != nil || n != 32 {
		t.Fatalf("read: %d, %v", n, err)
	}
	// struct drm_event_vblank, by hand: the flip completes at the second
	// vblank after the SETCRTC, 2/60 s = 33 333 333 ns after the start:
	// 1234.567891 s + 0.033333333 s = 1234 s 601224 µs.
	le := binary.LittleEndian
	got := []uint64{uint64(le.Uint32(buf[0:])), uint64(le.Uint32(buf[4:])), le.Uint64(buf[8:]),
		uint64(le.Uint32(buf[16:])), uint64(le.Uint32(buf[20:])), uint64(le.Uint32(buf[24:])), uint64(le.Uint32(buf[28:]))}
	want := []uint64{2, 32, 0x1122334455667788, 1234, 601224, 2, display.CrtcID}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("event fields (type, length, user data, sec, usec, sequence, crtc) %v, want %v", got, want)
		}
	}
	_, err = f.Read(buf)
	simtest.WantErrno(t, "read with nothing pending", err, syscall.EAGAIN)
}

func TestClosedFilesGetNoEvents(t *testing.T) {
	var mu sync.Mutex
	var flips []display.Flip
	r := newRig(t, display.Options{Clock: display.SteppedClock, OnFlip: func(f display.Flip) {
		mu.Lock()
		flips = append(flips, f)
		mu.Unlock()
	}})
	f, err := r.dev.Open()
	if err != nil {
		t.Fatal(err)
	}
	a, _, _ := dumbFB(t, f, 1920, 1080)
	b, _, _ := dumbFB(t, f, 1920, 1080)
	setCrtc(t, f, a, modeNamed(t, f, "1920x1080@60"))
	simtest.WantErrno(t, "flip", flip(f, b, uapi.PageFlipEvent, 1), 0)
	// Closing drops the pending event (drm_events_release), then removes
	// the framebuffers, which waits for the flip and turns the plane off.
	f.Close()
	mu.Lock()
	defer mu.Unlock()
	// SETCRTC (a), the flip (b, no event: its file is gone), the plane
	// turned off (0).
	if len(flips) != 3 || flips[1].FbID != b || flips[1].Event || flips[2].FbID != 0 {
		t.Fatalf("OnFlip calls %+v", flips)
	}
}

func TestOnFlipCanReadTheScanout(t *testing.T) {
	var seen []uint32
	var r *rig
	r = newRig(t, display.Options{OnFlip: func(fl display.Flip) {
		var fr display.Frame
		if err := r.disp.ReadScanout(&fr); err != nil {
			t.Errorf("ReadScanout in OnFlip: %v", err)
		}
		if fr.FbID != fl.FbID || fr.Sequence != fl.Sequence {
			t.Errorf("OnFlip %+v saw scanout fb %d at %d", fl, fr.FbID, fr.Sequence)
		}
		seen = append(seen, fr.FbID)
	}})
	f := r.openNonblock()
	a, _, _ := dumbFB(t, f, 1920, 1080)
	b, _, _ := dumbFB(t, f, 1920, 1080)
	setCrtc(t, f, a, modeNamed(t, f, "1920x1080@60"))
	simtest.WantErrno(t, "flip", flip(f, b, 0, 0), 0)
	simtest.WantErrno(t, "flip", flip(f, a, 0, 0), 0)
	if len(seen) != 3 || seen[0] != a || seen[1] != b || seen[2] != a {
		t.Fatalf("OnFlip saw %v", seen)
	}
}

func TestRealClock(t *testing.T) {
	r := newRig(t, display.Options{Clock: display.RealClock})
	f := r.open() // blocking reads
	a, _, _ := dumbFB(t, f, 640, 480)
	b, _, _ := dumbFB(t, f, 640, 480)
	setCrtc(t, f, a, modeNamed(t, f, "640x480@60")) // 25.175 MHz over 800x525: 16 683 217.48 ns frames
	const period = 16683217
	events := drm.NewEventReader(f)
	var first uapi.EventVblank
	for i := 0; i < 3; i++ {
		simtest.WantErrno(t, "flip", flip(f, []uint32{b, a}[i%2], uapi.PageFlipEvent, uint64(i)), 0)
		// The event comes when the wall-clock vblank passes; the Fd
		// becomes readable then.
		if !readable(t, f, 2*time.Second) {
			t.Fatalf("flip %d: no event within 2 s", i)
		}
		ev, err := events.Next()
		if err != nil || ev.UserData != uint64(i) {
			t.Fatalf("flip %d: event %+v, %v", i, ev, err)
		}
		var ts unix.Timespec
		unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
		if ev.Timestamp() > time.Duration(ts.Nano()) {
			t.Fatalf("event time %v is after CLOCK_MONOTONIC's now %v", ev.Timestamp(), time.Duration(ts.Nano()))
		}
		if i == 0 {
			first = ev
			continue
		}
		// Later vblanks lie whole periods after the first (to the µs the
		// record keeps), however late this goroutine ran.
		k := int64(ev.Sequence - first.Sequence)
		if k < int64(i) {
			t.Fatalf("flip %d: sequence %d, first %d", i, ev.Sequence, first.Sequence)
		}
		dt := int64(ev.Timestamp() - first.Timestamp())
		if d := dt - k*period; d < -2000 || d > 2000 {
			t.Fatalf("flip %d: %d vblanks took %d ns, want %d ± 2 µs", i, k, dt, k*period)
		}
	}
}
