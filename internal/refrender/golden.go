package refrender

import (
	"fmt"
	"path/filepath"
)

// Golden describes one golden image in testdata/golden: what was rendered
// and from which texture. Tests elsewhere (the simulated GPU, the program's
// end-to-end tests) iterate over Goldens to render the same frames their own
// way and compare them with the files, using imgcmp.
type Golden struct {
	// Texture is the input texture's path relative to the module root.
	Texture string
	// Width, Height and Frame are the Options Render was given.
	Width, Height, Frame int
}

// The textures the goldens are made from, relative to the module root.
const (
	// DefaultTexture is vccube's built-in texture, drawn by texture/'s own
	// code (texture/defaulttex) and committed as a PNG.
	DefaultTexture = "texture/testdata/default-texture.png"
	// FileTexture is a binary PPM made by internal/cmd/mktestppm:
	// 200×120, so it exercises a non-power-of-two size.
	FileTexture = "testdata/textures/test.ppm"
)

// GoldenDir is the directory holding the golden images, relative to the
// module root.
const GoldenDir = "testdata/golden"

// Goldens is the list of golden images.
var Goldens = []Golden{
	{DefaultTexture, 800, 600, 0},
	{DefaultTexture, 800, 600, 1},
	{DefaultTexture, 800, 600, 10},
	{DefaultTexture, 800, 600, 45},
	{DefaultTexture, 1280, 720, 0},
	{DefaultTexture, 1280, 720, 30},
	{FileTexture, 800, 600, 20},
}

// Name returns the golden's file name, e.g. "default_800x600_frame010.png".
func (g Golden) Name() string {
	tex := "default"
	if g.Texture != DefaultTexture {
		tex = "file-" + trimExt(filepath.Base(g.Texture))
	}
	return fmt.Sprintf("%s_%dx%d_frame%03d.png", tex, g.Width, g.Height, g.Frame)
}

// Path returns the golden's path relative to the module root.
func (g Golden) Path() string { return filepath.Join(GoldenDir, g.Name()) }

func trimExt(name string) string {
	return name[:len(name)-len(filepath.Ext(name))]
}

// Render reads the golden's texture below root (the module root) and
// renders the golden's frame with it.
func (g Golden) Render(root string) (*Output, error) {
	tex, err := ReadTextureFile(filepath.Join(root, g.Texture))
	if err != nil {
		return nil, err
	}
	return Render(Options{Width: g.Width, Height: g.Height, Frame: g.Frame, Texture: tex})
}
