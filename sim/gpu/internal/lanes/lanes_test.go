package lanes

import "testing"

// Copy copies every element, and copying a vector onto itself leaves it.
func TestCopy(t *testing.T) {
	var s, d [16]uint32
	for i := range s {
		s[i] = 0x9E3779B9 * uint32(i+1)
	}
	Copy(&d, &s)
	if d != s {
		t.Fatalf("Copy: %x, want %x", d, s)
	}
	Copy(&d, &d)
	if d != s {
		t.Fatalf("Copy onto itself: %x, want %x", d, s)
	}
}

// Fill stores the word in every element and nothing else.
func TestFill(t *testing.T) {
	for _, x := range []uint32{0, 1, 0x80000000, 0xDEADBEEF, 0xFFFFFFFF} {
		for _, f := range []func(*[16]uint32, uint32){Fill, fillWords} {
			var g struct {
				before [4]uint32
				d      [16]uint32
				after  [4]uint32
			}
			f(&g.d, x)
			for i, v := range g.d {
				if v != x {
					t.Fatalf("element %d is %#x, want %#x", i, v, x)
				}
			}
			if g.before != [4]uint32{} || g.after != [4]uint32{} {
				t.Fatalf("Fill(%#x) wrote outside the vector: %x %x", x, g.before, g.after)
			}
		}
	}
}
