package present_test

import (
	"testing"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/display"
)

// A display unplugged in the middle of a run: the connector reports it
// at once (Connected, which does not probe), the page flips still
// complete as on vc4, and Close puts the console's picture back on the
// CRTC, the connector's status notwithstanding.
func TestUnpluggedMidRun(t *testing.T) {
	r, shown := stepped(t, rigOptions{console: true})
	d := openOn(t, r.conn)
	s := dumbChain(t, d, 2)
	present := func() {
		t.Helper()
		b, err := s.Acquire()
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Present(b); err != nil {
			t.Fatal(err)
		}
	}
	present()
	present()
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	if ok, err := d.Connected(); !ok || err != nil {
		t.Fatalf("Connected before the unplug: %v, %v", ok, err)
	}
	r.disp.Unplug()
	if ok, err := d.Connected(); ok || err != nil {
		t.Fatalf("Connected after the unplug: %v, %v", ok, err)
	}
	before := len(*shown)
	present()
	if err := s.Wait(); err != nil {
		t.Fatalf("a flip after the unplug: %v", err)
	}
	if len(*shown) != before+1 {
		t.Errorf("the display showed %d pictures after the unplug, want 1", len(*shown)-before)
	}
	// Connected allocates nothing once it has run.
	if a := testing.AllocsPerRun(20, func() { d.Connected() }); a != 0 {
		t.Errorf("Connected: %v allocations", a)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	r.checkRestored()
}

// Release gives an acquired buffer back unshown: the next Acquire hands it
// out again and the display never saw it.
func TestReleaseUnpresented(t *testing.T) {
	r, shown := stepped(t, rigOptions{})
	d := openOn(t, r.conn)
	s := dumbChain(t, d, 2)
	b, err := s.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Release(b); err != nil {
		t.Fatal(err)
	}
	if err := s.Release(b); err == nil {
		t.Error("a second Release of the same buffer succeeded")
	}
	again, err := s.Acquire()
	if err != nil || again != b {
		t.Fatalf("Acquire after Release: %v, %v; want the released buffer", again, err)
	}
	if err := s.Present(again); err != nil {
		t.Fatal(err)
	}
	if len(*shown) != 1 || (*shown)[0].FbID != b.FbID {
		t.Errorf("shown %+v", *shown)
	}
	_ = d.Close()
}

// Calls interrupted by a signal (sim.Faults.InterruptEachCall) are made
// again by drm.Restarting: a display opened, flipped and restored through
// it works as without the interruptions.
func TestInterruptedCallsAreRestarted(t *testing.T) {
	r, shown := stepped(t, rigOptions{faults: sim.Faults{InterruptEachCall: true}})
	r.conn.Conn = drm.Restarting(r.file)
	d := openOn(t, r.conn)
	s := dumbChain(t, d, 2)
	for i := 0; i < 4; i++ {
		b, err := s.Acquire()
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Present(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); len(*shown) != 4 || st.Completed != 3 || st.Missed != 0 {
		t.Errorf("%d pictures shown, stats %+v", len(*shown), st)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	// The CRTC was off before: it is off again.
	if c, err := drm.GetCrtc(r.conn, display.CrtcID); err != nil || c.ModeValid {
		t.Errorf("the CRTC after Close: %+v, %v", c, err)
	}
}
