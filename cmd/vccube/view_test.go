package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vccube/vccube/cmd/vccube/internal/keys"
	"github.com/vccube/vccube/internal/imgcmp"
	"github.com/vccube/vccube/internal/ptytest"
	"github.com/vccube/vccube/sim"
	"golang.org/x/sys/unix"
)

// The terminal's escape sequences the tests look for, from xterm's
// ctlseqs: the alternate screen with the cursor hidden (DECSET 1049,
// DECRST 25) and back (SGR 0, DECSET 25, DECRST 1049). termview sends
// exactly these (its package documentation, "The terminal's state").
const (
	enterAltScreen = "\x1b[?1049h\x1b[?25l"
	leaveAltScreen = "\x1b[0m\x1b[?25h\x1b[?1049l"
	// vkcube's background, 0.2 grey (cube.c: clear colour 0.2, 0.2, 0.2),
	// as a 24-bit background colour (SGR 48;2;R;G;B).
	greyBackground = "48;2;51;51;51"
)

// pty is a pseudo-terminal pair (pty(7)): the program gets the slave as
// its stdout (and stdin), the test reads what it wrote from the master.
type pty struct {
	master, slave *os.File
	mu            sync.Mutex
	out           bytes.Buffer
}

func openPTY(t testing.TB, cols, rows int) *pty {
	t.Helper()
	return openPTYOutput(t, cols, rows, true)
}

// openPTYOutput is openPTY that keeps what the program writes only with
// keep (a benchmark discards it, so as not to count its own buffer).
func openPTYOutput(t testing.TB, cols, rows int, keep bool) *pty {
	t.Helper()
	m, s := ptytest.Open(t, cols, rows)
	p := &pty{master: m, slave: s}
	go func() {
		buf := make([]byte, 1<<16)
		for {
			n, err := m.Read(buf)
			if keep {
				p.mu.Lock()
				p.out.Write(buf[:n])
				p.mu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}()
	return p
}

// output waits until the terminal has received want (the program has
// returned, but the master may not have read everything yet) and returns
// all it received. The wait ends as soon as want is there; its limit only
// turns a run that never wrote want into a failure rather than a hang, and
// is far beyond what a loaded machine needs to move a few kilobytes.
func (p *pty) output(t *testing.T, want string) string {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		p.mu.Lock()
		s := p.out.String()
		p.mu.Unlock()
		if strings.Contains(s, want) || time.Now().After(deadline) {
			return s
		}
		time.Sleep(time.Millisecond)
	}
}

// termios reads the slave's terminal settings.
func (p *pty) termios(t *testing.T) unix.Termios {
	t.Helper()
	var tio *unix.Termios
	ptytest.Control(t, p.slave, func(fd int) (err error) {
		tio, err = unix.IoctlGetTermios(fd, unix.TCGETS)
		return err
	})
	return *tio
}

// checkView checks the stream a run with the terminal view wrote: the
// alternate screen first, then the picture — vkcube's grey background
// and the keys on the last row — and, after the terminal was put back,
// the report on the normal screen and nothing of the picture. frames is
// the number of frames the view was given; the report counts the frames
// shown after frame 0, which is frames-1 — or one less after a signal,
// when the last frame went to the view but found the display restored.
func checkView(t *testing.T, stream string, frames int, signalled bool) {
	checkViewCaption(t, stream, frames, signalled, viewCaption)
}

// checkViewCaption is checkView with the caption the view should show.
func checkViewCaption(t *testing.T, stream string, frames int, signalled bool, caption string) {
	t.Helper()
	if !strings.HasPrefix(stream, enterAltScreen) {
		t.Errorf("the stream does not start on the alternate screen: %q", stream[:min(len(stream), 40)])
	}
	leave := strings.LastIndex(stream, leaveAltScreen)
	if leave < 0 {
		t.Fatalf("the terminal was never put back (no leave sequence); stream ends %q", stream[max(0, len(stream)-80):])
	}
	picture, after := stream[:leave], stream[leave+len(leaveAltScreen):]
	if strings.Count(stream, enterAltScreen) != 1 || strings.Count(stream, leaveAltScreen) != 1 {
		t.Errorf("entered the alternate screen %d times, left it %d times", strings.Count(stream, enterAltScreen), strings.Count(stream, leaveAltScreen))
	}
	if !strings.Contains(picture, greyBackground) || !strings.Contains(picture, caption) {
		t.Errorf("the picture lacks the grey background or the caption %q", caption)
	}
	if strings.Contains(picture, "Rendered") {
		t.Error("the report was printed on the alternate screen")
	}
	if strings.Contains(after, "\x1b[") {
		t.Errorf("escape sequences after the terminal was put back: %q", after)
	}
	want := fmt.Sprintf("Rendered %d frames in ", frames-1)
	if signalled && !strings.HasPrefix(after, want) {
		want = fmt.Sprintf("Rendered %d frames in ", frames-2)
	}
	if !strings.HasPrefix(after, want) || !strings.Contains(after, fmt.Sprintf("terminal view: %d frames, ", frames)) {
		t.Errorf("after the view, want %q and the view's line; got %q", want, after)
	}
	// Every frame given to the view was drawn or dropped.
	var given, drawn, dropped int
	if i := strings.Index(after, "terminal view: "); i >= 0 {
		if _, err := fmt.Sscanf(after[i:], "terminal view: %d frames, %d drawn, %d dropped", &given, &drawn, &dropped); err != nil ||
			drawn < 1 || given != drawn+dropped {
			t.Errorf("view line %q: want at least one frame drawn and frames = drawn + dropped", after[i:])
		}
	}
}

// viewFrames reads the number of frames the view was given from the
// report's view line.
func viewFrames(t *testing.T, stream string) int {
	t.Helper()
	var frames int
	i := strings.Index(stream, "terminal view: ")
	if i < 0 {
		t.Fatalf("no terminal view line: %q", stream[max(0, len(stream)-300):])
	}
	if _, err := fmt.Sscanf(stream[i:], "terminal view: %d frames", &frames); err != nil {
		t.Fatalf("terminal view line %q: %v", stream[i:], err)
	}
	return frames
}

// The terminal view: with stdout a terminal and the simulated display,
// every frame goes to the view, which draws the cube in 24-bit colour on
// the alternate screen; q from the keyboard (a real key on the terminal's
// input) ends the run, the terminal comes back as it was — normal screen,
// cursor shown, line editing and echo on — and the report follows there.
func TestTerminalViewQuitKey(t *testing.T) {
	t.Setenv("COLORTERM", "truecolor")
	d := newTestDevice(t, sim.Options{})
	con := d.console(t)
	term := openPTY(t, 80, 25)
	before := term.termios(t)
	var errb bytes.Buffer
	e := &env{stdin: term.slave, stdout: term.slave, stderr: &errb, driDir: t.TempDir(), openSim: d.opener()}
	var typed bool
	e.afterFrame = func(k uint64) {
		if k == 3 {
			if tio := term.termios(t); tio.Lflag&(unix.ICANON|unix.ECHO) != 0 {
				t.Error("the terminal is not in key-at-a-time mode during the run")
			}
			term.master.Write([]byte("q"))
			typed = true
		}
		if k > 500 {
			t.Fatal("q did not end the run")
		}
	}
	code := run(context.Background(), []string{"-device", "sim"}, e)
	if code != exitOK || !typed {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	stream := term.output(t, "terminal view: ")
	// The keys goroutine sees q a little after it was typed: count the
	// frames from the report.
	if frames := viewFrames(t, stream); frames < 4 {
		t.Errorf("%d frames shown, want at least 4", frames)
	} else {
		checkView(t, stream, frames, false)
	}
	checkTermiosRestored(t, before, term.termios(t))
	con.checkRestored(t)
	d.checkNoLeaks(t)
}

// The view drives the simulated monitor at 640x480 unless -mode says
// otherwise, and a -mode is kept. Every frame rendered is given to the
// view (it draws what the terminal takes, at least the first). Without
// the keyboard (stdin not a terminal) the caption offers Ctrl-C only.
func TestTerminalViewMode(t *testing.T) {
	t.Setenv("COLORTERM", "truecolor")
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "640x480 on sim"},
		{[]string{"-mode", "800x600"}, "800x600 on sim"},
	} {
		d := newTestDevice(t, sim.Options{})
		term := openPTY(t, 100, 30)
		var errb bytes.Buffer
		e := &env{stdout: term.slave, stderr: &errb, driDir: t.TempDir(), openSim: d.opener()}
		code := run(context.Background(), append([]string{"-device", "sim", "-frames", "6", "-benchmark"}, c.args...), e)
		if code != exitOK {
			t.Fatalf("%v: exit %d, stderr %q", c.args, code, errb.String())
		}
		stream := term.output(t, "terminal view: ")
		// (stdin is not the terminal here: only Ctrl-C quits.)
		checkViewCaption(t, stream, 6, false, viewCaptionNoKeys)
		if !strings.Contains(stream, c.want) {
			t.Errorf("%v: report lacks %q: %q", c.args, c.want, stream)
		}
		if frames := viewFrames(t, stream); frames != 6 {
			t.Errorf("%v: %d frames given to the view, want 6", c.args, frames)
		}
		d.checkNoLeaks(t)
		d.close()
	}
}

// A pseudo-terminal that reports 0x0 (stty size: 0 0) still shows the
// cube: the view takes it to be 80x24 and draws there, instead of keeping
// an empty alternate screen for the whole run.
func TestTerminalViewOnAZeroSizedTerminal(t *testing.T) {
	t.Setenv("COLUMNS", "")
	t.Setenv("LINES", "")
	d := newTestDevice(t, sim.Options{})
	term := openPTY(t, 0, 0)
	var errb bytes.Buffer
	e := &env{stdout: term.slave, stderr: &errb, driDir: t.TempDir(), openSim: d.opener()}
	if code := run(context.Background(), []string{"-device", "sim", "-frames", "3"}, e); code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	stream := term.output(t, "bytes per frame drawn")
	var frames, drawn int
	i := strings.Index(stream, "terminal view: ")
	if i < 0 {
		t.Fatalf("no terminal view line: %q", stream)
	}
	if _, err := fmt.Sscanf(stream[i:], "terminal view: %d frames, %d drawn", &frames, &drawn); err != nil || frames != 3 || drawn < 1 {
		t.Errorf("%q: %d frames, %d drawn (%v); want 3 given to the view and at least 1 drawn", stream[i:], frames, drawn, err)
	}
	d.checkNoLeaks(t)
}

// SIGTERM and SIGINT (Ctrl-C; in raw mode the keyboard reader raises
// it) in the middle of a run with the view: the terminal is put back, the
// report follows on the normal screen, and the program exits with 128 +
// the signal's number. The test checks the order of these events, not
// how many frames the loop drew before it saw the signal: that depends
// on how fast the signal's goroutine runs beside the loop, which on a
// busy machine may be many frames later.
func TestTerminalViewSignals(t *testing.T) {
	t.Setenv("COLORTERM", "truecolor")
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			d := newTestDevice(t, sim.Options{})
			term := openPTY(t, 80, 25)
			var errb bytes.Buffer
			e := &env{stdout: term.slave, stderr: &errb, driDir: t.TempDir(), openSim: d.opener()}
			e.afterFrame = func(k uint64) {
				if k == 4 {
					syscall.Kill(os.Getpid(), sig)
				}
			}
			code := run(context.Background(), []string{"-device", "sim"}, e)
			if want := 128 + int(sig); code != want {
				t.Fatalf("exit %d, want %d; stderr %q", code, want, errb.String())
			}
			if !strings.Contains(errb.String(), sig.String()) {
				t.Errorf("stderr does not name the signal: %q", errb.String())
			}
			stream := term.output(t, "terminal view: ")
			// Frames 0 to 4 were given to the view before the signal
			// was sent; then the view was closed once, and the report
			// came after it (checkViewCaption).
			if frames := viewFrames(t, stream); frames < 5 {
				t.Errorf("%d frames given to the view, want at least the 5 before the signal", frames)
			} else {
				checkViewCaption(t, stream, frames, true, viewCaptionNoKeys)
			}
			d.checkNoLeaks(t)
		})
	}
}

// No view when it cannot or must not draw: -view=false, -json (stdout is
// the report's), -dump, render-only runs, and stdout not a terminal.
func TestNoTerminalView(t *testing.T) {
	for _, args := range [][]string{
		{"-view=false"},
		{"-json"},
		{"-dump"},
		{"-vsync=false", "-mode", "320x240"},
	} {
		d := newTestDevice(t, sim.Options{})
		term := openPTY(t, 80, 25)
		var errb bytes.Buffer
		e := &env{stdout: term.slave, stderr: &errb, driDir: t.TempDir(), openSim: d.opener()}
		code := run(context.Background(), append([]string{"-device", "sim", "-frames", "2"}, args...), e)
		if code != exitOK {
			t.Fatalf("%v: exit %d, stderr %q", args, code, errb.String())
		}
		want := "Rendered"
		if args[0] == "-json" {
			want = `"device":"sim"`
		}
		if stream := term.output(t, want); strings.Contains(stream, enterAltScreen) || !strings.Contains(stream, want) {
			t.Errorf("%v: %q", args, stream[:min(len(stream), 200)])
		}
		d.close()
	}
	// A writer that is not a terminal: the plain report.
	d := newTestDevice(t, sim.Options{})
	r := runOn(t, d, "-device", "sim", "-frames", "2")
	if r.code != exitOK || !strings.HasPrefix(r.stdout, "Rendered 1 frames") || strings.Contains(r.stdout, "terminal view") {
		t.Errorf("exit %d, stdout %q", r.code, r.stdout)
	}
}

// The fallback notice of -device auto says where to look: in this
// terminal when the view will show the cube there.
func TestFallbackNoticeNamesTheView(t *testing.T) {
	d := newTestDevice(t, sim.Options{})
	term := openPTY(t, 80, 25)
	var errb bytes.Buffer
	e := &env{stdout: term.slave, stderr: &errb, driDir: t.TempDir(), openSim: d.opener()}
	if code := run(context.Background(), []string{"-frames", "2"}, e); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "running on the simulated device, whose display is shown in this terminal") {
		t.Errorf("notice %q", errb.String())
	}
}

// readGIF decodes an animation with the standard library.
func readGIF(t *testing.T, path string) *gif.GIF {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := gif.DecodeAll(f)
	if err != nil {
		t.Fatalf("%s does not decode as GIF: %v", path, err)
	}
	return g
}

// composite draws frames 0..k of an animation over each other as a player
// does with the "do not dispose" method: the frame picture after frame k.
func composite(g *gif.GIF, k int) *image.NRGBA {
	canvas := image.NewNRGBA(image.Rect(0, 0, g.Config.Width, g.Config.Height))
	for i := 0; i <= k; i++ {
		draw.Draw(canvas, g.Image[i].Bounds(), g.Image[i], g.Image[i].Bounds().Min, draw.Over)
	}
	return canvas
}

// shrink averages s×s blocks (rounding to nearest): what -record-scale s
// should store, before its 256-colour quantisation.
func shrink(img image.Image, s int) *image.NRGBA {
	b := img.Bounds()
	out := image.NewNRGBA(image.Rect(0, 0, b.Dx()/s, b.Dy()/s))
	for y := 0; y < b.Dy()/s; y++ {
		for x := 0; x < b.Dx()/s; x++ {
			var r, g, bl int
			for dy := 0; dy < s; dy++ {
				for dx := 0; dx < s; dx++ {
					c := color.NRGBAModel.Convert(img.At(b.Min.X+x*s+dx, b.Min.Y+y*s+dy)).(color.NRGBA)
					r, g, bl = r+int(c.R), g+int(c.G), bl+int(c.B)
				}
			}
			n := s * s
			out.SetNRGBA(x, y, color.NRGBA{uint8((r + n/2) / n), uint8((g + n/2) / n), uint8((bl + n/2) / n), 255})
		}
	}
	return out
}

// -record writes every frame as a GIF the standard library reads: the
// frame count asked for, the frames' size divided by -record-scale, and
// pictures that are the frames themselves (the first frame, and the last
// as a player composes it, against the run's own capture of them, within
// the GIF's 256-colour quantisation: 99 % of pixels within 8 levels).
func TestRecordGIF(t *testing.T) {
	for _, c := range []struct {
		name          string
		args          []string
		frames, scale int
		w, h          int
	}{
		{"render_only", []string{"-vsync=false", "-mode", "320x240", "-frames", "7"}, 7, 1, 320, 240},
		{"presented_scaled", []string{"-mode", "640x480", "-frames", "5"}, 5, 4, 160, 120},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := newTestDevice(t, sim.Options{})
			dir := t.TempDir()
			anim, first, last := filepath.Join(dir, "cube.gif"), filepath.Join(dir, "first.png"), filepath.Join(dir, "last.png")
			// Two runs of the same frames (frame k is always the cube
			// turned by 4k°): one records and captures the last frame,
			// one captures the first.
			r := runOn(t, d, append([]string{"-device", "sim", "-record", anim, "-record-scale", fmt.Sprint(c.scale), "-capture", last}, c.args...)...)
			if r.code != exitOK {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			r = runOn(t, d, append([]string{"-device", "sim", "-capture", first, "-capture-frame", "0"}, c.args...)...)
			if r.code != exitOK {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			g := readGIF(t, anim)
			if len(g.Image) != c.frames || g.Config.Width != c.w || g.Config.Height != c.h {
				t.Fatalf("%d frames of %dx%d, want %d of %dx%d", len(g.Image), g.Config.Width, g.Config.Height, c.frames, c.w, c.h)
			}
			if g.LoopCount != 0 {
				t.Errorf("loop count %d, want 0 (forever)", g.LoopCount)
			}
			for i, want := range map[int]string{0: first, c.frames - 1: last} {
				img, err := imgcmp.ReadPNG(want)
				if err != nil {
					t.Fatal(err)
				}
				res, err := imgcmp.Compare(composite(g, i), shrink(img, c.scale), 8)
				if err != nil {
					t.Fatal(err)
				}
				if res.FractionWithin() < 0.99 {
					t.Errorf("GIF frame %d against the capture: %v", i, res)
				}
			}
			d.checkNoLeaks(t)
		})
	}
}

// -record without -frames records one full turn: 90 frames of 4°, so the
// animation loops without a jump; an explicit -frames wins.
func TestRecordDefaultFrames(t *testing.T) {
	d := newTestDevice(t, sim.Options{})
	anim := filepath.Join(t.TempDir(), "turn.gif")
	r := runOn(t, d, "-device", "sim", "-vsync=false", "-mode", "64x48", "-record", anim)
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if g := readGIF(t, anim); len(g.Image) != 90 {
		t.Errorf("%d frames, want 90", len(g.Image))
	}
	// Readable by anyone, as a file os.Create makes (before the umask).
	if fi, err := os.Stat(anim); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("the animation's mode: %v %v", fi.Mode(), err)
	}
	if !strings.HasPrefix(r.stdout, "Rendered 89 frames") {
		t.Errorf("stdout %q", r.stdout)
	}
}

// A run that fails leaves no animation behind; one that q ends early
// keeps the frames it rendered.
func TestRecordOnFailureAndQuit(t *testing.T) {
	dir := t.TempDir()
	anim := filepath.Join(dir, "cube.gif")
	d := newTestDevice(t, sim.Options{})
	r := runOn(t, d, "-device", "sim", "-mode", "1234x567", "-record", anim)
	if r.code != exitError {
		t.Errorf("exit %d: %s", r.code, r.stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}

	ch := make(chan keys.Key, 1)
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, driDir: t.TempDir(), openSim: d.opener(), keys: ch}
	e.afterFrame = func(k uint64) {
		if k == 2 {
			ch <- keys.Quit
		}
	}
	if code := run(context.Background(), []string{"-device", "sim", "-mode", "640x480", "-record", anim, "-record-scale", "8"}, e); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if g := readGIF(t, anim); len(g.Image) != 3 {
		t.Errorf("%d frames, want 3", len(g.Image))
	}
}

// With the terminal view and -record the frame loop still allocates
// nothing per frame (the view's writer goroutine included).
func TestViewAndRecordAllocateNothing(t *testing.T) {
	t.Setenv("COLORTERM", "truecolor")
	d := newTestDevice(t, sim.Options{})
	// Discard what the program writes to the terminal: keeping it would
	// count the test's own growing buffer among the process's allocations.
	term := openPTYOutput(t, 80, 25, false)
	anim := filepath.Join(t.TempDir(), "cube.gif")
	if a := mallocsPerFrameOn(t, d, term.slave, 100, "-device", "sim", "-mode", "640x480", "-record", anim, "-record-scale", "2"); a >= 0.5 {
		t.Errorf("%.2f allocations per frame", a)
	}
}

// BenchmarkFrame measures what one frame of the program's loop costs the
// CPU at 640x480 on the simulated device (its GPU model included) with
// page flips on a virtual-time display, which never waits for a vblank:
// alone, with -record (the GIF encodes each frame before the next is
// drawn) and with the terminal view (which copies each frame; its own
// goroutine draws it).
func BenchmarkFrame(b *testing.B) {
	for _, c := range []struct {
		name string
		args []string
		term bool
	}{
		{"plain", nil, false},
		{"record", []string{"-record", filepath.Join(b.TempDir(), "cube.gif")}, false},
		{"record_half", []string{"-record", filepath.Join(b.TempDir(), "cube.gif"), "-record-scale", "2"}, false},
		{"view", nil, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			d := newTestDevice(b, sim.Options{})
			var stdout io.Writer = &bytes.Buffer{}
			if c.term {
				b.Setenv("COLORTERM", "truecolor")
				stdout = openPTYOutput(b, 120, 40, false).slave
			}
			var errb bytes.Buffer
			e := &env{stdout: stdout, stderr: &errb, driDir: b.TempDir(), openSim: d.opener()}
			e.afterFrame = func(k uint64) {
				if k == 0 {
					b.ResetTimer() // frame 0 sets the mode and warms up
				}
			}
			b.ReportAllocs()
			args := append([]string{"-device", "sim", "-mode", "640x480", "-frames", fmt.Sprint(b.N + 1)}, c.args...)
			if code := run(context.Background(), args, e); code != exitOK {
				b.Fatalf("exit %d: %s", code, errb.String())
			}
		})
	}
}
