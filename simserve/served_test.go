package simserve_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/display"
	"github.com/vccube/vccube/sim/gpu"
	"github.com/vccube/vccube/simserve"
	"github.com/vccube/vccube/uapi"
)

// servedRun is what an arm64 program run against a fresh served device
// said and did.
type servedRun struct {
	out       string         // its standard output and error
	trace     string         // every ioctl, with its bytes and result
	refusals  map[string]int // "NAME ERRNO" → count
	kernelLog []string       // the simulated kernel's messages (GPU resets)
	elapsed   time.Duration
	err       error // how the program ended
}

// onlyMode is the default monitor offering the standard mode w×h alone,
// as its preferred mode (programs that take the largest mode, such as
// glmark2, then use it).
func onlyMode(t testing.TB, w, h uint16) display.Monitor {
	t.Helper()
	mon := display.DefaultMonitor()
	for _, m := range mon.Modes {
		if m.Hdisplay == w && m.Vdisplay == h {
			m.Type |= uapi.ModeTypePreferred
			mon.Modes = []uapi.ModeModeInfo{m}
			return mon
		}
	}
	t.Fatalf("the monitor has no %dx%d mode", w, h)
	return mon
}

// runServed serves a fresh simulated device showing on mon, with capture
// (may be nil) on its flips, and runs the arm64 program argv against it
// through the preload library (under qemu-user unless this is arm64), with
// env added and a standard input nobody writes (kmscube quits when it is
// readable).
func runServed(t *testing.T, k kmscubeTools, mon display.Monitor, capture *simserve.Capture, env []string, argv []string, timeout time.Duration) servedRun {
	t.Helper()
	g := gpu.New(gpu.Options{})
	defer g.Close()
	dopts := display.Options{Monitor: &mon}
	if capture != nil {
		dopts.OnFlip = capture.OnFlip
	}
	disp := display.New(dopts)
	defer disp.Close()
	if capture != nil {
		capture.Attach(disp)
	}
	trace := &syncBuffer{}
	dev, err := sim.New(sim.Options{GPU: g, Display: disp, Trace: trace})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	dir := t.TempDir()
	srv, err := simserve.New(simserve.Options{Device: dev, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve() }()

	env = append([]string{"VC4SIM=" + dir, "LD_PRELOAD=" + k.preload}, env...)
	full := append([]string(nil), k.qemu...)
	var extraEnv []string
	for _, e := range env {
		if k.qemu != nil {
			full = append(full, "-E", e)
		} else {
			extraEnv = append(extraEnv, e)
		}
	}
	full = append(full, argv...)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, full[0], full[1:]...)
	cmd.Env = append(os.Environ(), extraEnv...)
	stdin, hold, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Close()
	cmd.Stdin = stdin
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	runErr := cmd.Run()
	stdin.Close()
	srv.Close()
	<-served
	r := servedRun{out: out.String(), trace: trace.b.String(), refusals: map[string]int{}, elapsed: time.Since(start), err: runErr}
	for _, line := range strings.Split(r.trace, "\n") {
		if m := refusalRE.FindStringSubmatch(line); m != nil {
			r.refusals[m[1]+" "+m[2]]++
		}
		if _, msg, ok := strings.Cut(line, "kernel: "); ok {
			r.kernelLog = append(r.kernelLog, msg)
		}
	}
	return r
}
