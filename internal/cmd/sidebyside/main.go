// Command sidebyside runs vccube and Mesa's kmscube on the same simulated
// vc4 (a vc4serve server run in this process: sim/gpu, sim/kernel,
// sim/display) at the same mode for the same frames, and prints per frame
// what each cost: the GPU's performance counters (QPU instructions per
// shader stage, fragment quads, texture lookups and cache misses), the
// bytes each submitted (bin CL, shader records, uniforms), its ioctls and
// its CPU time. It is a benchmark, not a test: nothing is asserted, and
// the CPU times depend on the machine.
//
//	go run ./internal/cmd/sidebyside [-frames 10] [-mode 640x480] [-md]
//
// The programs (doc/mesa-on-sim.md says how the preload library brings
// kmscube to the device):
//
//   - vccube, this tree's, built for the host and run natively
//     (-device vc4serve:DIR), and built for arm64 and run under
//     qemu-aarch64 like kmscube, so that the two have the same CPU;
//   - Debian's arm64 kmscube with Mesa 22.3's vc4 driver, under
//     qemu-aarch64 with the preload library, in its textured mode
//     (-M rgba: one texture, per-face lighting, as vccube's vkcube scene)
//     and its default smooth mode.
//
// It needs what .ci/mesa-test installs (qemu-user-static,
// gcc-aarch64-linux-gnu, kmscube:arm64 and Mesa's arm64 packages).
//
// The client's CPU time is read by the server from
// /proc/PID/task/*/schedstat at each page flip: for a program under
// qemu-user it is the emulator's time on this machine, Mesa's compiler
// and driver emulated instruction by instruction, which is many times what
// the same code takes on a Pi's Cortex-A53; compare it only with the
// emulated vccube's. The GPU counters are the model's (sim/gpu), the same
// for any client: what the programs ask of the GPU, not how fast the
// model runs.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"time"

	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/display"
	"github.com/vccube/vccube/sim/gpu"
	"github.com/vccube/vccube/simserve"
	"github.com/vccube/vccube/uapi"
)

func main() {
	err := run(os.Args[1:], os.Stdout)
	var bad usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
	case errors.As(err, &bad):
		fmt.Fprintf(os.Stderr, "sidebyside: %v (sidebyside -h lists the flags)\n", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "sidebyside:", err)
		os.Exit(1)
	}
}

// usageHead is the start of -h, before the flags.
const usageHead = `sidebyside runs vccube and Mesa's kmscube on the same simulated vc4 (served
in this process, as vc4serve does) at the same mode for the same frames, and
prints per frame what each cost: the GPU's performance counters, the bytes
each submitted, its ioctls and its CPU time. A benchmark, not a test; it needs
qemu-aarch64, gcc-aarch64-linux-gnu and Debian's arm64 kmscube and Mesa
(what .ci/mesa-test installs).

Usage: go run ./internal/cmd/sidebyside [flags]

Flags:
`

// usageError is a mistake on the command line: the exit status is 2.
type usageError struct{ error }

// program is one client to run against the served device.
type program struct {
	name string
	argv func(dir string, frames int) []string
	env  []string // for qemu: passed with -E
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("sidebyside", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // the flag package's own message and usage: the error says it
	fs.Usage = func() {}
	frames := fs.Int("frames", 10, "frames to compare (each program draws one more: kmscube's first buffer is shown by the mode set)")
	modeText := fs.String("mode", "640x480", "the monitor's preferred mode (a standard one: 640x480, 800x600, 1024x768, 1280x720, 1920x1080)")
	md := fs.Bool("md", false, "print Markdown tables (for the README)")
	only := fs.String("only", "", "comma-separated program names to run (default: all)")
	reference := fs.Bool("reference", false, "run the GPU model's general code instead of its fast paths (gpu.Options.Reference): the same counters, another server CPU time")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the server (this process: the simulated device; the clients are other processes) to this file")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(out, usageHead)
			fs.SetOutput(out)
			fs.PrintDefaults()
			return err
		}
		return usageError{err}
	}
	if fs.NArg() != 0 {
		return usageError{fmt.Errorf("unexpected argument %q (flags start with -)", fs.Arg(0))}
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("-cpuprofile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	var w, h uint16
	if _, err := fmt.Sscanf(*modeText, "%dx%d", &w, &h); err != nil {
		return usageError{fmt.Errorf("-mode %q: say WxH", *modeText)}
	}
	tools, err := findTools()
	if err != nil {
		return err
	}
	defer os.RemoveAll(tools.tmp)

	qemu := func(p []string, env map[string]string) []string {
		var argv []string
		if tools.qemu != "" {
			argv = append(argv, tools.qemu)
			keys := make([]string, 0, len(env))
			for k := range env {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				argv = append(argv, "-E", k+"="+env[k])
			}
		}
		return append(argv, p...)
	}
	progs := []program{
		{name: "vccube", argv: func(dir string, n int) []string {
			return []string{tools.vccube, "-device", "vc4serve:" + dir, "-mode", *modeText, "-frames", fmt.Sprint(n + 1), "-view=false"}
		}},
		{name: "vccube-arm64", argv: func(dir string, n int) []string {
			return qemu([]string{tools.vccubeARM, "-device", "vc4serve:" + dir, "-mode", *modeText, "-frames", fmt.Sprint(n + 1), "-view=false"}, nil)
		}},
		{name: "kmscube-rgba", argv: func(dir string, n int) []string {
			return qemu([]string{"/usr/bin/kmscube", "-D", "/dev/dri/card0", "-c", fmt.Sprint(n + 1), "-M", "rgba"}, tools.env(dir))
		}},
		{name: "kmscube-smooth", argv: func(dir string, n int) []string {
			return qemu([]string{"/usr/bin/kmscube", "-D", "/dev/dri/card0", "-c", fmt.Sprint(n + 1)}, tools.env(dir))
		}},
	}
	if *only != "" {
		keep := map[string]bool{}
		for _, n := range strings.Split(*only, ",") {
			keep[strings.TrimSpace(n)] = true
		}
		var sel []program
		for _, p := range progs {
			if keep[p.name] {
				sel = append(sel, p)
			}
		}
		progs = sel
	}
	results := map[string][]simserve.FrameRecord{}
	for _, p := range progs {
		recs, err := measure(p, w, h, *frames, *reference)
		if err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
		results[p.name] = recs
	}
	printTables(out, progs, results, *frames, *md)
	return nil
}

// measure serves a fresh simulated device, runs p against it and returns
// its frames.
func measure(p program, w, h uint16, frames int, reference bool) ([]simserve.FrameRecord, error) {
	stats := simserve.NewFrameStats()
	g := gpu.New(gpu.Options{Reference: reference})
	defer g.Close()
	mon := display.DefaultMonitor()
	found := false
	for i := range mon.Modes {
		m := &mon.Modes[i]
		m.Type &^= uapi.ModeTypePreferred
		if !found && m.Hdisplay == w && m.Vdisplay == h {
			m.Type |= uapi.ModeTypePreferred
			mon.Modes[0], mon.Modes[i] = mon.Modes[i], mon.Modes[0]
			found = true
		}
	}
	if !found {
		return nil, fmt.Errorf("the monitor has no %dx%d mode", w, h)
	}
	disp := display.New(display.Options{Monitor: &mon, OnFlip: stats.OnFlip})
	defer disp.Close()
	opts := sim.Options{GPU: g, Display: disp}
	stats.DeviceOptions(&opts)
	dev, err := sim.New(opts)
	if err != nil {
		return nil, err
	}
	defer dev.Close()
	dir, err := os.MkdirTemp("", "sidebyside")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	srv, err := simserve.New(simserve.Options{Device: dev, Dir: dir, OnOpen: func(pid int, node string) { stats.SetClient(pid) }})
	if err != nil {
		return nil, err
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve() }()

	argv := p.argv(dir, frames)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	// kmscube quits when its standard input is readable: a pipe nobody
	// writes.
	stdin, hold, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer hold.Close()
	cmd.Stdin = stdin
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	err = cmd.Run()
	stdin.Close()
	srv.Close()
	<-served
	if err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", strings.Join(argv, " "), err, tail(log.String()))
	}
	recs := stats.Frames()
	if len(recs) < frames {
		return nil, fmt.Errorf("%d frames shown, want %d\n%s", len(recs), frames, tail(log.String()))
	}
	return recs[:frames], nil
}

func tail(s string) string {
	if len(s) > 3000 {
		return s[len(s)-3000:]
	}
	return s
}

// tools are the programs and libraries the clients need.
type tools struct {
	tmp       string
	qemu      string // "" on arm64
	preload   string
	vccube    string
	vccubeARM string
}

func (t *tools) env(dir string) map[string]string {
	return map[string]string{"VC4SIM": dir, "LD_PRELOAD": t.preload,
		// kmscube links GStreamer; keep its plugin scanner quiet.
		"GST_REGISTRY_FORK": "no", "GST_PLUGIN_SYSTEM_PATH_1_0": ""}
}

func findTools() (*tools, error) {
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	t := &tools{}
	if t.tmp, err = os.MkdirTemp("", "sidebyside-tools"); err != nil {
		return nil, err
	}
	fail := func(err error) (*tools, error) {
		os.RemoveAll(t.tmp)
		return nil, err
	}
	if runtime.GOARCH != "arm64" {
		for _, q := range []string{"qemu-aarch64-static", "qemu-aarch64"} {
			if p, err := exec.LookPath(q); err == nil {
				t.qemu = p
				break
			}
		}
		if t.qemu == "" {
			return fail(errors.New("no qemu-aarch64-static (apt-get install qemu-user-static; .ci/mesa-test installs everything)"))
		}
	}
	if _, err := os.Stat("/usr/bin/kmscube"); err != nil {
		return fail(fmt.Errorf("%v (apt-get install kmscube:arm64)", err))
	}
	build := exec.Command("sh", filepath.Join(root, "simserve/preload/build.sh"), filepath.Join(t.tmp, "preload"))
	if b, err := build.CombinedOutput(); err != nil {
		return fail(fmt.Errorf("building the preload: %v\n%s", err, b))
	}
	t.preload = filepath.Join(t.tmp, "preload", "arm64", "vc4sim.so")
	t.vccube = filepath.Join(t.tmp, "vccube")
	t.vccubeARM = filepath.Join(t.tmp, "vccube-arm64")
	for _, b := range []struct{ out, arch string }{{t.vccube, runtime.GOARCH}, {t.vccubeARM, "arm64"}} {
		cmd := exec.Command("go", "build", "-o", b.out, "./cmd/vccube")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOARCH="+b.arch, "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fail(fmt.Errorf("building vccube for %s: %v\n%s", b.arch, err, out))
		}
	}
	return t, nil
}

// moduleRoot is the directory of go.mod.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("run it inside the vccube module (go run ./internal/cmd/sidebyside)")
	}
	return filepath.Dir(mod), nil
}

// column is one printed quantity of a frame.
type column struct {
	head string
	get  func(r *simserve.FrameRecord) float64
	unit string // "ms" prints with two decimals
}

var columns = []column{
	{head: "ioctls", get: func(r *simserve.FrameRecord) float64 { return float64(r.Ioctls) }},
	{head: "submits", get: func(r *simserve.FrameRecord) float64 { return float64(r.Submits) }},
	{head: "bin CL B", get: func(r *simserve.FrameRecord) float64 { return float64(r.BinCLBytes) }},
	{head: "shader rec B", get: func(r *simserve.FrameRecord) float64 { return float64(r.ShaderRecBytes) }},
	{head: "uniforms B", get: func(r *simserve.FrameRecord) float64 { return float64(r.UniformsBytes) }},
	// A QPU instruction takes four clocks ([AG] §3): the model counts
	// instructions and reports clocks, as the hardware's counters do.
	{head: "CS+VS instr", get: func(r *simserve.FrameRecord) float64 {
		return float64(r.Counters[uapi.PerfcntQPUTotalClkCyclesVertexCoordShading]) / 4
	}},
	{head: "FS instr", get: func(r *simserve.FrameRecord) float64 {
		return float64(r.Counters[uapi.PerfcntQPUTotalClkCyclesFragmentShading]) / 4
	}},
	{head: "FS cycles", get: func(r *simserve.FrameRecord) float64 {
		return float64(r.Counters[uapi.PerfcntQPUTotalClkCyclesFragmentShading])
	}},
	{head: "FEP quads", get: func(r *simserve.FrameRecord) float64 { return float64(r.Counters[uapi.PerfcntFEPValidQuads]) }},
	{head: "TMU quads", get: func(r *simserve.FrameRecord) float64 {
		return float64(r.Counters[uapi.PerfcntTMUTotalTextQuadsProcessed])
	}},
	{head: "TMU misses", get: func(r *simserve.FrameRecord) float64 {
		return float64(r.Counters[uapi.PerfcntTMUTotalTextCacheMiss])
	}},
	{head: "client CPU ms", unit: "ms", get: func(r *simserve.FrameRecord) float64 { return float64(r.ClientCPU) / 1e6 }},
	// The server runs in this process: its time is the simulated
	// kernel's, the GPU model's and the display's on the client's
	// streams (the same for both programs' counters means the same work).
	{head: "server CPU ms", unit: "ms", get: func(r *simserve.FrameRecord) float64 { return float64(r.ServerCPU) / 1e6 }},
}

func printTables(out io.Writer, progs []program, res map[string][]simserve.FrameRecord, frames int, md bool) {
	heads := []string{"frame", "program"}
	for _, c := range columns {
		heads = append(heads, c.head)
	}
	var rows [][]string
	for k := 0; k < frames; k++ {
		for _, p := range progs {
			r := res[p.name][k]
			row := []string{fmt.Sprint(k), p.name}
			for _, c := range columns {
				row = append(row, format(c, c.get(&r)))
			}
			rows = append(rows, row)
		}
	}
	fmt.Fprintf(out, "Per frame (frame K: the K-th page flip after the mode set):\n\n")
	printTable(out, heads, rows, md)

	// Frame 0 carries the programs' first-use costs (Mesa compiles its
	// shaders at the first draw), so the summary gives the median beside
	// the mean.
	var summary [][]string
	for _, p := range progs {
		mean := []string{"mean", p.name}
		median := []string{"median", p.name}
		for _, c := range columns {
			vals := make([]float64, frames)
			sum := 0.0
			for k := range vals {
				vals[k] = c.get(&res[p.name][k])
				sum += vals[k]
			}
			sort.Float64s(vals)
			mid := vals[frames/2]
			if frames%2 == 0 {
				mid = (vals[frames/2-1] + vals[frames/2]) / 2
			}
			mean = append(mean, format(c, sum/float64(frames)))
			median = append(median, format(c, mid))
		}
		summary = append(summary, mean, median)
	}
	fmt.Fprintf(out, "\nOver frames 0-%d:\n\n", frames-1)
	printTable(out, heads, summary, md)
}

func format(c column, v float64) string {
	if c.unit == "ms" {
		return fmt.Sprintf("%.2f", v)
	}
	if v == float64(int64(v)) {
		return fmt.Sprint(int64(v))
	}
	return fmt.Sprintf("%.1f", v)
}

func printTable(out io.Writer, heads []string, rows [][]string, md bool) {
	width := make([]int, len(heads))
	for i, h := range heads {
		width[i] = len(h)
	}
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len(c))
		}
	}
	line := func(cells []string) {
		var b strings.Builder
		for i, c := range cells {
			if md {
				b.WriteString("| ")
			} else if i > 0 {
				b.WriteString("  ")
			}
			if i < 2 {
				fmt.Fprintf(&b, "%-*s", width[i], c)
			} else {
				fmt.Fprintf(&b, "%*s", width[i], c)
			}
			if md {
				b.WriteString(" ")
			}
		}
		if md {
			b.WriteString("|")
		}
		fmt.Fprintln(out, b.String())
	}
	line(heads)
	if md {
		sep := make([]string, len(heads))
		for i := range sep {
			sep[i] = strings.Repeat("-", width[i])
			if i >= 2 {
				sep[i] = strings.Repeat("-", width[i]-1) + ":"
			}
		}
		line(sep)
	}
	for _, r := range rows {
		line(r)
	}
}
