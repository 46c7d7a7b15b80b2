// Package emulated tells a test whether it runs on another architecture's
// build under qemu-user (.ci/cross-test: GOARCH=arm or arm64 on an amd64
// host), where programs it builds or starts itself are that architecture's
// and the host cannot run them directly.
package emulated

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// Skip skips t, saying why, when the test binary was built for another
// architecture than the host's Go toolchain targets.
func Skip(t testing.TB, why string) {
	t.Helper()
	out, err := exec.Command("go", "env", "GOHOSTARCH").Output()
	if err != nil {
		t.Fatalf("go env GOHOSTARCH: %v", err)
	}
	if host := strings.TrimSpace(string(out)); host != runtime.GOARCH {
		t.Skipf("built for %s on a %s host (qemu-user): %s", runtime.GOARCH, host, why)
	}
}
