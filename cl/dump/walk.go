// Package dump decodes VideoCore IV control lists, shader records and
// uniform streams through the description in cl/spec and prints them one
// packet per line, in the spirit of Mesa's VC4_DEBUG=cl output:
//
//	0013 CLIP_WINDOW left=0 bottom=0 width=800 height=600
//
// Walk is the decoder: it never panics on arbitrary bytes and reports the
// first problem as an *Error naming the offset and the packet. CL, Records,
// Uniforms and Job print.
package dump

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/prim"
	"github.com/vccube/vccube/cl/spec"
)

// Options say how to read a list.
type Options struct {
	// List is the kind of list the bytes are: it decides which packets
	// are flagged as out of place and where decoding stops (a tile list
	// ends at RETURN_FROM_SUB_LIST). Zero means BinList.
	List spec.List
	// Base is added to offsets when printing (the list's bus address).
	Base uint32
	// PrimFormat is the compressed-list format in force before the first
	// PRIMITIVE_LIST_FORMAT (a tile list inherits it from earlier state).
	// Nil means unknown: a compressed list before any
	// PRIMITIVE_LIST_FORMAT is then an error.
	PrimFormat *prim.Format
}

func (o *Options) list() spec.List {
	if o.List == 0 {
		return spec.BinList
	}
	return o.List
}

// Packet is one decoded packet.
type Packet struct {
	// Offset is where the packet starts in the list.
	Offset int
	// Desc is the packet's description.
	Desc *spec.Packet
	// Bytes is the fixed part, opcode included.
	Bytes []byte
	// Inline is the inline data that follows (compressed list or VG
	// coordinates), if any.
	Inline []byte
	// Items are the decoded compressed-list items, with Format.
	Items []prim.Item
	// Format is the compressed-list format Items were decoded with.
	Format prim.Format
	// Stop is non-empty when decoding ends after this packet, saying why.
	Stop string
}

// Payload returns the fixed part after the opcode.
func (p *Packet) Payload() []byte { return p.Bytes[1:] }

// Error reports the first problem in a list.
type Error struct {
	// Offset is where the problem is.
	Offset int
	// Packet is the offset of the packet it is in (= Offset unless the
	// problem is inside inline data).
	Packet int
	// Op is that packet's opcode.
	Op spec.Opcode
	// Msg says what is wrong.
	Msg string
}

// Error formats the problem with its offset and packet.
func (e *Error) Error() string {
	if e.Offset != e.Packet {
		return fmt.Sprintf("dump: offset %#04x, inside %s at %#04x: %s", e.Offset, e.Op, e.Packet, e.Msg)
	}
	return fmt.Sprintf("dump: offset %#04x, %s: %s", e.Offset, e.Op, e.Msg)
}

// vgEscape ends an inline VG coordinate list; vgPad is a dummy vertex
// (AG §9 "VG Inline Primitives").
const vgEscape = 0xbfff0000

// ErrStop may be returned by a Walk callback to end the walk early
// without an error.
var ErrStop = errors.New("dump: stop")

// Walk decodes the list in b and calls fn for each packet, in order. It
// stops at the end of b, after HALT, after BRANCH or a compressed list's
// branch (execution continues elsewhere), after RETURN_FROM_SUB_LIST in a
// tile list, or at the first problem, which it returns as an *Error. A
// compressed list's "previous primitive" carries from one list to the next
// and restarts at zero after PRIMITIVE_LIST_FORMAT (cl/prim's assumption).
func Walk(b []byte, opt Options, fn func(*Packet) error) error {
	var format *prim.Format
	if opt.PrimFormat != nil {
		f := *opt.PrimFormat
		format = &f
	}
	formatErr := ""
	dec := prim.Decoder{}
	if format != nil {
		dec.Format = *format
	}
	off := 0
	for off < len(b) {
		op := spec.Opcode(b[off])
		d := spec.Lookup(op)
		if d == nil {
			return &Error{off, off, op, "no such packet (a reserved id in AG Table 38)"}
		}
		if len(b)-off < d.Len {
			return &Error{off, off, op, fmt.Sprintf("needs %d bytes, only %d left", d.Len, len(b)-off)}
		}
		p := Packet{Offset: off, Desc: d, Bytes: b[off : off+d.Len]}
		end := off + d.Len
		switch d.Inline {
		case spec.CompressedList:
			if format == nil {
				msg := "compressed primitive list with no PRIMITIVE_LIST_FORMAT before it (set Options.PrimFormat for a tile list)"
				if formatErr != "" {
					msg = "compressed primitive list in an unsupported format: " + formatErr
				}
				return &Error{end, off, op, msg}
			}
			p.Format = *format
			for {
				it, err := dec.Next(b[end:])
				if err != nil {
					var pe *prim.Error
					if errors.As(err, &pe) {
						return &Error{end + pe.Offset, off, op, pe.Msg}
					}
					return &Error{end, off, op, err.Error()}
				}
				p.Items = append(p.Items, it)
				end += it.Len
				if it.Kind == prim.Branch {
					p.Stop = fmt.Sprintf("the compressed list continues %+d × 32 bytes away", it.Branch)
				}
				if it.Kind != prim.Primitive {
					break
				}
			}
		case spec.VGCoordinates:
			for {
				if len(b)-end < 4 {
					return &Error{end, off, op, "inline VG coordinates end without the escape word 0xbfff0000"}
				}
				w := binary.LittleEndian.Uint32(b[end:])
				end += 4
				if w == vgEscape {
					break
				}
			}
		}
		p.Inline = b[off+d.Len : end]
		switch op {
		case spec.OpPrimitiveListFormat:
			var plf cl.PrimitiveListFormat
			_ = plf.Unpack(p.Bytes)
			f, err := prim.FormatOf(plf)
			if err != nil {
				format, formatErr = nil, err.Error()
			} else {
				format, formatErr = &f, ""
				dec = prim.Decoder{Format: f}
			}
		case spec.OpHalt:
			p.Stop = "HALT stops the list (the kernel stops parsing a bin CL here)"
		case spec.OpBranch:
			p.Stop = "execution continues at the branch target"
		case spec.OpReturnFromSubList:
			if opt.list() == spec.TileList {
				p.Stop = "end of the tile list"
			}
		}
		if err := fn(&p); err != nil {
			if err == ErrStop {
				return nil
			}
			return err
		}
		if p.Stop != "" {
			return nil
		}
		off = end
	}
	return nil
}
