package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vccube/vccube/cmd/vccube/internal/keys"
	"github.com/vccube/vccube/report"
	"github.com/vccube/vccube/sim"
	"golang.org/x/sys/unix"
)

// The hint a run prints when nothing showed its frames.
const unseenHint = "rendered one full turn (90 frames) and stopped; -record cube.gif or -capture cube.png saves it, " +
	"-frames N runs N frames (0: until stopped), -display /dev/dri/cardN shows it on a KMS card\n"

// A run whose frames nothing shows — stdout not a terminal, -view=false,
// or -vsync=false, with no flag saying what the run is for — renders one
// full turn, prints the report and ends with a one-line hint on stderr
// that says why and how to see the cube.
func TestUnseenRunIsOneTurn(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		pty  bool
		why  string
	}{
		{"stdout_not_a_terminal", nil, false, "vccube: stdout is not a terminal, so nothing shows the simulated display: "},
		{"view_off", []string{"-view=false"}, true, "vccube: -view=false keeps the simulated display out of the terminal: "},
		{"render_only", []string{"-vsync=false", "-mode", "160x120"}, false, "vccube: -vsync=false renders without showing: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := newTestDevice(t, sim.Options{})
			var out, errb bytes.Buffer
			e := &env{stdout: &out, stderr: &errb, driDir: t.TempDir(), openSim: d.opener()}
			var term *pty
			if c.pty {
				term = openPTY(t, 80, 25)
				e.stdout = term.slave
			}
			if code := run(context.Background(), append([]string{"-device", "sim"}, c.args...), e); code != exitOK {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			stdout := out.String()
			if term != nil {
				stdout = term.output(t, "Rendered")
			}
			if !strings.HasPrefix(stdout, "Rendered 89 frames in ") {
				t.Errorf("stdout %q, want the report of 90 frames", stdout)
			}
			if errb.String() != c.why+unseenHint {
				t.Errorf("stderr %q\nwant %q", errb.String(), c.why+unseenHint)
			}
			d.checkNoLeaks(t)
		})
	}
}

// A flag that says what the run is for keeps it as asked: -benchmark runs
// until stopped (here q after frame 100), with no hint. (The test
// device's display is not a terminal's: nothing shows its frames.)
func TestAskedRunIsNotLimited(t *testing.T) {
	d := newTestDevice(t, sim.Options{})
	ch := make(chan keys.Key, 1)
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, driDir: t.TempDir(), openSim: d.opener(), keys: ch}
	e.afterFrame = func(k uint64) {
		if k == 100 {
			ch <- keys.Quit
		}
	}
	if code := run(context.Background(), []string{"-device", "sim", "-benchmark"}, e); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	// (-benchmark's periodic lines may come first: the last report is
	// the whole run's. A frame the loaded machine drew slowly is said on
	// stderr, which is not a hint.)
	if !strings.Contains(out.String(), "Rendered 100 frames in ") || withoutSlowFrames(errb.String()) != "" {
		t.Errorf("stdout %q\nstderr %q", out.String(), errb.String())
	}
}

// A trace that cannot be written (a full disk: /dev/full answers every
// write with ENOSPC) fails the run with a message, as -capture and -record
// do, instead of exiting 0 with an empty file; its header is written when
// the file is opened, so this is said before any device is touched.
func TestTraceWriteErrorFails(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	want := "vccube: -trace: writing /dev/full failed (write /dev/full: no space left on device), so the trace is incomplete; " +
		"free some space or give -trace a file on another disk\n"
	r := runOn(t, nil, "-device", "sim", "-vsync=false", "-mode", "160x120", "-frames", "3", "-trace", "/dev/full")
	if r.code != exitError || r.stderr != want || r.stdout != "" {
		t.Errorf("exit %d\nstdout %q\nstderr %q\nwant   %q", r.code, r.stdout, r.stderr, want)
	}
}

// fullDisk lets the first n bytes through to w and answers every write
// after that with ENOSPC, as a disk that fills up during the run.
type fullDisk struct {
	w io.Writer
	n int64
}

func (d *fullDisk) Write(b []byte) (int, error) {
	if int64(len(b)) > d.n {
		k, _ := d.w.Write(b[:d.n])
		d.n = 0
		return k, &os.PathError{Op: "write", Path: "trace", Err: syscall.ENOSPC}
	}
	d.n -= int64(len(b))
	return d.w.Write(b)
}

// A trace to a regular file is written as FILE.partial and takes its name
// when the run ends; when the disk fills up during the run (or before the
// header is written) the run fails saying so and nothing is left: neither
// a partial file under the trace's name nor the FILE.partial. An older
// trace under the same name is gone either way (it is not this run's).
func TestTraceOnAFullDiskLeavesNothing(t *testing.T) {
	defer func(w func(*os.File) io.Writer) { traceWriter = w }(traceWriter)
	for _, c := range []struct {
		name  string
		bytes int64 // the disk's free space (the trace of frame 0 is about 360 kB, each later frame about 2 kB)
		want  string
	}{
		{"mid-run", 380_000, "vccube: -trace: writing %s failed (write trace: no space left on device), so no trace was kept; " +
			"free some space or give -trace a file on another disk\n"},
		{"header", 10, "vccube: -trace: writing %s failed (write trace: no space left on device), so no trace was kept; " +
			"free some space or give -trace a file on another disk\n"},
		{"room enough", 1 << 40, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			traceWriter = func(f *os.File) io.Writer { return &fullDisk{w: f, n: c.bytes} }
			dir := t.TempDir()
			trace := filepath.Join(dir, "run.jsonl")
			if err := os.WriteFile(trace, []byte("an older run's trace\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			d := newTestDevice(t, sim.Options{})
			var out, errb bytes.Buffer
			var during []string
			e := &env{stdout: &out, stderr: &errb, driDir: t.TempDir(), openSim: d.opener(),
				afterFrame: func(k uint64) {
					if k == 0 {
						during = names(t, dir)
					}
				}}
			code := run(context.Background(), []string{"-device", "sim", "-vsync=false", "-mode", "160x120", "-frames", "20", "-trace", trace}, e)
			left := names(t, dir)
			if c.want == "" {
				if code != exitOK || fmt.Sprint(during) != "[run.jsonl.partial]" || fmt.Sprint(left) != "[run.jsonl]" {
					t.Errorf("exit %d (%s); files during the run %v, after %v; want [run.jsonl.partial] and [run.jsonl]", code, errb.String(), during, left)
				}
				return
			}
			if want := fmt.Sprintf(c.want, trace); code != exitError || errb.String() != want {
				t.Errorf("exit %d\nstderr %q\nwant   %q", code, errb.String(), want)
			}
			if len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}
			if c.name == "mid-run" {
				if len(during) != 1 {
					t.Errorf("the disk filled before frame 0 was done: files then %v", during)
				}
				d.checkNoLeaks(t)
			}
		})
	}
}

// names lists the files in dir.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// -pipeline nv on the simulated device quotes what its kernel logged for
// the refused submit, instead of sending the user to dmesg.
func TestNVPipelineQuotesTheSimulatedKernel(t *testing.T) {
	d := newTestDevice(t, sim.Options{})
	r := runOn(t, d, "-device", "sim", "-pipeline", "nv")
	if r.code != exitError || strings.Contains(r.stderr, "dmesg") ||
		!strings.Contains(r.stderr, `The simulated kernel refused it and logged "EINVAL: 0x`) ||
		!strings.Contains(r.stderr, `: packet 65 invalid"`) {
		t.Errorf("exit %d\nstderr: %s", r.code, r.stderr)
	}
}

// Command-line mistakes are said in the user's terms, with what to give.
func TestUsageErrorMessages(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-frames", "-1"}, `vccube: invalid value "-1" for flag -frames: give a number of frames, 0 or more (0 runs until stopped) (vccube -help lists the flags)` + "\n"},
		{[]string{"-buffers", "two"}, `vccube: invalid value "two" for flag -buffers: give 2 (double buffering) or 3 (triple buffering) (vccube -help lists the flags)` + "\n"},
		{[]string{"-capture", "a.png", "-capture-frame", "x"}, `vccube: invalid value "x" for flag -capture-frame: give a frame number, 0 or more (frame 0 is the cube unturned; without -capture-frame, -capture writes the last frame) (vccube -help lists the flags)` + "\n"},
		{[]string{"-capture", "a.png", "-capture-frame", "-1"}, `vccube: invalid value "-1" for flag -capture-frame: give a frame number, 0 or more (frame 0 is the cube unturned; without -capture-frame, -capture writes the last frame) (vccube -help lists the flags)` + "\n"},
		{[]string{"-device", "foo"}, `vccube: -device "foo": give auto, sim or a DRM card such as /dev/dri/card0` + "\n"},
		// One limit, whichever the size and whether frames are shown.
		{[]string{"-mode", "65535x65535", "-vsync=false"}, "vccube: -mode 65535x65535: vccube draws frames of at most 4095x4095 pixels; give a smaller -mode\n"},
		{[]string{"-mode", "65536x480"}, "vccube: -mode 65536x480: vccube draws frames of at most 4095x4095 pixels; give a smaller -mode\n"},
		{[]string{"-mode", "640x4096@60"}, "vccube: -mode 640x4096@60: vccube draws frames of at most 4095x4095 pixels; give a smaller -mode\n"},
	} {
		var out, errb bytes.Buffer
		e := &env{stdout: &out, stderr: &errb, openSim: mustNotOpen(t)}
		if code := run(context.Background(), c.args, e); code != exitUsage || errb.String() != c.want {
			t.Errorf("%v: exit %d\nstderr %q\nwant   %q", c.args, code, errb.String(), c.want)
		}
	}
}

// -capture and -record say what they wrote.
func TestOutputsSayWhatTheyWrote(t *testing.T) {
	d := newTestDevice(t, sim.Options{})
	dir := t.TempDir()
	shot, anim := filepath.Join(dir, "shot.png"), filepath.Join(dir, "cube.gif")
	r := runOn(t, d, "-device", "sim", "-vsync=false", "-mode", "160x120", "-frames", "5", "-capture", shot, "-capture-frame", "3",
		"-record", anim, "-record-scale", "2")
	want := "vccube: wrote frame 3 (160x120) to " + shot + "\nvccube: wrote 5 frames (80x60) to " + anim + "\n"
	if r.code != exitOK || r.stderr != want {
		t.Errorf("exit %d\nstderr %q\nwant   %q", r.code, r.stderr, want)
	}
	// The last frame, by default.
	r = runOn(t, d, "-device", "sim", "-frames", "4", "-capture", shot)
	if want := "vccube: wrote frame 3 (640x480) to " + shot + "\n"; r.code != exitOK || r.stderr != want {
		t.Errorf("exit %d\nstderr %q\nwant   %q", r.code, r.stderr, want)
	}
}

// SIGTERM before -capture-frame K is reached: the run still ends with the
// signal's status, and says that the frame was not rendered and no PNG
// was written.
func TestSignalBeforeCaptureFrame(t *testing.T) {
	d := newTestDevice(t, sim.Options{})
	dir := t.TempDir()
	shot := filepath.Join(dir, "shot.png")
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, driDir: t.TempDir(), openSim: d.opener()}
	e.afterFrame = func(k uint64) {
		if k == 2 {
			syscall.Kill(os.Getpid(), syscall.SIGTERM)
		}
	}
	code := run(context.Background(), []string{"-device", "sim", "-capture", shot, "-capture-frame", "100000"}, e)
	if code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
	lines := strings.Split(strings.TrimSuffix(errb.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "vccube: -capture-frame 100000 was not rendered: the run stopped after ") ||
		!strings.Contains(lines[0], "so no PNG was written to "+shot) || !strings.Contains(lines[1], "terminated") {
		t.Errorf("stderr %q", errb.String())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
	d.checkNoLeaks(t)
}

// -json and -dump keep stdout for themselves, so with stdout a terminal
// the view stays off; they say so on stderr. The simulated display runs
// at 640x480 all the same: the mode does not depend on where stdout goes.
func TestJSONAndDumpSayTheViewIsOff(t *testing.T) {
	for _, c := range []struct {
		flag, want string
	}{
		{"-json", "vccube: -json keeps stdout for the report, so the terminal does not show the cube; the run ends after 3 frames and prints the report\n"},
		{"-dump", "vccube: -dump prints the first frame's control lists on stdout, so the terminal does not show the cube; the run ends after 3 frames\n"},
	} {
		d := newTestDevice(t, sim.Options{})
		term := openPTY(t, 80, 25)
		var errb bytes.Buffer
		e := &env{stdout: term.slave, stderr: &errb, driDir: t.TempDir(), openSim: d.opener()}
		if code := run(context.Background(), []string{"-device", "sim", "-frames", "3", c.flag}, e); code != exitOK {
			t.Fatalf("%s: exit %d: %s", c.flag, code, errb.String())
		}
		if errb.String() != c.want {
			t.Errorf("%s: stderr %q\nwant %q", c.flag, errb.String(), c.want)
		}
		if c.flag == "-json" {
			// The report is nested JSON, so a "}" comes before its end:
			// read until the whole of it has come through the terminal.
			var rep *report.Report
			var err error
			for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(time.Millisecond) {
				stream := term.output(t, "}")
				rep, err = report.Parse([]byte(strings.ReplaceAll(stream, "\r\n", "\n")))
				if err == nil || time.Now().After(deadline) {
					break
				}
			}
			if err != nil || rep.Width != 640 || rep.Height != 480 {
				t.Errorf("-json: %+v, %v; want 640x480", rep, err)
			}
		}
		d.close()
	}
	// Not a terminal: nothing to say.
	d := newTestDevice(t, sim.Options{})
	if r := runOn(t, d, "-device", "sim", "-frames", "2", "-json"); r.code != exitOK || r.stderr != "" {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// Ctrl-C typed on the keyboard in raw mode (the terminal no longer turns
// it into SIGINT) ends the run as SIGINT does: status 130, the terminal
// back in every setting as it was.
func TestCtrlCOnTheKeyboard(t *testing.T) {
	t.Setenv("COLORTERM", "truecolor")
	d := newTestDevice(t, sim.Options{})
	term := openPTY(t, 80, 25)
	before := term.termios(t)
	var errb bytes.Buffer
	e := &env{stdin: term.slave, stdout: term.slave, stderr: &errb, driDir: t.TempDir(), openSim: d.opener()}
	e.afterFrame = func(k uint64) {
		if k == 3 {
			if tio := term.termios(t); tio.Lflag&(unix.ISIG|unix.ICANON|unix.ECHO) != 0 {
				t.Error("the keyboard is not raw during the run")
			}
			term.master.Write([]byte{0x03})
		}
	}
	if code := run(context.Background(), []string{"-device", "sim"}, e); code != 128+int(syscall.SIGINT) {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	stream := term.output(t, "terminal view: ")
	checkView(t, stream, viewFrames(t, stream), true)
	checkTermiosRestored(t, before, term.termios(t))
	d.checkNoLeaks(t)
}

// checkTermiosRestored compares every setting raw mode changes.
func checkTermiosRestored(t *testing.T, before, after unix.Termios) {
	t.Helper()
	if after.Iflag != before.Iflag || after.Oflag != before.Oflag || after.Cflag != before.Cflag || after.Lflag != before.Lflag ||
		after.Cc != before.Cc {
		t.Errorf("terminal settings not restored:\nafter  %+v\nbefore %+v", after, before)
	}
}

// withoutSlowFrames is stderr without the lines saying that the simulated
// GPU drew a frame slowly (hangWatch.simulatedSlowFrame): they depend on
// the machine's load, not on the run.
func withoutSlowFrames(stderr string) string {
	var kept []string
	for _, l := range strings.SplitAfter(stderr, "\n") {
		if !strings.Contains(l, "the simulated GPU drew it slowly") {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "")
}
