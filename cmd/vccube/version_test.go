package main

import (
	"bytes"
	"context"
	"encoding/json"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/vccube/vccube/sim"
)

// -version says the module version and, for a build in a checkout, the
// revision, from the build information the go command records.
func TestVersionOf(t *testing.T) {
	settings := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	for _, c := range []struct {
		bi   *debug.BuildInfo
		want string
	}{
		// go install github.com/vccube/vccube/cmd/vccube@v1.4.0
		{&debug.BuildInfo{GoVersion: "go1.22.3", Main: debug.Module{Path: "github.com/vccube/vccube", Version: "v1.4.0"},
			Settings: settings("GOOS", "linux", "GOARCH", "arm", "GOARM", "6")},
			"vccube v1.4.0 (module github.com/vccube/vccube), built with go1.22.3 for linux/arm"},
		// go build in a checkout with changes
		{&debug.BuildInfo{GoVersion: "go1.22.3", Main: debug.Module{Path: "github.com/vccube/vccube", Version: "(devel)"},
			Settings: settings("GOOS", "linux", "GOARCH", "arm64", "vcs", "git", "vcs.revision", "0123456789abcdef0123456789abcdef01234567",
				"vcs.time", "2026-11-30T10:00:00Z", "vcs.modified", "true")},
			"vccube (devel) (module github.com/vccube/vccube), revision 0123456789abcdef0123456789abcdef01234567 of 2026-11-30T10:00:00Z, with uncommitted changes, built with go1.22.3 for linux/arm64"},
		// go build -buildvcs=false in a checkout
		{&debug.BuildInfo{GoVersion: "go1.22.3", Main: debug.Module{Path: "github.com/vccube/vccube", Version: "(devel)"},
			Settings: settings("GOOS", "linux", "GOARCH", "amd64")},
			"vccube (devel) (module github.com/vccube/vccube), no revision recorded (built with -buildvcs=false or outside a git checkout), built with go1.22.3 for linux/amd64"},
	} {
		if got := versionOf(c.bi, true); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
	if got := versionOf(nil, false); !strings.Contains(got, "no build information") {
		t.Errorf("without build information: %q", got)
	}
}

// vccube -version prints the version alone and exits 0, opening nothing;
// with another flag it is a usage error; the -json report carries it.
func TestVersionFlag(t *testing.T) {
	r := runOn(t, nil, "-version")
	if r.code != exitOK || r.stdout != version()+"\n" || !strings.HasPrefix(r.stdout, "vccube ") || r.stderr != "" {
		t.Errorf("-version: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := runOn(t, nil, "-version", "-frames", "3"); r.code != exitUsage || !strings.Contains(r.stderr, "give it alone") {
		t.Errorf("-version -frames 3: exit %d, stderr %q", r.code, r.stderr)
	}
	d := newTestDevice(t, sim.Options{})
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, driDir: t.TempDir(), openSim: d.opener()}
	if code := run(context.Background(), []string{"-device", "sim", "-vsync=false", "-mode", "64x64", "-frames", "1", "-json"}, e); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var rep struct{ Version string }
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || rep.Version != version() {
		t.Errorf("the report's version %q (%v), want %q", rep.Version, err, version())
	}
}
