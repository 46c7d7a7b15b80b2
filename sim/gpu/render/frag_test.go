package render

import "testing"

// quadMask and nonZeroLanes against their definitions, element by element,
// on every 16-bit mask.
func TestLaneMasks(t *testing.T) {
	for m := 0; m < 1<<16; m++ {
		var want uint8
		var v [16]uint32
		var nz uint16
		for i := 0; i < 16; i++ {
			if m&(1<<i) != 0 {
				want |= 1 << (i / 4)
				v[i] = uint32(1) << (i * 7 % 32) // any non-zero word
				nz |= 1 << i
			}
		}
		if got := quadMask(uint16(m)); got != want {
			t.Fatalf("quadMask(%#04x) = %#x, want %#x", m, got, want)
		}
		if got := nonZeroLanes(&v); got != nz {
			t.Fatalf("nonZeroLanes for mask %#04x = %#04x", m, got)
		}
	}
}
