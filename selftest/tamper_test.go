package selftest

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"

	"github.com/vccube/vccube/cl/spec"
	q "github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// tampered is a simulated device with one deliberate fault on the device
// side, as a GPU that reads a bit of the job otherwise than the model
// would: it rewrites what its GPU is given (the bin CL, the uniform
// words) or what its perfmon reports. The model's side is untouched.
type tampered struct {
	uapi.Conn
	// binCL, if set, rewrites each submitted bin CL in place.
	binCL func(cl []byte)
	// uniforms, if set, rewrites each uniform stream's words in place
	// (texture BO indices included, which a rewrite must leave alone).
	uniforms func(words []uint32)
	// counters, if set, rewrites the perfmon's values after the kernel
	// wrote them.
	counters func(values []uint64)
	// textures, if set, rewrites the memory of each texture a submit
	// samples whose P0 and P1 words are a key, before the GPU reads it:
	// mem is the texture's BO and base the offset of its level 0 (P0's
	// base before relocation). As GPU that reads the bytes otherwise than
	// the model, it turns the bytes into what the model must read to see
	// what that GPU sees.
	textures map[[2]uint32]func(mem []byte, base int)

	// shaders, if set, rewrites the code of each shader BO as it is
	// created.
	shaders func(code []byte)

	sizes map[uint32]int // BO sizes by handle
}

func (t *tampered) Ioctl(req uapi.Request, arg unsafe.Pointer) error {
	if req == uapi.IoctlCreateShaderBO && t.shaders != nil {
		a := (*uapi.CreateShaderBO)(arg)
		t.shaders(uapi.UserSlice[byte](a.Data, int(a.Size)))
	}
	if req == uapi.IoctlSubmitCL {
		a := (*uapi.SubmitCL)(arg)
		if t.binCL != nil {
			t.binCL(uapi.UserSlice[byte](a.BinCL, int(a.BinCLSize)))
		}
		if t.textures != nil {
			if err := t.rewriteTextures(a); err != nil {
				return err
			}
		}
		if t.uniforms != nil {
			t.uniforms(uapi.UserSlice[uint32](a.Uniforms, int(a.UniformsSize/4)))
		}
	}
	err := t.Conn.Ioctl(req, arg)
	if err == nil && req == uapi.IoctlCreateBO {
		a := (*uapi.CreateBO)(arg)
		if t.sizes == nil {
			t.sizes = map[uint32]int{}
		}
		t.sizes[a.Handle] = int(a.Size)
	}
	if err == nil && req == uapi.IoctlPerfmonGetValues && t.counters != nil {
		a := (*uapi.PerfmonGetValues)(arg)
		t.counters(uapi.UserSlice[uint64](a.ValuesPtr, len(probeCounters)))
	}
	return err
}

// rewriteTextures applies t.textures to the textures a submit samples:
// in the probes' uniform streams a texture sample is its bo_handles
// index followed by its P0 and P1 words.
func (t *tampered) rewriteTextures(a *uapi.SubmitCL) error {
	words := uapi.UserSlice[uint32](a.Uniforms, int(a.UniformsSize/4))
	handles := uapi.UserSlice[uint32](a.BOHandles, int(a.BOHandleCount))
	done := map[uint32]bool{}
	for i := 1; i+1 < len(words); i++ {
		f := t.textures[[2]uint32{words[i], words[i+1]}]
		if f == nil || words[i-1] >= uint32(len(handles)) || done[handles[words[i-1]]] {
			continue
		}
		h := handles[words[i-1]]
		done[h] = true
		m := uapi.MmapBO{Handle: h}
		if err := t.Conn.Ioctl(uapi.IoctlMmapBO, unsafe.Pointer(&m)); err != nil {
			return err
		}
		size := (t.sizes[h] + 4095) &^ 4095 // the kernel's pages
		mem, err := t.Conn.Mmap(m.Offset, size, unix.PROT_READ|unix.PROT_WRITE)
		if err != nil {
			return err
		}
		f(mem, int(words[i]&^0xFFF))
		if err := t.Conn.Munmap(mem); err != nil {
			return err
		}
	}
	return nil
}

// textureKeys returns the P0 and P1 words of a job's textures, as
// tampered.textures takes them.
func textureKeys(t *testing.T, j *job) [][2]uint32 {
	var keys [][2]uint32
	for _, ts := range j.textures {
		_, p0, p1, err := ts.params()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, [2]uint32{p0, p1})
	}
	return keys
}

// probeNamed returns the probe called name.
func probeNamed(t *testing.T, name string) *Probe {
	t.Helper()
	for _, p := range Probes() {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no probe %s", name)
	return nil
}

// tamperedDevice returns a simulated device under test with the fault f
// (its Conn field is set here).
func tamperedDevice(t *testing.T, f *tampered) *device {
	t.Helper()
	d, err := openSim(1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.close() })
	f.Conn = d.conn
	d.conn = f
	d.name = "tampered sim"
	return d
}

// runTampered runs the named probes (all when names is empty) on a
// device with fault f against the model, as Run does.
func runTampered(t *testing.T, f *tampered, names ...string) (*Report, string) {
	t.Helper()
	model, err := openSim(3)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { model.close() })
	dut := tamperedDevice(t, f)
	var out bytes.Buffer
	rep := &Report{}
	for _, p := range Probes() {
		if len(names) > 0 && !contains(names, p.Name) {
			continue
		}
		row, _ := runProbe(p, dut, model, nil)
		rep.Rows = append(rep.Rows, row)
		if row.Differs {
			rep.Differ++
		}
		if row.CountersDiffer {
			rep.CountersDiffer++
		}
	}
	writeTable(&out, rep)
	return rep, out.String()
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// forEachPacket calls f with the offset of every packet of a bin CL the
// probes build (no inline data).
func forEachPacket(t *testing.T, b []byte, f func(op spec.Opcode, at int)) {
	for i := 0; i < len(b); {
		p := spec.Lookup(spec.Opcode(b[i]))
		if p == nil || p.Inline != spec.NoInline {
			t.Errorf("bin CL byte %d: opcode %d is not a plain packet", i, b[i])
			return
		}
		f(p.Op, i)
		i += p.Len
	}
}

// invertClockwise flips the clockwise bit of every CONFIGURATION_BITS
// packet: a GPU that reads the bit the other way round.
func invertClockwise(t *testing.T) func([]byte) {
	return func(b []byte) {
		forEachPacket(t, b, func(op spec.Opcode, at int) {
			if spec.Lookup(op).Name == "CONFIGURATION_BITS" {
				f := spec.Lookup(op).Field("clockwise")
				spec.PutBits(b[at+1:], f.Start, 1, spec.GetBits(b[at+1:], f.Start, 1)^1)
			}
		})
	}
}

// With the clockwise bit read the other way round on the device side,
// the cull probe's pixels differ and no other probe's do, although the
// reversed-primitive counter differs on every probe that draws triangles
// of both windings: the counters have their own column.
func TestClockwiseFaultShowsInOneProbe(t *testing.T) {
	rep, table := runTampered(t, &tampered{binCL: invertClockwise(t)})
	t.Logf("\n%s", table)
	counters := 0
	for _, r := range rep.Rows {
		if got, want := r.Differs, r.Probe.Name == "cull"; got != want {
			t.Errorf("%s: outputs differ %v, want %v (%s)", r.Probe.Name, got, want, r.Result)
		}
		if r.CountersDiffer {
			counters++
			if !strings.Contains(r.Counters, "PTB-primitives-discarded-reversed") {
				t.Errorf("%s: counters %s", r.Probe.Name, r.Counters)
			}
		}
	}
	if counters < 10 {
		t.Errorf("only %d probes' counters differ: the fault is not the one the test means", counters)
	}
}

// A device whose counters alone count otherwise (here every non-zero
// counter one more) differs in the counters column only: Run's table says
// "same" for the outputs, keeps within its width, lists the counters
// below it, and the bundle holds them.
func TestCountersHaveTheirOwnVerdict(t *testing.T) {
	var out bytes.Buffer
	f := &tampered{counters: func(v []uint64) {
		for i := range v {
			if v[i] != 0 {
				v[i]++
			}
		}
	}}
	dut := tamperedDevice(t, f)
	rep, err := runAgainstModel(context.Background(), Config{Out: &out, Bundle: t.TempDir() + "/b.tar.gz", Probes: []string{"cull", "z-test", "tex-RGBA8888"}}, dut)
	t.Logf("\n%s", out.String())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Differ != 0 || rep.CountersDiffer != 3 || rep.Bundle == "" {
		t.Fatalf("%d differ, %d in counters, bundle %q", rep.Differ, rep.CountersDiffer, rep.Bundle)
	}
	for _, r := range rep.Rows {
		if r.Result != "same" || r.Reference != "" && r.Reference != "same" || !strings.HasPrefix(r.Counters, "DIFFERS: ") {
			t.Errorf("%s: %q, counters %q, reference %q", r.Probe.Name, r.Result, r.Counters, r.Reference)
		}
	}
	checkWidth(t, out.String())
	if !strings.Contains(out.String(), "  cull, counters: FEP-valid-primitives-rendered-pixels ") {
		t.Error("the counters are not listed below the table")
	}
	if !strings.Contains(out.String(), "3 probes: 3 agree, 0 differ, 0 not compared; counters: 0 agree, 3 differ") {
		t.Error("the summary does not count the counters apart")
	}
}

// checkWidth fails if a line from the title to the summary (the table
// and the differences below it included) is wider than tableWidth.
func checkWidth(t *testing.T, out string) {
	t.Helper()
	table := false
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "vccube self-test: ") {
			table = true
		}
		if table && utf8.RuneCountInString(l) > tableWidth {
			t.Errorf("a line of %d columns: %s", utf8.RuneCountInString(l), l)
		}
		if strings.Contains(l, " probes: ") {
			break
		}
	}
	if !table {
		t.Error("no table")
	}
}

// The bundle's table.txt gives each comparison once, under its name.
func TestBundleTableNamesEachComparison(t *testing.T) {
	rep := &Report{Rows: []Row{{Probe: Probes()[0], Result: "DIFFERS: colour: 1 of 8192 px", Counters: "same", Reference: "same"}}}
	var b bytes.Buffer
	writeTable(&b, rep)
	got := b.String()
	if strings.Count(got, "1 of 8192 px") != 1 || !strings.Contains(got, "counters against the model: same") {
		t.Errorf("table.txt:\n%s", got)
	}
}

// doubleClipperScale doubles CLIPPER_XY_SCALING: the clipper's guard
// band, which it computes in clip space from the scale, becomes half as
// wide in pixels, as on a GPU whose guard band is ±1024 pixels (and the
// clipped vertices land twice as far out).
func doubleClipperScale(t *testing.T) func([]byte) {
	return func(b []byte) {
		forEachPacket(t, b, func(op spec.Opcode, at int) {
			if p := spec.Lookup(op); p.Name == "CLIPPER_XY_SCALING" {
				for _, name := range []string{"half_width", "half_height"} {
					f := p.Field(name)
					v := math.Float32frombits(uint32(spec.GetBits(b[at+1:], f.Start, 32)))
					spec.PutBits(b[at+1:], f.Start, 32, uint64(math.Float32bits(2*v)))
				}
			}
		})
	}
}

// The guard-band probe's slivers to 2100 and 4000 pixels are clipped,
// those to 1100 and 1900 are not (4 + 8 = 12); with a guard band half as
// wide on the device side all fifteen are, and the counters column says
// so.
func TestGuardBandProbe(t *testing.T) {
	_, out := runProbeOnSim(t, "guard-band")
	found := false
	for _, c := range out.counters {
		if c.event == uapi.PerfcntPLBPrimsNeedClipping {
			found = true
			if c.value != 12 {
				t.Errorf("%s = %d, want 12", uapi.PerfcntName(c.event), c.value)
			}
		}
	}
	if !found {
		t.Fatal("no clipping counter")
	}
	rep, _ := runTampered(t, &tampered{binCL: doubleClipperScale(t)}, "guard-band")
	r := rep.Rows[0]
	t.Logf("on the faulty device: %s; counters %s", r.Result, r.Counters)
	if !r.CountersDiffer || !strings.Contains(r.Counters, "PTB-primitives-need-clipping 15 vs 12") {
		t.Errorf("counters: %s", r.Counters)
	}
}

// halvesAgree runs a ports probe on the simulated device and checks that
// its two 64-pixel halves agree pixel for pixel and draw at least 1000
// pixels.
func halvesAgree(t *testing.T, probe string) {
	t.Helper()
	j, out := runProbeOnSim(t, probe)
	drawn := 0
	for y := 0; y < j.height; y++ {
		for x := 0; x < 64; x++ {
			l, r := out.colour.pix[y*128+x], out.colour.pix[y*128+64+x]
			if l != r {
				t.Fatalf("(%d,%d): both ports %#08x, one port %#08x", x, y, l, r)
			}
			if l != 0 {
				drawn++
			}
		}
	}
	if drawn < 1000 {
		t.Fatalf("only %d pixels drawn", drawn)
	}
}

// The varying-ports probe's halves agree (one pop for both ports); on a
// device that pops one varying for each port, as if the instruction read
// them one after the other, the left half differs.
func TestVaryingPortsProbe(t *testing.T) {
	halvesAgree(t, "varying-ports")
	var a q.Asm
	a.I(q.Mov(q.R0, q.Vary))
	a.I(q.FAdd(q.R0, q.R0, q.Vary))
	a.I(q.Mov(q.TLBColourAll, q.R0))
	fsEnd(&a)
	twoPops := q.Bytes(a.MustAssemble())
	both := q.Bytes(fsVaryBothPorts.code)
	differsOn(t, "varying-ports", &tampered{shaders: func(code []byte) {
		if bytes.Equal(code, both) {
			copy(code, twoPops)
		}
	}})
}

// The vpm-ports probe's halves agree (one pop for both ports); on a
// device whose vertex shader pops a word for each port, as if it read
// them one after the other, the left half differs.
func TestVPMPortsProbe(t *testing.T) {
	halvesAgree(t, "vpm-ports")
	// The two-pop reading, in as many instructions: the patched
	// instruction and the read after it become a read into r0 and an add
	// of the next word, so varying 0 is v0 + v1 (and varying 1 is never
	// written).
	two := append([]uint64(nil), vsVPMBothPorts.code...)
	for i, w := range two {
		if in := q.Decode(w); in.IsALU() && in.RaddrA == q.RVPM && in.RaddrB == q.RVPM {
			var a q.Asm
			a.I(q.Mov(q.R0, q.VPM))
			a.I(q.FAdd(q.VPM, q.R0, q.VPM))
			copy(two[i:], a.MustAssemble())
			break
		}
	}
	both := q.Bytes(vsVPMBothPorts.code)
	twoPops := q.Bytes(two)
	differsOn(t, "vpm-ports", &tampered{shaders: func(code []byte) {
		if bytes.Equal(code, both) {
			copy(code, twoPops)
		}
	}})
}
