// Command writepng writes the default texture drawn by package defaulttex
// to a PNG file, the copy that the reference renderer reads:
//
//	go run ./internal/cmd/writepng texture/testdata/default-texture.png
//
// Run it only when the picture is meant to change; the defaulttex tests
// compare the file with the code, pixel by pixel.
//
// A name ending in .ppm gets a binary PPM (P6, 8 bits per channel, top row
// first) instead: the format vkcube's own texture comes in (Vulkan-Tools
// cube/cube.c loadTexture reads P6), and the one the llvmpipe benchmark
// peer in bench/llvmpipe loads, which has no PNG decoder.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"strings"

	"github.com/vccube/vccube/internal/toolflags"
	"github.com/vccube/vccube/texture/defaulttex"
)

// usageHead is the start of -h.
const usageHead = `writepng writes the built-in texture drawn by package defaulttex to a file:
PNG, or binary PPM when the name ends in .ppm (the copy the reference
renderer reads is texture/testdata/default-texture.png).

Usage: writepng OUTPUT.png|OUTPUT.ppm

It takes no flags.
`

func main() {
	fs := flag.NewFlagSet("writepng", flag.ContinueOnError)
	toolflags.Parse(fs, usageHead, 1)
	if fs.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "writepng: give the file to write, OUTPUT.png or OUTPUT.ppm (writepng -h says more)")
		os.Exit(2)
	}
	if err := write(fs.Arg(0)); err != nil {
		fmt.Fprintln(os.Stderr, "writepng:", err)
		os.Exit(1)
	}
}

func write(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	encode := png.Encode
	if strings.HasSuffix(strings.ToLower(path), ".ppm") {
		encode = encodePPM
	}
	if err := encode(f, defaulttex.Image()); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// encodePPM writes img as a binary PPM: "P6", width, height, maxval 255,
// then the RGB bytes row by row from the top (netpbm's ppm(5)). Alpha is
// dropped; the default texture's is 255 everywhere.
func encodePPM(w io.Writer, img image.Image) error {
	b := img.Bounds()
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "P6\n%d %d\n255\n", b.Dx(), b.Dy())
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			bw.Write([]byte{c.R, c.G, c.B})
		}
	}
	return bw.Flush()
}
