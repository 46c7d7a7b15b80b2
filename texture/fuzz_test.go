package texture

import (
	"testing"
)

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
