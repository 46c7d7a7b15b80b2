package shaders

import (
	"flag"
	"fmt"
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
	// The Go models lay out exactly the words the programs write.
	if n := len(VertexOutput{}.Words()); n != VS.Output.Words() || n != len(VS.Outputs) {
		t.Errorf("VertexOutput has %d words, VS.Output %d", n, VS.Output.Words())
	}
	if n := len(CoordOutput{}.Words()); n != CS.Output.Words() || n != len(CS.Outputs) {
		t.Errorf("CoordOutput has %d words, CS.Output %d", n, CS.Output.Words())
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

// The FS light against vkcube's exact formula, over every texel value and
// a dense range of light values (finer near 0, where the curve bends).
func TestLightError(t *testing.T) {
	var lights []float32
	for i := 0; i <= 1000; i++ {
		lights = append(lights, float32(i)/1000)
	}
	for i := 1; i < 1000; i++ {
		lights = append(lights, float32(i)/100000)
	}
	worst, sum, n := 0.0, 0.0, 0
	var worstAt string
	for _, L := range lights {
		f := LightFor(L)
		for c := 0; c < 256; c++ {
			e := math.Abs(float64(f.LitByte(uint8(c))) - ExactLit(uint8(c), float64(L)))
			sum += e
			n++
			if e > worst {
				worst = e
				worstAt = fmt.Sprintf("light %.5f, texel %d", L, c)
			}
		}
	}
	t.Logf("light error: max %.3f levels (%s), mean %.3f over %d texel×light pairs", worst, worstAt, sum/float64(n), n)
	if worst > 1.75 || sum/float64(n) > 0.4 {
		t.Errorf("light error max %.3f (%s) mean %.3f; want ≤ 1.75 and ≤ 0.4", worst, worstAt, sum/float64(n))
	}
	// The ends: full light reproduces the texel, no light gives black.
	full, dark := LightFor(1), LightFor(0)
	for c := 0; c < 256; c++ {
		if got := full.LitByte(uint8(c)); got != uint8(c) {
			t.Errorf("light 1, texel %d: %d", c, got)
		}
		if got := dark.LitByte(uint8(c)); got != 0 {
			t.Errorf("light 0, texel %d: %d", c, got)
		}
	}
	// Out-of-range light clamps.
	if LightFor(-0.5) != dark || LightFor(7) != full || LightFor(float32(math.NaN())) != dark {
		t.Error("light is not clamped to [0, 1] (NaN to 0)")
	}
}

// Hand-computed points of the exact formula (srgb(L·lin(c)) in levels).
func TestExactLit(t *testing.T) {
	cases := []struct {
		c     uint8
		light float64
		want  float64
	}{
		{255, 1, 255},
		{128, 1, 128},
		{255, 0.5, 255 * (1.055*math.Pow(0.5, 1/2.4) - 0.055)}, // 187.5
		{10, 0.5, 5},         // linear segments: 12.92·0.5·(10/255)/12.92·255
		{0, 0.9, 0},          //
		{255, 0.001, 3.2946}, // lit value 0.001 < 0.0031308: 12.92·0.001·255
	}
	for _, c := range cases {
		if got := ExactLit(c.c, c.light); math.Abs(got-c.want) > 1e-3 {
			t.Errorf("ExactLit(%d, %v) = %v, want %v", c.c, c.light, got, c.want)
		}
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
