package conform

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/vccube/vccube/conform/pi3"
	"github.com/vccube/vccube/conform/piglit"
)

// Run facts a summary states at its top.
type Facts struct {
	Title   string   // what ran: profiles, filters
	Lines   []string // date, commit, versions, wall time, workers
	Results []Result
	Entries []Entry
	Changes []Change // against -expect, if given
	Causes  []Cause  // the known causes of disagreements
}

// WriteSummary writes the readable summary: counts per status and class,
// then every disagreement with the Pi 3 with its evidence (the test's
// last lines of output and what the simulated kernel printed), the skips
// to check, the tests that are not comparable (by reason) and the
// servers replaced.
func WriteSummary(w io.Writer, f Facts) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("# %s\n\n", f.Title)
	for _, l := range f.Lines {
		p("- %s\n", l)
	}
	status := map[piglit.Status]int{}
	for _, r := range f.Results {
		if r.Skipped == "" {
			status[r.Status]++
		}
	}
	p("\nTests run: %d (pass %d, fail %d, skip %d, warn %d, crash %d, timeout %d).\n\n",
		status[piglit.Pass]+status[piglit.Fail]+status[piglit.Skip]+status[piglit.Warn]+status[piglit.Crash]+status[piglit.Timeout],
		status[piglit.Pass], status[piglit.Fail], status[piglit.Skip], status[piglit.Warn], status[piglit.Crash], status[piglit.Timeout])
	c := Counts(f.Entries)
	p("| class (tests and subtests) | count |\n|---|---|\n")
	for _, cl := range []pi3.Class{pi3.Agree, pi3.ModelFails, pi3.ModelPasses, pi3.NotComparable} {
		p("| %s | %d |\n", cl.Describe(), c[cl])
	}
	if f.Changes != nil || len(f.Changes) > 0 {
		p("\n## Changes against the expectation (%d)\n\n", len(f.Changes))
		for _, ch := range f.Changes {
			p("- `%s`: expected %s, got %s\n", ch.Name, orNone(ch.Expected), orNone(ch.Got))
		}
	}
	for _, cl := range []pi3.Class{pi3.ModelFails, pi3.ModelPasses} {
		byCause := map[string][]Entry{}
		n := 0
		for _, e := range f.Entries {
			if e.Verdict.Class == cl {
				why := CauseOf(f.Causes, e)
				byCause[why] = append(byCause[why], e)
				n++
			}
		}
		p("\n## %s (%d)\n", capitalise(cl.Describe()), n)
		p("\nWithout a known cause: %d.\n", len(byCause[""]))
		for _, why := range sortedCauses(byCause) {
			list := byCause[why]
			if why == "" {
				p("\n### Without a known cause (%d)\n\n", len(list))
			} else {
				p("\n### %s (%d)\n\n", why, len(list))
			}
			for i, e := range list {
				if why != "" && i == 20 {
					p("- … and %d more\n", len(list)-20)
					break
				}
				p("- `%s`: model %s, Pi 3 %s%s\n", e.Name, e.Status, e.Verdict.Pi3, evidence(e))
			}
		}
	}
	var skips []Entry
	for _, e := range f.Entries {
		if e.SkipRan2021 != "" && !strings.Contains(e.Name[len(e.Test.Name):], "@") {
			skips = append(skips, e)
		}
	}
	p("\n## Skipped on the model, not skipped on a Pi 3 in 2021 (%d)\n\n", len(skips))
	p("A skip counts as a pass; these are listed to check that the model answers the driver's feature queries as a Pi 3 does.\n\n")
	for _, e := range skips {
		p("- `%s` (2021: %s)%s\n", e.Name, e.SkipRan2021, evidence(e))
	}
	why := map[string]int{}
	for _, e := range f.Entries {
		if e.Verdict.Class == pi3.NotComparable {
			why[e.Verdict.Why]++
		}
	}
	p("\n## Not comparable, by reason\n\n")
	for _, k := range sortedByCount(why) {
		p("- %d: %s\n", why[k], k)
	}
	var restarts []Result
	for _, r := range f.Results {
		if r.ServerRestarted != "" {
			restarts = append(restarts, r)
		}
	}
	p("\n## Servers replaced (%d)\n\n", len(restarts))
	for _, r := range restarts {
		p("- `%s`: %s\n", r.Name, oneLine(r.ServerRestarted))
	}
}

func orNone(c pi3.Class) string {
	if c == "" {
		return "nothing"
	}
	return string(c)
}

func capitalise(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

func sortedByCount(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}

// evidence is a test's last meaningful output line and the kernel's
// lines, shortened, for a list item.
func evidence(e Entry) string {
	var parts []string
	if l := lastLine(e.Test.Output); l != "" {
		parts = append(parts, "output: "+l)
	}
	if len(e.Test.Kernel) > 0 {
		k := e.Test.Kernel[len(e.Test.Kernel)-1]
		parts = append(parts, fmt.Sprintf("kernel (%d lines): %s", len(e.Test.Kernel), k))
	}
	if len(parts) == 0 {
		return ""
	}
	return " — " + oneLine(strings.Join(parts, "; "))
}

func lastLine(out string) string {
	lines := strings.Split(out, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l != "" && !strings.HasPrefix(l, "PIGLIT:") {
			return l
		}
	}
	return ""
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.ReplaceAll(s, "`", "'")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// sortedCauses orders causes with the unexplained first, then by size.
func sortedCauses(m map[string][]Entry) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if (keys[i] == "") != (keys[j] == "") {
			return keys[i] == ""
		}
		if len(m[keys[i]]) != len(m[keys[j]]) {
			return len(m[keys[i]]) > len(m[keys[j]])
		}
		return keys[i] < keys[j]
	})
	return keys
}
