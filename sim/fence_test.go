package sim_test

import (
	"encoding/binary"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/internal/simrig"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/display"
	"github.com/vccube/vccube/sim/internal/simtest"
	"github.com/vccube/vccube/sim/kernel/cleargpu"
	"github.com/vccube/vccube/uapi"
)

// flipRig is a device whose GPU holds every job until the test lets it
// run (gatedGPU), on a display that reports the first pixel of each
// picture it shows.
type flipRig struct {
	g     *gatedGPU
	dev   *sim.Device
	disp  *display.Display
	c     *sim.File
	crtc  uint32
	conn  uint32
	mode  drm.ModeInfo
	shown chan uint32 // the first pixel of each flip's picture
}

func newFlipRig(t *testing.T, clock display.ClockMode) *flipRig {
	r := &flipRig{g: &gatedGPU{inner: cleargpu.New(), gate: make(chan struct{})}, shown: make(chan uint32, 8)}
	r.disp = display.New(display.Options{Clock: clock, OnFlip: func(f display.Flip) {
		var fr display.Frame
		if err := r.disp.ReadScanout(&fr); err != nil || len(fr.Data) < 4 {
			r.shown <- 0
			return
		}
		r.shown <- binary.LittleEndian.Uint32(fr.Data)
	}})
	t.Cleanup(func() { r.disp.Close() })
	r.dev = newDevice(t, sim.Options{GPU: r.g, Display: r.disp})
	r.c = open(t, r.dev)
	res, conn := simrig.FirstConnector(t, r.c)
	r.crtc, r.conn = res.CRTCs[0], conn.ID
	for _, m := range conn.Modes {
		if m.Hdisplay <= 1024 { // clearBO's target is 1024 pixels wide
			r.mode = m
			break
		}
	}
	return r
}

// fb queues a job clearing a new BO to clear (the gated GPU holds it) and
// returns a framebuffer of the BO.
func (r *flipRig) fb(t *testing.T, clear uint32) uint32 {
	w, h := uint32(r.mode.Hdisplay), uint32(r.mode.Vdisplay)
	size := uint32(1024 * 4 * h) // clearBO's 1024-pixel-wide target
	bo := simrig.AllocBO(t, r.c, size)
	clearBO(t, r.c, bo, size, clear)
	id, err := drm.AddFramebuffer(r.c, w, h, uapi.FormatXRGB8888, bo, 1024*4, uapi.FormatModLinear)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// setCrtc shows fb in the rig's mode.
func (r *flipRig) setCrtc(fb uint32) error {
	return drm.SetCrtc(r.c, r.crtc, fb, 0, 0, []uint32{r.conn}, &r.mode)
}

// A page flip (vsynced or asynchronous) and a mode set show a framebuffer
// only once the GPU job rendering into it has finished: the commit waits
// for the BO's exclusive fence (drm_atomic_helper_wait_for_fences;
// vc4_update_bo_seqnos fences the render targets). Mesa flips right after
// it submits, without waiting, so without this the screen would show
// half-rendered frames.
func TestFlipWaitsForRender(t *testing.T) {
	r := newFlipRig(t, display.VirtualClock)
	t.Cleanup(func() { close(r.g.gate) }) // before the device closes: let held jobs finish
	flip := func(flags uint32) func(fb uint32) error {
		return func(fb uint32) error {
			return drm.PageFlip(r.c, &uapi.ModeCrtcPageFlip{CrtcID: r.crtc, FbID: fb, Flags: flags})
		}
	}
	for i, step := range []struct {
		clear uint32
		show  func(fb uint32) error
	}{
		{0xff112233, r.setCrtc},
		{0xff445566, flip(0)},
		// An asynchronous flip too (vc4_async_page_flip waits for the
		// BO's last seqno before it rewrites the plane).
		{0xff778899, flip(uapi.PageFlipAsync)},
	} {
		id := r.fb(t, step.clear)
		done := make(chan error, 1)
		go func() { done <- step.show(id) }()
		// The GPU may run the job once the call waits for it; a call
		// that does not wait returns with the job still held.
		simtest.Reached(t, fmt.Sprintf("step %d", i), func() bool { return r.dev.Kernel().Waiting() > 0 }, done)
		r.g.gate <- struct{}{}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if got := <-r.shown; got != step.clear {
			t.Errorf("step %d: the screen showed %#08x first, want the rendered %#08x", i, got, step.clear)
		}
	}
}

// Under the real clock a vsynced PAGE_FLIP returns at once, as the
// kernel's does (drm_atomic_helper_page_flip commits nonblocking), and
// the commit's own work waits for the job rendering into the framebuffer
// (drm_atomic_helper_commit_tail: drm_atomic_helper_wait_for_fences): the
// state holds the new framebuffer at once, the screen keeps the old one
// until the render is done, and a second flip meanwhile is EBUSY. Mesa
// relies on this to prepare the next frame while the GPU renders.
func TestFlipReturnsBeforeRenderUnderRealClock(t *testing.T) {
	r := newFlipRig(t, display.RealClock)
	c, g := r.c, r.g
	gateOpen := false
	t.Cleanup(func() {
		if !gateOpen {
			close(g.gate)
		}
	})

	// The mode set is a blocking commit: it waits for its render.
	first := r.fb(t, 0xff112233)
	done := make(chan error, 1)
	go func() { done <- r.setCrtc(first) }()
	g.gate <- struct{}{}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := <-r.shown; got != 0xff112233 {
		t.Fatalf("the mode set showed %#08x", got)
	}

	// The flip returns with its job still held by the GPU: were it to
	// wait for the render, it would never return.
	second := r.fb(t, 0xff445566)
	go func() {
		done <- drm.PageFlip(c, &uapi.ModeCrtcPageFlip{CrtcID: r.crtc, FbID: second, Flags: uapi.PageFlipEvent, UserData: 7})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("PAGE_FLIP did not return while the framebuffer's job was still held: it waits for the render in the ioctl")
	}
	if crtc, err := drm.GetCrtc(c, r.crtc); err != nil || crtc.FbID != second {
		t.Errorf("GETCRTC after the flip: %+v %v; want framebuffer %d at once", crtc, err, second)
	}
	var fr display.Frame
	if err := r.disp.ReadScanout(&fr); err != nil || binary.LittleEndian.Uint32(fr.Data) != 0xff112233 {
		t.Errorf("the screen changed before the render finished (%v)", err)
	}
	simtest.WantErrno(t, "a second PAGE_FLIP while the first waits for its render",
		drm.PageFlip(c, &uapi.ModeCrtcPageFlip{CrtcID: r.crtc, FbID: first}), syscall.EBUSY)

	// The GPU runs the job: the flip lands at a vblank after it.
	gateOpen = true
	close(g.gate)
	if got := <-r.shown; got != 0xff445566 {
		t.Errorf("the flip showed %#08x, want the rendered %#08x", got, uint32(0xff445566))
	}
	ev, err := drm.NewEventReader(c).Next()
	if err != nil || ev.UserData != 7 || !ev.IsFlipComplete() {
		t.Errorf("the flip's event: %+v %v", ev, err)
	}
}
