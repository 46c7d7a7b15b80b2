package conform

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vccube/vccube/conform/pi3"
	"github.com/vccube/vccube/conform/piglit"
)

func TestJudgeAndExpectations(t *testing.T) {
	rec, err := pi3.Load()
	if err != nil {
		t.Fatal(err)
	}
	results := []Result{
		{Name: "shaders@glsl-fs-flat-color", Status: piglit.Fail},
		{Name: "spec@!opengl 1.1@clipflat", Status: piglit.Fail, Subtests: map[string]piglit.Status{
			"glBegin/End(GL_POLYGON), glFrontFace(GL_CCW), glPolygonMode(GL_FILL), quadrant: center bottom PV: FIRST": piglit.Pass}},
		{Name: "glx@glx-make-current", Status: piglit.Fail},
		{Name: "shaders@glsl-vs-loop", Status: piglit.Pass},
	}
	entries := Judge(rec, results, func(name string) bool { return strings.HasPrefix(name, "glx@") })
	want := map[string]pi3.Class{
		"shaders@glsl-fs-flat-color": pi3.ModelFails,
		"spec@!opengl 1.1@clipflat":  pi3.Agree,
		// The subtest, named as Mesa's runner names it (commas made dashes),
		// failed on a Pi 3 and passes on the model.
		"spec@!opengl 1.1@clipflat@glBegin/End(GL_POLYGON)- glFrontFace(GL_CCW)- glPolygonMode(GL_FILL)- quadrant: center bottom PV: FIRST": pi3.ModelPasses,
		"glx@glx-make-current": pi3.NotComparable,
		"shaders@glsl-vs-loop": pi3.NotComparable,
	}
	if len(entries) != len(want) {
		t.Fatalf("%d entries, want %d", len(entries), len(want))
	}
	for _, e := range entries {
		if want[e.Name] != e.Verdict.Class {
			t.Errorf("%s: %s, want %s", e.Name, e.Verdict.Class, want[e.Name])
		}
	}

	// Expectations round trip, and a change of class is found.
	var buf bytes.Buffer
	if err := WriteExpectations(&buf, entries); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "expect.txt")
	os.WriteFile(path, buf.Bytes(), 0o644)
	exp, err := ReadExpectations(path)
	if err != nil {
		t.Fatal(err)
	}
	ran := map[string]bool{}
	for _, r := range results {
		ran[r.Name] = true
	}
	if ch := Compare(exp, entries, ran); len(ch) != 0 {
		t.Errorf("changes against its own expectation: %v", ch)
	}
	results[0].Status = piglit.Pass
	results[1].Subtests = nil
	ch := Compare(exp, Judge(rec, results, func(string) bool { return false }), ran)
	names := []string{}
	for _, c := range ch {
		names = append(names, c.Name+":"+string(c.Expected)+">"+string(c.Got))
	}
	wantCh := []string{
		// Judged without the window-system rule, the GLX test failed as on a Pi 3.
		"glx@glx-make-current:not-comparable>agree",
		"shaders@glsl-fs-flat-color:model-fails>agree",
		"spec@!opengl 1.1@clipflat@glBegin/End(GL_POLYGON)- glFrontFace(GL_CCW)- glPolygonMode(GL_FILL)- quadrant: center bottom PV: FIRST:model-passes>",
	}
	if strings.Join(names, "\n") != strings.Join(wantCh, "\n") {
		t.Errorf("changes:\n%s\nwant:\n%s", strings.Join(names, "\n"), strings.Join(wantCh, "\n"))
	}
}

func TestCauses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "causes.txt")
	os.WriteFile(path, []byte("# comment\nmodel-passes\t@fs-log2?-\tthe SFU's log2 is exact on the model\nmodel-fails\tflat\tflat shading\n"), 0o644)
	cs, err := ReadCauses(path)
	if err != nil {
		t.Fatal(err)
	}
	e := Entry{Name: "spec@glsl-1.10@execution@built-in-functions@fs-log2-vec2", Verdict: pi3.Verdict{Class: pi3.ModelPasses}}
	if CauseOf(cs, e) != "the SFU's log2 is exact on the model" {
		t.Errorf("cause of %s: %q", e.Name, CauseOf(cs, e))
	}
	// A cause explains its own class only.
	e.Verdict.Class = pi3.ModelFails
	if CauseOf(cs, e) != "" {
		t.Errorf("a model-passes cause explained a model-fails entry")
	}
	os.WriteFile(path, []byte("agree\tx\ty\n"), 0o644)
	if _, err := ReadCauses(path); err == nil {
		t.Error("a cause for class agree was accepted")
	}
}
