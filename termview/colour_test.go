package termview

import "testing"

// Expected indices worked out by hand from xterm's palette (256colres.pl:
// cube levels 0, 95, 135, 175, 215, 255 at 16 + 36r + 6g + b; greys
// 8 + 10i at 232 + i).
func TestXterm256(t *testing.T) {
	tests := []struct {
		rgb  uint32
		want uint32
	}{
		{0x000000, 16},
		{0xffffff, 231},
		{0xff0000, 196}, // 16 + 36·5
		{0x00ff00, 46},  // 16 + 6·5
		{0x0000ff, 21},  // 16 + 5
		// vkcube's background, 51 grey: the nearest cube grey is 95
		// (distance 3·44²), the ramp has 48 (3·3²) at 232 + 4.
		{0x333333, 236},
		// 128 grey is on the ramp exactly: 8 + 10·12.
		{0x808080, 244},
		// (100, 150, 200): cube levels 95, 135, 215 → 16 + 36 + 12 + 4 = 68,
		// distance 25 + 225 + 225 = 475; the nearest grey, 148, is 5012 away.
		{0x6496c8, 68},
		// (95, 95, 95) is a cube colour (59), not a grey.
		{0x5f5f5f, 59},
	}
	for _, tc := range tests {
		if got := xterm256(tc.rgb); got != tc.want {
			t.Errorf("xterm256(%06x) = %d, want %d", tc.rgb, got, tc.want)
		}
	}
	if got := xterm256RGB(68); got != 0x5f87d7 {
		t.Errorf("xterm256RGB(68) = %06x, want 5f87d7 (95, 135, 215)", got)
	}
	if got := xterm256RGB(236); got != 0x303030 {
		t.Errorf("xterm256RGB(236) = %06x, want 303030", got)
	}
}

// Every colour of the palette is its own nearest colour, and the nearest
// colour is never farther than any other palette colour (checked by brute
// force on a grid of colours).
func TestXterm256Nearest(t *testing.T) {
	for i := uint32(16); i < 256; i++ {
		if got := xterm256(xterm256RGB(i)); got != i {
			t.Errorf("xterm256(xterm256RGB(%d)) = %d", i, got)
		}
	}
	dist := func(a, b uint32) int {
		return sq(int(a>>16&0xff)-int(b>>16&0xff)) + sq(int(a>>8&0xff)-int(b>>8&0xff)) + sq(int(a&0xff)-int(b&0xff))
	}
	for r := 0; r < 256; r += 7 {
		for g := 0; g < 256; g += 11 {
			for b := 0; b < 256; b += 13 {
				c := uint32(r<<16 | g<<8 | b)
				got := dist(c, xterm256RGB(xterm256(c)))
				for i := uint32(16); i < 256; i++ {
					if d := dist(c, xterm256RGB(i)); d < got {
						t.Fatalf("xterm256(%06x) = %d at distance %d; %d is at %d", c, xterm256(c), got, i, d)
					}
				}
			}
		}
	}
}

func TestDetectColour(t *testing.T) {
	for _, tc := range []struct {
		colorterm string
		want      ColourMode
	}{
		{"truecolor", Truecolour},
		{"24bit", Truecolour},
		{"TrueColor", Truecolour},
		{"", Colour256},
		{"yes", Colour256},
	} {
		getenv := func(k string) string {
			if k == "COLORTERM" {
				return tc.colorterm
			}
			return ""
		}
		if got := DetectColour(getenv); got != tc.want {
			t.Errorf("COLORTERM=%q: %v, want %v", tc.colorterm, got, tc.want)
		}
	}
}

// xterm256RGB returns the colour 0xRRGGBB of palette index i (16–255).
func xterm256RGB(i uint32) uint32 {
	if i >= greyBase {
		l := uint32(greyLevel(int(i - greyBase)))
		return l<<16 | l<<8 | l
	}
	i -= cubeBase
	r, g, b := cubeLevels[i/36], cubeLevels[i/6%6], cubeLevels[i%6]
	return uint32(r)<<16 | uint32(g)<<8 | uint32(b)
}
