package drm_test

import (
	"bytes"
	"io"
	"syscall"
	"testing"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/drm/drmtest"
	"github.com/vccube/vccube/uapi"
)

// A traced GET_CAP records the name, the request, the argument before and
// after (the kernel filled in the value) and the result; a refused one
// records the errno; the trace reads back record by record.
func TestTrace(t *testing.T) {
	fake := drmtest.NewConn()
	drmtest.On(fake, uapi.IoctlGetCap, func(a *uapi.GetCap) error {
		if a.Capability != uapi.CapDumbBuffer {
			return syscall.EINVAL
		}
		a.Value = 1
		return nil
	})
	var log bytes.Buffer
	rec, err := drm.NewRecorder(&log, "drm test")
	if err != nil {
		t.Fatal(err)
	}
	c := rec.Trace(fake)
	if v, err := drm.GetCapability(c, uapi.CapDumbBuffer); err != nil || v != 1 {
		t.Fatalf("GetCapability through the trace: %d, %v", v, err)
	}
	if _, err := drm.GetCapability(c, 0x77); err == nil {
		t.Fatal("an unknown capability was not refused")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := rec.Err(); err != nil {
		t.Fatal(err)
	}

	r, err := drm.NewTraceReader(&log)
	if err != nil {
		t.Fatal(err)
	}
	if r.Header.Program != "drm test" || r.Header.Version != drm.TraceVersion {
		t.Errorf("header %+v", r.Header)
	}
	var recs []*drm.TraceRecord
	for {
		x, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, x)
	}
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3 (two ioctls and the close)", len(recs))
	}
	// struct drm_get_cap: u64 capability, u64 value (little-endian).
	g := recs[0]
	if g.Seq != 1 || g.Op != "ioctl" || g.Name != "DRM_IOCTL_GET_CAP" || g.Req != 0xc010640c || g.Errno != 0 {
		t.Errorf("record 1 = %+v", g)
	}
	if want := "01000000000000000000000000000000"; drm.Hex(g.In).String() != want {
		t.Errorf("in = %s, want %s", drm.Hex(g.In), want)
	}
	if want := "01000000000000000100000000000000"; drm.Hex(g.Out).String() != want {
		t.Errorf("out = %s, want %s", drm.Hex(g.Out), want)
	}
	if e := recs[1]; e.Errno != int(syscall.EINVAL) || e.Err != "EINVAL" {
		t.Errorf("record 2: errno %d %q, want EINVAL", e.Errno, e.Err)
	}
	if recs[2].Op != "close" {
		t.Errorf("record 3 is %q, want the close", recs[2].Op)
	}
}

// A file that is not a trace, or a trace of another version, is refused
// with a message that says so.
func TestTraceReaderRefuses(t *testing.T) {
	for _, in := range []string{"", "12.3 DRM_IOCTL_GET_CAP 0xc010640c in 01 out 01 = 0\n",
		`{"format":"vccube-trace","version":99}` + "\n", `{"format":"other","version":1}` + "\n"} {
		if _, err := drm.NewTraceReader(bytes.NewBufferString(in)); err == nil {
			t.Errorf("%q was read as a trace", in)
		}
	}
}
