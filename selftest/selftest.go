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
	// Result is the comparison with the model: "same", "close (…)",
	// "DIFFERS: …", "skipped: …".
	Result string
	// Reference is the comparison with the reference rasteriser, or "".
	Reference string
	// Differs is set when either comparison failed.
	Differs bool
	// Learned is set when a probe the model cannot answer ran on a real
	// GPU: its output goes to the bundle.
	Learned bool
}

// Report is what a run found.
type Report struct {
	Rows []Row
	// Differ counts the probes that differ.
	Differ int
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
	fmt.Fprintf(cfg.Out, "vccube self-test: %s, %s, against the model, %s, in this process\n", what, dut.name, model.name)
	fmt.Fprintf(cfg.Out, "and, where a probe is plain geometry, against the reference rasteriser (internal/refrender)\n\n")
	tw := tabwriter.NewWriter(cfg.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "probe\tsettles\tvs model\tvs reference\n")
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
		if row.Differs || row.Learned {
			bundle = append(bundle, entry)
		}
		ref := row.Reference
		if ref == "" {
			ref = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.Name, p.Fact, row.Result, ref)
	}
	if err := tw.Flush(); err != nil {
		return rep, err
	}
	agree, other := 0, 0
	for _, r := range rep.Rows {
		switch {
		case r.Differs:
		case r.Learned || strings.HasPrefix(r.Result, "not modelled") || strings.HasPrefix(r.Result, "skipped"):
			other++
		default:
			agree++
		}
	}
	fmt.Fprintf(cfg.Out, "\n%d probes: %d agree, %d differ, %d not compared\n", len(rep.Rows), agree, rep.Differ, other)
	if len(bundle) == 0 {
		if dut.real {
			fmt.Fprintln(cfg.Out, "The GPU agrees with the model on every probe.")
		}
		return rep, nil
	}
	var table bytes.Buffer
	writeTable(&table, rep)
	if err := writeBundle(cfg.Bundle, system(cfg.Version, dut, model), table.String(), bundle); err != nil {
		return rep, fmt.Errorf("selftest: writing the bundle: %w", err)
	}
	rep.Bundle = cfg.Bundle
	fmt.Fprintf(cfg.Out, "Wrote %s: the jobs, ioctl traces and images of the probes that differ or that the model cannot answer, and this machine's kernel and board.\n", cfg.Bundle)
	fmt.Fprintln(cfg.Out, "Please attach it to a bug report at the project's issue tracker.")
	return rep, nil
}

// writeTable writes the table with each probe's belief and answer, for
// the bundle.
func writeTable(w io.Writer, rep *Report) {
	for _, r := range rep.Rows {
		fmt.Fprintf(w, "%s: %s\n  model: %s\n  reference: %s\n  settles: %s\n  the model believes: %s\n  answered by: %s\n\n",
			r.Probe.Name, r.Result, r.Result, r.Reference, r.Probe.Fact, r.Probe.Belief, r.Probe.Answer)
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
	if row.Differs {
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
