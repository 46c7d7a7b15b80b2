package sim_test

import (
	"math"
	"runtime"
	"testing"
	"unsafe"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/bincl"
	"github.com/vccube/vccube/cl/shaderrec"
	"github.com/vccube/vccube/cl/uniforms"
	"github.com/vccube/vccube/gem"
	"github.com/vccube/vccube/internal/simrig"
	"github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/hw"
	"github.com/vccube/vccube/uapi"
)

// frame is a per-frame submit like the renderer's: a bin CL with a draw,
// a GL shader record, uniforms, a colour target and a Z/S buffer, built
// once with cl's builders and resubmitted.
type frame struct {
	c       uapi.Conn
	pin     runtime.Pinner
	bin     []byte
	recs    []byte
	unis    []byte
	handles []uint32
	submit  *uapi.SubmitCL
	wait    *uapi.WaitSeqno
	waitBO  *uapi.WaitBO
}

func shader(t testing.TB, c uapi.Conn, build func(a *qpu.Asm)) uint32 {
	var a qpu.Asm
	build(&a)
	h, err := gem.AllocShaderBO(c, qpu.Bytes(a.MustAssemble()))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func newFrame(t testing.TB, c uapi.Conn, width, height int) *frame {
	fs := shader(t, c, func(a *qpu.Asm) {
		a.I(qpu.SigScoreboardWait)
		a.I(qpu.Mov(qpu.TLBColourAll, qpu.Unif))
		a.I(qpu.SigProgramEnd)
		a.I()
		a.I(qpu.SigScoreboardUnlock)
	})
	vsCS := func(a *qpu.Asm) {
		a.I(qpu.LoadImm(qpu.VRSetup, 0x00301a00))
		a.I(qpu.LoadImm(qpu.VWSetup, 0x00001a00))
		a.I(qpu.Mov(qpu.VPM, qpu.VPM))
		a.I(qpu.SigProgramEnd)
		a.I()
		a.I()
	}
	vs, cs := shader(t, c, vsCS), shader(t, c, vsCS)
	vbo := simrig.AllocBO(t, c, 4096)
	color := simrig.AllocBO(t, c, uint32(width*height*4))
	zs := simrig.AllocBO(t, c, uint32((width+31)/32*32*4*((height+31)/32*32)))

	tx, ty, err := bincl.Tiles(width, height, false)
	if err != nil {
		t.Fatal(err)
	}
	var b bincl.Builder
	b.Begin(&bincl.Prefix{
		Binning:    cl.TileBinningModeConfig{WidthInTiles: tx, HeightInTiles: ty},
		ClipWindow: &cl.ClipWindow{Width: uint16(width), Height: uint16(height)},
	})
	rec := shaderrec.GL{NumAttributes: 1}
	rec.Record = cl.GLShaderRecord{FSSingleThreaded: true}
	rec.Attributes[0] = cl.AttributeRecord{SizeMinusOne: 11, Stride: 12}
	b.Draw(rec.State(), cl.GLArrayPrimitive{Mode: cl.PrimitiveModeTriangles, Length: 36})
	b.End()
	bin, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	var recs shaderrec.Stream
	if err := recs.Add(&rec, &shaderrec.Relocs{FS: 0, VS: 1, CS: 2, Attributes: [8]uint32{3}}); err != nil {
		t.Fatal(err)
	}
	var unis uniforms.Stream
	unis.AppendBlock(nil, []uint32{0xff00ff00})
	unis.AppendBlock(nil, nil)
	unis.AppendBlock(nil, nil)

	f := &frame{c: c, bin: append([]byte(nil), bin...), recs: append([]byte(nil), recs.Bytes()...),
		unis: append([]byte(nil), unis.Bytes()...), handles: []uint32{fs, vs, cs, vbo, color, zs}}
	addr := func(p unsafe.Pointer) uint64 { f.pin.Pin(p); return uapi.UserPointer(p) }
	absent := uapi.SubmitRCLSurface{HIndex: uapi.SurfaceAbsent}
	f.submit = &uapi.SubmitCL{
		BinCL: addr(unsafe.Pointer(&f.bin[0])), BinCLSize: uint32(len(f.bin)),
		ShaderRec: addr(unsafe.Pointer(&f.recs[0])), ShaderRecSize: uint32(len(f.recs)), ShaderRecCount: 1,
		Uniforms: addr(unsafe.Pointer(&f.unis[0])), UniformsSize: uint32(len(f.unis)),
		BOHandles: addr(unsafe.Pointer(&f.handles[0])), BOHandleCount: uint32(len(f.handles)),
		Width: uint16(width), Height: uint16(height), MaxXTile: tx - 1, MaxYTile: ty - 1,
		ColorRead: absent, ZSRead: absent, MSAAColorWrite: absent, MSAAZSWrite: absent,
		ColorWrite: uapi.SubmitRCLSurface{HIndex: 4, Bits: 1 << 2},
		ZSWrite:    uapi.SubmitRCLSurface{HIndex: 5, Bits: 0x12},
		ClearColor: [2]uint32{0xff000000, 0xff000000}, ClearZ: 0xffffff,
		Flags: uapi.SubmitUseClearColor,
	}
	f.wait = &uapi.WaitSeqno{}
	f.waitBO = &uapi.WaitBO{Handle: color}
	t.Cleanup(f.pin.Unpin)
	return f
}

// run submits the frame and waits for it, as a render loop does.
func (f *frame) run(t testing.TB) {
	f.submit.Seqno = 0
	if err := gem.Submit(f.c, f.submit); err != nil {
		t.Fatal(err)
	}
	f.wait.Seqno, f.wait.TimeoutNs = f.submit.Seqno, math.MaxUint64
	if err := gem.WaitForSeqno(f.c, f.wait); err != nil {
		t.Fatal(err)
	}
	f.waitBO.TimeoutNs = 0
	if err := gem.WaitForBO(f.c, f.waitBO); err != nil {
		t.Fatal(err)
	}
}

// The per-frame ioctls (SUBMIT_CL, WAIT_SEQNO, WAIT_BO) allocate nothing
// once the kernel's buffers and BO cache are warm, GPU side included.
func TestFrameDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("under the race detector sync.Pool drops items on purpose")
	}
	d := newDevice(t, sim.Options{})
	c := open(t, d)
	f := newFrame(t, c, 256, 128)
	for i := 0; i < 3; i++ {
		f.run(t)
	}
	if n := testing.AllocsPerRun(50, func() { f.run(t) }); n != 0 {
		t.Fatalf("%.1f allocations per frame", n)
	}
}

// BenchmarkFrame measures one submit-and-wait through uapi.Conn: the
// kernel's validation, render-list generation and the placeholder GPU's
// clears of an 800x600 frame.
func BenchmarkFrame(b *testing.B) {
	d := newDevice(b, sim.Options{})
	c := open(b, d)
	f := newFrame(b, c, 800, 600)
	f.run(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f.run(b)
	}
}

// nopGPU retires every job at once: the benchmark then measures the
// simulated kernel alone.
type nopGPU struct{}

func (nopGPU) Run(*hw.Job) hw.Result { return hw.Result{} }

// BenchmarkFrameKernelOnly is BenchmarkFrame with a GPU that does
// nothing: the ioctl dispatch, validation, render-list generation, queue
// and waits.
func BenchmarkFrameKernelOnly(b *testing.B) {
	d := newDevice(b, sim.Options{GPU: nopGPU{}})
	c := open(b, d)
	f := newFrame(b, c, 800, 600)
	f.run(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f.run(b)
	}
}
