package kernel_test

import (
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"syscall"
	"testing"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/spec"
	"github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/sim/internal/simtest"
	"github.com/vccube/vccube/sim/kernel"
	"github.com/vccube/vccube/texture"
	"github.com/vccube/vccube/uapi"
)

// decodeList splits a control list into its packets.
func decodeList(t testing.TB, b []byte) []cl.Packet {
	t.Helper()
	var out []cl.Packet
	for len(b) > 0 {
		p, err := cl.Decode(b)
		if err != nil {
			t.Fatalf("decoding %x: %v", b, err)
		}
		out = append(out, p)
		b = b[spec.Lookup(p.Opcode()).Len:]
	}
	return out
}

func (fx *fixture) addr(i int) uint32 {
	bo, err := fx.f.LookupBO(fx.h[i])
	if err != nil {
		fx.t.Fatal(err)
	}
	defer bo.Put()
	return bo.Addr()
}

// The accepted submit, and what the kernel patched into its copies
// (doc/kernel.md#binning-configuration, doc/kernel.md#shader-records,
// doc/kernel.md#uniforms), checked against values worked out from the
// rules: bin CL offsets in the exec BO, record and uniform addresses.
func TestSubmitValid(t *testing.T) {
	fx := newFixture(t, 800, 600)
	s := fx.valid()
	if err := fx.submit(s); err != nil {
		t.Fatalf("the valid submit was refused: %v", err)
	}
	if s.args.Seqno != 1 {
		t.Errorf("first seqno %d, want 1", s.args.Seqno)
	}
	rep := fx.lastReport()
	if rep.hung || rep.faults != 0 {
		t.Fatalf("job hung %v, %d faults (%v)", rep.hung, rep.faults, rep.first)
	}

	// The validated bin CL is the user's, minus nothing (no GEM_HANDLES),
	// at the start of the exec BO.
	if len(rep.bin) != len(s.bin) {
		t.Fatalf("validated bin CL is %d bytes, the user's %d", len(rep.bin), len(s.bin))
	}
	pkts := decodeList(t, rep.bin)
	bc := pkts[0].(*cl.TileBinningModeConfig)
	// 800×600 in 64-pixel tiles: 13×10; tile state 48×130 = 6240 bytes,
	// rounded to 8192; the rest of the 512 KiB slot is tile allocation.
	if bc.WidthInTiles != 13 || bc.HeightInTiles != 10 {
		t.Errorf("tiles %dx%d", bc.WidthInTiles, bc.HeightInTiles)
	}
	if rep.bin[15] != 0x44 {
		t.Errorf("binning flags %#x, want 0x44 (auto-init, 32-byte initial blocks, 128-byte blocks)", rep.bin[15])
	}
	if bc.TileAllocAddress != bc.TileStateAddress+8192 || bc.TileAllocSize != 512*1024-8192 {
		t.Errorf("tile alloc %#x (+%#x), tile state %#x", bc.TileAllocAddress, bc.TileAllocSize, bc.TileStateAddress)
	}
	if rep.bin[len(rep.bin)-2] != 0x07 || rep.bin[len(rep.bin)-1] != 0x04 {
		t.Errorf("bin CL does not end 07 04")
	}

	// The record follows the bin CL at the next 16-byte boundary of the
	// exec BO, and the uniforms follow the user's whole shader_rec size.
	execBase := rep.job.BinStart
	recOff := (len(s.bin) + 15) &^ 15
	uniOff := recOff + len(s.recs)
	var st *cl.GLShaderState
	for _, p := range pkts {
		if x, ok := p.(*cl.GLShaderState); ok {
			st = x
		}
	}
	if st == nil || st.Address != execBase+uint32(recOff) || st.NumAttributeArrays != 1 {
		t.Fatalf("GL_SHADER_STATE %+v, want address %#x", st, execBase+uint32(recOff))
	}
	var rec cl.GLShaderRecord
	_ = rec.Unpack(rep.exec[recOff:])
	if rec.FSCodeAddress != fx.addr(iFS) || rec.VSCodeAddress != fx.addr(iVS) || rec.CSCodeAddress != fx.addr(iCS) {
		t.Errorf("code addresses %#x %#x %#x, want %#x %#x %#x", rec.FSCodeAddress, rec.VSCodeAddress, rec.CSCodeAddress,
			fx.addr(iFS), fx.addr(iVS), fx.addr(iCS))
	}
	// FS block: P0, P1 (8 bytes); VS block: one word; CS block: empty.
	fsU, vsU, csU := execBase+uint32(uniOff), execBase+uint32(uniOff)+8, execBase+uint32(uniOff)+12
	if rec.FSUniformsAddress != fsU || rec.VSUniformsAddress != vsU || rec.CSUniformsAddress != csU {
		t.Errorf("uniform addresses %#x %#x %#x, want %#x %#x %#x", rec.FSUniformsAddress, rec.VSUniformsAddress,
			rec.CSUniformsAddress, fsU, vsU, csU)
	}
	var attr cl.AttributeRecord
	_ = attr.Unpack(rep.exec[recOff+36:])
	if attr.Address != fx.addr(iVBO) || attr.SizeMinusOne != 11 || attr.Stride != vertexStride {
		t.Errorf("attribute %+v, want address %#x", attr, fx.addr(iVBO))
	}
	// The texture's P0 holds the BO's address added to the offset and
	// config bits; P1 is copied; the texture BO index is not.
	p0, p1 := texP0P1(t)
	if got := u32(rep.exec, uniOff); got != fx.addr(iTex)+p0 {
		t.Errorf("relocated P0 %#x, want %#x", got, fx.addr(iTex)+p0)
	}
	if got := u32(rep.exec, uniOff+4); got != p1 {
		t.Errorf("P1 %#x, want %#x", got, p1)
	}
	if got := u32(rep.exec, uniOff+8); got != math.Float32bits(2) {
		t.Errorf("VS uniform %#x", got)
	}

	// The target was cleared to the clear colour.
	bo, _ := fx.f.LookupBO(fx.h[iColor])
	defer bo.Put()
	m := bo.Bytes()
	for _, off := range []int{0, 4 * (800*600 - 1), 4 * (800*300 + 400)} {
		if v := binary.LittleEndian.Uint32(m[off:]); v != 0xff336699 {
			t.Errorf("pixel at byte %d is %#x, want the clear colour", off, v)
		}
	}
}

// rule is one rule of the kernel's (doc/kernel.md) broken in an otherwise valid submit.
type rule struct {
	name   string
	break_ func(fx *fixture, s *submission)
	errno  syscall.Errno
	reason string // a substring of the kernel's message
}

func runRules(t *testing.T, width, height int, rules []rule) {
	fx := newFixture(t, width, height)
	if err := fx.submit(fx.valid()); err != nil {
		t.Fatalf("the valid submit was refused: %v", err)
	}
	for _, r := range rules {
		t.Run(r.name, func(t *testing.T) {
			s := fx.valid()
			r.break_(fx, s)
			err := fx.submit(s)
			if r.errno == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if rep := fx.lastReport(); rep.faults != 0 {
					t.Fatalf("accepted job made %d faults: %v", rep.faults, rep.first)
				}
				return
			}
			if !errors.Is(err, r.errno) || !strings.Contains(err.Error(), r.reason) {
				t.Fatalf("got %v, want %v %q", err, r.errno, r.reason)
			}
		})
	}
}

// Helpers that edit the bin CL, shader records and uniforms.

// binPacket returns the offset of the first packet with opcode op in the
// user's bin CL.
func binPacket(t testing.TB, bin []byte, op spec.Opcode) int {
	for off := 0; off < len(bin); off += spec.Lookup(spec.Opcode(bin[off])).Len {
		if spec.Opcode(bin[off]) == op {
			return off
		}
	}
	t.Fatalf("no %v in the bin CL", op)
	return 0
}

// insert puts p into the bin CL before the packet at off.
func insert(s *submission, off int, p []byte) {
	s.bin = append(s.bin[:off], append(append([]byte(nil), p...), s.bin[off:]...)...)
}

// replacePacket replaces the packet at off with p.
func replacePacket(s *submission, off int, p []byte) {
	n := spec.Lookup(spec.Opcode(s.bin[off])).Len
	s.bin = append(s.bin[:off], append(append([]byte(nil), p...), s.bin[off+n:]...)...)
}

// Record offsets in the user's shader_rec stream: 3 + 1 indices, then the
// record.
const (
	recIdxFS   = 0
	recIdxVS   = 4
	recIdxCS   = 8
	recIdxAttr = 12
	recStart   = 16
)

func putU32(b []byte, off int, v uint32) { binary.LittleEndian.PutUint32(b[off:], v) }

// doc/kernel.md#submit_cl: the ioctl's own checks, in vc4_submit_cl_ioctl's order.
func TestSubmitIoctlRules(t *testing.T) {
	runRules(t, 128, 64, []rule{
		{"unknown flag", func(_ *fixture, s *submission) { s.args.Flags |= 1 << 4 }, syscall.EINVAL, "Unknown flags"},
		{"pad2", func(_ *fixture, s *submission) { s.args.Pad2 = 1 }, syscall.EINVAL, "Invalid pad"},
		{"no BOs", func(_ *fixture, s *submission) { s.handles = nil }, syscall.EINVAL, "Rendering requires BOs"},
		{"bad handle", func(_ *fixture, s *submission) { s.handles[iTex] = 0xdead }, syscall.EINVAL, "Failed to look up GEM BO 4"},
		{"DONTNEED BO", func(fx *fixture, s *submission) {
			h := fx.bo(4096)
			a := uapi.GemMadvise{Handle: h, Madv: uapi.MadvDontNeed}
			if err := fx.f.GemMadvise(&a); err != nil {
				fx.t.Fatal(err)
			}
			s.handles = append(s.handles, h)
		}, syscall.EINVAL, "purgeable"},
		{"unknown perfmon", func(_ *fixture, s *submission) { s.args.PerfmonID = 7 }, syscall.ENOENT, "perfmon"},
		{"in_sync", func(_ *fixture, s *submission) { s.args.InSync = 1 }, syscall.ENOENT, "syncobj"},
		{"out_sync", func(_ *fixture, s *submission) { s.args.OutSync = 1 }, syscall.EINVAL, "syncobj"},
		{"shader_rec_count overflow", func(_ *fixture, s *submission) { s.args.ShaderRecCount = math.MaxUint32 / 8 }, syscall.EINVAL, "overflow in exec arguments"},
		{"exec size overflow", func(_ *fixture, s *submission) {
			s.after = func(a *uapi.SubmitCL) { a.UniformsSize = math.MaxUint32 - 8 }
		}, syscall.EINVAL, "overflow in exec arguments"},
		{"bad bin CL pointer", func(_ *fixture, s *submission) {
			s.after = func(a *uapi.SubmitCL) { a.BinCL = 8 }
		}, syscall.EFAULT, "bin CL"},
		{"bad handles pointer", func(_ *fixture, s *submission) {
			s.after = func(a *uapi.SubmitCL) { a.BOHandles = 0 }
		}, syscall.EFAULT, "GEM handles"},
		// A render-only job ignores shader records and uniforms.
		{"render-only job", func(_ *fixture, s *submission) {
			s.bin = nil
			s.after = func(a *uapi.SubmitCL) { a.ShaderRec, a.Uniforms = 1, 1 }
		}, 0, ""},
	})
}

// doc/kernel.md#bin-cl: the bin CL walk, the packet whitelist and the order rules.
func TestSubmitBinCLRules(t *testing.T) {
	runRules(t, 128, 64, []rule{
		{"opcode 255", func(fx *fixture, s *submission) {
			insert(s, binPacket(fx.t, s.bin, spec.OpStartTileBinning), []byte{255})
		}, syscall.EINVAL, "packet 255 out of bounds"},
		{"NV_SHADER_STATE", func(fx *fixture, s *submission) {
			off := binPacket(fx.t, s.bin, spec.OpGLShaderState)
			s.bin[off] = byte(spec.OpNVShaderState)
		}, syscall.EINVAL, "packet 65 invalid"},
		{"Z_CLIPPING", func(fx *fixture, s *submission) {
			insert(s, binPacket(fx.t, s.bin, spec.OpGLShaderState), cl.ZClipping{MinZw: 0, MaxZw: 1}.Append(nil))
		}, syscall.EINVAL, "packet 104 invalid"},
		{"render-list packet", func(fx *fixture, s *submission) {
			insert(s, binPacket(fx.t, s.bin, spec.OpGLShaderState), cl.TileCoordinates{}.Append(nil))
		}, syscall.EINVAL, "packet 115 invalid"},
		{"truncated packet", func(_ *fixture, s *submission) {
			s.bin = append(s.bin[:len(s.bin)-2], byte(spec.OpClipWindow), 0, 0, 0x07, 0x04)
		}, syscall.EINVAL, "exceeds bounds"},
		{"no START_TILE_BINNING", func(fx *fixture, s *submission) {
			off := binPacket(fx.t, s.bin, spec.OpStartTileBinning)
			s.bin[off] = byte(spec.OpNOP)
		}, syscall.EINVAL, "missing VC4_PACKET_START_TILE_BINNING"},
		{"START before config", func(fx *fixture, s *submission) {
			off := binPacket(fx.t, s.bin, spec.OpStartTileBinning)
			s.bin[off] = byte(spec.OpNOP)
			insert(s, 0, []byte{byte(spec.OpStartTileBinning)})
		}, syscall.EINVAL, "missing VC4_PACKET_TILE_BINNING_MODE_CONFIG"},
		{"two START_TILE_BINNING", func(fx *fixture, s *submission) {
			insert(s, binPacket(fx.t, s.bin, spec.OpGLShaderState), []byte{byte(spec.OpStartTileBinning)})
		}, syscall.EINVAL, "Duplicate VC4_PACKET_START_TILE_BINNING"},
		{"ends with 07 only", func(_ *fixture, s *submission) { s.bin = s.bin[:len(s.bin)-1] }, syscall.EINVAL, "must end with VC4_PACKET_INCREMENT_SEMAPHORE"},
		{"ends 04 07", func(_ *fixture, s *submission) {
			s.bin[len(s.bin)-2], s.bin[len(s.bin)-1] = 0x04, 0x07
		}, syscall.EINVAL, "must end with VC4_PACKET_FLUSH"},
		{"ends with neither", func(_ *fixture, s *submission) {
			s.bin[len(s.bin)-2], s.bin[len(s.bin)-1] = 1, 1
		}, syscall.EINVAL, "missing VC4_PACKET_INCREMENT_SEMAPHORE + VC4_PACKET_FLUSH"},
		{"FLUSH in the middle", func(fx *fixture, s *submission) {
			insert(s, binPacket(fx.t, s.bin, spec.OpGLShaderState), []byte{byte(spec.OpFlush)})
		}, syscall.EINVAL, "must end with VC4_PACKET_FLUSH"},
		{"HALT stops parsing", func(fx *fixture, s *submission) {
			insert(s, binPacket(fx.t, s.bin, spec.OpGLShaderState), []byte{byte(spec.OpHalt)})
		}, syscall.EINVAL, "missing VC4_PACKET_INCREMENT_SEMAPHORE + VC4_PACKET_FLUSH"},
		{"NOP and FLUSH_ALL are fine", func(fx *fixture, s *submission) {
			insert(s, binPacket(fx.t, s.bin, spec.OpGLShaderState), []byte{byte(spec.OpNOP), byte(spec.OpFlushAll)})
		}, 0, ""},
		// doc/kernel.md#binning-configuration
		{"two binning configs", func(fx *fixture, s *submission) {
			insert(s, binPacket(fx.t, s.bin, spec.OpStartTileBinning), s.bin[:16])
		}, syscall.EINVAL, "Duplicate VC4_PACKET_TILE_BINNING_MODE_CONFIG"},
		{"0 tiles wide", func(_ *fixture, s *submission) { s.bin[13] = 0 }, syscall.EINVAL, "too small"},
		{"double-buffer flag", func(_ *fixture, s *submission) { s.bin[15] |= 0x80 }, syscall.EINVAL, "unsupported binning config flags"},
		{"64-bit colour flag", func(_ *fixture, s *submission) { s.bin[15] |= 0x02 }, syscall.EINVAL, "unsupported binning config flags"},
		{"105x104 tiles", func(_ *fixture, s *submission) { s.bin[13], s.bin[14] = 105, 104 }, syscall.EINVAL, "too large"},
		{"104x104 tiles fit", func(_ *fixture, s *submission) { s.bin[13], s.bin[14] = 104, 104 }, 0, ""},
		{"user addresses are overwritten", func(_ *fixture, s *submission) {
			for i := 1; i <= 12; i++ {
				s.bin[i] = 0xff
			}
		}, 0, ""},
		// doc/kernel.md#primitives
		{"primitive before shader state", func(fx *fixture, s *submission) {
			insert(s, binPacket(fx.t, s.bin, spec.OpGLShaderState), cl.GLArrayPrimitive{Mode: 4, Length: 3}.Append(nil))
		}, syscall.EINVAL, "shader state must precede primitives"},
		{"count + first wraps", func(fx *fixture, s *submission) {
			off := binPacket(fx.t, s.bin, spec.OpGLArrayPrimitive)
			replacePacket(s, off, cl.GLArrayPrimitive{Mode: 4, Length: 3, First: math.MaxUint32}.Append(nil))
		}, syscall.EINVAL, "primitive vertex count overflow"},
		{"zero-length draw", func(fx *fixture, s *submission) {
			off := binPacket(fx.t, s.bin, spec.OpGLArrayPrimitive)
			replacePacket(s, off, cl.GLArrayPrimitive{Mode: 4, Length: 0}.Append(nil))
		}, syscall.EINVAL, "primitives use index 4294967295"},
		{"indexed draw", func(fx *fixture, s *submission) {
			off := binPacket(fx.t, s.bin, spec.OpGLArrayPrimitive)
			p := cl.GEMHandles{BOIndex0: iIndex}.Append(nil)
			p = cl.GLIndexedPrimitive{Mode: 4, IndexType: cl.IndexType16Bit, Length: 36, IndexAddress: 8, MaxIndex: 35}.Append(p)
			replacePacket(s, off, p)
		}, 0, ""},
		{"index list past the BO", func(fx *fixture, s *submission) {
			off := binPacket(fx.t, s.bin, spec.OpGLArrayPrimitive)
			p := cl.GEMHandles{BOIndex0: iIndex}.Append(nil)
			// (4096 - 4090) / 2 = 3 indices fit; 36 do not.
			p = cl.GLIndexedPrimitive{Mode: 4, IndexType: cl.IndexType16Bit, Length: 36, IndexAddress: 4090, MaxIndex: 35}.Append(p)
			replacePacket(s, off, p)
		}, syscall.EINVAL, "IB access overflow"},
		{"index offset past the BO", func(fx *fixture, s *submission) {
			off := binPacket(fx.t, s.bin, spec.OpGLArrayPrimitive)
			p := cl.GEMHandles{BOIndex0: iIndex}.Append(nil)
			p = cl.GLIndexedPrimitive{Mode: 4, Length: 0, IndexAddress: 4097, MaxIndex: 0}.Append(p)
			replacePacket(s, off, p)
		}, syscall.EINVAL, "IB access overflow"},
		{"index BO without GEM_HANDLES is BO 0, a shader", func(fx *fixture, s *submission) {
			off := binPacket(fx.t, s.bin, spec.OpGLArrayPrimitive)
			replacePacket(s, off, cl.GLIndexedPrimitive{Mode: 4, Length: 3, MaxIndex: 2}.Append(nil))
		}, syscall.EINVAL, "Trying to use shader BO as something other than a shader"},
		{"declared max index past the vertices", func(fx *fixture, s *submission) {
			off := binPacket(fx.t, s.bin, spec.OpGLArrayPrimitive)
			p := cl.GEMHandles{BOIndex0: iIndex}.Append(nil)
			// (4096 - 12) / 12 = 340 is the last vertex that fits.
			p = cl.GLIndexedPrimitive{Mode: 4, Length: 3, MaxIndex: 341}.Append(p)
			replacePacket(s, off, p)
		}, syscall.EINVAL, "primitives use index 341 out of supplied 340"},
		{"GEM_HANDLES index out of range", func(fx *fixture, s *submission) {
			off := binPacket(fx.t, s.bin, spec.OpGLArrayPrimitive)
			p := cl.GEMHandles{BOIndex0: nBOs}.Append(nil)
			p = cl.GLIndexedPrimitive{Mode: 4, Length: 3, MaxIndex: 2}.Append(p)
			replacePacket(s, off, p)
		}, syscall.EINVAL, "BO index 8 greater than BO count 8"},
	})
}

// doc/kernel.md#shader-records: GL shader state packets and records.
func TestSubmitShaderRecordRules(t *testing.T) {
	notShader := func(i int) func(fx *fixture, s *submission) {
		return func(_ *fixture, s *submission) { putU32(s.recs, i, iVBO) }
	}
	runRules(t, 128, 64, []rule{
		{"high bits in GL_SHADER_STATE", func(fx *fixture, s *submission) {
			off := binPacket(fx.t, s.bin, spec.OpGLShaderState)
			s.bin[off+1] |= 0x10
		}, syscall.EINVAL, "high bits set in GL shader rec reference"},
		{"more states than declared", func(_ *fixture, s *submission) { s.args.ShaderRecCount = 0 }, syscall.EINVAL, "More requests for shader states than declared"},
		{"extra declared records are fine", func(_ *fixture, s *submission) { s.args.ShaderRecCount = 5 }, 0, ""},
		{"too few bytes for the indices", func(_ *fixture, s *submission) { s.recs = s.recs[:8] }, syscall.EINVAL, "overflowed shader recs reading 4 handles"},
		{"too few bytes for the record", func(_ *fixture, s *submission) { s.recs = s.recs[:recStart+40] }, syscall.EINVAL, "overflowed shader recs copying 44b packet"},
		{"FS index == BO count", func(_ *fixture, s *submission) { putU32(s.recs, recIdxFS, nBOs) }, syscall.EINVAL, "Shader handle 8 too big"},
		{"FS not a shader BO", notShader(recIdxFS), syscall.EINVAL, "FS BO (index 3) is not a shader BO"},
		{"VS not a shader BO", notShader(recIdxVS), syscall.EINVAL, "VS BO (index 3) is not a shader BO"},
		{"CS not a shader BO", notShader(recIdxCS), syscall.EINVAL, "CS BO (index 3) is not a shader BO"},
		{"attribute BO index out of range", func(_ *fixture, s *submission) { putU32(s.recs, recIdxAttr, 99) }, syscall.EINVAL, "BO index 99 greater than BO count"},
		{"attribute BO is a shader", func(_ *fixture, s *submission) { putU32(s.recs, recIdxAttr, iFS) }, syscall.EINVAL, "Trying to use shader BO"},
		{"FS code not at offset 0", func(_ *fixture, s *submission) { putU32(s.recs, recStart+4, 8) }, syscall.EINVAL, "Shaders must be at offset 0"},
		{"CS code not at offset 0", func(_ *fixture, s *submission) { putU32(s.recs, recStart+28, 8) }, syscall.EINVAL, "Shaders must be at offset 0"},
		{"FS thread mode", func(_ *fixture, s *submission) { s.recs[recStart] &^= 1 }, syscall.EINVAL, "Thread mode of CL and FS do not match"},
		{"threaded VS", func(fx *fixture, s *submission) {
			var a qpuAsm
			h := fx.shaderBO(a.threaded())
			s.handles = append(s.handles, h)
			putU32(s.recs, recIdxVS, uint32(len(s.handles)-1))
		}, syscall.EINVAL, "cs and vs cannot be threaded"},
		{"threaded FS with single-thread flag clear", func(fx *fixture, s *submission) {
			var a qpuAsm
			h := fx.shaderBO(a.threaded())
			s.handles = append(s.handles, h)
			putU32(s.recs, recIdxFS, uint32(len(s.handles)-1))
			s.recs[recStart] &^= 1
			// The threaded FS reads no uniforms and samples nothing.
			s.unis = s.unis[12:]
		}, 0, ""},
		{"attribute offset past the BO", func(_ *fixture, s *submission) { putU32(s.recs, recStart+36, vboSize+4) }, syscall.EINVAL, "BO offset overflow"},
		{"attribute bytes past the BO", func(_ *fixture, s *submission) { putU32(s.recs, recStart+36, vboSize-11) }, syscall.EINVAL, "BO offset overflow"},
		{"vertices past the BO", func(_ *fixture, s *submission) {
			// 36 vertices of stride 12 need 35*12 + 12 bytes after the
			// offset: 4096-3700-12 = 384 < 35*12 = 420.
			putU32(s.recs, recStart+36, 3700)
		}, syscall.EINVAL, "primitives use index 35 out of supplied 32"},
		{"stride 0 needs only one vertex", func(_ *fixture, s *submission) {
			putU32(s.recs, recStart+36, vboSize-12)
			s.recs[recStart+36+5] = 0
		}, 0, ""},
	})
}

// qpuAsm builds odd shaders for the rules.
type qpuAsm struct{}

// threaded is a shader with a thread switch, no uniforms, no samples.
func (qpuAsm) threaded() []uint64 {
	return []uint64{
		0x200009e7_009e7000, // thrsw
		0x100009e7_009e7000, // nop
		0x100009e7_009e7000,
		0x300009e7_009e7000, // thrend
		0x100009e7_009e7000,
		0x100009e7_009e7000,
	}
}

// doc/kernel.md#uniforms: the uniform stream and texture relocation.
func TestSubmitUniformRules(t *testing.T) {
	setP := func(i int, v uint32) func(*fixture, *submission) {
		return func(_ *fixture, s *submission) { putU32(s.unis, 4+4*i, v) }
	}
	p0, p1 := texP0P1(t)
	low, _ := texture.SplitType(texture.RGBA8888)
	withLevels := func(levels uint8, base uint32) uint32 {
		v, _ := texture.P0{Base: base, TypeLow: low, LastLevel: levels}.Encode()
		return v
	}
	runRules(t, 128, 64, []rule{
		{"uniforms too short", func(_ *fixture, s *submission) { s.unis = s.unis[:len(s.unis)-4] }, syscall.EINVAL, "Uniforms src buffer overflow"},
		{"texture index out of range", func(_ *fixture, s *submission) { putU32(s.unis, 0, nBOs) }, syscall.EINVAL, "BO index 8 greater than BO count"},
		{"texture BO is a shader", func(_ *fixture, s *submission) { putU32(s.unis, 0, iFS) }, syscall.EINVAL, "Trying to use shader BO"},
		{"texture type 12 (BW1)", setP(0, p0&^0xf0|12<<4), syscall.EINVAL, "Texture format 12 unsupported"},
		{"texture type 17 (YUV422R)", func(_ *fixture, s *submission) {
			putU32(s.unis, 4, p0&^0xf0|1<<4)
			putU32(s.unis, 8, p1|1<<31)
		}, syscall.EINVAL, "Texture format 17 unsupported"},
		{"texture past the BO", setP(0, withLevels(0, texOffset+4096)), syscall.EINVAL, "Overflow in 64x64"},
		{"texture of size 0 is 2048x2048", setP(1, p1&^(0x7ff<<8|0x7ff<<20)), syscall.EINVAL, "Overflow in 2048x2048"},
		// One level below: 32×32 RGBA8888 in T format is 4096 bytes,
		// exactly the offset. Two levels need 4096 + 1024 (16×16 LT).
		{"one mip level below the base fits", setP(0, withLevels(1, texOffset)), 0, ""},
		{"mip levels past the BO start", setP(0, withLevels(2, texOffset)), syscall.EINVAL, "Level 2 (16x16 -> 16x16) size 1024b overflowed buffer bounds"},
		{"cube map without stride", setP(0, p0|1<<9), syscall.EINVAL, "Cube map stride not set"},
		// A 33×33 texture with two levels below a base at 4096: the
		// kernel's sizes (16×16 and 8×8, LT: 1280 bytes) fit, but the TMU
		// uses 32×32 (T, 4096 bytes) and 16×16 (LT, 1024) containers and
		// would read 1 KiB below the BO (stricter than the kernel).
		{"NPOT mip chain in power-of-two containers", func(_ *fixture, s *submission) {
			putU32(s.unis, 4, withLevels(2, texOffset))
			v, _ := texture.P1{Width: 33, Height: 33}.Encode()
			putU32(s.unis, 8, v)
		}, syscall.EINVAL, "power-of-two mip containers need 5120 bytes"},
		// An unaligned offset is not refused: its low bits are config
		// fields (doc/kernel.md#texture-relocation).
		{"unaligned texture offset changes the fields", setP(0, p0|0x100), 0, ""},
	})
}

// doc/kernel.md#surfaces: the render surfaces, in vc4_get_rcl's order.
func TestSubmitSurfaceRules(t *testing.T) {
	const full uint16 = uapi.SurfaceReadIsFullRes
	runRules(t, 128, 64, []rule{
		{"min tile > max tile", func(_ *fixture, s *submission) { s.args.MinXTile = 1; s.args.MaxXTile = 0 }, syscall.EINVAL, "Bad render tile set"},
		{"max tile = bin tiles", func(_ *fixture, s *submission) { s.args.MaxXTile = 2 }, syscall.EINVAL, "outside of bin config"},
		{"tiles inside the frame subset", func(_ *fixture, s *submission) { s.args.MinXTile = 1 }, 0, ""},
		{"color_write flags", func(_ *fixture, s *submission) { s.args.ColorWrite.Flags = 1 }, syscall.EINVAL, "No flags supported on render config"},
		{"color_write 64-bit bit", func(_ *fixture, s *submission) { s.args.ColorWrite.Bits |= 1 << 1 }, syscall.EINVAL, "Unknown bits in render config"},
		{"color_write bit 8", func(_ *fixture, s *submission) { s.args.ColorWrite.Bits |= 1 << 8 }, syscall.EINVAL, "Unknown bits in render config"},
		{"absent color_write still needs clean bits", func(_ *fixture, s *submission) {
			s.args.ColorWrite = uapi.SubmitRCLSurface{HIndex: uapi.SurfaceAbsent, Bits: 1 << 1}
		}, syscall.EINVAL, "Unknown bits in render config"},
		{"color_write format 3", func(_ *fixture, s *submission) { s.args.ColorWrite.Bits = 3 << 2 }, syscall.EINVAL, "Bad tile buffer format"},
		{"color_write tiling 3", func(_ *fixture, s *submission) { s.args.ColorWrite.Bits = 0x04 | 3<<6 }, syscall.EINVAL, "Bad tiling format"},
		{"color_write too small", func(_ *fixture, s *submission) { s.args.ColorWrite.Offset = 4096 }, syscall.EINVAL, "Overflow in 128x64 color_write"},
		{"color_write T-format", func(_ *fixture, s *submission) { s.args.ColorWrite.Bits = renderBitsRGBA8888T }, 0, ""},
		{"color_write unaligned offset is allowed", func(fx *fixture, s *submission) {
			s.handles[iColor] = fx.bo(128*64*4 + 4096)
			s.args.ColorWrite.Offset = 4
		}, 0, ""},
		{"color_write is a shader", func(_ *fixture, s *submission) { s.args.ColorWrite.HIndex = iFS }, syscall.EINVAL, "Trying to use shader BO"},
		{"color_write index out of range", func(_ *fixture, s *submission) { s.args.ColorWrite.HIndex = 99 }, syscall.EINVAL, "BO index 99"},
		{"zeroed surface is BO 0, the FS", func(_ *fixture, s *submission) { s.args.ColorRead = uapi.SubmitRCLSurface{} }, syscall.EINVAL, "Trying to use shader BO"},
		{"color_read extra flags", func(_ *fixture, s *submission) { s.args.ColorRead.Flags = 2 }, syscall.EINVAL, "Extra flags set"},
		{"color_read", func(_ *fixture, s *submission) {
			s.args.ColorRead = uapi.SubmitRCLSurface{HIndex: iColor, Bits: 0x01}
		}, 0, ""},
		{"color_read and zs_read", func(_ *fixture, s *submission) {
			s.args.ColorRead = uapi.SubmitRCLSurface{HIndex: iColor, Bits: 0x01}
			s.args.ZSRead = uapi.SubmitRCLSurface{HIndex: iZS, Bits: storeBitsZST}
		}, 0, ""},
		{"color_read unknown bits", func(_ *fixture, s *submission) {
			s.args.ColorRead = uapi.SubmitRCLSurface{HIndex: iColor, Bits: 0x01 | 1<<6}
		}, syscall.EINVAL, "Unknown bits in load/store"},
		{"color_read buffer 3 (Z only)", func(_ *fixture, s *submission) {
			s.args.ColorRead = uapi.SubmitRCLSurface{HIndex: iColor, Bits: 0x03}
		}, syscall.EINVAL, "Bad load/store buffer 3"},
		{"color_read format 3", func(_ *fixture, s *submission) {
			s.args.ColorRead = uapi.SubmitRCLSurface{HIndex: iColor, Bits: 0x01 | 3<<8}
		}, syscall.EINVAL, "Bad tile buffer format"},
		{"color_read tiling 3", func(_ *fixture, s *submission) {
			s.args.ColorRead = uapi.SubmitRCLSurface{HIndex: iColor, Bits: 0x01 | 3<<4}
		}, syscall.EINVAL, "Bad tiling format"},
		{"color_read unaligned", func(_ *fixture, s *submission) {
			s.args.ColorRead = uapi.SubmitRCLSurface{HIndex: iColor, Bits: 0x01, Offset: 4}
		}, syscall.EINVAL, "must be 16b aligned"},
		{"zs_read with a colour format", func(_ *fixture, s *submission) {
			s.args.ZSRead = uapi.SubmitRCLSurface{HIndex: iZS, Bits: storeBitsZST | 1<<8}
		}, syscall.EINVAL, "No color format should be set for ZS"},
		{"zs_write too small", func(_ *fixture, s *submission) { s.args.ZSWrite.Offset = 4096 }, syscall.EINVAL, "Overflow in 128x64 zs_write"},
		{"zs_write with colour bits is accepted", func(_ *fixture, s *submission) { s.args.ZSWrite.Bits = loadBitsColorT }, 0, ""},
		{"zs_write full-res", func(_ *fixture, s *submission) {
			s.args.ZSWrite = uapi.SubmitRCLSurface{HIndex: iZS, Flags: full}
		}, syscall.EINVAL, "general zs write may not be a full-res"},
		{"full-res read with bits", func(_ *fixture, s *submission) {
			s.args.ColorRead = uapi.SubmitRCLSurface{HIndex: iColor, Flags: full, Bits: 1}
		}, syscall.EINVAL, "load/store general bits set with full res"},
		{"full-res read", func(fx *fixture, s *submission) {
			s.handles = append(s.handles, fx.bo(2*16384))
			s.args.ColorRead = uapi.SubmitRCLSurface{HIndex: uint32(len(s.handles) - 1), Flags: full}
		}, 0, ""},
		{"full-res read's last tile past the BO", func(fx *fixture, s *submission) {
			// 128 pixels wide: 4 full-res tiles a row (ceil(128/32)); the
			// last tile (1, 0) needs 2 × 16 KiB. The kernel only checks
			// that it starts inside; the model that it ends inside.
			s.handles = append(s.handles, fx.bo(16384+4096))
			s.args.ColorRead = uapi.SubmitRCLSurface{HIndex: uint32(len(s.handles) - 1), Flags: full}
		}, syscall.EINVAL, "out of bounds"},
		{"full-res read unaligned (stricter)", func(fx *fixture, s *submission) {
			s.handles = append(s.handles, fx.bo(3*16384))
			s.args.ColorRead = uapi.SubmitRCLSurface{HIndex: uint32(len(s.handles) - 1), Flags: full, Offset: 4}
		}, syscall.EINVAL, "must be 16b aligned"},
		{"absent MSAA surface with bits", func(_ *fixture, s *submission) { s.args.MSAAColorWrite.Bits = 1 }, syscall.EINVAL, "MSAA surface had nonzero flags/bits"},
		{"absent MSAA surface with flags", func(_ *fixture, s *submission) { s.args.MSAAZSWrite.Flags = 1 }, syscall.EINVAL, "MSAA surface had nonzero flags/bits"},
		{"MSAA write", func(fx *fixture, s *submission) {
			s.handles = append(s.handles, fx.bo(2*16384))
			s.args.MSAAColorWrite = uapi.SubmitRCLSurface{HIndex: uint32(len(s.handles) - 1)}
		}, 0, ""},
		{"MSAA write unaligned", func(fx *fixture, s *submission) {
			s.handles = append(s.handles, fx.bo(3*16384))
			s.args.MSAAColorWrite = uapi.SubmitRCLSurface{HIndex: uint32(len(s.handles) - 1), Offset: 8}
		}, syscall.EINVAL, "MSAA write must be 16b aligned"},
		{"no write surface", func(_ *fixture, s *submission) {
			s.args.ColorWrite.HIndex = uapi.SurfaceAbsent
			s.args.ZSWrite.HIndex = uapi.SurfaceAbsent
		}, syscall.EINVAL, "RCL requires color or Z/S write"},
		{"Z/S write only", func(_ *fixture, s *submission) { s.args.ColorWrite.HIndex = uapi.SurfaceAbsent }, 0, ""},
	})
}

// The shader validator's refusals reach user space as EINVAL from
// CREATE_SHADER_BO, with the BO freed (doc/kernel.md#buffer-objects).
func TestCreateShaderBORules(t *testing.T) {
	fx := newFixture(t, 64, 64)
	code := qpu.Bytes(fsCode())
	for _, c := range []struct {
		name  string
		arg   uapi.CreateShaderBO
		errno syscall.Errno
	}{
		{"size 0", uapi.CreateShaderBO{Size: 0, Data: simtest.Ptr(t, code)}, syscall.EINVAL},
		{"size not a multiple of 8", uapi.CreateShaderBO{Size: 12, Data: simtest.Ptr(t, code)}, syscall.EINVAL},
		{"flags", uapi.CreateShaderBO{Size: uint32(len(code)), Flags: 1, Data: simtest.Ptr(t, code)}, syscall.EINVAL},
		{"pad", uapi.CreateShaderBO{Size: uint32(len(code)), Pad: 1, Data: simtest.Ptr(t, code)}, syscall.EINVAL},
		{"bad pointer", uapi.CreateShaderBO{Size: uint32(len(code)), Data: 16}, syscall.EFAULT},
		{"no delay slots", uapi.CreateShaderBO{Size: uint32(len(code)) - 16, Data: simtest.Ptr(t, code)}, syscall.EINVAL},
	} {
		arg := c.arg
		before := fx.d.Stats()
		err := fx.f.CreateShaderBO(&arg)
		if !errors.Is(err, c.errno) {
			t.Errorf("%s: %v, want %v", c.name, err, c.errno)
		}
		if after := fx.d.Stats(); countLabel(after, "V3D shader") != countLabel(before, "V3D shader") {
			t.Errorf("%s: the refused shader BO was kept: %+v", c.name, after)
		}
	}
}

func countLabel(stats []kernel.LabelStats, name string) int {
	for _, s := range stats {
		if s.Name == name {
			return s.Count
		}
	}
	return 0
}
