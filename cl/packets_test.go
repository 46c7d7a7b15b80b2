package cl

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/vccube/vccube/cl/internal/gen"
	"github.com/vccube/vccube/cl/spec"
)

func TestGeneratedCodeIsFresh(t *testing.T) {
	want, err := gen.Generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("packets_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("packets_gen.go is stale: run go generate ./cl")
	}
}

// handCases are encodings worked out by hand from the field tables (AG
// Table 38, doc/hardware.md#packets, doc/kernel.md#bin-cl and
// doc/kernel.md#the-emitted-list), not from the encoder.
// Every packet vccube puts in its bin CL and every packet the kernel puts
// in a render CL is here, plus a sample of the rest.
var handCases = []struct {
	name string
	p    Packet
	want []byte
}{
	// --- the bin CL vccube builds (doc/hardware.md#binning-list) ---
	{"binning config 800x600 as user space sends it: 13x10 tiles, addresses 0",
		TileBinningModeConfig{WidthInTiles: 13, HeightInTiles: 10},
		[]byte{0x70, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0d, 0x0a, 0x00}},
	{"binning config as the kernel patches it: flags 0x44 (auto-init, blocks 32/128)",
		TileBinningModeConfig{TileAllocAddress: 0x12345000, TileAllocSize: 0x7b000, TileStateAddress: 0x12340000,
			WidthInTiles: 13, HeightInTiles: 10, AutoInitTileState: true, InitialBlockSize: BlockSize32, BlockSize: BlockSize128},
		[]byte{0x70, 0x00, 0x50, 0x34, 0x12, 0x00, 0xb0, 0x07, 0x00, 0x00, 0x00, 0x34, 0x12, 0x0d, 0x0a, 0x44}},
	{"binning config with 4x MSAA as the kernel patches it: flags 0x45",
		TileBinningModeConfig{WidthInTiles: 25, HeightInTiles: 19, Multisample4x: true, AutoInitTileState: true, BlockSize: BlockSize128},
		[]byte{0x70, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 25, 19, 0x45}},
	{"start tile binning", StartTileBinning{}, []byte{0x06}},
	{"primitive list format: 16-bit index triangles = Mesa's 0x12",
		PrimitiveListFormat{Type: PrimitiveListTypeTriangles, DataType: PrimitiveListData16BitIndex}, []byte{0x38, 0x12}},
	{"clip window 800x600",
		ClipWindow{Width: 800, Height: 600}, []byte{0x66, 0, 0, 0, 0, 0x20, 0x03, 0x58, 0x02}},
	{"clip window at (16, 8)",
		ClipWindow{Left: 16, Bottom: 8, Width: 1, Height: 2}, []byte{0x66, 16, 0, 8, 0, 1, 0, 2, 0}},
	{"config bits: both faces, LEQUAL, Z writes, early Z = 03 b0 03 (doc/hardware.md#configuration-bits)",
		ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, DepthFunc: DepthFuncLessEqual,
			ZUpdates: true, EarlyZ: true, EarlyZUpdates: true},
		[]byte{0x60, 0x03, 0xb0, 0x03}},
	{"config bits: cull back faces, clockwise front, LESS, Z writes, early-Z updates only",
		ConfigurationBits{EnableForwardFacing: true, Clockwise: true, DepthFunc: DepthFuncLess, ZUpdates: true, EarlyZUpdates: true},
		[]byte{0x60, 0x05, 0x90, 0x02}},
	{"config bits: every other field (offset, AA, mask16, 4x, coverage pipe, update or, leave on read)",
		ConfigurationBits{EnableDepthOffset: true, AntialiasedPointsLines: true, CoverageReadType: CoverageReadTypeMask16Bit,
			Oversample: OversampleMode4x, CoveragePipeSelect: true, CoverageUpdate: CoverageUpdateModeOr,
			CoverageReadMode: CoverageReadModeLeaveOnRead, DepthFunc: DepthFuncAlways},
		// byte 0: 0x08|0x10|0x20|0x40 = 0x78; byte 1: 0x01 | 2<<1 | 0x08 | 7<<4 = 0x7d
		[]byte{0x60, 0x78, 0x7d, 0x00}},
	{"viewport offset: centre (400, 300) px = (6400, 4800)/16",
		ViewportOffset{X: 6400, Y: 4800}, []byte{0x67, 0x00, 0x19, 0xc0, 0x12}},
	{"viewport offset: negative",
		ViewportOffset{X: -1, Y: -32768}, []byte{0x67, 0xff, 0xff, 0x00, 0x80}},
	{"clipper XY: 6400.0 = 0x45c80000, -4800.0 = 0xc5960000",
		ClipperXYScaling{HalfWidth: 6400, HalfHeight: -4800}, []byte{0x69, 0x00, 0x00, 0xc8, 0x45, 0x00, 0x00, 0x96, 0xc5}},
	{"clipper Z: scale 0.5, offset 0.5 (0x3f000000)",
		ClipperZScaling{Scale: 0.5, Offset: 0.5}, []byte{0x6a, 0, 0, 0, 0x3f, 0, 0, 0, 0x3f}},
	{"clipper Z: scale first (AG), offset second",
		ClipperZScaling{Scale: 1, Offset: 2}, []byte{0x6a, 0, 0, 0x80, 0x3f, 0, 0, 0, 0x40}},
	{"GL shader state from user space: one attribute array, address 0",
		GLShaderState{NumAttributeArrays: 1}, []byte{0x40, 0x01, 0, 0, 0}},
	{"GL shader state: extended, 2 arrays",
		GLShaderState{NumAttributeArrays: 2, Extended: true}, []byte{0x40, 0x0a, 0, 0, 0}},
	{"GL shader state as the kernel patches it: address | count",
		GLShaderState{NumAttributeArrays: 1, Address: 0x12345670}, []byte{0x40, 0x71, 0x56, 0x34, 0x12}},
	{"array primitive: 6 triangle vertices from 12",
		GLArrayPrimitive{Mode: PrimitiveModeTriangles, Length: 6, First: 12}, []byte{0x21, 0x04, 6, 0, 0, 0, 12, 0, 0, 0}},
	{"indexed primitive: 36 16-bit indices at offset 0x100, max 23",
		GLIndexedPrimitive{Mode: PrimitiveModeTriangles, IndexType: IndexType16Bit, Length: 36, IndexAddress: 0x100, MaxIndex: 23},
		[]byte{0x20, 0x14, 36, 0, 0, 0, 0x00, 0x01, 0, 0, 23, 0, 0, 0}},
	{"GEM handles: BO index 3", GEMHandles{BOIndex0: 3}, []byte{0xfe, 3, 0, 0, 0, 0, 0, 0, 0}},
	{"increment semaphore", IncrementSemaphore{}, []byte{0x07}},
	{"flush", Flush{}, []byte{0x04}},

	// --- the render CL the kernel builds (doc/kernel.md#the-emitted-list) ---
	{"clear colours: c0 = c1 = 0xff336699, Z 0xffffff, stencil 0x80",
		ClearColors{Color: 0xff336699ff336699, Z: 0xffffff, Stencil: 0x80},
		[]byte{0x72, 0x99, 0x66, 0x33, 0xff, 0x99, 0x66, 0x33, 0xff, 0xff, 0xff, 0xff, 0x00, 0x80}},
	{"tile coordinates (12, 9)", TileCoordinates{Column: 12, Row: 9}, []byte{0x73, 12, 9}},
	{"dummy store that latches the clear: all zero",
		StoreTileBufferGeneral{}, []byte{0x1c, 0, 0, 0, 0, 0, 0}},
	{"dummy store between two loads: bits 0xe000 (no clears)",
		StoreTileBufferGeneral{DisableColorClear: true, DisableZSClear: true, DisableVGMaskClear: true},
		[]byte{0x1c, 0x00, 0xe0, 0, 0, 0, 0}},
	{"Z/S store, T-format (bits 0x12), keep colour, EOF, image at 0x0ab00000",
		StoreTileBufferGeneral{Buffer: StoreBufferZS, Tiling: TilingT, DisableColorClear: true, LastTile: true, Address: 0x0ab00000},
		[]byte{0x1c, 0x12, 0x20, 0x08, 0x00, 0xb0, 0x0a}},
	{"store with decimate x4, bgr565, no swap, full-dump disables",
		StoreTileBufferGeneral{Buffer: StoreBufferFullDump, Tiling: TilingLT, Mode: StoreModeDecimateX4, Format: LoadStoreFormatBGR565,
			DisableDoubleBufferSwap: true, DisableColorDump: true, DisableZSDump: true, DisableVGMaskDump: true, Address: 0xfffffff0},
		// u16: 5 | 2<<4 | 1<<6 | 2<<8 | 1<<12 = 0x1265; u32: 0xfffffff0 | 7
		[]byte{0x1c, 0x65, 0x12, 0xf7, 0xff, 0xff, 0xff}},
	{"colour load, T-format RGBA8888 (bits 0x11), image at 0x0c000000",
		LoadTileBufferGeneral{Buffer: LoadBufferColor, Tiling: TilingT, Format: LoadStoreFormatRGBA8888, Address: 0x0c000000},
		[]byte{0x1d, 0x11, 0x00, 0x00, 0x00, 0x00, 0x0c}},
	{"full reload, linear bgr565 dithered, all three disables",
		LoadTileBufferGeneral{Buffer: LoadBufferFullReload, Format: LoadStoreFormatBGR565Dithered,
			DisableColorLoad: true, DisableZSLoad: true, DisableVGMaskLoad: true, Address: 0x10},
		[]byte{0x1d, 0x05, 0x01, 0x17, 0x00, 0x00, 0x00}},
	{"render config: linear RGBA8888 800x600 (bits 0x0004)",
		TileRenderingModeConfig{Address: 0x0c000000, Width: 800, Height: 600, Format: RenderFormatRGBA8888},
		[]byte{0x71, 0x00, 0x00, 0x00, 0x0c, 0x20, 0x03, 0x58, 0x02, 0x04, 0x00}},
	{"render config: T-format RGBA8888 (bits 0x0044)",
		TileRenderingModeConfig{Width: 64, Height: 64, Format: RenderFormatRGBA8888, Tiling: TilingT},
		[]byte{0x71, 0, 0, 0, 0, 64, 0, 64, 0, 0x44, 0x00}},
	{"render config: MS, HDR, bgr565, decimate 4x, LT and every high flag",
		TileRenderingModeConfig{Multisample4x: true, Color64: true, Format: RenderFormatBGR565, Decimate: DecimateMode4x,
			Tiling: TilingLT, EnableVGMask: true, CoverageMode: true, EarlyZDirectionGreater: true, EarlyZDisable: true, DoubleBuffer: true},
		// 1 | 2 | 2<<2 | 1<<4 | 2<<6 = 0x9b; high byte bits 8..12 = 0x1f
		[]byte{0x71, 0, 0, 0, 0, 0, 0, 0, 0, 0x9b, 0x1f}},
	{"wait on semaphore", WaitOnSemaphore{}, []byte{0x08}},
	{"branch to sub-list", BranchToSubList{Address: 0x0e0000a0}, []byte{0x11, 0xa0, 0x00, 0x00, 0x0e}},
	{"store MS tile buffer", StoreMSTileBuffer{}, []byte{0x18}},
	{"store MS tile buffer and EOF", StoreMSTileBufferAndEOF{}, []byte{0x19}},
	{"full-res store: MSAA colour, no ZS, no clear, EOF",
		StoreFullResTileBuffer{Address: 0x0d004000, DisableZSWrite: true, DisableClear: true, LastTile: true},
		[]byte{0x1a, 0x0e, 0x40, 0x00, 0x0d}},
	{"full-res store: colour disabled only",
		StoreFullResTileBuffer{Address: 0x10, DisableColorWrite: true}, []byte{0x1a, 0x11, 0, 0, 0}},
	{"full-res colour load (disable ZS)",
		LoadFullResTileBuffer{Address: 0x0d008000, DisableZSRead: true}, []byte{0x1b, 0x02, 0x80, 0x00, 0x0d}},
	{"full-res ZS load (disable colour)",
		LoadFullResTileBuffer{Address: 0x0d008000, DisableColorRead: true}, []byte{0x1b, 0x01, 0x80, 0x00, 0x0d}},

	// --- a sample of the rest ---
	{"halt", Halt{}, []byte{0x00}},
	{"nop", NOP{}, []byte{0x01}},
	{"flush all", FlushAll{}, []byte{0x05}},
	{"branch", Branch{Address: 0x01020304}, []byte{0x10, 0x04, 0x03, 0x02, 0x01}},
	{"return from sub-list", ReturnFromSubList{}, []byte{0x12}},
	{"depth offset: factor 1.0 (0x3f80), units 2.0 (0x4000)",
		DepthOffset{Factor: 1, Units: 2}, []byte{0x65, 0x80, 0x3f, 0x00, 0x40}},
	{"point size 1.0", PointSize{Size: 1}, []byte{0x62, 0, 0, 0x80, 0x3f}},
	{"line width 1.5 (0x3fc00000)", LineWidth{Width: 1.5}, []byte{0x63, 0, 0, 0xc0, 0x3f}},
	{"flat shade flags", FlatShadeFlags{Flags: 5}, []byte{0x61, 5, 0, 0, 0}},
	{"RHT x boundary -2", RHTXBoundary{X: -2}, []byte{0x64, 0xfe, 0xff}},
	{"Z clipping planes 0 and 1", ZClipping{MinZw: 0, MaxZw: 1}, []byte{0x68, 0, 0, 0, 0, 0, 0, 0x80, 0x3f}},
	{"NV shader state", NVShaderState{Address: 0x00100010}, []byte{0x41, 0x10, 0x00, 0x10, 0x00}},
	{"VG shader state", VGShaderState{Address: 0x20}, []byte{0x42, 0x20, 0, 0, 0}},
	{"VG inline shader record: single-threaded",
		VGInlineShaderRecord{Threading: FSThreadingSingle, FSCodeAddress: 0x20000008, FSUniformsAddress: 0x30000004},
		[]byte{0x43, 0x09, 0x00, 0x00, 0x20, 0x04, 0x00, 0x00, 0x30}},
	{"VG coordinate array: 2 triangles, continuation",
		VGCoordinateArrayPrimitives{Type: VGPrimitiveTypeTriangles, Continuation: 1, Length: 2, Address: 0x400},
		[]byte{0x29, 0x14, 2, 0, 0, 0, 0x00, 0x04, 0, 0}},
	{"VG inline primitives header: RHT strip", VGInlinePrimitives{Type: VGPrimitiveTypeRHTStrip}, []byte{0x2a, 0x03}},
	{"compressed primitive", CompressedPrimitive{}, []byte{0x30}},
	{"clipped compressed primitive: record 0x10000008, vertices 0 and 2 clipped",
		ClippedCompressedPrimitive{ClipFlags: 5, Address: 0x10000008}, []byte{0x31, 0x0d, 0x00, 0x00, 0x10}},
}

func TestHandEncodings(t *testing.T) {
	for _, c := range handCases {
		if err := c.p.Check(); err != nil {
			t.Errorf("%s: Check: %v", c.name, err)
		}
		got := c.p.Append(nil)
		if !bytes.Equal(got, c.want) {
			t.Errorf("%s:\n got % x\nwant % x", c.name, got, c.want)
			continue
		}
		// Appending keeps what is already there.
		pre := []byte{0xaa, 0xbb}
		if got := c.p.Append(pre); !bytes.Equal(got[:2], []byte{0xaa, 0xbb}) || !bytes.Equal(got[2:], c.want) {
			t.Errorf("%s: Append after existing bytes: % x", c.name, got)
		}
		back, err := Decode(c.want)
		if err != nil {
			t.Errorf("%s: Decode: %v", c.name, err)
			continue
		}
		if !bytes.Equal(back.Append(nil), c.want) {
			t.Errorf("%s: Decode then Append differs", c.name)
		}
	}
}

// Records, by hand from AG Tables 45–47.
func TestHandRecords(t *testing.T) {
	gl := GLShaderRecord{FSSingleThreaded: true, EnableClipping: true, FSNumVaryings: 2,
		VSAttributeSelect: 1, VSAttributesSize: 24, CSAttributeSelect: 1, CSAttributesSize: 24}
	want := []byte{
		0x05, 0x00, 0x00, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, // flags, FS uniforms, FS varyings, FS code, FS uniforms
		0x00, 0x00, 0x01, 0x18, 0, 0, 0, 0, 0, 0, 0, 0, // VS
		0x00, 0x00, 0x01, 0x18, 0, 0, 0, 0, 0, 0, 0, 0, // CS
	}
	if got := gl.Append(nil); !bytes.Equal(got, want) {
		t.Errorf("GL record:\n got % x\nwant % x", got, want)
	}
	gl2 := GLShaderRecord{PointSizeIncluded: true, FSNumUniforms: 7, FSCodeAddress: 0x1000, FSUniformsAddress: 0x2004,
		VSNumUniforms: 0x0102, VSCodeAddress: 0x3008, VSUniformsAddress: 0x400c, CSNumUniforms: 0x0304,
		CSCodeAddress: 0x5010, CSUniformsAddress: 0x6014}
	want2 := []byte{
		0x02, 0x00, 0x07, 0x00, 0x00, 0x10, 0, 0, 0x04, 0x20, 0, 0,
		0x02, 0x01, 0x00, 0x00, 0x08, 0x30, 0, 0, 0x0c, 0x40, 0, 0,
		0x04, 0x03, 0x00, 0x00, 0x10, 0x50, 0, 0, 0x14, 0x60, 0, 0,
	}
	if got := gl2.Append(nil); !bytes.Equal(got, want2) {
		t.Errorf("GL record 2:\n got % x\nwant % x", got, want2)
	}
	at := AttributeRecord{Address: 0x40, SizeMinusOne: 23, Stride: 24, VSVPMOffset: 4, CSVPMOffset: 8}
	if got := at.Append(nil); !bytes.Equal(got, []byte{0x40, 0, 0, 0, 23, 24, 4, 8}) {
		t.Errorf("attribute record: % x", got)
	}
	nv := NVShaderRecord{ClipHeaderIncluded: true, Stride: 20, FSNumVaryings: 2, FSCodeAddress: 0x1000,
		FSUniformsAddress: 0x2000, VertexDataAddress: 0x3000}
	if got := nv.Append(nil); !bytes.Equal(got, []byte{0x08, 20, 0, 2, 0, 0x10, 0, 0, 0, 0x20, 0, 0, 0, 0x30, 0, 0}) {
		t.Errorf("NV record: % x", got)
	}
	vg := VGShaderRecord{FSSingleThreaded: true, FSNumVaryings: 1, FSCodeAddress: 8, FSUniformsAddress: 4}
	if got := vg.Append(nil); !bytes.Equal(got, []byte{1, 0, 0, 1, 8, 0, 0, 0, 4, 0, 0, 0}) {
		t.Errorf("VG record: % x", got)
	}
	cv := ClippedVertex{ScreenX: -16, ScreenY: 32, ScreenZ: 0.5, InvWc: 1, VaryingCoef0: 2, VaryingCoef1: 0, VaryingCoef2: -2}
	wantCV := []byte{0xf0, 0xff, 0x20, 0x00, 0, 0, 0, 0x3f, 0, 0, 0x80, 0x3f, 0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0, 0xc0,
		0, 0, 0, 0, 0, 0, 0, 0}
	if got := cv.Append(nil); !bytes.Equal(got, wantCV) {
		t.Errorf("clipped vertex:\n got % x\nwant % x", got, wantCV)
	}
	var back GLShaderRecord
	if err := back.Unpack(want2); err != nil || back != gl2 {
		t.Errorf("GL record round trip: %+v, %v", back, err)
	}
}

func TestCheck(t *testing.T) {
	bad := []struct {
		p     Packet
		field string
	}{
		{TileRenderingModeConfig{Format: 4}, "format"},
		{StoreTileBufferGeneral{Address: 0x1001}, "address"},
		{GLShaderState{NumAttributeArrays: 8}, "num_attribute_arrays"},
		{GLShaderState{Address: 8}, "address"},
		{ClearColors{Z: 1 << 24}, "z"},
		{NVShaderState{Address: 4}, "address"},
		{ClippedCompressedPrimitive{ClipFlags: 8}, "clip_flags"},
		{PrimitiveListFormat{DataType: 16}, "data_type"},
	}
	for _, c := range bad {
		err := c.p.Check()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("%T: Check = %v, want a FieldError on %s", c.p, err, c.field)
		}
	}
	if err := (AttributeRecord{}).Check(); err != nil {
		t.Error(err)
	}
}

func TestUnpackErrors(t *testing.T) {
	var cw ClipWindow
	if err := cw.Unpack([]byte{0x66, 0, 0}); err == nil {
		t.Error("short CLIP_WINDOW accepted")
	}
	if err := cw.Unpack([]byte{0x67, 0, 0, 0, 0, 0, 0, 0, 0}); err == nil {
		t.Error("VIEWPORT_OFFSET bytes accepted as CLIP_WINDOW")
	}
	if _, err := Decode([]byte{2}); err == nil {
		t.Error("reserved id 2 decoded")
	}
	if _, err := Decode(nil); err == nil {
		t.Error("empty input decoded")
	}
	var r GLShaderRecord
	if err := r.Unpack(make([]byte, 35)); err == nil {
		t.Error("35-byte GL record accepted")
	}
}

func TestSubpixel(t *testing.T) {
	cases := []struct {
		px   float64
		want Subpixel
	}{{400, 6400}, {-0.5, -8}, {0.03, 0}, {0.04, 1}, {-0.04, -1}, {5000, 32767}, {-5000, -32768}}
	for _, c := range cases {
		if got := SubpixelOf(c.px); got != c.want {
			t.Errorf("SubpixelOf(%g) = %d, want %d", c.px, got, c.want)
		}
	}
	if s := Subpixel(6400).String(); s != "400px" {
		t.Errorf("String = %q", s)
	}
	if s := Subpixel(-1).String(); s != "-0.0625px" {
		t.Errorf("String = %q", s)
	}
}

func TestEnumString(t *testing.T) {
	if s := DepthFuncLessEqual.String(); s != "less_equal" {
		t.Error(s)
	}
	if s := RenderFormat(3).String(); s != "RenderFormat(3)" {
		t.Error(s)
	}
	// The two RGBA8888 codes differ (vc4_packet.h; doc/hardware.md#mode-configuration).
	if RenderFormatRGBA8888 != 1 || LoadStoreFormatRGBA8888 != 0 {
		t.Error("RGBA8888 codes")
	}
}

func TestAppendDoesNotAllocate(t *testing.T) {
	buf := make([]byte, 0, 256)
	allocs := testing.AllocsPerRun(100, func() {
		b := buf[:0]
		b = TileBinningModeConfig{WidthInTiles: 13, HeightInTiles: 10}.Append(b)
		b = ConfigurationBits{EnableForwardFacing: true, DepthFunc: DepthFuncLessEqual}.Append(b)
		b = ClipperXYScaling{HalfWidth: 6400, HalfHeight: -4800}.Append(b)
		b = GLArrayPrimitive{Mode: PrimitiveModeTriangles, Length: 6}.Append(b)
		b = GLShaderRecord{FSNumVaryings: 2}.Append(b)
		_ = b
	})
	if allocs != 0 {
		t.Fatalf("Append allocates %v times per run", allocs)
	}
}

func BenchmarkAppendDrawPackets(b *testing.B) {
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		p := buf[:0]
		p = GLShaderState{NumAttributeArrays: 1}.Append(p)
		p = GLArrayPrimitive{Mode: PrimitiveModeTriangles, Length: 6, First: uint32(i)}.Append(p)
		buf = p
	}
}

var _ = spec.OpHalt
