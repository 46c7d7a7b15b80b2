package kernel_test

import (
	"encoding/binary"
	"runtime"
	"sync"
	"testing"
	"unsafe"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/bincl"
	"github.com/vccube/vccube/cl/shaderrec"
	"github.com/vccube/vccube/cl/uniforms"
	"github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/sim/hw"
	"github.com/vccube/vccube/sim/internal/simtest"
	"github.com/vccube/vccube/sim/kernel"
	"github.com/vccube/vccube/sim/mem"
	"github.com/vccube/vccube/texture"
	"github.com/vccube/vccube/uapi"
)

// The fixture: a driver on the tests' GPU (auditGPU: the audit, the
// placeholder and the GPU model), a file, and the BOs of a
// textured draw like the cube's (doc/kernel.md#a-cube-submit): three shader BOs (FS,
// VS, CS), a vertex BO, a texture, a colour target, a Z/S buffer and an
// index BO.

// BO indices in the submit's bo_handles, as in doc/kernel.md#a-cube-submit (plus
// the Z/S and index BOs).
const (
	iFS = iota
	iVS
	iCS
	iVBO
	iTex
	iColor
	iZS
	iIndex
	nBOs
)

// The shaders, small but real: the FS samples a texture (T then S, so its
// block is [texture index][P0][P1]) and writes the tile buffer; the VS
// multiplies by one uniform; the CS only moves VPM data.
func fsCode() []uint64 {
	var a qpu.Asm
	a.I(qpu.FMul(qpu.R0, qpu.Vary, qpu.RA(15)))
	a.I(qpu.FAdd(qpu.R0, qpu.R0, qpu.R5))
	a.I(qpu.FMul(qpu.R1, qpu.Vary, qpu.RA(15)))
	a.I(qpu.FAdd(qpu.TMU0T, qpu.R1, qpu.R5)) // P0
	a.I(qpu.Mov(qpu.TMU0S, qpu.R0))          // P1, submits
	a.I(qpu.SigLoadTMU0)
	a.I(qpu.SigScoreboardWait)
	a.I(qpu.Mov(qpu.TLBColourAll, qpu.R4))
	a.I(qpu.SigProgramEnd)
	a.I()
	a.I(qpu.SigScoreboardUnlock)
	return a.MustAssemble()
}

func vsCode() []uint64 {
	var a qpu.Asm
	a.I(qpu.LoadImm(qpu.VRSetup, 0x00301a00))
	a.I(qpu.LoadImm(qpu.VWSetup, 0x00001a00))
	a.I()
	a.I(qpu.FMul(qpu.R0, qpu.VPM, qpu.Unif)) // uniform 0
	a.I(qpu.Mov(qpu.VPM, qpu.R0))
	a.I(qpu.Mov(qpu.VPM, qpu.VPM))
	a.I(qpu.Mov(qpu.VPM, qpu.VPM))
	a.I(qpu.SigProgramEnd)
	a.I()
	a.I()
	return a.MustAssemble()
}

func csCode() []uint64 {
	var a qpu.Asm
	a.I(qpu.LoadImm(qpu.VRSetup, 0x00301a00))
	a.I(qpu.LoadImm(qpu.VWSetup, 0x00001a00))
	a.I()
	a.I(qpu.Mov(qpu.VPM, qpu.VPM))
	a.I(qpu.Mov(qpu.VPM, qpu.VPM))
	a.I(qpu.Mov(qpu.VPM, qpu.VPM))
	a.I(qpu.SigProgramEnd)
	a.I()
	a.I()
	return a.MustAssemble()
}

// The texture: 64×64 RGBA8888 with one level at offset 4096 of its BO (a
// T-format texture, since 64 > 4 utiles of 4 pixels).
const (
	texW, texH   = 64, 64
	texOffset    = 4096
	texBOSize    = texOffset + texW*texH*4
	vboSize      = 4096
	vertexStride = 12
	indexBOSize  = 4096
)

type fixture struct {
	t      testing.TB
	pool   *mem.Pool
	d      *kernel.Driver
	f      *kernel.File
	width  int
	height int
	h      [nBOs]uint32 // GEM handles

	mu      sync.Mutex
	reports []report
	log     []string // the kernel's log lines
}

// report is what a test keeps of a job the GPU ran.
type report struct {
	seqno  uint64
	hung   bool
	reason error // why it hung
	faults uint64
	first  *mem.Fault
	bin    []byte // the validated bin CL
	rcl    []byte // the render CL
	job    hw.Job
	exec   []byte // the whole exec BO
}

func newFixture(t testing.TB, width, height int) *fixture {
	t.Helper()
	pool, err := mem.NewPool(mem.DefaultBase, 48<<20)
	if err != nil {
		t.Fatal(err)
	}
	fx := &fixture{t: t, pool: pool, width: width, height: height}
	fx.d, err = kernel.New(kernel.Config{Pool: pool, GPU: newAuditGPU(t), OnJobDone: fx.onJob, Log: func(l string) {
		fx.mu.Lock()
		defer fx.mu.Unlock()
		fx.log = append(fx.log, l)
	}})
	if err != nil {
		t.Fatal(err)
	}
	fx.f = fx.d.Open()
	t.Cleanup(func() { fx.f.Close(); fx.d.Close(); pool.Close() })

	fx.h[iFS] = fx.shaderBO(fsCode())
	fx.h[iVS] = fx.shaderBO(vsCode())
	fx.h[iCS] = fx.shaderBO(csCode())
	fx.h[iVBO] = fx.bo(vboSize)
	fx.h[iTex] = fx.bo(texBOSize)
	colorSize := (width + 3) / 4 * 4 * 4 * height // linear RGBA8888 (vc4_check_tex_size)
	fx.h[iColor] = fx.bo(uint32(colorSize))
	zsSize := (width + 31) / 32 * 32 * 4 * ((height + 31) / 32 * 32) // T-format, 32×32-pixel tiles
	fx.h[iZS] = fx.bo(uint32(zsSize))
	fx.h[iIndex] = fx.bo(indexBOSize)
	return fx
}

func (fx *fixture) onJob(r kernel.JobReport) {
	rep := report{seqno: r.Seqno, hung: r.Result.Hung, reason: r.Result.Reason, faults: r.Faults, first: r.First, job: *r.Job}
	read := func(start, end uint32) []byte {
		if end <= start {
			return nil
		}
		b, err := r.Job.Mem.Read(start, end-start, "test")
		if err != nil {
			return nil
		}
		return append([]byte(nil), b...)
	}
	rep.bin = read(r.Job.BinStart, r.Job.BinEnd)
	rep.rcl = read(r.Job.RenderStart, r.Job.RenderEnd)
	if r.Job.BinStart != 0 {
		if b, _, err := r.Job.Mem.Span(r.Job.BinStart, false, "test"); err == nil {
			rep.exec = append([]byte(nil), b...)
		}
	}
	fx.mu.Lock()
	fx.reports = append(fx.reports, rep)
	fx.mu.Unlock()
}

func (fx *fixture) lastReport() report {
	fx.mu.Lock()
	defer fx.mu.Unlock()
	if len(fx.reports) == 0 {
		fx.t.Fatal("no job ran")
	}
	return fx.reports[len(fx.reports)-1]
}

func (fx *fixture) bo(size uint32) uint32 {
	arg := uapi.CreateBO{Size: size}
	if err := fx.f.CreateBO(&arg); err != nil {
		fx.t.Fatal(err)
	}
	return arg.Handle
}

func (fx *fixture) shaderBO(words []uint64) uint32 {
	code := qpu.Bytes(words)
	arg := uapi.CreateShaderBO{Size: uint32(len(code)), Data: simtest.Ptr(fx.t, code)}
	if err := fx.f.CreateShaderBO(&arg); err != nil {
		fx.t.Fatal(err)
	}
	return arg.Handle
}

// submission is one SUBMIT_CL's worth of user memory and arguments; tests
// break one thing in it.
type submission struct {
	bin     []byte
	recs    []byte
	unis    []byte
	handles []uint32
	args    uapi.SubmitCL
	// after, if set, changes the final arguments (sizes and pointers
	// included) just before the ioctl.
	after func(a *uapi.SubmitCL)
}

// texP0P1 returns the texture parameters of the fixture's texture.
func texP0P1(t testing.TB) (uint32, uint32) {
	low, bit4 := texture.SplitType(texture.RGBA8888)
	p0, err := texture.P0{Base: texOffset, TypeLow: low}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	p1, err := texture.P1{Type4: bit4, Width: texW, Height: texH, MagFilter: texture.MagNearest, MinFilter: texture.MinNearest}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return p0, p1
}

// valid builds the accepted submission: a bin CL made with cl/bincl, one
// GL shader record with one attribute, the FS/VS/CS uniform blocks, the
// colour target linear RGBA8888 and the Z/S buffer T-format, cleared.
func (fx *fixture) valid() *submission {
	t := fx.t
	tx, ty, err := bincl.Tiles(fx.width, fx.height, false)
	if err != nil {
		t.Fatal(err)
	}
	var b bincl.Builder
	b.Begin(&bincl.Prefix{
		Binning:             cl.TileBinningModeConfig{WidthInTiles: tx, HeightInTiles: ty},
		PrimitiveListFormat: &cl.PrimitiveListFormat{Type: cl.PrimitiveListTypeTriangles, DataType: cl.PrimitiveListData16BitIndex},
		ClipWindow:          &cl.ClipWindow{Width: uint16(fx.width), Height: uint16(fx.height)},
		Configuration:       &cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, DepthFunc: cl.DepthFuncLessEqual, ZUpdates: true},
		ViewportOffset:      &cl.ViewportOffset{X: cl.Subpixel(fx.width * 8), Y: cl.Subpixel(fx.height * 8)},
		ClipperXY:           &cl.ClipperXYScaling{HalfWidth: float32(fx.width * 8), HalfHeight: float32(fx.height * 8)},
		ClipperZ:            &cl.ClipperZScaling{Scale: 0.5, Offset: 0.5},
	})
	rec := shaderrec.GL{NumAttributes: 1}
	rec.Record = cl.GLShaderRecord{FSSingleThreaded: true, EnableClipping: true, FSNumVaryings: 2,
		VSAttributeSelect: 1, VSAttributesSize: 12, CSAttributeSelect: 1, CSAttributesSize: 12}
	rec.Attributes[0] = cl.AttributeRecord{Address: 0, SizeMinusOne: 11, Stride: vertexStride}
	b.Draw(rec.State(), cl.GLArrayPrimitive{Mode: cl.PrimitiveModeTriangles, Length: 36})
	b.End()
	bin, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	var recs shaderrec.Stream
	if err := recs.Add(&rec, &shaderrec.Relocs{FS: iFS, VS: iVS, CS: iCS, Attributes: [8]uint32{iVBO}}); err != nil {
		t.Fatal(err)
	}
	p0, p1 := texP0P1(t)
	var unis uniforms.Stream
	unis.AppendBlock([]uint32{iTex}, []uint32{p0, p1}) // FS
	unis.AppendBlock(nil, []uint32{uniforms.Float(2)}) // VS
	unis.AppendBlock(nil, nil)                         // CS
	s := &submission{
		bin:     append([]byte(nil), bin...),
		recs:    append([]byte(nil), recs.Bytes()...),
		unis:    append([]byte(nil), unis.Bytes()...),
		handles: append([]uint32(nil), fx.h[:]...),
	}
	absent := uapi.SubmitRCLSurface{HIndex: uapi.SurfaceAbsent}
	s.args = uapi.SubmitCL{
		ShaderRecCount: 1,
		Width:          uint16(fx.width),
		Height:         uint16(fx.height),
		MaxXTile:       tx - 1,
		MaxYTile:       ty - 1,
		ColorRead:      absent,
		ColorWrite:     uapi.SubmitRCLSurface{HIndex: iColor, Bits: renderBitsRGBA8888Linear},
		ZSRead:         absent,
		ZSWrite:        uapi.SubmitRCLSurface{HIndex: iZS, Bits: storeBitsZST},
		MSAAColorWrite: absent,
		MSAAZSWrite:    absent,
		ClearColor:     [2]uint32{0xff336699, 0xff336699},
		ClearZ:         0xffffff,
		ClearS:         0,
		Flags:          uapi.SubmitUseClearColor,
	}
	return s
}

// The surface bits, from doc/kernel.md#surfaces (not from the
// code under test): colour RGBA8888 linear = 0x04 (format 1 in bits 3:2),
// Z/S T-format = 0x12 (buffer 2, tiling 1 in bits 5:4).
const (
	renderBitsRGBA8888Linear = 0x0004
	renderBitsRGBA8888T      = 0x0044
	storeBitsZST             = 0x0012
	loadBitsColorT           = 0x0011
	loadBitsColorLinear      = 0x0001
)

// submit hands s to the kernel, with the sizes and pointers of its
// buffers; on success it waits for the job.
func (fx *fixture) submit(s *submission) error {
	// The kernel copies everything in during the call: the buffers are
	// pinned for exactly that long.
	var pin runtime.Pinner
	defer pin.Unpin()
	addr := func(p unsafe.Pointer, n int) uint64 {
		if n == 0 {
			return 0
		}
		pin.Pin(p)
		return uapi.UserPointer(p)
	}
	a := s.args
	a.BinCL = addr(unsafe.Pointer(unsafe.SliceData(s.bin)), len(s.bin))
	a.ShaderRec = addr(unsafe.Pointer(unsafe.SliceData(s.recs)), len(s.recs))
	a.Uniforms = addr(unsafe.Pointer(unsafe.SliceData(s.unis)), len(s.unis))
	a.BOHandles = addr(unsafe.Pointer(unsafe.SliceData(s.handles)), len(s.handles))
	a.BinCLSize = uint32(len(s.bin))
	a.ShaderRecSize = uint32(len(s.recs))
	a.UniformsSize = uint32(len(s.unis))
	a.BOHandleCount = uint32(len(s.handles))
	if s.after != nil {
		s.after(&a)
	}
	err := fx.f.SubmitCL(&a)
	s.args.Seqno = a.Seqno
	if err != nil {
		return err
	}
	w := uapi.WaitSeqno{Seqno: a.Seqno, TimeoutNs: ^uint64(0)}
	if err := fx.f.WaitSeqno(&w); err != nil {
		fx.t.Fatal(err)
	}
	return nil
}

// u32 reads a little-endian word.
func u32(b []byte, off int) uint32 { return binary.LittleEndian.Uint32(b[off:]) }
