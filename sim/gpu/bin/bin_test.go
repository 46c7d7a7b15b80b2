package bin

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/prim"
	"github.com/vccube/vccube/cl/spec"
	"github.com/vccube/vccube/sim/gpu/cle"
	"github.com/vccube/vccube/sim/gpu/internal/gputest"
	"github.com/vccube/vccube/sim/gpu/vertex"
	"github.com/vccube/vccube/sim/mem"
)

// nvShader shades coordinates from NV-mode vertex data.
type nvShader struct{ v *mem.View }

func (s nvShader) Coords(st *vertex.State, idx []uint32, out []vertex.Coord) error {
	return vertex.NVCoords(s.v, st, idx, out)
}

// job is a hand-built binning job.
type job struct {
	m        *gputest.Mem
	cl       gputest.Buf
	tiles    gputest.Buf // TSDA then tile allocation memory
	allocOff uint32
	allocLen uint32
	data     gputest.Buf
	tx, ty   int
	verts    []byte
	list     []byte
	overflow func() (mem.Region, bool)
}

func newJob(t *testing.T, tx, ty int, allocLen uint32) *job {
	m := gputest.NewMem(t, 8<<20)
	j := &job{m: m, tx: tx, ty: ty, allocLen: allocLen}
	j.cl = m.Alloc(t, 64<<10, mem.Read, "bin CL")
	j.tiles = m.Alloc(t, 4096+int(allocLen), mem.Read|mem.Write, "binner slot")
	j.allocOff = 4096
	j.data = m.Alloc(t, 64<<10, mem.Read, "NV data")
	cfg := cl.TileBinningModeConfig{
		TileAllocAddress: j.tiles.Addr + j.allocOff, TileAllocSize: allocLen,
		TileStateAddress: j.tiles.Addr, WidthInTiles: uint8(tx), HeightInTiles: uint8(ty),
		AutoInitTileState: true, InitialBlockSize: cl.BlockSize32, BlockSize: cl.BlockSize128,
	}
	j.list = cfg.Append(j.list)
	j.list = cl.StartTileBinning{}.Append(j.list)
	j.list = cl.PrimitiveListFormat{Type: cl.PrimitiveListTypeTriangles, DataType: cl.PrimitiveListData16BitIndex}.Append(j.list)
	j.list = cl.ClipWindow{Left: 0, Bottom: 0, Width: uint16(64 * tx), Height: uint16(64 * ty)}.Append(j.list)
	j.list = cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true}.Append(j.list)
	j.list = cl.ViewportOffset{X: cl.SubpixelOf(0), Y: cl.SubpixelOf(0)}.Append(j.list)
	j.list = cl.ClipperXYScaling{HalfWidth: float32(32 * 16 * tx), HalfHeight: float32(32 * 16 * ty)}.Append(j.list)
	j.list = cl.ClipperZScaling{Scale: 0.5, Offset: 0.5}.Append(j.list)
	return j
}

// vertex adds an NV vertex at screen pixel (x, y) (viewport offset 0),
// with clip coordinates that agree with it (w = 1).
func (j *job) vertex(x, y float64) {
	sx, sy := float64(32*j.tx), float64(32*j.ty)
	j.verts = gputest.AppendNV(j.verts, gputest.NVVertex{
		Clip: [4]float32{float32(x / sx), float32(y / sy), 0, 1}, X: x, Y: y, Z: 0.5, InvW: 1,
	})
}

// shaderState writes the NV record for the vertices so far and appends
// NV_SHADER_STATE to the list.
func (j *job) shaderState() {
	va := j.data.Put(256, j.verts)
	rec := cl.NVShaderRecord{ClipHeaderIncluded: true, EnableClipping: true, Stride: 28, VertexDataAddress: va}
	ra := j.data.Put(0, rec.Append(nil))
	j.list = cl.NVShaderState{Address: ra}.Append(j.list)
}

// run ends the list (INCREMENT_SEMAPHORE, FLUSH) and bins it.
func (j *job) run(t *testing.T) (*Binner, error) {
	j.list = cl.IncrementSemaphore{}.Append(j.list)
	j.list = cl.Flush{}.Append(j.list)
	a := j.cl.Put(0, j.list)
	b := New(nvShader{j.m.View})
	var sem cle.Semaphore
	b.Start(j.m.View, a, a+uint32(len(j.list)), j.overflow, nil, &sem, cle.DefaultLimits)
	st, err := b.Run()
	if err == nil && (st != cle.Done || sem.Count != 1) {
		t.Fatalf("status %v, semaphore %d", st, sem.Count)
	}
	return b, err
}

// entry is one thing found in a tile list.
type entry struct {
	op      spec.Opcode
	prims   []prim.Prim
	clipped cl.ClippedCompressedPrimitive
}

// readTile walks tile (x, y)'s list as the render thread would: a
// BRANCH_TO_SUB_LIST to its initial block, then HALT.
func (j *job) readTile(t *testing.T, x, y int) []entry {
	t.Helper()
	caller := j.m.Alloc(t, 4096, mem.Read, "caller")
	l := cl.BranchToSubList{Address: j.tiles.Addr + j.allocOff + uint32(32*(y*j.tx+x))}.Append(nil)
	l = cl.Halt{}.Append(l)
	a := caller.Put(0, l)
	th := cle.NewThread(j.m.View, "CT1", cle.DefaultLimits)
	th.Start(a, a+100)
	var out []entry
	var f cl.PrimitiveListFormat
	for {
		p, err := th.Next()
		if errors.Is(err, cle.ErrHalted) {
			return out
		}
		if err != nil {
			t.Fatalf("tile (%d,%d): %v", x, y, err)
		}
		e := entry{op: p.Op}
		switch p.Op {
		case spec.OpPrimitiveListFormat:
			f.Unpack(p.Bytes)
		case spec.OpCompressedPrimitive, spec.OpClippedCompressedPrimitive:
			if p.Op == spec.OpClippedCompressedPrimitive {
				e.clipped.Unpack(p.Bytes)
			}
			pf, err := prim.FormatOf(f)
			if err != nil {
				t.Fatal(err)
			}
			d := prim.Decoder{Format: pf}
			for {
				in, err := th.Inline()
				if err != nil {
					t.Fatal(err)
				}
				it, err := d.Next(in)
				if err != nil {
					t.Fatal(err)
				}
				th.Skip(it.Len)
				if it.Kind == prim.Escape {
					break
				}
				if it.Kind != prim.Primitive {
					t.Fatalf("unexpected %v in a compressed list", it.Kind)
				}
				e.prims = append(e.prims, it.Prim)
			}
		}
		out = append(out, e)
	}
}

func prims(es []entry) []prim.Prim {
	var ps []prim.Prim
	for _, e := range es {
		ps = append(ps, e.prims...)
	}
	return ps
}

func has(es []entry, op spec.Opcode) bool {
	for _, e := range es {
		if e.op == op {
			return true
		}
	}
	return false
}

// A triangle over a 2×2-tile frame reaches all four tile lists, each with
// the state copied in before the primitive; a small one reaches one.
func TestTrianglesReachTheTilesTheyTouch(t *testing.T) {
	j := newJob(t, 2, 2, 64<<10)
	j.verts = nil
	// Vertices are relative to the viewport centre (64, 64).
	// Big: (10,10) (120,20) (30,118) touches all four 64×64 tiles (pixel
	// (70,70) lies inside, below-left of the edge (120,20)–(30,118)).
	j.vertex(10-64, 10-64)
	j.vertex(120-64, 20-64)
	j.vertex(30-64, 118-64)
	// Small: inside tile (1,0).
	j.vertex(70-64, 5-64)
	j.vertex(80-64, 5-64)
	j.vertex(70-64, 15-64)
	j = newJobKeep(t, j)
	j.shaderState()
	j.list = cl.GLArrayPrimitive{Mode: cl.PrimitiveModeTriangles, Length: 6, First: 0}.Append(j.list)
	if _, err := j.run(t); err != nil {
		t.Fatal(err)
	}
	want := map[[2]int][]prim.Prim{
		{0, 0}: {{Index: [3]uint32{0, 1, 2}}},
		{1, 0}: {{Index: [3]uint32{0, 1, 2}}, {Index: [3]uint32{3, 4, 5}}},
		{0, 1}: {{Index: [3]uint32{0, 1, 2}}},
		{1, 1}: {{Index: [3]uint32{0, 1, 2}}},
	}
	for tile, w := range want {
		es := j.readTile(t, tile[0], tile[1])
		got := prims(es)
		if len(got) != len(w) {
			t.Fatalf("tile %v: primitives %v, want %v", tile, got, w)
		}
		for i := range w {
			if got[i] != w[i] {
				t.Errorf("tile %v: primitive %d = %v, want %v", tile, i, got[i], w[i])
			}
		}
		for _, op := range []spec.Opcode{spec.OpConfigurationBits, spec.OpClipWindow, spec.OpViewportOffset, spec.OpNVShaderState, spec.OpPrimitiveListFormat} {
			if !has(es, op) {
				t.Errorf("tile %v: no %v before its primitives", tile, op)
			}
		}
	}
}

// newJobKeep rebuilds a job's list prefix with the viewport centre in the
// middle of the frame, keeping its vertices.
func newJobKeep(t *testing.T, old *job) *job {
	j := newJob(t, old.tx, old.ty, old.allocLen)
	j.verts = old.verts
	j.list = j.list[:0]
	cfg := cl.TileBinningModeConfig{
		TileAllocAddress: j.tiles.Addr + j.allocOff, TileAllocSize: j.allocLen,
		TileStateAddress: j.tiles.Addr, WidthInTiles: uint8(j.tx), HeightInTiles: uint8(j.ty),
		AutoInitTileState: true, InitialBlockSize: cl.BlockSize32, BlockSize: cl.BlockSize128,
	}
	j.list = cfg.Append(j.list)
	j.list = cl.StartTileBinning{}.Append(j.list)
	j.list = cl.ClipWindow{Width: uint16(64 * j.tx), Height: uint16(64 * j.ty)}.Append(j.list)
	j.list = cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true}.Append(j.list)
	j.list = cl.ViewportOffset{X: cl.SubpixelOf(float64(32 * j.tx)), Y: cl.SubpixelOf(float64(32 * j.ty))}.Append(j.list)
	j.list = cl.ClipperXYScaling{HalfWidth: float32(32 * 16 * j.tx), HalfHeight: float32(32 * 16 * j.ty)}.Append(j.list)
	j.list = cl.ClipperZScaling{Scale: 0.5, Offset: 0.5}.Append(j.list)
	return j
}

// Facing: the first triangle has positive signed area in frame coordinates
// (counter-clockwise for the hardware, raster.Winding), the second
// negative (clockwise). With the clockwise bit clear the first is
// forward-facing; with it set, the second.
func TestCullingByFacing(t *testing.T) {
	for _, c := range []struct {
		cw, fwd, rev bool
		want         int // primitives in tile (0,0): a CW and a CCW triangle
	}{
		{false, true, true, 2},
		{false, true, false, 1},
		{false, false, true, 1},
		{true, false, true, 1},
		{false, false, false, 0},
	} {
		j := newJob(t, 1, 1, 64<<10)
		j.verts = nil
		// a > 0: (0,0) → (10,0) → (0,10).
		j.vertex(0-32, 0-32)
		j.vertex(10-32, 0-32)
		j.vertex(0-32, 10-32)
		// a < 0: (20,20) → (20,30) → (30,20).
		j.vertex(20-32, 20-32)
		j.vertex(20-32, 30-32)
		j.vertex(30-32, 20-32)
		j = newJobKeep(t, j)
		j.list = cl.ConfigurationBits{Clockwise: c.cw, EnableForwardFacing: c.fwd, EnableReverseFacing: c.rev}.Append(j.list)
		j.shaderState()
		j.list = cl.GLArrayPrimitive{Mode: cl.PrimitiveModeTriangles, Length: 6}.Append(j.list)
		if _, err := j.run(t); err != nil {
			t.Fatal(err)
		}
		ps := prims(j.readTile(t, 0, 0))
		if len(ps) != c.want {
			t.Errorf("clockwise %v forward %v reverse %v: %d primitives, want %d (%v)", c.cw, c.fwd, c.rev, len(ps), c.want, ps)
			continue
		}
		if c.want == 1 {
			firstKept := ps[0].Index[0] == 0
			// The first triangle is forward exactly when the bit is clear.
			if firstKept != ((!c.cw && c.fwd) || (c.cw && c.rev)) {
				t.Errorf("clockwise %v forward %v reverse %v kept %v", c.cw, c.fwd, c.rev, ps[0])
			}
		}
	}
}

// Tile lists grow past their 32-byte initial block into 128-byte blocks,
// and past the allocation into overflow memory; without overflow memory
// the binner reports out of memory.
func TestBlocksAndOverflow(t *testing.T) {
	build := func(allocLen uint32) *job {
		j := newJob(t, 1, 1, allocLen)
		j.verts = nil
		for i := 0; i < 200; i++ {
			x := float64(i%20) * 3
			j.vertex(x-32, 0-32)
			j.vertex(x+2-32, 0-32)
			j.vertex(x-32, 2-32)
		}
		j = newJobKeep(t, j)
		j.shaderState()
		j.list = cl.GLArrayPrimitive{Mode: cl.PrimitiveModeTriangles, Length: 600}.Append(j.list)
		return j
	}
	// Plenty of memory: all 200 primitives, chained across blocks.
	j := build(64 << 10)
	if _, err := j.run(t); err != nil {
		t.Fatal(err)
	}
	ps := prims(j.readTile(t, 0, 0))
	if len(ps) != 200 {
		t.Fatalf("%d primitives, want 200", len(ps))
	}
	for i, p := range ps {
		if p.Index != [3]uint32{uint32(3 * i), uint32(3*i + 1), uint32(3*i + 2)} {
			t.Fatalf("primitive %d = %v", i, p)
		}
	}
	// 512 bytes: 256 for the initial area, two 128-byte blocks, then
	// overflow memory.
	j = build(512)
	over := j.m.Alloc(t, 64<<10, mem.Read|mem.Write, "overflow")
	calls := 0
	j.overflow = func() (mem.Region, bool) {
		calls++
		if calls > 1 {
			return mem.Region{}, false
		}
		return mem.Region{Addr: over.Addr, Size: 64 << 10}, true
	}
	if _, err := j.run(t); err != nil {
		t.Fatal(err)
	}
	if calls != 1 || len(prims(j.readTile(t, 0, 0))) != 200 {
		t.Errorf("overflow calls %d, primitives %d", calls, len(prims(j.readTile(t, 0, 0))))
	}
	// No overflow memory: the binner stalls; the job hangs.
	j = build(512)
	if _, err := j.run(t); err == nil || !errors.Is(err, errOutOfMemory) {
		t.Errorf("err = %v, want out of memory", err)
	}
}

// A triangle with one vertex behind the eye (w < 0) is clipped: the tile
// gets CLIPPED_COMPRESSED_PRIMITIVE records whose vertices have positive
// 1/Wc and weights of the original vertices that sum to 1, and whose
// compressed list names the original triangle.
func TestClippingNearPlane(t *testing.T) {
	j := newJob(t, 1, 1, 64<<10)
	j.verts = nil
	add := func(clip [4]float32) {
		x := float64(clip[0]/clip[3]) * 32
		y := float64(clip[1]/clip[3]) * 32
		j.verts = gputest.AppendNV(j.verts, gputest.NVVertex{Clip: clip, X: x, Y: y, Z: 0.5, InvW: 1 / clip[3]})
	}
	add([4]float32{-0.5, -0.5, 0, 1})
	add([4]float32{0.5, -0.5, 0, 1})
	add([4]float32{0, 2, -3, -1}) // behind: w = −1
	j = newJobKeep(t, j)
	j.shaderState()
	j.list = cl.GLArrayPrimitive{Mode: cl.PrimitiveModeTriangles, Length: 3}.Append(j.list)
	if _, err := j.run(t); err != nil {
		t.Fatal(err)
	}
	es := j.readTile(t, 0, 0)
	n := 0
	for _, e := range es {
		if e.op != spec.OpClippedCompressedPrimitive {
			continue
		}
		n++
		if e.clipped.ClipFlags != 7 || len(e.prims) != 1 || e.prims[0].Index != [3]uint32{0, 1, 2} {
			t.Fatalf("clipped entry %+v", e)
		}
		rec, err := j.m.View.Read(e.clipped.Address, 96, "test")
		if err != nil {
			t.Fatal(err)
		}
		for k := range 3 {
			var v cl.ClippedVertex
			v.Unpack(rec[32*k:])
			s := v.VaryingCoef0 + v.VaryingCoef1 + v.VaryingCoef2
			if math.Abs(float64(s)-1) > 1e-5 || !(v.InvWc > 0) || v.ScreenZ < -1e-6 || v.ScreenZ > 1+1e-6 {
				t.Errorf("record vertex %d: %+v", k, v)
			}
		}
	}
	if n == 0 {
		t.Fatal("no clipped primitive in the tile list")
	}
	// Entirely behind the eye: dropped.
	j = newJob(t, 1, 1, 64<<10)
	j.verts = nil
	add([4]float32{-0.5, -0.5, 0, -1})
	add([4]float32{0.5, -0.5, 0, -1})
	add([4]float32{0, 0.5, 0, -1})
	j = newJobKeep(t, j)
	j.shaderState()
	j.list = cl.GLArrayPrimitive{Mode: cl.PrimitiveModeTriangles, Length: 3}.Append(j.list)
	if _, err := j.run(t); err != nil {
		t.Fatal(err)
	}
	if ps := prims(j.readTile(t, 0, 0)); len(ps) != 0 {
		t.Errorf("triangle behind the eye binned: %v", ps)
	}
}

func TestIndexedDrawAndSemaphoreWait(t *testing.T) {
	j := newJob(t, 1, 1, 64<<10)
	j.verts = nil
	j.vertex(-30, -30)
	j.vertex(-20, -30)
	j.vertex(-30, -20)
	j.vertex(-20, -20)
	j = newJobKeep(t, j)
	j.shaderState()
	idx := j.data.Put(8192, []byte{0, 0, 1, 0, 2, 0, 2, 0, 1, 0, 9, 0})
	// Index 9 is past the maximum index 3 and is clamped to it.
	j.list = cl.GLIndexedPrimitive{Mode: cl.PrimitiveModeTriangles, IndexType: cl.IndexType16Bit, Length: 6, IndexAddress: idx, MaxIndex: 3}.Append(j.list)
	j.list = cl.WaitOnSemaphore{}.Append(j.list)
	j.list = cl.IncrementSemaphore{}.Append(j.list)
	j.list = cl.Flush{}.Append(j.list)
	a := j.cl.Put(0, j.list)
	b := New(nvShader{j.m.View})
	var sem cle.Semaphore
	b.Start(j.m.View, a, a+uint32(len(j.list)), nil, nil, &sem, cle.DefaultLimits)
	st, err := b.Run()
	if err != nil || st != cle.Waiting {
		t.Fatalf("status %v err %v, want Waiting", st, err)
	}
	sem.Count = 1
	if st, err = b.Run(); err != nil || st != cle.Done || sem.Count != 1 {
		t.Fatalf("status %v err %v sem %d", st, err, sem.Count)
	}
	ps := prims(j.readTile(t, 0, 0))
	if len(ps) != 2 || ps[1].Index != [3]uint32{2, 1, 3} {
		t.Errorf("indexed primitives %v", ps)
	}
}

// Each state change reaches the lists: two draws with different shader
// states put both states, in order, before their primitives.
func TestStateChangesReachTheLists(t *testing.T) {
	j := newJob(t, 1, 1, 64<<10)
	j.verts = nil
	j.vertex(-30, -30)
	j.vertex(-20, -30)
	j.vertex(-30, -20)
	j = newJobKeep(t, j)
	j.shaderState()
	j.list = cl.GLArrayPrimitive{Mode: cl.PrimitiveModeTriangles, Length: 3}.Append(j.list)
	j.shaderState() // the same record again: no new state
	j.list = cl.GLArrayPrimitive{Mode: cl.PrimitiveModeTriangles, Length: 3}.Append(j.list)
	rec := cl.NVShaderRecord{ClipHeaderIncluded: true, EnableClipping: true, Stride: 28, VertexDataAddress: j.data.Addr + 256}
	ra := j.data.Put(128, rec.Append(nil))
	j.list = cl.NVShaderState{Address: ra}.Append(j.list)
	j.list = cl.GLArrayPrimitive{Mode: cl.PrimitiveModeTriangles, Length: 3}.Append(j.list)
	if _, err := j.run(t); err != nil {
		t.Fatal(err)
	}
	var seq []spec.Opcode
	for _, e := range j.readTile(t, 0, 0) {
		if e.op == spec.OpNVShaderState || e.op == spec.OpCompressedPrimitive {
			seq = append(seq, e.op)
		}
	}
	want := []spec.Opcode{spec.OpNVShaderState, spec.OpCompressedPrimitive, spec.OpNVShaderState, spec.OpCompressedPrimitive}
	if len(seq) != len(want) {
		t.Fatalf("list %v, want %v", seq, want)
	}
	for i := range want {
		if seq[i] != want[i] {
			t.Fatalf("list %v, want %v", seq, want)
		}
	}
}

// A draw longer than the binner's vertex window: a fan of 2500 vertices
// keeps its pivot (position 0) across windows.
func TestLongFanAcrossWindows(t *testing.T) {
	j := newJob(t, 1, 1, 256<<10)
	j.verts = nil
	j.vertex(0, 0)
	for i := 1; i < 2500; i++ {
		a := float64(i) * 0.01
		j.vertex(20*math.Cos(a), 20*math.Sin(a))
	}
	j = newJobKeep(t, j)
	rec := cl.NVShaderRecord{ClipHeaderIncluded: true, EnableClipping: true, Stride: 28}
	j.data = j.m.Alloc(t, 128<<10, mem.Read, "NV data")
	rec.VertexDataAddress = j.data.Put(256, j.verts)
	ra := j.data.Put(0, rec.Append(nil))
	j.list = cl.NVShaderState{Address: ra}.Append(j.list)
	j.list = cl.GLArrayPrimitive{Mode: cl.PrimitiveModeTriangleFan, Length: 2500}.Append(j.list)
	if _, err := j.run(t); err != nil {
		t.Fatal(err)
	}
	// Triangles that hold no pixel centre are not binned (the thin ones
	// along the axes); every one binned is (0, k, k+1), in order, and the
	// last ones come from past the first window.
	ps := prims(j.readTile(t, 0, 0))
	if len(ps) < 2400 {
		t.Fatalf("%d primitives, want most of 2498", len(ps))
	}
	last := uint32(0)
	for i, p := range ps {
		if p.Index[0] != 0 || p.Index[2] != p.Index[1]+1 || p.Index[1] <= last {
			t.Fatalf("primitive %d = %v after %d", i, p.Index, last)
		}
		last = p.Index[1]
	}
	if last < 2400 {
		t.Errorf("last primitive starts at %d", last)
	}
}

// A draw that names more vertices than the model's bound ends the job,
// on every architecture: GL_ARRAY_PRIMITIVE's 32-bit length of 2³¹ or
// more does not fit a 32-bit int, and must not turn into a negative count
// that draws nothing (GOARCH=arm).
func TestHugeDrawHitsTheVertexBound(t *testing.T) {
	for _, n := range []uint32{uint32(cle.DefaultLimits.Vertices) + 1, 1 << 31, 1<<32 - 1} {
		j := newJob(t, 1, 1, 4096)
		j.vertex(10, 10)
		j.vertex(50, 10)
		j.vertex(10, 50)
		j.shaderState()
		j.list = cl.GLArrayPrimitive{Mode: cl.PrimitiveModeTriangles, Length: n}.Append(j.list)
		if _, err := j.run(t); err == nil || !strings.Contains(err.Error(), "bound") {
			t.Errorf("a draw of %d vertices: %v, want the vertex bound", n, err)
		}
	}
}
