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
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/kernel"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// program is the frame loop as cmd/vccube runs it: open, buffers, a
// swapchain, frames until done or stopped, everything undone by deferred
// Close. fail (if set) is called before each frame and may return an error
// to end the run there.
func program(c uapi.Conn, frames int, ctx context.Context, fail func(frame int) error) (err error) {
	_, err = programWith(c, frames, ctx, fail, false)
	return err
}

// programWith is program, with atomic commits if atomic (vccube
// -atomic), returning the swapchain's statistics.
func programWith(c uapi.Conn, frames int, ctx context.Context, fail func(frame int) error, atomic bool) (st present.Stats, err error) {
	d, err := present.Open(c, present.Config{Connector: "HDMI-A-1", Mode: present.ModeSpec{Width: 640, Height: 480}})
	if err != nil {
		return st, err
	}
	defer func() { err = errors.Join(err, d.Close()) }()
	if atomic {
		if err := d.EnableAtomic(); err != nil {
			return st, err
		}
	}
	a, err := d.NewDumbBuffer()
	if err != nil {
		return st, err
	}
	b, err := d.NewDumbBuffer()
	if err != nil {
		return st, err
	}
	s, err := d.NewSwapchain(a, b)
	if err != nil {
		return st, err
	}
	defer func() { st = s.Stats() }()
	frame := make([]byte, 640*480*4)
	for i := 0; i < frames; i++ {
		if ctx.Err() != nil {
			return st, context.Cause(ctx)
		}
		if fail != nil {
			if err := fail(i); err != nil {
				return st, err
			}
		}
		buf, err := s.Acquire()
		if err != nil {
			return st, err
		}
		if err := buf.CopyFrom(frame, 640*4); err != nil {
			return st, err
		}
		if err := s.Present(buf); err != nil {
			return st, err
		}
	}
	return st, s.Wait()
}

// The atomic path (vccube -atomic) shows its frames with one commit each,
// every out-fence signalled with its flip event, and puts the CRTC back
// on every way out, as the legacy path does.
func TestAtomicRestoreOnEveryPath(t *testing.T) {
	injected := errors.New("injected")
	at := func(k int) func(*rig) func(int) error {
		return func(*rig) func(int) error {
			return func(i int) error {
				if i == k {
					return injected
				}
				return nil
			}
		}
	}
	for _, tc := range []struct {
		name string
		fail func(r *rig) func(int) error
	}{
		{"normal end", func(*rig) func(int) error { return nil }},
		{"before the first frame", at(0)},
		{"after the mode was set", at(1)},
		{"with a commit pending", at(3)},
		{"commit refused", func(r *rig) func(int) error {
			return func(i int) error {
				if i == 4 {
					r.conn.Fail(uapi.IoctlModeAtomic, unix.EINVAL)
				}
				return nil
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, rigOptions{console: true})
			st, err := programWith(r.conn, 10, context.Background(), tc.fail(r), true)
			if tc.name == "normal end" {
				if err != nil {
					t.Fatal(err)
				}
				if !st.Atomic || !st.ModeSet || st.Completed != 9 || st.OutFences != 9 || st.OutFencesLate != 0 {
					t.Errorf("stats %+v; want an atomic mode set, 9 flips and 9 signalled out-fences", st)
				}
			} else if err == nil {
				t.Fatal("the program did not fail")
			}
			if n := r.conn.Calls(uapi.IoctlModeAtomic); n == 0 {
				t.Error("no atomic commit was made")
			}
			if n := r.conn.Calls(uapi.IoctlModePageFlip); n != 0 {
				t.Errorf("%d legacy page flips on the atomic path", n)
			}
			r.checkRestored()
			if n := kernel.LiveSyncFiles(); n != 0 {
				t.Errorf("%d out-fences left open", n)
			}
		})
	}
}

func TestRestoreOnNormalEnd(t *testing.T) {
	r := newRig(t, rigOptions{console: true})
	if err := program(r.conn, 10, context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	r.checkRestored()
}

func TestRestoreOnErrorPaths(t *testing.T) {
	injected := errors.New("injected")
	for _, tc := range []struct {
		name   string
		faults sim.Faults
		fail   func(r *rig) func(int) error
	}{
		{"before the first frame", sim.Faults{}, func(*rig) func(int) error {
			return func(int) error { return injected }
		}},
		{"after the mode was set", sim.Faults{}, func(*rig) func(int) error {
			return func(i int) error {
				if i == 1 {
					return injected
				}
				return nil
			}
		}},
		{"with a flip pending", sim.Faults{}, func(*rig) func(int) error {
			return func(i int) error {
				if i == 3 {
					return injected
				}
				return nil
			}
		}},
		{"page flip refused", sim.Faults{}, func(r *rig) func(int) error {
			return func(i int) error {
				if i == 4 {
					r.conn.Fail(uapi.IoctlModePageFlip, unix.EINVAL)
				}
				return nil
			}
		}},
		// CMA runs out at the program's second buffer: the console's is
		// the first allocation, the program's first buffer the second.
		{"second dumb buffer refused", sim.Faults{CMAExhaustedAt: 3}, func(*rig) func(int) error { return nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, rigOptions{console: true, faults: tc.faults})
			err := program(r.conn, 10, context.Background(), tc.fail(r))
			if err == nil {
				t.Fatal("the program did not fail")
			}
			if tc.faults.CMAExhaustedAt != 0 && !errors.Is(err, unix.ENOMEM) {
				t.Errorf("got %v; want the second buffer's ENOMEM", err)
			}
			r.checkRestored()
		})
	}
}

func TestRestoreIsIdempotent(t *testing.T) {
	r := newRig(t, rigOptions{console: true, monitor: tinyMonitor()})
	d := openOn(t, r.conn)
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
	n := r.conn.Calls(uapi.IoctlModeSetCrtc) + r.conn.Calls(uapi.IoctlModeRmFB)
	if err := d.Restore(); err != nil {
		t.Fatal(err)
	}
	if m := r.conn.Calls(uapi.IoctlModeSetCrtc) + r.conn.Calls(uapi.IoctlModeRmFB); m != n {
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
	r.checkRestored()
}

func TestRestoreWithoutFramesTouchesNoCrtc(t *testing.T) {
	r := newRig(t, rigOptions{console: true, monitor: tinyMonitor()})
	d := openOn(t, r.conn)
	dumbChain(t, d, 2)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if n := r.conn.Calls(uapi.IoctlModeSetCrtc); n != 0 {
		t.Errorf("%d SETCRTC calls for a display that never showed a frame", n)
	}
	r.checkRestored()
}

func TestRestoreOfAnIdleCrtcTurnsItOff(t *testing.T) {
	r := newRig(t, rigOptions{monitor: tinyMonitor()}) // no console: the CRTC is off
	d := openOn(t, r.conn)
	s := dumbChain(t, d, 2)
	b, _ := s.Acquire()
	if err := s.Present(b); err != nil {
		t.Fatal(err)
	}
	if c := r.crtc(); !c.ModeValid || c.FbID != b.FbID {
		t.Fatalf("the CRTC shows %d", c.FbID)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if c := r.crtc(); c.ModeValid || c.FbID != 0 {
		t.Errorf("the CRTC is on (%v) showing fb %d; want it off again", c.ModeValid, c.FbID)
	}
	if r.programFBs() != 0 || r.dumbBOs() != 0 {
		t.Errorf("%d framebuffers and %d dumb buffers left", r.programFBs(), r.dumbBOs())
	}
}

func TestRestoreWhenTheSavedFramebufferIsGone(t *testing.T) {
	r := newRig(t, rigOptions{console: true, monitor: tinyMonitor()})
	d := openOn(t, r.conn)
	s := dumbChain(t, d, 2)
	b, _ := s.Acquire()
	if err := s.Present(b); err != nil {
		t.Fatal(err)
	}
	// The console removes its framebuffer meanwhile.
	if err := drm.RmFB(r.console, r.consoleFB); err != nil {
		t.Fatal(err)
	}
	err := d.Close()
	if !errors.Is(err, unix.ENOENT) {
		t.Fatalf("got %v; want the SETCRTC's ENOENT", err)
	}
	// Nothing of ours stays on screen: removing the framebuffer shown
	// took it off the plane (drm_framebuffer_remove; vc4 keeps the CRTC
	// running with no plane).
	if c := r.crtc(); c.FbID != 0 {
		t.Errorf("the CRTC shows fb %d", c.FbID)
	}
	if r.programFBs() != 0 || r.dumbBOs() != 1 {
		t.Errorf("%d framebuffers and %d dumb buffers (the console's one included) left", r.programFBs(), r.dumbBOs())
	}
}

func TestRestoreOnSignal(t *testing.T) {
	r := newRig(t, rigOptions{console: true})
	d, err := present.Open(r.conn, present.Config{Mode: present.ModeSpec{Width: 640, Height: 480}})
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
	if c := r.crtc(); c.FbID != r.consoleFB {
		t.Errorf("after the signal the CRTC shows fb %d, want the console's %d", c.FbID, r.consoleFB)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	r.checkRestored()
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
