package kernel_test

import (
	"testing"
	"unsafe"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/spec"
	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/gem"
	"github.com/vccube/vccube/shaders/qpu"
)

// headerBytes returns the SubmitCL struct's bytes (pointers and sizes are
// set by the fuzz function).
func headerBytes(a gem.SubmitCL) []byte {
	b := unsafe.Slice((*byte)(unsafe.Pointer(&a)), unsafe.Sizeof(a))
	return append([]byte(nil), b...)
}

// FuzzSubmitCL hands the kernel mutated submits: the fixture's valid
// textured draw (and variants) as seeds, every byte of the bin CL, shader
// records, uniforms and the ioctl struct open to mutation. Nothing may
// panic, and every accepted job runs on the auditing GPU, which must see
// no access outside the job's buffers.
func FuzzSubmitCL(f *testing.F) {
	fx := newFixture(f, 128, 64)
	seed := func(s *submission) {
		f.Add(headerBytes(s.args), s.bin, s.recs, s.unis)
	}
	s := fx.valid()
	seed(s)

	// Render only, with a colour read.
	s = fx.valid()
	s.args.ColorRead = gem.SubmitRCLSurface{HIndex: iColor, Bits: 0x01}
	seed(&submission{args: s.args})

	// An indexed draw through GEM_HANDLES.
	s = fx.valid()
	off := binPacket(f, s.bin, spec.OpGLArrayPrimitive)
	p := cl.GEMHandles{BOIndex0: iIndex}.Append(nil)
	p = cl.GLIndexedPrimitive{Mode: 4, IndexType: cl.IndexType16Bit, Length: 36, IndexAddress: 8, MaxIndex: 35}.Append(p)
	replacePacket(s, off, p)
	seed(s)

	// Mipmapped texture, two draws, fixed tile order.
	s = fx.valid()
	p0, p1 := texP0P1(f)
	putU32(s.unis, 4, p0|1)
	putU32(s.unis, 8, p1)
	s.args.Flags |= gem.SubmitFixedRCLOrder | gem.SubmitRCLOrderIncreasingX
	seed(s)

	f.Fuzz(func(t *testing.T, hdr, bin, recs, unis []byte) {
		var a gem.SubmitCL
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&a)), unsafe.Sizeof(a)), hdr)
		sub := &submission{bin: bin, recs: recs, unis: unis, handles: fx.h[:], args: a}
		err := fx.submit(sub)
		if err != nil {
			return
		}
		rep := fx.lastReport()
		if rep.seqno != sub.args.Seqno {
			t.Fatalf("job %d not reported (last %d)", sub.args.Seqno, rep.seqno)
		}
		if rep.faults != 0 {
			t.Fatalf("accepted job %d made %d accesses outside its buffers: %v", rep.seqno, rep.faults, rep.first)
		}
	})
}

// FuzzCreateShaderBO hands CREATE_SHADER_BO random and mutated code:
// nothing may panic, a refused shader leaves no BO behind, and an accepted
// one is a BO of the right size.
func FuzzCreateShaderBO(f *testing.F) {
	fx := newFixture(f, 64, 64)
	f.Add(qpu.Bytes(fsCode()))
	f.Add(qpu.Bytes(vsCode()))
	f.Add(qpu.Bytes(csCode()))
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8})
	f.Fuzz(func(t *testing.T, code []byte) {
		if len(code) == 0 {
			return
		}
		before := countLabel(fx.d.Stats(), "V3D shader")
		arg := gem.CreateShaderBO{Size: uint32(len(code)), Data: pinned(t, code)}
		err := fx.f.CreateShaderBO(&arg)
		after := countLabel(fx.d.Stats(), "V3D shader")
		if err != nil {
			if after != before {
				t.Fatalf("refused shader left a BO: %d -> %d", before, after)
			}
			return
		}
		bo, lerr := fx.f.LookupBO(arg.Handle)
		if lerr != nil {
			t.Fatal(lerr)
		}
		if bo.Size() < uint32(len(code)) || bo.Size()%4096 != 0 {
			t.Fatalf("shader BO of %d bytes for %d bytes of code", bo.Size(), len(code))
		}
		bo.Put()
		if e := fx.f.GemClose(&drm.GemClose{Handle: arg.Handle}); e != nil {
			t.Fatal(e)
		}
	})
}
