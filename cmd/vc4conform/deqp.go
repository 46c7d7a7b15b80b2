package main

import (
	"context"
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
	"syscall"
	"time"

	"github.com/vccube/vccube/conform"
	"github.com/vccube/vccube/conform/pi3"
)

// deqpArgs are the arguments Mesa's CI gave deqp-gles2 and glcts (its
// dEQP-GLES2 and KHR-GLES2 sections) on the Pi 3
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
	fs.StringVar(&d.binary, "deqp", "", "run this dEQP program on -caselist's cases instead of piglit: a build's modules/gles2/deqp-gles2 (doc/mesa-on-pc.md#deqp-gles2) or external/openglcts/modules/glcts for KHR-GLES2 (doc/mesa-on-pc.md#khr-gles2)")
	fs.StringVar(&d.caselist, "caselist", "", "with -deqp: the case list, one name a line (the mustpass gles2-master.txt, or gles2-khr-master.txt for glcts)")
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
		return fmt.Errorf("no dEQP program at %s (build deqp-gles2, doc/mesa-on-pc.md#deqp-gles2, or glcts, doc/mesa-on-pc.md#khr-gles2)", d.binary)
	}
	if d.caselist == "" {
		return usageError{errors.New("-deqp needs -caselist FILE (the mustpass list: gles2-master.txt, or gles2-khr-master.txt for glcts)")}
	}
	if d.perGroup < 1 {
		return usageError{fmt.Errorf("-deqp-group %d: say at least 1", d.perGroup)}
	}
	cases, err := conform.ReadCaselist(d.caselist)
	if err != nil {
		return err
	}
	mesaEnv, pre, err := mesaSetup(c.mesa, c.preload)
	if err != nil {
		return err
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
	col, err := newCollector(c.outDir, len(sel), "cases", stderr, c.quiet)
	if err != nil {
		return err
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
		Env: append([]string{
			// Mesa's EGL without a window system: its surfaceless
			// platform opens a render node, which the preload maps to
			// the simulated device.
			"EGL_PLATFORM=surfaceless",
		}, mesaEnv...),
		Server:   []string{self},
		Dir:      serverDir,
		LogDir:   logDir,
		OnResult: col.add,
	}
	runErr := conform.RunDeqp(ctx, o, sel)
	results, wall, err := col.finish()
	if runErr != nil {
		return runErr
	}
	if err != nil {
		return err
	}

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
	return report(stdout, facts, c.outDir, c.causes, c.expect, "cases", wall)
}
