package kernel_test

import (
	"testing"
	"unsafe"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/spec"
	"github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/sim/internal/simtest"
	"github.com/vccube/vccube/uapi"
)

// headerBytes returns the SubmitCL struct's bytes (pointers and sizes are
// set by the fuzz function).
func headerBytes(a uapi.SubmitCL) []byte {
	b := unsafe.Slice((*byte)(unsafe.Pointer(&a)), unsafe.Sizeof(a))
	return append([]byte(nil), b...)
}

// variant is a valid submission of a kind the fuzzer starts from.
type variant struct {
	name string
	s    *submission
}

// variants are the fuzzer's seeds: the fixture's valid textured draw and
// valid variations of it.
func variants(t testing.TB, fx *fixture) []variant {
	var vs []variant
	vs = append(vs, variant{"textured draw", fx.valid()})

	// Render only, with a colour read.
	s := fx.valid()
	s.args.ColorRead = uapi.SubmitRCLSurface{HIndex: iColor, Bits: 0x01}
	vs = append(vs, variant{"render only with a colour read", &submission{args: s.args, handles: s.handles}})

	// An indexed draw through GEM_HANDLES.
	s = fx.valid()
	off := binPacket(t, s.bin, spec.OpGLArrayPrimitive)
	p := cl.GEMHandles{BOIndex0: iIndex}.Append(nil)
	p = cl.GLIndexedPrimitive{Mode: 4, IndexType: cl.IndexType16Bit, Length: 36, IndexAddress: 8, MaxIndex: 35}.Append(p)
	replacePacket(s, off, p)
	vs = append(vs, variant{"indexed draw", s})

	// Mipmapped texture, two draws, fixed tile order.
	s = fx.valid()
	p0, p1 := texP0P1(t)
	putU32(s.unis, 4, p0|1)
	putU32(s.unis, 8, p1)
	s.args.Flags |= uapi.SubmitFixedRCLOrder | uapi.SubmitRCLOrderIncreasingX
	vs = append(vs, variant{"mipmaps, fixed tile order", s})
	return vs
}

// The valid submissions are valid for the hardware too: on the GPU model
// each job ends (no hang: the shaders keep the QPU's rules, the lists
// end, the semaphores pair up) and stays inside its BOs.
func TestVariantsRunOnGPUModel(t *testing.T) {
	fx := newFixture(t, 128, 64)
	for _, v := range variants(t, fx) {
		if err := fx.submit(v.s); err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		r := fx.lastReport()
		if r.hung {
			t.Errorf("%s: the job hung on the GPU model: %v", v.name, r.reason)
		}
		if r.faults != 0 {
			t.Errorf("%s: %d accesses outside the job's BOs, the first %v", v.name, r.faults, r.first)
		}
	}
}

// FuzzSubmitCL hands the kernel mutated submits: the fixture's valid
// textured draw (and variants) as seeds, every byte of the bin CL, shader
// records, uniforms and the ioctl struct open to mutation. Nothing may
// panic, and every accepted job runs on the auditing GPU, which must see
// no access outside the job's buffers.
func FuzzSubmitCL(f *testing.F) {
	fx := newFixture(f, 128, 64)
	for _, v := range variants(f, fx) {
		f.Add(headerBytes(v.s.args), v.s.bin, v.s.recs, v.s.unis)
	}

	f.Fuzz(func(t *testing.T, hdr, bin, recs, unis []byte) {
		var a uapi.SubmitCL
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
		arg := uapi.CreateShaderBO{Size: uint32(len(code)), Data: simtest.Ptr(t, code)}
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
		if e := fx.f.GemClose(&uapi.GemClose{Handle: arg.Handle}); e != nil {
			t.Fatal(e)
		}
	})
}
