package gpu

import (
	"encoding/binary"
	"testing"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/sim/gpu/internal/gputest"
	"github.com/vccube/vccube/sim/hw"
	"github.com/vccube/vccube/sim/mem"
)

// tjob is a hand-built job: buffers in a pool, a binning list built with
// package cl's encoders, and a render list as the kernel builds it.
type tjob struct {
	t        *testing.T
	m        *gputest.Mem
	w, h     int
	tx, ty   int
	color    gputest.Buf // linear RGBA8888 frame
	stride   int
	zs       gputest.Buf // T-format Z/stencil
	binMem   gputest.Buf // tile state array, then tile allocation memory
	code     gputest.Buf
	codeOff  int
	data     gputest.Buf
	dataOff  int
	bin      []byte
	counters hw.Counters
	rcl      gputest.RCL
	ms       bool
}

const allocLen = 1 << 20

func newTJob(t *testing.T, w, h int) *tjob {
	t.Helper()
	j := &tjob{t: t, m: gputest.NewMem(t, 32<<20), w: w, h: h, tx: (w + 63) / 64, ty: (h + 63) / 64}
	j.stride = (w + 3) / 4 * 4 * 4
	j.color = j.m.Alloc(t, j.stride*h, mem.Read|mem.Write, "colour")
	zw, zh := (w+31)/32*32, (h+31)/32*32
	j.zs = j.m.Alloc(t, zw*zh*4, mem.Read|mem.Write, "Z/stencil")
	j.binMem = j.m.Alloc(t, 4096+allocLen, mem.Read|mem.Write, "binner slot")
	j.code = j.m.Alloc(t, 64<<10, mem.Read, "shaders")
	j.data = j.m.Alloc(t, 1<<20, mem.Read, "records, vertices, uniforms, textures")
	j.rcl = gputest.RCL{Width: w, Height: h, Color: &gputest.Surface{Addr: j.color.Addr},
		ColorFormat: cl.RenderFormatRGBA8888, UseClear: true, ClearZ: 0xFFFFFF}
	return j
}

// multisample makes the job render in 4× multisample mode: 32×32 tiles
// for the binner and the render list, the frame buffer store resolving.
func (j *tjob) multisample() {
	j.ms = true
	j.tx, j.ty = (j.w+31)/32, (j.h+31)/32
	j.rcl.MS = true
}

// put stores bytes in the data buffer, aligned to align, and returns
// their address.
func (j *tjob) put(b []byte, align int) uint32 {
	j.dataOff = (j.dataOff + align - 1) / align * align
	a := j.data.Put(j.dataOff, b)
	j.dataOff += len(b)
	return a
}

// program stores QPU code and returns its address.
func (j *tjob) program(words []uint64) uint32 {
	j.codeOff = (j.codeOff + 255) &^ 255
	a := j.code.Put(j.codeOff, qpu.Bytes(words))
	j.codeOff += 8 * len(words)
	return a
}

func words(ws ...uint32) []byte {
	var b []byte
	for _, w := range ws {
		b = binary.LittleEndian.AppendUint32(b, w)
	}
	return b
}

// beginBin starts the binning list as Mesa and the kernel do
// (doc/kernel.md#binning-configuration: the kernel's addresses and flags).
func (j *tjob) beginBin(cfg cl.ConfigurationBits) {
	j.bin = cl.TileBinningModeConfig{
		TileAllocAddress: j.binMem.Addr + 4096, TileAllocSize: allocLen, TileStateAddress: j.binMem.Addr,
		WidthInTiles: uint8(j.tx), HeightInTiles: uint8(j.ty), Multisample4x: j.ms,
		AutoInitTileState: true, InitialBlockSize: cl.BlockSize32, BlockSize: cl.BlockSize128,
	}.Append(j.bin)
	j.bin = cl.StartTileBinning{}.Append(j.bin)
	j.bin = cl.PrimitiveListFormat{Type: cl.PrimitiveListTypeTriangles, DataType: cl.PrimitiveListData16BitIndex}.Append(j.bin)
	j.bin = cl.ClipWindow{Width: uint16(j.w), Height: uint16(j.h)}.Append(j.bin)
	j.bin = cfg.Append(j.bin)
	j.bin = cl.ViewportOffset{}.Append(j.bin)
	// With the viewport centre at the frame's origin, a viewport of
	// twice the frame's size covers the frame, as a driver's does: the
	// binner discards a line beyond the viewport's edge (sim/gpu/bin
	// clip.go).
	j.bin = cl.ClipperXYScaling{HalfWidth: float32(j.w * 16), HalfHeight: float32(j.h * 16)}.Append(j.bin)
	j.bin = cl.ClipperZScaling{Scale: 0.5, Offset: 0.5}.Append(j.bin)
	j.rcl.TileAlloc, j.rcl.BinTilesX = j.binMem.Addr+4096, j.tx
}

// nv makes an NV vertex at frame pixel (x, y) with depth z (viewport
// offset 0, so Xs/Ys are absolute) and clip coordinates that agree with
// it under the clipper scaling of beginBin.
func (j *tjob) nv(x, y float64, z float32, vary ...float32) gputest.NVVertex {
	return gputest.NVVertex{
		Clip: [4]float32{float32(x / float64(j.w)), float32(y / float64(j.h)), 2*z - 1, 1},
		X:    x, Y: y, Z: z, InvW: 1, Vary: vary,
	}
}

// drawNV appends an NV shader state for vertices and a draw of them.
func (j *tjob) drawNV(fs uint32, unif []uint32, mode cl.PrimitiveMode, verts ...gputest.NVVertex) {
	var vb []byte
	for _, v := range verts {
		vb = gputest.AppendNV(vb, v)
	}
	stride := len(vb) / len(verts)
	va := j.put(vb, 16)
	ua := j.put(words(unif...), 4)
	rec := cl.NVShaderRecord{FSSingleThreaded: true, EnableClipping: true, ClipHeaderIncluded: true,
		Stride: uint8(stride), FSNumVaryings: uint8(len(verts[0].Vary)), FSCodeAddress: fs, FSUniformsAddress: ua, VertexDataAddress: va}
	ra := j.put(rec.Append(nil), 16)
	j.bin = cl.NVShaderState{Address: ra}.Append(j.bin)
	j.bin = cl.GLArrayPrimitive{Mode: mode, Length: uint32(len(verts))}.Append(j.bin)
}

// run ends the lists and runs the job on g.
func (j *tjob) run(g *GPU) hw.Result {
	j.t.Helper()
	lists := j.m.Alloc(j.t, 1<<20, mem.Read, "control lists")
	var binStart, binEnd uint32
	if j.bin != nil {
		j.bin = cl.IncrementSemaphore{}.Append(j.bin)
		j.bin = cl.Flush{}.Append(j.bin)
		binStart = lists.Put(0, j.bin)
		binEnd = binStart + uint32(len(j.bin))
	}
	r := j.rcl.Append(nil)
	rs := lists.Put(512<<10, r)
	return g.Run(&hw.Job{Mem: j.m.View, BinStart: binStart, BinEnd: binEnd, RenderStart: rs, RenderEnd: rs + uint32(len(r)), Counters: &j.counters})
}

// pixel returns the frame's colour word at (x, y).
func (j *tjob) pixel(x, y int) uint32 { return j.color.U32(y*j.stride + 4*x) }

func newGPU(t testing.TB) *GPU {
	g := New(Options{Workers: 2})
	t.Cleanup(g.Close)
	return g
}

// Fragment shaders for the tests, with the first TLB access after the
// first two instructions (rule 5, erratum HW-2796) and the Mesa ending.
func fsEnd(a *qpu.Asm) []uint64 {
	a.I(qpu.SigProgramEnd)
	a.I()
	a.I(qpu.SigScoreboardUnlock)
	return a.MustAssemble()
}

// fsCoords writes X_PIXEL_COORD | Y_PIXEL_COORD<<16 as each pixel's colour.
func fsCoords() []uint64 {
	var a qpu.Asm
	a.I(qpu.Mov(qpu.R0, qpu.XCoord))
	a.I(qpu.Mov(qpu.R1, qpu.YCoord))
	a.I(qpu.Shl(qpu.R1, qpu.R1, qpu.SmallInt(-16))) // shifts use the low 5 bits: 16
	a.I(qpu.Or(qpu.TLBColourAll, qpu.R0, qpu.R1))
	return fsEnd(&a)
}

// fsConst writes the colour in its one uniform.
func fsConst() []uint64 {
	var a qpu.Asm
	a.I()
	a.I()
	a.I(qpu.Mov(qpu.TLBColourAll, qpu.Unif))
	return fsEnd(&a)
}

// fsConstZ writes the interpolated Z to TLB_Z, then the uniform colour.
func fsConstZ() []uint64 {
	var a qpu.Asm
	a.I()
	a.I()
	a.I(qpu.Mov(qpu.TLBZ, qpu.RB(15)))
	a.I(qpu.Mov(qpu.TLBColourAll, qpu.Unif))
	return fsEnd(&a)
}

// fsTexture samples TMU0 at the two varyings (s, t) — as Mesa composes a
// textured fragment shader, doc/hardware.md#varyings, doc/hardware.md#tmu —
// and writes the texel.
func fsTexture() []uint64 {
	var a qpu.Asm
	a.I(qpu.FMul(qpu.R0, qpu.RA(15), qpu.Vary))
	a.I(qpu.FAdd(qpu.R0, qpu.R0, qpu.R5), qpu.FMul(qpu.R1, qpu.RA(15), qpu.Vary))
	a.I(qpu.FAdd(qpu.TMU0T, qpu.R1, qpu.R5))
	a.I(qpu.Mov(qpu.TMU0S, qpu.R0))
	a.I(qpu.SigLoadTMU0)
	a.I(qpu.Mov(qpu.TLBColourAll, qpu.R4))
	return fsEnd(&a)
}

// fsElement is the cube demo post's probe: white from element k, black elsewhere.
func fsElement(k int) []uint64 {
	var a qpu.Asm
	a.I(qpu.Mov(qpu.R0, qpu.ElemNum))
	a.I(qpu.LoadImm(qpu.R1, 0xff000000))
	a.I(qpu.Sub(qpu.R2, qpu.R0, qpu.SmallInt(k)).SetFlags())
	a.I(qpu.LoadImm(qpu.R1, 0xffffffff).If(qpu.CondZS))
	a.I(qpu.Mov(qpu.TLBColourAll, qpu.R1))
	return fsEnd(&a)
}
