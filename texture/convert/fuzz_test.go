package convert

import (
	"bytes"
	"testing"

	"github.com/vccube/vccube/texture"
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
		l, err := texture.NewLayout(texture.Tiling(tiling%3), cpp, width, height)
		if err != nil {
			t.Fatal(err)
		}
		stride := width*cpp + int(tiling/3)%5
		pic := texture.Picture{Pix: make([]byte, stride*height), Width: width, Height: height, Stride: stride, Cpp: cpp}
		if len(data) > 0 {
			for i := range pic.Pix {
				pic.Pix[i] = data[i%len(data)] + byte(i/len(data))
			}
		}
		mem := make([]byte, l.Size())
		if err := FromLinear(l, mem, pic, flip); err != nil {
			t.Fatal(err)
		}
		back := texture.Picture{Pix: make([]byte, len(pic.Pix)), Width: width, Height: height, Stride: stride, Cpp: cpp}
		if err := ToLinear(l, back, mem, flip); err != nil {
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
				py := texture.FlipYRow(y, height, flip)
				if !bytes.Equal(mem[o:o+cpp], pic.Pix[py*stride+x*cpp:][:cpp]) {
					t.Fatalf("%v: pixel (%d,%d) not at Offset", l, x, y)
				}
			}
		}
	})
}
