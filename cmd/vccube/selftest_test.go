package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vccube/vccube/selftest"
)

// vccube -selftest without a VideoCore IV compares two simulated devices
// and the reference rasteriser: every probe agrees, the exit status is 0
// and no bundle is written.
func TestSelftestWithoutVideoCore(t *testing.T) {
	dir := t.TempDir()
	bundle := filepath.Join(dir, "b.tar.gz")
	r := runOn(t, nil, "-selftest", "-selftest-bundle", bundle)
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	n := len(selftest.Probes())
	for _, want := range []string{"a simulated device, sim (1 render worker)", "sim (3 render workers)", "fill-rule", "vs reference"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the table lacks %q:\n%s", want, r.stdout)
		}
	}
	if !strings.Contains(r.stdout, "probes: ") || strings.Contains(r.stdout, "DIFFERS") || !strings.Contains(r.stdout, " 0 differ") {
		t.Errorf("not every one of the %d probes agrees:\n%s", n, r.stdout)
	}
	if _, err := os.Stat(bundle); !os.IsNotExist(err) {
		t.Errorf("a bundle was written (%v)", err)
	}
}

// With a model that is wrong about one fact (the test hook perturbs the
// z-rounding probe's output), -selftest prints the difference, writes the
// bundle and exits 1.
func TestSelftestDifference(t *testing.T) {
	dir := t.TempDir()
	bundle := filepath.Join(dir, "vccube-selftest.tar.gz")
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, driDir: t.TempDir(), openSim: mustNotOpen(t),
		selftest: func(c *selftest.Config) {
			c.Probes = []string{"z-rounding", "tex-RGB565"}
			c.Perturb = func(probe string, colour []uint32) {
				if probe == "tex-RGB565" {
					colour[5] = 0
				}
			}
		}}
	code := run(context.Background(), []string{"-selftest", "-selftest-bundle", bundle}, e)
	t.Logf("exit %d\n%s%s", code, out.String(), errb.String())
	if code != exitError {
		t.Fatalf("exit %d, want %d", code, exitError)
	}
	if !strings.Contains(out.String(), "tex-RGB565, vs model: colour: 1 of 16384 px") || !strings.Contains(errb.String(), "1 probe(s) differ in their outputs and 0 in their counters") ||
		!strings.Contains(errb.String(), bundle) {
		t.Error("the difference or the bundle is not reported")
	}
	if st, err := os.Stat(bundle); err != nil || st.Size() == 0 {
		t.Errorf("no bundle: %v", err)
	}
}

// -selftest takes only -device and -selftest-bundle.
func TestSelftestFlags(t *testing.T) {
	for _, args := range [][]string{{"-selftest", "-frames", "3"}, {"-selftest-bundle", "x.tar.gz"}, {"-selftest", "-replay", "t.jsonl"}} {
		if r := runOn(t, nil, args...); r.code != exitUsage {
			t.Errorf("%v: exit %d, %q", args, r.code, r.stderr)
		}
	}
}
