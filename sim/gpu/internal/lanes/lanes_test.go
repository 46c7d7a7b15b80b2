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
