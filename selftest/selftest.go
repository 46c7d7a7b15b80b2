package selftest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/gem"
	"golang.org/x/sys/unix"
)

// Config says what to compare and where to write.
type Config struct {
	// Out receives the table.
	Out io.Writer
	// Device is the GPU under test: "auto" (the first vc4 card of DRIDir
	// with VideoCore IV 3D, else a simulated device), "sim", or a card's
	// path.
	Device string
	// DRIDir is where "auto" looks for cards (drm.DefaultDir).
	DRIDir string
	// Bundle is the file (a .tar.gz) written when a probe differs.
	Bundle string
	// Version is vccube's version, for the bundle (Version()).
	Version string
	// Probes, if not empty, names the probes to run.
	Probes []string
	// Perturb, if set, changes the model's colour output of each probe
	// before the comparison, as a model that is wrong about one fact
	// would: the hook that lets a test see a difference caught and
	// bundled.
	Perturb func(probe string, colour []uint32)
}

// Row is one line of the table.
type Row struct {
	Probe *Probe
	// Result is the comparison of the outputs (colour and Z/stencil
	// buffers) with the model's: "same", "close (…)", "DIFFERS: …",
	// "skipped: …".
	Result string
	// Counters is the comparison of the work counters with the model's:
	// "same", "DIFFERS: …" (each counter that differs, with both values),
	// or "" when they were not compared.
	Counters string
	// Reference is the comparison with the reference rasteriser, or "".
	Reference string
	// Differs is set when the outputs differ from the model's or from the
	// reference.
	Differs bool
	// CountersDiffer is set when the work counters differ from the
	// model's: a verdict of its own, since a counter the model counts by
	// another rule than the GPU (doc/hardware.md#performance-counters)
	// differs on every probe that draws, while the pixels say which facts
	// are wrong.
	CountersDiffer bool
	// Learned is set when a probe the model cannot answer ran on a real
	// GPU: its output goes to the bundle.
	Learned bool
}

// Report is what a run found.
type Report struct {
	Rows []Row
	// Differ counts the probes whose outputs differ (from the model's or
	// the reference's).
	Differ int
	// CountersDiffer counts the probes whose work counters differ from
	// the model's.
	CountersDiffer int
	// Bundle is the file written, or "".
	Bundle string
}

// Run runs the probes on the device under test and on the model in this
// process, prints the table, and writes the bundle if any probe differs.
// Without a VideoCore IV the device under test is a simulated device with
// one render worker and the model has three: two independent instances
// that must agree exactly. An error means the self-test could not run;
// differences are in the Report.
func Run(ctx context.Context, cfg Config) (rep *Report, err error) {
	if cfg.Out == nil {
		cfg.Out = io.Discard
	}
	var dut *device
	switch cfg.Device {
	case "sim":
	case "", "auto":
		var why string
		if dut, why, err = findCard(cfg.DRIDir); err != nil {
			return nil, err
		}
		if dut == nil {
			fmt.Fprintf(cfg.Out, "No VideoCore IV 3D here (%s): the self-test compares two simulated devices.\n", why)
		}
	default:
		if dut, err = openCard(cfg.Device); err != nil {
			return nil, err
		}
	}
	if dut == nil {
		if dut, err = openSim(1); err != nil {
			return nil, err
		}
	}
	defer func() { err = errors.Join(err, dut.close()) }()
	return runAgainstModel(ctx, cfg, dut)
}

// runAgainstModel is Run once the device under test is open.
func runAgainstModel(ctx context.Context, cfg Config, dut *device) (rep *Report, err error) {
	if cfg.Out == nil {
		cfg.Out = io.Discard
	}
	model, err := openSim(3)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, model.close()) }()

	probes := Probes()
	if len(cfg.Probes) > 0 {
		want := map[string]bool{}
		for _, n := range cfg.Probes {
			want[n] = true
		}
		var sel []*Probe
		for _, p := range probes {
			if want[p.Name] {
				sel = append(sel, p)
				delete(want, p.Name)
			}
		}
		for n := range want {
			return nil, fmt.Errorf("selftest: no probe named %q", n)
		}
		probes = sel
	}

	what := "the GPU"
	if !dut.real {
		what = "a simulated device"
	}
	fmt.Fprintf(cfg.Out, "vccube self-test: %s, %s,\nagainst the model, %s, in this process,\n", what, dut.name, model.name)
	fmt.Fprintf(cfg.Out, "and, where a probe is plain geometry, against the reference rasteriser (internal/refrender)\n\n")
	tw := tabwriter.NewWriter(cfg.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "probe\tsettles\tvs model\tcounters\tvs reference\n")
	rep = &Report{}
	var bundle []bundleEntry
	for _, p := range probes {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		row, entry := runProbe(p, dut, model, cfg.Perturb)
		rep.Rows = append(rep.Rows, row)
		if row.Differs {
			rep.Differ++
		}
		if row.CountersDiffer {
			rep.CountersDiffer++
		}
		if row.Differs || row.CountersDiffer || row.Learned {
			bundle = append(bundle, entry)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.Name, p.Fact, verdict(row.Result), verdict(row.Counters), verdict(row.Reference))
	}
	if err := tw.Flush(); err != nil {
		return rep, err
	}
	writeDifferences(cfg.Out, rep)
	agree, other, counted := 0, 0, 0
	for _, r := range rep.Rows {
		switch {
		case r.Differs:
		case r.Learned || strings.HasPrefix(r.Result, "not modelled") || strings.HasPrefix(r.Result, "skipped"):
			other++
		default:
			agree++
		}
		if r.Counters != "" {
			counted++
		}
	}
	fmt.Fprintf(cfg.Out, "\n%d probes: %d agree, %d differ, %d not compared; counters: %d agree, %d differ\n",
		len(rep.Rows), agree, rep.Differ, other, counted-rep.CountersDiffer, rep.CountersDiffer)
	if len(bundle) == 0 {
		if dut.real {
			fmt.Fprintln(cfg.Out, "The GPU agrees with the model on every probe, pixels and counters.")
		}
		return rep, nil
	}
	var table bytes.Buffer
	writeTable(&table, rep)
	if err := writeBundle(cfg.Bundle, system(cfg.Version, dut, model), table.String(), bundle); err != nil {
		return rep, fmt.Errorf("selftest: writing the bundle: %w", err)
	}
	rep.Bundle = cfg.Bundle
	fmt.Fprintf(cfg.Out, "Wrote %s:\nthe jobs, ioctl traces, images and counters of the probes that differ or that the model\ncannot answer, and this machine's kernel and board.\n", cfg.Bundle)
	fmt.Fprintln(cfg.Out, "Please attach it to a bug report at the project's issue tracker.")
	return rep, nil
}

// tableWidth is the widest line the table may print: it must read on an
// 80- to 100-column terminal; the details go below it and to the bundle.
const tableWidth = 100

// verdict is a comparison's word in the table: "same", "close",
// "DIFFERS", "not modelled", "skipped", "error", or "-" when there was
// nothing to compare. The whole comparison is in the Row, below the table
// and in the bundle.
func verdict(s string) string {
	if s == "" {
		return "-"
	}
	for _, w := range []string{"same", "close", "DIFFERS", "not modelled", "skipped", "error"} {
		if strings.HasPrefix(s, w) {
			return w
		}
	}
	return clip(s, 12)
}

// clip shortens s to at most n runes, ending it with "…" if it was cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// writeDifferences writes, below the table, one line for each comparison
// that did not agree, cut to the table's width: the bundle's
// differences.txt has them whole.
func writeDifferences(w io.Writer, rep *Report) {
	first := true
	for _, r := range rep.Rows {
		for _, c := range []struct {
			what, text string
			show       bool
		}{
			{"vs model", r.Result, notSame(r.Result)},
			{"counters", r.Counters, r.CountersDiffer},
			{"vs reference", r.Reference, notSame(r.Reference)},
		} {
			if !c.show {
				continue
			}
			if first {
				fmt.Fprintln(w, "\nDifferences (whole in the bundle's <probe>/differences.txt):")
				first = false
			}
			text := strings.TrimPrefix(c.text, "DIFFERS: ")
			fmt.Fprintln(w, clip(fmt.Sprintf("  %s, %s: %s", r.Probe.Name, c.what, text), tableWidth))
		}
	}
}

// notSame reports whether a comparison found a difference, within
// tolerance or not, or failed.
func notSame(s string) bool {
	v := verdict(s)
	return v == "DIFFERS" || v == "close" || v == "error"
}

// writeTable writes the table with each probe's belief and answer, for
// the bundle.
func writeTable(w io.Writer, rep *Report) {
	for _, r := range rep.Rows {
		counters := r.Counters
		if counters == "" {
			counters = "not compared"
		}
		ref := r.Reference
		if ref == "" {
			ref = "-"
		}
		fmt.Fprintf(w, "%s\n  outputs against the model: %s\n  counters against the model: %s\n  against the reference: %s\n  settles: %s\n  the model believes: %s\n  answered by: %s\n\n",
			r.Probe.Name, r.Result, counters, ref, r.Probe.Fact, r.Probe.Belief, r.Probe.Answer)
	}
}

// run is one device's run of a probe.
type run struct {
	out   *outputs
	err   error
	trace []byte
}

// runOn runs job j on d through a recorder, so the bundle can hold the
// ioctl trace.
func runOn(p *Probe, j *job, d *device) run {
	var tb bytes.Buffer
	rec, err := drm.NewRecorder(&tb, "vccube -selftest probe "+p.Name+" on "+d.name)
	if err != nil {
		return run{err: err}
	}
	c := rec.Trace(noClose{d.conn})
	out, err := j.run(c)
	err = errors.Join(err, d.takeHang(), c.Close())
	return run{out: out, err: err, trace: tb.Bytes()}
}

// runProbe runs one probe on both devices and compares.
func runProbe(p *Probe, dut, model *device, perturb func(string, []uint32)) (Row, bundleEntry) {
	row := Row{Probe: p}
	if p.needs != 0 {
		if v, err := gem.Param(dut.conn, p.needs); err != nil || v == 0 {
			row.Result = "skipped: this kernel lacks it (GET_PARAM " + fmt.Sprint(p.needs) + ")"
			return row, bundleEntry{}
		}
	}
	j := p.build()
	if p.unmodelled {
		if !dut.real {
			row.Result = "not modelled (needs a VideoCore IV)"
			return row, bundleEntry{}
		}
		a := runOn(p, j, dut)
		row.Learned = true
		row.Result = "not modelled: the GPU's answer goes to the bundle"
		if a.err != nil {
			row.Result = "not modelled; the GPU: " + a.err.Error()
		}
		e := bundleEntry{probe: p, a: a, aName: dut.name, bName: "(the model refuses this job)"}
		if a.out != nil {
			e.dump = a.out.dump
		}
		return row, e
	}
	a := runOn(p, j, dut)
	b := runOn(p, j, model)
	entry := bundleEntry{probe: p, a: a, b: b, aName: dut.name, bName: model.name}
	for _, r := range []*run{&a, &b} {
		if r.out != nil && p.floats {
			r.out.colour.kind = kindFloat
		}
	}
	if b.out != nil && b.err == nil && perturb != nil {
		perturb(p.Name, b.out.colour.pix)
	}
	switch {
	case a.err != nil || b.err != nil:
		if a.err != nil && b.err != nil && errText(a.err) == errText(b.err) {
			row.Result = "same (both refused: " + errText(a.err) + ")"
		} else {
			row.Result = fmt.Sprintf("DIFFERS: %s: %v; %s: %v", dut.name, errOr(a.err), model.name, errOr(b.err))
			row.Differs = true
			entry.details = row.Result
		}
	default:
		sum, differ, det := compareOutputs(a.out, b.out, p.hw)
		row.Result, row.Differs, entry.details = sum, differ, det
		if a.out.counters != nil && b.out.counters != nil {
			row.Counters = "same"
			if c := compareCounters(a.out.counters, b.out.counters); len(c) > 0 {
				row.Counters, row.CountersDiffer = "DIFFERS: "+strings.Join(c, ", "), true
				entry.details += "\ncounters (doc/hardware.md#performance-counters says how the model counts each):\n  " + strings.Join(c, "\n  ")
			}
		}
	}
	if p.ref != nil && a.out != nil && a.err == nil {
		img, err := p.ref(j)
		if err != nil {
			row.Reference = "error: " + err.Error()
			row.Differs = true
		} else {
			ref := &image32{w: j.width, h: j.height, kind: a.out.colour.kind, pix: img}
			d := compareImages(&a.out.colour, ref, tolerance{})
			entry.ref = ref
			switch {
			case d.pixels == 0:
				row.Reference = "same"
			case d.pixels <= p.refTolerance:
				row.Reference = fmt.Sprintf("close (%d of %d px differ, ≤ %d allowed)", d.pixels, len(img), p.refTolerance)
			default:
				row.Reference = "DIFFERS: " + d.String(len(img))
				row.Differs = true
				entry.details += fmt.Sprintf("\nagainst the reference: %s\n  %s", d.String(len(img)), strings.Join(d.first, "\n  "))
			}
		}
	}
	entry.details = strings.TrimPrefix(entry.details, "\n")
	if row.Differs || row.CountersDiffer {
		var dump strings.Builder
		if a.out != nil {
			dump.WriteString(a.out.dump)
		}
		entry.dump = dump.String()
	}
	return row, entry
}

func errOr(err error) any {
	if err == nil {
		return "ran"
	}
	return err
}

// errText is the errno's name of a refusal, or the error's text.
func errText(err error) string {
	var en syscall.Errno
	if errors.As(err, &en) {
		return unix.ErrnoName(en)
	}
	return err.Error()
}
