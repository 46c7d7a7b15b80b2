package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/vccube/vccube/texture"
	"github.com/vccube/vccube/texture/defaulttex"
	"github.com/vccube/vccube/texture/imagefile"
)

// The PPM and the PNG this command writes decode, through vccube's own
// texture loader, to the default texture's pixels.
func TestWritesTheTexture(t *testing.T) {
	want := defaulttex.Picture(texture.OrderRGBA)
	for _, name := range []string{"tex.ppm", "tex.png"} {
		path := filepath.Join(t.TempDir(), name)
		if err := write(path); err != nil {
			t.Fatal(err)
		}
		got, err := imagefile.Load(path, texture.OrderRGBA)
		if err != nil {
			t.Fatal(err)
		}
		if got.Width != want.Width || got.Height != want.Height || !bytes.Equal(got.Pix, want.Pix) {
			t.Errorf("%s: %dx%d, pixels differ from defaulttex.Picture", name, got.Width, got.Height)
		}
	}
}
