package layers

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// module is the module path; the table names packages relative to it.
const module = "github.com/vccube/vccube"

// hacking is the file whose table "Layers and packages" is the layer
// order, from this package's directory.
const hacking = "../../HACKING.md"

// layer is one layer of HACKING.md's table: its name and the package
// patterns of its rows. A pattern ending in "/..." stands for the package
// and everything below it; a package belongs to the most specific pattern
// that covers it.
type layer struct {
	name string
	pkgs []pattern
}

// pattern is one package pattern of the table and the line it is on.
type pattern struct {
	path string
	line int
}

// tableHead is the header row of the layer table.
const tableHead = "| layer | packages | one job |"

// parseLayers reads the layer table from the markdown document r (file,
// for messages): the first table after the heading "## Layers and
// packages" with the header row tableHead. A row whose first cell is
// "N. name" starts layer N (numbered from 0, in order); a row with an
// empty first cell adds to the layer above it. The second cell is a
// list of package patterns in backquotes, separated by commas, and
// nothing else.
func parseLayers(r io.Reader, file string) ([]layer, error) {
	sc := bufio.NewScanner(r)
	var layers []layer
	n, section, inTable := 0, false, false
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		switch {
		case !section:
			section = line == "## Layers and packages"
			continue
		case !inTable:
			if strings.HasPrefix(line, "## ") {
				return nil, fmt.Errorf("%s:%d: the section \"Layers and packages\" has no table starting %q", file, n, tableHead)
			}
			inTable = line == tableHead
			continue
		case strings.HasPrefix(line, "|---"):
			continue
		case !strings.HasPrefix(line, "|"):
			if len(layers) == 0 {
				return nil, fmt.Errorf("%s:%d: the layer table has no rows", file, n)
			}
			return layers, nil
		}
		// An escaped \| is text, not a cell's end.
		cells := strings.Split(strings.ReplaceAll(strings.Trim(line, "|"), `\|`, "\x00"), "|")
		if len(cells) != 3 {
			return nil, fmt.Errorf("%s:%d: a row of the layer table has %d cells, want 3 (layer, packages, one job; a | in the text must be written \\|)", file, n, len(cells))
		}
		if name := strings.TrimSpace(cells[0]); name != "" {
			num, rest, ok := strings.Cut(name, ". ")
			if !ok || num != strconv.Itoa(len(layers)) || rest == "" {
				return nil, fmt.Errorf("%s:%d: the layer cell %q should read \"%d. its name\" (layers are numbered from 0, in order)", file, n, name, len(layers))
			}
			layers = append(layers, layer{name: rest})
		}
		if len(layers) == 0 {
			return nil, fmt.Errorf("%s:%d: the first row of the layer table names no layer", file, n)
		}
		pkgs, err := parsePatterns(cells[1])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", file, n, err)
		}
		l := &layers[len(layers)-1]
		for _, p := range pkgs {
			l.pkgs = append(l.pkgs, pattern{p, n})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if !section {
		return nil, fmt.Errorf("%s has no section \"## Layers and packages\"", file)
	}
	if !inTable || len(layers) == 0 {
		return nil, fmt.Errorf("%s: the section \"Layers and packages\" has no table starting %q", file, tableHead)
	}
	return layers, nil
}

// parsePatterns reads a packages cell: `a`, `b/...`.
func parsePatterns(cell string) ([]string, error) {
	var pkgs []string
	for _, item := range strings.Split(cell, ",") {
		item = strings.TrimSpace(item)
		p, ok := strings.CutPrefix(item, "`")
		if ok {
			p, ok = strings.CutSuffix(p, "`")
		}
		if !ok || p == "" || strings.ContainsAny(p, "` ") || strings.HasSuffix(p, "/") || strings.HasPrefix(p, "/") || strings.HasPrefix(p, ".") {
			return nil, fmt.Errorf("the packages cell %q should list package paths relative to the module in backquotes, separated by commas, such as `cl/spec`, `sim/gpu/...` (no ./ and no trailing /), and nothing else: the job goes in the third cell", strings.TrimSpace(cell))
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// loadLayers reads HACKING.md's layer table.
func loadLayers(t *testing.T) []layer {
	t.Helper()
	f, err := os.Open(hacking)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	layers, err := parseLayers(f, "HACKING.md")
	if err != nil {
		t.Fatal(err)
	}
	return layers
}

// model is the rule of the simulated device (HACKING.md, "The model's
// own rule"): outside its tests, a package of sim/... imports
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

// layerOf returns the index of pkg's layer in layers, or -1.
func layerOf(layers []layer, pkg string) int {
	best, bestLen := -1, -1
	for i, l := range layers {
		for _, p := range l.pkgs {
			if n := covers(p.path, pkg); n > bestLen {
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
// against the rules and the layer table and returns one message per
// broken rule.
func violations(layers []layer, graph map[string][]string) []string {
	var msgs []string
	pkgs := make([]string, 0, len(graph))
	for p := range graph {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, pkg := range pkgs {
		li := layerOf(layers, pkg)
		if li < 0 {
			msgs = append(msgs, fmt.Sprintf("%s is in no layer: add a row for it to HACKING.md's table \"Layers and packages\"", pkg))
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
			lj := layerOf(layers, dep)
			if lj > li {
				msgs = append(msgs, fmt.Sprintf("%s (layer %d, %s) imports %s (layer %d, %s): a package imports only packages of its own layer or of the layers above it in HACKING.md's table",
					pkg, li, layers[li].name, dep, lj, layers[lj].name))
			}
		}
	}
	return msgs
}

// stale returns one message per pattern of the table that covers no
// package of graph: a row left behind by a move, a rename or a removal.
func stale(file string, layers []layer, graph map[string][]string) []string {
	var msgs []string
	for _, l := range layers {
		for _, p := range l.pkgs {
			found := false
			for pkg := range graph {
				if covers(p.path, pkg) >= 0 {
					found = true
					break
				}
			}
			if !found {
				msgs = append(msgs, fmt.Sprintf("%s:%d: `%s` (layer %q) names no package of the module: correct the row or remove it", file, p.line, p.path, l.name))
			}
		}
	}
	return msgs
}

// TestImportsFollowTheLayers is HACKING.md's import rules, run, and its
// layer table held to the module's packages.
func TestImportsFollowTheLayers(t *testing.T) {
	layers := loadLayers(t)
	graph := packageGraph(t)
	for _, m := range violations(layers, graph) {
		t.Error(m)
	}
	for _, m := range stale("HACKING.md", layers, graph) {
		t.Error(m)
	}
}

// table is a made-up layer table in HACKING.md's form, for the tests of
// the rules and of the parser.
const table = `# A document

## Layers and packages

Some text, and a table of something else first:

| a | b |
|---|---|
| 1 | 2 |

| layer | packages | one job |
|---|---|---|
| 0. the descriptions | ` + "`cl/spec`, `texture`" + ` | what the hardware reads (a \| in the text) |
| 1. the encoders | ` + "`cl/submit`" + ` | the builders |
| | ` + "`texture/convert`" + ` | the converters |
| 2. the model | ` + "`sim/...`" + ` | the simulated device |
| 3. the renderer | ` + "`cuberender`" + ` | the client's renderer |
| | ` + "`gone`" + ` | a package that was moved away |

The end.
`

// TestRulesCatchViolations: the rules refuse what they are there to
// refuse, on a made-up table and graph: the model reaching a client
// encoder, a description reaching up into the renderer, the model
// importing the texture converters, a package no layer names, and a row
// that names no package.
func TestRulesCatchViolations(t *testing.T) {
	layers, err := parseLayers(strings.NewReader(table), "T.md")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range layers {
		var pkgs []string
		for _, p := range l.pkgs {
			pkgs = append(pkgs, fmt.Sprintf("%s:%d", p.path, p.line))
		}
		names = append(names, l.name+" "+strings.Join(pkgs, " "))
	}
	wantLayers := "the descriptions cl/spec:13 texture:13|the encoders cl/submit:14 texture/convert:15|" +
		"the model sim/...:16|the renderer cuberender:17 gone:18"
	if got := strings.Join(names, "|"); got != wantLayers {
		t.Errorf("parsed the layers\n%s\nwant\n%s", got, wantLayers)
	}
	m := func(p string) string { return module + "/" + p }
	graph := map[string][]string{
		"sim/kernel":      {m("cl/submit"), m("uapi"), "fmt"},
		"sim/gpu":         {m("texture/convert"), "github.com/example/lib"},
		"cl/spec":         {m("cuberender")},
		"newthing":        nil,
		"cuberender":      {m("cl/submit"), m("texture/convert"), m("sim")},
		"cl/submit":       nil,
		"texture":         nil,
		"texture/convert": nil,
	}
	got := strings.Join(append(violations(layers, graph), stale("T.md", layers, graph)...), "\n")
	for _, want := range []string{
		"sim/kernel imports cl/submit: the model (sim/...) may import only",
		"sim/gpu imports texture/convert: the model",
		"sim/gpu imports github.com/example/lib: the model",
		"cl/spec (layer 0, the descriptions) imports cuberender (layer 3, the renderer)",
		"newthing is in no layer: add a row for it to HACKING.md's table",
		"T.md:18: `gone` (layer \"the renderer\") names no package of the module",
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

// TestTableErrors: a table the rules cannot be read from fails with the
// line and what to write instead.
func TestTableErrors(t *testing.T) {
	for _, c := range []struct{ from, to, want string }{
		{"| 1. the encoders |", "| 2. the encoders |", `T.md:14: the layer cell "2. the encoders" should read "1. its name"`},
		{"| 0. the descriptions |", "| the descriptions |", `T.md:13: the layer cell "the descriptions" should read "0. its name"`},
		{"| | `texture/convert` |", "| | the `texture/convert` package |", "T.md:15: the packages cell \"the `texture/convert` package\" should list"},
		{"`sim/...`", "`sim/`", "T.md:16: the packages cell \"`sim/`\" should list"},
		{"| the builders |", "| the | builders |", "T.md:14: a row of the layer table has 4 cells, want 3"},
		{"| layer | packages | one job |", "| layer | package | job |", "the section \"Layers and packages\" has no table starting"},
		{"## Layers and packages", "## Layers", "has no section \"## Layers and packages\""},
	} {
		doc := strings.Replace(table, c.from, c.to, 1)
		if doc == table {
			t.Fatalf("%q is not in the made-up table", c.from)
		}
		_, err := parseLayers(strings.NewReader(doc), "T.md")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("with %q for %q: error %v, want one containing %q", c.to, c.from, err, c.want)
		}
	}
}
