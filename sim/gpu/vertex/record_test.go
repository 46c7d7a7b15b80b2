package vertex

import (
	"testing"

	"github.com/vccube/vccube/cl/shaderrec"
	"github.com/vccube/vccube/cl/spec"
)

// Strides worked out by hand: bits 7:0 from the attribute record's byte,
// bits 31:8 from the extended word (vc4_validate.c validate_gl_shader_rec,
// which the model follows), cut to the 26-bit extended stride of AG Table
// 38 id 64.
func TestGLRecordStride(t *testing.T) {
	g := GLRecord{NumAttributes: 3}
	g.Attributes[0].Stride = 0x20
	g.Attributes[1].Stride = 0x12
	g.Attributes[2].Stride = 0x00
	g.ExtendedStrides = [8]uint32{0x100, 0xFFFF_FF34, 0x0400_0100}
	for _, c := range []struct {
		extended bool
		n        int
		want     uint32
	}{
		{false, 0, 0x20},
		{false, 1, 0x12}, // a normal record ignores the words
		{true, 0, 0x120},
		{true, 1, 0x03FF_FF12}, // the word's low byte and bits above 25 are dropped
		{true, 2, 0x100},
	} {
		g.Extended = c.extended
		if got := g.Stride(c.n); got != c.want {
			t.Errorf("extended %v array %d: Stride %#x, want %#x", c.extended, c.n, got, c.want)
		}
	}
}

// The VCD's decoding of a record agrees with the client's encoding of it
// (cl/shaderrec), normal and extended: both read cl/spec's layout.
func TestGLRecordDecodesWhatTheClientEncodes(t *testing.T) {
	for _, extended := range []bool{false, true} {
		var g shaderrec.GL
		g.NumAttributes, g.Extended = 3, extended
		g.Record.FSNumVaryings, g.Record.VSAttributeSelect, g.Record.CSUniformsAddress = 3, 0b101, 0x1230
		for i := 0; i < 3; i++ {
			g.Attributes[i].Address = uint32(0x1000 * (i + 1))
			g.Attributes[i].SizeMinusOne = uint8(4*i + 3)
			g.Attributes[i].Stride = uint8(16 + i)
			g.ExtendedStrides[i] = uint32(i) << 8
		}
		b := g.Append(nil)
		if len(b) != spec.GLShaderRecordLen(3, extended) {
			t.Fatalf("record of %d bytes", len(b))
		}
		r := GLRecord{NumAttributes: spec.GLAttributeCount(g.State().NumAttributeArrays), Extended: g.State().Extended}
		if err := r.decode(b); err != nil {
			t.Fatal(err)
		}
		if r.Record != g.Record || r.Attributes != g.Attributes || r.NumAttributes != 3 || r.Extended != extended {
			t.Errorf("extended %v: decoded %+v, encoded %+v", extended, r, g)
		}
		if extended && r.ExtendedStrides != g.ExtendedStrides {
			t.Errorf("extended strides %x, want %x", r.ExtendedStrides, g.ExtendedStrides)
		}
	}
}
