// Package imagefile loads texture pictures from PNG, JPEG, GIF and binary
// PPM (P6) files: the picture vccube samples on the cube, in the byte order
// of the render target.
//
// Every picture comes back as a top-down (row 0 = top, as the files store
// it), tightly packed texture.Picture of 4 bytes per pixel in the requested
// texture.ChannelOrder, with straight (not premultiplied) alpha, 255 where
// the file has none. No colour-space conversion is done: the bytes are the
// file's.
//
// Limits come before work: the dimensions are read from the file's header
// and checked (1×1 to 2048×2048, texture.MaxSize, the most the TMU
// samples) before anything is decoded, and files larger than MaxFileBytes
// are not read. Every failure is an *Error that names the file, says what
// is wrong and what to do, and matches one of the Err values with
// errors.Is. Bad bytes never cause a panic (FuzzDecode).
package imagefile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"strings"

	"github.com/vccube/vccube/texture"
)

// MaxFileBytes is the largest file Load reads: a 2048×2048 picture needs
// at most 25 MiB even as 16-bit PPM, so anything much larger is not a
// texture this program can use.
const MaxFileBytes = 64 << 20

// The kinds of failure; test for them with errors.Is.
var (
	// ErrFormat: the data is not PNG, JPEG, GIF or PPM.
	ErrFormat = errors.New("unknown image format")
	// ErrUnsupported: a variant of a known format that is not supported
	// (ASCII PPM, arithmetic-coded JPEG, ...).
	ErrUnsupported = errors.New("unsupported image variant")
	// ErrTooLarge: the picture is wider or higher than 2048, or the file is
	// larger than MaxFileBytes.
	ErrTooLarge = errors.New("image too large")
	// ErrZeroSize: the header gives a width or height of 0.
	ErrZeroSize = errors.New("image has zero size")
	// ErrTruncated: the data ends before the picture does.
	ErrTruncated = errors.New("image file truncated")
	// ErrCorrupt: the data is damaged (bad checksum, impossible values).
	ErrCorrupt = errors.New("image file corrupt")
)

// Error is a failure to load a texture file.
type Error struct {
	// File is the name given to Load or Decode.
	File string
	// Kind is one of the Err values, or the error from opening or reading
	// the file.
	Kind error
	// Detail says what exactly is wrong and what to do about it.
	Detail string
}

// Error returns "texture file NAME: DETAIL".
func (e *Error) Error() string { return "texture file " + e.File + ": " + e.Detail }

// Unwrap returns Kind.
func (e *Error) Unwrap() error { return e.Kind }

// Load reads and decodes the image file at path. See Decode.
func Load(path string, order texture.ChannelOrder) (texture.Picture, error) {
	f, err := os.Open(path)
	if err != nil {
		return texture.Picture{}, &Error{File: path, Kind: err, Detail: err.Error()}
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > MaxFileBytes {
		return texture.Picture{}, tooBigFile(path, fi.Size())
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return texture.Picture{}, &Error{File: path, Kind: err, Detail: "reading: " + err.Error()}
	}
	if len(data) > MaxFileBytes {
		return texture.Picture{}, tooBigFile(path, int64(len(data)))
	}
	return Decode(data, path, order)
}

func tooBigFile(name string, size int64) error {
	return &Error{File: name, Kind: ErrTooLarge,
		Detail: fmt.Sprintf("the file has %d bytes, more than the %d a 2048×2048 texture can need: use a smaller image", size, MaxFileBytes)}
}

// Decode decodes an image held in data; name is used in errors. The format
// is recognised from the first bytes, whatever the name's extension.
func Decode(data []byte, name string, order texture.ChannelOrder) (texture.Picture, error) {
	fail := func(kind error, format string, args ...any) (texture.Picture, error) {
		return texture.Picture{}, &Error{File: name, Kind: kind, Detail: fmt.Sprintf(format, args...)}
	}
	switch {
	case len(data) == 0:
		return fail(ErrTruncated, "the file is empty")
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		if err := checkPNGHeader(data, name); err != nil {
			return texture.Picture{}, err
		}
		return decodeStd(data, name, "PNG", png.DecodeConfig, png.Decode, order)
	case bytes.HasPrefix(data, []byte{0xFF, 0xD8}):
		return decodeStd(data, name, "JPEG", jpeg.DecodeConfig, jpeg.Decode, order)
	case bytes.HasPrefix(data, []byte("GIF87a")) || bytes.HasPrefix(data, []byte("GIF89a")):
		return decodeStd(data, name, "GIF", gif.DecodeConfig, gif.Decode, order)
	case len(data) >= 2 && data[0] == 'P' && data[1] >= '1' && data[1] <= '7':
		return decodePPM(data, name, order)
	}
	return fail(ErrFormat, "not a PNG, JPEG, GIF or binary PPM (P6) file: convert the image to PNG")
}

// checkSize checks header dimensions against the TMU's limits.
func checkSize(w, h int64, name, format string) error {
	switch {
	case w <= 0 || h <= 0:
		return &Error{File: name, Kind: ErrZeroSize, Detail: fmt.Sprintf("the %s header gives a size of %d×%d: a texture needs at least one pixel", format, w, h)}
	case w > texture.MaxSize || h > texture.MaxSize:
		return &Error{File: name, Kind: ErrTooLarge,
			Detail: fmt.Sprintf("%d×%d is larger than %d×%d, the most the VideoCore IV samples: scale the image down", w, h, texture.MaxSize, texture.MaxSize)}
	}
	return nil
}

// checkPNGHeader reads the size from the IHDR chunk, which the PNG
// specification puts first (signature, length, "IHDR", width and height as
// big-endian 32-bit numbers), so that oversized or empty images are refused
// before the decoder allocates anything.
func checkPNGHeader(data []byte, name string) error {
	if len(data) < 24 {
		return &Error{File: name, Kind: ErrTruncated, Detail: "the PNG file ends inside its header"}
	}
	if string(data[12:16]) != "IHDR" {
		return &Error{File: name, Kind: ErrCorrupt, Detail: "the PNG file does not start with an IHDR chunk"}
	}
	w := int64(binary.BigEndian.Uint32(data[16:20]))
	h := int64(binary.BigEndian.Uint32(data[20:24]))
	return checkSize(w, h, name, "PNG")
}

// decodeStd decodes with one of the standard library's decoders, reading
// the header first.
func decodeStd(data []byte, name, format string,
	config func(io.Reader) (image.Config, error), decode func(io.Reader) (image.Image, error),
	order texture.ChannelOrder) (texture.Picture, error) {
	cfg, err := config(bytes.NewReader(data))
	if err != nil {
		return texture.Picture{}, decodeError(err, name, format)
	}
	if err := checkSize(int64(cfg.Width), int64(cfg.Height), name, format); err != nil {
		return texture.Picture{}, err
	}
	img, err := decode(bytes.NewReader(data))
	if err != nil {
		return texture.Picture{}, decodeError(err, name, format)
	}
	// A GIF's first frame may be smaller than its logical screen; the
	// picture is the frame.
	b := img.Bounds()
	if err := checkSize(int64(b.Dx()), int64(b.Dy()), name, format); err != nil {
		return texture.Picture{}, err
	}
	return toPicture(img, order), nil
}

// decodeError sorts a standard decoder's error into our kinds.
func decodeError(err error, name, format string) error {
	var (
		pngUnsup  png.UnsupportedError
		jpegUnsup jpeg.UnsupportedError
	)
	// Everything else (png.FormatError, jpeg.FormatError, gif's errors) is
	// damage.
	kind, what := ErrCorrupt, "the file is damaged: "
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF),
		// image/gif reports a cut-off frame with this unexported error.
		format == "GIF" && strings.Contains(err.Error(), "not enough image data"):
		kind, what = ErrTruncated, "the file ends before the picture does (was it copied completely?): "
	case errors.As(err, &pngUnsup) || errors.As(err, &jpegUnsup):
		kind, what = ErrUnsupported, "the file uses a feature Go's decoder does not support (re-save it as a plain PNG): "
	}
	return &Error{File: name, Kind: kind, Detail: fmt.Sprintf("%s%s (%v)", what, format, err)}
}

// toPicture copies a decoded image into a top-down 32-bit picture in the
// given channel order with straight alpha.
func toPicture(img image.Image, order texture.ChannelOrder) texture.Picture {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	p := texture.Picture{Pix: make([]byte, w*h*4), Width: w, Height: h, Stride: w * 4, Cpp: 4}
	put := func(x, y int, r, g, bl, a uint8) { order.Put(p.Pix[y*p.Stride+x*4:], r, g, bl, a) }
	switch m := img.(type) {
	case *image.NRGBA:
		for y := 0; y < h; y++ {
			row := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):]
			for x := 0; x < w; x++ {
				put(x, y, row[4*x], row[4*x+1], row[4*x+2], row[4*x+3])
			}
		}
	case *image.RGBA:
		for y := 0; y < h; y++ {
			row := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):]
			for x := 0; x < w; x++ {
				r, g, bl, a := unpremultiply(row[4*x], row[4*x+1], row[4*x+2], row[4*x+3])
				put(x, y, r, g, bl, a)
			}
		}
	case *image.Gray:
		for y := 0; y < h; y++ {
			row := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):]
			for x := 0; x < w; x++ {
				put(x, y, row[x], row[x], row[x], 255)
			}
		}
	case *image.YCbCr:
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				yi, ci := m.YOffset(b.Min.X+x, b.Min.Y+y), m.COffset(b.Min.X+x, b.Min.Y+y)
				r, g, bl := color.YCbCrToRGB(m.Y[yi], m.Cb[ci], m.Cr[ci])
				put(x, y, r, g, bl, 255)
			}
		}
	case *image.Paletted:
		var pal [256]color.NRGBA // indices past the palette read as opaque black
		for i := range pal {
			pal[i] = color.NRGBA{A: 255}
		}
		for i, c := range m.Palette {
			if i < len(pal) && c != nil {
				pal[i] = color.NRGBAModel.Convert(c).(color.NRGBA)
			}
		}
		for y := 0; y < h; y++ {
			row := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):]
			for x := 0; x < w; x++ {
				c := pal[row[x]]
				put(x, y, c.R, c.G, c.B, c.A)
			}
		}
	default: // 16-bit, CMYK, ...: slow but exact
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				c := color.NRGBAModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA)
				put(x, y, c.R, c.G, c.B, c.A)
			}
		}
	}
	return p
}

// unpremultiply turns a premultiplied 8-bit colour into straight alpha,
// rounding to nearest.
func unpremultiply(r, g, b, a uint8) (uint8, uint8, uint8, uint8) {
	if a == 255 || a == 0 {
		return r, g, b, a
	}
	f := func(c uint8) uint8 { return uint8(min((uint32(c)*255+uint32(a)/2)/uint32(a), 255)) }
	return f(r), f(g), f(b), a
}
