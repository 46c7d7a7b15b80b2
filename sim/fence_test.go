package sim_test

import (
	"encoding/binary"
	"syscall"
	"testing"
	"time"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/display"
	"github.com/vccube/vccube/sim/kernel/cleargpu"
	"github.com/vccube/vccube/uapi"
)

// A page flip (vsynced or asynchronous) and a mode set show a framebuffer
// only once the GPU job rendering into it has finished: the commit waits
// for the BO's exclusive fence (drm_atomic_helper_wait_for_fences;
// vc4_update_bo_seqnos fences the render targets). Mesa flips right after it submits, without
// waiting, so without this the screen would show half-rendered frames.
func TestFlipWaitsForRender(t *testing.T) {
	g := &gatedGPU{inner: cleargpu.New(), gate: make(chan struct{})}
	shown := make(chan uint32, 8)
	var disp *display.Display
	disp = display.New(display.Options{OnFlip: func(f display.Flip) {
		var fr display.Frame
		if err := disp.ReadScanout(&fr); err != nil || len(fr.Data) < 4 {
			shown <- 0
			return
		}
		shown <- binary.LittleEndian.Uint32(fr.Data)
	}})
	t.Cleanup(func() { disp.Close() })
	d := newDevice(t, sim.Options{GPU: g, Display: disp})
	c := open(t, d)
	t.Cleanup(func() { close(g.gate) }) // before the device closes: let held jobs finish

	res, err := drm.GetResources(c)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := drm.GetConnector(c, res.Connectors[0])
	if err != nil {
		t.Fatal(err)
	}
	var mode drm.ModeInfo
	for _, m := range conn.Modes {
		if m.Hdisplay <= 1024 { // clearBO's target is 1024 pixels wide
			mode = m
			break
		}
	}
	w, h := uint32(mode.Hdisplay), uint32(mode.Vdisplay)
	size := uint32(1024 * 4 * h) // clearBO's 1024-pixel-wide target
	fb := func(clear uint32) uint32 {
		bo := createBO(t, c, size)
		clearBO(t, c, bo, size, clear) // queued; the gated GPU holds it
		id, err := drm.AddFramebuffer(c, w, h, uapi.FormatXRGB8888, bo, 1024*4, uapi.FormatModLinear)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	for i, step := range []struct {
		clear uint32
		show  func(fb uint32) error
	}{
		{0xff112233, func(fb uint32) error {
			return drm.SetCrtc(c, res.CRTCs[0], fb, 0, 0, []uint32{conn.ID}, &mode)
		}},
		{0xff445566, func(fb uint32) error {
			return drm.PageFlip(c, &uapi.ModeCrtcPageFlip{CrtcID: res.CRTCs[0], FbID: fb})
		}},
		// An asynchronous flip too (vc4_async_page_flip waits for the
		// BO's last seqno before it rewrites the plane).
		{0xff778899, func(fb uint32) error {
			return drm.PageFlip(c, &uapi.ModeCrtcPageFlip{CrtcID: res.CRTCs[0], FbID: fb, Flags: uapi.PageFlipAsync})
		}},
	} {
		id := fb(step.clear)
		done := make(chan error, 1)
		go func() { done <- step.show(id) }()
		time.Sleep(20 * time.Millisecond) // give a flip that does not wait the chance to land
		g.gate <- struct{}{}              // the GPU may run the job now
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if got := <-shown; got != step.clear {
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
	g := &gatedGPU{inner: cleargpu.New(), gate: make(chan struct{})}
	shown := make(chan uint32, 8)
	var disp *display.Display
	disp = display.New(display.Options{Clock: display.RealClock, OnFlip: func(f display.Flip) {
		var fr display.Frame
		if err := disp.ReadScanout(&fr); err != nil || len(fr.Data) < 4 {
			shown <- 0
			return
		}
		shown <- binary.LittleEndian.Uint32(fr.Data)
	}})
	t.Cleanup(func() { disp.Close() })
	d := newDevice(t, sim.Options{GPU: g, Display: disp})
	c := open(t, d)
	gateOpen := false
	t.Cleanup(func() {
		if !gateOpen {
			close(g.gate)
		}
	})

	res, err := drm.GetResources(c)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := drm.GetConnector(c, res.Connectors[0])
	if err != nil {
		t.Fatal(err)
	}
	var mode drm.ModeInfo
	for _, m := range conn.Modes {
		if m.Hdisplay <= 1024 {
			mode = m
			break
		}
	}
	w, h := uint32(mode.Hdisplay), uint32(mode.Vdisplay)
	size := uint32(1024 * 4 * h)
	fb := func(clear uint32) uint32 {
		bo := createBO(t, c, size)
		clearBO(t, c, bo, size, clear) // queued; the gated GPU holds it
		id, err := drm.AddFramebuffer(c, w, h, uapi.FormatXRGB8888, bo, 1024*4, uapi.FormatModLinear)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}

	// The mode set is a blocking commit: it waits for its render.
	first := fb(0xff112233)
	done := make(chan error, 1)
	go func() { done <- drm.SetCrtc(c, res.CRTCs[0], first, 0, 0, []uint32{conn.ID}, &mode) }()
	g.gate <- struct{}{}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := <-shown; got != 0xff112233 {
		t.Fatalf("the mode set showed %#08x", got)
	}

	// The flip returns with its job still held by the GPU: were it to
	// wait for the render, it would never return.
	second := fb(0xff445566)
	go func() {
		done <- drm.PageFlip(c, &uapi.ModeCrtcPageFlip{CrtcID: res.CRTCs[0], FbID: second, Flags: uapi.PageFlipEvent, UserData: 7})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("PAGE_FLIP did not return while the framebuffer's job was still held: it waits for the render in the ioctl")
	}
	if crtc, err := drm.GetCrtc(c, res.CRTCs[0]); err != nil || crtc.FbID != second {
		t.Errorf("GETCRTC after the flip: %+v %v; want framebuffer %d at once", crtc, err, second)
	}
	var fr display.Frame
	if err := disp.ReadScanout(&fr); err != nil || binary.LittleEndian.Uint32(fr.Data) != 0xff112233 {
		t.Errorf("the screen changed before the render finished (%v)", err)
	}
	wantErrno(t, "a second PAGE_FLIP while the first waits for its render",
		drm.PageFlip(c, &uapi.ModeCrtcPageFlip{CrtcID: res.CRTCs[0], FbID: first}), syscall.EBUSY)

	// The GPU runs the job: the flip lands at a vblank after it.
	gateOpen = true
	close(g.gate)
	if got := <-shown; got != 0xff445566 {
		t.Errorf("the flip showed %#08x, want the rendered %#08x", got, 0xff445566)
	}
	ev, err := drm.NewEventReader(c).Next()
	if err != nil || ev.UserData != 7 || !ev.IsFlipComplete() {
		t.Errorf("the flip's event: %+v %v", ev, err)
	}
}
