package citecheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRepository checks every tracked text file of the module, this
// package's own files included.
func TestRepository(t *testing.T) {
	root, err := Root(".")
	if err != nil {
		t.Fatal(err)
	}
	files, err := Files(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 100 {
		t.Fatalf("only %d files found under %s; is this the module root?", len(files), root)
	}
	found, err := New(root, files).CheckAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Error(f)
	}
	if len(found) > 0 {
		t.Logf("%d citations a clone cannot follow; HACKING.md (Rules) and doc/testing.md#citations say what to cite instead", len(found))
	}
}

// Forbidden names, assembled so that this file does not contain them.
var (
	hwNote     = "hw" + "-vc4.md"
	kernelNote = "kernel" + "-vc4.md"
	rigsNote   = "rigs" + ".md"
	sharedDir  = "../../" + "sha" + "red/reference/"
	ss         = sec
	hwDoc      = "doc" + "/hardware.md" // the test repository's page, not the real one
)

// A small repository for the rule tests: a doc with headings and a file
// in a subdirectory.
func testChecker(t *testing.T) *Checker {
	root := t.TempDir()
	write := func(name, data string) {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("doc/hardware.md", "# Hardware\n\n## TMU\n\n### Public write-ups\n\n```\n# not a heading\n```\n## TMU\n")
	write("README.md", "# r\n")
	write("pkg/sub/x.go", "package sub\n")
	return New(root, []string{"doc/hardware.md", "README.md", "pkg/sub/x.go"})
}

func TestRules(t *testing.T) {
	c := testChecker(t)
	cases := []struct {
		file, line string
		bad        bool
	}{
		// Research notes and paths outside the repository.
		{"pkg/sub/x.go", "// (" + hwNote + " " + ss + "2.4)", true},
		{"pkg/sub/x.go", "// see " + kernelNote, true},
		{"pkg/sub/x.go", "// " + rigsNote + " explains it", true},
		{"pkg/sub/x.go", "// our notes " + sharedDir + "x", true},
		{"pkg/sub/x.go", "// in /" + "work/shared/x", true},
		{"pkg/sub/x.go", "// " + strings.Repeat("../", 3) + "etc/passwd", true},
		{"pkg/sub/x.go", "// ../../README.md is the root's", false},
		{"pkg/sub/x.go", `	os.ReadFile("../../README.md")`, false},
		// Seeds and issues.
		{"pkg/sub/x.go", "// as seed " + "004 shows", true},
		{"pkg/sub/x.go", "func TestLayoutOfSeed" + "004(t *testing.T) {", true},
		{"pkg/sub/x.go", "// the see" + "d's drawings", true},
		{"pkg/sub/x.go", "// the fuzz seed corpus in testdata/fuzz", false},
		{"pkg/sub/x.go", "	seed := uint64(12345)", false},
		{"pkg/sub/x.go", "// (iss" + "ue 8's goal)", true},
		{"pkg/sub/x.go", "// its iss" + "ue #12", true},
		{"pkg/sub/x.go", "// https://github.com/o/r/issues/12", false},
		// Section signs.
		{"pkg/sub/x.go", "// the walk (" + ss + "4.3)", true},
		{"pkg/sub/x.go", "// AG " + ss + "4 \"QPU Interface\" and " + ss + "11", false},
		{"pkg/sub/x.go", "// [AG] Table 38 id 102, " + ss + "9", false},
		{"pkg/sub/x.go", "// GIF89a " + ss + "23", false},
		{"pkg/sub/x.go", "// OpenGL ES 2.0 " + ss + "3.7.7", false},
		// doc/ citations.
		{"pkg/sub/x.go", "// " + hwDoc + "#tmu", false},
		{"pkg/sub/x.go", "// " + hwDoc + "#tmu-1", false},
		{"pkg/sub/x.go", "// " + hwDoc + "#public-write-ups", false},
		{"pkg/sub/x.go", "// " + hwDoc + "#not-a-heading", true},
		{"pkg/sub/x.go", "// " + hwDoc + "#vpm", true},
		{"pkg/sub/x.go", "// doc" + "/kernel.md#ioctls", true},
		// Markdown links and names.
		{"doc/hardware.md", "[TMU](#tmu)", false},
		{"doc/hardware.md", "[TMU](hardware.md#tmu)", false},
		{"doc/hardware.md", "[up](../README.md)", false},
		{"doc/hardware.md", "[gone](kernel.md#ioctls)", true},
		{"doc/hardware.md", "[outside](../../x.md)", true},
		{"doc/hardware.md", "[web](https://example.com/a.md)", false},
		{"pkg/sub/x.go", "// see README.md", false},
		{"pkg/sub/x.go", "// see NOTES.md " + ss + "2", true},
		{"pkg/sub/x.go", "// hermanhermitage/videocoreiv-qpu Traces1.md", false},
		{"pkg/sub/x.go", "// notes" + ".md item 4", true},
	}
	for _, k := range cases {
		got := c.Check(k.file, []byte(k.line+"\n"))
		if bad := len(got) > 0; bad != k.bad {
			t.Errorf("%s: %q: flagged %v, want %v (%v)", k.file, k.line, bad, k.bad, got)
		}
	}
}

// The message names the file and line and says what to do.
func TestFindingMessage(t *testing.T) {
	c := testChecker(t)
	got := c.Check("pkg/sub/x.go", []byte("package sub\n\n// from "+rigsNote+" "+ss+"3\n"))
	if len(got) == 0 {
		t.Fatal("no finding")
	}
	s := got[0].String()
	if !strings.HasPrefix(s, "pkg/sub/x.go:3: ") || !strings.Contains(s, "primary source") {
		t.Errorf("message %q", s)
	}
}

func TestSlug(t *testing.T) {
	for title, want := range map[string]string{
		" TMU":                            "tmu",
		" Mesa's copy":                    "mesas-copy",
		" Load and store":                 "load-and-store",
		" GET_PARAM":                      "get_param",
		" `vc4_get_param_ioctl` and more": "vc4_get_param_ioctl-and-more",
		" T/LT formats (AG " + ss + "11)": "tlt-formats-ag-11",
	} {
		if got := Slug(title); got != want {
			t.Errorf("Slug(%q) = %q, want %q", title, got, want)
		}
	}
}

func TestBinarySkipped(t *testing.T) {
	c := testChecker(t)
	if got := c.Check("a.png", []byte("\x89PNG\x00 "+hwNote)); len(got) != 0 {
		t.Errorf("binary file flagged: %v", got)
	}
}
