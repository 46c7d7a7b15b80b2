package termview

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"github.com/vccube/vccube/internal/ptytest"
)

// openPTY opens a pseudo-terminal pair (pty(7)): what the program writes
// to the slave, the test reads from the master.
func openPTY(t *testing.T, cols, rows int) (master, slave *os.File) {
	t.Helper()
	return ptytest.Open(t, cols, rows)
}

// readAll copies the master's output into a buffer until it fails.
func readAll(m *os.File) *lockedBuf {
	out := &lockedBuf{}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := m.Read(buf)
			out.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	return out
}

// waitFor polls until cond holds; the test's own timeout ends a hang.
func waitFor(cond func() bool) {
	for !cond() {
		time.Sleep(time.Millisecond)
	}
}

func (l *lockedBuf) has(suffix string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return bytes.Contains(l.b.Bytes(), []byte(suffix))
}

// halves is a w×h frame, red on the left half and blue on the right.
func halves(w, h int) ([]byte, int) {
	px := make([]uint32, w*h)
	for i := range px {
		if i%w < w/2 {
			px[i] = cR
		} else {
			px[i] = cB
		}
	}
	return xrgb(w, h, 0, px)
}

// On a real terminal device, Open asks the window's size (TIOCGWINSZ),
// and follows it when it changes (SIGWINCH): the last frame is drawn again
// at the new size without a new Show.
func TestOpenFollowsWindowSize(t *testing.T) {
	m, s := openPTY(t, 20, 10)
	out := readAll(m)
	if !IsTerminal(s) {
		t.Fatal("IsTerminal(pty) = false")
	}
	v, err := Open(s, Options{Colour: Truecolour})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()

	// 40×20 in 20×10 cells (20×20 pixels): 20×10, from cell row 2.
	px, pitch := halves(40, 20)
	if err := v.ShowXRGB(px, 40, 20, pitch); err != nil {
		t.Fatal(err)
	}
	if err := v.Flush(); err != nil {
		t.Fatal(err)
	}

	// 40×10 cells (40×20 pixels): the picture fills the window.
	ptytest.Resize(t, m, 40, 10)
	if err := syscall.Kill(os.Getpid(), syscall.SIGWINCH); err != nil {
		t.Fatal(err)
	}
	waitFor(func() bool { return v.Stats().Redraws == 1 })
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	waitFor(func() bool { return out.has(leaveSeq) })

	stream := out.take()
	second := bytes.LastIndex(stream, []byte(clearSeq))
	term := newVT(40, 10)
	if err := term.feed(stream[:second]); err != nil {
		t.Fatal(err)
	}
	for _, c := range [][3]int{{2, 0, cR}, {2, 9, cR}, {2, 10, cB}, {6, 19, cB}} {
		if top, bot, err := term.pixels(c[0], c[1]); err != nil || top != vtRGB(uint32(c[2])) || bot != top {
			t.Errorf("at 20×10, cell %d,%d: %v over %v (%v)", c[0], c[1], top, bot, err)
		}
	}
	if err := term.feed(stream[second:]); err != nil {
		t.Fatal(err)
	}
	term.alt = true // look at the picture, not at the restored main screen
	for _, c := range [][3]int{{0, 0, cR}, {9, 19, cR}, {0, 20, cB}, {9, 39, cB}} {
		if top, bot, err := term.pixels(c[0], c[1]); err != nil || top != vtRGB(uint32(c[2])) || bot != top {
			t.Errorf("at 40×10, cell %d,%d: %v over %v (%v)", c[0], c[1], top, bot, err)
		}
	}
	term.alt = false
	checkRestored(t, term)
}

// A pseudo-terminal that reports no size (0×0) is taken to be as large as
// $COLUMNS and $LINES say, else 80×24, and the picture is drawn there;
// without that the view kept an empty alternate screen for the whole run.
func TestOpenAssumesASizeForZero(t *testing.T) {
	for _, c := range []struct {
		columns, lines string
		cols, rows     int
		cells          [][3]int // row, column, colour
	}{
		// 40×20 in 80×24 cells (80×48 pixels): 80×40, from cell row 2.
		{"", "", 80, 24, [][3]int{{2, 0, cR}, {21, 39, cR}, {2, 40, cB}, {21, 79, cB}}},
		{"x", "10", 80, 24, [][3]int{{2, 0, cR}, {21, 79, cB}}},
		// 40×10 cells (40×20 pixels): the picture fills the window.
		{"40", "10", 40, 10, [][3]int{{0, 0, cR}, {9, 19, cR}, {0, 20, cB}, {9, 39, cB}}},
	} {
		t.Run(fmt.Sprintf("COLUMNS=%q LINES=%q", c.columns, c.lines), func(t *testing.T) {
			t.Setenv("COLUMNS", c.columns)
			t.Setenv("LINES", c.lines)
			m, s := openPTY(t, 0, 0)
			out := readAll(m)
			if !IsTerminal(s) {
				t.Fatal("IsTerminal(pty) = false")
			}
			v, err := Open(s, Options{Colour: Truecolour})
			if err != nil {
				t.Fatal(err)
			}
			px, pitch := halves(40, 20)
			if err := v.ShowXRGB(px, 40, 20, pitch); err != nil {
				t.Fatal(err)
			}
			if err := v.Flush(); err != nil {
				t.Fatal(err)
			}
			if st := v.Stats(); st.Drawn != 1 {
				t.Errorf("stats %+v: the frame was not drawn", st)
			}
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
			waitFor(func() bool { return out.has(leaveSeq) })
			term := newVT(c.cols, c.rows)
			if err := term.feed(out.take()); err != nil {
				t.Fatal(err)
			}
			term.alt = true
			for _, cell := range c.cells {
				if top, bot, err := term.pixels(cell[0], cell[1]); err != nil || top != vtRGB(uint32(cell[2])) || bot != top {
					t.Errorf("cell %d,%d: %v over %v (%v)", cell[0], cell[1], top, bot, err)
				}
			}
		})
	}
}

func TestOpenNotTerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) {
		t.Error("IsTerminal(regular file) = true")
	}
	if _, err := Open(f, Options{}); err == nil {
		t.Error("Open(regular file) succeeded")
	}
}

// The signal contract, as a program keeps it: SIGINT and SIGTERM are
// caught, the render loop ends, and the deferred Close restores the
// terminal. The program runs as a child process (this test binary again)
// on a pseudo-terminal.
func TestSignalContract(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			m, s := openPTY(t, 30, 10)
			out := readAll(m)
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProgram$")
			cmd.Env = append(os.Environ(), "TERMVIEW_HELPER=1")
			cmd.Stdout = s
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				if errors.Is(err, syscall.ENOEXEC) {
					t.Skipf("this test binary cannot start itself here (%v): qemu-user without binfmt_misc", err)
				}
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			for !out.has("\x1b[48;2;0;0;255m") { // a frame is on the screen
				select {
				case err := <-exited:
					t.Fatalf("the program ended before drawing a frame: %v", err)
				case <-time.After(time.Millisecond):
				}
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if err := <-exited; err != nil {
				t.Fatalf("the program: %v", err)
			}
			waitFor(func() bool { return out.has(leaveSeq) })
			stream := out.take()
			term := newVT(30, 10)
			if err := term.feed(stream); err != nil {
				t.Fatal(err)
			}
			checkRestored(t, term)
			if !bytes.HasSuffix(stream, []byte(leaveSeq)) {
				t.Errorf("the stream does not end with the leave sequence: %q", stream[max(0, len(stream)-60):])
			}
		})
	}
}

// TestHelperProgram is the child of TestSignalContract: a minimal program
// that keeps the contract.
func TestHelperProgram(t *testing.T) {
	if os.Getenv("TERMVIEW_HELPER") != "1" {
		t.Skip("run by TestSignalContract")
	}
	os.Exit(helperProgram())
}

func helperProgram() int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	v, err := Open(os.Stdout, Options{Colour: Truecolour})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	defer v.Close()
	px, pitch := halves(64, 48)
	for ctx.Err() == nil {
		if err := v.ShowXRGB(px, 64, 48, pitch); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 4
		}
		time.Sleep(2 * time.Millisecond)
	}
	return 0
}
