package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/vccube/vccube/conform"
	"github.com/vccube/vccube/conform/pi3"
	"github.com/vccube/vccube/conform/piglit"
)

// mesaSetup checks that the Mesa build and the preload library are there
// and returns the environment a test needs to use that build (glvnd's
// libEGL finds the build's vendor library through its JSON file) and the
// preload's absolute path.
func mesaSetup(mesa, preload string) (env []string, pre string, err error) {
	if _, err := os.Stat(filepath.Join(mesa, "lib", "dri", "vc4_dri.so")); err != nil {
		return nil, "", fmt.Errorf("no Mesa vc4 build at %s (run conform/build-mesa.sh, or -mesa DIR)", mesa)
	}
	pre, err = filepath.Abs(preload)
	if err == nil {
		_, err = os.Stat(pre)
	}
	if err != nil {
		return nil, "", fmt.Errorf("no preload library at %s (run simserve/preload/build.sh, or -preload FILE)", preload)
	}
	return []string{
		"LD_LIBRARY_PATH=" + filepath.Join(mesa, "lib"),
		"LIBGL_DRIVERS_PATH=" + filepath.Join(mesa, "lib", "dri"),
		"__EGL_VENDOR_LIBRARY_FILENAMES=" + filepath.Join(mesa, "share", "glvnd", "egl_vendor.d", "50_mesa.json"),
	}, pre, nil
}

// A collector keeps a run's results as they come: it writes each to
// results.jsonl at once (a run stopped halfway keeps what it ran), counts
// the statuses, and prints a progress line every 2 s unless quiet.
type collector struct {
	mu      sync.Mutex
	results []conform.Result
	counts  map[piglit.Status]int
	f       *os.File
	w       *bufio.Writer
	enc     *json.Encoder

	total int
	unit  string // "tests" or "cases"
	start time.Time
	out   io.Writer
	stop  chan struct{}
	done  chan struct{}
}

func newCollector(outDir string, total int, unit string, stderr io.Writer, quiet bool) (*collector, error) {
	f, err := os.Create(filepath.Join(outDir, "results.jsonl"))
	if err != nil {
		return nil, err
	}
	c := &collector{counts: map[piglit.Status]int{}, f: f, w: bufio.NewWriter(f),
		total: total, unit: unit, start: time.Now(), out: stderr, stop: make(chan struct{}), done: make(chan struct{})}
	c.enc = json.NewEncoder(c.w)
	go func() {
		defer close(c.done)
		if quiet {
			<-c.stop
			return
		}
		tick := time.NewTicker(2 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				c.progress(false)
			case <-c.stop:
				c.progress(true)
				return
			}
		}
	}()
	return c, nil
}

// add records one result (conform.Options.OnResult).
func (c *collector) add(r conform.Result) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.results = append(c.results, r)
	c.counts[r.Status]++
	c.enc.Encode(r)
}

func (c *collector) progress(final bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	done := len(c.results)
	el := time.Since(c.start)
	eta, end := "", "\n"
	if !final {
		end = "\r"
		if done > 0 {
			eta = fmt.Sprintf(", about %s left", (el / time.Duration(done) * time.Duration(c.total-done)).Round(time.Second))
		}
	}
	fmt.Fprintf(c.out, "vc4conform: %d/%d %s, pass %d fail %d skip %d crash %d timeout %d, %s%s   %s",
		done, c.total, c.unit, c.counts[piglit.Pass]+c.counts[piglit.Warn], c.counts[piglit.Fail], c.counts[piglit.Skip],
		c.counts[piglit.Crash], c.counts[piglit.Timeout], el.Round(time.Second), eta, end)
}

// finish stops the progress line and closes results.jsonl; it returns the
// results and the run's wall time.
func (c *collector) finish() ([]conform.Result, time.Duration, error) {
	close(c.stop)
	<-c.done
	err := c.w.Flush()
	if cerr := c.f.Close(); err == nil {
		err = cerr
	}
	return c.results, time.Since(c.start), err
}

// report judges a finished run: known causes and the expectation (when
// given) go into facts, summary.md, expectations.txt and fails.csv are
// written to outDir, and one line per count (and per change of class) is
// printed. It returns errChanged when a class differs from the expectation.
func report(stdout io.Writer, facts conform.Facts, outDir, causes, expect, counted string, wall time.Duration) error {
	var err error
	if causes != "" {
		if facts.Causes, err = conform.ReadCauses(causes); err != nil {
			return err
		}
	}
	if expect != "" {
		exp, err := conform.ReadExpectations(expect)
		if err != nil {
			return err
		}
		ran := map[string]bool{}
		for _, r := range facts.Results {
			ran[r.Name] = true
		}
		if facts.Changes = conform.Compare(exp, facts.Entries, ran); facts.Changes == nil {
			facts.Changes = []conform.Change{}
		}
	}
	entries := facts.Entries
	for _, f := range []struct {
		name  string
		write func(io.Writer) error
	}{
		{"summary.md", func(w io.Writer) error { conform.WriteSummary(w, facts); return nil }},
		{"expectations.txt", func(w io.Writer) error { return conform.WriteExpectations(w, entries) }},
		{"fails.csv", func(w io.Writer) error { return writeFails(w, entries) }},
	} {
		if err := writeFile(filepath.Join(outDir, f.name), f.write); err != nil {
			return err
		}
	}
	n := conform.Counts(entries)
	fmt.Fprintf(stdout, "%d %s in %s: %d agree with the Pi 3, %d fail on the model and passed on a Pi 3, %d pass on the model and failed on a Pi 3, %d not comparable%s; %s\n",
		len(facts.Results), unitOf(counted), wall.Round(time.Second), n[pi3.Agree], n[pi3.ModelFails], n[pi3.ModelPasses], n[pi3.NotComparable],
		countedNote(counted), filepath.Join(outDir, "summary.md"))
	if facts.Changes == nil {
		return nil
	}
	if len(facts.Changes) == 0 {
		fmt.Fprintf(stdout, "every class as %s expects\n", expect)
		return nil
	}
	for i, ch := range facts.Changes {
		if i == 20 {
			fmt.Fprintf(stdout, "… and %d more (summary.md)\n", len(facts.Changes)-20)
			break
		}
		fmt.Fprintf(stdout, "CHANGED %s: expected %s, got %s\n", ch.Name, orNone(ch.Expected), orNone(ch.Got))
	}
	fmt.Fprintf(stdout, "%d classes changed against %s\n", len(facts.Changes), expect)
	return errChanged
}

// unitOf and countedNote word the result line: piglit counts tests and
// their subtests, dEQP cases.
func unitOf(counted string) string {
	if counted == "cases" {
		return "cases"
	}
	return "tests"
}

func countedNote(counted string) string {
	if counted == "cases" {
		return ""
	}
	return " (tests and subtests)"
}
