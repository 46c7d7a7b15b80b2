package dump

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/internal/cube"
	"github.com/vccube/vccube/cl/prim"
	"github.com/vccube/vccube/cl/spec"
	"github.com/vccube/vccube/cl/submit"
	"github.com/vccube/vccube/cl/uniforms"
)

// golden reads a golden file without its '#' note lines.
func golden(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}

func cubeJob(t testing.TB) *submit.Job {
	var j submit.Job
	if err := cube.NewBuilder().Build(&j); err != nil {
		t.Fatal(err)
	}
	return &j
}

func diff(t *testing.T, got, want string) {
	t.Helper()
	if got == want {
		return
	}
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Fatalf("line %d differs:\n got %q\nwant %q\n\nwhole output:\n%s", i+1, gl, wl, got)
		}
	}
}

func TestCubeBinCLGolden(t *testing.T) {
	bin, err := cubeJob(t).Bin.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := CL(&out, bin, Options{List: spec.BinList}); err != nil {
		t.Fatal(err)
	}
	diff(t, out.String(), golden(t, "cube_bincl.golden"))
}

// The structure the kernel demands (doc/kernel.md#bin-cl) in Mesa's order
// (doc/hardware.md#binning-list), checked on the decoded packets rather
// than on text.
func TestCubeBinCLStructure(t *testing.T) {
	bin, _ := cubeJob(t).Bin.Bytes()
	var ops []spec.Opcode
	var ends []int
	if err := Walk(bin, Options{}, func(p *Packet) error {
		ops = append(ops, p.Desc.Op)
		ends = append(ends, p.Offset+len(p.Bytes))
		if !p.Desc.KernelBin {
			t.Errorf("%s at %#x is not in the kernel's whitelist", p.Desc.Name, p.Offset)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if ops[0] != spec.OpTileBinningModeConfig || ops[1] != spec.OpStartTileBinning {
		t.Errorf("list starts %v %v", ops[0], ops[1])
	}
	count := func(op spec.Opcode) int {
		n := 0
		for _, o := range ops {
			if o == op {
				n++
			}
		}
		return n
	}
	if count(spec.OpTileBinningModeConfig) != 1 || count(spec.OpStartTileBinning) != 1 {
		t.Error("exactly one binning config and one start")
	}
	n := len(ops)
	if ops[n-2] != spec.OpIncrementSemaphore || ops[n-1] != spec.OpFlush || ends[n-2] != len(bin)-1 || ends[n-1] != len(bin) {
		t.Error("the list must end with INCREMENT_SEMAPHORE at size-2 and FLUSH at size-1")
	}
	if count(spec.OpIncrementSemaphore) != 1 || count(spec.OpFlush) != 1 {
		t.Error("INCREMENT_SEMAPHORE and FLUSH appear only at the end")
	}
	seenState := false
	for _, o := range ops {
		switch o {
		case spec.OpGLShaderState:
			seenState = true
		case spec.OpGLArrayPrimitive, spec.OpGLIndexedPrimitive:
			if !seenState {
				t.Error("primitive before shader state")
			}
		}
	}
	if count(spec.OpGLShaderState) != 6 || count(spec.OpGLArrayPrimitive) != 6 {
		t.Error("six faces, each with its own shader state")
	}
}

func TestCubeJobGolden(t *testing.T) {
	j := cubeJob(t)
	bin, _ := j.Bin.Bytes()
	var out bytes.Buffer
	if err := Job(&out, bin, j.ShaderRecs.Bytes(), j.Uniforms.Bytes(), cubeShapes()); err != nil {
		t.Fatal(err)
	}
	diff(t, out.String(), golden(t, "cube_job.golden"))
}

// A tile list as the binner would write it, by hand: state, a shader state
// with its record address, a compressed list of the cube's first face, a
// clipped primitive, the end.
func TestTileList(t *testing.T) {
	tl := []byte{
		0x38, 0x12, // PRIMITIVE_LIST_FORMAT
		0x60, 0x01, 0x00, 0x00, // CONFIGURATION_BITS forward only, depth never
		0x40, 0x31, 0x00, 0x01, 0x00, // GL_SHADER_STATE 0x10030, 1 array
		0x30,                                     // COMPRESSED_PRIMITIVE
		0x81, 0x00, 0x00, 0x01, 0x00, 0x02, 0x00, // coding 3: 0 1 2
		0x04,                         // coding 0: edge (2,1), +1 → 2 1 3
		0x80,                         // escape
		0x31, 0x0f, 0x20, 0x00, 0x00, // CLIPPED_COMPRESSED_PRIMITIVE record 0x2008, flags 7
		0x03, 0x22, // coding 1 from (2,1,3): +0, +2, +2 → 2 3 5 (3 | 0<<4, 2 | 2<<4)
		0x80,
		0x12,       // RETURN_FROM_SUB_LIST
		0xff, 0xff, // unused block bytes: not decoded
	}
	want := `0000 PRIMITIVE_LIST_FORMAT type=triangles data_type=16_bit_index
0002 CONFIGURATION_BITS enable_forward_facing coverage_read_type=level_4x8_bit oversample=none coverage_update=nonzero coverage_read_mode=clear_on_read depth_func=never
0006 GL_SHADER_STATE num_attribute_arrays=1 address=0x00010030
000b COMPRESSED_PRIMITIVE
000c   triangles, 16-bit indices
000c   coding 3: [0 1 2]
0013   coding 0: [2 1 3]
0014   escape
0015 CLIPPED_COMPRESSED_PRIMITIVE clip_flags=0x7 address=0x00002008
001a   triangles, 16-bit indices
001a   coding 1: [2 3 5]
001c   escape
001d RETURN_FROM_SUB_LIST
     (end of the tile list)
`
	var out bytes.Buffer
	if err := CL(&out, tl, Options{List: spec.TileList}); err != nil {
		t.Fatal(err)
	}
	diff(t, out.String(), want)
}

// A render CL the way the kernel builds it for a cleared 128×64 frame of
// two tiles with a colour read and a Z/S write (doc/kernel.md#the-emitted-list),
// by hand.
func TestRenderList(t *testing.T) {
	rcl := []byte{
		0x72, 0x33, 0x33, 0x33, 0xff, 0x33, 0x33, 0x33, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, // CLEAR_COLORS
		0x73, 0, 0, // TILE_COORDINATES 0,0
		0x1c, 0, 0, 0, 0, 0, 0, // dummy store
		0x71, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x40, 0x00, 0x44, 0x00, // mode config 0x100000 128×64 T RGBA8888
		0x1d, 0x11, 0x00, 0x00, 0x00, 0x10, 0x00, // colour load T RGBA8888 at 0x100000
		0x73, 0, 0,
		0x08,                         // WAIT_ON_SEMAPHORE
		0x11, 0x00, 0x00, 0x20, 0x00, // BRANCH_TO_SUB_LIST 0x200000
		0x1c, 0x12, 0x20, 0x00, 0x00, 0x30, 0x00, // Z/S store T, keep colour
		0x73, 0, 0,
		0x18, // STORE_MS_TILE_BUFFER
		0x73, 1, 0,
		0x11, 0x20, 0x00, 0x20, 0x00,
		0x19, // STORE_MS_TILE_BUFFER_AND_EOF
		0x04, // FLUSH does not belong here
	}
	want := `0000 CLEAR_COLORS color=0xff333333ff333333 z=0xffffff vg_mask=0x0 stencil=0
000e TILE_COORDINATES column=0 row=0
0011 STORE_TILE_BUFFER_GENERAL buffer=none tiling=linear mode=sample_0 format=rgba8888 address=0x00000000
0018 TILE_RENDERING_MODE_CONFIG address=0x00100000 width=128 height=64 format=rgba8888 decimate=1x tiling=t
0023 LOAD_TILE_BUFFER_GENERAL buffer=color tiling=t format=rgba8888 address=0x00100000
002a TILE_COORDINATES column=0 row=0
002d WAIT_ON_SEMAPHORE
002e BRANCH_TO_SUB_LIST address=0x00200000
0033 STORE_TILE_BUFFER_GENERAL buffer=zs tiling=t mode=sample_0 format=rgba8888 disable_color_clear address=0x00300000
003a TILE_COORDINATES column=0 row=0
003d STORE_MS_TILE_BUFFER
003e TILE_COORDINATES column=1 row=0
0041 BRANCH_TO_SUB_LIST address=0x00200020
0046 STORE_MS_TILE_BUFFER_AND_EOF
0047 FLUSH  ! not a render-list packet (AG Table 38: bin)
`
	var out bytes.Buffer
	if err := CL(&out, rcl, Options{List: spec.RenderList, Base: 0}); err != nil {
		t.Fatal(err)
	}
	diff(t, out.String(), want)
}

func TestBinListNotes(t *testing.T) {
	bin := []byte{0x41, 0, 0, 0, 0, 0x68, 0, 0, 0, 0, 0, 0, 0x80, 0x3f, 0x73, 1, 2, 0xfe, 1, 0, 0, 0, 0, 0, 0, 0}
	want := `0000 NV_SHADER_STATE address=0x00000000  ! the kernel refuses this packet in a bin CL
0005 Z_CLIPPING min_zw=0 max_zw=1  ! the kernel refuses this packet in a bin CL
000e TILE_COORDINATES column=1 row=2  ! not a bin-list packet (AG Table 38: render)
0011 GEM_HANDLES bo_index_0=1 bo_index_1=0
`
	var out bytes.Buffer
	if err := CL(&out, bin, Options{}); err != nil {
		t.Fatal(err)
	}
	diff(t, out.String(), want)
}

func TestErrors(t *testing.T) {
	f16 := prim.Format{Type: prim.Triangles, IndexBits: 16}
	cases := []struct {
		name        string
		b           []byte
		opt         Options
		off, packet int
		op          spec.Opcode
		msg         string
	}{
		{"reserved id", []byte{0x06, 0x02}, Options{}, 1, 1, 2, "reserved id"},
		{"truncated", []byte{0x06, 0x66, 0, 0, 0}, Options{}, 1, 1, spec.OpClipWindow, "needs 9 bytes, only 4 left"},
		{"compressed list without a format", []byte{0x30, 0x80}, Options{List: spec.TileList}, 1, 0, spec.OpCompressedPrimitive, "PRIMITIVE_LIST_FORMAT"},
		{"compressed list without escape", []byte{0x30, 0x04, 0x04}, Options{List: spec.TileList, PrimFormat: &f16}, 3, 0, spec.OpCompressedPrimitive, "escape"},
		{"bad item inside the list", []byte{0x01, 0x30, 0x14, 0x81, 0x01}, Options{List: spec.TileList, PrimFormat: &f16}, 3, 1, spec.OpCompressedPrimitive, "needs 7 bytes"},
		{"XY lists", []byte{0x38, 0x32, 0x30, 0x80}, Options{List: spec.TileList}, 3, 2, spec.OpCompressedPrimitive, "not supported"},
		{"VG coordinates without escape", []byte{0x2a, 0x04, 1, 2, 3, 4, 5}, Options{}, 6, 0, spec.OpVGInlinePrimitives, "0xbfff0000"},
	}
	for _, c := range cases {
		err := Walk(c.b, c.opt, func(*Packet) error { return nil })
		var e *Error
		if !errors.As(err, &e) || e.Offset != c.off || e.Packet != c.packet || e.Op != c.op || !strings.Contains(e.Msg, c.msg) {
			t.Errorf("%s: err = %#v, want offset %d in packet at %d (%v) mentioning %q", c.name, err, c.off, c.packet, c.op, c.msg)
		}
		var out bytes.Buffer
		if err2 := CL(&out, c.b, c.opt); err2 == nil || !strings.Contains(out.String(), "error: ") {
			t.Errorf("%s: CL printed no error line:\n%s", c.name, out.String())
		}
	}
	// HALT and BRANCH stop the walk.
	n := 0
	_ = Walk([]byte{0x01, 0x00, 0x01}, Options{}, func(*Packet) error { n++; return nil })
	m := 0
	_ = Walk([]byte{0x10, 0, 0, 0, 0, 0x02}, Options{}, func(*Packet) error { m++; return nil })
	if n != 2 || m != 1 {
		t.Errorf("HALT/BRANCH: %d, %d packets", n, m)
	}
	// VG coordinates end at the escape word.
	var out bytes.Buffer
	vg := []byte{0x2a, 0x04, 1, 0, 2, 0, 3, 0, 4, 0, 0x00, 0x00, 0xff, 0xbf, 0x01}
	if err := CL(&out, vg, Options{}); err != nil || !strings.Contains(out.String(), "3 coordinate words") || !strings.Contains(out.String(), "000e NOP") {
		t.Errorf("VG inline: %v\n%s", err, out.String())
	}
}

// FuzzWalk feeds arbitrary bytes to every kind of list: the decoder must
// not panic, must report offsets inside the input, and the printer must
// agree with it. The seed corpus (testdata/fuzz/FuzzWalk) holds the cube
// list and broken variants.
func FuzzWalk(f *testing.F) {
	bin, _ := cubeJob(f).Bin.Bytes()
	f.Add(uint8(0), bin)
	f.Add(uint8(1), []byte{0x72, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x73, 0, 0, 0x1c, 0, 0, 0, 0, 0, 0})
	f.Add(uint8(2), []byte{0x38, 0x12, 0x30, 0x81, 0, 0, 1, 0, 2, 0, 0x04, 0x80, 0x12})
	f.Add(uint8(2), []byte{0x38, 0x01, 0x30, 0x14, 0xf8, 0x82, 0xff, 0xff})
	f.Add(uint8(0), []byte{0x2a, 0x04, 1, 0, 2, 0, 0x00, 0x00, 0xff, 0xbf})
	f.Fuzz(func(t *testing.T, kind uint8, b []byte) {
		opt := Options{List: []spec.List{spec.BinList, spec.RenderList, spec.TileList}[kind%3]}
		if kind&4 != 0 {
			opt.PrimFormat = &prim.Format{Type: prim.Type(kind >> 3 % 3), IndexBits: 16 + 8*uint(kind>>5&1)}
		}
		last := -1
		err := Walk(b, opt, func(p *Packet) error {
			if p.Offset <= last || p.Offset+len(p.Bytes)+len(p.Inline) > len(b) {
				t.Fatalf("packet at %d (last %d) beyond %d bytes", p.Offset, last, len(b))
			}
			last = p.Offset
			return nil
		})
		var e *Error
		if err != nil && (!errors.As(err, &e) || e.Offset < 0 || e.Offset > len(b) || e.Packet > e.Offset) {
			t.Fatalf("bad error %v", err)
		}
		var out bytes.Buffer
		if err2 := CL(&out, b, opt); (err2 == nil) != (err == nil) {
			t.Fatalf("CL and Walk disagree: %v vs %v", err2, err)
		}
	})
}

// cubeShapes are the uniform block shapes of the cube job: per face an FS
// block with one texture sample (P0 = u0, P1 = u1) and the light, and VS
// and CS blocks of four words.
func cubeShapes() []uniforms.Shape {
	var s []uniforms.Shape
	for face := 0; face < 6; face++ {
		s = append(s,
			uniforms.Shape{Samples: 1, Uniforms: 3, Params: [][]int{{0, 1}}},
			uniforms.Shape{Uniforms: 4},
			uniforms.Shape{Uniforms: 4})
	}
	return s
}

func TestRecord(t *testing.T) {
	nv := []byte{0x09, 20, 0, 2, 0, 0x10, 0, 0, 0, 0x20, 0, 0, 0, 0x30, 0, 0}
	var out bytes.Buffer
	if err := Record(&out, spec.NVShaderRecord, nv); err != nil {
		t.Fatal(err)
	}
	want := "nv_shader_record: fs_single_threaded clip_header_included stride=20 fs_num_uniforms=0 fs_num_varyings=2 " +
		"fs_code_address=0x00001000 fs_uniforms_address=0x00002000 vertex_data_address=0x00003000\n"
	diff(t, out.String(), want)
	if err := Record(&out, spec.NVShaderRecord, nv[:15]); err == nil {
		t.Error("15-byte NV record accepted")
	}
}

// Records and Uniforms take arbitrary streams without panicking.
func FuzzRecords(f *testing.F) {
	j := cubeJob(f)
	f.Add(uint8(1), uint8(3), j.ShaderRecs.Bytes(), j.Uniforms.Bytes())
	f.Add(uint8(0x0a), uint8(0), []byte{1, 2, 3}, []byte{4})
	f.Fuzz(func(t *testing.T, state, shape uint8, recs, unis []byte) {
		states := []cl.GLShaderState{{NumAttributeArrays: state & 7, Extended: state&8 != 0}, {NumAttributeArrays: state >> 4 & 7}}
		_ = Records(io.Discard, recs, states)
		shapes := []uniforms.Shape{{Samples: int(shape & 3), Uniforms: int(shape >> 2 & 7), Params: [][]int{{0, 1, 2, 3}}}, {Uniforms: int(shape >> 5)}}
		_ = Uniforms(io.Discard, unis, shapes)
	})
}
