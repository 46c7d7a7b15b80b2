package kernel

import (
	"testing"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/shaderrec"
	"github.com/vccube/vccube/cl/spec"
)

// Strides worked out by hand from vc4_validate.c validate_gl_shader_rec
// (stride byte | extended word & ~0xff, unmasked), on records the client
// encodes.
func TestAttributeStride(t *testing.T) {
	g := shaderrec.GL{NumAttributes: 3}
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
		{false, 1, 0x12}, // a normal record has no words
		{true, 0, 0x120},
		{true, 1, 0xFFFF_FF12}, // the word's low byte is dropped, its high bits kept
		{true, 2, 0x0400_0100},
	} {
		g.Extended = c.extended
		rec := g.Append(nil)
		var attr cl.AttributeRecord
		if err := attr.Unpack(rec[spec.GLAttributeOffset(c.n):]); err != nil {
			t.Fatal(err)
		}
		if got := attributeStride(rec, &attr, c.n, c.extended); got != c.want {
			t.Errorf("extended %v array %d: stride %#x, want %#x", c.extended, c.n, got, c.want)
		}
	}
}
