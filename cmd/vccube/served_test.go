package main

import (
	"testing"

	"github.com/vccube/vccube/internal/simrig"
	"github.com/vccube/vccube/report"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/display"
	"github.com/vccube/vccube/simserve"
	"github.com/vccube/vccube/uapi"
)

// -device vc4serve:DIR renders on the device a vc4serve server serves, as
// the side-by-side benchmark runs it: the server's FrameStats sees every
// frame vccube flips, with its one submit.
func TestServedDevice(t *testing.T) {
	stats := simserve.NewFrameStats()
	o := sim.SystemOptions{Device: sim.Options{CMASize: 64 << 20}, Display: display.Options{OnFlip: stats.OnFlip}}
	stats.DeviceOptions(&o.Device)
	dir := simrig.Serve(t, simrig.System(t, o).Device, simserve.Options{}).Dir()

	r := runOn(t, nil, "-device", "vc4serve:"+dir, "-mode", "640x480", "-frames", "4", "-json")
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	rep, err := report.Parse([]byte(r.stdout))
	if err != nil {
		t.Fatalf("stdout is not the report: %v\n%s", err, r.stdout)
	}
	if rep.Device != "vc4serve:"+dir || rep.Frames != 3 {
		t.Errorf("report: device %q, %d frames", rep.Device, rep.Frames)
	}
	frames := stats.Frames()
	if len(frames) < 3 {
		t.Fatalf("the server saw %d frames, want 3", len(frames))
	}
	for _, f := range frames[:3] {
		if f.Submits != 1 || f.Jobs != 1 || f.Counters[uapi.PerfcntFEPValidQuads] == 0 {
			t.Errorf("%v: want one submit and one job that drew something", f)
		}
	}
	// A missing server is an error that says what to do.
	r = runOn(t, nil, "-device", "vc4serve:"+t.TempDir(), "-frames", "1")
	if r.code == exitOK {
		t.Errorf("no server: exit 0")
	}
}
