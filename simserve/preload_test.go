package simserve_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/vccube/vccube/simserve"
)

// buildNativePreload builds the preload library for this machine into a
// directory of the test's (its amd64/vc4sim.so) and returns the
// directory; it skips the test where gcc cannot build for the host.
func buildNativePreload(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the preload's native test runs on amd64")
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no gcc")
	}
	out := t.TempDir()
	if b, err := exec.Command("sh", "preload/build.sh", out).CombinedOutput(); err != nil {
		t.Fatalf("building the preload: %v\n%s", err, b)
	}
	return out
}

// The preload library, built for this machine, in front of a small C
// program that uses the device as libdrm and Mesa do (preload/selftest.c):
// the fake /dev/dri and sysfs, stat and fstat, ioctls with good and bad
// user pointers, dup'd fds sharing one file, mappings, PRIME export and
// import. When the program exits, the server frees what it made.
// Runs where gcc builds for the host (amd64; the arm64 build runs in
// TestKmscube).
func TestPreloadNative(t *testing.T) {
	out := buildNativePreload(t)
	prog := filepath.Join(out, "selftest")
	if b, err := exec.Command("gcc", "-O1", "-Wall", "-Werror", "-o", prog, "preload/selftest.c").CombinedOutput(); err != nil {
		t.Fatalf("building the self test: %v\n%s", err, b)
	}
	var opts simserve.Options
	events := watchServer(&opts)
	r := newRig(t, opts)
	cmd := exec.Command(prog)
	cmd.Env = append(os.Environ(), "VC4SIM="+r.dir, "LD_PRELOAD="+filepath.Join(out, "amd64", "vc4sim.so"))
	b, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(b)) != "ok" {
		t.Fatalf("selftest: %v\n%s", err, b)
	}
	// Its one BO was exported, which the simulated kernel keeps until the
	// device closes (sim/kernel/prime.go); everything else is freed.
	waitFor(t, "every BO the program made freed but the exported one", events.idle, func() bool { return userBOs(r.dev) == 1 })
}

// VC4SIM_FROZEN_CLOCK=STEP_NS: the program's own clock_gettime,
// gettimeofday and time calls read a clock that starts at a fixed point
// and advances STEP_NS per call, whatever the real time, while a shared
// library's calls keep the real clock (preload/testdata/clock.c and
// clocklib.c); a step that is not a positive integer stops the program
// with a message.
func TestPreloadFrozenClock(t *testing.T) {
	out := buildNativePreload(t)
	prog := filepath.Join(out, "clock")
	for _, c := range [][]string{
		{"gcc", "-O1", "-Wall", "-Werror", "-shared", "-fPIC", "-o", filepath.Join(out, "libclocklib.so"), "preload/testdata/clocklib.c"},
		{"gcc", "-O1", "-Wall", "-Werror", "-o", prog, "preload/testdata/clock.c", "-L" + out, "-lclocklib", "-Wl,-rpath," + out},
	} {
		if b, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(c, " "), err, b)
		}
	}
	preload := "LD_PRELOAD=" + filepath.Join(out, "amd64", "vc4sim.so")
	run := func(clock string) (string, error) {
		cmd := exec.Command(prog)
		cmd.Env = append(os.Environ(), preload, "VC4SIM_FROZEN_CLOCK="+clock)
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
	got, err := run("1500000000")
	if err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	// Five calls from the program, 1.5 s apart, from 1000 s (monotonic)
	// and 2023-01-01 00:00:00 UTC (wall clock).
	want := "mono=1000.000000000\nmono=1001.500000000\nreal=1672531203.000000000\ntod=1672531204.500000\ntime=1672531206\n"
	lines := strings.SplitAfterN(got, "\n", 6)
	if len(lines) != 6 || strings.Join(lines[:5], "") != want {
		t.Fatalf("the program's clock read\n%s\nwant\n%s", got, want)
	}
	// The library slept 20 ms between its two readings, on the real clock.
	var libNS int64
	if _, err := fmt.Sscanf(lines[5], "lib=%d", &libNS); err != nil || libNS < 20e6 {
		t.Errorf("the library's clock: %q (%v), want at least 20 ms of real time", lines[5], err)
	}
	for _, bad := range []string{"abc", "-5", "0", "12ms"} {
		got, err := run(bad)
		if err == nil || !strings.Contains(got, "VC4SIM_FROZEN_CLOCK="+bad+" is not a step in nanoseconds") || strings.Contains(got, "mono=") {
			t.Errorf("VC4SIM_FROZEN_CLOCK=%s: %v\n%s\nwant a refusal before the program runs", bad, err, got)
		}
	}
}
