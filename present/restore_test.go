package present_test

import (
	"context"
	"errors"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/present"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// checkRestored asserts that the fake shows what it showed before the
// program ran (the console's fb 70 at 1080p60 on CRTC 41, driving
// HDMI-A-1), and that nothing of the program's is left.
func checkRestored(t *testing.T, f *fakeKMS) {
	t.Helper()
	fb, mode, on := f.crtcState(41)
	if !on || fb != 70 || mode != consoleFBMode.ModeModeInfo {
		t.Errorf("CRTC 41 shows fb %d (on %v, %dx%d); want the console's fb 70 at 1080p60", fb, on, mode.Hdisplay, mode.Vdisplay)
	}
	if f.connectors[0].encoder != 51 || f.encoders[0].crtc != 41 {
		t.Errorf("HDMI-A-1 is on encoder %d, CRTC %d; want 51, 41", f.connectors[0].encoder, f.encoders[0].crtc)
	}
	if n := f.ownedFBs(); n != 0 {
		t.Errorf("%d framebuffers of ours left", n)
	}
	if len(f.dumbs) != 0 || f.Mapped() != 0 {
		t.Errorf("%d dumb buffers and %d mappings left", len(f.dumbs), f.Mapped())
	}
}

// program is the frame loop as cmd/vccube runs it: open, buffers, a
// swapchain, frames until done or stopped, everything undone by deferred
// Close. fail (if set) is called before each frame and may return an error
// to end the run there.
func program(f *fakeKMS, frames int, ctx context.Context, fail func(frame int) error) (err error) {
	d, err := present.Open(f, present.Config{Connector: "HDMI-A-1", Mode: present.ModeSpec{Width: 640, Height: 480}})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, d.Close()) }()
	a, err := d.NewDumbBuffer()
	if err != nil {
		return err
	}
	b, err := d.NewDumbBuffer()
	if err != nil {
		return err
	}
	s, err := d.NewSwapchain(a, b)
	if err != nil {
		return err
	}
	frame := make([]byte, 640*480*4)
	for i := 0; i < frames; i++ {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if fail != nil {
			if err := fail(i); err != nil {
				return err
			}
		}
		buf, err := s.Acquire()
		if err != nil {
			return err
		}
		if err := buf.CopyFrom(frame, 640*4); err != nil {
			return err
		}
		if err := s.Present(buf); err != nil {
			return err
		}
	}
	return s.Wait()
}

func TestRestoreOnNormalEnd(t *testing.T) {
	f := newFakeKMS(t)
	if err := program(f, 10, context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	checkRestored(t, f)
	// The restore put back the saved fb, position and mode on the
	// connectors the CRTC drove.
	last := f.setcrtcs[len(f.setcrtcs)-1]
	if last.FbID != 70 || last.ModeValid != 1 || last.Mode != consoleFBMode.ModeModeInfo || last.CountConnectors != 1 {
		t.Errorf("last SETCRTC %+v", last)
	}
}

func TestRestoreOnErrorPaths(t *testing.T) {
	injected := errors.New("injected")
	for _, tc := range []struct {
		name string
		fail func(f *fakeKMS) func(int) error
	}{
		{"before the first frame", func(*fakeKMS) func(int) error {
			return func(int) error { return injected }
		}},
		{"after the mode was set", func(*fakeKMS) func(int) error {
			return func(i int) error {
				if i == 1 {
					return injected
				}
				return nil
			}
		}},
		{"with a flip pending", func(*fakeKMS) func(int) error {
			return func(i int) error {
				if i == 3 {
					return injected
				}
				return nil
			}
		}},
		{"page flip refused", func(f *fakeKMS) func(int) error {
			return func(i int) error {
				if i == 4 {
					f.Fail(uapi.IoctlModePageFlip, unix.EINVAL)
				}
				return nil
			}
		}},
		{"second dumb buffer refused", func(f *fakeKMS) func(int) error {
			f.dumbLimit = 1 // CMA exhausted after the first buffer
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeKMS(t)
			err := program(f, 10, context.Background(), tc.fail(f))
			if err == nil {
				t.Fatal("the program did not fail")
			}
			checkRestored(t, f)
		})
	}
}

func TestRestoreIsIdempotent(t *testing.T) {
	f, d := openTiny(t)
	s := dumbChain(t, d, 2)
	for i := 0; i < 3; i++ {
		b, _ := s.Acquire()
		if err := s.Present(b); err != nil {
			t.Fatal(err)
		}
	}
	if d.Restored() {
		t.Error("Restored() before Restore")
	}
	if err := d.Restore(); err != nil {
		t.Fatal(err)
	}
	if !d.Restored() {
		t.Error("not Restored() after Restore")
	}
	n := f.Calls(uapi.IoctlModeSetCrtc) + f.Calls(uapi.IoctlModeRmFB)
	if err := d.Restore(); err != nil {
		t.Fatal(err)
	}
	if m := f.Calls(uapi.IoctlModeSetCrtc) + f.Calls(uapi.IoctlModeRmFB); m != n {
		t.Errorf("the second Restore issued %d more ioctls", m-n)
	}
	// No more frames after the restore.
	if b, err := s.Acquire(); err == nil {
		if err := s.Present(b); !errors.Is(err, present.ErrRestored) {
			t.Errorf("Present after Restore: %v, want ErrRestored", err)
		}
	}
	if _, err := d.NewDumbBuffer(); !errors.Is(err, present.ErrRestored) {
		t.Errorf("NewDumbBuffer after Restore: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	checkRestored(t, f)
}

func TestRestoreWithoutFramesTouchesNoCrtc(t *testing.T) {
	f, d := openTiny(t)
	dumbChain(t, d, 2)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if n := f.Calls(uapi.IoctlModeSetCrtc); n != 0 {
		t.Errorf("%d SETCRTC calls for a display that never showed a frame", n)
	}
	checkRestored(t, f)
}

func TestRestoreOfAnIdleCrtcTurnsItOff(t *testing.T) {
	f := newFakeKMS(t)
	f.connectors[0].modes = []drm.ModeInfo{tinyMode}
	f.connectors[0].encoder, f.encoders[0].crtc = 0, 0
	d, err := present.Open(f, present.Config{})
	if err != nil || d.CrtcID() != 42 {
		t.Fatalf("%v, CRTC %d", err, d.CrtcID())
	}
	s := dumbChain(t, d, 2)
	b, _ := s.Acquire()
	if err := s.Present(b); err != nil {
		t.Fatal(err)
	}
	if fb, _, on := f.crtcState(42); !on || fb != b.FbID {
		t.Fatalf("CRTC 42 shows %d", fb)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	last := f.setcrtcs[len(f.setcrtcs)-1]
	if last.CrtcID != 42 || last.ModeValid != 0 || last.FbID != 0 || last.CountConnectors != 0 {
		t.Errorf("restore SETCRTC %+v; want CRTC 42 off", last)
	}
	if fb, _, on := f.crtcState(42); on || fb != 0 {
		t.Errorf("CRTC 42 still shows fb %d", fb)
	}
}

func TestRestoreWhenTheSavedFramebufferIsGone(t *testing.T) {
	f, d := openTiny(t)
	s := dumbChain(t, d, 2)
	b, _ := s.Acquire()
	if err := s.Present(b); err != nil {
		t.Fatal(err)
	}
	delete(f.fbs, 70) // the console's framebuffer went away meanwhile
	err := d.Close()
	if !errors.Is(err, unix.ENOENT) {
		t.Fatalf("got %v; want the SETCRTC's ENOENT", err)
	}
	// Nothing of ours stays on screen: removing the shown fb turned the
	// CRTC off.
	if fb, _, on := f.crtcState(41); on || fb != 0 {
		t.Errorf("CRTC 41 shows fb %d", fb)
	}
	if f.ownedFBs() != 0 || len(f.dumbs) != 0 {
		t.Error("buffers left")
	}
}

func TestRestoreOnSignal(t *testing.T) {
	f := newFakeKMS(t)
	d, err := present.Open(f, present.Config{Mode: present.ModeSpec{Width: 640, Height: 480}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := present.RestoreOnSignal(context.Background(), d, syscall.SIGUSR1)
	defer stop()
	a, _ := d.NewDumbBuffer()
	b, _ := d.NewDumbBuffer()
	s, err := d.NewSwapchain(a, b)
	if err != nil {
		t.Fatal(err)
	}
	var loopErr error
	for i := 0; i < 1000 && loopErr == nil; i++ {
		if i == 5 {
			syscall.Kill(os.Getpid(), syscall.SIGUSR1)
			// The helper restores from its own goroutine, at once.
			select {
			case <-ctx.Done():
			case <-time.After(10 * time.Second):
				t.Fatal("the signal was not handled")
			}
		}
		var buf *present.Buffer
		if buf, loopErr = s.Acquire(); loopErr == nil {
			loopErr = s.Present(buf)
		}
	}
	if !errors.Is(loopErr, present.ErrRestored) {
		t.Errorf("frame loop ended with %v; want ErrRestored", loopErr)
	}
	var in *present.Interrupted
	if !errors.As(context.Cause(ctx), &in) || in.Signal != syscall.SIGUSR1 || in.RestoreErr != nil {
		t.Fatalf("cause %v", context.Cause(ctx))
	}
	if in.ExitCode() != 128+10 { // SIGUSR1 is 10 on Linux
		t.Errorf("exit code %d", in.ExitCode())
	}
	// The display came back before the frame loop cleaned up.
	if fb, _, _ := f.crtcState(41); fb != 70 {
		t.Errorf("after the signal CRTC 41 shows fb %d, want 70", fb)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	checkRestored(t, f)
}

func TestRestoreOnSignalStop(t *testing.T) {
	restores := 0
	ctx, stop := present.RestoreOnSignal(context.Background(), restorerFunc(func() error { restores++; return nil }), syscall.SIGUSR2)
	stop()
	if restores != 0 || !errors.Is(context.Cause(ctx), context.Canceled) {
		t.Errorf("stop: %d restores, cause %v", restores, context.Cause(ctx))
	}
}

func TestInterruptedExitCodes(t *testing.T) {
	// 128 + the signal number: SIGINT is 2, SIGTERM 15 on Linux.
	for sig, want := range map[os.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143} {
		e := &present.Interrupted{Signal: sig}
		if e.ExitCode() != want {
			t.Errorf("%v: %d, want %d", sig, e.ExitCode(), want)
		}
	}
}

type restorerFunc func() error

func (f restorerFunc) Restore() error { return f() }
