package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vccube/vccube/present"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/uapi"
)

func TestParseArgs(t *testing.T) {
	c, err := parseArgs(nil, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if c.device != "auto" || !c.vsync || !c.flipY || c.pipeline != "gl" || c.captureFrame != -1 || c.frames != 0 || c.buffers != 2 {
		t.Errorf("defaults %+v", c)
	}
	c, err = parseArgs([]string{"-device", "sim", "-mode", "1280x720@60", "-frames", "10", "-vsync=false", "-json",
		"-capture", "x.png", "-capture-frame", "9", "-flipy=false", "-pipeline", "nv"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if c.mode != (present.ModeSpec{Width: 1280, Height: 720, RefreshMilliHz: 60000}) || !c.benchmark || c.vsync || c.flipY ||
		c.captureFrame != 9 || c.pipeline != "nv" {
		t.Errorf("parsed %+v", c)
	}
	// -connector needs page flips and -dump a stdout without -json
	// (TestUsageErrors): parsed on their own.
	if c2, err := parseArgs([]string{"-connector", "HDMI-A-1", "-dump", "-buffers", "3"}, &bytes.Buffer{}); err != nil ||
		c2.connector != "HDMI-A-1" || !c2.dump || c2.buffers != 3 {
		t.Errorf("parsed %+v, %v", c2, err)
	}
	if w, h := c.renderOnlySize(); w != 1280 || h != 720 {
		t.Errorf("render-only size %dx%d", w, h)
	}
	if !c.view || c.record != "" || c.recordScale != 1 || c.recordFPS() != 60 {
		t.Errorf("view and record defaults %+v", c)
	}
}

// -record alone records one full turn (90 frames of 4°); -frames wins,
// even 0 (until stopped). The animation plays at -mode's refresh rate, or
// vkcube's 60 Hz.
func TestParseRecord(t *testing.T) {
	for _, c := range []struct {
		args   []string
		frames uint64
		fps    float64
	}{
		{[]string{"-record", "a.gif"}, 90, 60},
		{[]string{"-record", "A.GIF", "-frames", "30", "-record-scale", "3"}, 30, 60},
		{[]string{"-record", "a.gif", "-frames", "0"}, 0, 60},
		{[]string{"-record", "a.gif", "-mode", "1280x720@50"}, 90, 50},
		{[]string{"-record", "a.gif", "-mode", "1920x1080@59.94"}, 90, 59.94},
		{[]string{"-frames", "12"}, 12, 60},
	} {
		cfg, err := parseArgs(c.args, &bytes.Buffer{})
		if err != nil {
			t.Errorf("%v: %v", c.args, err)
			continue
		}
		if cfg.frames != c.frames || cfg.recordFPS() != c.fps {
			t.Errorf("%v: %d frames at %v fps, want %d at %v", c.args, cfg.frames, cfg.recordFPS(), c.frames, c.fps)
		}
	}
}

// A -dump run ends after the frame it dumps, unless -frames, -record or
// -capture-frame asks for more: without a limit it ran until stopped,
// unseen when stdout is a pipe.
func TestDumpRunEnds(t *testing.T) {
	for _, c := range []struct {
		args   []string
		frames uint64
	}{
		{[]string{"-dump"}, 1},
		{[]string{"-dump", "-vsync=false"}, 1},
		{[]string{"-dump", "-capture", "a.png", "-capture-frame", "4"}, 5},
		{[]string{"-dump", "-frames", "7"}, 7},
		{[]string{"-dump", "-frames", "0"}, 0},
		{[]string{"-dump", "-record", "a.gif"}, recordFrames},
	} {
		cfg, err := parseArgs(c.args, &bytes.Buffer{})
		if err != nil {
			t.Errorf("%v: %v", c.args, err)
			continue
		}
		if cfg.frames != c.frames {
			t.Errorf("%v: %d frames, want %d", c.args, cfg.frames, c.frames)
		}
	}
}

// Usage errors say what is wrong and exit with status 2, before anything is
// opened.
func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-mode", "big"}, "-mode \"big\""},
		{[]string{"-pipeline", "vulkan"}, "want gl or nv"},
		{[]string{"-capture-frame", "3"}, "needs -capture"},
		{[]string{"-capture", "a.png", "-frames", "5", "-capture-frame", "5"}, "never rendered"},
		{[]string{"-capture", "a.jpg"}, "name it FILE.png"},
		{[]string{"-frames", "-1"}, "invalid value"},
		// -1 is the default's inner value, not a frame: refused as
		// the other ranges are.
		{[]string{"-capture", "a.png", "-capture-frame", "-1"}, "give a frame number, 0 or more"},
		{[]string{"-capture", "a.png", "-capture-frame", "-2"}, "give a frame number, 0 or more"},
		{[]string{"-record", "a.png"}, "name it FILE.gif"},
		{[]string{"-record-scale", "2"}, "needs -record"},
		{[]string{"-record", "a.gif", "-record-scale", "0"}, "whole factor from 1 to 64"},
		{[]string{"-record", "a.gif", "-record-scale", "65"}, "whole factor from 1 to 64"},
		{[]string{"-record", "a.gif", "-capture", "a.png", "-capture-frame", "90"}, "never rendered with -frames 90"},
		{[]string{"-buffers", "4"}, "give 2 (double buffering) or 3"},
		{[]string{"-buffers", "1"}, "give 2 (double buffering) or 3"},
		{[]string{"-vsync=false", "-display", "/dev/dri/card1"}, "-display says how frames are shown"},
		{[]string{"-vsync=false", "-connector", "HDMI-A-1"}, "-vsync=false shows none"},
		{[]string{"-vsync=false", "-buffers", "3"}, "-buffers says how frames are shown"},
		{[]string{"-dump", "-json"}, "use one at a time"},
		{[]string{"stray"}, "unexpected argument"},
		{[]string{"-no-such-flag"}, "not defined"},
		{[]string{"-sim-faults", "hang"}, "-sim-faults: fault \"hang\": no such fault; the faults are:"},
		{[]string{"-sim-faults", "hang-at=0"}, "whole number from 1"},
		{[]string{"-sim-faults", "eintr", "-device", "/dev/dri/card0"}, "simulated device only, not /dev/dri/card0: use -device sim"},
		{[]string{"-sim-faults", "eintr", "-device", "vc4serve:/tmp/vc4"}, "vc4serve -dir /tmp/vc4 -faults eintr"},
		{[]string{"-replay", "t.jsonl", "-sim-faults", "eintr"}, "drop -sim-faults"},
	} {
		var out, errb bytes.Buffer
		e := &env{stdout: &out, stderr: &errb, openSim: mustNotOpen(t)}
		if code := run(context.Background(), c.args, e); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", c.args, code, exitUsage)
		}
		if !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: stderr %q lacks %q", c.args, errb.String(), c.want)
		}
	}
	var errb bytes.Buffer
	if code := run(context.Background(), []string{"-help"}, &env{stdout: &errb, stderr: &errb}); code != exitOK || !strings.Contains(errb.String(), "-capture-frame") {
		t.Errorf("-help: exit %d, %q", code, errb.String())
	}
}

// mustNotOpen is a simulated-device opener for runs that must fail before
// touching any device.
func mustNotOpen(t *testing.T) simOpener {
	return func(sim.FaultSpec) (uapi.Conn, error) {
		t.Helper()
		t.Error("the device was opened")
		return nil, os.ErrInvalid
	}
}

// A texture that cannot be read or decoded, and a capture path that cannot
// be written, are reported before any device is opened, with status 1.
func TestErrorsBeforeTheDevice(t *testing.T) {
	dir := t.TempDir()
	corrupt := filepath.Join(dir, "corrupt.png")
	if err := os.WriteFile(corrupt, []byte("\x89PNG\r\n\x1a\nnot really"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-texture", filepath.Join(dir, "missing.png")}, "texture file"},
		{[]string{"-texture", corrupt}, "texture file"},
		{[]string{"-capture", filepath.Join(dir, "no", "such", "dir", "x.png")}, "cannot write the capture"},
		{[]string{"-capture", dir + "/"}, "name it FILE.png"},
		{[]string{"-record", filepath.Join(dir, "no", "such", "dir", "x.gif")}, "cannot write the animation"},
		{[]string{"-cpuprofile", filepath.Join(dir, "no", "such", "dir", "cpu.pprof")}, "-cpuprofile"},
		{[]string{"-memprofile", filepath.Join(dir, "no", "such", "dir", "mem.pprof")}, "-memprofile"},
	} {
		var out, errb bytes.Buffer
		e := &env{stdout: &out, stderr: &errb, openSim: mustNotOpen(t), driDir: dir}
		code := run(context.Background(), append([]string{"-device", "sim"}, c.args...), e)
		if code == exitOK || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want failure mentioning %q", c.args, code, errb.String(), c.want)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("files left behind: %v", entries)
	}
}

// A capture path that is a directory is refused when the capture file is
// prepared.
func TestCaptureIntoDirectory(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "shot.png")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := newCaptureFile(sub); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("got %v", err)
	}
}
