package vcd

import (
	"testing"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/sim/gpu/internal/gputest"
	"github.com/vccube/vccube/sim/gpu/qpuexec"
	"github.com/vccube/vccube/sim/gpu/vertex"
	"github.com/vccube/vccube/sim/mem"
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
