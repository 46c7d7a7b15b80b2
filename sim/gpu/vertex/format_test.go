package vertex

import (
	"math"
	"testing"

	"github.com/vccube/vccube/shaders/qpu"
)

// TestFormatDecode lays out vertices word by word as [AG] Figure 12 draws
// them (offsets 0x00, 0x04, ...) and decodes them.
func TestFormatDecode(t *testing.T) {
	f32 := math.Float32bits
	// Xs = -3.5 px (-56 in 1/16), Ys = 10 px (160): Ys in the high half.
	xsys := uint32(0xFFC8) | uint32(160)<<16 // 0xFFC8 = -56 as int16
	clipped := []uint32{f32(1), f32(2), f32(3), f32(4), xsys, f32(0.25), f32(0.5), f32(7), f32(10), f32(11)}
	var c Coord
	DecodeCoord(qpu.ShadedFormat{ClipHeader: true, PointSize: true}, clipped, &c)
	want := Coord{Clip: [4]float32{1, 2, 3, 4}, HasClip: true, X: -56, Y: 160, Z: 0.25, InvW: 0.5, PointSize: 7}
	if c != want {
		t.Errorf("coord %+v, want %+v", c, want)
	}
	var s Shaded
	s.Reset(2, 2)
	DecodeVertex(qpu.ShadedFormat{ClipHeader: true, PointSize: true, Varyings: 2}, clipped, &s, 1)
	plain := []uint32{xsys, f32(0.75), f32(2), f32(-1), f32(-2)}
	DecodeVertex(qpu.ShadedFormat{Varyings: 2}, plain, &s, 0)
	if s.X[1] != -56 || s.Y[1] != 160 || s.Z[1] != 0.25 || s.InvW[1] != 0.5 || s.PointSize[1] != 7 || s.Vary[2] != 10 || s.Vary[3] != 11 {
		t.Errorf("vertex 1 (clip header, point size): %v %v %v %v %v %v", s.X[1], s.Y[1], s.Z[1], s.InvW[1], s.PointSize[1], s.Vary[2:4])
	}
	if s.X[0] != -56 || s.Y[0] != 160 || s.Z[0] != 0.75 || s.InvW[0] != 2 || s.PointSize[0] != 0 || s.Vary[0] != -1 || s.Vary[1] != -2 {
		t.Errorf("vertex 0 (plain): %v %v %v %v %v %v", s.X[0], s.Y[0], s.Z[0], s.InvW[0], s.PointSize[0], s.Vary[0:2])
	}
}
