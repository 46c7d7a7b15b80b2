package selftest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Without a VideoCore IV, the self-test compares two independent simulated
// devices (one and three render workers) and the reference rasteriser:
// every probe must agree.
func TestRunSimulated(t *testing.T) {
	var out bytes.Buffer
	bundle := filepath.Join(t.TempDir(), "b.tar.gz")
	rep, err := Run(context.Background(), Config{Out: &out, Device: "sim", Bundle: bundle})
	t.Logf("\n%s", out.String())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Differ != 0 || len(rep.Rows) != len(Probes()) {
		t.Errorf("%d of %d probes differ", rep.Differ, len(rep.Rows))
	}
	refs := 0
	for _, r := range rep.Rows {
		if r.Probe.unmodelled {
			if r.Result != "not modelled (needs a VideoCore IV)" {
				t.Errorf("%s: %s", r.Probe.Name, r.Result)
			}
			continue
		}
		if r.Result != "same" {
			t.Errorf("%s: %s", r.Probe.Name, r.Result)
		}
		if r.Reference != "" {
			refs++
			if r.Reference != "same" && !strings.HasPrefix(r.Reference, "close") {
				t.Errorf("%s against the reference: %s", r.Probe.Name, r.Reference)
			}
		}
	}
	checkWidth(t, out.String())
	if refs < 5 {
		t.Errorf("only %d probes compared with the reference", refs)
	}
	if _, err := os.Stat(bundle); !os.IsNotExist(err) {
		t.Errorf("a bundle was written with no difference (%v)", err)
	}
}

// A model that is wrong about one fact — here its fill-rule output has one
// byte changed — makes that probe differ (the device under test still
// agrees with the reference), and the bundle holds what a bug report
// needs.
func TestRunWritesBundle(t *testing.T) {
	var out bytes.Buffer
	bundle := filepath.Join(t.TempDir(), "report.tar.gz")
	rep, err := Run(context.Background(), Config{Out: &out, Device: "sim", Bundle: bundle, Version: "test",
		Probes: []string{"cull", "fill-rule"},
		Perturb: func(probe string, colour []uint32) {
			if probe == "fill-rule" {
				colour[32*64+20] ^= 0xFF
			}
		}})
	t.Logf("\n%s", out.String())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Differ != 1 || !rep.Rows[1].Differs || rep.Rows[0].Differs || rep.Bundle != bundle {
		t.Fatalf("report %+v", rep)
	}
	if !strings.Contains(rep.Rows[1].Result, "DIFFERS: colour: 1 of 4096 px, largest 223 levels at (20,32)") {
		t.Errorf("result %q", rep.Rows[1].Result)
	}
	f, err := os.Open(bundle)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	files := map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		files[strings.TrimPrefix(h.Name, "report/")] = b
	}
	var names []string
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	t.Logf("bundle: %v", names)
	for _, want := range []string{"README.txt", "system.txt", "table.txt", "fill-rule/job.txt", "fill-rule/differences.txt",
		"fill-rule/device.png", "fill-rule/model.png", "fill-rule/reference.png", "fill-rule/diff.png", "fill-rule/device.words",
		"fill-rule/model.words", "fill-rule/device.trace.jsonl", "fill-rule/model.trace.jsonl"} {
		if _, ok := files[want]; !ok {
			t.Errorf("the bundle lacks %s", want)
		}
	}
	if _, ok := files["cull/job.txt"]; ok {
		t.Error("the bundle holds a probe that agreed")
	}
	for _, want := range []string{"kernel (uname -srvm): Linux", "board (/proc/device-tree/model):", "vccube: test"} {
		if !strings.Contains(string(files["system.txt"]), want) {
			t.Errorf("system.txt lacks %q:\n%s", want, files["system.txt"])
		}
	}
	if !strings.Contains(string(files["fill-rule/job.txt"]), "GL_SHADER_STATE") || !strings.Contains(string(files["fill-rule/differences.txt"]), "(20,32)") {
		t.Errorf("job.txt or differences.txt lacks the job or the pixel:\n%s", files["fill-rule/differences.txt"])
	}
	if !strings.Contains(string(files["fill-rule/device.trace.jsonl"]), "DRM_IOCTL_VC4_SUBMIT_CL") {
		t.Error("the trace lacks the submit")
	}
}

// On a real GPU a probe the model cannot answer runs on the GPU alone and
// goes to the bundle without counting as a difference. (Here the "GPU" is
// a simulated device posing as one, which refuses the job as the model
// does: the row says so.)
func TestUnmodelledProbeOnAGPU(t *testing.T) {
	gpu, err := openSim(1)
	if err != nil {
		t.Fatal(err)
	}
	defer gpu.close()
	gpu.real = true
	for _, p := range Probes() {
		if p.Name != "tex-S8" {
			continue
		}
		row, e := runProbe(p, gpu, nil, nil)
		if !row.Learned || row.Differs || e.probe != p || len(e.a.trace) == 0 {
			t.Errorf("row %+v", row)
		}
		if !strings.Contains(row.Result, "not modelled; the GPU: the simulated GPU hung") || !strings.Contains(row.Result, "S8") {
			t.Errorf("result %q", row.Result)
		}
		return
	}
	t.Fatal("no tex-S8 probe")
}
