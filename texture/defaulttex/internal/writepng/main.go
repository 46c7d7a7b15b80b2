// Command writepng writes the default texture drawn by package defaulttex
// to a PNG file, the copy that the reference renderer reads:
//
//	go run ./texture/defaulttex/internal/writepng texture/testdata/default-texture.png
//
// Run it only when the picture is meant to change; the defaulttex tests
// compare the file with the code, pixel by pixel.
package main

import (
	"fmt"
	"image/png"
	"os"

	"github.com/vccube/vccube/texture/defaulttex"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: writepng OUTPUT.png")
		os.Exit(2)
	}
	if err := write(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "writepng:", err)
		os.Exit(1)
	}
}

func write(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, defaulttex.Image()); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
