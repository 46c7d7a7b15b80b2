package layers

import (
	"bytes"
	"fmt"
	"io/fs"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// module is the module path; the tables below name packages relative to
// it. A name ending in "/..." stands for the package and everything below
// it; a package belongs to the most specific name that covers it.
const module = "github.com/vccube/vccube"

// layers is HACKING.md's table "Layers and packages" as data, in order: a
// package imports only packages of its own layer or of the layers before
// it (tests may import anything).
var layers = []struct {
	name string
	pkgs []string
}{
	// Layer 0: what the small tools of any layer share, importing only
	// the standard library (their -h and exit statuses).
	{"the tools' command line", []string{"internal/toolflags"}},
	{"the uAPI", []string{"uapi/..."}},
	{"the DRM client", []string{"drm/..."}},
	{"the vc4 client", []string{"gem/..."}},
	{"the descriptions", []string{"cl/spec", "cl", "cl/prim", "cl/internal/gen/...", "shaders/qpu", "shaders/hazard", "texture"}},
	{"the encoders", []string{"cl/shaderrec", "cl/uniforms", "cl/bincl", "cl/submit", "cl/dump", "cl/internal/cube",
		"texture/convert", "texture/imagefile", "texture/defaulttex/..."}},
	{"the scene", []string{"math/scene", "internal/refrender"}},
	{"the model", []string{"sim/...", "simserve/..."}},
	{"the cube's programs", []string{"shaders"}},
	{"the renderer and presentation", []string{"cuberender", "present", "termview", "record", "selftest"}},
	{"the program", []string{"cmd/...", "report", "conform/..."}},
	{"test support", []string{"internal/...", "bench/..."}},
}

// model is the rule of the simulated device (HACKING.md, "The model
// judges our encoders"): outside its tests, a package of sim/... imports
// only the standard library, golang.org/x/sys and these packages of the
// module, the wire description the kernel and the GPU read, never a
// user-space encoder.
var model = struct {
	pkgs    []string // the packages the rule applies to
	allowed []string // what they may import from the module
	extern  []string // what they may import from outside the standard library
}{
	pkgs:    []string{"sim/..."},
	allowed: []string{"uapi", "cl/spec", "cl", "cl/prim", "shaders/qpu", "shaders/hazard", "texture", "sim/..."},
	extern:  []string{"golang.org/x/sys/..."},
}

// covers reports whether pattern names pkg, and how specifically (the
// length of the pattern's path; -1 if it does not).
func covers(pattern, pkg string) int {
	if p, ok := strings.CutSuffix(pattern, "/..."); ok {
		if pkg == p || strings.HasPrefix(pkg, p+"/") {
			return len(p)
		}
		return -1
	}
	if pkg == pattern {
		return len(pattern)
	}
	return -1
}

// layerOf returns the index of pkg's layer, or -1.
func layerOf(pkg string) int {
	best, bestLen := -1, -1
	for i, l := range layers {
		for _, p := range l.pkgs {
			if n := covers(p, pkg); n > bestLen {
				best, bestLen = i, n
			}
		}
	}
	return best
}

func anyCovers(patterns []string, pkg string) bool {
	for _, p := range patterns {
		if covers(p, pkg) >= 0 {
			return true
		}
	}
	return false
}

// isStd reports whether an import path is the standard library's: its
// first element has no dot.
func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// packageGraph lists the module's packages and their non-test imports
// with go list, relative names for the module's own.
func packageGraph(t *testing.T) map[string][]string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("the go command is not on PATH (%v), so the package graph cannot be read; run the tests with go test", err)
	}
	cmd := exec.Command(goTool, "list", "-e", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	watchSources(t, goTool)
	graph := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		graph[rel(f[0])] = f[1:]
	}
	if len(graph) == 0 {
		t.Fatal("go list found no packages in the module")
	}
	return graph
}

// watchSources walks the module's source tree, so that go test's result
// cache, which notes the files and directories a test opens (and the size
// and modification time of every entry of an opened directory), reruns
// this test when an import changes: go list's own reads happen in another
// process, which the cache cannot see.
func watchSources(t *testing.T, goTool string) {
	t.Helper()
	out, err := exec.Command(goTool, "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	root := strings.TrimSpace(string(out))
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") || d.Name() == "testdata") {
			return filepath.SkipDir // the go command ignores these too
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walking the module's sources: %v", err)
	}
}

// rel returns a module package's path relative to the module ("" for the
// root), or the path unchanged for another module's package.
func rel(path string) string {
	if path == module {
		return ""
	}
	if r, ok := strings.CutPrefix(path, module+"/"); ok {
		return r
	}
	return path
}

func inModule(path string) bool { return path == module || strings.HasPrefix(path, module+"/") }

// violations checks graph (package → its imports, as go list prints them)
// against the rules and returns one message per broken rule.
func violations(graph map[string][]string) []string {
	var msgs []string
	pkgs := make([]string, 0, len(graph))
	for p := range graph {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, pkg := range pkgs {
		li := layerOf(pkg)
		if li < 0 {
			msgs = append(msgs, fmt.Sprintf("%s is in no layer: add it to the layer table of internal/layers/layers_test.go and to HACKING.md's", pkg))
			continue
		}
		isModel := anyCovers(model.pkgs, pkg)
		for _, imp := range graph[pkg] {
			if !inModule(imp) {
				if isModel && !isStd(imp) && !anyCovers(model.extern, imp) {
					msgs = append(msgs, fmt.Sprintf("%s imports %s: the model (sim/...) may import only the standard library, %s and the wire description (%s)",
						pkg, imp, strings.Join(model.extern, ", "), strings.Join(model.allowed, ", ")))
				}
				continue
			}
			dep := rel(imp)
			if isModel && !anyCovers(model.allowed, dep) {
				msgs = append(msgs, fmt.Sprintf("%s imports %s: the model (sim/...) may import only the standard library, %s and the wire description (%s), never a user-space builder",
					pkg, dep, strings.Join(model.extern, ", "), strings.Join(model.allowed, ", ")))
			}
			lj := layerOf(dep)
			if lj > li {
				msgs = append(msgs, fmt.Sprintf("%s (layer %d, %s) imports %s (layer %d, %s): a package imports only packages of its own layer or of the layers above it in HACKING.md's table",
					pkg, li, layers[li].name, dep, lj, layers[lj].name))
			}
		}
	}
	return msgs
}

// TestImportsFollowTheLayers is HACKING.md's import rules, run.
func TestImportsFollowTheLayers(t *testing.T) {
	for _, m := range violations(packageGraph(t)) {
		t.Error(m)
	}
}

// TestRulesCatchViolations: the rules refuse what they are there to
// refuse, on a made-up graph: the model reaching a client encoder, a
// description reaching up into the renderer, the model importing the
// texture converters, and a package no layer names.
func TestRulesCatchViolations(t *testing.T) {
	m := func(p string) string { return module + "/" + p }
	graph := map[string][]string{
		"sim/kernel": {m("cl/submit"), m("uapi"), "fmt"},
		"sim/gpu":    {m("texture/convert"), "github.com/example/lib"},
		"cl/spec":    {m("cuberender")},
		"newthing":   nil,
		"cuberender": {m("cl/submit"), m("texture/convert"), m("sim")},
	}
	got := strings.Join(violations(graph), "\n")
	for _, want := range []string{
		"sim/kernel imports cl/submit: the model (sim/...) may import only",
		"sim/gpu imports texture/convert: the model",
		"sim/gpu imports github.com/example/lib: the model",
		"cl/spec (layer 4, the descriptions) imports cuberender (layer 9, the renderer and presentation)",
		"newthing is in no layer",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no violation %q in:\n%s", want, got)
		}
	}
	for _, line := range strings.Split(got, "\n") {
		if strings.HasPrefix(line, "cuberender ") {
			t.Errorf("cuberender's imports are allowed, but: %s", line)
		}
	}
}
