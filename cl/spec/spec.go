// Package spec is the one description of the VideoCore IV control-list
// packets and of the in-memory records the control lists point at (GL, NV
// and VG shader state records, attribute records, clipped-vertex records).
//
// Everything else reads this description: package cl's typed Pack/Unpack
// code is generated from it (go generate in package cl), the dumper in
// cl/dump decodes fields through it, the simulated kernel takes its
// bin-CL whitelist (Packet.KernelBin) and packet lengths from it, and the
// simulated GPU's renderer what each packet does to the rendering thread's
// control and to the tile (Packet.Render). No packet layout is written
// anywhere else.
//
// Conventions (as in Mesa's src/broadcom/cle/v3d_packet_v21.xml;
// doc/hardware.md#conventions): a packet is one opcode byte followed by a fixed number of
// payload bytes; Packet.Len counts the opcode byte. Field.Start counts bits
// from bit 0 of the first payload byte, little-endian, so a field at
// Start 8, Width 32 is the u32 in payload bytes 1–4. Record fields count from
// bit 0 of the record's first byte.
//
// Sources, cited per entry: the Broadcom VideoCore IV 3D Architecture
// Reference Guide (VideoCoreIV-AG100-R, "AG"), Table 38 for packets and
// Tables 44–47 for records; Linux drivers/gpu/drm/vc4/vc4_packet.h for ids
// and lengths; vc4_validate.c cmd_info[] for the kernel whitelist; Mesa's
// v3d_packet_v21.xml for names. Where the 2018 Mesa XML is wrong about the
// GL shader record (FS uniform count width, VS uniforms offset) the AG and
// the kernel are followed (doc/hardware.md#shader-records).
package spec

import "fmt"

// Opcode is a control-list packet id: the first byte of every packet.
type Opcode uint8

// List is a set of the control lists a packet may appear in.
type List uint8

// The kinds of control list.
const (
	// BinList is the binning control list (CLE thread 0), which user space
	// writes and the kernel validates. AG Table 38 marks bin-only packets (B).
	BinList List = 1 << iota
	// RenderList is the rendering control list (CLE thread 1), which the
	// kernel generates. AG Table 38 marks render-only packets (R).
	RenderList
	// TileList is a per-tile list the binner (PTB) writes into tile
	// allocation memory and the render list calls as a sub-list. Which
	// packets the PTB copies there is only partly documented (AG §8, §9;
	// doc/hardware.md#binning): state records, shader state, primitive list format,
	// compressed primitives, branches and the final return.
	TileList
)

// String names the lists in l, e.g. "bin|render".
func (l List) String() string {
	s := ""
	add := func(bit List, name string) {
		if l&bit != 0 {
			if s != "" {
				s += "|"
			}
			s += name
		}
	}
	add(BinList, "bin")
	add(RenderList, "render")
	add(TileList, "tile")
	if s == "" {
		s = "none"
	}
	return s
}

// Kind says how a field's bits are interpreted.
type Kind uint8

// Field kinds.
const (
	// Uint is an unsigned integer.
	Uint Kind = iota
	// Int is a two's-complement signed integer.
	Int
	// Bool is a one-bit flag.
	Bool
	// Float is an IEEE-754 binary32 value (Width 32).
	Float
	// Float187 is the top 16 bits of a binary32 (sign, 8-bit exponent,
	// 7-bit mantissa), AG Table 38 id 101 "float1-8-7". Encoding truncates
	// the low 16 bits of the float, as Mesa's vc4_state.c float_to_187_half
	// does (fui(x) >> 16) for DEPTH_OFFSET.
	Float187
	// Subpixel is a signed 12.4 fixed-point pixel coordinate (Width 16):
	// the integer counts sixteenths of a pixel (Mesa XML type "s12.4";
	// doc/hardware.md#viewport).
	Subpixel
	// Address is a bus address. The field stores Address >> Field.Shift;
	// the low Shift bits of the address are zero by definition (alignment).
	Address
	// Enumerated is an unsigned integer whose values are named by Field.Enum.
	Enumerated
)

var kindNames = [...]string{"uint", "int", "bool", "float", "float1-8-7", "s12.4", "address", "enum"}

// String returns the kind's name.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// EnumValue names one value of an enumerated field.
type EnumValue struct {
	// Value is the encoded number.
	Value uint32
	// Name is the value's name in snake case ("less_equal"); Go constants
	// are the enum's Go name followed by the camel-case form of Name.
	Name string
	// Doc describes the value; may be empty.
	Doc string
}

// Enum describes an enumerated field type shared by one or more fields.
type Enum struct {
	// GoName is the Go type name generated for it in package cl.
	GoName string
	// Doc describes the enum and cites its source.
	Doc string
	// Values are the named values; other values are reserved.
	Values []EnumValue
}

// NameOf returns the name of v and whether v is a named value.
func (e *Enum) NameOf(v uint32) (string, bool) {
	for i := range e.Values {
		if e.Values[i].Value == v {
			return e.Values[i].Name, true
		}
	}
	return "", false
}

// Field describes one bit field of a packet payload or a record.
type Field struct {
	// Name is the field's snake-case name ("tile_alloc_address"). The
	// dumper prints it; the Go field name is its camel-case form.
	Name string
	// Start is the first bit, counted from bit 0 of the payload (packets)
	// or of the record (records), little-endian.
	Start uint
	// Width is the number of bits.
	Width uint
	// Kind says how the bits are read.
	Kind Kind
	// Shift is, for Address fields, how many low address bits are implied
	// zero: the field holds Address >> Shift (e.g. 4 for a 16-byte aligned
	// address stored in bits 31:4 of a word whose low bits are flags).
	Shift uint
	// Align is, for Address fields stored whole (Shift 0), the alignment
	// the hardware requires; 0 or 1 means none. Check reports violations.
	Align uint32
	// Enum names the values of an Enumerated field.
	Enum *Enum
	// Hex asks the dumper to print a Uint field in hexadecimal (masks,
	// colours, raw depth values).
	Hex bool
	// Doc describes the field; it becomes the Go field's comment.
	Doc string
}

// Mask returns the mask of Width low bits.
func (f *Field) Mask() uint64 {
	if f.Width >= 64 {
		return ^uint64(0)
	}
	return 1<<f.Width - 1
}

// Raw returns the field's bits from b (a payload or a record). It returns
// 0 if b is too short to hold the field.
func (f *Field) Raw(b []byte) uint64 {
	if (f.Start+f.Width+7)/8 > uint(len(b)) {
		return 0
	}
	return GetBits(b, f.Start, f.Width)
}

// Inline says what, if anything, follows a packet's fixed part in the list.
type Inline uint8

// Inline data kinds.
const (
	// NoInline: the packet is exactly Len bytes.
	NoInline Inline = iota
	// CompressedList: an escape-terminated compressed primitive list
	// follows inline (AG Tables 39–43; decoded by package cl/prim).
	CompressedList
	// VGCoordinates: an escape-terminated list of 32-bit (x, y) coordinates
	// follows inline, ended by the word 0xbfff0000 (AG §9 "VG Inline
	// Primitives").
	VGCoordinates
)

// Packet describes one control-list packet.
type Packet struct {
	// Op is the opcode byte.
	Op Opcode
	// Name is the packet's name as the kernel's vc4_packet.h spells it
	// without the VC4_PACKET_ prefix ("TILE_BINNING_MODE_CONFIG"). The Go
	// type generated for it is the camel-case form.
	Name string
	// Len is the packet's fixed length in bytes, opcode included
	// (vc4_packet.h *_SIZE). Packets with inline data are longer.
	Len int
	// Lists says where the packet may appear.
	Lists List
	// KernelBin is true when the Linux kernel accepts the packet in a
	// user-space bin CL (an entry in vc4_validate.c cmd_info[]).
	KernelBin bool
	// Pseudo is true for packets that are not hardware packets (the
	// kernel's GEM_HANDLES): the kernel consumes them and never hands them
	// to the GPU.
	Pseudo bool
	// Inline says what follows the fixed part.
	Inline Inline
	// Render is what the packet does when the rendering thread executes
	// it; zero for the packets that are in neither the render list nor a
	// tile list.
	Render Effect
	// Fields lays out the payload, in increasing Start order.
	Fields []Field
	// Doc describes the packet.
	Doc string
	// Source names where the layout comes from.
	Source string
}

// Field returns the field called name, or nil.
func (p *Packet) Field(name string) *Field {
	for i := range p.Fields {
		if p.Fields[i].Name == name {
			return &p.Fields[i]
		}
	}
	return nil
}

// Struct describes a fixed-size in-memory record that a packet points at.
type Struct struct {
	// Name is the record's snake-case name ("gl_shader_record"); the Go
	// type is its camel-case form.
	Name string
	// Len is the record's size in bytes.
	Len int
	// Fields lays out the record, in increasing Start order.
	Fields []Field
	// Doc describes the record.
	Doc string
	// Source names where the layout comes from.
	Source string
}

// Field returns the field called name, or nil.
func (s *Struct) Field(name string) *Field {
	for i := range s.Fields {
		if s.Fields[i].Name == name {
			return &s.Fields[i]
		}
	}
	return nil
}

var byOp [256]*Packet

func init() {
	for i := range Packets {
		p := &Packets[i]
		if byOp[p.Op] != nil {
			panic(fmt.Sprintf("spec: opcode %d described twice", p.Op))
		}
		byOp[p.Op] = p
	}
}

// Lookup returns the description of op, or nil if op is not a packet
// (reserved ids; AG Table 38).
func Lookup(op Opcode) *Packet { return byOp[op] }

// String returns the packet name for op, or "packet N" for an unknown id.
func (op Opcode) String() string {
	if p := byOp[op]; p != nil {
		return p.Name
	}
	return fmt.Sprintf("packet %d", uint8(op))
}

// GetBits returns width bits (width ≤ 64) of b starting at bit start,
// little-endian. b must hold them: (start+width+7)/8 ≤ len(b).
func GetBits(b []byte, start, width uint) uint64 {
	var v uint64
	for done := uint(0); done < width; {
		bit := start + done
		byteIdx, off := bit/8, bit%8
		n := 8 - off
		if n > width-done {
			n = width - done
		}
		chunk := uint64(b[byteIdx]>>off) & (1<<n - 1)
		v |= chunk << done
		done += n
	}
	return v
}

// PutBits stores the low width bits of v (width ≤ 64) into b at bit start,
// little-endian, leaving the other bits of b unchanged.
func PutBits(b []byte, start, width uint, v uint64) {
	for done := uint(0); done < width; {
		bit := start + done
		byteIdx, off := bit/8, bit%8
		n := 8 - off
		if n > width-done {
			n = width - done
		}
		mask := byte((1<<n - 1) << off)
		b[byteIdx] = b[byteIdx]&^mask | byte(v>>done<<off)&mask
		done += n
	}
}
