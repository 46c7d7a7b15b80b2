package cuberender_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/vccube/vccube/cuberender"
	"github.com/vccube/vccube/math/scene"
	"github.com/vccube/vccube/shaders"
	"github.com/vccube/vccube/texture"
	"github.com/vccube/vccube/texture/defaulttex"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

func le32(b []byte, i int) uint32 { return binary.LittleEndian.Uint32(b[4*i:]) }

func newRenderer(t *testing.T, f *fakeGPU, opt cuberender.Options) *cuberender.Renderer {
	t.Helper()
	r, err := cuberender.New(f, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Error(err)
		}
		if err := f.leaks(); err != nil {
			t.Error(err)
		}
	})
	return r
}

// The bin CL of frame 0 at 800×600, written out by hand from the packet
// table (AG Table 38; doc/hardware.md#binning-list). At frame 0 the
// camera at (0, 3, 5) sees the +Y face (vertices 18–23) and the +Z face
// (vertices 30–35); the others are culled and not sent.
var frame0Bin = []byte{
	0x70, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 13, 10, 0x00, // TILE_BINNING_MODE_CONFIG: 13×10 tiles of 64 px
	0x06,       // START_TILE_BINNING
	0x38, 0x12, // PRIMITIVE_LIST_FORMAT: 16-bit index, triangles
	0x66, 0, 0, 0, 0, 0x20, 0x03, 0x58, 0x02, // CLIP_WINDOW 0, 0, 800, 600
	0x60, 0x05, 0xB0, 0x03, // CONFIGURATION_BITS: forward-facing on, clockwise; LEQUAL, Z update; early Z + update
	0x67, 0x00, 0x19, 0xC0, 0x12, // VIEWPORT_OFFSET 400·16 = 6400, 300·16 = 4800
	0x69, 0x00, 0x00, 0xC8, 0x45, 0x00, 0x00, 0x96, 0xC5, // CLIPPER_XY_SCALING 6400.0, −4800.0
	0x6A, 0x00, 0x00, 0x00, 0x3F, 0x00, 0x00, 0x00, 0x3F, // CLIPPER_Z_SCALING 0.5, 0.5
	0x40, 0x02, 0, 0, 0, // GL_SHADER_STATE, 2 attribute arrays
	0x21, 0x04, 6, 0, 0, 0, 18, 0, 0, 0, // GL_ARRAY_PRIMITIVE triangles, 6 vertices from 18 (+Y)
	0x40, 0x02, 0, 0, 0,
	0x21, 0x04, 6, 0, 0, 0, 30, 0, 0, 0, // +Z
	0x07, 0x04, // INCREMENT_SEMAPHORE, FLUSH
}

// One shader record in the kernel's shader_rec form
// (doc/kernel.md#shader-records): bo_handles indices FS 0, VS 1, CS 2, both
// attribute arrays in the vertex BO 3; then the record: flags
// single-threaded FS | clipping, 7 FS uniforms, 2 varyings (s, t); VS: 20
// uniforms, arrays 0 and 1, 20 bytes; CS: 20 uniforms, array 0, 12 bytes;
// attribute 0 at offset 0, 12 bytes, stride 12; attribute 1 at 36·12 = 432,
// 8 bytes, stride 8, VS VPM offset 12.
var faceRecord = []byte{
	0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0,
	0x05, 0x00, 7, 2, 0, 0, 0, 0, 0, 0, 0, 0,
	20, 0, 0x03, 20, 0, 0, 0, 0, 0, 0, 0, 0,
	20, 0, 0x01, 12, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 11, 12, 0, 0,
	0xB0, 0x01, 0, 0, 7, 8, 12, 0,
}

func TestFrameZeroSubmit(t *testing.T) {
	f := newFakeGPU(t)
	r := newRenderer(t, f, cuberender.Options{Width: 800, Height: 600})
	if _, err := r.Render(1, scene.AngleForFrame(0)); err != nil {
		t.Fatal(err)
	}
	if len(f.submits) != 1 {
		t.Fatalf("%d submits", len(f.submits))
	}
	s := f.submits[0]
	if !bytes.Equal(s.bin, frame0Bin) {
		t.Errorf("bin CL\n got % x\nwant % x", s.bin, frame0Bin)
	}
	if r.Faces() != 2 {
		t.Errorf("%d faces drawn, want 2", r.Faces())
	}
	wantRecs := append(append([]byte(nil), faceRecord...), faceRecord...)
	if !bytes.Equal(s.recs, wantRecs) {
		t.Errorf("shader records\n got % x\nwant % x", s.recs, wantRecs)
	}

	// bo_handles: FS, VS, CS, vertices, texture, colour buffer 1; the
	// fake numbers handles in creation order (colour 0 is 6). No depth
	// buffer: Z stays in the tile buffer (see the package documentation).
	if want := []uint32{1, 2, 3, 4, 5, 7}; !slices.Equal(s.handles, want) {
		t.Errorf("bo_handles %v, want %v", s.handles, want)
	}

	a := s.args
	if a.ShaderRecCount != 2 || a.BinCLSize != uint32(len(frame0Bin)) || a.UniformsSize != 2*48*4 {
		t.Errorf("counts: %d records, %d bin bytes, %d uniform bytes", a.ShaderRecCount, a.BinCLSize, a.UniformsSize)
	}
	if a.Width != 800 || a.Height != 600 || a.MinXTile != 0 || a.MinYTile != 0 || a.MaxXTile != 12 || a.MaxYTile != 9 {
		t.Errorf("frame %d×%d tiles %d,%d–%d,%d", a.Width, a.Height, a.MinXTile, a.MinYTile, a.MaxXTile, a.MaxYTile)
	}
	// color_write: index 5, linear RGBA8888 (render-config format 1 in
	// bits 3:2) — doc/kernel.md#surfaces. Every other surface, zs_write
	// included, is absent (hindex ~0, doc/kernel.md#struct-layouts): the kernel's
	// render list then stores colour only (vc4_render_cl.c emit_tile).
	if cw := a.ColorWrite; cw != (uapi.SubmitRCLSurface{HIndex: 5, Bits: 0x0004}) {
		t.Errorf("color_write %+v", cw)
	}
	absent := uapi.SubmitRCLSurface{HIndex: 0xFFFFFFFF}
	for _, s := range []uapi.SubmitRCLSurface{a.ColorRead, a.ZSRead, a.ZSWrite, a.MSAAColorWrite, a.MSAAZSWrite} {
		if s != absent {
			t.Errorf("unused surface %+v, want absent", s)
		}
	}
	// Clear to vkcube's 0.2 grey: 51 = 0x33 in B, G and R, 0xFF in X,
	// the bytes of an XRGB8888 pixel read as a little-endian word; depth
	// 1.0 = 0xFFFFFF.
	if a.Flags != uapi.SubmitUseClearColor || a.ClearColor != [2]uint32{0xFF333333, 0xFF333333} || a.ClearZ != 0xFFFFFF || a.ClearS != 0 {
		t.Errorf("flags %#x clear %#x z %#x s %d", a.Flags, a.ClearColor, a.ClearZ, a.ClearS)
	}
	if a.PerfmonID != 0 || a.Pad2 != 0 || a.InSync != 0 || a.OutSync != 0 {
		t.Errorf("perfmon %d pad2 %d syncs %d %d", a.PerfmonID, a.Pad2, a.InSync, a.OutSync)
	}

	// Uniforms: per face FS [texture index 4][P0][P1][5 light words],
	// then VS and CS [MVP 16][x scale][y scale][z scale][z offset].
	var fr scene.Frame
	sc, _ := scene.New(800, 600)
	sc.Update(&fr, 0)
	u := s.uniform
	for i, face := range []scene.Face{scene.FacePosY, scene.FacePosZ} {
		blk := u[i*192:]
		// P0: offset 0, FLIPY (bit 8), type RGBA8888 (0), one level.
		// P1: height 256 (bits 30:20), width 256 (18:8), nearest mag
		// (bit 7) and min (1 in 6:4), clamp T (1 in 3:2) and S (1 in
		// 1:0) — AG Tables 15, 16, 19.
		if got := [3]uint32{le32(blk, 0), le32(blk, 1), le32(blk, 2)}; got != [3]uint32{4, 0x100, 0x10010095} {
			t.Errorf("face %v FS block head %#x", face, got)
		}
		light := shaders.LightFor(fr.Light[face]).Uniforms()
		for k := range light {
			if le32(blk, 3+k) != light[k] {
				t.Errorf("face %v light word %d = %#x, want %#x", face, k, le32(blk, 3+k), light[k])
			}
		}
		for _, base := range []int{8, 28} { // VS block, CS block
			for k := 0; k < 16; k++ {
				if got := math.Float32frombits(le32(blk, base+k)); got != fr.MVP[k] {
					t.Errorf("face %v block @%d mvp[%d] = %v, want %v", face, base, k, got, fr.MVP[k])
				}
			}
			want := [4]float32{6400, -4800, 0.5, 0.5}
			for k, w := range want {
				if got := math.Float32frombits(le32(blk, base+16+k)); got != w {
					t.Errorf("face %v block @%d word %d = %v, want %v", face, base, 16+k, got, w)
				}
			}
		}
	}
}

// Every frame from 0 to 89 draws the faces the scene says face the
// camera, never fewer than one or more than three (a convex cube seen from
// outside), each with its own record and blocks.
func TestFacesFollowTheScene(t *testing.T) {
	f := newFakeGPU(t)
	r := newRenderer(t, f, cuberender.Options{Width: 1280, Height: 720})
	for k := 0; k < 90; k++ {
		if _, err := r.Render(k%2, scene.AngleForFrame(k)); err != nil {
			t.Fatal(err)
		}
		fr := r.Frame()
		want := 0
		for _, ff := range fr.FrontFacing {
			if ff {
				want++
			}
		}
		s := f.submits[len(f.submits)-1]
		if r.Faces() != want || want < 1 || want > 3 || s.args.ShaderRecCount != uint32(want) || len(s.uniform) != want*192 {
			t.Fatalf("frame %d: drew %d faces, %d records, %d uniform bytes; scene has %d facing", k, r.Faces(), s.args.ShaderRecCount, len(s.uniform), want)
		}
	}
}

// FlipByCPU leaves P0's FLIPY clear: P0 is 0 (offset 0, RGBA8888, one
// level) and the texture's first row in memory is the picture's bottom row.
func TestFlipModes(t *testing.T) {
	pic := defaulttex.Picture(cuberender.ScanoutOrder)
	for _, mode := range []texture.FlipMode{texture.FlipByGPU, texture.FlipByCPU} {
		f := newFakeGPU(t)
		r := newRenderer(t, f, cuberender.Options{Width: 800, Height: 600, Flip: mode})
		p0, _ := r.TextureParams()
		wantP0 := uint32(0)
		if mode == texture.FlipByGPU {
			wantP0 = 0x100
		}
		if p0 != wantP0 {
			t.Errorf("%v: P0 %#x, want %#x", mode, p0, wantP0)
		}
		// Handle 5 is the texture (after three shaders and the vertices).
		mem := f.bos[5]
		l, err := texture.NewLayout(texture.TFormat, 4, 256, 256)
		if err != nil {
			t.Fatal(err)
		}
		for _, px := range [][2]int{{0, 0}, {37, 0}, {0, 255}, {200, 130}} {
			x, memRow := px[0], px[1]
			picRow := memRow
			if mode == texture.FlipByCPU {
				picRow = 255 - memRow
			}
			got := mem[l.Offset(x, memRow):][:4]
			want := pic.Pix[picRow*pic.Stride+4*x:][:4]
			if !bytes.Equal(got, want) {
				t.Errorf("%v: texel (%d, memory row %d) = % x, want picture row %d: % x", mode, x, memRow, got, picRow, want)
			}
		}
	}
}

// The vertex BO holds the positions, then the texture coordinates, of
// vkcube's 36 vertices as float32. Vertex 0 is cube.c's first: (−1, −1, −1)
// with uv (0, 1), i.e. s = 0, t = 1 − 1 = 0 in GL's convention.
func TestVertexBuffer(t *testing.T) {
	f := newFakeGPU(t)
	newRenderer(t, f, cuberender.Options{Width: 800, Height: 600})
	mem := f.bos[4]
	fl := func(off int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(mem[off:])) }
	if got := [5]float32{fl(0), fl(4), fl(8), fl(432), fl(436)}; got != [5]float32{-1, -1, -1, 0, 0} {
		t.Errorf("vertex 0: %v", got)
	}
	verts := scene.Vertices()
	for i, v := range verts {
		for c := 0; c < 3; c++ {
			if fl(12*i+4*c) != v.Position[c] {
				t.Fatalf("vertex %d position %d", i, c)
			}
		}
		if fl(432+8*i) != v.S || fl(436+8*i) != v.T {
			t.Fatalf("vertex %d texcoord", i)
		}
	}
}

// Build and Submit allocate nothing per frame (the fake answers without
// allocating; drmtest.Conn's contract).
func TestFrameAllocatesNothing(t *testing.T) {
	f := newFakeGPU(t)
	f.keep = false
	r := newRenderer(t, f, cuberender.Options{Width: 800, Height: 600, Counters: true})
	k := 0
	allocs := testing.AllocsPerRun(200, func() {
		if _, err := r.Render(k%2, scene.AngleForFrame(k)); err != nil {
			t.Fatal(err)
		}
		if err := r.WaitBuffer(k % 2); err != nil {
			t.Fatal(err)
		}
		k++
	})
	if allocs != 0 {
		t.Errorf("%v allocations per frame, want 0", allocs)
	}
}

// New fails cleanly at every allocation and mapping it makes: the error
// names what it was making, and every BO made before is closed exactly
// once (fakeGPU.leaks via newRenderer's cleanup is not reached, so check
// here).
func TestNewFailsWithoutLeaks(t *testing.T) {
	// Three shaders, vertices, texture, two colour buffers.
	const allocations = 7
	for n := 1; n <= allocations; n++ {
		f := newFakeGPU(t)
		f.failAt = n
		r, err := cuberender.New(f, cuberender.Options{Width: 800, Height: 600})
		if err == nil {
			r.Close()
			t.Fatalf("allocation %d: New succeeded", n)
		}
		if !errors.Is(err, unix.ENOMEM) || !strings.Contains(err.Error(), "CMA") {
			t.Errorf("allocation %d: %v: want ENOMEM with the CMA hint", n, err)
		}
		if lerr := f.leaks(); lerr != nil {
			t.Errorf("allocation %d (%v): %v", n, err, lerr)
		}
	}
	f := newFakeGPU(t)
	f.mapFail = true
	if _, err := cuberender.New(f, cuberender.Options{Width: 800, Height: 600}); err == nil || !strings.Contains(err.Error(), "mapping the vertex buffer") {
		t.Errorf("mmap failure: %v", err)
	}
	if err := f.leaks(); err != nil {
		t.Error(err)
	}
}

func TestOptionsChecked(t *testing.T) {
	bad := []cuberender.Options{
		{Width: 0, Height: 600},
		{Width: 4096, Height: 600},
		{Width: 800, Height: 600, Buffers: 5},
		{Width: 800, Height: 600, Texture: texture.Picture{Pix: make([]byte, 12), Width: 2, Height: 2, Stride: 6, Cpp: 3}},
		{Width: 800, Height: 600, Texture: texture.Picture{Pix: make([]byte, 4), Width: 2, Height: 2, Stride: 8, Cpp: 4}},
	}
	for _, o := range bad {
		f := newFakeGPU(t)
		if r, err := cuberender.New(f, o); err == nil {
			r.Close()
			t.Errorf("%+v accepted", o)
		}
		if f.allocs != 0 {
			t.Errorf("%+v: %d allocations before refusing", o, f.allocs)
		}
	}
}

func TestCloseOnce(t *testing.T) {
	f := newFakeGPU(t)
	r, err := cuberender.New(f, cuberender.Options{Width: 640, Height: 480, Buffers: 3, Counters: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Render(2, 10); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.leaks(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Render(0, 0); err == nil {
		t.Error("Render after Close succeeded")
	}
}

// The perfmon is attached to every frame when the kernel has perfmons, and
// the renderer runs without one when it answers EINVAL (older kernels).
func TestCounters(t *testing.T) {
	for _, supported := range []bool{false, true} {
		f := newFakeGPU(t)
		f.perfmon = supported
		r := newRenderer(t, f, cuberender.Options{Width: 800, Height: 600, Counters: true})
		if r.HasCounters() != supported {
			t.Errorf("supported %v: HasCounters %v", supported, r.HasCounters())
		}
		if _, err := r.Render(0, 0); err != nil {
			t.Fatal(err)
		}
		id := f.submits[0].args.PerfmonID
		if (id != 0) != supported {
			t.Errorf("supported %v: perfmon id %d in the submit", supported, id)
		}
	}
}

func TestWaitTimeoutIsAHang(t *testing.T) {
	f := newFakeGPU(t)
	r := newRenderer(t, f, cuberender.Options{Width: 800, Height: 600})
	err := r.Wait(99) // the fake has finished nothing that high
	var h *cuberender.HangError
	if !errors.As(err, &h) || !errors.Is(err, unix.ETIME) || !strings.Contains(err.Error(), "Resetting GPU") {
		t.Errorf("got %v", err)
	}
	if done, err := r.Done(99); done || err != nil {
		t.Errorf("Done(99) = %v, %v", done, err)
	}
}

// The NV job: per visible face an NV_SHADER_STATE (65) and the draw, and
// in shader_rec the pre-upstream relocations (FS BO 0, vertex BO 1) with a
// 16-byte record (single-threaded FS, stride 20, 2 varyings); the kernel's
// EINVAL comes back explained, and the temporary BO is freed.
func TestNVPipeline(t *testing.T) {
	f := newFakeGPU(t)
	f.refuse = unix.EINVAL
	r := newRenderer(t, f, cuberender.Options{Width: 800, Height: 600})
	err := r.SubmitNV(0)
	var nv *cuberender.NVRefusedError
	if !errors.As(err, &nv) || !errors.Is(err, unix.EINVAL) || !strings.Contains(err.Error(), "packet 65") {
		t.Fatalf("got %v", err)
	}
	s := f.submits[0]
	if n := bytes.Count(s.bin, []byte{0x41, 0, 0, 0, 0, 0x21}); n != 2 {
		t.Errorf("%d NV_SHADER_STATE + draw pairs in % x", n, s.bin)
	}
	want := []byte{0, 0, 0, 0, 1, 0, 0, 0, 0x01, 20, 7, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	if !bytes.HasPrefix(s.recs, want) || len(s.recs) != 2*len(want) {
		t.Errorf("NV records % x", s.recs)
	}
	// Shaded vertex data: 36 vertices of 20 bytes, freed after the submit.
	if len(f.bos) != 7 {
		t.Errorf("%d BOs live after SubmitNV, want the renderer's 7", len(f.bos))
	}
	f.refuse = 0
	if err := r.SubmitNV(0); !errors.Is(err, cuberender.ErrNVAccepted) {
		t.Errorf("accepted: %v", err)
	}
}

func TestDump(t *testing.T) {
	f := newFakeGPU(t)
	r := newRenderer(t, f, cuberender.Options{Width: 800, Height: 600})
	if err := r.Build(0, 0); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := r.Dump(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"TILE_BINNING_MODE_CONFIG", "GL_SHADER_STATE", "GL_ARRAY_PRIMITIVE", "CLIPPER_XY_SCALING",
		"P0{", "P1{256x256", "color_write: hindex 5 offset 0 bits 0x0004", "zs_write: absent",
		"fragment", "vertex", "coordinate"} {
		if !strings.Contains(out, want) {
			t.Errorf("dump lacks %q", want)
		}
	}
	if testing.Verbose() {
		t.Log(out)
	}
}

// Decode reads a linear colour buffer's B, G, R, X bytes into RGB, row 0 at
// the top.
func TestDecode(t *testing.T) {
	l, err := texture.NewLayout(texture.Linear, 4, 4, 2)
	if err != nil {
		t.Fatal(err)
	}
	mem := make([]byte, l.Size())
	// Pixel (1, 0): B=1 G=2 R=3; pixel (3, 1): B=0xAA G=0xBB R=0xCC.
	copy(mem[4:], []byte{1, 2, 3, 0})
	copy(mem[16+12:], []byte{0xAA, 0xBB, 0xCC, 0x55})
	img, err := cuberender.Decode(mem, l)
	if err != nil {
		t.Fatal(err)
	}
	if got := img.NRGBAAt(1, 0); got.R != 3 || got.G != 2 || got.B != 1 || got.A != 255 {
		t.Errorf("(1, 0) = %v", got)
	}
	if got := img.NRGBAAt(3, 1); got.R != 0xCC || got.G != 0xBB || got.B != 0xAA || got.A != 255 {
		t.Errorf("(3, 1) = %v", got)
	}
	if _, err := cuberender.Decode(mem[:8], l); err == nil {
		t.Error("short buffer accepted")
	}
}

// BenchmarkFrameCPU measures a frame's CPU work on the render loop:
// turning the scene and building the submit, frame after frame as the
// program does (the turns repeat every 90 frames, so after the first turn
// the faces' light and FS constants come from the scene's and the
// renderer's memos). The goal: ≤ 1 µs and 0 allocations.
func BenchmarkFrameCPU(b *testing.B) {
	f := newFakeGPU(b)
	r, err := cuberender.New(f, cuberender.Options{Width: 800, Height: 600})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		if err := r.Build(k&1, scene.AngleForFrame(k)); err != nil {
			b.Fatal(err)
		}
	}
}

// A frame whose job ended without the GPU storing its last tile (the
// kernel reset a hung GPU and completed the job) is a LostFrameError,
// once; the frames before and after it are whole.
func TestLostFrame(t *testing.T) {
	f := newFakeGPU(t)
	f.hangAt = 2
	r := newRenderer(t, f, cuberender.Options{Width: 640, Height: 480})
	for k := 0; k < 3; k++ {
		seqno, err := r.Render(k%2, scene.AngleForFrame(k))
		if err != nil {
			t.Fatal(err)
		}
		err = r.Wait(seqno)
		var lost *cuberender.LostFrameError
		switch {
		case seqno == f.hangAt && (!errors.As(err, &lost) || lost.Seqno != seqno || lost.Buffer != k%2):
			t.Errorf("frame %d (seqno %d): %v, want a LostFrameError", k, seqno, err)
		case seqno != f.hangAt && err != nil:
			t.Errorf("frame %d (seqno %d): %v", k, seqno, err)
		}
	}
	// Told once: the buffer's frame was checked.
	if err := r.WaitBuffer(1); err != nil {
		t.Errorf("WaitBuffer after the lost frame: %v", err)
	}
}
