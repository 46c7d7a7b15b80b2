// Package conform runs conformance tests (piglit's, through Mesa's vc4
// driver) on the simulated vc4 and judges the model by what real
// Raspberry Pi 3 boards did with the same tests (package pi3). Each test
// runs in its own process against one of several servers of the
// simulated device (one per worker), with a timeout; a server that dies
// or is left busy is replaced and the run goes on.
package conform

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/vccube/vccube/conform/piglit"
)

// Options configure a run.
type Options struct {
	// Piglit is the root of the piglit installation (bin/, tests/).
	Piglit string
	// Workers is the number of tests run at once, each worker with its
	// own server.
	Workers int
	// Timeout stops a test that runs longer (a timeout verdict; its
	// server is replaced).
	Timeout time.Duration
	// Env is added to every test's environment (the Mesa build's paths).
	Env []string
	// Preload is the simserve preload library for the tests' architecture.
	Preload string
	// Exec runs the test under another program (qemu-aarch64 -E ...):
	// it gets the test's environment additions as its own arguments
	// through ExecEnv, and the test's command line after it.
	Exec func(env []string, args []string) []string
	// Server is the command line that serves one worker, without -serve
	// DIR (this program, normally).
	Server []string
	// Dir is where the servers' directories go.
	Dir string
	// OnResult is called with each result, from one goroutine at a time.
	OnResult func(Result)
}

// A Result is one test's run on the model.
type Result struct {
	Name     string                   `json:"name"`
	Status   piglit.Status            `json:"status"`
	Subtests map[string]piglit.Status `json:"subtests,omitempty"`
	Seconds  float64                  `json:"seconds"`
	// Output is the test's standard output and error, cut to their
	// last 16 KiB.
	Output string `json:"output,omitempty"`
	// Kernel is what the simulated kernel printed during the test.
	Kernel []string `json:"kernel,omitempty"`
	// Server names the worker; ServerRestarted says it was replaced after
	// this test (it died, or the test timed out), with why.
	Server          int    `json:"server"`
	ServerRestarted string `json:"server_restarted,omitempty"`
	// Skipped says why the runner did not run the test (its status is
	// then skip).
	Skipped string `json:"skipped,omitempty"`
	// Log is the dEQP log (.qpa) of the process the case ran in, kept
	// when a case of it did not pass.
	Log string `json:"log,omitempty"`
}

const outputLimit = 16 << 10

// Run runs tests and calls o.OnResult with each result. It returns when
// every test has run, or at the first error that stops a worker for good
// (a server that cannot be started).
func Run(ctx context.Context, o Options, tests []piglit.Test) error {
	return fanOut(ctx, o.Workers, tests, o.OnResult, func(id int, jobs <-chan piglit.Test, results chan<- Result) error {
		return o.work(ctx, id, jobs, results)
	})
}

// fanOut hands items to workers goroutines (at least one), each running
// work on the items it takes, and passes their results to onResult from
// one goroutine. It returns when every item is done, or with the first
// error a worker stopped on.
func fanOut[T any](ctx context.Context, workers int, items []T, onResult func(Result),
	work func(id int, jobs <-chan T, results chan<- Result) error) error {
	workers = max(workers, 1)
	jobs := make(chan T)
	results := make(chan Result)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for i := range workers {
		wg.Add(1)
		go func(id int) {
			defer wg.Done()
			if err := work(id, jobs, results); err != nil {
				errs <- err
			}
		}(i)
	}
	go func() {
		defer close(jobs)
		for _, it := range items {
			select {
			case jobs <- it:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()
	for r := range results {
		if onResult != nil {
			onResult(r)
		}
	}
	select {
	case err := <-errs:
		return err
	default:
		return ctx.Err()
	}
}

// A slot is one worker's place for a server: it starts one when asked
// and has none, and replaces it after drop, each in a directory of its
// own (serverID.generation).
type slot struct {
	id         int
	dir        string
	server     []string
	generation int
	w          *worker
}

// get returns the slot's server, starting one if it has none.
func (s *slot) get() (*worker, error) {
	if s.w == nil {
		dir := filepath.Join(s.dir, fmt.Sprintf("server%d.%d", s.id, s.generation))
		s.generation++
		w, err := startWorker(s.id, dir, s.server)
		if err != nil {
			return nil, err
		}
		s.w = w
	}
	return s.w, nil
}

// drop stops the slot's server, if it has one.
func (s *slot) drop() {
	if s.w != nil {
		s.w.stop()
		s.w = nil
	}
}

// work runs tests on one server, replacing it when it dies or a test
// times out.
func (o Options) work(ctx context.Context, id int, jobs <-chan piglit.Test, results chan<- Result) error {
	sl := &slot{id: id, dir: o.Dir, server: o.Server}
	defer sl.drop()
	for t := range jobs {
		w, err := sl.get()
		if err != nil {
			return err
		}
		r := o.runOne(ctx, w, t)
		if !w.alive() {
			r.ServerRestarted = "the server died: " + w.stderrTail()
		} else if r.Status == piglit.Timeout {
			r.ServerRestarted = "the test timed out; the server is replaced in case the model was left busy"
		}
		if r.ServerRestarted == "" {
			log, err := w.kernelLog()
			r.Kernel = log
			if err != nil {
				r.ServerRestarted = fmt.Sprintf("the server did not answer (%v): %s", err, w.stderrTail())
			}
		}
		if r.ServerRestarted != "" {
			sl.drop()
		}
		results <- r
	}
	return nil
}

// runOne runs one test in its own process group against w's server.
func (o Options) runOne(ctx context.Context, w *worker, t piglit.Test) Result {
	r := Result{Name: t.Name, Server: w.id}
	env := append([]string{
		"VC4SIM=" + w.dir,
		"LD_PRELOAD=" + o.Preload,
		"PIGLIT_PLATFORM=gbm",
		"WAFFLE_GBM_DEVICE=/dev/dri/card0",
		"PIGLIT_SOURCE_DIR=" + o.Piglit,
	}, o.Env...)
	args := t.Args(o.Piglit)
	if _, err := os.Stat(args[0]); err != nil {
		// Debian builds some programs only with libraries its package
		// lacks (ext_image_dma_buf_import's need libdrm_intel, say).
		r.Status, r.Skipped = piglit.Skip, "the piglit installed has no bin/"+t.Command[0]
		return r
	}
	var cmd *exec.Cmd
	if o.Exec != nil {
		argv := o.Exec(env, args)
		cmd = exec.Command(argv[0], argv[1:]...)
		cmd.Env = os.Environ()
	} else {
		cmd = exec.Command(args[0], args[1:]...)
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Dir = o.Piglit
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	cmd.Stdin = nil
	start := time.Now()
	var timedOut atomic.Bool
	if err := cmd.Start(); err != nil {
		r.Status = piglit.Crash
		r.Output = err.Error()
		return r
	}
	done := make(chan struct{})
	go func() {
		timer := time.NewTimer(o.Timeout)
		defer timer.Stop()
		select {
		case <-done:
		case <-timer.C:
			timedOut.Store(true)
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		case <-ctx.Done():
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	}()
	cmd.Wait()
	close(done)
	r.Seconds = time.Since(start).Seconds()
	res := piglit.Parse(out.Bytes())
	r.Status, r.Subtests = res.Status, res.Subtests
	if len(r.Subtests) == 0 {
		r.Subtests = nil
	}
	if timedOut.Load() {
		r.Status = piglit.Timeout
	}
	b := out.Bytes()
	if len(b) > outputLimit {
		b = append([]byte("…"), b[len(b)-outputLimit:]...)
	}
	r.Output = string(b)
	return r
}
