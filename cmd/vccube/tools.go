package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/drm/replay"
	"github.com/vccube/vccube/selftest"
	"github.com/vccube/vccube/sim"
)

// -replay and -selftest are tools of their own: they do not draw the cube,
// and take only the flags listed here.
var toolFlags = map[string][]string{
	"replay":   {"replay", "device"},
	"selftest": {"selftest", "selftest-bundle", "device"},
}

// checkTools refuses -replay and -selftest together, and other flags with
// either.
func (c *config) checkTools(given map[string]bool) error {
	if c.replay != "" && c.selftest {
		return errors.New("-replay and -selftest are two tools: use one at a time")
	}
	if given["selftest-bundle"] && !c.selftest {
		return errors.New("-selftest-bundle needs -selftest")
	}
	for tool, allowed := range toolFlags {
		if !given[tool] || (tool == "selftest" && !c.selftest) {
			continue
		}
		var extra []string
		for name := range given {
			ok := false
			for _, a := range allowed {
				ok = ok || a == name
			}
			if !ok {
				extra = append(extra, "-"+name)
			}
		}
		if len(extra) > 0 {
			sort.Strings(extra)
			return fmt.Errorf("-%s takes only %s; drop %s", tool, "-"+strings.Join(allowed[1:], " and -"), strings.Join(extra, ", "))
		}
	}
	return nil
}

// runTool runs -replay or -selftest and returns the exit status: 0 when
// the device agreed with the trace or the model, 1 when it did not or
// the tool failed.
func runTool(ctx context.Context, cfg *config, e *env) int {
	var err error
	if cfg.replay != "" {
		err = runReplay(cfg, e)
	} else {
		err = runSelftest(ctx, cfg, e)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "vccube: %v\n", err)
		return exitError
	}
	return exitOK
}

// maxDivergences is how many divergences -replay lists before it stops.
const maxDivergences = 10

// runReplay plays the GPU calls of a trace back on -device and prints
// what differs.
func runReplay(cfg *config, e *env) (err error) {
	f, err := os.Open(cfg.replay)
	if err != nil {
		return fmt.Errorf("-replay: %w", err)
	}
	defer f.Close()
	tr, err := drm.NewTraceReader(f)
	if err != nil {
		return fmt.Errorf("-replay %s: %w", cfg.replay, err)
	}
	g, err := openGPU(e, cfg.device, sim.FaultSpec{}, false, false)
	if err != nil {
		return err
	}
	defer closeInto(&err, "closing the GPU device", g.conn)
	h := tr.Header
	fmt.Fprintf(e.stdout, "replaying %s (%s, recorded on %s at %s) on %s (%v)\n",
		cfg.replay, h.Program, h.GOARCH, h.Start.Format("2006-01-02 15:04:05"), g.name, g.info)
	res, err := replay.Run(tr, g.conn, replay.Options{MaxDivergences: maxDivergences})
	if res != nil {
		printReplay(e, res, err)
	}
	if err != nil {
		return fmt.Errorf("-replay %s: %w", cfg.replay, err)
	}
	if n := len(res.Divergences); n > 0 {
		return fmt.Errorf("-replay: the device answered %d call(s) differently from the trace; the first: %v", n, res.Divergences[0])
	}
	if len(res.Unchecked) > 0 {
		return fmt.Errorf("-replay %s: no verdict, the replay did not check the whole run: %s; replay a trace -trace wrote whole, unedited", cfg.replay, strings.Join(res.Unchecked, "; "))
	}
	return nil
}

// printReplay prints what the replay did and the verdict that holds: the
// divergences, no verdict when it ended in error (err) or left part of
// the run unchecked, or no divergence.
func printReplay(e *env, res *replay.Result, err error) {
	skipped := 0
	var reasons []string
	for why, n := range res.Skipped {
		skipped += n
		reasons = append(reasons, fmt.Sprintf("%d %s", n, why))
	}
	sort.Strings(reasons)
	fmt.Fprintf(e.stdout, "%d records: %d calls replayed, %d frames compared, %d not replayed\n", res.Records, res.Replayed, res.Frames, skipped)
	for _, r := range reasons {
		fmt.Fprintf(e.stdout, "  not replayed: %s\n", r)
	}
	for i, d := range res.Divergences {
		lead := "divergence"
		if i == 0 {
			lead = "FIRST DIVERGENCE"
		}
		fmt.Fprintf(e.stdout, "%s: %v\n", lead, d)
	}
	switch {
	case res.Stopped:
		fmt.Fprintf(e.stdout, "stopped after %d divergences\n", len(res.Divergences))
	case err != nil:
		fmt.Fprintf(e.stdout, "no verdict: the replay stopped before the end of the trace: %v\n", err)
	case len(res.Divergences) > 0:
	case len(res.Unchecked) > 0:
		fmt.Fprintln(e.stdout, "no verdict: the replay did not check the whole run:")
		for _, u := range res.Unchecked {
			fmt.Fprintf(e.stdout, "  %s\n", u)
		}
	default:
		fmt.Fprintln(e.stdout, "no divergence: every replayed call was answered as recorded, and every frame rendered the same")
	}
}

// runSelftest is -selftest: the probes on -device (auto: the VideoCore IV
// if there is one, else a simulated device) against the model in this
// process; a difference is an error, after the table and the bundle.
func runSelftest(ctx context.Context, cfg *config, e *env) error {
	st := selftest.Config{Out: e.stdout, Device: cfg.device, DRIDir: e.driDir, Bundle: cfg.bundle, Version: selftest.Version()}
	if e.selftest != nil {
		e.selftest(&st)
	}
	rep, err := selftest.Run(ctx, st)
	if err != nil {
		return fmt.Errorf("-selftest: %w", err)
	}
	if rep.Differ > 0 || rep.CountersDiffer > 0 {
		return fmt.Errorf("-selftest: %d probe(s) differ in their outputs and %d in their counters; the bundle %s has what a bug report needs",
			rep.Differ, rep.CountersDiffer, rep.Bundle)
	}
	return nil
}
