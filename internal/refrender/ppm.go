package refrender

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
)

// ReadTextureFile reads a texture for Render: a PNG file (through the
// standard library) or a binary PPM ("P6", 8-bit, the format of vkcube's
// own texture), chosen by the file's first bytes. This reader is the
// reference renderer's own: it shares no code with texture/, whose loaders
// are under test.
func ReadTextureFile(path string) (image.Image, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("refrender: reading texture: %w", err)
	}
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("refrender: texture %s: %w", path, err)
		}
		return img, nil
	case bytes.HasPrefix(data, []byte("P6")):
		img, err := DecodePPM(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("refrender: texture %s: %w", path, err)
		}
		return img, nil
	}
	return nil, fmt.Errorf("refrender: texture %s is neither a PNG nor a binary PPM (P6) file", path)
}

// DecodePPM decodes a binary PPM image (netpbm "P6") with a maximum value
// of 255: the magic "P6", whitespace-separated decimal width, height and
// maxval (with "#" comments allowed between them), exactly one whitespace
// byte, then width·height RGB byte triples, top row first (netpbm ppm(5)).
func DecodePPM(r io.Reader) (*image.NRGBA, error) {
	br := bufio.NewReader(r)
	magic := make([]byte, 2)
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != "P6" {
		return nil, errors.New("not a binary PPM: it must start with \"P6\"")
	}
	var fields [3]int
	names := [3]string{"width", "height", "maximum value"}
	for i := range fields {
		n, err := ppmNumber(br)
		if err != nil {
			return nil, fmt.Errorf("PPM header, %s: %w", names[i], err)
		}
		fields[i] = n
	}
	w, h, maxval := fields[0], fields[1], fields[2]
	if w < 1 || h < 1 || w > MaxSize || h > MaxSize {
		return nil, fmt.Errorf("PPM is %d×%d; it must be 1..%d pixels each way", w, h, MaxSize)
	}
	if maxval != 255 {
		return nil, fmt.Errorf("PPM maximum value is %d; only 8-bit PPMs (255) are supported", maxval)
	}
	// ppmNumber consumed the single whitespace byte after the maxval.
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	row := make([]byte, 3*w)
	for y := 0; y < h; y++ {
		if _, err := io.ReadFull(br, row); err != nil {
			return nil, fmt.Errorf("PPM pixel data ends at row %d of %d: the file is truncated", y, h)
		}
		for x := 0; x < w; x++ {
			o := img.PixOffset(x, y)
			img.Pix[o], img.Pix[o+1], img.Pix[o+2], img.Pix[o+3] = row[3*x], row[3*x+1], row[3*x+2], 255
		}
	}
	return img, nil
}

// ppmNumber skips whitespace and comments, then reads a decimal number and
// the one whitespace byte that ends it.
func ppmNumber(br *bufio.Reader) (int, error) {
	b, err := br.ReadByte()
	for {
		if err != nil {
			return 0, errors.New("the header ends early")
		}
		if b == '#' {
			for err == nil && b != '\n' && b != '\r' {
				b, err = br.ReadByte()
			}
			continue
		}
		if !isSpace(b) {
			break
		}
		b, err = br.ReadByte()
	}
	n, digits := 0, 0
	for err == nil && b >= '0' && b <= '9' {
		if n > 1<<20 {
			return 0, errors.New("the number is too large")
		}
		n = 10*n + int(b-'0')
		digits++
		b, err = br.ReadByte()
	}
	if digits == 0 {
		return 0, fmt.Errorf("expected a decimal number, found %q", b)
	}
	if err != nil {
		return 0, errors.New("the header ends early")
	}
	if !isSpace(b) {
		return 0, fmt.Errorf("the number is followed by %q, not by whitespace", b)
	}
	return n, nil
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\v' || b == '\f'
}
