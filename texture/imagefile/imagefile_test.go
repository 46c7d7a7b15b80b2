package imagefile

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vccube/vccube/texture"
)

// The expected pixels below are written by hand; the input files are made
// by the standard library's encoders (an independent path) or, for PPM,
// byte by byte from the netpbm description.

// pixel returns the 4 bytes of pixel (x, y) of a picture.
func pixel(p texture.Picture, x, y int) [4]byte {
	return [4]byte(p.Pix[y*p.Stride+x*4:][:4])
}

func encodePNG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestPNG(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 3, 2))
	img.SetNRGBA(0, 0, color.NRGBA{255, 0, 0, 255})  // top-left red
	img.SetNRGBA(2, 0, color.NRGBA{0, 0, 255, 255})  // top-right blue
	img.SetNRGBA(0, 1, color.NRGBA{10, 20, 30, 128}) // bottom-left, half transparent
	img.SetNRGBA(2, 1, color.NRGBA{0, 255, 0, 255})  // bottom-right green
	data := encodePNG(t, img)

	rgba, err := Decode(data, "t.png", texture.OrderRGBA)
	if err != nil {
		t.Fatal(err)
	}
	if rgba.Width != 3 || rgba.Height != 2 || rgba.Cpp != 4 || rgba.Stride != 12 || len(rgba.Pix) != 24 {
		t.Fatalf("picture %d×%d cpp %d stride %d len %d", rgba.Width, rgba.Height, rgba.Cpp, rgba.Stride, len(rgba.Pix))
	}
	for _, c := range []struct {
		x, y int
		want [4]byte
	}{
		{0, 0, [4]byte{255, 0, 0, 255}},
		{2, 0, [4]byte{0, 0, 255, 255}},
		{0, 1, [4]byte{10, 20, 30, 128}}, // straight alpha kept
		{2, 1, [4]byte{0, 255, 0, 255}},
		{1, 1, [4]byte{0, 0, 0, 0}},
	} {
		if got := pixel(rgba, c.x, c.y); got != c.want {
			t.Errorf("RGBA pixel (%d,%d) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
	bgra, err := Decode(data, "t.png", texture.OrderBGRA)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := pixel(bgra, 0, 0), [4]byte{0, 0, 255, 255}; got != want {
		t.Errorf("BGRA red pixel = %v, want %v (B,G,R,A)", got, want)
	}
	if got, want := pixel(bgra, 0, 1), [4]byte{30, 20, 10, 128}; got != want {
		t.Errorf("BGRA pixel (0,1) = %v, want %v", got, want)
	}
}

func TestPNGKinds(t *testing.T) {
	gray := image.NewGray(image.Rect(0, 0, 2, 1))
	gray.Pix[0], gray.Pix[1] = 7, 200
	pal := image.NewPaletted(image.Rect(0, 0, 2, 1), color.Palette{color.NRGBA{1, 2, 3, 255}, color.NRGBA{200, 100, 50, 255}})
	pal.Pix[0], pal.Pix[1] = 1, 0
	deep := image.NewNRGBA64(image.Rect(0, 0, 1, 1))
	deep.SetNRGBA64(0, 0, color.NRGBA64{0xFFFF, 0x8000, 0x0101, 0xFFFF}) // high bytes FF, 80, 01
	cases := []struct {
		name string
		img  image.Image
		want [][4]byte
	}{
		{"gray", gray, [][4]byte{{7, 7, 7, 255}, {200, 200, 200, 255}}},
		{"paletted", pal, [][4]byte{{200, 100, 50, 255}, {1, 2, 3, 255}}},
		{"16-bit", deep, [][4]byte{{255, 128, 1, 255}}},
	}
	for _, c := range cases {
		p, err := Decode(encodePNG(t, c.img), c.name+".png", texture.OrderRGBA)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		for x, want := range c.want {
			if got := pixel(p, x, 0); got != want {
				t.Errorf("%s: pixel %d = %v, want %v", c.name, x, got, want)
			}
		}
	}
}

func TestGIF(t *testing.T) {
	img := image.NewPaletted(image.Rect(0, 0, 2, 2), color.Palette{color.RGBA{0, 0, 0, 255}, color.RGBA{255, 255, 0, 255}})
	img.Pix = []uint8{1, 0, 0, 1}
	var b bytes.Buffer
	if err := gif.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	p, err := Decode(b.Bytes(), "t.gif", texture.OrderBGRA)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := pixel(p, 0, 0), [4]byte{0, 255, 255, 255}; got != want { // yellow as B,G,R,A
		t.Errorf("pixel (0,0) = %v, want %v", got, want)
	}
	if got, want := pixel(p, 1, 0), [4]byte{0, 0, 0, 255}; got != want {
		t.Errorf("pixel (1,0) = %v, want %v", got, want)
	}
}

func TestJPEG(t *testing.T) {
	// JPEG is lossy; a flat colour comes back within a few levels.
	img := image.NewRGBA(image.Rect(0, 0, 16, 16))
	for i := 0; i < len(img.Pix); i += 4 {
		copy(img.Pix[i:], []byte{200, 100, 50, 255})
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	p, err := Decode(b.Bytes(), "t.jpg", texture.OrderRGBA)
	if err != nil {
		t.Fatal(err)
	}
	got := pixel(p, 8, 8)
	for i, want := range [4]int{200, 100, 50, 255} {
		if d := int(got[i]) - want; d < -4 || d > 4 {
			t.Errorf("channel %d = %d, want %d ± 4", i, got[i], want)
		}
	}
}

func TestPPM(t *testing.T) {
	cases := []struct {
		name string
		data string
		w, h int
		want [][4]byte // row by row
	}{
		{"plain", "P6\n2 1\n255\n\xff\x00\x00\x01\x02\x03", 2, 1, [][4]byte{{255, 0, 0, 255}, {1, 2, 3, 255}}},
		{"comments and blanks", "P6 # made by hand\n 1\t# width\n2 255 \x0a\x0b\x0c\xfe\xfd\xfc", 1, 2,
			[][4]byte{{10, 11, 12, 255}, {254, 253, 252, 255}}},
		// maxval 15: v*255/15 = 17v.
		{"maxval 15", "P6\n1 1\n15\n\x0f\x01\x00", 1, 1, [][4]byte{{255, 17, 0, 255}}},
		// maxval 65535, two bytes each, most significant first: 0xFFFF → 255,
		// 0x8000 → (32768*255+32767)/65535 = 128, 0x0100 → 1.
		{"16-bit", "P6\n1 1\n65535\n\xff\xff\x80\x00\x01\x00", 1, 1, [][4]byte{{255, 128, 1, 255}}},
		{"trailing bytes ignored", "P6\n1 1\n255\n\x01\x02\x03P6\n", 1, 1, [][4]byte{{1, 2, 3, 255}}},
	}
	for _, c := range cases {
		p, err := Decode([]byte(c.data), c.name+".ppm", texture.OrderRGBA)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if p.Width != c.w || p.Height != c.h {
			t.Errorf("%s: %d×%d, want %d×%d", c.name, p.Width, p.Height, c.w, c.h)
			continue
		}
		for i, want := range c.want {
			if got := pixel(p, i%c.w, i/c.w); got != want {
				t.Errorf("%s: pixel %d = %v, want %v", c.name, i, got, want)
			}
		}
	}
	// A 256×256 P6 of the shape of vkcube's texture (our own bytes).
	var b bytes.Buffer
	b.WriteString("P6\n256 256\n255\n")
	for i := 0; i < 256*256; i++ {
		b.Write([]byte{byte(i), byte(i >> 8), 0x5A})
	}
	p, err := Decode(b.Bytes(), "lunarg-shaped.ppm", texture.OrderBGRA)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := pixel(p, 3, 2), [4]byte{0x5A, 2, 3, 255}; got != want { // pixel 2*256+3: R=3, G=2, B=0x5A
		t.Errorf("pixel (3,2) = %v, want %v", got, want)
	}
}

// TestErrors: each bad input gets the right kind of error, naming the file.
func TestErrors(t *testing.T) {
	small := image.NewNRGBA(image.Rect(0, 0, 4, 4))
	goodPNG := encodePNG(t, small)
	patchPNG := func(w, h uint32) []byte {
		d := bytes.Clone(goodPNG)
		d[16], d[17], d[18], d[19] = byte(w>>24), byte(w>>16), byte(w>>8), byte(w)
		d[20], d[21], d[22], d[23] = byte(h>>24), byte(h>>16), byte(h>>8), byte(h)
		return d
	}
	corruptPNG := bytes.Clone(goodPNG)
	corruptPNG[len(corruptPNG)-20] ^= 0xFF // inside IDAT: checksum fails

	var jb bytes.Buffer
	_ = jpeg.Encode(&jb, small, nil)
	goodJPEG := jb.Bytes()
	bigJPEG := bytes.Clone(goodJPEG)
	// The SOF0 marker FF C0: length(2) precision(1) height(2) width(2).
	sof := bytes.Index(bigJPEG, []byte{0xFF, 0xC0})
	bigJPEG[sof+5], bigJPEG[sof+6] = 0x10, 0x00 // height 4096

	var gb bytes.Buffer
	_ = gif.Encode(&gb, small, nil)
	goodGIF := gb.Bytes()
	bigGIF := bytes.Clone(goodGIF)
	bigGIF[6], bigGIF[7] = 0x01, 0x10 // logical screen width 4097, little-endian
	zeroGIF := bytes.Clone(goodGIF)
	zeroGIF[6], zeroGIF[7], zeroGIF[8], zeroGIF[9] = 0, 0, 0, 0

	cases := []struct {
		name string
		data []byte
		kind error
	}{
		{"empty", nil, ErrTruncated},
		{"text", []byte("hello, texture"), ErrFormat},
		{"bmp", []byte("BM\x00\x00"), ErrFormat},
		{"png 4096 wide", patchPNG(4096, 4), ErrTooLarge},
		{"png 2049 high", patchPNG(4, 2049), ErrTooLarge},
		{"png 4G wide", patchPNG(0xFFFFFFFF, 4), ErrTooLarge},
		{"png zero width", patchPNG(0, 4), ErrZeroSize},
		{"png cut in half", goodPNG[:len(goodPNG)/2], ErrTruncated},
		{"png header only", goodPNG[:20], ErrTruncated},
		{"png damaged", corruptPNG, ErrCorrupt},
		{"jpeg 4096 high", bigJPEG, ErrTooLarge},
		{"jpeg cut", goodJPEG[:len(goodJPEG)/2], ErrTruncated},
		{"gif 4097 wide", bigGIF, ErrTooLarge},
		{"gif zero size", zeroGIF, ErrZeroSize},
		{"gif cut", goodGIF[:len(goodGIF)-8], ErrTruncated},
		{"ppm too large", []byte("P6\n4096 4096\n255\n"), ErrTooLarge},
		{"ppm huge number", []byte("P6\n99999999999999999999 1\n255\n"), ErrTooLarge},
		{"ppm zero height", []byte("P6\n5 0\n255\n"), ErrZeroSize},
		{"ppm no pixels", []byte("P6\n2 2\n255\n"), ErrTruncated},
		{"ppm short pixels", []byte("P6\n2 2\n255\n\x00\x01\x02\x03"), ErrTruncated},
		{"ppm header cut", []byte("P6\n2 "), ErrTruncated},
		{"ppm maxval 0", []byte("P6\n1 1\n0\n\x00\x00\x00"), ErrCorrupt},
		{"ppm maxval 70000", []byte("P6\n1 1\n70000\n\x00\x00\x00\x00\x00\x00"), ErrCorrupt},
		{"ppm letters", []byte("P6\nab 1\n255\n"), ErrCorrupt},
		{"ppm no space after maxval", []byte("P6\n1 1\n255x\x00\x00\x00"), ErrCorrupt},
		{"ppm glued magic", []byte("P61 1 255\n\x00\x00\x00"), ErrCorrupt},
		{"ascii ppm", []byte("P3\n1 1\n255\n1 2 3\n"), ErrUnsupported},
		{"pgm", []byte("P5\n1 1\n255\n\x00"), ErrUnsupported},
	}
	for _, c := range cases {
		p, err := Decode(c.data, "bad/"+strings.ReplaceAll(c.name, " ", "-"), texture.OrderRGBA)
		if err == nil {
			t.Errorf("%s: decoded a %d×%d picture, want an error", c.name, p.Width, p.Height)
			continue
		}
		if !errors.Is(err, c.kind) {
			t.Errorf("%s: %v; want kind %v", c.name, err, c.kind)
		}
		var fe *Error
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), "bad/"+strings.ReplaceAll(c.name, " ", "-")) {
			t.Errorf("%s: error %q does not name the file", c.name, err)
		}
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "t.ppm")
	if err := os.WriteFile(good, []byte("P6\n1 1\n255\n\x01\x02\x03"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Load(good, texture.OrderRGBA)
	if err != nil || pixel(p, 0, 0) != [4]byte{1, 2, 3, 255} {
		t.Errorf("Load: %v %v", p, err)
	}
	missing := filepath.Join(dir, "missing.png")
	if _, err := Load(missing, texture.OrderRGBA); err == nil || !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: %v", err)
	}
	// A sparse file larger than MaxFileBytes is refused without reading it.
	huge := filepath.Join(dir, "huge.png")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxFileBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := Load(huge, texture.OrderRGBA); !errors.Is(err, ErrTooLarge) {
		t.Errorf("huge file: %v, want ErrTooLarge", err)
	}
}

// TestDefaultTexturePNG loads the committed default texture through this
// package: a real PNG of the size the program uses.
func TestDefaultTexturePNG(t *testing.T) {
	p, err := Load("../testdata/default-texture.png", texture.OrderBGRA)
	if err != nil {
		t.Fatal(err)
	}
	if p.Width != 256 || p.Height != 256 {
		t.Fatalf("%d×%d", p.Width, p.Height)
	}
	// Top-left quadrant red, stored B,G,R,A; row 0 is the top.
	if got, want := pixel(p, 1, 1), [4]byte{0, 0, 255, 255}; got != want {
		t.Errorf("pixel (1,1) = %v, want %v", got, want)
	}
	// Bottom-left quadrant blue.
	if got, want := pixel(p, 50, 200), [4]byte{255, 0, 0, 255}; got != want {
		t.Errorf("pixel (50,200) = %v, want %v", got, want)
	}
}
