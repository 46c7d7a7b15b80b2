package main

import (
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vccube/vccube/cuberender"
	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/gem"
	"github.com/vccube/vccube/internal/simrig"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/simserve"
	"github.com/vccube/vccube/uapi"
)

// serveFaulty starts the server with -faults list (and more flags) and
// returns a client, the simulated system and the server's result.
func serveFaulty(t *testing.T, list string, more ...string) (*simserve.Client, *sim.System, chan error) {
	t.Helper()
	sys := make(chan *sim.System, 1)
	onSystem = func(s *sim.System) { sys <- s }
	t.Cleanup(func() { onSystem = nil })
	c, done := serve(t, append([]string{"-mode", "640x480", "-faults", list}, more...)...)
	return c, <-sys, done
}

// frames renders n frames one after another and returns each one's wait
// error and how long its job took from submit to the end of the wait.
func frames(t *testing.T, c uapi.Conn, n int) ([]error, []time.Duration) {
	t.Helper()
	r, err := cuberender.New(c, cuberender.Options{Width: 64, Height: 48, Buffers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var errs []error
	var took []time.Duration
	for k := 0; k < n; k++ {
		start := time.Now()
		seq, err := r.Render(0, float32(4*k))
		if err != nil {
			t.Fatal(err)
		}
		errs = append(errs, r.Wait(seq))
		took = append(took, time.Since(start))
	}
	return errs, took
}

// lost says which frames were lost.
func lost(errs []error) []bool {
	var l []bool
	for _, err := range errs {
		var lf *cuberender.LostFrameError
		l = append(l, errors.As(err, &lf))
	}
	return l
}

// logged counts the simulated kernel's log lines holding each of what.
func logged(s *sim.System, what string) int {
	n := 0
	for _, l := range s.KernelLog() {
		if strings.Contains(l, what) {
			n++
		}
	}
	return n
}

// closeAndWait ends the client and waits for the server to exit.
func closeAndWait(t *testing.T, c *simserve.Client, done chan error) {
	t.Helper()
	c.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// Each GPU fault of -faults reaches the model: the frames a program draws
// are lost (or late) as the fault says, and the kernel logs the fault.
func TestFaultsGPU(t *testing.T) {
	for _, tc := range []struct {
		faults string
		more   []string
		lost   []bool
		log    string // in the "Resetting GPU." lines
		resets int
	}{
		{"hang-at=2", nil, []bool{false, true, false}, "GPUFaults.HangAt", 1},
		{"hang-from=2", nil, []bool{false, true, true}, "GPUFaults.HangAt, HangFrom", 2},
		{"stall-bin-at=1", nil, []bool{true, false}, "GPUFaults.StallBinAt", 1},
		// With the kernel's hang handling a job whose binning hung is
		// restarted, and comes out whole after one stall.
		{"stall-bin-at=1,stall-bin-runs=1", []string{"-kernel-hangs"}, []bool{false, false}, "GPUFaults.StallBinAt", 1},
	} {
		c, s, done := serveFaulty(t, tc.faults, tc.more...)
		errs, _ := frames(t, c, len(tc.lost))
		got := lost(errs)
		for k := range got {
			if got[k] != tc.lost[k] {
				t.Errorf("-faults %s: frame %d lost %v (%v), want %v", tc.faults, k+1, got[k], errs[k], tc.lost[k])
			}
		}
		if n := logged(s, tc.log); n != tc.resets {
			t.Errorf("-faults %s: %d resets logged for %s, want %d; the log: %q", tc.faults, n, tc.log, tc.resets, s.KernelLog())
		}
		closeAndWait(t, c, done)
	}
}

// late-at makes a job take late-by longer, and nothing is reset.
func TestFaultsLate(t *testing.T) {
	const by = 300 * time.Millisecond
	c, s, done := serveFaulty(t, "late-at=2,late-by=300ms")
	errs, took := frames(t, c, 2)
	for k, err := range errs {
		if err != nil {
			t.Errorf("frame %d: %v", k+1, err)
		}
	}
	// A lower bound: the model holds the job back that long.
	if took[1] < by {
		t.Errorf("the late job took %v, less than late-by %v", took[1], by)
	}
	if n := logged(s, "Resetting GPU."); n != 0 {
		t.Errorf("%d resets for a late job", n)
	}
	closeAndWait(t, c, done)
}

// The device's and the display's faults reach the model through -faults.
func TestFaultsDeviceAndDisplay(t *testing.T) {
	c, _, done := serveFaulty(t, "eintr")
	_, err := drm.GetResources(c)
	if !errors.Is(err, syscall.EINTR) {
		t.Errorf("eintr: the first call: %v, want EINTR", err)
	}
	// Every other call fails; made again, as libdrm's drmIoctl does,
	// each goes through.
	if _, err := drm.GetResources(drm.Restarting(c)); err != nil {
		t.Errorf("eintr: the calls made again: %v", err)
	}
	closeAndWait(t, c, done)

	c, _, done = serveFaulty(t, "master-elsewhere")
	if err := drm.SetMaster(c); !errors.Is(err, syscall.EACCES) && !errors.Is(err, syscall.EBUSY) {
		t.Errorf("master-elsewhere: SET_MASTER: %v, want EACCES or EBUSY", err)
	}
	closeAndWait(t, c, done)

	c, _, done = serveFaulty(t, "cma-exhausted-at=1")
	if _, err := gem.AllocBO(c, 4096); !errors.Is(err, syscall.ENOMEM) {
		t.Errorf("cma-exhausted-at=1: the first BO: %v, want ENOMEM", err)
	}
	closeAndWait(t, c, done)

	c, _, done = serveFaulty(t, "unplugged")
	if st := status(t, c); st != uapi.StatusDisconnected {
		t.Errorf("unplugged: connector %v", st)
	}
	closeAndWait(t, c, done)

	c, _, done = serveFaulty(t, "unplug-after=1")
	if st := status(t, c); st != uapi.StatusConnected {
		t.Errorf("unplug-after=1, before the mode set: connector %v", st)
	}
	res, cn := simrig.FirstConnector(t, c)
	m := cn.Modes[0]
	db, err := drm.CreateDumb(c, uint32(m.Hdisplay), uint32(m.Vdisplay), 32)
	if err != nil {
		t.Fatal(err)
	}
	fb, err := drm.AddFramebuffer(c, uint32(m.Hdisplay), uint32(m.Vdisplay), uapi.FormatXRGB8888, db.Handle, db.Pitch, uapi.FormatModLinear)
	if err != nil {
		t.Fatal(err)
	}
	if err := drm.SetCrtc(c, res.CRTCs[0], fb, 0, 0, []uint32{cn.ID}, &m); err != nil {
		t.Fatal(err)
	}
	if st := status(t, c); st != uapi.StatusDisconnected {
		t.Errorf("unplug-after=1, after the mode set: connector %v", st)
	}
	closeAndWait(t, c, done)
}

// status is the first connector's status.
func status(t *testing.T, c uapi.Conn) uapi.ConnectorStatus {
	t.Helper()
	_, cn := simrig.FirstConnector(t, c)
	return cn.Status
}
