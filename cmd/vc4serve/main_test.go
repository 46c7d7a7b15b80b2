package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/render"
	"github.com/vccube/vccube/sim/gpu"
	"github.com/vccube/vccube/sim/hw/jobfile"
	"github.com/vccube/vccube/sim/mem"
	"github.com/vccube/vccube/simserve"
)

// The server serves a client and, with -exit-when-idle, ends when it has
// gone; bad flags are refused with what to do.
func TestServeOneClient(t *testing.T) {
	dir := t.TempDir()
	done := make(chan error, 1)
	stats := filepath.Join(t.TempDir(), "stats.jsonl")
	serving := make(chan struct{})
	go func() {
		done <- runServing([]string{"-dir", dir, "-mode", "640x480", "-only-mode", "-stats", stats, "-exit-when-idle", "-quiet"},
			func() { close(serving) })
	}()
	select {
	case <-serving:
	case err := <-done:
		t.Fatalf("vc4serve ended before it served: %v", err)
	}
	c, err := simserve.Dial(dir, simserve.PrimaryMinor)
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
		{[]string{"-dir", t.TempDir(), "-capture-frames", "1,2", "-capture", "f.png"}, "%d"},
		{[]string{"-dir", t.TempDir(), "-record-jobs", "0"}, "not a job number (1 or more)"},
		{[]string{"-dir", t.TempDir(), "-record-jobs", "1,2", "-record", "job.vc4job"}, "%d"},
		{[]string{"-dir", t.TempDir(), "-record-jobs", "all", "-record", "job.vc4job"}, "%d"},
	} {
		if err := run(c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error saying %q", c.args, err, c.want)
		}
	}
}

// -record-jobs saves the chosen job as the GPU saw it: the file loads and
// runs on another GPU model to the same picture; a job that never ran is
// an error when the server ends.
func TestRecordJobs(t *testing.T) {
	serve := func(args ...string) (*simserve.Client, chan error) {
		dir := t.TempDir()
		done := make(chan error, 1)
		serving := make(chan struct{})
		go func() {
			done <- runServing(append([]string{"-dir", dir, "-mode", "640x480", "-exit-when-idle", "-quiet"}, args...),
				func() { close(serving) })
		}()
		select {
		case <-serving:
		case err := <-done:
			t.Fatalf("vc4serve ended before it served: %v", err)
		}
		c, err := simserve.Dial(dir, simserve.PrimaryMinor)
		if err != nil {
			t.Fatal(err)
		}
		return c, done
	}
	wait := func(done chan error) error {
		select {
		case err := <-done:
			return err
		case <-time.After(30 * time.Second):
			t.Fatal("vc4serve did not exit after its client left")
			return nil
		}
	}

	path := filepath.Join(t.TempDir(), "frame.vc4job")
	c, done := serve("-record-jobs", "1", "-record", path)
	r, err := render.New(c, render.Options{Width: 64, Height: 48, Buffers: 1})
	if err != nil {
		t.Fatal(err)
	}
	seq, err := r.Render(0, 30)
	if err == nil {
		err = r.Wait(seq)
	}
	if err != nil {
		t.Fatal(err)
	}
	pix, err := r.Pixels(0)
	if err != nil {
		t.Fatal(err)
	}
	want := append([]byte(nil), pix...) // the mapping goes with the renderer
	r.Close()
	c.Close()
	if err := wait(done); err != nil {
		t.Fatal(err)
	}
	j, err := jobfile.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := mem.NewPool(mem.DefaultBase, mem.DefaultSize)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	rp, err := j.Place(pool)
	if err != nil {
		t.Fatal(err)
	}
	g := gpu.New(gpu.Options{})
	defer g.Close()
	if res := g.Run(&rp.Job); res.Hung {
		t.Fatal(res.Reason)
	}
	var target *jobfile.Region
	for i := range j.Regions {
		if j.Regions[i].Name == "render target" {
			target = &j.Regions[i]
		}
	}
	if target == nil {
		t.Fatal("the recorded job has no render target")
	}
	got := pool.Bytes(target.Region)[:len(want)]
	if !bytes.Equal(got, want) {
		t.Error("the replayed job drew a different picture from the recorded one")
	}

	c, done = serve("-record-jobs", "5", "-record", filepath.Join(t.TempDir(), "x.vc4job"))
	c.Close()
	if err := wait(done); err == nil || !strings.Contains(err.Error(), "job 5 never ran") {
		t.Errorf("recording a job that never ran: %v, want an error saying so", err)
	}
}
