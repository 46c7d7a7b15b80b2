package imagefile

import (
	"fmt"

	"github.com/vccube/vccube/texture"
)

// decodePPM decodes a binary PPM ("P6"), the format of vkcube's LunarG
// texture (Vulkan-Tools cube/lunarg.ppm.h: "P6\n256 256\n255\n" and RGB
// bytes). The header, as the netpbm ppm(5) page describes it: "P6",
// whitespace, width, whitespace, height, whitespace, maxval (1–65535), one
// whitespace character, then the rows top to bottom, 3 samples per pixel,
// one byte each if maxval < 256 and two (most significant first)
// otherwise; "#" starts a comment running to the end of the line anywhere
// in the header. Samples are scaled to 8 bits; alpha is 255. Bytes after
// the first picture are ignored, as PPM allows several pictures in a file.
func decodePPM(data []byte, name string, order texture.ChannelOrder) (texture.Picture, error) {
	fail := func(kind error, format string, args ...any) (texture.Picture, error) {
		return texture.Picture{}, &Error{File: name, Kind: kind, Detail: fmt.Sprintf(format, args...)}
	}
	switch data[1] {
	case '6':
	case '3':
		return fail(ErrUnsupported, "ASCII PPM (P3) is not supported: convert it to binary PPM (P6) or PNG")
	default:
		return fail(ErrUnsupported, "netpbm format P%c is not supported: convert it to binary PPM (P6) or PNG", data[1])
	}
	if len(data) < 3 || !(isSpace(data[2]) || data[2] == '#') {
		return fail(ErrCorrupt, "the PPM magic number P6 is not followed by whitespace")
	}
	h := ppmHeader{data: data, pos: 2}
	width, err := h.number("width")
	if err != nil {
		return texture.Picture{}, h.errorFor(name, err)
	}
	height, err := h.number("height")
	if err != nil {
		return texture.Picture{}, h.errorFor(name, err)
	}
	if err := checkSize(width, height, name, "PPM"); err != nil {
		return texture.Picture{}, err
	}
	maxval, err := h.number("maxval")
	if err != nil {
		return texture.Picture{}, h.errorFor(name, err)
	}
	if maxval < 1 || maxval > 65535 {
		return fail(ErrCorrupt, "the PPM maxval is %d; it must be 1 to 65535", maxval)
	}
	// Exactly one whitespace character separates maxval from the raster.
	if h.pos >= len(data) {
		return fail(ErrTruncated, "the PPM file ends after its header, before any pixel")
	}
	if !isSpace(data[h.pos]) {
		return fail(ErrCorrupt, "the PPM maxval is followed by %q, not by whitespace", data[h.pos])
	}
	raster := data[h.pos+1:]
	sampleBytes := 1
	if maxval > 255 {
		sampleBytes = 2
	}
	w, ht := int(width), int(height)
	if need := w * ht * 3 * sampleBytes; len(raster) < need {
		return fail(ErrTruncated, "the PPM file holds %d bytes of pixels; %d×%d at maxval %d needs %d (was it copied completely?)",
			len(raster), w, ht, maxval, need)
	}
	scale := func(i int) uint8 {
		v := uint32(raster[i*sampleBytes])
		if sampleBytes == 2 {
			v = v<<8 | uint32(raster[i*2+1])
		}
		if maxval == 255 {
			return uint8(v)
		}
		v = min(v, uint32(maxval)) // a sample above maxval is out of spec; saturate
		return uint8((v*255 + uint32(maxval)/2) / uint32(maxval))
	}
	p := texture.Picture{Pix: make([]byte, w*ht*4), Width: w, Height: ht, Stride: w * 4, Cpp: 4}
	for i := 0; i < w*ht; i++ {
		order.Put(p.Pix[4*i:], scale(3*i), scale(3*i+1), scale(3*i+2), 255)
	}
	return p, nil
}

// ppmHeader reads the numbers of a PPM header.
type ppmHeader struct {
	data []byte
	pos  int
}

// ppmError is a header problem and its kind, before the file name is known
// to it.
type ppmError struct {
	kind error
	msg  string
}

// Error returns the message.
func (e ppmError) Error() string { return e.msg }

func (h *ppmHeader) errorFor(name string, err error) error {
	pe := err.(ppmError)
	return &Error{File: name, Kind: pe.kind, Detail: pe.msg}
}

// number skips whitespace and comments and reads a decimal number. Numbers
// of more than 9 digits are reported as 999999999 or more, which the size
// and maxval checks refuse, so nothing overflows.
func (h *ppmHeader) number(what string) (int64, error) {
	for h.pos < len(h.data) {
		c := h.data[h.pos]
		if c == '#' {
			for h.pos < len(h.data) && h.data[h.pos] != '\n' && h.data[h.pos] != '\r' {
				h.pos++
			}
			continue
		}
		if !isSpace(c) {
			break
		}
		h.pos++
	}
	if h.pos >= len(h.data) {
		return 0, ppmError{ErrTruncated, "the PPM file ends inside its header, before the " + what}
	}
	start := h.pos
	var n int64
	for h.pos < len(h.data) && h.data[h.pos] >= '0' && h.data[h.pos] <= '9' {
		if h.pos-start < 9 {
			n = n*10 + int64(h.data[h.pos]-'0')
		} else {
			n = 999999999
		}
		h.pos++
	}
	if h.pos == start {
		return 0, ppmError{ErrCorrupt, fmt.Sprintf("the PPM header has %q where the %s should be", h.data[h.pos], what)}
	}
	return n, nil
}

// isSpace is the netpbm whitespace: blanks, tabs, CRs, LFs (and VT, FF).
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}
