// Package prim encodes and decodes the compressed primitive lists the
// VideoCore IV binner (PTB) writes into tile lists after a
// COMPRESSED_PRIMITIVE or CLIPPED_COMPRESSED_PRIMITIVE packet (AG §9
// "Compressed Primitive List", Tables 39–41;
// doc/hardware.md#compressed-primitive-lists).
//
// A list is a byte stream of primitives, each coded relative to the
// previous primitive (codings 0–2) or absolutely (coding 3), with two
// special codes: a relative branch (130) that chains tile-list blocks and
// the escape (128) that ends the list and returns to normal control-list
// parsing. The coding table depends on the current PRIMITIVE_LIST_FORMAT:
// triangles (Table 39), lines or RHTs (Table 40), points (Table 41), each
// with 16- or 24-bit indices.
//
// What the sources leave open, and what this package does about it:
//   - The "previous primitive" before the first one of a list is not
//     documented. Encoder and Decoder start from all-zero indices; Reset
//     returns to that state. Coding 3 (absolute) does not depend on it.
//   - Bits 3:2 of triangle and line coding 1 are "0, 1 or 2" with no
//     meaning given; the encoder writes 0 and the decoder reports the value
//     in Item.Aux. Likewise bits 1:0 of point coding 0 ("0 or 1").
//   - The base of a relative branch is not stated; Item.Branch carries the
//     signed offset in 32-byte units and the interpreter decides.
//   - Point coding 2 (run length) is documented as not implemented; the
//     decoder reports it as an error and the encoder never emits it.
//   - The 16+16-bit (x, y) coordinate lists of VG mode (Tables 42–43) are
//     not supported.
package prim

import (
	"errors"
	"fmt"

	"github.com/vccube/vccube/cl"
)

// Type selects the coding table.
type Type uint8

// Coding tables.
const (
	// Triangles uses AG Table 39: three indices per primitive.
	Triangles Type = iota
	// Lines uses AG Table 40 (lines and RHTs): two indices per primitive.
	Lines
	// Points uses AG Table 41: one index per primitive.
	Points
)

var typeNames = [...]string{"triangles", "lines", "points"}

// String names the type.
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// Vertices returns how many indices a primitive of type t has.
func (t Type) Vertices() int {
	switch t {
	case Triangles:
		return 3
	case Lines:
		return 2
	}
	return 1
}

// Format is the format of a compressed list.
type Format struct {
	// Type is the coding table.
	Type Type
	// IndexBits is 16 or 24: the width of absolute indices.
	IndexBits uint
}

// FormatOf returns the compressed-list format a PRIMITIVE_LIST_FORMAT
// packet selects.
func FormatOf(p cl.PrimitiveListFormat) (Format, error) {
	var f Format
	switch p.Type {
	case cl.PrimitiveListTypeTriangles:
		f.Type = Triangles
	case cl.PrimitiveListTypeLines, cl.PrimitiveListTypeRHTs:
		f.Type = Lines
	case cl.PrimitiveListTypePoints:
		f.Type = Points
	default:
		return f, fmt.Errorf("prim: primitive list type %v is reserved", p.Type)
	}
	switch p.DataType {
	case cl.PrimitiveListData16BitIndex:
		f.IndexBits = 16
	case cl.PrimitiveListData32BitXY:
		return f, errors.New("prim: (x, y) coordinate lists (VG mode, AG Tables 42–43) are not supported")
	default:
		return f, fmt.Errorf("prim: primitive list data type %d is not documented (AG Table 38 id 56 names 1 and 3)", uint8(p.DataType))
	}
	return f, nil
}

// MaxLen returns the most bytes one primitive takes in a list of format
// f: the length of the absolute coding 3, a code byte (129) and then every
// index in IndexBits/8 bytes (AG Tables 39–41, coding 3). The relative
// codings are shorter in every table: at most 2 + IndexBits/8 bytes
// (triangle coding 2). So a triangle takes at most 7 bytes with 16-bit
// indices and 10 with 24-bit; a line 5 or 7; a point 3 or 4.
func (f Format) MaxLen() int { return 1 + f.Type.Vertices()*int(f.IndexBits/8) }

func (f Format) check() error {
	if f.Type > Points {
		return fmt.Errorf("prim: bad type %d", f.Type)
	}
	if f.IndexBits != 16 && f.IndexBits != 24 {
		return fmt.Errorf("prim: index width %d, want 16 or 24", f.IndexBits)
	}
	return nil
}

// Prim is one primitive: Index[0..Type.Vertices()-1] are its absolute
// vertex indices; the rest are zero.
type Prim struct {
	// Index holds the primitive's vertex indices.
	Index [3]uint32
}

// Special codes shared by every table (AG Tables 39–41).
const (
	codeEscape   = 128
	codeAbsolute = 129
	codeBranch   = 130
)

// Kind says what an Item is.
type Kind uint8

// Item kinds.
const (
	// Primitive is a coded primitive.
	Primitive Kind = iota
	// Branch is the relative branch code 130.
	Branch
	// Escape is the escape code 128 that ends the list.
	Escape
)

// Item is one decoded element of a compressed list.
type Item struct {
	// Kind says what the item is.
	Kind Kind
	// Len is the number of bytes it occupied.
	Len int
	// Coding is the coding (0–3) of a Primitive.
	Coding int
	// Aux holds bits the AG gives no meaning: bits 3:2 of triangle and
	// line coding 1, bits 1:0 of point coding 0.
	Aux uint8
	// Prim is the decoded primitive.
	Prim Prim
	// Branch is a Branch's signed offset in units of 32 bytes.
	Branch int32
}

// Error reports a problem in a compressed list.
type Error struct {
	// Offset is the byte offset of the bad item in the slice given.
	Offset int
	// Msg says what is wrong.
	Msg string
}

// Error formats the problem with its offset.
func (e *Error) Error() string { return fmt.Sprintf("prim: at +%d: %s", e.Offset, e.Msg) }

// signed returns the width-bit two's-complement value of v.
func signed(v uint32, width uint) int64 {
	s := 64 - width
	return int64(uint64(v)<<s) >> s
}

// Decoder decodes a compressed list, keeping the previous primitive.
type Decoder struct {
	// Format is the list's format.
	Format Format
	prev   Prim
}

// Next decodes the item at the start of b. A Primitive becomes the previous
// primitive for the next call.
func (d *Decoder) Next(b []byte) (Item, error) {
	if err := d.Format.check(); err != nil {
		return Item{}, err
	}
	if len(b) == 0 {
		return Item{}, &Error{0, "list ends without an escape code (128)"}
	}
	ib := int(d.Format.IndexBits / 8)
	need := func(n int) error {
		if len(b) < n {
			return &Error{0, fmt.Sprintf("%s item needs %d bytes, only %d left", d.Format.Type, n, len(b))}
		}
		return nil
	}
	abs := func(off int) uint32 {
		v := uint32(b[off]) | uint32(b[off+1])<<8
		if ib == 3 {
			v |= uint32(b[off+2]) << 16
		}
		return v
	}
	switch b[0] {
	case codeEscape:
		return Item{Kind: Escape, Len: 1}, nil
	case codeBranch:
		if err := need(3); err != nil {
			return Item{}, err
		}
		return Item{Kind: Branch, Len: 3, Branch: int32(int16(uint16(b[1]) | uint16(b[2])<<8))}, nil
	case codeAbsolute:
		n, l := d.Format.Type.Vertices(), d.Format.MaxLen()
		if err := need(l); err != nil {
			return Item{}, err
		}
		it := Item{Kind: Primitive, Len: l, Coding: 3}
		for i := 0; i < n; i++ {
			it.Prim.Index[i] = abs(1 + i*ib)
		}
		d.prev = it.Prim
		return it, nil
	}
	var it Item
	var rel [3]int64 // new indices before range checking
	p := d.prev
	b0 := uint32(b[0])
	switch d.Format.Type {
	case Triangles:
		switch {
		case b0&3 != 3: // coding 0
			it = Item{Len: 1, Coding: 0}
			var e0, e1 uint32
			switch b0 & 3 {
			case 0:
				e0, e1 = p.Index[2], p.Index[1]
			case 1:
				e0, e1 = p.Index[0], p.Index[2]
			case 2:
				e0, e1 = p.Index[1], p.Index[0]
			}
			rel = [3]int64{int64(e0), int64(e1), int64(p.Index[2]) + signed(b0>>2, 6)}
		case b0&15 != 15: // coding 1
			if err := need(2); err != nil {
				return Item{}, err
			}
			w := b0 | uint32(b[1])<<8
			it = Item{Len: 2, Coding: 1, Aux: uint8(w >> 2 & 3)}
			for i := 0; i < 3; i++ {
				rel[i] = int64(p.Index[i]) + signed(w>>(4+4*uint(i))&15, 4)
			}
		default: // coding 2
			if err := need(2 + ib); err != nil {
				return Item{}, err
			}
			w := b0 | uint32(b[1])<<8
			i0 := abs(2)
			it = Item{Len: 2 + ib, Coding: 2}
			rel = [3]int64{int64(i0), int64(i0) + signed(w>>4&63, 6), int64(i0) + signed(w>>10&63, 6)}
		}
	case Lines:
		switch b0 & 3 {
		case 0, 1: // coding 0
			it = Item{Len: 1, Coding: 0}
			e0 := p.Index[1]
			if b0&3 == 1 {
				e0 = p.Index[0]
			}
			rel = [3]int64{int64(e0), int64(p.Index[1]) + signed(b0>>2, 6)}
		case 3: // coding 1
			if err := need(2); err != nil {
				return Item{}, err
			}
			w := b0 | uint32(b[1])<<8
			it = Item{Len: 2, Coding: 1, Aux: uint8(w >> 2 & 3)}
			rel = [3]int64{int64(p.Index[0]) + signed(w>>4&15, 4), int64(p.Index[1]) + signed(w>>8&15, 4)}
		case 2: // coding 2
			if err := need(1 + ib); err != nil {
				return Item{}, err
			}
			i0 := abs(1)
			it = Item{Len: 1 + ib, Coding: 2}
			rel = [3]int64{int64(i0), int64(i0) + signed(b0>>2, 6)}
		}
	case Points:
		switch b0 & 3 {
		case 0, 1: // coding 0
			it = Item{Len: 1, Coding: 0, Aux: uint8(b0 & 3)}
			rel = [3]int64{int64(p.Index[0]) + signed(b0>>2, 6)}
		case 3: // coding 1
			if err := need(2); err != nil {
				return Item{}, err
			}
			w := b0 | uint32(b[1])<<8
			it = Item{Len: 2, Coding: 1}
			rel = [3]int64{int64(p.Index[0]) + signed(w>>2, 14)}
		case 2:
			return Item{}, &Error{0, fmt.Sprintf("point coding 2 (run length, byte %#02x) is documented as not implemented (AG Table 41)", b0)}
		}
	}
	limit := int64(1) << d.Format.IndexBits
	n := d.Format.Type.Vertices()
	for i := 0; i < n; i++ {
		if rel[i] < 0 || rel[i] >= limit {
			return Item{}, &Error{0, fmt.Sprintf("%s coding %d gives index %d, outside %d-bit indices", d.Format.Type, it.Coding, rel[i], d.Format.IndexBits)}
		}
		it.Prim.Index[i] = uint32(rel[i])
	}
	it.Kind = Primitive
	d.prev = it.Prim
	return it, nil
}

// ListLen returns the length of the compressed list at the start of b, up
// to and including its escape code or its first branch (after which the
// bytes that follow in b are not part of the list). It decodes from the
// all-zero previous primitive.
func ListLen(b []byte, f Format) (int, error) {
	d := Decoder{Format: f}
	off := 0
	for {
		it, err := d.Next(b[off:])
		if err != nil {
			var pe *Error
			if errors.As(err, &pe) {
				pe.Offset += off
			}
			return off, err
		}
		off += it.Len
		if it.Kind != Primitive {
			return off, nil
		}
	}
}

// Encoder writes a compressed list, keeping the previous primitive.
type Encoder struct {
	// Format is the list's format.
	Format Format
	prev   Prim
}

// Reset forgets the previous primitive (all-zero indices).
func (e *Encoder) Reset() { e.prev = Prim{} }

// Append appends p in its shortest coding and returns the extended slice.
// It does not allocate when b has room for Format.MaxLen bytes.
func (e *Encoder) Append(b []byte, p Prim) ([]byte, error) {
	if err := e.checkPrim(p); err != nil {
		return b, err
	}
	for c := 0; c < 3; c++ {
		if out, ok := e.code(b, p, c); ok {
			e.prev = p
			return out, nil
		}
	}
	out, _ := e.code(b, p, 3)
	e.prev = p
	return out, nil
}

// AppendCoding appends p in the given coding (0–3), or fails if p cannot be
// expressed in it relative to the previous primitive.
func (e *Encoder) AppendCoding(b []byte, p Prim, coding int) ([]byte, error) {
	if err := e.checkPrim(p); err != nil {
		return b, err
	}
	if coding < 0 || coding > 3 {
		return b, fmt.Errorf("prim: no coding %d", coding)
	}
	out, ok := e.code(b, p, coding)
	if !ok {
		return b, fmt.Errorf("prim: %s %v cannot use coding %d after %v", e.Format.Type, p.Index[:e.Format.Type.Vertices()], coding, e.prev.Index[:e.Format.Type.Vertices()])
	}
	e.prev = p
	return out, nil
}

func (e *Encoder) checkPrim(p Prim) error {
	if err := e.Format.check(); err != nil {
		return err
	}
	n := e.Format.Type.Vertices()
	for i := 0; i < 3; i++ {
		if i >= n && p.Index[i] != 0 {
			return fmt.Errorf("prim: %s use %d indices, index %d is set", e.Format.Type, n, i)
		}
		if p.Index[i]>>e.Format.IndexBits != 0 {
			return fmt.Errorf("prim: index %d does not fit %d bits", p.Index[i], e.Format.IndexBits)
		}
	}
	return nil
}

func fits(d int64, lo, hi int64) bool { return d >= lo && d <= hi }

func (e *Encoder) appendAbs(b []byte, v uint32) []byte {
	b = append(b, byte(v), byte(v>>8))
	if e.Format.IndexBits == 24 {
		b = append(b, byte(v>>16))
	}
	return b
}

// code appends p in coding c if it can be expressed that way.
func (e *Encoder) code(b []byte, p Prim, c int) ([]byte, bool) {
	q := e.prev
	n, pv := p.Index, q.Index
	d := func(i, j int) int64 { return int64(n[i]) - int64(pv[j]) }
	in := func(i, j int) int64 { return int64(n[i]) - int64(n[j]) }
	if c == 3 {
		b = append(b, codeAbsolute)
		for i := 0; i < e.Format.Type.Vertices(); i++ {
			b = e.appendAbs(b, n[i])
		}
		return b, true
	}
	switch e.Format.Type {
	case Triangles:
		switch c {
		case 0:
			edges := [3][2]uint32{{pv[2], pv[1]}, {pv[0], pv[2]}, {pv[1], pv[0]}}
			for sel, edge := range edges {
				if n[0] == edge[0] && n[1] == edge[1] && fits(d(2, 2), -31, 31) {
					return append(b, byte(sel)|byte(d(2, 2))<<2), true
				}
			}
		case 1:
			if fits(d(0, 0), -8, 7) && fits(d(1, 1), -8, 7) && fits(d(2, 2), -8, 7) {
				return append(b, 3|byte(d(0, 0))<<4, byte(d(1, 1))&15|byte(d(2, 2))<<4), true
			}
		case 2:
			if fits(in(1, 0), -32, 31) && fits(in(2, 0), -32, 31) {
				w := uint16(15) | uint16(in(1, 0)&63)<<4 | uint16(in(2, 0)&63)<<10
				return e.appendAbs(append(b, byte(w), byte(w>>8)), n[0]), true
			}
		}
	case Lines:
		switch c {
		case 0:
			if fits(d(1, 1), -31, 31) {
				switch {
				case n[0] == pv[1]:
					return append(b, 0|byte(d(1, 1))<<2), true
				case n[0] == pv[0]:
					return append(b, 1|byte(d(1, 1))<<2), true
				}
			}
		case 1:
			if fits(d(0, 0), -8, 7) && fits(d(1, 1), -8, 7) {
				return append(b, 3|byte(d(0, 0))<<4, byte(d(1, 1))&15), true
			}
		case 2:
			if fits(in(1, 0), -31, 31) {
				return e.appendAbs(append(b, 2|byte(in(1, 0))<<2), n[0]), true
			}
		}
	case Points:
		switch c {
		case 0:
			if fits(d(0, 0), -31, 31) {
				return append(b, byte(d(0, 0))<<2), true
			}
		case 1:
			if fits(d(0, 0), -8192, 8191) {
				w := uint16(3) | uint16(d(0, 0)&0x3fff)<<2
				return append(b, byte(w), byte(w>>8)), true
			}
		}
	}
	return b, false
}

// AppendBranch appends a relative branch of blocks × 32 bytes (AG: range
// ±1 MiB, so −32768 ≤ blocks ≤ 32767).
func AppendBranch(b []byte, blocks int32) ([]byte, error) {
	if blocks < -32768 || blocks > 32767 {
		return b, fmt.Errorf("prim: branch of %d × 32 bytes is outside ±1 MiB", blocks)
	}
	return append(b, codeBranch, byte(blocks), byte(blocks>>8)), nil
}

// AppendEscape appends the escape code that ends a list.
func AppendEscape(b []byte) []byte { return append(b, codeEscape) }
