package record

import (
	"bufio"
	"compress/lzw"
	"encoding/binary"
	"io"
)

// The GIF89a container, written block by block so that an animation is
// streamed frame by frame (image/gif's encoder needs all frames at once).
// Block layouts are from the GIF89a specification (CompuServe, 1990;
// section numbers below); the looping block is Netscape's application
// extension, which the specification leaves to applications and which
// every decoder, image/gif included (GIF.LoopCount), reads.
const (
	extensionIntroducer = 0x21 // GIF89a §23–26
	graphicControlLabel = 0xf9 // GIF89a §23
	applicationLabel    = 0xff // GIF89a §26
	imageSeparator      = 0x2c // GIF89a §20
	trailer             = 0x3b // GIF89a §27
	blockTerminator     = 0x00 // GIF89a §15: a sub-block of size 0

	// disposalNone is the Graphic Control Extension's disposal method 1,
	// "do not dispose": the frame stays on the canvas and the next one is
	// drawn over it, so a frame need only cover what changed (GIF89a §23).
	disposalNone = 1
	// maxSubBlock is the largest data sub-block (GIF89a §15: a size byte 1–255).
	maxSubBlock = 255
)

// gifStream writes GIF89a blocks to a buffered writer.
type gifStream struct {
	w *bufio.Writer
	// lzw compresses a frame's indices; it is reset, not remade, for each
	// frame.
	lzw *lzw.Writer
	sub subBlocks
	err error
}

func newGIFStream(w io.Writer) *gifStream {
	s := &gifStream{w: bufio.NewWriterSize(w, 64<<10)}
	s.sub.w = s.w
	s.lzw = lzw.NewWriter(&s.sub, lzw.LSB, 8).(*lzw.Writer)
	return s
}

// bytes writes its arguments, one WriteByte each: a variadic slice
// handed on to Write would escape and cost an allocation per call.
func (s *gifStream) bytes(b0 byte, more ...byte) {
	if s.err == nil {
		s.err = s.w.WriteByte(b0)
	}
	for _, b := range more {
		if s.err == nil {
			s.err = s.w.WriteByte(b)
		}
	}
}

// u16 writes a little-endian 16-bit number (GIF89a §4, "Unsigned").
func (s *gifStream) u16(v int) {
	var b [2]byte
	binary.LittleEndian.PutUint16(b[:], uint16(v))
	s.bytes(b[0], b[1])
}

func (s *gifStream) str(x string) {
	if s.err == nil {
		_, s.err = s.w.WriteString(x)
	}
}

// header writes the signature (GIF89a §17), the Logical Screen Descriptor (§18)
// for a width×height canvas without a global colour table (every frame
// carries its own), and the looping extension.
func (s *gifStream) header(width, height, loops int) {
	s.str("GIF89a")
	s.u16(width)
	s.u16(height)
	// Packed fields: no global colour table (bit 7 clear); colour
	// resolution 8 bits per primary (bits 6–4 = 8 − 1); not sorted.
	s.bytes(0x70)
	s.bytes(0) // background colour index: unused without a global table
	s.bytes(0) // pixel aspect ratio: not given (square)
	// Netscape 2.0 looping extension: application identifier "NETSCAPE"
	// with authentication code "2.0", then one sub-block: 1 (the loop
	// sub-block's id) and the loop count, 0 meaning forever.
	s.bytes(extensionIntroducer, applicationLabel, 11)
	s.str("NETSCAPE2.0")
	s.bytes(3, 1)
	s.u16(loops)
	s.bytes(blockTerminator)
}

// frame writes one frame: a Graphic Control Extension (GIF89a §23) with the delay
// in 1/100 s, disposal "do not dispose" and, if transparent ≥ 0, that
// palette index transparent; an Image Descriptor (GIF89a §20) placing a w×h
// image at (x, y) with a local colour table (GIF89a §21) of palette (R, G, B
// triples, padded to a power of two); and the image's LZW-compressed
// indices in data sub-blocks (GIF89a §22, appendix F), row by row.
func (s *gifStream) frame(x, y, w, h int, palette []byte, transparent int, delay int, pix []byte) {
	flags := byte(disposalNone << 2)
	tIndex := byte(0)
	if transparent >= 0 {
		flags |= 1 // transparent colour flag
		tIndex = byte(transparent)
	}
	s.bytes(extensionIntroducer, graphicControlLabel, 4, flags)
	s.u16(delay)
	s.bytes(tIndex, blockTerminator)

	colours := len(palette) / 3
	bits := 1 // the table holds 2^bits entries, 1 ≤ bits ≤ 8
	for 1<<bits < colours {
		bits++
	}
	s.bytes(imageSeparator)
	s.u16(x)
	s.u16(y)
	s.u16(w)
	s.u16(h)
	// Packed fields: local colour table present (bit 7), not interlaced,
	// not sorted, its size as bits − 1 (bits 2–0).
	s.bytes(0x80 | byte(bits-1))
	if s.err == nil {
		_, s.err = s.w.Write(palette)
	}
	for i := colours; i < 1<<bits; i++ {
		s.bytes(0, 0, 0)
	}

	// The LZW minimum code size is the number of bits of the indices, at
	// least 2 (appendix F: 2 for two-colour images). compress/lzw
	// implements GIF's variant (codes LSB first, clear and end codes).
	minCode := max(bits, 2)
	s.bytes(byte(minCode))
	if s.err != nil {
		return
	}
	s.sub.n = 0
	s.lzw.Reset(&s.sub, lzw.LSB, minCode)
	if _, err := s.lzw.Write(pix); err != nil {
		s.err = err
		return
	}
	// Close writes the end code and flushes the last sub-block.
	if err := s.lzw.Close(); err != nil {
		s.err = err
		return
	}
	s.bytes(blockTerminator)
}

// end writes the trailer (GIF89a §27) and flushes.
func (s *gifStream) end() error {
	s.bytes(trailer)
	return s.flush()
}

// flush pushes buffered bytes to the file.
func (s *gifStream) flush() error {
	if s.err == nil {
		s.err = s.w.Flush()
	}
	return s.err
}

// subBlocks cuts a byte stream into data sub-blocks: a size byte, then
// that many bytes (GIF89a §15). It has the WriteByte and Flush methods that
// compress/lzw writes through directly (without them its Reset would wrap
// it in a new bufio.Writer for every frame).
type subBlocks struct {
	w   *bufio.Writer
	buf [maxSubBlock]byte
	n   int
	err error
}

// WriteByte adds one byte, writing a sub-block when 255 are gathered.
func (b *subBlocks) WriteByte(c byte) error {
	b.buf[b.n] = c
	b.n++
	if b.n == maxSubBlock {
		return b.Flush()
	}
	return b.err
}

// Write adds p.
func (b *subBlocks) Write(p []byte) (int, error) {
	for _, c := range p {
		if err := b.WriteByte(c); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush writes the gathered bytes as one sub-block, if there are any.
func (b *subBlocks) Flush() error {
	if b.n == 0 || b.err != nil {
		b.n = 0
		return b.err
	}
	if err := b.w.WriteByte(byte(b.n)); err != nil {
		b.err = err
	} else if _, err := b.w.Write(b.buf[:b.n]); err != nil {
		b.err = err
	}
	b.n = 0
	return b.err
}
