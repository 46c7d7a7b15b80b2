// Command mkgolden renders the golden images in testdata/golden with the
// independent reference renderer (internal/refrender) and prints each
// file's SHA-256 for testdata/golden/NOTES.md.
//
// Golden images must never be made from the simulator or any other code
// under test. Rerun this only when the reference renderer or an input
// texture changes on purpose, look at every image, and update NOTES.md.
//
// Usage, from the module root:
//
//	go run ./internal/cmd/mkgolden [-root .]
package main

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"image/png"
	"os"
	"path/filepath"

	"github.com/vccube/vccube/internal/refrender"
	"github.com/vccube/vccube/internal/toolflags"
)

// usageHead is the start of -h, before the flags.
const usageHead = `mkgolden renders the golden images of testdata/golden with the independent
reference renderer (internal/refrender) and prints each file's SHA-256 for
testdata/golden/NOTES.md. Run it only when the reference renderer or an input
texture changes on purpose, and look at every image.

Usage, from the module root: go run ./internal/cmd/mkgolden [-root DIR]

Flags:
`

func main() {
	fs := flag.NewFlagSet("mkgolden", flag.ContinueOnError)
	root := fs.String("root", ".", "the module root `directory` (inputs are read and goldens written below it)")
	toolflags.Parse(fs, usageHead, 0)
	if err := run(*root); err != nil {
		fmt.Fprintln(os.Stderr, "mkgolden:", err)
		os.Exit(1)
	}
}

func run(root string) error {
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return fmt.Errorf("%s does not look like the module root (no go.mod); run from there or pass -root", root)
	}
	for _, g := range refrender.Goldens {
		out, err := g.Render(root)
		if err != nil {
			return fmt.Errorf("%s: %w", g.Name(), err)
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, out.Image); err != nil {
			return fmt.Errorf("%s: %w", g.Name(), err)
		}
		if err := os.WriteFile(filepath.Join(root, g.Path()), buf.Bytes(), 0o644); err != nil {
			return err
		}
		fmt.Printf("%x  %s  (%s, %dx%d, frame %d)\n", sha256.Sum256(buf.Bytes()), g.Name(), g.Texture, g.Width, g.Height, g.Frame)
	}
	return nil
}
