package shaders

import (
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vccube/vccube/shaders/hazard"
)

var updateListings = flag.Bool("update-listings", false,
	"rewrite testdata/*.listing from the programs (review the diff line by line; see testdata/README.md)")

// Each program's disassembly is kept in a reviewed golden listing; a change
// to a program shows up as a diff here.
func TestGoldenListings(t *testing.T) {
	files := map[*Program]string{FS: "fragment.listing", VS: "vertex.listing", CS: "coordinate.listing"}
	for p, name := range files {
		path := filepath.Join("testdata", name)
		got := p.Listing()
		if *updateListings {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		if got != string(want) {
			t.Errorf("%s differs from %s. A program changed: review the listing below against the shader source "+
				"and testdata/README.md before updating it with -update-listings.\n%s", p.Name, path, got)
		}
	}
}

// Every program passes the hazard checker.
func TestHazardFree(t *testing.T) {
	for _, p := range Programs() {
		for _, v := range hazard.CheckWords(p.Code, p.Stage) {
			t.Errorf("%s: %v", p.Name, v)
		}
	}
}

// The shaded vertex formats, written out from AG Figures 10-12
// (doc/hardware.md#shaded-vertex-formats), and the record fields that go
// with them.
func TestInterface(t *testing.T) {
	if got := strings.Join(CS.Outputs, " "); got != "Xc Yc Zc Wc XsYs Zs 1/Wc" {
		t.Errorf("CS outputs %q", got)
	}
	if got := strings.Join(VS.Outputs, " "); got != "XsYs Zs 1/Wc s t" {
		t.Errorf("VS outputs %q", got)
	}
	if FS.Varyings != 2 || VS.Varyings != FS.Varyings || len(VS.Outputs) != 3+FS.Varyings {
		t.Errorf("varyings: FS %d, VS %d", FS.Varyings, VS.Varyings)
	}
	// The Go model lays out exactly the words the program writes.
	if n := len(VertexOutput{}.Words()); n != VS.Output.Words() || n != len(VS.Outputs) {
		t.Errorf("VertexOutput has %d words, VS.Output %d", n, VS.Output.Words())
	}
	if VS.AttributeSelect != 3 || VS.AttributeSize != 20 || VS.VPMReads != 5 {
		t.Errorf("VS attributes: select %#b size %d reads %d", VS.AttributeSelect, VS.AttributeSize, VS.VPMReads)
	}
	if CS.AttributeSelect != 1 || CS.AttributeSize != 12 || CS.VPMReads != 3 {
		t.Errorf("CS attributes: select %#b size %d reads %d", CS.AttributeSelect, CS.AttributeSize, CS.VPMReads)
	}
	// Each attribute word the VS/CS is given is read: the VPM reads cover
	// the selected arrays exactly (Mesa vc4_program.c emit_stub_vpm_read).
	for _, p := range []*Program{VS, CS} {
		bytes := 0
		for n, at := range Attributes {
			if p.AttributeSelect>>n&1 == 0 {
				continue
			}
			off := at.VSVPMOffset
			if p == CS {
				off = at.CSVPMOffset
			}
			if int(off) != bytes {
				t.Errorf("%s: %s at VPM offset %d, want %d", p.Name, at.Name, off, bytes)
			}
			bytes += at.Bytes
			if at.Bytes != 4*at.Components {
				t.Errorf("%s: %d bytes for %d floats", at.Name, at.Bytes, at.Components)
			}
		}
		if bytes != int(p.AttributeSize) || bytes != 4*p.VPMReads {
			t.Errorf("%s: %d attribute bytes, size %d, %d reads", p.Name, bytes, p.AttributeSize, p.VPMReads)
		}
		if len(p.Uniforms) != NumVertexUniforms || p.TextureSamples != 0 {
			t.Errorf("%s: %d uniforms, %d samples", p.Name, len(p.Uniforms), p.TextureSamples)
		}
	}
	if len(FS.Uniforms) != NumFragmentUniforms || FS.TextureSamples != 1 ||
		FS.Uniforms[FragmentUniformTexP0].Kind != UniformTexP0 || FS.Uniforms[FragmentUniformTexP1].Kind != UniformTexP1 {
		t.Errorf("FS uniforms %+v", FS.Uniforms)
	}
	for _, p := range Programs() {
		if p.Threaded {
			t.Errorf("%s is threaded; the record's flag bit 0 must be 1", p.Name)
		}
		if got := p.Bytes(); len(got) != 8*len(p.Code) || got[0] != byte(p.Code[0]) || got[4] != byte(p.Code[0]>>32) {
			t.Errorf("%s: BO bytes not low word first", p.Name)
		}
		for i, u := range p.Uniforms {
			if u.Name == "" || u.Meaning == "" {
				t.Errorf("%s: uniform %d undocumented", p.Name, i)
			}
		}
	}
	if VS.Uniforms[5].Name != "mvp[5]" || !strings.Contains(VS.Uniforms[5].Meaning, "column 1, row 1") {
		t.Errorf("mvp slot 5: %+v", VS.Uniforms[5])
	}
}

// The fill functions put each value in its slot and allocate nothing.
func TestFillUniforms(t *testing.T) {
	var mvp [16]float32
	for i := range mvp {
		mvp[i] = float32(i) + 0.5
	}
	var vu [NumVertexUniforms]uint32
	var fu [NumFragmentUniforms]uint32
	p := VertexParams{XScale16: 6400, YScale16: -4800, ZScale: 0.5, ZOffset: 0.25}
	fl := FaceLight{K1: 1, B1: 2, K3: 3, B3: 4, L: 5}
	if n := testing.AllocsPerRun(100, func() {
		FillVertexUniforms(&vu, &mvp, p)
		FillFragmentUniforms(&fu, 0x1000, 0x2000, fl)
		_ = LightFor(0.37)
	}); n != 0 {
		t.Errorf("fill allocates %v times", n)
	}
	if math.Float32frombits(vu[VertexUniformMVP+7]) != 7.5 || math.Float32frombits(vu[VertexUniformYScale]) != -4800 ||
		math.Float32frombits(vu[VertexUniformZOffset]) != 0.25 {
		t.Errorf("vertex uniforms %x", vu)
	}
	want := [NumFragmentUniforms]uint32{0x1000, 0x2000, 0x01010101, 0x02020202, 0x03030303, 0x04040404, 0x05050505}
	if fu != want {
		t.Errorf("fragment uniforms %x, want %x", fu, want)
	}
}

func BenchmarkLightFor(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = LightFor(float32(i%1000) / 1000)
	}
}

// The hazard check of the three programs, as the GPU model would run it
// on each program it is given.
func BenchmarkHazardCheckCube(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for _, p := range Programs() {
			if hazard.CheckWords(p.Code, p.Stage) != nil {
				b.Fatal("violation")
			}
		}
	}
}

// LightCache.For returns exactly LightFor's constants, on a first lookup,
// on a hit and after another value has taken the slot; it allocates
// nothing.
func TestLightCache(t *testing.T) {
	c := new(LightCache)
	var values []float32
	for i := 0; i <= 3000; i++ {
		values = append(values, float32(i)/3000) // more values than slots: collisions
	}
	values = append(values, -1, 2, float32(math.NaN()), float32(math.Inf(1)), 1e-30)
	for round := 0; round < 3; round++ {
		for _, v := range values {
			if got, want := c.For(v), LightFor(v); got != want {
				t.Fatalf("round %d: For(%v) = %+v, LightFor = %+v", round, v, got, want)
			}
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = c.For(0.37) }); n != 0 {
		t.Errorf("For allocates %v times", n)
	}
}
