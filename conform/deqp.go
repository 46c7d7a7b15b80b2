package conform

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/vccube/vccube/conform/piglit"
)

// DeqpOptions configure a run of a dEQP program (deqp-gles2, or glcts
// for KHR-GLES2: both take the same --deqp-* arguments) as Mesa's
// CI runs it with deqp-runner: the cases in groups, each group one
// process given its cases with --deqp-caselist-file; a case that crashes
// or runs too long fails, and the group's remaining cases run again in a
// new process.
type DeqpOptions struct {
	// Binary is the dEQP program; it runs in its own directory, where
	// its data is (deqp-gles2's gles2/data, glcts's gl_cts/data).
	Binary string
	// Args are the arguments every process gets (the surface, config).
	Args []string
	// PerGroup is the number of cases given to one process (deqp-runner's
	// tests_per_group).
	PerGroup int
	// Workers is the number of processes run at once, each worker with
	// its own server.
	Workers int
	// Timeout stops a process whose case runs longer (a timeout verdict
	// for that case; its server is replaced).
	Timeout time.Duration
	// Env is added to every process's environment (the Mesa build's
	// paths, EGL_PLATFORM).
	Env []string
	// Preload is the simserve preload library.
	Preload string
	// Server is the command line that serves one worker, without -serve
	// DIR (this program, normally).
	Server []string
	// Dir is where the servers' directories go.
	Dir string
	// LogDir, if set, receives the dEQP log (TestResults.qpa, with its
	// images) of each process that had a case not pass.
	LogDir string
	// OnResult is called with each case's result, from one goroutine at
	// a time.
	OnResult func(Result)
}

// deqpTestRE and deqpStatusRE are the two lines dEQP prints on its
// standard output for each case (framework/common/tcuTestSessionExecutor.cpp:
// "Test case '%s'.." before it, "  %s (%s)" with the result's code and
// description after it); the status names are s_qpTestResultMap's
// (framework/qphelper/qpTestLog.c).
var (
	deqpTestRE   = regexp.MustCompile(`^Test case '(.*)'\.\.$`)
	deqpStatusRE = regexp.MustCompile(`^  (\S+) \(.*\)`)
)

// DeqpStatus maps a dEQP result code to the status Mesa's runner gives it
// (deqp-runner's parse_deqp.rs): NotSupported is a skip, the warnings and
// Waiver warn, Pending, ResourceError and InternalError fail. ok is false
// for a word that is no result code ("Info" lines, say).
func DeqpStatus(code string) (s piglit.Status, ok bool) {
	switch code {
	case "Pass":
		return piglit.Pass, true
	case "Fail", "Pending", "ResourceError", "InternalError":
		return piglit.Fail, true
	case "QualityWarning", "CompatibilityWarning", "Waiver":
		return piglit.Warn, true
	case "NotSupported":
		return piglit.Skip, true
	case "Crash":
		return piglit.Crash, true
	case "Timeout":
		return piglit.Timeout, true
	}
	return "", false
}

// Groups cuts cases into groups of at most n.
func Groups(cases []string, n int) [][]string {
	if n < 1 {
		n = 1
	}
	var gs [][]string
	for len(cases) > 0 {
		k := min(n, len(cases))
		gs = append(gs, cases[:k:k])
		cases = cases[k:]
	}
	return gs
}

// RunDeqp runs the cases and calls o.OnResult with each case's result.
// It returns when every case has a result, or at the first error that
// stops a worker for good (a server that cannot be started).
func RunDeqp(ctx context.Context, o DeqpOptions, cases []string) error {
	type job struct {
		n     int
		cases []string
	}
	var groups []job
	for i, g := range Groups(cases, o.PerGroup) {
		groups = append(groups, job{i, g})
	}
	return fanOut(ctx, o.Workers, groups, o.OnResult, func(id int, jobs <-chan job, results chan<- Result) error {
		sl := &slot{id: id, dir: o.Dir, server: o.Server}
		defer sl.drop()
		for j := range jobs {
			// A process that crashed or timed out leaves the rest of its
			// cases to a new one.
			for attempt, rest := 0, j.cases; len(rest) > 0 && ctx.Err() == nil; attempt++ {
				w, err := sl.get()
				if err != nil {
					return err
				}
				var rs []Result
				rs, rest = o.runGroup(ctx, w, rest, fmt.Sprintf("group%04d.%d", j.n, attempt))
				for _, r := range rs {
					results <- r
				}
				if rs[len(rs)-1].ServerRestarted != "" {
					sl.drop()
				}
			}
		}
		return nil
	})
}

// runGroup runs one process with cases against w's server. It returns a
// result for each case the process settled (at least one) and the cases
// to run again in a new process: those after a case that crashed or timed
// out. The last result says whether the server must be replaced.
func (o DeqpOptions) runGroup(ctx context.Context, w *worker, cases []string, name string) (rs []Result, rest []string) {
	list := filepath.Join(w.dir, "caselist.txt")
	qpa := filepath.Join(w.dir, "TestResults.qpa")
	os.Remove(qpa)
	fail := func(status piglit.Status, output string) ([]Result, []string) {
		for _, c := range cases {
			rs = append(rs, Result{Name: c, Status: status, Output: output, Server: w.id})
		}
		return rs, nil
	}
	if err := os.WriteFile(list, []byte(strings.Join(cases, "\n")+"\n"), 0o644); err != nil {
		return fail(piglit.Crash, "writing the case list: "+err.Error())
	}
	args := append([]string{"--deqp-caselist-file=" + list, "--deqp-log-filename=" + qpa}, o.Args...)
	cmd := exec.Command(o.Binary, args...)
	cmd.Dir = filepath.Dir(o.Binary)
	cmd.Env = append(os.Environ(), append([]string{"VC4SIM=" + w.dir, "LD_PRELOAD=" + o.Preload}, o.Env...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pr, pw, err := os.Pipe()
	if err != nil {
		return fail(piglit.Crash, err.Error())
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	err = cmd.Start()
	pw.Close()
	if err != nil {
		pr.Close()
		return fail(piglit.Crash, err.Error())
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		defer pr.Close()
		br := bufio.NewReader(pr)
		for {
			l, err := br.ReadString('\n')
			if l != "" {
				lines <- strings.TrimRight(l, "\r\n")
			}
			if err != nil {
				io.Copy(io.Discard, br)
				return
			}
		}
	}()

	wanted := make(map[string]bool, len(cases))
	for _, c := range cases {
		wanted[c] = true
	}
	var (
		cur      string // the case running, "" between cases
		curStart time.Time
		curOut   strings.Builder
		preamble strings.Builder
		timedOut bool
		killed   bool
	)
	addOut := func(b *strings.Builder, l string) {
		if b.Len() < outputLimit {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	timer := time.NewTimer(o.Timeout)
	defer timer.Stop()
	kill := func() {
		if !killed {
			killed = true
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	}
	done := ctx.Done()
read:
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				break read
			}
			if m := deqpTestRE.FindStringSubmatch(l); m != nil && wanted[m[1]] {
				cur, curStart = m[1], time.Now()
				curOut.Reset()
				addOut(&curOut, l)
				if !timer.Stop() {
					select {
					case <-timer.C:
					default:
					}
				}
				timer.Reset(o.Timeout)
				continue
			}
			if cur == "" {
				addOut(&preamble, l)
				continue
			}
			addOut(&curOut, l)
			if m := deqpStatusRE.FindStringSubmatch(l); m != nil {
				if s, ok := DeqpStatus(m[1]); ok {
					rs = append(rs, Result{Name: cur, Status: s, Seconds: time.Since(curStart).Seconds(), Output: curOut.String(), Server: w.id})
					delete(wanted, cur)
					cur = ""
				}
			}
		case <-timer.C:
			timedOut = true
			kill()
		case <-done:
			done = nil
			kill()
		}
	}
	waitErr := cmd.Wait()
	ended := "exited"
	if waitErr != nil {
		ended = waitErr.Error()
	}

	var unrun []string
	for _, c := range cases {
		if wanted[c] && c != cur {
			unrun = append(unrun, c)
		}
	}
	died := waitErr != nil || timedOut
	switch {
	case cur != "":
		// The case running when the process ended: deqp-runner's rule,
		// a crash (or the timeout that stopped it); the cases after it
		// run again.
		r := Result{Name: cur, Status: piglit.Crash, Seconds: time.Since(curStart).Seconds(), Server: w.id}
		if timedOut {
			r.Status = piglit.Timeout
			addOut(&curOut, fmt.Sprintf("(stopped by vc4conform after %s)", o.Timeout))
		}
		addOut(&curOut, "(the process "+ended+")")
		r.Output = curOut.String()
		rs = append(rs, r)
		rest = unrun
	case len(rs) == 0 && died:
		// Nothing ran: the process could not start its tests (no EGL
		// display, bad arguments). Every case gets its output, once.
		st := piglit.Crash
		if timedOut {
			st = piglit.Timeout
		}
		addOut(&preamble, "(the process "+ended+" before its first case)")
		rs, _ = fail(st, preamble.String())
	case died:
		// The process died between cases: the rest run again.
		rest = unrun
	default:
		// The process ended by itself between cases: a case it was
		// given and did not run is not in this program.
		for _, c := range unrun {
			rs = append(rs, Result{Name: c, Status: piglit.Skip, Skipped: "the dEQP program did not run it (not one of its cases)", Server: w.id})
		}
	}
	if len(rs) == 0 {
		// Cannot happen: every case list has a case, and each path above
		// settles at least one.
		rs, rest = fail(piglit.Crash, "no case settled")
	}

	// The kernel's lines belong to the whole process: each case that did
	// not pass gets them.
	restart := ""
	if !w.alive() {
		restart = "the server died: " + w.stderrTail()
	} else if timedOut {
		restart = "a case timed out; the server is replaced in case the model was left busy"
	}
	var kernel []string
	if restart == "" {
		var err error
		if kernel, err = w.kernelLog(); err != nil {
			restart = fmt.Sprintf("the server did not answer (%v): %s", err, w.stderrTail())
		}
	}
	kept := ""
	for i := range rs {
		if !rs[i].Status.Passed() {
			rs[i].Kernel = kernel
			if kept == "" && o.LogDir != "" {
				kept = filepath.Join(o.LogDir, name+".qpa")
				if err := os.Rename(qpa, kept); err != nil {
					kept = "-"
				}
			}
			if kept != "-" {
				rs[i].Log = kept
			}
		}
	}
	rs[len(rs)-1].ServerRestarted = restart
	return rs, rest
}

// ReadCaselist reads a dEQP case list: one case name a line (a mustpass
// file), blank lines and # comments ignored.
func ReadCaselist(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var cases []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if strings.ContainsAny(l, " \t{},") {
			return nil, fmt.Errorf("%s: %q is not a case name (a case list has one name a line)", path, l)
		}
		cases = append(cases, l)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("%s: no case names", path)
	}
	return cases, nil
}
