package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vccube/vccube/cuberender"
	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/internal/imgcmp"
	"github.com/vccube/vccube/internal/simrig"
	"github.com/vccube/vccube/sim/gpu"
	"github.com/vccube/vccube/sim/hw/jobfile"
	"github.com/vccube/vccube/sim/mem"
	"github.com/vccube/vccube/simserve"
	"github.com/vccube/vccube/uapi"
)

// The server serves a client and, with -exit-when-idle, ends when it has
// gone; bad flags are refused with what to do.
func TestServeOneClient(t *testing.T) {
	stats := filepath.Join(t.TempDir(), "stats.jsonl")
	c, done := serve(t, "-mode", "640x480", "-only-mode", "-stats", stats)
	_, conn := simrig.FirstConnector(t, c)
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

// -mode serves any size the Pi can scan out, odd ones included, as the
// monitor's preferred mode at the rate asked.
func TestServeAnyMode(t *testing.T) {
	for _, tc := range []struct{ mode, want string }{
		{"123x45", "123x45@60"},
		{"1001x701@50", "1001x701@50"},
		{"1280x720@50", "1280x720@50"},
	} {
		c, done := serve(t, "-mode", tc.mode, "-only-mode")
		_, conn := simrig.FirstConnector(t, c)
		if len(conn.Modes) != 1 || conn.Modes[0].String() != tc.want {
			t.Errorf("-mode %s -only-mode: the connector offers %v, want %s alone", tc.mode, conn.Modes, tc.want)
		}
		c.Close()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// serve runs vc4serve with -dir (a directory of the test's),
// -exit-when-idle, -quiet and args, and returns a client of it once it
// serves (runServing says when) and the channel of its result.
func serve(t *testing.T, args ...string) (*simserve.Client, chan error) {
	t.Helper()
	args = append([]string{"-dir", t.TempDir(), "-exit-when-idle", "-quiet"}, args...)
	done := make(chan error, 1)
	serving := make(chan struct{})
	go func() { done <- runServing(args, func() { close(serving) }) }()
	select {
	case <-serving:
	case err := <-done:
		t.Fatalf("vc4serve %v ended before it served: %v", args, err)
	}
	c, err := simserve.Dial(args[1], simserve.PrimaryMinor)
	if err != nil {
		t.Fatal(err)
	}
	return c, done
}

func TestFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "-dir is required"},
		{[]string{"-dir", t.TempDir(), "stray"}, "unexpected argument"},
		{[]string{"-dir", t.TempDir(), "-mode", "4000x45"}, "1 to 2048"},
		{[]string{"-dir", t.TempDir(), "-mode", "2048x2048"}, "ask for 2048x2048@35 or less"},
		{[]string{"-dir", t.TempDir(), "-mode", "640x480i"}, "interlaced"},
		{[]string{"-dir", t.TempDir(), "-mode", "640"}, "WIDTHxHEIGHT"},
		{[]string{"-dir", t.TempDir(), "-clock", "fast"}, "virtual or real"},
		{[]string{"-dir", t.TempDir(), "-faults", "hang"}, "-faults: fault \"hang\": no such fault; the faults are:"},
		{[]string{"-dir", t.TempDir(), "-faults", "late-by=1s"}, "needs late-at=N"},
		{[]string{"-dir", t.TempDir(), "-only-mode"}, "needs -mode"},
		{[]string{"-dir", t.TempDir(), "-capture-frames", "x"}, "not a frame number"},
		{[]string{"-dir", t.TempDir(), "-capture-frames", "1,2", "-capture", "f.png"}, "%d"},
		{[]string{"-dir", t.TempDir(), "-record-jobs", "0"}, "not a job number (1 or more)"},
		{[]string{"-dir", t.TempDir(), "-record-jobs", "1,2", "-record", "job.vc4job"}, "%d"},
		{[]string{"-dir", t.TempDir(), "-record-jobs", "all", "-record", "job.vc4job"}, "%d"},
	} {
		err := run(c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error saying %q", c.args, err, c.want)
		}
		if !errors.As(err, new(usageError)) {
			t.Errorf("%v: %v is not a usage error (exit status 2)", c.args, err)
		}
	}
}

// -record-jobs saves the chosen job as the GPU saw it: the file loads and
// runs on another GPU model to the same picture; a job that never ran is
// an error when the server ends.
func TestRecordJobs(t *testing.T) {
	serve640 := func(args ...string) (*simserve.Client, chan error) {
		return serve(t, append([]string{"-mode", "640x480"}, args...)...)
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
	c, done := serve640("-record-jobs", "1", "-record", path)
	r, err := cuberender.New(c, cuberender.Options{Width: 64, Height: 48, Buffers: 1})
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

	c, done = serve640("-record-jobs", "5", "-record", filepath.Join(t.TempDir(), "x.vc4job"))
	c.Close()
	if err := wait(done); err == nil || !strings.Contains(err.Error(), "job 5 never ran") {
		t.Errorf("recording a job that never ran: %v, want an error saying so", err)
	}
}

// A 16-bit framebuffer (kmscube -f RG16) on a mode of odd size is
// captured as the monitor shows it: each channel widened by repeating its
// high bits (doc/mesa-on-sim.md#scanout-colour).
func TestCaptureRG16OddMode(t *testing.T) {
	shot := filepath.Join(t.TempDir(), "frame.png")
	c, done := serve(t, "-mode", "123x45", "-capture-frames", "0", "-capture", shot, "-modeset-frame")
	res, cn := simrig.FirstConnector(t, c)
	m := cn.Modes[0]
	db, err := drm.CreateDumb(c, uint32(m.Hdisplay), uint32(m.Vdisplay), 16)
	if err != nil {
		t.Fatal(err)
	}
	off, err := drm.MapDumb(c, db.Handle)
	if err != nil {
		t.Fatal(err)
	}
	pix, err := c.Mmap(off, int(db.Size), syscall.PROT_READ|syscall.PROT_WRITE)
	if err != nil {
		t.Fatal(err)
	}
	// RG16, [15:0] R:G:B 5:6:5: the pixel (x, y) is red x%32, green
	// y, blue 31.
	for y := 0; y < int(m.Vdisplay); y++ {
		for x := 0; x < int(m.Hdisplay); x++ {
			v := uint16(x%32)<<11 | uint16(y)<<5 | 31
			o := y*int(db.Pitch) + 2*x
			pix[o], pix[o+1] = byte(v), byte(v>>8)
		}
	}
	fb, err := drm.AddFramebuffer(c, uint32(m.Hdisplay), uint32(m.Vdisplay), uapi.FormatRGB565, db.Handle, db.Pitch, uapi.FormatModLinear)
	if err != nil {
		t.Fatal(err)
	}
	if err := drm.SetCrtc(c, res.CRTCs[0], fb, 0, 0, []uint32{cn.ID}, &m); err != nil {
		t.Fatal(err)
	}
	if err := c.Munmap(pix); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	img := imgcmp.MustReadPNG(t, shot)
	if b := img.Bounds(); b.Dx() != 123 || b.Dy() != 45 {
		t.Fatalf("the capture is %v, want 123x45", b)
	}
	for _, p := range [][2]int{{0, 0}, {122, 44}, {31, 7}, {64, 33}} {
		r5, g6 := uint32(p[0]%32), uint32(p[1])
		want := [3]uint32{r5<<3 | r5>>2, g6<<2 | g6>>4, 255}
		r, g, b, _ := img.At(p[0], p[1]).RGBA()
		if got := [3]uint32{r >> 8, g >> 8, b >> 8}; got != want {
			t.Errorf("pixel %v = %v, want %v", p, got, want)
		}
	}
}
