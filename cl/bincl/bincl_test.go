package bincl

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/vccube/vccube/cl"
)

// CubePrefix is the 800×600 frame state used by the cube tests: back faces
// culled and the clockwise bit set, as Mesa sets it for GL's default CCW
// front face (front faces then have negative signed area in y-down pixel
// space; see the bit's doc in cl/spec), LEQUAL with Z writes and early Z, viewport centre (400, 300), clipper half-size
// (400, −300) px in 1/16 px with y flipped, depth scale = offset = 0.5.
func cubePrefix() *Prefix {
	x, y, err := Tiles(800, 600, false)
	if err != nil {
		panic(err)
	}
	return &Prefix{
		Binning:             cl.TileBinningModeConfig{WidthInTiles: x, HeightInTiles: y},
		PrimitiveListFormat: &cl.PrimitiveListFormat{Type: cl.PrimitiveListTypeTriangles, DataType: cl.PrimitiveListData16BitIndex},
		ClipWindow:          &cl.ClipWindow{Width: 800, Height: 600},
		Configuration: &cl.ConfigurationBits{EnableForwardFacing: true, Clockwise: true,
			DepthFunc: cl.DepthFuncLessEqual, ZUpdates: true, EarlyZ: true, EarlyZUpdates: true},
		ViewportOffset: &cl.ViewportOffset{X: cl.SubpixelOf(400), Y: cl.SubpixelOf(300)},
		ClipperXY:      &cl.ClipperXYScaling{HalfWidth: 400 * 16, HalfHeight: -300 * 16},
		ClipperZ:       &cl.ClipperZScaling{Scale: 0.5, Offset: 0.5},
	}
}

func buildCube(b *Builder, p *Prefix) {
	b.Reset()
	b.Begin(p)
	for face := uint32(0); face < 6; face++ {
		b.Draw(cl.GLShaderState{NumAttributeArrays: 1},
			cl.GLArrayPrimitive{Mode: cl.PrimitiveModeTriangles, Length: 6, First: 6 * face})
	}
	b.End()
}

// The whole cube list, byte by byte from doc/kernel.md#bin-cl and
// doc/hardware.md#binning-list and the field tables of AG Table 38.
func TestCubeList(t *testing.T) {
	want := []byte{
		0x70, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 13, 10, 0x00, // binning config: 13×10 tiles
		0x06,       // START_TILE_BINNING
		0x38, 0x12, // PRIMITIVE_LIST_FORMAT
		0x66, 0, 0, 0, 0, 0x20, 0x03, 0x58, 0x02, // CLIP_WINDOW 0,0 800×600
		0x60, 0x05, 0xb0, 0x03, // CONFIGURATION_BITS
		0x67, 0x00, 0x19, 0xc0, 0x12, // VIEWPORT_OFFSET 6400, 4800
		0x69, 0x00, 0x00, 0xc8, 0x45, 0x00, 0x00, 0x96, 0xc5, // CLIPPER_XY 6400.0, −4800.0
		0x6a, 0x00, 0x00, 0x00, 0x3f, 0x00, 0x00, 0x00, 0x3f, // CLIPPER_Z 0.5, 0.5
	}
	for face := byte(0); face < 6; face++ {
		want = append(want, 0x40, 0x01, 0, 0, 0) // GL_SHADER_STATE, one attribute array
		want = append(want, 0x21, 0x04, 6, 0, 0, 0, 6*face, 0, 0, 0)
	}
	want = append(want, 0x07, 0x04)

	var b Builder
	buildCube(&b, cubePrefix())
	got, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("\n got % x\nwant % x", got, want)
	}
	if len(got) != 147 || b.ShaderStates() != 6 || b.Draws() != 6 {
		t.Fatalf("%d bytes, %d states, %d draws", len(got), b.ShaderStates(), b.Draws())
	}
}

func TestBuildDoesNotAllocate(t *testing.T) {
	var b Builder
	p := cubePrefix()
	build := func() {
		buildCube(&b, p)
		if _, err := b.Bytes(); err != nil {
			t.Fatal(err)
		}
	}
	build()
	if allocs := testing.AllocsPerRun(100, build); allocs != 0 {
		t.Fatalf("building the cube list allocates %v times", allocs)
	}
	// Emit of a state packet between draws, through the type parameter.
	withEmit := func() {
		b.Reset()
		b.Begin(p)
		b.Draw(cl.GLShaderState{NumAttributeArrays: 1}, cl.GLArrayPrimitive{Mode: cl.PrimitiveModeTriangles, Length: 3})
		Emit(&b, cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true})
		Emit(&b, cl.ClipWindow{Width: 10, Height: 10})
		b.Draw(cl.GLShaderState{NumAttributeArrays: 1}, cl.GLArrayPrimitive{Mode: cl.PrimitiveModeTriangles, Length: 3})
		b.End()
		if _, err := b.Bytes(); err != nil {
			t.Fatal(err)
		}
	}
	withEmit()
	if allocs := testing.AllocsPerRun(100, withEmit); allocs != 0 {
		t.Fatalf("Emit allocates %v times", allocs)
	}
}

func BenchmarkCubeList(bm *testing.B) {
	var b Builder
	p := cubePrefix()
	bm.ReportAllocs()
	for i := 0; i < bm.N; i++ {
		buildCube(&b, p)
	}
}

func TestTiles(t *testing.T) {
	cases := []struct {
		w, h   int
		msaa   bool
		tx, ty uint8
	}{
		{800, 600, false, 13, 10}, {64, 64, false, 1, 1}, {65, 1, false, 2, 1},
		{800, 600, true, 25, 19}, {4096, 4096, false, 64, 64},
	}
	for _, c := range cases {
		x, y, err := Tiles(c.w, c.h, c.msaa)
		if err != nil || x != c.tx || y != c.ty {
			t.Errorf("Tiles(%d, %d, %v) = %d, %d, %v", c.w, c.h, c.msaa, x, y, err)
		}
	}
	for _, bad := range [][2]int{{0, 600}, {800, 0}, {4097, 1}} {
		if _, _, err := Tiles(bad[0], bad[1], false); err == nil {
			t.Errorf("Tiles(%d, %d) accepted", bad[0], bad[1])
		}
	}
}

// Each rule of the kernel's bin-CL validation (doc/kernel.md#bin-cl) the
// Builder knows, broken once.
func TestRules(t *testing.T) {
	state := cl.GLShaderState{NumAttributeArrays: 1}
	tri := cl.GLArrayPrimitive{Mode: cl.PrimitiveModeTriangles, Length: 3}
	cases := []struct {
		name  string
		build func(b *Builder)
		msg   string
	}{
		{"draw before Begin", func(b *Builder) { b.Draw(state, tri) }, "before Begin"},
		{"two Begins", func(b *Builder) { b.Begin(cubePrefix()); b.Begin(cubePrefix()) }, "twice"},
		{"binning address", func(b *Builder) {
			p := cubePrefix()
			p.Binning.TileAllocAddress = 0x1000
			b.Begin(p)
		}, "addresses must be 0"},
		{"zero tiles", func(b *Builder) { p := cubePrefix(); p.Binning.WidthInTiles = 0; b.Begin(p) }, "non-zero tile count"},
		{"double buffer", func(b *Builder) { p := cubePrefix(); p.Binning.DoubleBuffer = true; b.Begin(p) }, "refused"},
		{"empty clip window", func(b *Builder) { p := cubePrefix(); p.ClipWindow.Height = 0; b.Begin(p) }, "hangs the binner"},
		{"primitive before shader state", func(b *Builder) { b.Begin(cubePrefix()); b.DrawArrays(tri) }, "before any GL_SHADER_STATE"},
		{"shader state with an address", func(b *Builder) {
			b.Begin(cubePrefix())
			b.ShaderState(cl.GLShaderState{NumAttributeArrays: 1, Address: 0x100})
		}, "must be 0"},
		{"zero-length draw", func(b *Builder) {
			b.Begin(cubePrefix())
			b.Draw(state, cl.GLArrayPrimitive{Mode: cl.PrimitiveModeTriangles})
		}, "length 0"},
		{"16-bit index limit", func(b *Builder) {
			b.Begin(cubePrefix())
			b.Draw(state, cl.GLArrayPrimitive{Mode: cl.PrimitiveModeTriangles, Length: 3, First: 65533})
		}, "SW-5891"},
		{"draw after End", func(b *Builder) { b.Begin(cubePrefix()); b.End(); b.Draw(state, tri) }, "after End"},
		{"no End", func(b *Builder) { b.Begin(cubePrefix()); b.Draw(state, tri) }, "no End"},
		{"Emit a packet the kernel refuses", func(b *Builder) {
			b.Begin(cubePrefix())
			Emit(b, cl.NVShaderState{})
		}, "not accepted"},
		{"Emit a packet the Builder places", func(b *Builder) { b.Begin(cubePrefix()); Emit(b, cl.Flush{}) }, "own method"},
		{"Emit an empty clip window", func(b *Builder) { b.Begin(cubePrefix()); Emit(b, cl.ClipWindow{Width: 5}) }, "hangs the binner"},
		{"Emit a field that does not fit", func(b *Builder) {
			b.Begin(cubePrefix())
			Emit(b, cl.ConfigurationBits{CoverageReadType: 2})
		}, "does not fit"},
	}
	for _, c := range cases {
		var b Builder
		c.build(&b)
		_, err := b.Bytes()
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: err = %v, want one mentioning %q", c.name, err, c.msg)
		}
	}
	var b Builder
	b.Begin(cubePrefix())
	b.Draw(state, tri)
	b.End()
	_, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	b.Begin(cubePrefix())
	if _, err := b.Bytes(); !errors.Is(err, ErrNotEnded) {
		t.Errorf("after Reset: %v", err)
	}
}

// Unchecked builders and Raw make the broken lists the simulated kernel
// must refuse (doc/kernel.md#bin-cl; the kernel's messages for them in
// doc/kernel.md#observed).
func TestBrokenVariants(t *testing.T) {
	var b Builder
	b.Unchecked = true
	b.Begin(cubePrefix())
	Emit(&b, cl.NVShaderState{})
	b.DrawArrays(cl.GLArrayPrimitive{Mode: cl.PrimitiveModeTriangles, Length: 3})
	b.Raw([]byte{0x04, 0x07}) // reversed ending
	got, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	tail := got[len(got)-17:]
	want := []byte{0x41, 0, 0, 0, 0, 0x21, 0x04, 3, 0, 0, 0, 0, 0, 0, 0, 0x04, 0x07}
	if !bytes.Equal(tail, want) {
		t.Errorf("tail % x, want % x", tail, want)
	}
	b.Reset()
	if !b.Unchecked {
		t.Error("Reset cleared Unchecked")
	}
	p := cubePrefix()
	b.Begin(p)
	b.Begin(p) // two binning configs and two starts
	b.End()
	got, _ = b.Bytes()
	if bytes.Count(got, []byte{0x06, 0x38}) != 2 {
		t.Errorf("two Begins: % x", got)
	}
}

// An indexed draw from BO 4 (doc/kernel.md#primitives): GEM_HANDLES then
// GL_INDEXED_PRIMITIVE whose address is a byte offset into that BO.
func TestDrawIndexed(t *testing.T) {
	var b Builder
	b.Begin(&Prefix{Binning: cl.TileBinningModeConfig{WidthInTiles: 1, HeightInTiles: 1}})
	b.ShaderState(cl.GLShaderState{NumAttributeArrays: 2})
	b.DrawIndexed(&cl.GEMHandles{BOIndex0: 4},
		cl.GLIndexedPrimitive{Mode: cl.PrimitiveModeTriangles, IndexType: cl.IndexType16Bit, Length: 36, IndexAddress: 0x40, MaxIndex: 23})
	b.DrawIndexed(nil, cl.GLIndexedPrimitive{Mode: cl.PrimitiveModeTriangleStrip, Length: 4, MaxIndex: 3})
	b.End()
	got, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{
		0x70, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0x06,
		0x40, 0x02, 0, 0, 0,
		0xfe, 4, 0, 0, 0, 0, 0, 0, 0,
		0x20, 0x14, 36, 0, 0, 0, 0x40, 0, 0, 0, 23, 0, 0, 0,
		0x20, 0x05, 4, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0,
		0x07, 0x04,
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("\n got % x\nwant % x", got, want)
	}
	if b.Draws() != 2 || b.ShaderStates() != 1 {
		t.Errorf("%d draws, %d states", b.Draws(), b.ShaderStates())
	}
	b.Reset()
	b.Begin(&Prefix{Binning: cl.TileBinningModeConfig{WidthInTiles: 1, HeightInTiles: 1}})
	b.ShaderState(cl.GLShaderState{NumAttributeArrays: 1})
	b.DrawIndexed(nil, cl.GLIndexedPrimitive{Mode: cl.PrimitiveModeTriangles, IndexType: 2, Length: 3})
	if _, err := b.Bytes(); err == nil || !strings.Contains(err.Error(), "index type") {
		t.Errorf("index type 2: %v", err)
	}
}

// NV_SHADER_STATE breaks the kernel's table (packet 65 invalid); an
// Unchecked builder emits it and counts the record it consumes.
func TestNVShaderState(t *testing.T) {
	var b Builder
	b.Begin(cubePrefix())
	b.NVShaderState(cl.NVShaderState{})
	if _, err := b.Bytes(); err == nil || !strings.Contains(err.Error(), "packet 65") {
		t.Fatalf("checked builder: err = %v, want the packet 65 refusal", err)
	}
	b = Builder{Unchecked: true}
	b.Begin(cubePrefix())
	b.NVShaderState(cl.NVShaderState{})
	b.DrawArrays(cl.GLArrayPrimitive{Mode: cl.PrimitiveModeTriangles, Length: 3})
	b.End()
	got, err := b.Bytes()
	if err != nil || b.ShaderStates() != 1 || !bytes.Contains(got, []byte{65, 0, 0, 0, 0}) {
		t.Fatalf("unchecked builder: % x, %d states, %v", got, b.ShaderStates(), err)
	}
}
