package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vccube/vccube/cuberender"
	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/gem"
	"github.com/vccube/vccube/internal/imgcmp"
	"github.com/vccube/vccube/internal/refrender"
	"github.com/vccube/vccube/report"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/display"
	"github.com/vccube/vccube/sim/kernel"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// What the program does when the hardware does what the model did not
// predict, on the simulated device's fault knobs: GPU hangs
// (sim.Faults.GPU), calls interrupted by signals
// (sim.Faults.InterruptEachCall), a display unplugged in the middle of a
// run (display.Unplug), and a Pi 4 or 5, whose vc4 only displays.

// testHangcheck is the simulated kernel's hang-check period in these
// tests: the kernel's is a second (kernel.KernelHangcheckPeriod), which
// would make every hang cost one to two seconds; the program's behaviour
// does not depend on it.
const testHangcheck = 10 * time.Millisecond

// hangDevice is a device with the given GPU faults, the kernel's hang
// handling at testHangcheck, and a text console on its display.
func hangDevice(t *testing.T, f kernel.GPUFaults, binRestarts int) (*testDevice, *console) {
	t.Helper()
	d := newTestDevice(t, sim.Options{HangcheckPeriod: testHangcheck, BinHangRestarts: binRestarts, Faults: sim.Faults{GPU: f}})
	return d, d.console(t)
}

// resetsLogged counts the simulated kernel's "Resetting GPU." lines.
func resetsLogged(d *testDevice) int {
	n := 0
	for _, l := range d.KernelLog() {
		if strings.HasPrefix(l, "Resetting GPU.") {
			n++
		}
	}
	return n
}

func wantAll(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, got)
		}
	}
}

// One hang: the frame is lost and said to be, the run goes on, the later
// frames are whole (the capture of the last is the golden), the report
// counts it, and the program exits with status 1 saying what to do.
func TestOneGPUHang(t *testing.T) {
	for _, atomic := range []bool{false, true} {
		t.Run(fmt.Sprintf("atomic %v", atomic), func(t *testing.T) { testOneGPUHang(t, atomic) })
	}
}

func testOneGPUHang(t *testing.T, atomic bool) {
	g := goldenOf(refrender.DefaultTexture, 800, 600, 10)
	d, con := hangDevice(t, kernel.GPUFaults{HangAt: 3}, 0)
	shot := filepath.Join(t.TempDir(), "shot.png")
	args := append(goldenArgs(g, shot), "-benchmark")
	if atomic {
		args = append(args, "-atomic")
	}
	r := runOn(t, d, args...)
	if r.code != exitError {
		t.Errorf("exit %d, want %d", r.code, exitError)
	}
	wantAll(t, "stderr", r.stderr,
		"vccube: frame 2 (seqno 3) was lost: the GPU hung, and the kernel reset it and gave the job back undrawn; the frame is not shown, and the run goes on",
		"vccube: wrote frame 10 (800x600)",
		"vccube: 1 of 11 frames were lost to GPU hangs (frame 2)",
		"the simulated kernel logged 1 resets")
	wantAll(t, "report", r.stdout,
		"GPU hangs: 1 of 11 frames lost; kernel hang states: not read: the simulated kernel answers GET_HANG_STATE to root only",
		"  frame 2 (seqno 3): lost: the GPU hung, the kernel reset it and completed the job undrawn",
		// Ten frames shown: the mode set and nine flips.
		"page flips: 9 queued, 9 completed, 0 missed vblanks")
	t.Logf("stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	checkShot(t, shot, g)
	if n := resetsLogged(d); n != 1 {
		t.Errorf("%d resets logged", n)
	}
	con.checkRestored(t)
	d.checkOnlyHungJobAlive(t, true)
}

// A GPU that hangs on every job from the third: every frame from frame 2
// is lost, the JSON report lists each, the last whole frame (1) is what
// -capture writes, and the status is 1.
func TestGPUHangsOnEveryJobFromTheThird(t *testing.T) {
	d, con := hangDevice(t, kernel.GPUFaults{HangFrom: 3}, 0)
	shot := filepath.Join(t.TempDir(), "shot.png")
	r := runOn(t, d, "-device", "sim", "-mode", "800x600", "-frames", "11", "-capture", shot, "-json")
	if r.code != exitError {
		t.Errorf("exit %d, want %d", r.code, exitError)
	}
	rep, err := report.Parse([]byte(r.stdout))
	if err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	h := rep.GPUHangs
	if h.Frames != 11 || h.LostFrames != 9 || h.Stuck || h.HangStates != 0 || len(h.Events) != 9 {
		t.Errorf("gpu_hangs %+v", h)
	}
	for i, e := range h.Events {
		if e.What != report.HangLost || e.Frame != uint64(i+2) || e.Seqno != uint64(i+3) || e.State != nil {
			t.Errorf("event %d: %+v", i, e)
		}
	}
	if f := rep.Flips; f == nil || f.Queued != 1 || f.Completed != 1 {
		t.Errorf("flips %+v: frames 0 and 1 are the only ones shown", f)
	}
	wantAll(t, "stderr", r.stderr, "vccube: further hangs are listed in the report only", "vccube: wrote frame 1 (800x600)",
		"vccube: 9 of 11 frames were lost to GPU hangs (frame 2, 3, 4, 5, 6, 7, 8, 9, …)")
	checkShot(t, shot, goldenOf(refrender.DefaultTexture, 800, 600, 1))
	if n := resetsLogged(d); n != 9 {
		t.Errorf("%d resets logged, want 9", n)
	}
	t.Logf("gpu_hangs: %s", jsonField(t, r.stdout, "gpu_hangs"))
	con.checkRestored(t)
	// The kernel keeps the first hang's state (frame 2's job) until root
	// reads it, and with it the renderer's six BOs.
	d.checkOnlyHungJobAlive(t, true)
}

// A job that never ends (its binning hangs on every try, and the kernel
// restarts it after each reset): the wait gives up, the run stops with
// the report, and the display and the buffers are put back.
func TestGPUJobNeverEnds(t *testing.T) {
	d, con := hangDevice(t, kernel.GPUFaults{StallBinAt: 3}, -1)
	var out, errb bytes.Buffer
	// The wait gives up after stuckAfter. The frames before the stuck one
	// are tiny (64x64, rendered without page flips), so that they finish
	// far within it on any machine, however slow or loaded (under qemu-arm
	// one takes a few tens of milliseconds); the stuck one never
	// finishes, whatever the timeout.
	const stuckAfter = 3 * time.Second
	e := &env{stdout: &out, stderr: &errb, driDir: t.TempDir(), openSim: d.opener(), waitTimeout: stuckAfter}
	code := run(context.Background(), []string{"-device", "sim", "-vsync=false", "-mode", "64x64", "-frames", "11", "-benchmark"}, e)
	if code != exitError {
		t.Errorf("exit %d, want %d", code, exitError)
	}
	wantAll(t, "stderr", errb.String(),
		"vccube: frame 2: render: the GPU did not finish frame seqno 3 within 3s (WAIT_SEQNO: ETIME): it is stuck on it",
		"a job whose binning hangs every time is restarted after each reset and never ends",
		"no later frame can be drawn before it, so the run stops")
	wantAll(t, "report", out.String(),
		"Rendered 1 frames in",
		"GPU hangs: 0 of 2 frames lost, and the next never finished (the GPU stayed hung)",
		"  frame 2 (seqno 3): never finished: the GPU stayed hung",
		"stopped early: frame 2 never finished: the GPU stayed hung for 3s")
	t.Logf("stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	if n := resetsLogged(d); n < 1 {
		t.Errorf("%d resets logged", n)
	}
	con.checkRestored(t)
	d.checkOnlyHungJobAlive(t, true)
}

// A job that ends late (well beyond a frame period, making progress all
// the while) is no hang: the frame is whole and nothing is reported.
func TestGPUJobEndsLate(t *testing.T) {
	g := goldenOf(refrender.DefaultTexture, 800, 600, 10)
	d, con := hangDevice(t, kernel.GPUFaults{LateAt: 3, LateBy: 100 * time.Millisecond}, 0)
	shot := filepath.Join(t.TempDir(), "shot.png")
	var out, errb bytes.Buffer
	var took time.Duration
	var start time.Time
	e := &env{stdout: &out, stderr: &errb, driDir: t.TempDir(), openSim: d.opener()}
	e.afterFrame = func(k uint64) {
		switch k {
		case 1:
			start = time.Now()
		case 2:
			took = time.Since(start)
		}
	}
	code := run(context.Background(), append(goldenArgs(g, shot), "-benchmark"), e)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if took < 100*time.Millisecond {
		t.Errorf("frame 2 took %v; the fault did not make it late", took)
	}
	wantAll(t, "report", out.String(), "GPU hangs: none")
	checkShot(t, shot, g)
	if n := resetsLogged(d); n != 0 {
		t.Errorf("%d resets logged for a late job", n)
	}
	con.checkRestored(t)
	d.checkNoLeaks(t)
}

// Without root, a reset whose frame still came out whole (a job whose
// binning hung once, binned again after the reset) takes as long as the
// kernel's own hang-check period, a second or more. On a card (the model
// reached as a Pi's kernel would be, through -device /dev/dri/card0) that
// time is all the program can see: the frame is counted as slow, and the
// messages send the person to dmesg. On the simulated device the program
// reads its kernel's log, which names the job it reset: the frame is
// recorded as a reset, and nothing mentions dmesg, which has no such line
// there. Either way the frame is whole and the status is 0.
func TestGPUResetSurvivedWithoutRoot(t *testing.T) {
	for _, onCard := range []bool{false, true} {
		t.Run(fmt.Sprintf("card %v", onCard), func(t *testing.T) { testGPUResetSurvivedWithoutRoot(t, onCard) })
	}
}

func testGPUResetSurvivedWithoutRoot(t *testing.T, onCard bool) {
	g := goldenOf(refrender.DefaultTexture, 800, 600, 10)
	d := newTestDevice(t, sim.Options{HangcheckPeriod: kernel.KernelHangcheckPeriod, BinHangRestarts: -1,
		Faults: sim.Faults{GPU: kernel.GPUFaults{StallBinAt: 3, StallBinRuns: 1}}})
	con := d.console(t)
	shot := filepath.Join(t.TempDir(), "shot.png")
	args := append(goldenArgs(g, shot), "-benchmark")
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, driDir: t.TempDir(), openSim: d.opener()}
	if onCard {
		// A card: the program does not look for a kernel log there.
		e.openSim = mustNotOpen(t)
		e.openCard = func(string) (uapi.Conn, error) { return d.opener()(sim.FaultSpec{}) }
		args = append(args, "-device", "/dev/dri/card0")
	}
	code := run(context.Background(), args, e)
	r := result{code, out.String(), errb.String()}
	if r.code != exitOK {
		t.Errorf("exit %d: %s", r.code, r.stderr)
	}
	if onCard {
		wantAll(t, "stderr", r.stderr, "vccube: frame 2 (seqno 3) took ", "s, as long as the kernel takes to reset a hung GPU",
			`(check dmesg for "Resetting GPU.")`)
		// How many frames took a second or more depends on the machine
		// too (under qemu-arm a whole 800x600 frame can take that long):
		// only frame 2's is the program's doing, so only it is asserted,
		// and the count is at least 1.
		wantAll(t, "report", r.stdout, "GPU hangs: 0 of 11 frames lost; kernel hang states: not read: GET_HANG_STATE is for root only (run vccube as root",
			" frames took a second or more", `(check dmesg for "Resetting GPU.")`)
	} else {
		wantAll(t, "stderr", r.stderr, `vccube: frame 2 (seqno 3) came out whole, but the simulated kernel reset the GPU while it was drawn (it logged "Resetting GPU. (seqno 3: `)
		wantAll(t, "report", r.stdout,
			"GPU hangs: 0 of 11 frames lost; kernel hang states: not read: the simulated kernel answers GET_HANG_STATE to root only, as Linux does; its log, which vccube reads, names the jobs it reset\n",
			"  frame 2 (seqno 3): whole, but the kernel reset the GPU while it was drawn\n")
		if strings.Contains(r.stdout+r.stderr, "dmesg") || strings.Contains(r.stdout+r.stderr, "run vccube as root") {
			t.Errorf("the simulated device's run sends the person to dmesg or root:\n%s\n%s", r.stdout, r.stderr)
		}
	}
	checkShot(t, shot, g)
	if n := resetsLogged(d); n != 1 {
		t.Errorf("%d resets logged, want 1", n)
	}
	con.checkRestored(t)
	d.checkOnlyHungJobAlive(t, true) // the kernel keeps the reset's state
}

// On the simulated device the program opens itself, its file is root's
// when it runs as root, as a file of /dev/dri/card0 is on a Pi: the
// simulated kernel then answers GET_HANG_STATE (root only, as Linux's
// vc4_get_hang_state_ioctl, DRM_ROOT_ONLY), and refuses it otherwise.
func TestDefaultSimIsRootsForRoot(t *testing.T) {
	c, err := defaultSim(sim.FaultSpec{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var scratch uapi.GetHangState
	pending, err := gem.PeekHangState(c, &scratch)
	if os.Geteuid() == 0 {
		if err != nil || pending {
			t.Errorf("as root: GET_HANG_STATE answered %v, pending %v; want no hang state and no error", err, pending)
		}
		return
	}
	if !errors.Is(err, unix.EACCES) {
		t.Errorf("as uid %d: GET_HANG_STATE answered %v, want EACCES", os.Geteuid(), err)
	}
}

// As root, the program reads the kernel's hang states: one left from
// before the run (another program's hang), a reset whose frame still came
// out whole (a job whose binning hung once is restarted), and the hang of
// a lost frame; each with its summary, in the text and the JSON report.
func TestGPUHangStatesAsRoot(t *testing.T) {
	for _, asJSON := range []bool{false, true} {
		t.Run(fmt.Sprintf("json=%v", asJSON), func(t *testing.T) {
			d, con := hangDevice(t, kernel.GPUFaults{HangAt: 1, StallBinAt: 4, StallBinRuns: 1, HangFrom: 12}, -1)
			// Another program's frame hangs before the run (seqno 1).
			other, err := d.dev.Open()
			if err != nil {
				t.Fatal(err)
			}
			ro, err := cuberender.New(drm.Restarting(other), cuberender.Options{Width: 64, Height: 64})
			if err != nil {
				t.Fatal(err)
			}
			seqno, err := ro.Render(0, 0)
			if err != nil {
				t.Fatal(err)
			}
			var lost *cuberender.LostFrameError
			if err := ro.Wait(seqno); !errors.As(err, &lost) {
				t.Fatalf("the other program's frame: %v", err)
			}
			ro.Close()
			other.Close()

			d.root = true
			args := []string{"-device", "sim", "-mode", "640x480", "-frames", "11", "-benchmark"}
			if asJSON {
				args = append(args, "-json")
			}
			r := runOn(t, d, args...)
			if r.code != exitError {
				t.Errorf("exit %d, want %d: %s", r.code, exitError, r.stderr)
			}
			wantAll(t, "stderr", r.stderr,
				"vccube: frame 2 (seqno 4) came out whole, but the kernel reset the GPU while it was drawn",
				"vccube: frame 10 (seqno 12) was lost",
				"vccube: 1 of 11 frames were lost to GPU hangs (frame 10)")
			if !asJSON {
				wantAll(t, "report", r.stdout,
					"GPU hangs: 1 of 11 frames lost; 3 kernel hang states read",
					"  before this run: the kernel held a hang state",
					"  frame 2 (seqno 4): whole, but the kernel reset the GPU while it was drawn",
					"    binning (thread 0): stopped at 0x",
					"  frame 10 (seqno 12): lost: the GPU hung, the kernel reset it and completed the job undrawn",
					"    rendering (thread 1): stopped at 0x",
					"    error bits: none (ERRSTAT, DBGE, FDBGO)")
				t.Logf("report:\n%s", r.stdout)
				con.checkRestored(t)
				d.checkNoLeaks(t)
				return
			}
			rep, err := report.Parse([]byte(r.stdout))
			if err != nil {
				t.Fatal(err)
			}
			h := rep.GPUHangs
			want := []struct {
				what         string
				frame, seqno uint64
			}{{report.HangBefore, 0, 0}, {report.HangReset, 2, 4}, {report.HangLost, 10, 12}}
			if h.LostFrames != 1 || h.HangStates != 3 || h.HangStateNote != "" || len(h.Events) != len(want) {
				t.Fatalf("gpu_hangs %+v", h)
			}
			for i, w := range want {
				e := h.Events[i]
				if e.What != w.what || e.Frame != w.frame || e.Seqno != w.seqno || e.State == nil || len(e.State.Summary) == 0 || e.State.BOs == 0 {
					t.Errorf("event %d: %+v, want %v", i, e, w)
				}
			}
			// The bin stall: the binner stopped at the start of its list,
			// the render list had not begun; the render hang: the bin
			// list finished, the render list stopped at its start.
			if s := h.Events[1].State; s.Ct0ca != s.StartBin || s.Ct0ea <= s.Ct0ca {
				t.Errorf("the bin stall's state %+v", s)
			}
			if s := h.Events[2].State; s.Ct0ca != s.Ct0ea || s.Ct1ca != s.StartRender {
				t.Errorf("the render hang's state %+v", s)
			}
			t.Logf("gpu_hangs: %s", jsonField(t, r.stdout, "gpu_hangs"))
			con.checkRestored(t)
			d.checkNoLeaks(t)
		})
	}
}

// checkOnlyHungJobAlive is checkNoLeaks for a run whose last hung job the
// kernel still holds: in the hang state it saved, which keeps the job's
// BOs until root reads it (vc4_gem.c vc4_save_hang_state), or in its
// queue, for a job that never ends. The BOs alive when the program closed
// its file must be exactly one frame's: the three shader BOs, and the
// vertex, texture and colour buffers. With hangState, root reads the
// state and finds them (and the kernel's exec and render-list BOs).
func (d *testDevice) checkOnlyHungJobAlive(t *testing.T, hangState bool) {
	t.Helper()
	d.mu.Lock()
	leaked := fmt.Sprint(d.leaked())
	d.mu.Unlock()
	if leaked != "[3 V3D BOs 3 V3D shader BOs]" && leaked != "[3 V3D shader BOs 3 V3D BOs]" {
		t.Errorf("BOs alive when the program closed the device: %s; want the hung job's 3 V3D and 3 V3D shader BOs", leaked)
	}
	if !hangState {
		return
	}
	root, err := d.dev.OpenWith(sim.OpenOptions{Root: true})
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	h, err := gem.GetHangStateReport(root)
	if err != nil {
		t.Fatalf("reading the hang state: %v", err)
	}
	if len(h.BOs) != 8 {
		t.Errorf("the hang state holds %d BOs, want the job's 6, its exec BO and its render list", len(h.BOs))
	}
	h.CloseBOs(root)
}

// jsonField returns the text of one top-level field of a JSON object, for
// the logs.
func jsonField(t *testing.T, obj, name string) string {
	t.Helper()
	i := strings.Index(obj, `"`+name+`":`)
	if i < 0 {
		return "(none)"
	}
	s := obj[i:]
	depth := 0
	for j, c := range s {
		switch c {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return s[:j+1]
			}
		}
	}
	return s
}

// scanoutCRCs records the CRC of each frame's scanout on d's display (or
// on another display), after each frame.
func scanoutCRCs(t *testing.T, disp *display.Display, e *env) *[]uint32 {
	crcs := new([]uint32)
	var f display.Frame
	e.afterFrame = func(uint64) {
		if err := disp.ReadScanout(&f); err != nil {
			t.Error(err)
			return
		}
		*crcs = append(*crcs, crc32.ChecksumIEEE(f.Data))
	}
	return crcs
}

// Every ioctl and every event read interrupted once (EINTR, as when a
// signal arrives while the kernel waits): the program makes each call
// again, so the run is the run without interruptions — the same picture
// on the screen after every frame, the same flips, no BO left, the CRTC
// put back, and a trace with no failed call. On the GPU's own display and
// on another card.
func TestInterruptedCalls(t *testing.T) {
	for _, c := range []struct{ other, atomic bool }{{false, false}, {true, false}, {false, true}} {
		other := c.other
		t.Run(fmt.Sprintf("other card %v, atomic %v", c.other, c.atomic), func(t *testing.T) {
			type outcome struct {
				crcs   []uint32
				report string
			}
			var eintr eintrCounter
			runWith := func(interrupt bool, trace string) outcome {
				opts := sim.Options{Faults: sim.Faults{InterruptEachCall: interrupt}}
				if interrupt {
					opts.Trace = &eintr
				}
				gpuDev := newTestDevice(t, opts)
				shown := gpuDev
				var out, errb bytes.Buffer
				e := &env{stdout: &out, stderr: &errb, driDir: t.TempDir(), openSim: gpuDev.opener()}
				args := []string{"-device", "sim", "-mode", "640x480", "-frames", "12", "-buffers", "3", "-benchmark"}
				if other {
					opts.Board = sim.BoardPi4
					shown = newTestDevice(t, opts)
					e.openCard = func(string) (uapi.Conn, error) { return shown.opener()(sim.FaultSpec{}) }
					args = append(args, "-display", "/dev/dri/card1")
				}
				if trace != "" {
					args = append(args, "-trace", trace)
				}
				if c.atomic {
					args = append(args, "-atomic")
				}
				con := shown.console(t)
				crcs := scanoutCRCs(t, shown.disp, e)
				if code := run(context.Background(), args, e); code != exitOK {
					t.Fatalf("interrupt %v: exit %d: %s", interrupt, code, errb.String())
				}
				con.checkRestored(t)
				gpuDev.checkNoLeaks(t)
				shown.checkNoLeaks(t)
				// The report without its timings.
				var lines []string
				for _, l := range strings.Split(out.String(), "\n") {
					if strings.HasPrefix(l, "page flips:") || strings.HasPrefix(l, "GPU hangs:") || strings.HasPrefix(l, "atomic") {
						lines = append(lines, l[:strings.Index(l+";", ";")])
					}
				}
				return outcome{*crcs, strings.Join(lines, "\n")}
			}
			trace := filepath.Join(t.TempDir(), "eintr.jsonl")
			plain, interrupted := runWith(false, ""), runWith(true, trace)
			if len(plain.crcs) != 12 || fmt.Sprint(plain.crcs) != fmt.Sprint(interrupted.crcs) {
				t.Errorf("the screen after each frame: %08x without interruptions, %08x with", plain.crcs, interrupted.crcs)
			}
			if plain.report != interrupted.report || !strings.Contains(plain.report, "page flips: 11 queued, 11 completed, 0 missed vblanks") {
				t.Errorf("report without interruptions:\n%s\nwith:\n%s", plain.report, interrupted.report)
			}
			f, err := os.Open(trace)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			tr, err := drm.NewTraceReader(f)
			if err != nil {
				t.Fatal(err)
			}
			calls := 0
			for {
				rec, err := tr.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				calls++
				if rec.Errno != 0 {
					t.Errorf("record %d (%s): %s", rec.Seq, rec.Name, rec.Err)
				}
			}
			if eintr.n < calls {
				t.Errorf("the devices answered EINTR %d times, fewer than the %d calls the program made", eintr.n, calls)
			}
			t.Logf("%d traced calls, none failed (the devices answered EINTR %d times); the screen matched after each of %d frames",
				calls, eintr.n, len(plain.crcs))
		})
	}
}

// eintrCounter counts the EINTR answers in a simulated device's trace.
type eintrCounter struct {
	mu sync.Mutex
	n  int
}

func (c *eintrCounter) Write(b []byte) (int, error) {
	c.mu.Lock()
	c.n += bytes.Count(b, []byte("-> EINTR"))
	c.mu.Unlock()
	return len(b), nil
}

// The display unplugged in the middle of a run: the program sees the
// connector disconnected at its next look (once a second: every 60
// frames at 59.94 Hz), stops, puts the console's picture back, prints the
// report and exits with status 1.
func TestDisplayUnpluggedMidRun(t *testing.T) {
	d := newTestDevice(t, sim.Options{})
	con := d.console(t)
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, driDir: t.TempDir(), openSim: d.opener()}
	e.afterFrame = func(k uint64) {
		if k == 5 {
			d.disp.Unplug()
		}
	}
	code := run(context.Background(), []string{"-device", "sim", "-mode", "640x480", "-frames", "300", "-benchmark"}, e)
	if code != exitError {
		t.Errorf("exit %d, want %d", code, exitError)
	}
	wantAll(t, "stderr", errb.String(),
		"vccube: the display was unplugged: HDMI-A-1 640x480@60 on CRTC 95 reports no display connected (seen after frame 59); "+
			"vccube stopped and put the CRTC back as it found it; plug the display in and start vccube again")
	wantAll(t, "report", out.String(), "Rendered 59 frames in", "stopped early: the display was unplugged (seen after frame 59)")
	t.Logf("stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	con.checkRestored(t)
	d.checkNoLeaks(t)
}

// A Pi 4 or 5: -device auto finds a vc4 card that only displays; the
// program renders on the simulated GPU and shows the frames on that card,
// saying so in one line. The card's scanout is the captured frame, which
// is the golden; the card's console comes back. -device naming the card
// still refuses it with the reason.
func TestPi4AutoShowsSimulatedFramesOnItsDisplay(t *testing.T) {
	for _, board := range []sim.Board{sim.BoardPi4, sim.BoardPi5} {
		t.Run(board.String(), func(t *testing.T) {
			gpuDev := newTestDevice(t, sim.Options{})
			pi := newTestDevice(t, sim.Options{Board: board})
			piCon := pi.console(t)
			dri := t.TempDir()
			card := filepath.Join(dri, "card0")
			if err := os.WriteFile(card, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			openCard := func(path string) (uapi.Conn, error) {
				if path != card {
					return nil, fmt.Errorf("open %s: no such card", path)
				}
				return pi.opener()(sim.FaultSpec{})
			}
			g := goldenOf(refrender.DefaultTexture, 800, 600, 10)
			shot := filepath.Join(t.TempDir(), "shot.png")
			var out, errb bytes.Buffer
			e := &env{stdout: &out, stderr: &errb, driDir: dri, openSim: gpuDev.opener(), openCard: openCard}
			var shown image.Image
			e.afterFrame = func(k uint64) {
				if k == uint64(g.Frame) {
					var f display.Frame
					if err := pi.disp.ReadScanout(&f); err != nil {
						t.Error(err)
						return
					}
					var err error
					if shown, err = f.Image(); err != nil {
						t.Error(err)
					}
				}
			}
			args := []string{"-device", "auto", "-mode", "800x600", "-frames", "11", "-capture", shot, "-benchmark"}
			if code := run(context.Background(), args, e); code != exitOK {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			notice := strings.SplitN(errb.String(), "\n", 2)[0]
			wantAll(t, "the notice", notice, "vccube: "+card+" cannot render the cube (display-only vc4: it refuses the VC4 3D ioctls with EINVAL, as on a Raspberry Pi 4 or 5",
				"rendering on the simulated VideoCore IV instead and showing the frames on "+card+"'s display, as -display "+card+" does")
			wantAll(t, "report", out.String(), "800x600 on sim (simulated VideoCore IV 3D", "on CRTC 95 of "+card+" (vc4)",
				"page flips: 10 queued, 10 completed, 0 missed vblanks")
			checkShot(t, shot, g)
			pf, err := os.Open(shot)
			if err != nil {
				t.Fatal(err)
			}
			captured, err := png.Decode(pf)
			pf.Close()
			if err != nil {
				t.Fatal(err)
			}
			if shown == nil {
				t.Fatal("the Pi's display showed nothing")
			}
			if res, err := imgcmp.Compare(captured, shown, 0); err != nil || res.Over != 0 {
				t.Errorf("the Pi's scanout differs from the capture: %v %v", res, err)
			}
			t.Logf("notice: %s", notice)
			piCon.checkRestored(t)
			gpuDev.checkOff(t)
			gpuDev.checkNoLeaks(t)
			pi.checkNoLeaks(t)

			// Naming the card is asking for its GPU: refused, as before.
			errb.Reset()
			e = &env{stdout: &out, stderr: &errb, driDir: dri, openSim: mustNotOpen(t), openCard: openCard}
			if code := run(context.Background(), []string{"-device", card, "-frames", "1"}, e); code != exitError ||
				!strings.Contains(errb.String(), card+" cannot render the cube: display-only vc4") {
				t.Errorf("-device %s: exit %d, %q", card, code, errb.String())
			}
		})
	}
}
