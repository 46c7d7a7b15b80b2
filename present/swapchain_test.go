package present_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/present"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// openTiny opens the fake with a single 100x50 mode, so buffers are small.
func openTiny(t testing.TB) (*fakeKMS, *present.Display) {
	t.Helper()
	f := newFakeKMS(t)
	f.connectors[0].modes = []drm.ModeInfo{tinyMode}
	return f, openOn(t, f)
}

// openOn opens the fake's display with the default choices.
func openOn(t testing.TB, f *fakeKMS) *present.Display {
	t.Helper()
	d, err := present.Open(f, present.Config{})
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

func TestDoubleBuffering(t *testing.T) {
	f, d := openTiny(t)
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
		// into one whose flip is still pending.
		fb, _, _ := f.crtcState(41)
		if buf.FbID == fb {
			t.Fatalf("frame %d: Acquire returned fb %d, which is on screen", i, buf.FbID)
		}
		if err := s.Present(buf); err != nil {
			t.Fatalf("frame %d: Present: %v", i, err)
		}
	}
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	// Frame 0 by SETCRTC, then flips alternating between the buffers.
	want := []uint32{a.FbID, b.FbID, a.FbID, b.FbID, a.FbID, b.FbID}
	if !equalU32(f.shown, want) {
		t.Errorf("shown %v, want %v", f.shown, want)
	}
	if len(f.setcrtcs) != 1 || f.setcrtcs[0].FbID != a.FbID || f.setcrtcs[0].Mode != tinyMode.ModeModeInfo ||
		f.setcrtcs[0].CountConnectors != 1 {
		t.Errorf("SETCRTC calls %+v; want one, of buffer A in the 100x50 mode", f.setcrtcs)
	}
	if f.flipCalls != frames-1 {
		t.Errorf("%d PAGE_FLIP calls, want %d (none refused with EBUSY)", f.flipCalls, frames-1)
	}
	// The fake's vblank counter starts at 1000 and each flip completes at
	// the next vblank, 16666 µs apart.
	st := s.Stats()
	if !st.ModeSet || st.Flips != 5 || st.Completed != 5 || st.Missed != 0 ||
		st.FirstSequence != 1001 || st.LastSequence != 1005 ||
		st.MinInterval != 16666*time.Microsecond || st.MaxInterval != 16666*time.Microsecond ||
		st.MeanInterval() != 16666*time.Microsecond || st.VblankPeriod() != 16666*time.Microsecond {
		t.Errorf("stats %+v", st)
	}
	for i, fl := range flips {
		wantBuf := (i + 1) % 2
		if fl.N != uint64(i+1) || fl.Sequence != uint32(1001+i) || fl.Buffer != wantBuf || fl.Missed != 0 ||
			fl.Time != time.Duration(100e6+uint64(1001+i)*16666)*time.Microsecond {
			t.Errorf("flip %d: %+v", i, fl)
		}
	}
}

func TestTripleBuffering(t *testing.T) {
	f, d := openTiny(t)
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
	if c != bufs[2] || s.Stats().Completed != 0 {
		t.Fatalf("got buffer %d after %d completions; want C without waiting", c.FbID, s.Stats().Completed)
	}
	// Present waits for B's flip before flipping C: no EBUSY.
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
	if fb, _, _ := f.crtcState(41); fb != bufs[2].FbID {
		t.Errorf("on screen fb %d, want C (%d)", fb, bufs[2].FbID)
	}
}

func TestMissedVblanks(t *testing.T) {
	f, d := openTiny(t)
	s := dumbChain(t, d, 2)
	var flips []present.Flip
	s.OnFlip = func(fl present.Flip) { flips = append(flips, fl) }
	for i := 0; i < 4; i++ {
		if i == 2 {
			f.skip = 2 // the flip queued now completes three vblanks later
		}
		b, err := s.Acquire()
		if err != nil {
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
	// Flips complete at vblanks 1001, 1004, 1005.
	if st.Completed != 3 || st.Missed != 2 || st.FirstSequence != 1001 || st.LastSequence != 1005 {
		t.Fatalf("stats %+v", st)
	}
	if flips[1].Missed != 2 || flips[2].Missed != 0 {
		t.Errorf("flips %+v; want the second to have missed 2 vblanks", flips)
	}
	if st.MaxInterval != 3*16666*time.Microsecond || st.MinInterval != 16666*time.Microsecond {
		t.Errorf("intervals %v..%v", st.MinInterval, st.MaxInterval)
	}
	if st.MeanInterval() != 2*16666*time.Microsecond || st.VblankPeriod() != 16666*time.Microsecond {
		t.Errorf("mean %v, period %v", st.MeanInterval(), st.VblankPeriod())
	}
}

func TestEventsOfOtherKinds(t *testing.T) {
	f, d := openTiny(t)
	s := dumbChain(t, d, 2)
	for i := 0; i < 2; i++ {
		b, _ := s.Acquire()
		if err := s.Present(b); err != nil {
			t.Fatal(err)
		}
	}
	// A vblank event (DRM_IOCTL_WAIT_VBLANK) ahead of the flip's is skipped.
	f.mu.Lock()
	f.events = append([][32]byte{{}}, f.events...)
	f.events[0] = f.events[1]
	f.events[0][0] = uapi.EventTypeVblank
	f.mu.Unlock()
	unix.Write(f.efd, []byte{1, 0, 0, 0, 0, 0, 0, 0})
	if err := s.Wait(); err != nil {
		t.Fatalf("Wait with a vblank event queued: %v", err)
	}
	// A flip completion that is not ours is an error.
	b, _ := s.Acquire()
	if err := s.Present(b); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.events[0][8] = 99 // user data 99
	f.mu.Unlock()
	if err := s.Wait(); err == nil || !strings.Contains(err.Error(), "flip 99 arrived while flip 2 was pending") {
		t.Errorf("got %v; want the foreign completion reported", err)
	}
}

func TestFlipTimeout(t *testing.T) {
	f, d := openTiny(t)
	s := dumbChain(t, d, 2)
	s.Timeout = 30 * time.Millisecond
	f.dropEvents = true
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
	_, d := openTiny(t)
	b1, _ := d.NewDumbBuffer()
	b2, _ := d.NewDumbBuffer()
	if _, err := d.NewSwapchain(b1); err == nil {
		t.Error("a one-buffer swapchain was accepted")
	}
	if _, err := d.NewSwapchain(b1, b1); err == nil {
		t.Error("the same buffer twice was accepted")
	}
	stranger := &present.Buffer{FbID: 70, Width: 100, Height: 50} // the console's framebuffer
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

func TestPresentFailureFreesBuffer(t *testing.T) {
	f, d := openTiny(t)
	s := dumbChain(t, d, 2)
	f.master = false // lost master (a VT switch): SETCRTC is EACCES
	b, _ := s.Acquire()
	err := s.Present(b)
	if !errors.Is(err, unix.EACCES) || !strings.Contains(err.Error(), drm.HintNotMaster) {
		t.Fatalf("got %v; want EACCES with the master hint", err)
	}
	f.master = true
	b2, err := s.Acquire()
	if err != nil || b2 != b {
		t.Errorf("Acquire after a failed Present: %v; want the same buffer back", err)
	}
}

func TestCopyFrom(t *testing.T) {
	f, d := openTiny(t) // 100x50; the fake pads pitches to 64 bytes: 448
	b, err := d.NewDumbBuffer()
	if err != nil {
		t.Fatal(err)
	}
	if b.Pitch != 448 || len(b.Pixels) != 448*50 {
		t.Fatalf("pitch %d, %d bytes mapped", b.Pitch, len(b.Pixels))
	}
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
	mem := f.dumbs[b.Handle] // the device's memory, not the mapping's slice
	for y := 0; y < 50; y++ {
		for x := 0; x < 112; x++ {
			o := y*448 + 4*x
			want := [4]byte{0x5a, byte(x), byte(y), 0}
			if x >= 100 {
				want = [4]byte{0x11, 0x11, 0x11, 0x11} // the destination's padding is left alone
			}
			if got := [4]byte(mem[o : o+4]); got != want {
				t.Fatalf("pixel (%d,%d) = % x, want % x", x, y, got, want)
			}
		}
	}
	// Same pitch on both sides: one copy.
	same := make([]byte, 448*50)
	same[448*49+399] = 0x77
	if err := b.CopyFrom(same[:448*49+400], 448); err != nil || mem[448*49+399] != 0x77 {
		t.Errorf("same-pitch copy: %v", err)
	}
	if err := b.CopyFrom(src, 399); err == nil || !strings.Contains(err.Error(), "shorter than a row") {
		t.Errorf("short pitch: %v", err)
	}
	if err := b.CopyFrom(src[:len(src)-5], srcPitch); err == nil || !strings.Contains(err.Error(), "need 20196") {
		t.Errorf("short source: %v", err) // 49*404 + 400 = 20196
	}
	gem, err := d.AddGEMBuffer(f.addGEM(400*50), 400, uapi.FormatModLinear)
	if err != nil {
		t.Fatal(err)
	}
	if err := gem.CopyFrom(src, srcPitch); err == nil {
		t.Error("CopyFrom into a GEM buffer without a mapping succeeded")
	}
}

func TestAddGEMBuffer(t *testing.T) {
	f, d := openTiny(t)
	h := f.addGEM(1 << 16)
	if _, err := d.AddGEMBuffer(h, 399, uapi.FormatModLinear); err == nil || !strings.Contains(err.Error(), "too small") {
		t.Errorf("pitch 399 for 100 pixels: %v", err)
	}
	// T-tiled needs DRM_CAP_ADDFB2_MODIFIERS; drm.Error says which ioctl.
	_, err := d.AddGEMBuffer(h, 512, uapi.FormatModBroadcomVC4TTiled)
	if !errors.Is(err, unix.EINVAL) || !strings.Contains(err.Error(), "DRM_IOCTL_MODE_ADDFB2") {
		t.Errorf("modifier without the cap: %v", err)
	}
	f.modifiers = true
	b, err := d.AddGEMBuffer(h, 512, uapi.FormatModBroadcomVC4TTiled)
	if err != nil {
		t.Fatal(err)
	}
	fb := f.fbs[b.FbID]
	if fb == nil || fb.handle != h || fb.pitch != 512 || fb.w != 100 || fb.h != 50 || b.Pixels != nil {
		t.Errorf("framebuffer %+v for buffer fb %d", fb, b.FbID)
	}
}

func TestNewDumbBufferCleansUpOnFailure(t *testing.T) {
	f, d := openTiny(t)
	f.Fail(uapi.IoctlModeAddFB2, unix.EINVAL)
	if _, err := d.NewDumbBuffer(); !errors.Is(err, unix.EINVAL) {
		t.Fatalf("got %v", err)
	}
	if len(f.dumbs) != 0 || f.Mapped() != 0 {
		t.Errorf("%d dumb buffers and %d mappings left after the failure", len(f.dumbs), f.Mapped())
	}
}

func equalU32(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
