package conform

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/vccube/vccube/conform/pi3"
	"github.com/vccube/vccube/conform/piglit"
)

// An Entry is one name the record can speak of: a test, or one of its
// subtests (named test@subtest, as Mesa's runner names them).
type Entry struct {
	Name    string
	Status  piglit.Status
	Verdict pi3.Verdict
	// SkipRan2021 is set when the model skipped a test that the 2021
	// lists say ran on a Pi 3 (a status other than skip there): a feature
	// query the model may answer differently.
	SkipRan2021 string
	Test        *Result
}

// Judge puts each test and subtest of the results in its class.
// windowSystem says which tests need GLX or X11.
func Judge(rec *pi3.Record, results []Result, windowSystem func(name string) bool) []Entry {
	var out []Entry
	for i := range results {
		r := &results[i]
		ws := windowSystem(r.Name)
		add := func(name string, s piglit.Status) {
			e := Entry{Name: name, Status: s, Test: r, Verdict: rec.Classify(name, s.Passed(), ws)}
			if r.Skipped != "" && e.Verdict.Class != pi3.NotComparable {
				e.Verdict.Class, e.Verdict.Why = pi3.NotComparable, "not run: "+r.Skipped
			}
			if s == piglit.Skip && r.Skipped == "" && e.Verdict.Class == pi3.Agree {
				// Only a status the 2021 lists give says the test ran on
				// a Pi 3 then: a test they do not name passed then or
				// did not exist yet, which they cannot tell apart.
				if old := rec.Ran2021(name); old != "" && old != "skip" {
					e.SkipRan2021 = old
				}
			}
			out = append(out, e)
		}
		add(r.Name, r.Status)
		for _, sub := range sortedKeys(r.Subtests) {
			add(r.Name+"@"+piglit.SanitizeName(sub), r.Subtests[sub])
		}
	}
	return out
}

func sortedKeys(m map[string]piglit.Status) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Counts tallies entries per class.
func Counts(entries []Entry) map[pi3.Class]int {
	c := map[pi3.Class]int{}
	for _, e := range entries {
		c[e.Verdict.Class]++
	}
	return c
}

// WriteExpectations writes each entry's class, one "class<TAB>name" line
// each, sorted by name: the file -expect compares a later run with.
func WriteExpectations(w io.Writer, entries []Entry) error {
	lines := make([]string, 0, len(entries))
	for _, e := range entries {
		lines = append(lines, string(e.Verdict.Class)+"\t"+e.Name)
	}
	sort.Slice(lines, func(i, j int) bool { return nameOf(lines[i]) < nameOf(lines[j]) })
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "# vc4conform expectations: the class of each test and subtest (vc4conform -h).")
	for _, l := range lines {
		fmt.Fprintln(bw, l)
	}
	return bw.Flush()
}

func nameOf(line string) string { _, n, _ := strings.Cut(line, "\t"); return n }

// ReadExpectations reads a file WriteExpectations wrote.
func ReadExpectations(path string) (map[string]pi3.Class, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := map[string]pi3.Class{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		l := sc.Text()
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		c, name, ok := strings.Cut(l, "\t")
		if !ok {
			return nil, fmt.Errorf("%s:%d: not class<TAB>name", path, n)
		}
		m[name] = pi3.Class(c)
	}
	return m, sc.Err()
}

// A Change is an entry whose class differs from the expectation.
type Change struct {
	Name     string
	Expected pi3.Class // "" when the expectation does not name it
	Got      pi3.Class // "" when the run did not give it
}

// Compare lists the changes of class between expect and entries: tests
// whose class differs, tests the expectation names that the run did not
// give (for the tests it ran), and entries it does not name.
func Compare(expect map[string]pi3.Class, entries []Entry, ran map[string]bool) []Change {
	var ch []Change
	got := map[string]bool{}
	for _, e := range entries {
		got[e.Name] = true
		if c, ok := expect[e.Name]; !ok || c != e.Verdict.Class {
			ch = append(ch, Change{Name: e.Name, Expected: c, Got: e.Verdict.Class})
		}
	}
	for name, c := range expect {
		if got[name] {
			continue
		}
		// A subtest that no longer reports counts only when its test ran.
		test := name
		for !ran[test] {
			i := strings.LastIndex(test, "@")
			if i < 0 {
				break
			}
			test = test[:i]
		}
		if ran[test] {
			ch = append(ch, Change{Name: name, Expected: c})
		}
	}
	sort.Slice(ch, func(i, j int) bool { return ch[i].Name < ch[j].Name })
	return ch
}

// A Cause explains a set of disagreements with the Pi 3: a regular
// expression over test names, the class it explains, and why, with its
// evidence (conform/causes.txt).
type Cause struct {
	re    *regexp.Regexp
	Class pi3.Class
	Why   string
}

// ReadCauses reads a causes file: lines of "class<TAB>regexp<TAB>why",
// '#' comments.
func ReadCauses(path string) ([]Cause, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cs []Cause
	for n, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.SplitN(l, "\t", 3)
		if len(f) != 3 || (pi3.Class(f[0]) != pi3.ModelFails && pi3.Class(f[0]) != pi3.ModelPasses) {
			return nil, fmt.Errorf("%s:%d: not model-fails|model-passes<TAB>regexp<TAB>why", path, n+1)
		}
		re, err := regexp.Compile(f[1])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n+1, err)
		}
		cs = append(cs, Cause{re: re, Class: pi3.Class(f[0]), Why: f[2]})
	}
	return cs, nil
}

// CauseOf returns the first cause that explains e ("" when none does).
func CauseOf(causes []Cause, e Entry) string {
	for _, c := range causes {
		if c.Class == e.Verdict.Class && c.re.MatchString(e.Name) {
			return c.Why
		}
	}
	return ""
}
