package jobfile

import (
	"bytes"
	"compress/gzip"
	"reflect"
	"strings"
	"testing"

	"github.com/vccube/vccube/sim/hw"
	"github.com/vccube/vccube/sim/mem"
)

// newPool is a small pool at the simulator's usual base, closed with the
// test.
func newPool(t *testing.T) *mem.Pool {
	t.Helper()
	p, err := mem.NewPool(mem.DefaultBase, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// sampleJob is a job with a read-only region, a writable one with a
// region nested inside it (a BO granted whole and as a sub-range) and
// patterned bytes in each.
func sampleJob(t *testing.T, p *mem.Pool) *hw.Job {
	t.Helper()
	base := p.Base()
	v := mem.NewView(p)
	code := mem.Region{Addr: base, Size: mem.PageSize}
	target := mem.Region{Addr: base + 4*mem.PageSize, Size: 3 * mem.PageSize}
	inner := mem.Region{Addr: target.Addr + mem.PageSize, Size: 16}
	v.Add(code, mem.Read, "shader code")
	v.Add(target, mem.Write, "render target")
	v.Add(inner, mem.Read, "texture inside the target")
	for i, b := range p.Bytes(code) {
		p.Bytes(code)[i] = byte(i*7) ^ b
	}
	for i := range p.Bytes(target) {
		p.Bytes(target)[i] = byte(i >> 3)
	}
	return &hw.Job{Mem: v, BinStart: base + 8, BinEnd: base + 40, RenderStart: base + 64, RenderEnd: base + 128}
}

func TestRoundTrip(t *testing.T) {
	p := newPool(t)
	j := sampleJob(t, p)
	rec, err := Capture(j)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Regions) != 3 || rec.Regions[2].Data != nil || rec.Regions[1].Data == nil {
		t.Fatalf("captured regions %+v: want three, the nested one without bytes", rec.Regions)
	}
	rec.Overflow = []mem.Region{{Addr: p.Base() + 10*mem.PageSize, Size: mem.PageSize}}
	var buf bytes.Buffer
	if err := rec.Write(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, rec) {
		t.Fatalf("read back %+v, wrote %+v", back, rec)
	}

	// Placed in another pool, the job has the same addresses, grants and
	// bytes; Reset undoes what a run wrote.
	q := newPool(t)
	rp, err := back.Place(q)
	if err != nil {
		t.Fatal(err)
	}
	if rp.Job.BinStart != j.BinStart || rp.Job.BinEnd != j.BinEnd || rp.Job.RenderStart != j.RenderStart || rp.Job.RenderEnd != j.RenderEnd {
		t.Errorf("placed job lists %+v, recorded %+v", rp.Job, j)
	}
	if !reflect.DeepEqual(rp.Job.Mem.Grants(), j.Mem.Grants()) {
		t.Errorf("placed grants %+v, recorded %+v", rp.Job.Mem.Grants(), j.Mem.Grants())
	}
	for _, g := range j.Mem.Grants() {
		if !bytes.Equal(q.Bytes(g.Region), p.Bytes(g.Region)) {
			t.Errorf("region %v: placed bytes differ from the recorded", g.Region)
		}
	}
	target := j.Mem.Grants()[1].Region
	q.Bytes(target)[5] ^= 0xFF
	if r, ok := rp.Job.Overflow(); !ok || r != rec.Overflow[0] {
		t.Errorf("first overflow: %v %v, want %v", r, ok, rec.Overflow[0])
	}
	if _, ok := rp.Job.Overflow(); ok {
		t.Error("a second overflow was handed out; the recorded job had one")
	}
	rp.Reset()
	if !bytes.Equal(q.Bytes(target), p.Bytes(target)) {
		t.Error("Reset did not put the recorded bytes back")
	}
	if r, ok := rp.Job.Overflow(); !ok || r != rec.Overflow[0] {
		t.Errorf("overflow after Reset: %v %v, want %v", r, ok, rec.Overflow[0])
	}
}

// A corrupt or truncated file is refused with a reason, never a panic or
// a huge allocation.
func TestReadRefusesBadFiles(t *testing.T) {
	p := newPool(t)
	rec, err := Capture(sampleJob(t, p))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := rec.Write(&buf); err != nil {
		t.Fatal(err)
	}
	raw := gunzip(t, buf.Bytes())
	regionSize := len(magic) + 5*4 + 4 // the first region's Size field
	cases := map[string][]byte{
		"not a job file":       []byte("PNG..."),
		"bad magic":            regzip(t, append([]byte("vc4job\x00\x09"), raw[len(magic):]...)),
		"truncated":            regzip(t, raw[:len(raw)-3]),
		"bad size":             regzip(t, patch(raw, regionSize, 0xFF, 0xFF, 0xFF, 0x7F)),
		"bytes after the job":  regzip(t, append(append([]byte(nil), raw...), 0)),
		"unexpected EOF":       regzip(t, raw[:len(magic)+10]),
		"no bytes, not inside": regzip(t, patch(raw, len(magic)+5*4+4+4+1+2+len("shader code"), 0)),
	}
	for name, b := range cases {
		if _, err := Read(bytes.NewReader(b)); err == nil {
			t.Errorf("%s: read without error", name)
		} else if !strings.HasPrefix(err.Error(), "jobfile: ") {
			t.Errorf("%s: error %q does not say where it comes from", name, err)
		}
	}
}

// A job whose regions lie outside the pool is refused.
func TestPlaceOutsidePool(t *testing.T) {
	rec := &Job{Regions: []Region{{Grant: mem.Grant{Region: mem.Region{Addr: 0x1000, Size: 16}, Access: mem.Read}, Data: make([]byte, 16)}}}
	if _, err := rec.Place(newPool(t)); err == nil || !strings.Contains(err.Error(), "outside the pool") {
		t.Errorf("Place: %v, want a region outside the pool refused", err)
	}
}

// stubGPU runs a job by asking for one overflow region and writing a byte.
type stubGPU struct{ overflow mem.Region }

func (s *stubGPU) Run(j *hw.Job) hw.Result {
	if j.Overflow != nil {
		s.overflow, _ = j.Overflow()
	}
	b, _ := j.Mem.Write(j.Mem.Grants()[1].Addr, 1, "stub")
	b[0] = 0xEE
	return hw.Result{}
}

// The recorder saves the chosen job as it was before it ran, with the
// overflow regions the kernel gave it, and runs every job.
func TestRecorder(t *testing.T) {
	p := newPool(t)
	dir := t.TempDir()
	stub := &stubGPU{}
	rc := &Recorder{GPU: stub, Path: func(n int) string {
		if n == 2 {
			return dir + "/two.vc4job"
		}
		return ""
	}}
	over := mem.Region{Addr: p.Base() + 12*mem.PageSize, Size: mem.PageSize}
	for i := 0; i < 3; i++ {
		j := sampleJob(t, p)
		j.Overflow = func() (mem.Region, bool) { return over, true }
		rc.Run(j)
	}
	if rc.Jobs() != 3 {
		t.Errorf("Jobs() = %d, want 3", rc.Jobs())
	}
	rec, err := Load(dir + "/two.vc4job")
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Overflow) != 1 || rec.Overflow[0] != over {
		t.Errorf("recorded overflow %v, want [%v]", rec.Overflow, over)
	}
	if rec.Regions[1].Data[0] == 0xEE {
		t.Error("the recording has the bytes after the job ran, not before")
	}
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := out.ReadFrom(zr); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func regzip(t *testing.T, raw []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(raw)
	zw.Close()
	return buf.Bytes()
}

// patch returns a copy of raw with bytes b written at off.
func patch(raw []byte, off int, b ...byte) []byte {
	out := append([]byte(nil), raw...)
	copy(out[off:], b)
	return out
}
