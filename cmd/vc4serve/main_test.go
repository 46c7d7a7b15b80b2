package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/simserve"
)

// The server serves a client and, with -exit-when-idle, ends when it has
// gone; bad flags are refused with what to do.
func TestServeOneClient(t *testing.T) {
	dir := t.TempDir()
	done := make(chan error, 1)
	stats := filepath.Join(t.TempDir(), "stats.jsonl")
	go func() {
		done <- run([]string{"-dir", dir, "-mode", "640x480", "-only-mode", "-stats", stats, "-exit-when-idle", "-quiet"})
	}()
	var c *simserve.Client
	var err error
	for i := 0; i < 500; i++ {
		if c, err = simserve.Dial(dir, simserve.PrimaryMinor); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	res, err := drm.GetResources(c)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := drm.GetConnector(c, res.Connectors[0])
	if err != nil {
		t.Fatal(err)
	}
	if m := conn.Modes[0]; m.Hdisplay != 640 || m.Vdisplay != 480 {
		t.Errorf("preferred mode %dx%d, want 640x480", m.Hdisplay, m.Vdisplay)
	}
	// -only-mode: the monitor offers that mode alone (glmark2 takes the
	// largest).
	if len(conn.Modes) != 1 {
		t.Errorf("%d modes, want 640x480 alone", len(conn.Modes))
	}
	c.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
		// No frame was shown: the stats file is there, empty.
		if b, err := os.ReadFile(stats); err != nil || len(b) != 0 {
			t.Errorf("-stats file: %q, %v; want it empty", b, err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("vc4serve -exit-when-idle did not exit after its client left")
	}
}

func TestFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "usage"},
		{[]string{"-dir", t.TempDir(), "-mode", "123x45"}, "no such mode"},
		{[]string{"-dir", t.TempDir(), "-clock", "fast"}, "virtual or real"},
		{[]string{"-dir", t.TempDir(), "-only-mode"}, "needs -mode"},
		{[]string{"-dir", t.TempDir(), "-capture-frames", "x"}, "not a frame number"},
		{[]string{"-dir", t.TempDir(), "-capture-frames", "1", "-capture", "f.png"}, "%d"},
	} {
		if err := run(c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error saying %q", c.args, err, c.want)
		}
	}
}
