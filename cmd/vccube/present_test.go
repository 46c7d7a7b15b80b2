package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vccube/vccube/cmd/vccube/internal/keys"
	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/internal/imgcmp"
	"github.com/vccube/vccube/internal/refrender"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/display"
	"github.com/vccube/vccube/uapi"
)

// console puts a text console's picture on the CRTC before the program
// runs, as fbcon has it on a Pi: a file shows a dumb buffer at 1024x768
// and then gives DRM master up, so the program's file becomes master when
// it opens the device. The program must leave exactly this behind.
func (d *testDevice) console(t *testing.T) *console {
	t.Helper()
	sf, err := d.dev.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sf.Close() })
	// The console is a program too: its calls are made again when a
	// signal interrupts them (sim.Faults.InterruptEachCall).
	f := drm.Restarting(sf)
	res, err := drm.GetResources(f)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := drm.GetConnector(f, res.Connectors[0])
	if err != nil {
		t.Fatal(err)
	}
	var mode *drm.ModeInfo
	for i := range conn.Modes {
		if m := &conn.Modes[i]; m.Hdisplay == 1024 && m.Vdisplay == 768 {
			mode = m
			break
		}
	}
	if mode == nil {
		t.Fatal("the monitor has no 1024x768")
	}
	db, err := drm.CreateDumb(f, 1024, 768, 32)
	if err != nil {
		t.Fatal(err)
	}
	fb, err := drm.AddFramebuffer(f, 1024, 768, uapi.FormatXRGB8888, db.Handle, db.Pitch, uapi.FormatModLinear)
	if err != nil {
		t.Fatal(err)
	}
	if err := drm.SetCrtc(f, res.CRTCs[0], fb, 0, 0, []uint32{conn.ID}, mode); err != nil {
		t.Fatal(err)
	}
	if err := drm.DropMaster(f); err != nil {
		t.Fatal(err)
	}
	c := &console{f: f, crtc: res.CRTCs[0]}
	c.saved = c.state(t)
	return c
}

type console struct {
	f     uapi.Conn
	crtc  uint32
	saved drm.Crtc
}

func (c *console) state(t *testing.T) drm.Crtc {
	t.Helper()
	s, err := drm.GetCrtc(c.f, c.crtc)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checkRestored fails the test unless the CRTC shows the console's
// framebuffer in the console's mode again.
func (c *console) checkRestored(t *testing.T) {
	t.Helper()
	got := c.state(t)
	if got.FbID != c.saved.FbID || got.ModeValid != c.saved.ModeValid || got.Mode != c.saved.Mode || got.X != c.saved.X || got.Y != c.saved.Y {
		t.Errorf("CRTC after the run: fb %d %v (valid %v); before: fb %d %v (valid %v)",
			got.FbID, got.Mode, got.ModeValid, c.saved.FbID, c.saved.Mode, c.saved.ModeValid)
	}
}

// checkOff fails the test unless the CRTC is off, as a device with no
// console starts.
func (d *testDevice) checkOff(t *testing.T) {
	t.Helper()
	if err := d.disp.ReadScanout(&display.Frame{}); err == nil {
		t.Error("the CRTC was left on")
	}
}

// Frames shown with page flips on the simulated display, captured by the
// program, match the goldens: several frame numbers, two modes, the default
// and a file texture, both FLIPY alternatives. The display is back on the
// console afterwards and no BO is left alive.
func TestPresentedFramesMatchGoldens(t *testing.T) {
	type run struct {
		g     refrender.Golden
		extra []string
	}
	var runs []run
	for _, g := range refrender.Goldens {
		runs = append(runs, run{g, nil})
	}
	runs = append(runs,
		run{goldenOf(refrender.DefaultTexture, 1280, 720, 30), []string{"-flipy=false"}},
		run{goldenOf(refrender.FileTexture, 800, 600, 20), []string{"-flipy=false"}})
	for _, c := range runs {
		name := strings.TrimSuffix(c.g.Name(), ".png") + strings.Join(c.extra, "")
		t.Run(name, func(t *testing.T) {
			d := newTestDevice(t, sim.Options{})
			con := d.console(t)
			shot := filepath.Join(t.TempDir(), "shot.png")
			args := append(goldenArgs(c.g, shot), "-mode", fmt.Sprintf("%dx%d@60", c.g.Width, c.g.Height))
			r := runOn(t, d, append(args, c.extra...)...)
			if r.code != exitOK {
				t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
			}
			checkShot(t, shot, c.g)
			con.checkRestored(t)
			d.checkNoLeaks(t)
		})
	}
}

// What the display scans out after the last flip is, pixel for pixel, the
// frame -capture wrote; and the benchmark counts every flip: one vblank
// apart on the display's clock, none missed, at the mode's refresh rate.
func TestScanoutIsTheCapture(t *testing.T) {
	d := newTestDevice(t, sim.Options{})
	shot := filepath.Join(t.TempDir(), "shot.png")
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, driDir: t.TempDir(), openSim: d.opener()}
	var scan display.Frame
	var shown image.Image
	const frames = 30
	e.afterFrame = func(k uint64) {
		if k == frames-1 {
			if err := d.disp.ReadScanout(&scan); err != nil {
				t.Error(err)
				return
			}
			var err error
			if shown, err = scan.Image(); err != nil {
				t.Error(err)
			}
		}
	}
	code := run(context.Background(), []string{"-device", "sim", "-mode", "800x600", "-frames", fmt.Sprint(frames),
		"-capture", shot, "-benchmark"}, e)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	captured := imgcmp.MustReadPNG(t, shot)
	if shown == nil {
		t.Fatal("nothing was scanned out")
	}
	res, err := imgcmp.Compare(captured, shown, 0)
	if err != nil || res.Over != 0 {
		t.Errorf("scanout differs from the capture: %v %v", res, err)
	}
	// 29 flips after the mode set of frame 0, each completed one vblank
	// after the previous (virtual time): 800x600@60 is 40 MHz over
	// 1056x628, 60.317 Hz, a period of 16.579 ms.
	report := out.String()
	for _, want := range []string{"page flips: 29 queued, 29 completed, 0 missed vblanks", "interval mean 16.579 ms", "mode refresh 60.317 Hz"} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	d.checkNoLeaks(t)
}

// Errors a person can act on, on the simulated device: each says what to
// do, exits with status 1, leaves no BO alive and leaves the console's
// picture on the CRTC.
func TestDisplayErrors(t *testing.T) {
	for _, c := range []struct {
		name    string
		opts    sim.Options
		dopts   display.Options
		console bool
		args    []string
		want    []string
	}{
		{"no connected display", sim.Options{}, display.Options{Unplugged: true}, false, nil,
			[]string{"no display is connected"}},
		{"unknown mode", sim.Options{}, display.Options{}, true, []string{"-mode", "1234x567"},
			[]string{"1234x567", "1920x1080@60 (preferred)", "800x600@60"}},
		{"unknown connector", sim.Options{}, display.Options{}, true, []string{"-connector", "DSI-1"},
			[]string{"DSI-1", "HDMI-A-1"}},
		{"another program holds DRM master", sim.Options{Faults: sim.Faults{MasterHeldElsewhere: true}}, display.Options{}, false, nil,
			[]string{"text console", "display-manager"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := newTestDisplay(t, c.opts, c.dopts)
			var con *console
			if c.console {
				con = d.console(t)
			}
			r := runOn(t, d, append([]string{"-device", "sim", "-frames", "3"}, c.args...)...)
			if r.code != exitError {
				t.Errorf("exit %d, want %d; stderr %s", r.code, exitError, r.stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
			if con != nil {
				con.checkRestored(t)
			} else {
				d.checkOff(t)
			}
			d.checkNoLeaks(t)
		})
	}
}

// CMA exhausted while the display is set up (the program's BOs, then each
// submit's): the display is put back and nothing is left alive.
func TestCMAExhaustedWithDisplay(t *testing.T) {
	for n := 1; n <= 12; n++ {
		d := newTestDevice(t, sim.Options{Faults: sim.Faults{CMAExhaustedAt: n}})
		r := runOn(t, d, "-device", "sim", "-mode", "800x600", "-frames", "3")
		if r.code != exitOK && (r.code != exitError || !strings.Contains(r.stderr, "cma-256")) {
			t.Errorf("allocation %d: exit %d: %s", n, r.code, r.stderr)
		}
		d.checkOff(t)
		d.checkNoLeaks(t)
		d.close()
	}
}

// SIGTERM and SIGINT in the middle of a run: the display is restored at
// once, the loop ends, the capture of the last frame is still written, and
// the program exits with 128 + the signal's number, with nothing left
// alive.
func TestSignalRestores(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			d := newTestDevice(t, sim.Options{})
			con := d.console(t)
			shot := filepath.Join(t.TempDir(), "shot.png")
			var out, errb bytes.Buffer
			e := &env{stdout: &out, stderr: &errb, driDir: t.TempDir(), openSim: d.opener()}
			sent := uint64(0)
			e.afterFrame = func(k uint64) {
				if k == 5 {
					sent = k
					// present.RestoreOnSignal is catching it now.
					syscall.Kill(os.Getpid(), sig)
				}
			}
			code := run(context.Background(), []string{"-device", "sim", "-mode", "800x600", "-capture", shot}, e)
			if want := 128 + int(sig); code != want {
				t.Errorf("exit %d, want %d; stderr %s", code, want, errb.String())
			}
			if sent == 0 || !strings.Contains(errb.String(), sig.String()) {
				t.Errorf("stderr %q", errb.String())
			}
			if _, err := os.Stat(shot); err != nil {
				t.Errorf("no capture: %v", err)
			}
			con.checkRestored(t)
			d.checkNoLeaks(t)
		})
	}
}

// With the page-flip loop too, the whole process (simulated device
// included) allocates nothing per frame.
func TestPresentLoopAllocatesNothing(t *testing.T) {
	d := newTestDevice(t, sim.Options{})
	if a := mallocsPerFrame(t, d, 100, "-device", "sim", "-mode", "640x480"); a >= 0.5 {
		t.Errorf("%.2f allocations per frame", a)
	}
}

// q ends a run early with status 0, after the frame being drawn.
func TestQuitKey(t *testing.T) {
	d := newTestDevice(t, sim.Options{})
	con := d.console(t)
	ch := make(chan keys.Key, 1)
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, driDir: t.TempDir(), openSim: d.opener(), keys: ch}
	e.afterFrame = func(k uint64) {
		if k == 3 {
			ch <- keys.Quit
		}
	}
	code := run(context.Background(), []string{"-device", "sim", "-mode", "640x480"}, e)
	if code != exitOK || !strings.HasPrefix(out.String(), "Rendered 3 frames in ") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	con.checkRestored(t)
	d.checkNoLeaks(t)
}

// -display: the GPU renders on one device and another card (here a simulated
// Pi 4, whose vc4 only displays) shows the frames from its own dumb buffers,
// each finished frame copied in (the GPU and the display are separate
// choices, -device and -display). -capture reads the frame back from the
// other card once it is on screen. The frames match the golden, the other
// card scans out exactly the captured frame, both cards are left as they
// were.
func TestOtherDisplayCard(t *testing.T) {
	gpuDev := newTestDevice(t, sim.Options{})
	gpuCon := gpuDev.console(t)
	dispDev := newTestDevice(t, sim.Options{Board: sim.BoardPi4})
	dispCon := dispDev.console(t)
	g := goldenOf(refrender.DefaultTexture, 800, 600, 10)
	shot := filepath.Join(t.TempDir(), "shot.png")
	var out, errb bytes.Buffer
	var opened string
	e := &env{stdout: &out, stderr: &errb, driDir: t.TempDir(), openSim: gpuDev.opener(),
		openCard: func(path string) (uapi.Conn, error) {
			opened = path
			return dispDev.opener()(sim.FaultSpec{})
		}}
	var shown image.Image
	e.afterFrame = func(k uint64) {
		if k == uint64(g.Frame) {
			var f display.Frame
			if err := dispDev.disp.ReadScanout(&f); err != nil {
				t.Error(err)
				return
			}
			var err error
			if shown, err = f.Image(); err != nil {
				t.Error(err)
			}
		}
	}
	code := run(context.Background(), append(goldenArgs(g, shot), "-display", "/dev/dri/card1", "-benchmark"), e)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if opened != "/dev/dri/card1" {
		t.Errorf("opened %q", opened)
	}
	checkShot(t, shot, g)
	captured := imgcmp.MustReadPNG(t, shot)
	if res, err := imgcmp.Compare(captured, shown, 0); err != nil || res.Over != 0 {
		t.Errorf("the other card's scanout differs from the capture: %v %v", res, err)
	}
	if !strings.Contains(out.String(), "page flips: 10 queued, 10 completed, 0 missed vblanks") ||
		!strings.Contains(out.String(), "on CRTC 95 of /dev/dri/card1 (vc4)") {
		t.Errorf("report:\n%s", out.String())
	}
	gpuCon.checkRestored(t)
	dispCon.checkRestored(t)
	gpuDev.checkNoLeaks(t)
	dispDev.checkNoLeaks(t)
}

// An error in the middle of a run, after the mode was set: on a display
// whose clock never reaches the next vblank (display.SteppedClock with no
// one stepping it), the first page flip never completes, and the wait for
// it gives up after the flip timeout (here 1 s instead of
// present.DefaultFlipTimeout). The program fails with status 1, the
// console's picture comes back and nothing is left alive.
func TestErrorAfterModeSetRestores(t *testing.T) {
	d := newTestDisplay(t, sim.Options{}, display.Options{Clock: display.SteppedClock})
	con := d.console(t)
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, driDir: t.TempDir(), openSim: d.opener(), flipTimeout: time.Second}
	code := run(context.Background(), []string{"-device", "sim", "-mode", "800x600", "-frames", "5"}, e)
	r := result{code, out.String(), errb.String()}
	if r.code != exitError || !strings.Contains(r.stderr, "did not complete") || r.stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	con.checkRestored(t)
	d.checkNoLeaks(t)
}

// A -capture-frame the run never reached (q came first) is an error, and
// no file is left behind.
func TestCaptureFrameNotReached(t *testing.T) {
	d := newTestDevice(t, sim.Options{})
	ch := make(chan keys.Key, 1)
	dir := t.TempDir()
	shot := filepath.Join(dir, "shot.png")
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, driDir: t.TempDir(), openSim: d.opener(), keys: ch}
	e.afterFrame = func(k uint64) {
		if k == 2 {
			ch <- keys.Quit
		}
	}
	code := run(context.Background(), []string{"-device", "sim", "-mode", "640x480", "-capture", shot, "-capture-frame", "10"}, e)
	if code != exitError || !strings.Contains(errb.String(), "-capture-frame 10 was not rendered: the run stopped after 3 frames") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
	d.checkNoLeaks(t)
}

// -display with -capture-frame K: frame K is read back from the other card
// as soon as its flip completes, in the middle of the run, and is the
// golden's frame K.
func TestOtherDisplayCaptureFrame(t *testing.T) {
	gpuDev := newTestDevice(t, sim.Options{})
	dispDev := newTestDevice(t, sim.Options{Board: sim.BoardPi4})
	g := goldenOf(refrender.DefaultTexture, 800, 600, 1)
	shot := filepath.Join(t.TempDir(), "shot.png")
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, driDir: t.TempDir(), openSim: gpuDev.opener(),
		openCard: func(string) (uapi.Conn, error) { return dispDev.opener()(sim.FaultSpec{}) }}
	code := run(context.Background(), []string{"-device", "sim", "-display", "/dev/dri/card1", "-mode", "800x600",
		"-frames", "5", "-capture", shot, "-capture-frame", "1"}, e)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	checkShot(t, shot, g)
	gpuDev.checkNoLeaks(t)
	dispDev.checkNoLeaks(t)
}

// -buffers 3: the frames rotate through three scanout buffers, on the
// GPU's own display (the renderer's colour buffers) and on another card
// (its dumb buffers); the frames still match the golden, every flip lands
// one vblank after the last, and both cards are left as they were.
func TestTripleBuffering(t *testing.T) {
	g := goldenOf(refrender.DefaultTexture, 800, 600, 10)
	for _, other := range []bool{false, true} {
		t.Run(fmt.Sprintf("other card %v", other), func(t *testing.T) {
			gpuDev := newTestDevice(t, sim.Options{})
			shown := gpuDev
			var e env
			shot := filepath.Join(t.TempDir(), "shot.png")
			args := goldenArgs(g, shot)
			if other {
				shown = newTestDevice(t, sim.Options{Board: sim.BoardPi4})
				e.openCard = func(string) (uapi.Conn, error) { return shown.opener()(sim.FaultSpec{}) }
				args = append(args, "-display", "/dev/dri/card1")
			}
			con := shown.console(t)
			var out, errb bytes.Buffer
			e.stdout, e.stderr, e.driDir, e.openSim = &out, &errb, t.TempDir(), gpuDev.opener()
			fbs := map[uint32]bool{}
			e.afterFrame = func(uint64) { fbs[con.state(t).FbID] = true }
			if code := run(context.Background(), append(args, "-buffers", "3", "-benchmark"), &e); code != exitOK {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			checkShot(t, shot, g)
			// Frame 0 sets the mode; by the end of frame 10 the CRTC has
			// scanned out each of the three buffers (the console's
			// framebuffer only before frame 0 was shown).
			delete(fbs, con.saved.FbID)
			if len(fbs) != 3 {
				t.Errorf("the CRTC scanned out %d framebuffers of ours, want 3", len(fbs))
			}
			if !strings.Contains(out.String(), "page flips: 10 queued, 10 completed, 0 missed vblanks") {
				t.Errorf("report:\n%s", out.String())
			}
			con.checkRestored(t)
			gpuDev.checkNoLeaks(t)
			shown.checkNoLeaks(t)
		})
	}
}
