package texture

import (
	"bytes"
	"testing"
)

// FuzzConvert converts arbitrary pictures, in arbitrary layouts and sizes,
// to memory and back. Properties: no panic, no error for valid arguments,
// the round trip is the identity, Offset puts every pixel inside Size()
// bytes at its own address, and the memory holds the pixel there.
// Seeds: testdata/fuzz/FuzzConvert.
func FuzzConvert(f *testing.F) {
	f.Add([]byte("seed"), uint8(1), uint8(2), uint16(64), uint16(64), false)
	f.Fuzz(func(t *testing.T, data []byte, tiling, cppSel uint8, w, h uint16, flip bool) {
		cpp := [4]int{1, 2, 4, 8}[cppSel%4]
		width, height := 1+int(w)%300, 1+int(h)%300
		l, err := NewLayout(Tiling(tiling%3), cpp, width, height)
		if err != nil {
			t.Fatal(err)
		}
		stride := width*cpp + int(tiling/3)%5
		pic := Picture{Pix: make([]byte, stride*height), Width: width, Height: height, Stride: stride, Cpp: cpp}
		if len(data) > 0 {
			for i := range pic.Pix {
				pic.Pix[i] = data[i%len(data)] + byte(i/len(data))
			}
		}
		mem := make([]byte, l.Size())
		if err := l.FromLinear(mem, pic, flip); err != nil {
			t.Fatal(err)
		}
		back := Picture{Pix: make([]byte, len(pic.Pix)), Width: width, Height: height, Stride: stride, Cpp: cpp}
		if err := l.ToLinear(back, mem, flip); err != nil {
			t.Fatal(err)
		}
		if !samePixels(back, pic) {
			t.Fatalf("%v: round trip changed the picture", l)
		}
		used := make([]bool, l.Size())
		for y := 0; y < height; y++ {
			for x := 0; x < width; x++ {
				o := l.Offset(x, y)
				if o < 0 || o+cpp > len(mem) {
					t.Fatalf("%v: Offset(%d,%d) = %d", l, x, y, o)
				}
				if used[o] {
					t.Fatalf("%v: Offset(%d,%d) = %d twice", l, x, y, o)
				}
				used[o] = true
				py := FlipYRow(y, height, flip)
				if !bytes.Equal(mem[o:o+cpp], pic.Pix[py*stride+x*cpp:][:cpp]) {
					t.Fatalf("%v: pixel (%d,%d) not at Offset", l, x, y)
				}
			}
		}
	})
}

// FuzzParams decodes arbitrary words as P0, P1 and P2 and encodes them
// back: every word decodes, prints, and (except P1 words with the undefined
// MINFILT 6 or 7) encodes back unchanged. Seeds: testdata/fuzz/FuzzParams.
func FuzzParams(f *testing.F) {
	f.Add(uint32(0x10010095))
	f.Fuzz(func(t *testing.T, w uint32) {
		p0 := DecodeP0(w)
		if got, err := p0.Encode(); err != nil || got != w {
			t.Fatalf("P0 %#08x: %v → %#08x, %v", w, p0, got, err)
		}
		p1 := DecodeP1(w)
		got, err := p1.Encode()
		if p1.MinFilter <= MinLinMipLin && (err != nil || got != w) {
			t.Fatalf("P1 %#08x: %v → %#08x, %v", w, p1, got, err)
		}
		if p1.MinFilter > MinLinMipLin && err == nil {
			t.Fatalf("P1 %#08x: undefined MINFILT encoded", w)
		}
		p2 := DecodeP2(w)
		if got, err := p2.Encode(); err != nil || got != w {
			t.Fatalf("P2 %#08x: %v → %#08x, %v", w, p2, got, err)
		}
		_ = p0.String() + p1.String() + p2.String()
	})
}
