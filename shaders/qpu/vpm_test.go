package qpu

import "testing"

// Words worked out by hand from AG Tables 32 and 33 (and Mesa's
// vc4_qpu_emit.c, which writes 0x00001a00 and NUM << 20 | 0x1a00).
func TestVPMSetupWords(t *testing.T) {
	cases := []struct {
		s           VPMSetup
		read, write uint32
	}{
		// horizontal (bit 11) 32-bit (2 << 8) stride 1 (1 << 12), row 0
		{HorizontalVPM32(0, 5), 0x00501a00, 0x00001a00},
		// 16 vectors encode NUM as 0; stride 64 encodes as 0
		{VPMSetup{Num: 16, Stride: 64, Horizontal: true, Size: VPMSize32, Addr: 7}, 0x00000a07, 0x00000a07},
		// vertical 8-bit laned (bit 10), stride 2, ADDR 0x35
		{VPMSetup{Num: 1, Stride: 2, Laned: true, Size: VPMSize8, Addr: 0x35}, 0x00102435, 0x00002435},
	}
	for _, c := range cases {
		r, err := c.s.EncodeRead()
		if err != nil || r != c.read {
			t.Errorf("%v: read setup %#08x, %v; want %#08x", c.s, r, err, c.read)
		}
		w, err := c.s.EncodeWrite()
		if err != nil || w != c.write {
			t.Errorf("%v: write setup %#08x, %v; want %#08x", c.s, w, err, c.write)
		}
		if d, ok := DecodeVPMSetup(c.read, true); !ok || d != c.s {
			t.Errorf("decode %#08x = %v (generic %v), want %v", c.read, d, ok, c.s)
		}
		wantW := c.s
		wantW.Num = 0
		if d, _ := DecodeVPMSetup(c.write, false); d != wantW {
			t.Errorf("decode write %#08x = %v, want %v", c.write, d, wantW)
		}
	}
	if s := HorizontalVPM32(0x12, 3).String(); s != "horizontal 32-bit packed addr 0x12 stride 1 num 3" {
		t.Errorf("String = %q", s)
	}
	if _, ok := DecodeVPMSetup(1<<30, true); ok {
		t.Error("ID 1 (a DMA setup) decoded as a generic block setup")
	}
	for _, bad := range []VPMSetup{{Num: 0, Stride: 1}, {Num: 17, Stride: 1}, {Num: 1, Stride: 0}, {Num: 1, Stride: 1, Size: 3}} {
		if w, err := bad.EncodeRead(); err == nil || w != 0 {
			t.Errorf("%+v encoded to %#08x, %v; want 0 and an error", bad, w, err)
		}
	}
}
