package texture

import (
	"testing"
)

// TestFlipYRow: FLIPY maps row y of a level of height h to h-1-y.
func TestFlipYRow(t *testing.T) {
	for _, c := range []struct{ y, h, off, on int }{{0, 1, 0, 0}, {0, 70, 0, 69}, {69, 70, 69, 0}, {10, 33, 10, 22}} {
		if got := FlipYRow(c.y, c.h, false); got != c.off {
			t.Errorf("FlipYRow(%d, %d, false) = %d, want %d", c.y, c.h, got, c.off)
		}
		if got := FlipYRow(c.y, c.h, true); got != c.on {
			t.Errorf("FlipYRow(%d, %d, true) = %d, want %d", c.y, c.h, got, c.on)
		}
	}
	if FlipByGPU.FlipsRows() || !FlipByGPU.SetsFlipY() || !FlipByCPU.FlipsRows() || FlipByCPU.SetsFlipY() {
		t.Error("FlipMode methods disagree with the post's alternatives")
	}
	var zero FlipMode
	if zero != FlipByGPU {
		t.Error("the zero FlipMode is not vccube's default, FLIPY")
	}
}
