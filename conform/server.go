package conform

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/gpu"
	"github.com/vccube/vccube/simserve"
)

// ServeWorker serves one simulated Raspberry Pi 3 vc4 in dir, for one
// runner worker, until in ends. It is the server process a Runner starts
// (cmd/vc4conform runs it when started as "vc4conform -serve DIR"), so
// that a model that panics or hangs takes one worker down, not the run.
//
// On its standard input it takes one request a line: "log" answers with
// the lines the simulated kernel printed since the last "log" (what dmesg
// would show: "Resetting GPU.", refused ioctls with their reasons), then
// a line "end".
func ServeWorker(dir string, in io.Reader, out io.Writer) error {
	s, err := sim.NewSystem(sim.SystemOptions{GPU: gpu.Options{Workers: 1}})
	if err != nil {
		return err
	}
	defer s.Close()
	srv, err := simserve.New(simserve.Options{Device: s.Device, Dir: dir})
	if err != nil {
		return err
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve() }()

	var seen []string // the kernel log's lines at the last "log"
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		if sc.Text() != "log" {
			continue
		}
		now := s.KernelLog()
		for _, l := range newLines(seen, now) {
			fmt.Fprintln(out, l)
		}
		fmt.Fprintln(out, "end")
		seen = now
	}
	srv.Close()
	select {
	case err := <-served:
		return err
	default:
		return nil
	}
}

// newLines returns the lines of now that came after prev: the kernel log
// keeps its last lines only, so now is prev with its head dropped and
// new lines added; the longest suffix of prev that starts now marks where
// the new lines begin.
func newLines(prev, now []string) []string {
	for k := min(len(prev), len(now)); k > 0; k-- {
		if slices.Equal(prev[len(prev)-k:], now[:k]) {
			return now[k:]
		}
	}
	return now
}

// A worker is one server process and the directory it serves in.
type worker struct {
	id  int
	dir string
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader

	mu     sync.Mutex
	exited bool
	stderr strings.Builder
	done   chan struct{}
}

// startWorker starts a server process: self is the command that serves
// (this program with -serve DIR).
func startWorker(id int, dir string, self []string) (*worker, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	w := &worker{id: id, dir: dir, done: make(chan struct{})}
	w.cmd = exec.Command(self[0], append(self[1:], "-serve", dir)...)
	in, err := w.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := w.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	w.cmd.Stderr = &lockedWriter{w: w}
	w.in, w.out = in, bufio.NewReader(out)
	if err := w.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting server %d: %w", id, err)
	}
	go func() {
		w.cmd.Wait()
		w.mu.Lock()
		w.exited = true
		w.mu.Unlock()
		close(w.done)
	}()
	// The server is ready when it answers: its socket exists by then.
	if _, err := w.kernelLog(); err != nil {
		w.stop()
		return nil, fmt.Errorf("server %d did not start: %v: %s", id, err, w.stderrTail())
	}
	return w, nil
}

type lockedWriter struct{ w *worker }

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.w.mu.Lock()
	defer l.w.mu.Unlock()
	if l.w.stderr.Len() < 64<<10 {
		l.w.stderr.Write(p)
	}
	return len(p), nil
}

func (w *worker) stderrTail() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := strings.TrimSpace(w.stderr.String())
	if len(s) > 2000 {
		s = "…" + s[len(s)-2000:]
	}
	return s
}

// alive reports whether the server process still runs.
func (w *worker) alive() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return !w.exited
}

// kernelLog asks the server for the kernel's new lines.
func (w *worker) kernelLog() ([]string, error) {
	if _, err := io.WriteString(w.in, "log\n"); err != nil {
		return nil, err
	}
	var lines []string
	for {
		l, err := w.out.ReadString('\n')
		if err != nil {
			return lines, err
		}
		l = strings.TrimSuffix(l, "\n")
		if l == "end" {
			return lines, nil
		}
		lines = append(lines, l)
	}
}

// stop ends the server: its input closes, and a server that has not
// ended 5 s later (a model stuck in a job) is killed.
func (w *worker) stop() {
	w.in.Close()
	select {
	case <-w.done:
	case <-time.After(5 * time.Second):
		w.cmd.Process.Kill()
		<-w.done
	}
	os.RemoveAll(w.dir)
}
