package sim_test

import (
	"errors"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/vccube/vccube/cuberender"
	"github.com/vccube/vccube/gem"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/gpu"
	"github.com/vccube/vccube/sim/internal/simtest"
	"github.com/vccube/vccube/sim/kernel"
	"github.com/vccube/vccube/uapi"
)

// The kernel's hang handling on the simulated device, with the GPU
// faults of sim.Faults.GPU, seen by the cube's renderer: what a program
// without root observes (the wait returns, the frame's last tile is not
// stored: cuberender.LostFrameError), what the kernel logs, and what root
// reads back.

// waitCounter counts the WAIT_SEQNO calls made through it.
type waitCounter struct {
	uapi.Conn
	waits int
}

func (c *waitCounter) Ioctl(req uapi.Request, arg unsafe.Pointer) error {
	if req == uapi.IoctlWaitSeqno {
		c.waits++
	}
	return c.Conn.Ioctl(req, arg)
}

// runCounter counts the GPU runs of each job (OnJobDone).
type runCounter struct {
	mu   sync.Mutex
	runs map[uint64]int
}

func (c *runCounter) add(r kernel.JobReport) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.runs == nil {
		c.runs = map[uint64]int{}
	}
	c.runs[r.Seqno] = r.Run
}

func (c *runCounter) of(seqno uint64) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.runs[seqno]
}

// hangDevice is a device on the GPU model with the given options and a
// run counter.
func hangDevice(t *testing.T, opts sim.Options) (*sim.Device, *runCounter) {
	t.Helper()
	g := gpu.New(gpu.Options{Workers: 1})
	t.Cleanup(g.Close)
	rc := new(runCounter)
	opts.GPU, opts.OnJobDone = g, rc.add
	return newDevice(t, opts), rc
}

// resets counts the "Resetting GPU." lines of the kernel log.
func resets(d *sim.Device) int {
	n := 0
	for _, l := range d.KernelLog() {
		if strings.HasPrefix(l, "Resetting GPU.") {
			n++
		}
	}
	return n
}

// A job that hangs in the render thread is reset at the hang check and
// completed: its wait returns no error after at least one hang-check
// period, the frame is lost (its last tile was never stored), the kernel
// logged one reset, and the next frame is whole.
func TestRenderHangIsResetAndCompleted(t *testing.T) {
	const period = 20 * time.Millisecond
	d, rc := hangDevice(t, sim.Options{HangcheckPeriod: period, Faults: sim.Faults{GPU: kernel.GPUFaults{HangAt: 2}}})
	r, err := cuberender.New(open(t, d), cuberender.Options{Width: 96, Height: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for k := 0; k < 3; k++ {
		start := time.Now()
		seqno, err := r.Render(k%2, float32(4*k))
		if err != nil {
			t.Fatal(err)
		}
		err = r.Wait(seqno)
		var lost *cuberender.LostFrameError
		if seqno == 2 {
			if !errors.As(err, &lost) || lost.Seqno != 2 {
				t.Fatalf("the hung frame: %v, want a LostFrameError", err)
			}
			// The reset comes at the second check after the stall.
			if el := time.Since(start); el < period {
				t.Errorf("the hung job was completed after %v, before the hang check (%v)", el, period)
			}
		} else if err != nil {
			t.Fatalf("frame %d: %v", k, err)
		}
		if rc.of(seqno) != 1 {
			t.Errorf("job %d ran %d times", seqno, rc.of(seqno))
		}
	}
	if n := resets(d); n != 1 {
		t.Errorf("%d resets logged, want 1: %q", n, d.KernelLog())
	}
}

// A job whose binning hangs is restarted after each reset
// (vc4_cancel_bin_job) up to BinHangRestarts times, then completed.
func TestBinStallIsRestarted(t *testing.T) {
	d, rc := hangDevice(t, sim.Options{HangcheckPeriod: 5 * time.Millisecond, BinHangRestarts: 2,
		Faults: sim.Faults{GPU: kernel.GPUFaults{StallBinAt: 1}}})
	r, err := cuberender.New(open(t, d), cuberender.Options{Width: 96, Height: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	seqno, err := r.Render(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var lost *cuberender.LostFrameError
	if err := r.Wait(seqno); !errors.As(err, &lost) {
		t.Fatalf("wait: %v, want a LostFrameError", err)
	}
	if n := rc.of(seqno); n != 3 {
		t.Errorf("the job ran %d times, want 3 (two restarts)", n)
	}
	if n := resets(d); n != 3 {
		t.Errorf("%d resets logged, want 3", n)
	}
}

// With the kernel's own rule (no limit on restarts), a job whose binning
// hangs every time never ends: the renderer's wait gives up (HangError),
// later waits say so at once, and the device still closes.
func TestBinStallNeverEnds(t *testing.T) {
	g := gpu.New(gpu.Options{Workers: 1})
	defer g.Close()
	rc := new(runCounter)
	d, err := sim.New(sim.Options{GPU: g, OnJobDone: rc.add, CMASize: 64 << 20, HangcheckPeriod: 5 * time.Millisecond,
		BinHangRestarts: -1, Faults: sim.Faults{GPU: kernel.GPUFaults{StallBinAt: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := d.Open()
	if err != nil {
		t.Fatal(err)
	}
	wc := &waitCounter{Conn: f}
	r, err := cuberender.New(wc, cuberender.Options{Width: 96, Height: 64, WaitTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	seqno, err := r.Render(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var hung *cuberender.HangError
	if err := r.Wait(seqno); !errors.As(err, &hung) || hung.Seqno != seqno {
		t.Fatalf("wait: %v, want a HangError", err)
	}
	waits := wc.waits
	if err := r.Wait(seqno); !errors.As(err, &hung) {
		t.Fatalf("second wait: %v", err)
	}
	if wc.waits != waits {
		t.Errorf("the second wait waited again (%d WAIT_SEQNO calls)", wc.waits-waits)
	}
	if n := rc.of(seqno); n < 2 {
		t.Errorf("the job ran %d times; the kernel restarts it after every reset", n)
	}
	if err := r.Close(); err != nil {
		t.Error(err)
	}
	f.Close()
	done := make(chan error, 1)
	go func() { done <- d.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the device did not close with a job that never ends")
	}
}

// A late job makes progress all the while: it is never reset, and its
// frame is whole.
func TestLateJobIsNotReset(t *testing.T) {
	const late = 60 * time.Millisecond
	d, _ := hangDevice(t, sim.Options{HangcheckPeriod: 5 * time.Millisecond,
		Faults: sim.Faults{GPU: kernel.GPUFaults{LateAt: 1, LateBy: late}}})
	r, err := cuberender.New(open(t, d), cuberender.Options{Width: 96, Height: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	start := time.Now()
	seqno, err := r.Render(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Wait(seqno); err != nil {
		t.Fatalf("the late frame: %v", err)
	}
	if el := time.Since(start); el < late {
		t.Errorf("the late job took %v, less than it was made late by (%v)", el, late)
	}
	if n := resets(d); n != 0 {
		t.Errorf("%d resets logged for a slow job", n)
	}
}

// Root reads the hang state of a render hang: the bin list finished, the
// render list stopped at its start, and the summary says so.
func TestHangStateOfInjectedHang(t *testing.T) {
	d, _ := hangDevice(t, sim.Options{Faults: sim.Faults{GPU: kernel.GPUFaults{HangAt: 1}}})
	root, err := d.OpenWith(sim.OpenOptions{Root: true})
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	r, err := cuberender.New(root, cuberender.Options{Width: 96, Height: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var scratch uapi.GetHangState
	if pending, err := gem.PeekHangState(root, &scratch); err != nil || pending {
		t.Fatalf("before the hang: pending %v, %v", pending, err)
	}
	seqno, err := r.Render(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var lost *cuberender.LostFrameError
	if err := r.Wait(seqno); !errors.As(err, &lost) {
		t.Fatalf("wait: %v", err)
	}
	if pending, err := gem.PeekHangState(root, &scratch); err != nil || !pending {
		t.Fatalf("after the hang: pending %v, %v", pending, err)
	}
	h, err := gem.GetHangStateReport(root)
	if err != nil {
		t.Fatal(err)
	}
	defer h.CloseBOs(root)
	s := h.State
	if s.StartBin == 0 || s.Ct0ca != s.Ct0ea || s.StartRender == 0 || s.Ct1ca != s.StartRender || s.Ct1ea <= s.Ct1ca {
		t.Errorf("hang state %+v", s)
	}
	sum := strings.Join(h.Summary(), "\n")
	for _, want := range []string{"binning (thread 0): list 0x", "finished", "rendering (thread 1): stopped at 0x", "byte 0 of the", "error bits: none"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary lacks %q:\n%s", want, sum)
		}
	}
	// Not root: EACCES, which PeekHangState passes on.
	user := open(t, d)
	if _, err := gem.PeekHangState(user, &scratch); !errors.Is(err, syscall.EACCES) {
		t.Errorf("peek as a user: %v, want EACCES", err)
	}
}

// Faults.InterruptEachCall: every other call fails with EINTR before it
// does anything, and drm.Restarting makes it again; event reads too.
func TestInterruptEachCall(t *testing.T) {
	d := newDevice(t, sim.Options{Faults: sim.Faults{InterruptEachCall: true}})
	f := open(t, d)
	var p uapi.GetParam
	p.Param = uapi.ParamV3DIdent0
	simtest.WantErrno(t, "first call", simtest.Ioctl(f, uapi.IoctlGetParam, &p), syscall.EINTR)
	if p.Value != 0 {
		t.Error("the interrupted call wrote its result")
	}
	simtest.WantErrno(t, "the call again", simtest.Ioctl(f, uapi.IoctlGetParam, &p), 0)
	if p.Value != uapi.V3DExpectedIdent0 {
		t.Errorf("IDENT0 %#x", p.Value)
	}
	if _, err := f.Read(make([]byte, 64)); !errors.Is(err, syscall.EINTR) {
		t.Errorf("read: %v, want EINTR", err)
	}
}
