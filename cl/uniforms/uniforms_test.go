package uniforms

import (
	"bytes"
	"math"
	"testing"
)

// doc/kernel.md#a-cube-submit: the FS block [4][P0][P1] (texture BO 4), then a VS
// and a CS block, each word little-endian.
func TestStreamLayout(t *testing.T) {
	var s Stream
	s.AppendBlock([]uint32{4}, []uint32{0x00001000 | 0x10, 0x0400_4008})
	s.AppendBlock(nil, []uint32{Float(6400), Float(-4800)})
	s.AppendBlock(nil, []uint32{Float(0.5)})
	want := []byte{
		4, 0, 0, 0, 0x10, 0x10, 0, 0, 0x08, 0x40, 0x00, 0x04, // FS
		0, 0, 0xc8, 0x45, 0, 0, 0x96, 0xc5, // VS: 6400.0, -4800.0
		0, 0, 0, 0x3f, // CS: 0.5
	}
	if !bytes.Equal(s.Bytes(), want) || s.Blocks() != 3 {
		t.Fatalf("\n got % x\nwant % x", s.Bytes(), want)
	}
	fs, rest, err := Next(s.Bytes(), Shape{Samples: 1, Uniforms: 2})
	if err != nil || fs.NumTextures() != 1 || fs.Texture(0) != 4 || fs.NumUniforms() != 2 || fs.Uniform(1) != 0x04004008 {
		t.Fatalf("FS block: %+v %v", fs, err)
	}
	vs, rest, err := Next(rest, Shape{Uniforms: 2})
	if err != nil || vs.Uniform(0) != Float(6400) {
		t.Fatalf("VS block: %v", err)
	}
	if _, _, err := Next(rest, Shape{Uniforms: 2}); err == nil {
		t.Fatal("CS block of 2 words read from 4 bytes")
	}
	// 4·(MaxInt/4 + MaxInt/4) wraps Len to a negative size: still refused,
	// and no panic slicing with it.
	if _, _, err := Next(s.Bytes(), Shape{Samples: math.MaxInt / 4, Uniforms: math.MaxInt / 4}); err == nil {
		t.Fatal("a block whose size overflows was accepted")
	}
	s.Reset()
	if len(s.Bytes()) != 0 || s.Blocks() != 0 {
		t.Fatal("Reset")
	}
}

func TestStreamDoesNotAllocate(t *testing.T) {
	var s Stream
	tex := []uint32{4}
	fs := []uint32{0x1000, 0x2000, Float(0.8)}
	vs := []uint32{Float(6400), Float(-4800), Float(0.5), Float(0.5)}
	build := func() {
		s.Reset()
		for face := 0; face < 6; face++ {
			s.AppendBlock(tex, fs)
			s.AppendBlock(nil, vs)
			s.AppendBlock(nil, vs)
		}
	}
	build()
	if allocs := testing.AllocsPerRun(100, build); allocs != 0 {
		t.Fatalf("%v allocations", allocs)
	}
}
