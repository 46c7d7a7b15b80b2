// Command vc4conform runs piglit's conformance tests through Mesa's vc4
// driver on the simulated vc4 and judges the model by what Mesa's CI
// recorded on real Raspberry Pi 3 boards (package conform/pi3).
//
//	conform/build-mesa.sh                       # once: Mesa's vc4 for this machine
//	go run ./cmd/vc4conform -profile quick_gl,quick_shader -o /tmp/conform
//
// See doc/conformance.md.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/vccube/vccube/conform"
	"github.com/vccube/vccube/conform/pi3"
	"github.com/vccube/vccube/conform/piglit"
)

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	var ue usageError
	switch {
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case errors.As(err, &ue):
		fmt.Fprintln(os.Stderr, "vc4conform:", err)
		os.Exit(2)
	case errors.Is(err, errChanged):
		os.Exit(1)
	case err != nil:
		fmt.Fprintln(os.Stderr, "vc4conform:", err)
		os.Exit(1)
	}
}

type usageError struct{ error }

var errChanged = errors.New("classes changed against the expectation")

// defaultTimeout stops a test process that runs this long. Mesa's CI gives
// a test on a Pi 3 a minute, but on the model glsl-uniform-interstage-limits'
// "subdivide 5" tests take 25 s of CPU, and with the cores shared they
// passed the minute (doc/conformance.md). A job that hangs the simulated GPU
// is reset by the kernel model's hang check within a second; this only
// stops a test that waits on its own.
const defaultTimeout = 5 * time.Minute

const about = `vc4conform runs piglit's tests through Mesa's vc4 driver on the simulated
vc4 and judges the model by what real Raspberry Pi 3 boards did with the
same tests (Mesa CI's record at 22.3.0). Each test runs in its own process,
with a timeout, against one of several simulated devices; it writes
results.jsonl (every test: status, subtests, time, output, kernel log),
summary.md (counts per class, every disagreement with its evidence),
expectations.txt (each test's class) and fails.csv (the model's non-passing
tests in the record's format) to -o.

Before the first run: conform/build-mesa.sh (Mesa's vc4 for this machine),
simserve/preload/build.sh, and Debian's piglit (apt-get install piglit);
conform/piglit.sh does all three and then runs vc4conform. See
doc/conformance.md.

Usage: vc4conform [flags]
`

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("vc4conform", flag.ContinueOnError)
	// -h prints the usage on stdout; a mistake is reported once, on
	// stderr, by main.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	home, _ := os.UserHomeDir()
	cache := os.Getenv("VCCUBE_CACHE")
	if cache == "" {
		cache = filepath.Join(home, ".cache", "vccube")
	}
	var (
		serve    = fs.String("serve", "", "(internal) serve one simulated device in DIR for a worker, until standard input ends")
		piglitD  = fs.String("piglit", "/usr/lib/"+triplet()+"/piglit", "the piglit installation (its bin/ and tests/)")
		profiles = fs.String("profile", "quick_gl,quick_shader", "comma-separated piglit profiles")
		list     = fs.String("tests", "", "a file of test names, one a line (# comments): run these only")
		match    = fs.String("run", "", "run only the tests whose name matches this regular expression")
		shard    = fs.String("shard", "", "K/N: run the K-th of N shards (1 ≤ K ≤ N; test i is in shard i mod N + 1)")
		all      = fs.Bool("all", false, "also run the tests the Pi 3 record skips (they are not comparable, so by default they are not run)")
		workers  = fs.Int("workers", runtime.NumCPU(), "tests run at once, each against its own simulated device")
		timeout  = fs.Duration("timeout", defaultTimeout, "a test running longer is stopped: a timeout verdict")
		mesa     = fs.String("mesa", filepath.Join(cache, "mesa", "build", "install"), "the Mesa build (conform/build-mesa.sh's install directory)")
		preload  = fs.String("preload", filepath.Join("simserve", "preload", "out", "amd64", "vc4sim.so"), "the simserve preload library (simserve/preload/build.sh)")
		outDir   = fs.String("o", "vc4conform-results", "the directory the results go to")
		expect   = fs.String("expect", "", "compare each test's class with this expectations file; exit 1 on any change")
		causes   = fs.String("causes", filepath.Join("conform", "causes.txt"), "the known causes of disagreements with the Pi 3 (class<TAB>regexp<TAB>why), grouped by in summary.md")
		quiet    = fs.Bool("quiet", false, "no progress line")
		qemu     = fs.String("qemu", "", "run each test program under this qemu user-mode emulator (its flags after it, space-separated), with the test's environment as -E: for another architecture's piglit, such as Debian's armhf one with qemu-arm-static, with -piglit, -mesa and -preload of that architecture")
		deqp     = deqpFlags(fs)
	)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, about)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return err
		}
		return usageError{fmt.Errorf("%w (vc4conform -h lists the flags)", err)}
	}
	if fs.NArg() != 0 {
		return usageError{fmt.Errorf("unexpected argument %q (see -h)", fs.Arg(0))}
	}
	if *serve != "" {
		return conform.ServeWorker(*serve, os.Stdin, os.Stdout)
	}

	rec, err := pi3.Load()
	if err != nil {
		return err
	}
	if deqp.binary != "" {
		return runDeqp(deqp, common{rec: rec, mesa: *mesa, preload: *preload, outDir: *outDir, match: *match, list: *list,
			shard: *shard, all: *all, workers: *workers, timeout: *timeout, causes: *causes, expect: *expect, quiet: *quiet}, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(*piglitD, "bin", "shader_runner")); err != nil {
		return fmt.Errorf("no piglit at %s (apt-get install piglit, or -piglit DIR)", *piglitD)
	}
	mesaEnv, pre, err := mesaSetup(*mesa, *preload)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}

	// The tests: the profiles, then the filters.
	var tests []piglit.Test
	requires := map[string][]string{}
	skipped := 0
	var filter *regexp.Regexp
	if *match != "" {
		if filter, err = regexp.Compile(*match); err != nil {
			return usageError{fmt.Errorf("-run: %w", err)}
		}
	}
	var wanted map[string]bool
	if *list != "" {
		if wanted, err = readList(*list); err != nil {
			return err
		}
	}
	k, n, err := parseShard(*shard)
	if err != nil {
		return usageError{err}
	}
	seen := map[string]bool{}
	for _, p := range strings.Split(*profiles, ",") {
		ts, err := piglit.LoadProfile(*piglitD, strings.TrimSpace(p))
		if err != nil {
			return err
		}
		for _, t := range ts {
			if seen[t.Name] {
				continue
			}
			seen[t.Name] = true
			requires[t.Name] = t.RequirePlatforms
			if filter != nil && !filter.MatchString(t.Name) || wanted != nil && !wanted[t.Name] {
				continue
			}
			if !*all && rec.Expect(t.Name).Status == "Skip" {
				skipped++
				continue
			}
			tests = append(tests, t)
		}
	}
	var mine []piglit.Test
	for i, t := range tests {
		if n == 0 || i%n == k-1 {
			mine = append(mine, t)
		}
	}
	tests = mine
	if len(tests) == 0 {
		return usageError{errors.New("no test selected (see -profile, -tests, -run, -shard)")}
	}
	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		return err
	}
	serverDir, err := os.MkdirTemp("", "vc4conform.")
	if err != nil {
		return err
	}
	defer os.RemoveAll(serverDir)

	rev := revision() // now: the checkout may move while the run goes on
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	col, err := newCollector(*outDir, len(tests), "tests", stderr, *quiet)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "vc4conform: %d tests (%d more the Pi 3 record skips, not run), %d workers, Mesa %s\n", len(tests), skipped, *workers, *mesa)
	opts := conform.Options{
		Piglit:   *piglitD,
		Workers:  *workers,
		Timeout:  *timeout,
		Preload:  pre,
		Env:      mesaEnv,
		Server:   []string{self},
		Dir:      serverDir,
		Exec:     underQemu(*qemu),
		OnResult: col.add,
	}
	runErr := conform.Run(ctx, opts, tests)
	results, wall, err := col.finish()
	if runErr != nil {
		return runErr
	}
	if err != nil {
		return err
	}

	sort.Slice(results, func(i, j int) bool { return results[i].Name < results[j].Name })
	entries := conform.Judge(rec, results, func(name string) bool { return pi3.WindowSystem(name, requires[name]) })
	facts := conform.Facts{
		Title:   fmt.Sprintf("piglit %s on the simulated vc4, judged by the Pi 3 record", *profiles),
		Results: results,
		Entries: entries,
		Lines: []string{
			"date: " + time.Now().UTC().Format("2006-01-02 15:04 UTC"),
			"vccube: " + rev,
			"piglit: " + packageVersion("piglit") + " (" + *piglitD + ")",
			"Mesa: " + *mesa,
			fmt.Sprintf("selection: %d tests%s%s%s; %d skipped by the Pi 3 record, not run", len(tests), opt(" -run ", *match), opt(" -tests ", *list), opt(" -shard ", *shard), skipped),
			fmt.Sprintf("wall time: %s with %d workers on %d CPUs", wall.Round(time.Second), *workers, runtime.NumCPU()),
		},
	}
	return report(stdout, facts, *outDir, *causes, *expect, "tests", wall)
}

func orNone(c pi3.Class) string {
	if c == "" {
		return "nothing"
	}
	return string(c)
}

func opt(flag, v string) string {
	if v == "" {
		return ""
	}
	return flag + v
}

// writeFails writes the model's non-passing tests and subtests as the
// record's fails file has them (name,Fail or name,Crash).
func writeFails(w io.Writer, entries []conform.Entry) error {
	bw := bufio.NewWriter(w)
	for _, e := range entries {
		switch e.Status {
		case piglit.Fail:
			fmt.Fprintf(bw, "%s,Fail\n", e.Name)
		case piglit.Crash:
			fmt.Fprintf(bw, "%s,Crash\n", e.Name)
		case piglit.Timeout:
			fmt.Fprintf(bw, "%s,Timeout\n", e.Name)
		}
	}
	return bw.Flush()
}

func writeFile(path string, fn func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	err = fn(bw)
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func readList(path string) (map[string]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l != "" && !strings.HasPrefix(l, "#") {
			m[l] = true
		}
	}
	return m, sc.Err()
}

func parseShard(s string) (k, n int, err error) {
	if s == "" {
		return 0, 0, nil
	}
	if _, err := fmt.Sscanf(s, "%d/%d", &k, &n); err != nil || n < 1 || k < 1 || k > n {
		return 0, 0, fmt.Errorf("-shard %q: say K/N with 1 ≤ K ≤ N", s)
	}
	return k, n, nil
}

// underQemu is the conform.Options.Exec that runs a test under the qemu
// command line qemu, or nil for none.
func underQemu(qemu string) func(env, args []string) []string {
	prefix := strings.Fields(qemu)
	if len(prefix) == 0 {
		return nil
	}
	return func(env, args []string) []string {
		argv := append([]string(nil), prefix...)
		for _, e := range env {
			argv = append(argv, "-E", e)
		}
		return append(argv, args...)
	}
}

// triplet is Debian's multiarch name of this machine's architecture.
func triplet() string {
	switch runtime.GOARCH {
	case "arm64":
		return "aarch64-linux-gnu"
	case "arm":
		return "arm-linux-gnueabihf"
	}
	return "x86_64-linux-gnu"
}

func packageVersion(pkg string) string {
	out, err := exec.Command("dpkg-query", "-W", "-f=${Version}", pkg).Output()
	if err != nil {
		return "unknown"
	}
	return string(out)
}

// revision is the commit the run was built from: the build info's, else
// git's in the working directory.
func revision() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				return s.Value
			}
		}
	}
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}
