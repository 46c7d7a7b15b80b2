package shaderrec

import (
	"bytes"
	"testing"

	"github.com/vccube/vccube/cl"
)

// A cube record: one attribute array of 6 floats
// (xc, yc, zc, wc, s, t) at offset 0x60 of BO 3, stride 24, both shaders
// reading all 24 bytes at VPM offset 0; FS single-threaded with clipping
// on and 2 varyings.
func cubeRecord() (GL, Relocs) {
	g := GL{
		Record: cl.GLShaderRecord{
			FSSingleThreaded: true, EnableClipping: true, FSNumVaryings: 2,
			VSAttributeSelect: 1, VSAttributesSize: 24, CSAttributeSelect: 1, CSAttributesSize: 24,
		},
		NumAttributes: 1,
	}
	g.Attributes[0] = cl.AttributeRecord{Address: 0x60, SizeMinusOne: 23, Stride: 24}
	return g, Relocs{FS: 0, VS: 1, CS: 2, Attributes: [8]uint32{3}}
}

// Bytes by hand from doc/kernel.md#shader-records and AG Table 45.
func TestKernelForm(t *testing.T) {
	g, r := cubeRecord()
	want := []byte{
		0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, // FS, VS, CS, attribute 0 BO indices
		0x05, 0x00, 0x00, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, // flags 1|4, FS varyings 2, code 0, uniforms 0
		0x00, 0x00, 0x01, 0x18, 0, 0, 0, 0, 0, 0, 0, 0, // VS: select 1, 24 bytes
		0x00, 0x00, 0x01, 0x18, 0, 0, 0, 0, 0, 0, 0, 0, // CS: select 1, 24 bytes
		0x60, 0x00, 0x00, 0x00, 23, 24, 0, 0, // attribute 0
	}
	if g.Len() != 44 || g.KernelLen() != 60 {
		t.Fatalf("Len %d, KernelLen %d; want 44 and 60 (doc/kernel.md#shader-records)", g.Len(), g.KernelLen())
	}
	got := g.AppendKernel(nil, &r)
	if !bytes.Equal(got, want) {
		t.Fatalf("\n got % x\nwant % x", got, want)
	}
	// 3 shader indices + 1 attribute index = 16 bytes in front (the first
	// row of want); 3 + 8 = 44 bytes for a full record.
	if RelocsLen(1) != 16 || RelocsLen(8) != 44 {
		t.Errorf("RelocsLen(1), RelocsLen(8) = %d, %d; want 16, 44", RelocsLen(1), RelocsLen(8))
	}
	if s := g.State(); s != (cl.GLShaderState{NumAttributeArrays: 1}) {
		t.Errorf("State = %+v", s)
	}
	r2, g2, n, err := DecodeKernel(want, g.State())
	if err != nil || n != 60 || r2 != r || g2 != g {
		t.Errorf("DecodeKernel: %+v %+v %d %v", r2, g2, n, err)
	}
}

func TestEightAttributesAndExtended(t *testing.T) {
	g := GL{NumAttributes: 8}
	for i := range g.Attributes {
		g.Attributes[i] = cl.AttributeRecord{Address: uint32(i) * 16, SizeMinusOne: 3, Stride: 4}
	}
	if s := g.State(); s.NumAttributeArrays != 0 || Count(s) != 8 {
		t.Errorf("8 arrays must encode as 0: %+v", s)
	}
	if b := g.Append(nil); len(b) != 100 {
		t.Errorf("8 arrays: %d bytes, want 100", len(b))
	}
	e := GL{NumAttributes: 2, Extended: true}
	e.Attributes[0] = cl.AttributeRecord{Address: 0x100, SizeMinusOne: 11, Stride: 12}
	e.Attributes[1] = cl.AttributeRecord{Address: 0x200, SizeMinusOne: 7, Stride: 0x08}
	e.ExtendedStrides = [8]uint32{0, 0x1000}
	b := e.Append(nil)
	if len(b) != 108 {
		t.Fatalf("extended with 2 arrays: %d bytes, want 100 + 4·2", len(b))
	}
	// Slots 2..7 are zero; the stride words follow at 100 and 104.
	if !bytes.Equal(b[52:100], make([]byte, 48)) || !bytes.Equal(b[100:], []byte{0, 0, 0, 0, 0, 0x10, 0, 0}) {
		t.Errorf("extended tail: % x", b[44:])
	}
	if s := e.State(); s != (cl.GLShaderState{NumAttributeArrays: 2, Extended: true}) {
		t.Errorf("State = %+v", s)
	}
	back, n, err := Decode(b, e.State())
	if err != nil || n != 108 || back != e {
		t.Errorf("Decode extended: %+v %d %v", back, n, err)
	}
}

func TestRules(t *testing.T) {
	g, r := cubeRecord()
	g.NumAttributes = 0
	if err := g.Check(); err == nil {
		t.Error("0 attribute arrays accepted")
	}
	g.NumAttributes = 1
	g.Record.VSCodeAddress = 0x1000
	if err := g.Check(); err != nil {
		t.Errorf("hardware form with a code address: %v", err)
	}
	if err := g.CheckKernel(); err == nil {
		t.Error("kernel form with a code address accepted")
	}
	var s Stream
	if err := s.Add(&g, &r); err == nil || s.Count() != 0 || len(s.Bytes()) != 0 {
		t.Error("Stream.Add accepted a bad record")
	}
	if _, _, _, err := DecodeKernel(make([]byte, 59), cl.GLShaderState{NumAttributeArrays: 1}); err == nil {
		t.Error("59 bytes decoded as a 60-byte record")
	}
}

func TestStreamDoesNotAllocate(t *testing.T) {
	g, r := cubeRecord()
	var s Stream
	for i := 0; i < 6; i++ {
		_ = s.Add(&g, &r)
	}
	allocs := testing.AllocsPerRun(100, func() {
		s.Reset()
		for i := 0; i < 6; i++ {
			if err := s.Add(&g, &r); err != nil {
				t.Fatal(err)
			}
		}
	})
	if allocs != 0 || s.Count() != 6 || len(s.Bytes()) != 360 {
		t.Fatalf("allocs %v, count %d, %d bytes", allocs, s.Count(), len(s.Bytes()))
	}
}

// An NV record in the pre-upstream kernel's form: FS BO index, vertex BO
// index, then the 16-byte record (doc/kernel.md#nv-records), counted as a record.
func TestStreamAddNV(t *testing.T) {
	var s Stream
	rec := cl.NVShaderRecord{FSSingleThreaded: true, Stride: 20, FSNumVaryings: 2}
	s.AddNV(&rec, 3, 4)
	want := []byte{3, 0, 0, 0, 4, 0, 0, 0,
		0x01, 20, 0, 2, // flags (single-threaded), stride, FS uniforms, FS varyings
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0} // FS code, FS uniforms, vertex data
	if !bytes.Equal(s.Bytes(), want) || s.Count() != 1 {
		t.Fatalf("AddNV: % x (count %d), want % x (count 1)", s.Bytes(), s.Count(), want)
	}
}
