package vcd

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/sim/gpu/internal/gputest"
	"github.com/vccube/vccube/sim/gpu/qpuexec"
	"github.com/vccube/vccube/sim/gpu/vertex"
	"github.com/vccube/vccube/sim/mem"
	"github.com/vccube/vccube/texture"
	"github.com/vccube/vccube/texture/convert"
)

// The VCD copies each selected array's bytes for each vertex into the
// vertex's VPM column at the stage's offset, four bytes per row,
// little-endian ([AG] §7 "Vertex Attribute Format in VPM from VCD",
// Table 45).
func TestFetchPlacesAttributes(t *testing.T) {
	m := gputest.NewMem(t, 1<<20)
	buf := m.Alloc(t, 8192, mem.Read, "attributes")
	for i := range 4096 {
		buf.B[i] = byte(i)
	}
	g := vertex.GLRecord{NumAttributes: 3, Extended: true}
	g.Record.CSAttributeSelect = 0b101 // arrays 0 and 2 for the CS
	g.Attributes[0] = cl.AttributeRecord{Address: buf.Addr, SizeMinusOne: 5, Stride: 10, CSVPMOffset: 0}
	g.Attributes[1] = cl.AttributeRecord{Address: buf.Addr, SizeMinusOne: 3, Stride: 4, CSVPMOffset: 0}
	g.Attributes[2] = cl.AttributeRecord{Address: buf.Addr + 1000, SizeMinusOne: 3, Stride: 0x10, CSVPMOffset: 8}
	g.ExtendedStrides[2] = 0x100 // stride 0x110 (vc4_validate.c: stride |= ext & ~0xff)
	var vpm qpuexec.VPM
	seg := qpuexec.Segment{Base: 0, Rows: 8}
	if err := fetch(m.View, &g, Coordinate, []uint32{2, 5}, &vpm, seg); err != nil {
		t.Fatal(err)
	}
	le := func(b ...int) uint32 {
		return uint32(byte(b[0])) | uint32(byte(b[1]))<<8 | uint32(byte(b[2]))<<16 | uint32(byte(b[3]))<<24
	}
	for k, idx := range []int{2, 5} {
		a0 := 10 * idx         // array 0: 6 bytes at 10·index
		a2 := 1000 + 0x110*idx // array 2: 4 bytes at 1000 + 0x110·index
		if got, want := vpm.Word(seg, 0, k), le(a0, a0+1, a0+2, a0+3); got != want {
			t.Errorf("vertex %d row 0 = %#x, want %#x", k, got, want)
		}
		if got, want := vpm.Word(seg, 1, k)&0xFFFF, le(a0+4, a0+5, 0, 0); got != want {
			t.Errorf("vertex %d row 1 = %#x, want %#x in the low half", k, got, want)
		}
		if got, want := vpm.Word(seg, 2, k), le(a2, a2+1, a2+2, a2+3); got != want {
			t.Errorf("vertex %d row 2 = %#x, want %#x", k, got, want)
		}
	}
	// Selecting an array the record does not have is an error.
	g.Record.CSAttributeSelect = 0b1000
	if err := fetch(m.View, &g, Coordinate, []uint32{0}, &vpm, seg); err == nil {
		t.Error("array 3 of a 3-array record fetched")
	}
	// An attribute outside the job's memory faults.
	g.Record.CSAttributeSelect = 1
	g.Attributes[0].Address = buf.Addr + 8190
	if err := fetch(m.View, &g, Coordinate, []uint32{0}, &vpm, seg); err == nil {
		t.Error("attribute past the buffer fetched")
	}
}

// TestFetchSpanMatchesRead: the VCD's reads through the last region
// found give View.Read's bytes and faults, for vertices that move between
// two buffers, run past the end of one and fall outside both.
func TestFetchSpanMatchesRead(t *testing.T) {
	m := gputest.NewMem(t, 1<<20)
	a := m.Alloc(t, 4096, mem.Read, "attributes a")
	b := m.Alloc(t, 4096, mem.Read, "attributes b")
	for i := range 4096 {
		a.B[i], b.B[i] = byte(i), byte(i*7+3)
	}
	var sp attrSpan
	addrs := []uint32{a.Addr, a.Addr + 100, b.Addr + 4090, a.Addr + 4092, b.Addr + 5, b.Addr + 4093, a.Addr + 4000, b.Addr + 4096, a.Addr + 8}
	for _, addr := range addrs {
		for _, n := range []uint32{1, 4, 6} {
			before, _ := m.View.Faults()
			got, gerr := sp.read(m.View, addr, n)
			mid, _ := m.View.Faults()
			want, werr := m.View.Read(addr, n, "VCD attribute fetch")
			after, _ := m.View.Faults()
			if (gerr == nil) != (werr == nil) || mid-before != after-mid || string(got) != string(want) {
				t.Fatalf("%d bytes at %#x: % x, %v (%d faults); View.Read: % x, %v (%d faults)", n, addr, got, gerr, mid-before, want, werr, after-mid)
			}
		}
	}
}

// A vertex or coordinate shader samples textures as a fragment shader
// does (GL ES 2.0 vertex texturing; Mesa's vc4 compiler emits the same
// TMU writes in every stage, vc4_program.c ntq_emit_tex, with P2's BSLOD
// and an explicit LOD of 0 outside the fragment stage). The 16 vertices
// look up texels spread over the whole texture, which would make an
// automatic level of detail pick a small mip level; BSLOD with LOD 0 reads
// level 0 exactly. The lookup counts four texture quads.
func TestShaderTextureLookup(t *testing.T) {
	m := gputest.NewMem(t, 1<<20)
	// A 4x4 RGBA8888 texture with two levels: level 0's texel (x, y) is
	// 0xFF0000yx, level 1 is all 0x11111111.
	const w, h = 4, 4
	plan, err := texture.NewMipPlan(texture.RGBA8888, w, h, 2)
	if err != nil {
		t.Fatal(err)
	}
	tex := m.Alloc(t, 2*texture.TileBytes+plan.Size(), mem.Read, "texture")
	pic0, err := texture.NewPicture(w, h, 4)
	if err != nil {
		t.Fatal(err)
	}
	pic1, err := texture.NewPicture(w/2, h/2, 4)
	if err != nil {
		t.Fatal(err)
	}
	pics := []texture.Picture{pic0, pic1}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			binary.LittleEndian.PutUint32(pics[0].Pix[y*pics[0].Stride+4*x:], 0xFF000000|uint32(y)<<4|uint32(x))
		}
	}
	for i := range pics[1].Pix {
		pics[1].Pix[i] = 0x11
	}
	base := (tex.Addr + texture.TileBytes - 1) &^ (texture.TileBytes - 1)
	if err := convert.Upload(&plan, tex.B[base-tex.Addr:], pics, false); err != nil {
		t.Fatal(err)
	}
	sampler := texture.Sampler{Mag: texture.MagNearest, Min: texture.MinNearMipNear}
	p0, p1, err := plan.Params(0, texture.FlipByCPU, sampler)
	if err != nil {
		t.Fatal(err)
	}
	p0.Base = base + uint32(plan.BaseOffset())
	w0, _ := p0.Encode()
	w1, _ := p1.Encode()
	w2, _ := texture.P2{Kind: texture.ParamCubeStride, DisableAutoLOD: true}.Encode()

	// The shader: s = (elem & 3 + 0.5)/4, t = (elem >> 2 + 0.5)/4; T, B
	// (LOD 0) and S with P0, P1, P2; ldtmu0; the texel to VPM row 0.
	wsetup, _ := qpu.HorizontalVPM32(0, 1).EncodeWrite()
	var a qpu.Asm
	a.I(qpu.And(qpu.R0, qpu.ElemNum, qpu.SmallInt(3)))
	a.I(qpu.Shr(qpu.R1, qpu.ElemNum, qpu.SmallInt(2)))
	a.I(qpu.IToF(qpu.R0, qpu.R0))
	a.I(qpu.IToF(qpu.R1, qpu.R1))
	a.I(qpu.FAdd(qpu.R0, qpu.R0, qpu.SmallFloat(0.5)))
	a.I(qpu.FAdd(qpu.R1, qpu.R1, qpu.SmallFloat(0.5)))
	a.I(qpu.FMul(qpu.R0, qpu.R0, qpu.SmallFloat(0.25)))
	a.I(qpu.FMul(qpu.R1, qpu.R1, qpu.SmallFloat(0.25)))
	a.I(qpu.Mov(qpu.TMU0T, qpu.R1))
	a.I(qpu.Mov(qpu.TMU0B, qpu.SmallInt(0)))
	a.I(qpu.Mov(qpu.TMU0S, qpu.R0))
	a.I(qpu.LoadImm(qpu.VWSetup, wsetup))
	a.I(qpu.SigLoadTMU0)
	a.I(qpu.Mov(qpu.VPM, qpu.R4))
	a.I(qpu.SigProgramEnd)
	a.I()
	a.I()
	code := a.MustAssemble()
	prog := m.Alloc(t, 8*len(code), mem.Read, "shader")
	for i, c := range code {
		binary.LittleEndian.PutUint64(prog.B[8*i:], c)
	}
	unif := m.Alloc(t, 16, mem.Read, "uniforms")
	binary.LittleEndian.PutUint32(unif.B[0:], w0)
	binary.LittleEndian.PutUint32(unif.B[4:], w1)
	binary.LittleEndian.PutUint32(unif.B[8:], w2)

	var g vertex.GLRecord
	g.Record.CSCodeAddress, g.Record.CSUniformsAddress = prog.Addr, unif.Addr
	u := NewUnit(qpuexec.NewCache(), 0, false)
	u.SetView(m.View)
	idx := make([]uint32, 16)
	if err := u.shade(&g, Coordinate, idx); err != nil {
		t.Fatal(err)
	}
	for k := range 16 {
		x, y := k&3, k>>2
		if got, want := u.vpm.Word(writeSeg, 0, k), 0xFF000000|uint32(y)<<4|uint32(x); got != want {
			t.Errorf("vertex %d read %#08x, want level 0's texel (%d,%d) %#08x", k, got, x, y, want)
		}
	}
	if u.TexQuads != 4 {
		t.Errorf("TexQuads = %d, want 4 (one lookup of 16 elements)", u.TexQuads)
	}
}

// TestProgramKeptForOneCallOnly: the program the first batch of a Coords
// or Vertices call loads serves the call's other batches, never the next
// call's, which may name another program: two coordinate shaders at two
// addresses, each writing its own 1/Wc, shade 40 vertices (three batches)
// in turn, on the fast path and with reference.
func TestProgramKeptForOneCallOnly(t *testing.T) {
	m := gputest.NewMem(t, 1<<20)
	f := qpu.CoordinateFormat(false)
	program := func(invW float32) uint32 {
		wsetup, _ := qpu.HorizontalVPM32(0, f.Words()).EncodeWrite()
		var a qpu.Asm
		a.I(qpu.LoadImm(qpu.VWSetup, wsetup))
		for range f.Words() {
			a.I(qpu.LoadImm(qpu.VPM, math.Float32bits(invW)))
		}
		a.I(qpu.SigProgramEnd)
		a.I()
		a.I()
		code := a.MustAssemble()
		prog := m.Alloc(t, 8*len(code), mem.Read, "shader")
		for i, c := range code {
			binary.LittleEndian.PutUint64(prog.B[8*i:], c)
		}
		return prog.Addr
	}
	unif := m.Alloc(t, 16, mem.Read, "uniforms")
	codes := []uint32{program(1), program(2)}
	for _, reference := range []bool{false, true} {
		u := NewUnit(qpuexec.NewCache(), 0, false)
		u.SetView(m.View)
		u.SetReference(reference)
		idx := make([]uint32, 40)
		out := make([]vertex.Coord, len(idx))
		for call := range 4 {
			var s vertex.State
			s.Kind = vertex.GL
			s.GL.Record.CSCodeAddress, s.GL.Record.CSUniformsAddress = codes[call%2], unif.Addr
			if err := u.Coords(&s, idx, out); err != nil {
				t.Fatal(err)
			}
			for k, c := range out {
				if want := float32(call%2 + 1); c.InvW != want {
					t.Fatalf("reference %v, call %d: vertex %d's 1/Wc = %v, want %v (the other call's program)", reference, call, k, c.InvW, want)
				}
			}
		}
	}
}
