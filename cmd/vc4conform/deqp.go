package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/vccube/vccube/conform"
	"github.com/vccube/vccube/conform/pi3"
	"github.com/vccube/vccube/conform/piglit"
)

// deqpArgs are the arguments Mesa's CI gave deqp-gles2 on the Pi 3
// (src/broadcom/ci/deqp-broadcom-rpi3.toml at 22.3.0, in
// conform/pi3/testdata): a 256×256 pbuffer, RGBA8888 with depth 24 and
// stencil 8, no multisampling.
const deqpArgs = "--deqp-gl-config-name=rgba8888d24s8ms0 --deqp-surface-height=256 --deqp-surface-type=pbuffer --deqp-surface-width=256 --deqp-visibility=hidden"

type deqpOptions struct {
	binary, caselist, args string
	perGroup               int
	logs                   bool
}

func deqpFlags(fs *flag.FlagSet) *deqpOptions {
	d := &deqpOptions{}
	fs.StringVar(&d.binary, "deqp", "", "run this dEQP program (a build's modules/gles2/deqp-gles2) on -caselist's cases instead of piglit (doc/mesa-on-pc.md#deqp-gles2)")
	fs.StringVar(&d.caselist, "caselist", "", "with -deqp: the case list, one name a line (the mustpass gles2-master.txt)")
	fs.StringVar(&d.args, "deqp-args", deqpArgs, "with -deqp: the arguments every dEQP process gets (the Pi 3 record's)")
	fs.IntVar(&d.perGroup, "deqp-group", 250, "with -deqp: cases per dEQP process (the Pi 3 record's tests_per_group)")
	fs.BoolVar(&d.logs, "deqp-logs", true, "with -deqp: keep the .qpa log of each process with a case that did not pass, in -o's qpa/")
	return d
}

// common holds the flags the piglit and dEQP modes share.
type common struct {
	rec                                       *pi3.Record
	mesa, preload, outDir, match, list, shard string
	all, quiet                                bool
	workers                                   int
	timeout                                   time.Duration
	causes, expect                            string
}

func runDeqp(d *deqpOptions, c common, stdout, stderr io.Writer) error {
	bin, err := filepath.Abs(d.binary)
	if err == nil {
		_, err = os.Stat(bin)
	}
	if err != nil {
		return fmt.Errorf("no dEQP program at %s (build deqp-gles2: doc/mesa-on-pc.md#deqp-gles2)", d.binary)
	}
	if d.caselist == "" {
		return usageError{errors.New("-deqp needs -caselist FILE (the mustpass list, gles2-master.txt)")}
	}
	if d.perGroup < 1 {
		return usageError{fmt.Errorf("-deqp-group %d: say at least 1", d.perGroup)}
	}
	cases, err := conform.ReadCaselist(d.caselist)
	if err != nil {
		return err
	}
	vendor := filepath.Join(c.mesa, "share", "glvnd", "egl_vendor.d", "50_mesa.json")
	if _, err := os.Stat(filepath.Join(c.mesa, "lib", "dri", "vc4_dri.so")); err != nil {
		return fmt.Errorf("no Mesa vc4 build at %s (run conform/build-mesa.sh, or -mesa DIR)", c.mesa)
	}
	pre, err := filepath.Abs(c.preload)
	if err == nil {
		_, err = os.Stat(pre)
	}
	if err != nil {
		return fmt.Errorf("no preload library at %s (run simserve/preload/build.sh, or -preload FILE)", c.preload)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}

	var filter *regexp.Regexp
	if c.match != "" {
		if filter, err = regexp.Compile(c.match); err != nil {
			return usageError{fmt.Errorf("-run: %w", err)}
		}
	}
	var wanted map[string]bool
	if c.list != "" {
		if wanted, err = readList(c.list); err != nil {
			return err
		}
	}
	k, n, err := parseShard(c.shard)
	if err != nil {
		return usageError{err}
	}
	var sel []string
	skipped := 0
	for _, name := range cases {
		if filter != nil && !filter.MatchString(name) || wanted != nil && !wanted[name] {
			continue
		}
		if !c.all && c.rec.Expect(name).Status == "Skip" {
			skipped++
			continue
		}
		sel = append(sel, name)
	}
	var mine []string
	for i, name := range sel {
		if n == 0 || i%n == k-1 {
			mine = append(mine, name)
		}
	}
	sel = mine
	if len(sel) == 0 {
		return usageError{errors.New("no case selected (see -caselist, -tests, -run, -shard)")}
	}
	if err := os.MkdirAll(c.outDir, 0o755); err != nil {
		return err
	}
	logDir := ""
	if d.logs {
		logDir = filepath.Join(c.outDir, "qpa")
		os.RemoveAll(logDir)
		if err := os.MkdirAll(logDir, 0o755); err != nil {
			return err
		}
	}
	serverDir, err := os.MkdirTemp("", "vc4conform.")
	if err != nil {
		return err
	}
	defer os.RemoveAll(serverDir)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	jf, err := os.Create(filepath.Join(c.outDir, "results.jsonl"))
	if err != nil {
		return err
	}
	defer jf.Close()
	jw := bufio.NewWriter(jf)
	enc := json.NewEncoder(jw)
	var (
		mu      sync.Mutex
		results []conform.Result
		counts  = map[piglit.Status]int{}
	)
	start := time.Now()
	progress := func(end string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(stderr, "vc4conform: %d/%d cases, pass %d fail %d skip %d crash %d timeout %d, %s   %s",
			len(results), len(sel), counts[piglit.Pass]+counts[piglit.Warn], counts[piglit.Fail], counts[piglit.Skip],
			counts[piglit.Crash], counts[piglit.Timeout], time.Since(start).Round(time.Second), end)
	}
	stopTick := make(chan struct{})
	if !c.quiet {
		tick := time.NewTicker(2 * time.Second)
		defer tick.Stop()
		go func() {
			for {
				select {
				case <-tick.C:
					progress("\r")
				case <-stopTick:
					return
				}
			}
		}()
	}
	fmt.Fprintf(stderr, "vc4conform: %d dEQP cases (%d more the Pi 3 record skips, not run), %d a process, %d workers, Mesa %s\n",
		len(sel), skipped, d.perGroup, c.workers, c.mesa)
	o := conform.DeqpOptions{
		Binary:   bin,
		Args:     strings.Fields(d.args),
		PerGroup: d.perGroup,
		Workers:  c.workers,
		Timeout:  c.timeout,
		Preload:  pre,
		Env: []string{
			// Mesa's EGL without a window system: its surfaceless
			// platform opens a render node, which the preload maps to
			// the simulated device.
			"EGL_PLATFORM=surfaceless",
			"LD_LIBRARY_PATH=" + filepath.Join(c.mesa, "lib"),
			"LIBGL_DRIVERS_PATH=" + filepath.Join(c.mesa, "lib", "dri"),
			"__EGL_VENDOR_LIBRARY_FILENAMES=" + vendor,
		},
		Server: []string{self},
		Dir:    serverDir,
		LogDir: logDir,
		OnResult: func(r conform.Result) {
			mu.Lock()
			results = append(results, r)
			counts[r.Status]++
			enc.Encode(r)
			mu.Unlock()
		},
	}
	runErr := conform.RunDeqp(ctx, o, sel)
	close(stopTick)
	if !c.quiet {
		progress("\n")
	}
	if err := jw.Flush(); err != nil {
		return err
	}
	if runErr != nil {
		return runErr
	}
	wall := time.Since(start)

	sort.Slice(results, func(i, j int) bool { return results[i].Name < results[j].Name })
	entries := conform.Judge(c.rec, results, func(string) bool { return false })
	for i := range entries {
		// The 2021 lists are piglit's: they say nothing of dEQP's skips.
		entries[i].SkipRan2021 = ""
	}
	facts := conform.Facts{
		Title:   fmt.Sprintf("dEQP %s on the simulated vc4, judged by the Pi 3 record", filepath.Base(d.caselist)),
		Results: results,
		Entries: entries,
		Lines: []string{
			"date: " + time.Now().UTC().Format("2006-01-02 15:04 UTC"),
			"vccube: " + revision(),
			"dEQP: " + bin + " " + d.args,
			"Mesa: " + c.mesa,
			fmt.Sprintf("selection: %d cases of %s%s%s%s; %d skipped by the Pi 3 record, not run", len(sel), d.caselist,
				opt(" -run ", c.match), opt(" -tests ", c.list), opt(" -shard ", c.shard), skipped),
			fmt.Sprintf("wall time: %s with %d workers on %d CPUs, %d cases a process", wall.Round(time.Second), c.workers, runtime.NumCPU(), d.perGroup),
		},
	}
	if c.causes != "" {
		if facts.Causes, err = conform.ReadCauses(c.causes); err != nil {
			return err
		}
	}
	if c.expect != "" {
		exp, err := conform.ReadExpectations(c.expect)
		if err != nil {
			return err
		}
		ran := map[string]bool{}
		for _, r := range results {
			ran[r.Name] = true
		}
		if facts.Changes = conform.Compare(exp, entries, ran); facts.Changes == nil {
			facts.Changes = []conform.Change{}
		}
	}
	if err := writeFile(filepath.Join(c.outDir, "summary.md"), func(w io.Writer) error { conform.WriteSummary(w, facts); return nil }); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(c.outDir, "expectations.txt"), func(w io.Writer) error { return conform.WriteExpectations(w, entries) }); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(c.outDir, "fails.csv"), func(w io.Writer) error { return writeFails(w, entries) }); err != nil {
		return err
	}
	cn := conform.Counts(entries)
	fmt.Fprintf(stdout, "%d cases in %s: %d agree with the Pi 3, %d fail on the model and passed on a Pi 3, %d pass on the model and failed on a Pi 3, %d not comparable; %s\n",
		len(results), wall.Round(time.Second), cn[pi3.Agree], cn[pi3.ModelFails], cn[pi3.ModelPasses], cn[pi3.NotComparable], filepath.Join(c.outDir, "summary.md"))
	if facts.Changes != nil {
		for i, ch := range facts.Changes {
			if i == 20 {
				fmt.Fprintf(stdout, "… and %d more (summary.md)\n", len(facts.Changes)-20)
				break
			}
			fmt.Fprintf(stdout, "CHANGED %s: expected %s, got %s\n", ch.Name, orNone(ch.Expected), orNone(ch.Got))
		}
		if len(facts.Changes) > 0 {
			fmt.Fprintf(stdout, "%d classes changed against %s\n", len(facts.Changes), c.expect)
			return errChanged
		}
		fmt.Fprintf(stdout, "every class as %s expects\n", c.expect)
	}
	return nil
}
