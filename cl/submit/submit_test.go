package submit_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/internal/cube"
	"github.com/vccube/vccube/cl/submit"
	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/uapi"
)

// fakeConn plays the kernel's part of SUBMIT_CL as far as user memory goes:
// during the call it copies the struct and the four user buffers, the way
// copy_from_user would, and writes a seqno back.
type fakeConn struct {
	calls   int
	arg     uapi.SubmitCL
	bin     []byte
	recs    []byte
	unis    []byte
	handles []byte
	err     error
}

// user reads n bytes at the user pointer stored in the u64 at p, without
// a uintptr→unsafe.Pointer conversion (the u64 holds a pointer in its low
// bytes on little-endian machines of either word size).
func user(p *uint64, n uint32) []byte {
	if n == 0 {
		return nil
	}
	ptr := *(*unsafe.Pointer)(unsafe.Pointer(p))
	return bytes.Clone(unsafe.Slice((*byte)(ptr), n))
}

func (f *fakeConn) Ioctl(req uapi.Request, arg unsafe.Pointer) error {
	f.calls++
	if req != uapi.IoctlSubmitCL {
		return unix.ENOTTY
	}
	a := (*uapi.SubmitCL)(arg)
	if f.calls == 1 {
		f.arg = *a
		f.bin = user(&a.BinCL, a.BinCLSize)
		f.recs = user(&a.ShaderRec, a.ShaderRecSize)
		f.unis = user(&a.Uniforms, a.UniformsSize)
		f.handles = user(&a.BOHandles, 4*a.BOHandleCount)
	}
	a.Seqno = 42
	return f.err
}

func (f *fakeConn) Mmap(uint64, int, int) ([]byte, error) { return nil, unix.ENODEV }
func (f *fakeConn) Munmap([]byte) error                   { return nil }
func (f *fakeConn) Read([]byte) (int, error)              { return 0, unix.EAGAIN }
func (f *fakeConn) Fd() int                               { return -1 }
func (f *fakeConn) Close() error                          { return nil }

// The submit struct of the cube frame, field by field as
// doc/kernel.md#a-cube-submit and doc/kernel.md#struct-layouts require.
func TestCubeSubmitFields(t *testing.T) {
	var j submit.Job
	if err := cube.NewBuilder().Build(&j); err != nil {
		t.Fatal(err)
	}
	var c fakeConn
	seqno, err := j.Submit(&c)
	if err != nil || seqno != 42 {
		t.Fatalf("Submit = %d, %v", seqno, err)
	}
	a := c.arg
	absent := uapi.SubmitRCLSurface{HIndex: 0xFFFFFFFF}
	checks := []struct {
		name      string
		got, want any
	}{
		{"bin_cl_size (147: see cl/bincl TestCubeList)", a.BinCLSize, uint32(147)},
		{"shader_rec_size: 6 × (4·(3+1) + 44)", a.ShaderRecSize, uint32(360)},
		{"shader_rec_count: one per GL_SHADER_STATE", a.ShaderRecCount, uint32(6)},
		{"uniforms_size: 6 × (FS 4+3·4, VS 4·4, CS 4·4)", a.UniformsSize, uint32(288)},
		{"bo_handle_count", a.BOHandleCount, uint32(6)},
		{"width", a.Width, uint16(800)},
		{"height", a.Height, uint16(600)},
		{"min tiles", [2]uint8{a.MinXTile, a.MinYTile}, [2]uint8{0, 0}},
		{"max tiles: tiles − 1", [2]uint8{a.MaxXTile, a.MaxYTile}, [2]uint8{12, 9}},
		{"color_write: BO 5, linear RGBA8888 bits 0x0004", a.ColorWrite, uapi.SubmitRCLSurface{HIndex: 5, Bits: 0x0004}},
		{"color_read absent", a.ColorRead, absent},
		{"zs_read absent", a.ZSRead, absent},
		{"zs_write absent", a.ZSWrite, absent},
		{"msaa_color_write absent", a.MSAAColorWrite, absent},
		{"msaa_zs_write absent", a.MSAAZSWrite, absent},
		{"clear_color: the packed colour twice", a.ClearColor, [2]uint32{0xff333333, 0xff333333}},
		{"clear_z: depth 1.0", a.ClearZ, uint32(0xffffff)},
		{"flags: USE_CLEAR_COLOR", a.Flags, uint32(1)},
		{"perfmon, syncs, pad2", [4]uint32{a.PerfmonID, a.InSync, a.OutSync, a.Pad2}, [4]uint32{}},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s = %+v, want %+v", ch.name, ch.got, ch.want)
		}
	}
	// The buffers the kernel read through the pointers are the job's.
	bin, _ := j.Bin.Bytes()
	if !bytes.Equal(c.bin, bin) || !bytes.Equal(c.recs, j.ShaderRecs.Bytes()) || !bytes.Equal(c.unis, j.Uniforms.Bytes()) {
		t.Error("the kernel read different bytes than the job holds")
	}
	wantHandles := []byte{10, 0, 0, 0, 11, 0, 0, 0, 12, 0, 0, 0, 13, 0, 0, 0, 14, 0, 0, 0, 15, 0, 0, 0}
	if !bytes.Equal(c.handles, wantHandles) {
		t.Errorf("bo_handles % x", c.handles)
	}
	// The bin CL ends 0x07 0x04 (vc4_validate.c validate_increment_semaphore,
	// validate_flush; doc/kernel.md#bin-cl).
	if !bytes.HasSuffix(c.bin, []byte{0x07, 0x04}) || c.bin[0] != 0x70 {
		t.Errorf("bin CL % x", c.bin)
	}
	// First record: indices FS 0, VS 1, CS 2, attribute 3, then flags 0x0005.
	if binary.LittleEndian.Uint32(c.recs[12:]) != 3 || c.recs[16] != 0x05 {
		t.Errorf("first record % x", c.recs[:20])
	}
	// First FS block: texture BO index 4, then P0, P1, the light.
	if binary.LittleEndian.Uint32(c.unis) != 4 || binary.LittleEndian.Uint32(c.unis[8:]) != cube.TexP1 {
		t.Errorf("first uniforms % x", c.unis[:16])
	}
	// Outside Submit the struct holds no pointers.
	if args := j.Args(); args.BinCL != 0 || args.ShaderRec != 0 || args.Uniforms != 0 || args.BOHandles != 0 || args.Seqno != 42 {
		t.Errorf("Args after Submit: %+v", args)
	}
}

func TestSubmitDoesNotAllocate(t *testing.T) {
	var j submit.Job
	b := cube.NewBuilder()
	var c fakeConn
	frame := func() {
		if err := b.Build(&j); err != nil {
			t.Fatal(err)
		}
		if _, err := j.Submit(&c); err != nil {
			t.Fatal(err)
		}
	}
	frame()
	frame()
	if allocs := testing.AllocsPerRun(100, frame); allocs != 0 {
		t.Fatalf("building and submitting a frame allocates %v times", allocs)
	}
}

func BenchmarkCubeFrame(bm *testing.B) {
	var j submit.Job
	b := cube.NewBuilder()
	var c fakeConn
	bm.ReportAllocs()
	for i := 0; i < bm.N; i++ {
		if err := b.Build(&j); err != nil {
			bm.Fatal(err)
		}
		if _, err := j.Submit(&c); err != nil {
			bm.Fatal(err)
		}
	}
}

func TestSubmitErrors(t *testing.T) {
	b := cube.NewBuilder()
	cases := []struct {
		name   string
		mutate func(j *submit.Job)
		msg    string
	}{
		{"no BOs", func(j *submit.Job) { j.BOHandles = j.BOHandles[:0] }, "no BO handles"},
		{"no write surface", func(j *submit.Job) { j.ColorWrite = submit.Absent() }, "no colour or Z/S write"},
		{"missing record", func(j *submit.Job) { j.ShaderRecs.Reset() }, "0 shader records for 6"},
		{"empty tiles", func(j *submit.Job) { j.MinXTile = 13 }, "tile bounds"},
		{"bin CL without End", func(j *submit.Job) { j.Bin.Reset(); j.Bin.Begin(cube.Prefix()) }, "no End"},
	}
	for _, c := range cases {
		var j submit.Job
		if err := b.Build(&j); err != nil {
			t.Fatal(err)
		}
		c.mutate(&j)
		var conn fakeConn
		_, err := j.Submit(&conn)
		if err == nil || !strings.Contains(err.Error(), c.msg) || conn.calls != 0 {
			t.Errorf("%s: err = %v (ioctl calls %d), want one mentioning %q", c.name, err, conn.calls, c.msg)
		}
	}
	// Unchecked lets a broken job reach the kernel.
	var j submit.Job
	_ = b.Build(&j)
	j.ColorWrite = submit.Absent()
	j.Unchecked = true
	conn := fakeConn{err: unix.EINVAL}
	_, err := j.Submit(&conn)
	var de *drm.Error
	if conn.calls != 1 || !errors.Is(err, unix.EINVAL) || !errors.As(err, &de) || de.Op != "DRM_IOCTL_VC4_SUBMIT_CL" {
		t.Errorf("kernel refusal: %v", err)
	}
}

// Surface bits worked out from the field tables: doc/kernel.md#surfaces.
func TestSurfaceBits(t *testing.T) {
	cases := []struct {
		name string
		got  uint16
		want uint16
	}{
		{"linear RGBA8888 colour write", submit.ColorWrite(0, 0, cl.TilingLinear).Bits, 0x0004},
		{"T-format RGBA8888 colour write", submit.ColorWrite(0, 0, cl.TilingT).Bits, 0x0044},
		{"4x MSAA + decimate + BGR565 dithered, LT", submit.RenderBits(cl.TileRenderingModeConfig{
			Multisample4x: true, Decimate: cl.DecimateMode4x, Format: cl.RenderFormatBGR565Dithered, Tiling: cl.TilingLT}), 0x0091},
		{"T-format Z/S write", submit.ZSWrite(0, 0, cl.TilingT).Bits, 0x0012},
		{"T-format Z/S read", submit.ZSRead(0, 0, cl.TilingT).Bits, 0x0012},
		{"T-format RGBA8888 colour read", submit.ColorRead(0, 0, cl.TilingT).Bits, 0x0011},
		{"linear colour read", submit.ColorRead(0, 0, cl.TilingLinear).Bits, 0x0001},
		{"store with every clear disabled", submit.StoreBits(cl.StoreTileBufferGeneral{
			DisableColorClear: true, DisableZSClear: true, DisableVGMaskClear: true}), 0xe000},
		{"load BGR565 T colour", submit.LoadBits(cl.LoadTileBufferGeneral{
			Buffer: cl.LoadBufferColor, Tiling: cl.TilingT, Format: cl.LoadStoreFormatBGR565}), 0x0211},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: bits %#04x, want %#04x", c.name, c.got, c.want)
		}
	}
	if r := submit.RenderConfigOf(0x0044); r.Format != cl.RenderFormatRGBA8888 || r.Tiling != cl.TilingT || r.Multisample4x {
		t.Errorf("RenderConfigOf(0x44) = %+v", r)
	}
	if s := submit.StoreOf(0x2012); s.Buffer != cl.StoreBufferZS || s.Tiling != cl.TilingT || !s.DisableColorClear {
		t.Errorf("StoreOf(0x2012) = %+v", s)
	}
	if l := submit.LoadOf(0x0011); l.Buffer != cl.LoadBufferColor || l.Tiling != cl.TilingT {
		t.Errorf("LoadOf(0x11) = %+v", l)
	}
	for bits := 0; bits < 1<<16; bits += 7 {
		if got := submit.RenderBits(submit.RenderConfigOf(uint16(bits))); got != uint16(bits)&0x1fff {
			t.Fatalf("render bits %#x → %#x (bits 15:13 are unused)", bits, got)
		}
		if got := submit.LoadBits(submit.LoadOf(uint16(bits))); got != uint16(bits)&0x0337 {
			t.Fatalf("load bits %#x → %#x", bits, got)
		}
		if got := submit.StoreBits(submit.StoreOf(uint16(bits))); got != uint16(bits)&0xf3f7 {
			t.Fatalf("store bits %#x → %#x", bits, got)
		}
	}
	if a := submit.Absent(); a.HIndex != 0xFFFFFFFF || a.Bits != 0 || a.Flags != 0 {
		t.Errorf("Absent = %+v", a)
	}
}
