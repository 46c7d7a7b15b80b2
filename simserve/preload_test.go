package simserve_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/vccube/vccube/simserve"
)

// The preload library, built for this machine, in front of a small C
// program that uses the device as libdrm and Mesa do (preload/selftest.c):
// the fake /dev/dri and sysfs, stat and fstat, ioctls with good and bad
// user pointers, dup'd fds sharing one file, mappings, PRIME export and
// import. When the program exits, the server frees what it made.
// Runs where gcc builds for the host (amd64; the arm64 build runs in
// TestKmscube).
func TestPreloadNative(t *testing.T) {
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
