package conform

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vccube/vccube/conform/piglit"
	"github.com/vccube/vccube/internal/emulated"
)

// The test binary is also the runner's server: started as "TEST -serve
// DIR" by the runner, it serves as cmd/vc4conform -serve does.
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == "-serve" {
		if err := ServeWorker(os.Args[2], os.Stdin, os.Stdout); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fakePiglit makes a piglit root whose bin/ holds shell scripts standing
// for test programs.
func fakePiglit(t *testing.T, programs map[string]string) string {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "bin"), 0o755)
	for name, body := range programs {
		if err := os.WriteFile(filepath.Join(root, "bin", name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestRun(t *testing.T) {
	// The runner starts the test binary itself as its server.
	emulated.Skip(t, "the runner starts this binary as its server, which the host cannot run")
	root := fakePiglit(t, map[string]string{
		// The server's socket is there while the test runs.
		"device":  `test -S "$VC4SIM/socket" && echo 'PIGLIT: {"result": "pass" }' || echo 'PIGLIT: {"result": "fail" }'`,
		"subs":    `echo 'PIGLIT: {"subtest": {"a, b" : "fail"}}'; echo 'PIGLIT: {"result": "fail" }'`,
		"hang":    `sleep 60; echo 'PIGLIT: {"result": "pass" }'`,
		"segv":    `kill -SEGV $$`,
		"args":    `[ "$1 $2 $3" = "x -auto -fbo" ] && [ "$(pwd)" = "$PIGLIT_SOURCE_DIR" ] && echo 'PIGLIT: {"result": "pass" }'`,
		"preload": `[ "$LD_PRELOAD" = /nonexistent/vc4sim.so ] && echo 'PIGLIT: {"result": "pass" }'`,
	})
	tests := []piglit.Test{
		{Name: "device", Command: []string{"device"}, Concurrent: true},
		{Name: "subs", Command: []string{"subs"}, Concurrent: true},
		{Name: "hang", Command: []string{"hang"}, Concurrent: true},
		{Name: "after-hang", Command: []string{"device"}, Concurrent: true},
		{Name: "segv", Command: []string{"segv"}, Concurrent: true},
		{Name: "args", Command: []string{"args", "x"}, Concurrent: true},
		{Name: "preload", Command: []string{"preload"}, Concurrent: true},
		{Name: "missing", Command: []string{"no-such-program"}, Concurrent: true},
	}
	got := map[string]Result{}
	o := Options{
		Piglit:  root,
		Workers: 1,
		Timeout: 2 * time.Second,
		Server:  []string{os.Args[0]},
		Dir:     t.TempDir(),
		OnResult: func(r Result) {
			got[r.Name] = r
		},
	}
	// A shell script never loads the preload: the test "preload" checks
	// that its path is passed along.
	o.Preload = "/nonexistent/vc4sim.so"
	if err := Run(context.Background(), o, tests); err != nil {
		t.Fatal(err)
	}
	want := map[string]piglit.Status{"device": piglit.Pass, "subs": piglit.Fail, "hang": piglit.Timeout,
		"after-hang": piglit.Pass, "segv": piglit.Crash, "args": piglit.Pass, "preload": piglit.Pass}
	for name, s := range want {
		if got[name].Status != s {
			t.Errorf("%s: %s, want %s (output %q)", name, got[name].Status, s, got[name].Output)
		}
	}
	if got["subs"].Subtests["a, b"] != piglit.Fail {
		t.Errorf("subtests: %v", got["subs"].Subtests)
	}
	if r := got["missing"]; r.Status != piglit.Skip || r.Skipped == "" {
		t.Errorf("a program piglit lacks: %s %q, want a skip saying so", r.Status, r.Skipped)
	}
	if got["hang"].ServerRestarted == "" {
		t.Error("the server was not replaced after a timeout")
	}
	if got["device"].ServerRestarted != "" {
		t.Errorf("the server was replaced after a passing test: %s", got["device"].ServerRestarted)
	}
	if got["hang"].Seconds > 30 {
		t.Errorf("the hung test ran %.0f s: its process group was not killed", got["hang"].Seconds)
	}
}

func TestNewLines(t *testing.T) {
	for _, c := range []struct{ prev, now, want string }{
		{"", "a b", "a b"},
		{"a b", "a b c", "c"},
		{"a b c", "b c d e", "d e"},
		{"a b", "a b", ""},
		{"x y", "a b", "a b"},
	} {
		got := strings.Join(newLines(strings.Fields(c.prev), strings.Fields(c.now)), " ")
		if got != c.want {
			t.Errorf("newLines(%q, %q) = %q, want %q", c.prev, c.now, got, c.want)
		}
	}
}
