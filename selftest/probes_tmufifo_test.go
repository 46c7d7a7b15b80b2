package selftest

import (
	"fmt"
	"testing"
)

// fifoCheck fails unless every pixel of rows [y0, y0+16) of a 64-wide
// output holds want(k) for its cell k = x/4.
func fifoCheck(t *testing.T, what string, pix []uint32, y0 int, want func(k int) uint32) {
	t.Helper()
	for y := y0; y < y0+16; y++ {
		for x := 0; x < 64; x++ {
			if got, w := pix[y*64+x], want(x/4); got != w {
				t.Fatalf("%s, lookup %d, pixel (%d,%d): %#08x, want %#08x", what, x/4, x, y, got, w)
			}
		}
	}
}

// The tmu-slots probe on the model: every lookup returns its texel, in
// the rows whose requests cross the FIFO's end and in the others.
func TestTMUSlotsProbe(t *testing.T) {
	j, out := runProbeOnSim(t, "tmu-slots")
	pic := j.textures[0].pics[0]
	texel := func(k int) uint32 { x, y := fifoTexel(k); return texelWord(pic, x, y) }
	fifoCheck(t, "first lookup with B", out.colour.pix, 0, texel)
	fifoCheck(t, "T and S only", out.colour.pix, 16, texel)
}

// The tmu-mixed probe on the model: every iteration's direct lookups
// return their words of the buffer and its 2D lookup its texel.
func TestTMUMixedProbe(t *testing.T) {
	j, out := runProbeOnSim(t, "tmu-mixed")
	pic := j.textures[0].pics[0]
	texel := func(k int) uint32 { x, y := fifoTexel(k); return texelWord(pic, x, y) }
	for i, n := range fifoMixedDirects {
		fifoCheck(t, fmt.Sprintf("%d direct an iteration, direct", n), out.colour.pix, 32*i, func(k int) uint32 { return fifoMixedWord(n, k) })
		fifoCheck(t, fmt.Sprintf("%d direct an iteration, 2D", n), out.colour.pix, 32*i+16, texel)
	}
}
