package present_test

import (
	"encoding/binary"
	"errors"
	"image/color"
	"strings"
	"testing"
	"time"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/gem"
	"github.com/vccube/vccube/internal/simrig"
	"github.com/vccube/vccube/present"
	"github.com/vccube/vccube/sim/display"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// openOn opens the display behind c with the default choices.
func openOn(t testing.TB, c uapi.Conn) *present.Display {
	t.Helper()
	d, err := present.Open(c, present.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// dumbChain makes n dumb buffers and a swapchain of them.
func dumbChain(t testing.TB, d *present.Display, n int) *present.Swapchain {
	t.Helper()
	var bufs []*present.Buffer
	for i := 0; i < n; i++ {
		b, err := d.NewDumbBuffer()
		if err != nil {
			t.Fatal(err)
		}
		bufs = append(bufs, b)
	}
	s, err := d.NewSwapchain(bufs...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// stepped is a rig whose display's vblanks come when the program waits for
// one (see probe): every flip is pending until present waits for it, and
// the display's pictures are recorded in shown, in order.
func stepped(t *testing.T, o rigOptions) (*rig, *[]display.Flip) {
	t.Helper()
	shown := new([]display.Flip)
	o.clock, o.monitor = display.SteppedClock, tinyMonitor()
	o.onFlip = func(f display.Flip) { *shown = append(*shown, f) }
	r := newRig(t, o)
	r.conn.step = r.disp
	return r, shown
}

func TestDoubleBuffering(t *testing.T) {
	r, shown := stepped(t, rigOptions{})
	d := openOn(t, r.conn)
	s := dumbChain(t, d, 2)
	a, b := s.Buffers()[0], s.Buffers()[1]
	var flips []present.Flip
	s.OnFlip = func(fl present.Flip) { flips = append(flips, fl) }

	const frames = 6
	for i := 0; i < frames; i++ {
		buf, err := s.Acquire()
		if err != nil {
			t.Fatalf("frame %d: Acquire: %v", i, err)
		}
		// The rule: never draw into the buffer being scanned out, nor
		// into one whose flip is still pending (GETCRTC reports a
		// pending flip's framebuffer already).
		onScreen := uint32(0)
		if n := len(*shown); n > 0 {
			onScreen = (*shown)[n-1].FbID
		}
		if buf.FbID == onScreen || buf.FbID == r.crtc().FbID {
			t.Fatalf("frame %d: Acquire returned fb %d, which is on screen or on its way", i, buf.FbID)
		}
		// A PAGE_FLIP while one is pending would be the model's EBUSY.
		if err := s.Present(buf); err != nil {
			t.Fatalf("frame %d: Present: %v", i, err)
		}
	}
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	// Frame 0 by SETCRTC, then flips alternating between the buffers,
	// each at its own vblank.
	want := []uint32{a.FbID, b.FbID, a.FbID, b.FbID, a.FbID, b.FbID}
	if len(*shown) != len(want) {
		t.Fatalf("the display showed %d pictures, want %d", len(*shown), len(want))
	}
	for i, f := range *shown {
		if f.FbID != want[i] || f.Sequence != (*shown)[0].Sequence+uint64(i) || f.Event != (i > 0) {
			t.Errorf("picture %d: %+v; want fb %d at vblank %d", i, f, want[i], (*shown)[0].Sequence+uint64(i))
		}
	}
	if n := r.conn.Calls(uapi.IoctlModeSetCrtc); n != 1 {
		t.Errorf("%d SETCRTC calls, want one, of buffer A", n)
	}
	if n := r.conn.Calls(uapi.IoctlModePageFlip); n != frames-1 {
		t.Errorf("%d PAGE_FLIP calls, want %d", n, frames-1)
	}
	// Each flip completes at the next vblank, tinyPeriod apart; the
	// events carry the vblank counter and time the display kept.
	st := s.Stats()
	first := (*shown)[1]
	if !st.ModeSet || st.Flips != 5 || st.Completed != 5 || st.Missed != 0 ||
		uint64(st.FirstSequence) != first.Sequence || st.LastSequence != st.FirstSequence+4 ||
		st.MinInterval != tinyPeriod || st.MaxInterval != tinyPeriod ||
		st.MeanInterval() != tinyPeriod || st.VblankPeriod() != tinyPeriod {
		t.Errorf("stats %+v", st)
	}
	for i, fl := range flips {
		wantBuf := (i + 1) % 2
		disp := (*shown)[i+1]
		if fl.N != uint64(i+1) || uint64(fl.Sequence) != disp.Sequence || fl.Buffer != wantBuf || fl.Missed != 0 ||
			fl.Time != disp.Time.Truncate(time.Microsecond) {
			t.Errorf("flip %d: %+v; the display's %+v", i, fl, disp)
		}
	}
}

func TestTripleBuffering(t *testing.T) {
	r, shown := stepped(t, rigOptions{})
	d := openOn(t, r.conn)
	s := dumbChain(t, d, 3)
	bufs := s.Buffers()
	get := func() *present.Buffer {
		t.Helper()
		b, err := s.Acquire()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	put := func(b *present.Buffer) {
		t.Helper()
		if err := s.Present(b); err != nil {
			t.Fatal(err)
		}
	}
	put(get()) // A on screen by SETCRTC
	put(get()) // flip to B pending
	// With a third buffer, Acquire does not wait for B's flip.
	c := get()
	if c != bufs[2] || s.Stats().Completed != 0 || len(*shown) != 1 {
		t.Fatalf("got buffer %d after %d completions; want C without waiting", c.FbID, s.Stats().Completed)
	}
	// Present waits for B's flip before flipping C (else the model's
	// EBUSY).
	put(c)
	if st := s.Stats(); st.Completed != 1 || st.Flips != 2 {
		t.Errorf("stats %+v; want B's flip completed before C's was queued", st)
	}
	// Now B is on screen and C pending: the free one is A.
	if a := get(); a != bufs[0] {
		t.Errorf("Acquire returned fb %d, want A (%d)", a.FbID, bufs[0].FbID)
	}
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	if last := (*shown)[len(*shown)-1]; last.FbID != bufs[2].FbID {
		t.Errorf("on screen fb %d, want C (%d)", last.FbID, bufs[2].FbID)
	}
}

// A frame that takes three vblanks to draw shows as two missed vblanks,
// one that takes two as one.
func TestMissedVblanks(t *testing.T) {
	r, _ := stepped(t, rigOptions{})
	d := openOn(t, r.conn)
	s := dumbChain(t, d, 2)
	var flips []present.Flip
	s.OnFlip = func(fl present.Flip) { flips = append(flips, fl) }
	drawing := map[int]time.Duration{2: 2 * tinyPeriod, 3: tinyPeriod} // extra time frames 2 and 3 take
	for i := 0; i < 5; i++ {
		b, err := s.Acquire()
		if err != nil {
			t.Fatal(err)
		}
		if err := r.disp.Advance(drawing[i]); err != nil {
			t.Fatal(err)
		}
		if err := s.Present(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	// Flips complete at vblanks v+1, v+4, v+6, v+7 after the modeset's v.
	if st.Completed != 4 || st.Missed != 3 || st.LastSequence-st.FirstSequence != 6 {
		t.Fatalf("stats %+v", st)
	}
	if flips[0].Missed != 0 || flips[1].Missed != 2 || flips[2].Missed != 1 || flips[3].Missed != 0 {
		t.Errorf("flips %+v; want 0, 2, 1, 0 missed vblanks", flips)
	}
	if st.MaxInterval != 3*tinyPeriod || st.MinInterval != tinyPeriod {
		t.Errorf("intervals %v..%v", st.MinInterval, st.MaxInterval)
	}
	if st.MeanInterval() != 2*tinyPeriod || st.VblankPeriod() != tinyPeriod {
		t.Errorf("mean %v, period %v", st.MeanInterval(), st.VblankPeriod())
	}
}

// vblankEvent is a struct drm_event_vblank (drm.h: type, length,
// user_data, tv_sec, tv_usec, sequence, crtc_id) of type DRM_EVENT_VBLANK,
// written byte by byte rather than through package uapi's struct.
func vblankEvent(user uint64, seq, crtc uint32) []byte {
	ev := make([]byte, 32)
	binary.LittleEndian.PutUint32(ev[0:], uapi.EventTypeVblank)
	binary.LittleEndian.PutUint32(ev[4:], 32)
	binary.LittleEndian.PutUint64(ev[8:], user)
	binary.LittleEndian.PutUint32(ev[24:], seq)
	binary.LittleEndian.PutUint32(ev[28:], crtc)
	return ev
}

func TestEventsOfOtherKinds(t *testing.T) {
	r, _ := stepped(t, rigOptions{})
	d := openOn(t, r.conn)
	s := dumbChain(t, d, 2)
	for i := 0; i < 2; i++ {
		b, _ := s.Acquire()
		if err := s.Present(b); err != nil {
			t.Fatal(err)
		}
	}
	// A vblank event (DRM_IOCTL_WAIT_VBLANK) ahead of the flip's is
	// skipped.
	r.conn.Inject(vblankEvent(7, 1, display.CrtcID))
	if err := s.Wait(); err != nil {
		t.Fatalf("Wait with a vblank event queued: %v", err)
	}
	// A flip completion that is not ours is an error: another flip on
	// the same file, of the buffer on screen, completes first.
	front := s.Buffers()[1]
	if err := drm.PageFlip(r.file, &uapi.ModeCrtcPageFlip{CrtcID: display.CrtcID, FbID: front.FbID, Flags: uapi.PageFlipEvent, UserData: 99}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.disp.AdvanceToVblank(); err != nil {
		t.Fatal(err)
	}
	b, _ := s.Acquire()
	if err := s.Present(b); err != nil {
		t.Fatal(err)
	}
	if err := s.Wait(); err == nil || !strings.Contains(err.Error(), "flip 99 arrived while flip 2 was pending") {
		t.Errorf("got %v; want the foreign completion reported", err)
	}
}

// A display whose vblanks stop (here: a stepped clock nobody advances,
// the real descriptor polled) leaves the flip pending: present gives up
// after its timeout and says so.
func TestFlipTimeout(t *testing.T) {
	r := newRig(t, rigOptions{monitor: tinyMonitor(), clock: display.SteppedClock})
	d := openOn(t, r.conn)
	s := dumbChain(t, d, 2)
	s.Timeout = 30 * time.Millisecond
	for i := 0; i < 2; i++ {
		b, _ := s.Acquire()
		if err := s.Present(b); err != nil {
			t.Fatal(err)
		}
	}
	_, err := s.Acquire()
	if err == nil || !strings.Contains(err.Error(), "did not complete within 30ms") {
		t.Errorf("got %v; want a timeout error", err)
	}
}

func TestSwapchainMisuse(t *testing.T) {
	r := newRig(t, rigOptions{console: true, monitor: tinyMonitor()})
	d := openOn(t, r.conn)
	b1, _ := d.NewDumbBuffer()
	b2, _ := d.NewDumbBuffer()
	if _, err := d.NewSwapchain(b1); err == nil {
		t.Error("a one-buffer swapchain was accepted")
	}
	if _, err := d.NewSwapchain(b1, b1); err == nil {
		t.Error("the same buffer twice was accepted")
	}
	stranger := &present.Buffer{FbID: r.consoleFB, Width: 100, Height: 50} // the console's framebuffer
	if _, err := d.NewSwapchain(b1, stranger); err == nil {
		t.Error("a framebuffer the display did not add was accepted")
	}
	s, err := d.NewSwapchain(b1, b2)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Present(b1); err == nil {
		t.Error("Present of a buffer that was not acquired succeeded")
	}
	s.Acquire()
	s.Acquire()
	if _, err := s.Acquire(); err == nil || !strings.Contains(err.Error(), "every buffer is acquired") {
		t.Errorf("third Acquire of two buffers: %v", err)
	}
}

// Master lost (the program dropped it, as on a VT switch): SETCRTC is
// EACCES (drm_ioctl.c drm_ioctl_permit), and the buffer is free again.
func TestPresentFailureFreesBuffer(t *testing.T) {
	r := newRig(t, rigOptions{monitor: tinyMonitor()})
	d := openOn(t, r.conn)
	s := dumbChain(t, d, 2)
	if err := drm.DropMaster(r.file); err != nil {
		t.Fatal(err)
	}
	b, _ := s.Acquire()
	err := s.Present(b)
	if !errors.Is(err, unix.EACCES) || !strings.Contains(err.Error(), drm.HintNotMaster) {
		t.Fatalf("got %v; want EACCES with the master hint", err)
	}
	if err := drm.SetMaster(r.file); err != nil {
		t.Fatal(err)
	}
	b2, err := s.Acquire()
	if err != nil || b2 != b {
		t.Errorf("Acquire after a failed Present: %v; want the same buffer back", err)
	}
	if err := s.Present(b2); err != nil {
		t.Errorf("Present with master back: %v", err)
	}
}

// CopyFrom copies row by row between pitches, leaving the destination's
// padding alone (a buffer as a driver that pads pitches gives it: i915
// and others round a dumb buffer's pitch up, vc4 does not).
func TestCopyFromPitches(t *testing.T) {
	b := &present.Buffer{Width: 100, Height: 50, Pitch: 448, Pixels: make([]byte, 448*50)}
	// A source with pitch 404 (one pixel of padding); pixel (x, y) is the
	// word 0x00RRGGBB with R=y, G=x, B=0x5a; padding is 0xee.
	const srcPitch = 404
	src := make([]byte, srcPitch*50)
	for i := range src {
		src[i] = 0xee
	}
	for y := 0; y < 50; y++ {
		for x := 0; x < 100; x++ {
			o := y*srcPitch + 4*x
			src[o], src[o+1], src[o+2], src[o+3] = 0x5a, byte(x), byte(y), 0
		}
	}
	for i := range b.Pixels {
		b.Pixels[i] = 0x11
	}
	if err := b.CopyFrom(src, srcPitch); err != nil {
		t.Fatal(err)
	}
	for y := 0; y < 50; y++ {
		for x := 0; x < 112; x++ {
			o := y*448 + 4*x
			want := [4]byte{0x5a, byte(x), byte(y), 0}
			if x >= 100 {
				want = [4]byte{0x11, 0x11, 0x11, 0x11} // the destination's padding is left alone
			}
			if got := [4]byte(b.Pixels[o : o+4]); got != want {
				t.Fatalf("pixel (%d,%d) = % x, want % x", x, y, got, want)
			}
		}
	}
	// Same pitch on both sides: one copy.
	same := make([]byte, 448*50)
	same[448*49+399] = 0x77
	if err := b.CopyFrom(same[:448*49+400], 448); err != nil || b.Pixels[448*49+399] != 0x77 {
		t.Errorf("same-pitch copy: %v", err)
	}
	if err := b.CopyFrom(src, 399); err == nil || !strings.Contains(err.Error(), "shorter than a row") {
		t.Errorf("short pitch: %v", err)
	}
	if err := b.CopyFrom(src[:len(src)-5], srcPitch); err == nil || !strings.Contains(err.Error(), "need 20196") {
		t.Errorf("short source: %v", err) // 49*404 + 400 = 20196
	}
}

// A frame copied into a dumb buffer of the device is what the display
// scans out once presented; a GEM buffer has no mapping to copy into.
func TestCopyFromReachesTheScreen(t *testing.T) {
	r := newRig(t, rigOptions{monitor: tinyMonitor()})
	d := openOn(t, r.conn)
	s := dumbChain(t, d, 2)
	b, _ := s.Acquire()
	if b.Pitch != 400 {
		t.Errorf("pitch %d; vc4 gives a dumb buffer width × 4 (vc4_bo.c vc4_bo_dumb_create)", b.Pitch)
	}
	const srcPitch = 404
	src := make([]byte, srcPitch*50)
	for y := 0; y < 50; y++ {
		for x := 0; x < 100; x++ {
			o := y*srcPitch + 4*x
			src[o], src[o+1], src[o+2] = 0x5a, byte(x), byte(y) // XRGB8888: B, G, R, X
		}
	}
	if err := b.CopyFrom(src, srcPitch); err != nil {
		t.Fatal(err)
	}
	if err := s.Present(b); err != nil {
		t.Fatal(err)
	}
	img := simrig.Scanout(t, r.disp)
	for y := 0; y < 50; y++ {
		for x := 0; x < 100; x++ {
			if got, want := img.RGBAAt(x, y), (color.RGBA{byte(y), byte(x), 0x5a, 0xff}); got != want {
				t.Fatalf("the screen shows %v at (%d, %d), want %v", got, x, y, want)
			}
		}
	}
	h, err := gem.AllocBO(r.file, 400*50)
	if err != nil {
		t.Fatal(err)
	}
	g, err := d.AddGEMBuffer(h, 400, uapi.FormatModLinear)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.CopyFrom(src, srcPitch); err == nil {
		t.Error("CopyFrom into a GEM buffer without a mapping succeeded")
	}
}

func TestAddGEMBuffer(t *testing.T) {
	r := newRig(t, rigOptions{monitor: tinyMonitor()})
	d := openOn(t, r.conn)
	// A T-format image of 100x50 RGBA8888 pads to 128x64 (4 KiB tiles of
	// 32x32 pixels, AG §11 "Texture Memory Formats",
	// doc/hardware.md#texture-formats): 32 KiB, 512-byte rows.
	h, err := gem.AllocBO(r.file, 128*64*4)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.AddGEMBuffer(h, 399, uapi.FormatModLinear); err == nil || !strings.Contains(err.Error(), "too small") {
		t.Errorf("pitch 399 for 100 pixels: %v", err)
	}
	// A display driver without modifiers refuses ADDFB2 with
	// DRM_MODE_FB_MODIFIERS (drm_framebuffer.c framebuffer_check; vc4 has
	// them, so the refusal is injected): drm.Error names the ioctl.
	r.conn.Fail(uapi.IoctlModeAddFB2, unix.EINVAL)
	_, err = d.AddGEMBuffer(h, 512, uapi.FormatModBroadcomVC4TTiled)
	if !errors.Is(err, unix.EINVAL) || !strings.Contains(err.Error(), "DRM_IOCTL_MODE_ADDFB2") {
		t.Errorf("modifier refused: %v", err)
	}
	r.conn.Unfail(uapi.IoctlModeAddFB2)
	b, err := d.AddGEMBuffer(h, 512, uapi.FormatModBroadcomVC4TTiled)
	if err != nil {
		t.Fatal(err)
	}
	if b.Handle != h || b.Pitch != 512 || b.Width != 100 || b.Height != 50 || b.Modifier != uapi.FormatModBroadcomVC4TTiled || b.Pixels != nil {
		t.Errorf("buffer %+v", b)
	}
	// Shown, it is scanned out as the T-tiled framebuffer it is.
	h2, _ := gem.AllocBO(r.file, 128*64*4)
	b2, err := d.AddGEMBuffer(h2, 512, uapi.FormatModBroadcomVC4TTiled)
	if err != nil {
		t.Fatal(err)
	}
	s, err := d.NewSwapchain(b, b2)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := s.Acquire()
	if err := s.Present(a); err != nil {
		t.Fatal(err)
	}
	var fr display.Frame
	if err := r.disp.ReadScanout(&fr); err != nil || fr.FbID != b.FbID || fr.Modifier != uapi.FormatModBroadcomVC4TTiled || fr.Pitch != 512 {
		t.Errorf("scanout fb %d modifier %#x pitch %d (%v); want fb %d T-tiled", fr.FbID, fr.Modifier, fr.Pitch, err, b.FbID)
	}
}

func TestNewDumbBufferCleansUpOnFailure(t *testing.T) {
	r := newRig(t, rigOptions{monitor: tinyMonitor()})
	d := openOn(t, r.conn)
	// An ADDFB2 refused after the buffer was made and mapped (injected: a
	// Pi's display takes present's XRGB8888 dumb buffers).
	r.conn.Fail(uapi.IoctlModeAddFB2, unix.EINVAL)
	if _, err := d.NewDumbBuffer(); !errors.Is(err, unix.EINVAL) {
		t.Fatalf("got %v", err)
	}
	// A mapping left behind would keep the buffer alive.
	if n := r.dumbBOs(); n != 0 {
		t.Errorf("%d dumb buffers live after the failure", n)
	}
}
