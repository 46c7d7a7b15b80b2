package sim_test

import (
	"strings"
	"testing"
	"time"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/display"
	"github.com/vccube/vccube/sim/kernel"
	"github.com/vccube/vccube/uapi"
)

// Every knob of a fault list sets its field of the model's options, and
// nothing else.
func TestParseFaults(t *testing.T) {
	for _, tc := range []struct {
		list string
		want sim.FaultSpec
	}{
		{"", sim.FaultSpec{}},
		{"hang-at=3", sim.FaultSpec{Faults: sim.Faults{GPU: kernel.GPUFaults{HangAt: 3}}}},
		{"hang-from=1", sim.FaultSpec{Faults: sim.Faults{GPU: kernel.GPUFaults{HangFrom: 1}}}},
		{"stall-bin-at=4", sim.FaultSpec{Faults: sim.Faults{GPU: kernel.GPUFaults{StallBinAt: 4}}}},
		{"stall-bin-at=4,stall-bin-runs=2", sim.FaultSpec{Faults: sim.Faults{GPU: kernel.GPUFaults{StallBinAt: 4, StallBinRuns: 2}}}},
		{"late-at=5", sim.FaultSpec{Faults: sim.Faults{GPU: kernel.GPUFaults{LateAt: 5, LateBy: sim.DefaultLateBy}}}},
		{"late-by=300ms, late-at=5", sim.FaultSpec{Faults: sim.Faults{GPU: kernel.GPUFaults{LateAt: 5, LateBy: 300 * time.Millisecond}}}},
		{"eintr", sim.FaultSpec{Faults: sim.Faults{InterruptEachCall: true}}},
		{"cma-exhausted-at=7", sim.FaultSpec{Faults: sim.Faults{CMAExhaustedAt: 7}}},
		{"master-elsewhere", sim.FaultSpec{Faults: sim.Faults{MasterHeldElsewhere: true}}},
		{"unplugged", sim.FaultSpec{Unplugged: true}},
		{"unplug-after=30", sim.FaultSpec{UnplugAfter: 30}},
		{"hang-at=2,eintr,unplug-after=9", sim.FaultSpec{Faults: sim.Faults{InterruptEachCall: true, GPU: kernel.GPUFaults{HangAt: 2}}, UnplugAfter: 9}},
	} {
		got, err := sim.ParseFaults(tc.list)
		if err != nil || got != tc.want {
			t.Errorf("ParseFaults(%q) = %+v, %v; want %+v", tc.list, got, err, tc.want)
		}
	}
}

// A mistaken list is refused, saying what to write.
func TestParseFaultsRefuses(t *testing.T) {
	for _, tc := range []struct{ list, want string }{
		{"hang", "no such fault; the faults are:\n  hang-at=N"},
		{"hang-at", "say hang-at=N"},
		{"hang-at=0", "whole number from 1"},
		{"hang-at=x", "whole number from 1"},
		{"hang-at=-1", "whole number from 1"},
		{"eintr=1", "takes no value"},
		{"eintr,eintr", "given twice"},
		{"stall-bin-runs=2", "needs stall-bin-at=N"},
		{"late-by=1s", "needs late-at=N"},
		{"late-at=1,late-by=soon", "duration"},
		{"unplugged,unplug-after=3", "give one"},
		{"hang-at=1,", "no such fault"},
	} {
		_, err := sim.ParseFaults(tc.list)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseFaults(%q): %v, want an error saying %q", tc.list, err, tc.want)
		}
	}
}

// newFaultySystem makes a system with the fault list applied.
func newFaultySystem(t *testing.T, list string, o sim.SystemOptions) (*sim.System, *sim.File) {
	t.Helper()
	spec, err := sim.ParseFaults(list)
	if err != nil {
		t.Fatal(err)
	}
	o.Device.CMASize = 32 << 20
	spec.Apply(&o)
	s, err := sim.NewSystem(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	f, err := s.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return s, f
}

func connectorStatus(t *testing.T, c uapi.Conn) uapi.ConnectorStatus {
	t.Helper()
	cn, err := drm.GetConnector(c, display.ConnectorID)
	if err != nil {
		t.Fatal(err)
	}
	return cn.Status
}

// unplug-after=N pulls the monitor out after the N-th picture shown (the
// mode set's counts), and the display's own OnFlip still sees every
// picture; unplugged starts without a monitor.
func TestFaultSpecUnplug(t *testing.T) {
	flips := 0
	_, f := newFaultySystem(t, "unplug-after=2", sim.SystemOptions{Display: display.Options{OnFlip: func(display.Flip) { flips++ }}})
	cn, err := drm.GetConnector(f, display.ConnectorID)
	if err != nil {
		t.Fatal(err)
	}
	db, err := drm.CreateDumb(f, uint32(cn.Modes[0].Hdisplay), uint32(cn.Modes[0].Vdisplay), 32)
	if err != nil {
		t.Fatal(err)
	}
	fb, err := drm.AddFramebuffer(f, uint32(cn.Modes[0].Hdisplay), uint32(cn.Modes[0].Vdisplay), uapi.FormatXRGB8888, db.Handle, db.Pitch, uapi.FormatModLinear)
	if err != nil {
		t.Fatal(err)
	}
	if err := drm.SetCrtc(f, display.CrtcID, fb, 0, 0, []uint32{display.ConnectorID}, &cn.Modes[0]); err != nil {
		t.Fatal(err)
	}
	if st := connectorStatus(t, f); st != uapi.StatusConnected || flips != 1 {
		t.Fatalf("after the mode set (picture 1): connector status %v, %d flips seen; want connected, 1", st, flips)
	}
	if err := drm.PageFlip(f, &uapi.ModeCrtcPageFlip{CrtcID: display.CrtcID, FbID: fb}); err != nil {
		t.Fatal(err)
	}
	if st := connectorStatus(t, f); st != uapi.StatusDisconnected || flips != 2 {
		t.Errorf("after the page flip (picture 2): connector status %v, %d flips seen; want disconnected, 2", st, flips)
	}

	_, f = newFaultySystem(t, "unplugged", sim.SystemOptions{})
	if st := connectorStatus(t, f); st != uapi.StatusDisconnected {
		t.Errorf("unplugged: connector status %v", st)
	}
}

// The device's faults reach the device: another program holds master, and
// the CMA pool runs out at the allocation asked.
func TestFaultSpecDevice(t *testing.T) {
	_, f := newFaultySystem(t, "master-elsewhere", sim.SystemOptions{})
	if err := drm.SetMaster(f); err == nil {
		t.Error("master-elsewhere: SET_MASTER succeeded")
	}
	_, f = newFaultySystem(t, "cma-exhausted-at=2", sim.SystemOptions{})
	if _, err := drm.CreateDumb(f, 64, 64, 32); err != nil {
		t.Fatalf("the first allocation: %v", err)
	}
	if _, err := drm.CreateDumb(f, 64, 64, 32); err == nil {
		t.Error("cma-exhausted-at=2: the second allocation succeeded")
	}
}
