// Command mktestppm writes vccube's file-texture test input,
// testdata/textures/test.ppm: a 200×120 binary PPM (P6) drawn by the code
// below, nothing copied from anywhere. It is non-power-of-two in both
// directions, so it exercises the texture padding, and asymmetric and
// colourful, so a flipped, mirrored, turned or channel-swapped picture is
// obvious: four quadrants of different hues (each brightening from left to
// right), a large letter R across the left two, and a black-and-white mark
// in the top-left corner.
//
// Usage, from the module root:
//
//	go run ./internal/cmd/mktestppm [-o testdata/textures/test.ppm]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/vccube/vccube/internal/toolflags"
)

// Size of the picture.
const (
	width  = 200
	height = 120
)

// The quadrants' base colours: top-left, top-right, bottom-left,
// bottom-right.
var quadrant = [4][3]int{
	{240, 120, 20}, // orange
	{20, 170, 190}, // teal
	{150, 40, 190}, // purple
	{150, 220, 40}, // lime
}

// glyphR is a 5×7 letter R, drawn 8 texels per cell.
var glyphR = [7]string{
	"####.",
	"#...#",
	"#...#",
	"####.",
	"#.#..",
	"#..#.",
	"#...#",
}

const (
	glyphX, glyphY, glyphCell = 24, 32, 8
)

// pixel returns the colour of texel (x, y), y = 0 being the top row.
func pixel(x, y int) [3]uint8 {
	// Corner mark: a 12×12 black square with a white 4×4 centre.
	if x < 12 && y < 12 {
		if x >= 4 && x < 8 && y >= 4 && y < 8 {
			return [3]uint8{255, 255, 255}
		}
		return [3]uint8{0, 0, 0}
	}
	// The letter, near-white.
	if gx, gy := x-glyphX, y-glyphY; gx >= 0 && gy >= 0 && gx < 5*glyphCell && gy < 7*glyphCell {
		if glyphR[gy/glyphCell][gx/glyphCell] == '#' {
			return [3]uint8{250, 250, 235}
		}
	}
	q := 0
	if x >= width/2 {
		q++
	}
	if y >= height/2 {
		q += 2
	}
	// Brightness 70 % at the quadrant's left edge to 100 % at its right.
	xq := x % (width / 2)
	f := 70 + 30*xq/(width/2-1)
	var c [3]uint8
	for i := range c {
		c[i] = uint8(quadrant[q][i] * f / 100)
	}
	return c
}

// ppm returns the whole file.
func ppm() []byte {
	out := []byte(fmt.Sprintf("P6\n%d %d\n255\n", width, height))
	for y := 0; y < height; y++ {
		for x := 0; x < width; x++ {
			c := pixel(x, y)
			out = append(out, c[0], c[1], c[2])
		}
	}
	return out
}

// usageHead is the start of -h, before the flags.
const usageHead = `mktestppm writes vccube's file-texture test input, a 200x120 binary PPM
drawn by its own code (testdata/textures/test.ppm).

Usage, from the module root: go run ./internal/cmd/mktestppm [-o FILE]

Flags:
`

func main() {
	fs := flag.NewFlagSet("mktestppm", flag.ContinueOnError)
	path := fs.String("o", "testdata/textures/test.ppm", "output `file`")
	toolflags.Parse(fs, usageHead, 0)
	if err := os.WriteFile(*path, ppm(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "mktestppm:", err)
		os.Exit(1)
	}
}
