package imgcmp

import (
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ReadPNG decodes the PNG file at path.
func ReadPNG(path string) (image.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("imgcmp: %w", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("imgcmp: %s: %w", path, err)
	}
	return img, nil
}

// MustReadPNG is ReadPNG for tests: a file that is missing or not a PNG
// fails the test.
func MustReadPNG(t testing.TB, path string) image.Image {
	t.Helper()
	img, err := ReadPNG(path)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// CheckGolden is the one-line golden comparison for tests: it reads the
// golden PNG, compares got with it under t, logs the result, and on
// failure writes got | golden | diff side by side into the system's
// temporary directory and fails the test naming that file.
func (t Tolerance) CheckGolden(tb testing.TB, got image.Image, goldenPath string) Result {
	tb.Helper()
	want, err := ReadPNG(goldenPath)
	if err != nil {
		tb.Fatal(err)
	}
	res, err := t.Check(got, want)
	tb.Logf("%s: %v", filepath.Base(goldenPath), res)
	if err != nil {
		name := strings.NewReplacer("/", "_", " ", "_").Replace(tb.Name())
		diff := filepath.Join(os.TempDir(), fmt.Sprintf("vccube-diff-%s-%s", name, filepath.Base(goldenPath)))
		if werr := WriteDiff(diff, got, want, t.Threshold); werr != nil {
			tb.Errorf("%s: %v (and the diff image could not be written: %v)", goldenPath, err, werr)
			return res
		}
		tb.Errorf("%s: %v; got | golden | diff written to %s", goldenPath, err, diff)
	}
	return res
}
