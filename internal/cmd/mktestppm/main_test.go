package main

import (
	"bytes"
	"os"
	"testing"

	"github.com/vccube/vccube/internal/refrender"
)

// TestMatchesCommittedFile: the committed texture is what this program
// writes. Regenerate it only when the picture is meant to change, and
// remake the golden images that use it.
func TestMatchesCommittedFile(t *testing.T) {
	committed, err := os.ReadFile("../../../testdata/textures/test.ppm")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(committed, ppm()) {
		t.Fatal("testdata/textures/test.ppm differs from mktestppm's output")
	}
}

// TestPicture checks the layout by decoding the file with the reference
// renderer's PPM reader.
func TestPicture(t *testing.T) {
	img, err := refrender.DecodePPM(bytes.NewReader(ppm()))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 200 || b.Dy() != 120 {
		t.Fatalf("size %v, want 200×120", b)
	}
	for _, tc := range []struct {
		x, y    int
		r, g, b uint8
	}{
		{0, 0, 0, 0, 0},          // corner mark
		{5, 5, 255, 255, 255},    // its white centre
		{99, 0, 240, 120, 20},    // top-left quadrant, right edge: full orange
		{100, 0, 14, 119, 133},   // top-right quadrant, left edge: 70 % teal
		{199, 119, 150, 220, 40}, // bottom-right corner: full lime
		{0, 119, 105, 28, 133},   // bottom-left corner: 70 % purple
		{24, 32, 250, 250, 235},  // the R's top-left cell
		{60, 32, 211, 105, 17},   // right of the R's top bar: 88 % orange (f = 70 + 30·60/99)
	} {
		c := img.NRGBAAt(tc.x, tc.y)
		if c.R != tc.r || c.G != tc.g || c.B != tc.b || c.A != 255 {
			t.Errorf("texel (%d,%d) = %v, want (%d,%d,%d)", tc.x, tc.y, c, tc.r, tc.g, tc.b)
		}
	}
}
