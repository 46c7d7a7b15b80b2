package qpuexec

import (
	"testing"

	"github.com/vccube/vccube/shaders/qpu"
)

// TestUnpackTables checks AG Tables 6 and 8 row by row, with values worked
// out by hand.
func TestUnpackTables(t *testing.T) {
	one := fbits(1)
	cases := []struct {
		name  string
		u     qpu.Unpack
		float bool
		in    uint32
		want  uint32
	}{
		{"none", qpu.UnpackNone, false, 0x12345678, 0x12345678},
		{"16a int: sign-extended", qpu.Unpack16A, false, 0x1234ABCD, 0xFFFFABCD},
		{"16a int positive", qpu.Unpack16A, false, 0xFFFF1234, 0x00001234},
		{"16b int", qpu.Unpack16B, false, 0x8001FFFF, 0xFFFF8001},
		{"16a float: half 1.0", qpu.Unpack16A, true, 0xFFFF3C00, one},
		{"16b float: half -2.5", qpu.Unpack16B, true, 0xC1000000, fbits(-2.5)},
		{"8d replicate", qpu.Unpack8DRep, false, 0xAB123456, 0xABABABAB},
		{"8d replicate (float op too)", qpu.Unpack8DRep, true, 0xAB123456, 0xABABABAB},
		{"8a int: zero-extended", qpu.Unpack8A, false, 0x112233F4, 0xF4},
		{"8c int", qpu.Unpack8C, false, 0x11223344, 0x22},
		{"8a float: 255 -> 1.0", qpu.Unpack8A, true, 0x000000FF, one},
		{"8b float: 0 -> 0", qpu.Unpack8B, true, 0xFFFF00FF, 0},
		// 51/255 = 0.2, which float32 cannot hold: 0x3e4ccccd is above it,
		// 0x3e4ccccc below; the model rounds toward zero (ref_pack.go).
		{"8d float: 51 -> 0.2", qpu.Unpack8D, true, 0x33000000, 0x3e4ccccc},
	}
	for _, c := range cases {
		if got := unpackA(c.u, c.float, c.in); got != c.want {
			t.Errorf("regfile-A unpack %s: %#08x -> %#08x, want %#08x", c.name, c.in, got, c.want)
		}
	}
	r4 := []struct {
		name string
		u    qpu.Unpack
		in   uint32
		want uint32
	}{
		{"16a", qpu.Unpack16A, 0x00003800, fbits(0.5)},
		{"16b", qpu.Unpack16B, 0x38000000, fbits(0.5)},
		{"8888", qpu.Unpack8DRep, 0x7F000000, 0x7F7F7F7F},
		{"8a", qpu.Unpack8A, 0x000000FF, one},
		{"8c", qpu.Unpack8C, 0x00660000, 0x3ecccccc}, // 102/255 = 0.4, toward zero
	}
	for _, c := range r4 {
		if got := unpackR4(c.u, c.in); got != c.want {
			t.Errorf("r4 unpack %s: %#08x -> %#08x, want %#08x", c.name, c.in, got, c.want)
		}
	}
}

// TestColourPack checks AG Table 9: c = sat(round(f * 255)).
func TestColourPack(t *testing.T) {
	cases := []struct {
		f    float32
		want uint32
	}{
		{0, 0}, {1, 255}, {0.5, 128}, // 127.5 rounds up
		{1.0 / 255, 1}, {0.49 / 255, 0}, {0.51 / 255, 1},
		{2, 255}, {-0.5, 0}, {0.25, 64}, // 63.75
	}
	for _, c := range cases {
		if got := floatToColour(fbits(c.f)); got != c.want {
			t.Errorf("colour(%g) = %d, want %d", c.f, got, c.want)
		}
	}
	if got := colourPack(qpu.PackMul8888, fbits(0.5)); got != 0x80808080 {
		t.Errorf("8888 colour pack = %#08x", got)
	}
	if got := colourPack(qpu.PackMul8C, fbits(1)); got != 0x00FF0000 {
		t.Errorf("8c colour pack = %#08x", got)
	}
	if floatToColour(posInf) != 255 || floatToColour(negInf) != 0 || floatToColour(0x7fc00000) != 255 {
		t.Error("Inf/NaN colour conversion does not saturate by sign")
	}
}

// TestRegfileAPackTable checks AG Table 7 on ordinary integer results.
func TestRegfileAPackTable(t *testing.T) {
	cases := []struct {
		p    qpu.Pack
		in   uint32
		want uint32 // bits inside packMask
	}{
		{qpu.Pack16A, 0x12345678, 0x5678},
		{qpu.Pack16B, 0x12345678, 0x56780000},
		{qpu.Pack8888, 0x12345678, 0x78787878},
		{qpu.Pack8A, 0x12345678, 0x78},
		{qpu.Pack8D, 0x12345678, 0x78000000},
		{qpu.Pack16ASat, 40000, 0x7FFF},
		{qpu.Pack16ASat, 0xFFFF0000, 0x8000}, // -65536 -> -32768
		{qpu.Pack16BSat, 0xFFFFFFFF, 0xFFFF0000},
		{qpu.Pack8888Sat, 0xFFFFFFFF, 0},
		{qpu.Pack8ASat, 256, 0xFF},
		{qpu.Pack8BSat, 7, 0x0700},
		{qpu.Pack32Sat, 0x80000000, 0x80000000}, // no overflow: unchanged
	}
	for _, c := range cases {
		if got := packA(c.p, false, c.in, packFlags{}) & packMask(c.p); got != c.want {
			t.Errorf("pack %v of %#08x = %#08x, want %#08x", c.p, c.in, got, c.want)
		}
	}
}
