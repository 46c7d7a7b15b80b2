// Package shaderrec builds and parses GL shader state records: the fixed
// part, its attribute records and the extended strides (AG Table 45), in
// the hardware's form and in the form user space hands the Linux kernel in
// DRM_IOCTL_VC4_SUBMIT_CL's shader_rec stream, where each record is preceded
// by the bo_handles indices of its shaders and attribute arrays
// (vc4_validate.c validate_gl_shader_rec; doc/kernel.md#shader-records).
//
// The layouts themselves live in cl/spec (GLShaderRecord, AttributeRecord);
// this package only composes them. NV and VG records are fixed-size and
// need no composition: use cl.NVShaderRecord and cl.VGShaderRecord.
package shaderrec

import (
	"encoding/binary"
	"fmt"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/spec"
	"github.com/vccube/vccube/uapi"
)

// GL is a complete GL shader state record.
type GL struct {
	// Record is the fixed part (bytes 0–35).
	Record cl.GLShaderRecord
	// NumAttributes is the number of attribute arrays, 1..8; it is what
	// GL_SHADER_STATE's num_attribute_arrays encodes (8 as 0).
	NumAttributes int
	// Attributes are the attribute records; entries from NumAttributes on
	// are written as zeros in the extended form and not at all otherwise.
	Attributes [spec.GLAttributeSlots]cl.AttributeRecord
	// Extended selects the extended record with 26-bit strides.
	Extended bool
	// ExtendedStrides are the extended form's stride words at 100 + 4n,
	// whose bits 31:8 extend the attribute records' stride bytes
	// (vc4_validate.c validate_gl_shader_rec).
	ExtendedStrides [spec.GLAttributeSlots]uint32
}

// Relocs are the bo_handles indices in front of a record in the kernel's
// shader_rec stream: the FS, VS and CS shader BOs, then one BO per
// attribute array (doc/kernel.md#shader-records).
type Relocs struct {
	// FS, VS and CS index the shader BOs (made with CREATE_SHADER_BO).
	FS, VS, CS uint32
	// Attributes index each attribute array's BO; the record's attribute
	// address is a byte offset into it.
	Attributes [spec.GLAttributeSlots]uint32
}

// Count returns the number of attribute arrays a GL_SHADER_STATE packet
// declares (spec.GLAttributeCount: num_attribute_arrays, 0 meaning 8).
func Count(s cl.GLShaderState) int { return spec.GLAttributeCount(s.NumAttributeArrays) }

// Len returns the record's size in bytes: 36 + 8n, or 100 + 4n extended.
func (g *GL) Len() int { return spec.GLShaderRecordLen(g.NumAttributes, g.Extended) }

// RelocsLen returns the size of the bo_handles indices in front of a
// record with n attribute arrays in the kernel's shader_rec stream: a u32
// for each of uapi.GLShaderRecRelocs(n). n is the GL_SHADER_STATE count
// (Count), even for an extended record.
func RelocsLen(n int) int { return 4 * uapi.GLShaderRecRelocs(n) }

// KernelLen returns the size of the record in the kernel's stream: its
// 3 + n indices and the record.
func (g *GL) KernelLen() int { return RelocsLen(g.NumAttributes) + g.Len() }

// State returns the GL_SHADER_STATE packet user space sends for this
// record: the count and the extended bit, address 0 (the kernel fills it).
func (g *GL) State() cl.GLShaderState {
	return cl.GLShaderState{NumAttributeArrays: uint8(g.NumAttributes & 7), Extended: g.Extended}
}

// Check reports a field that cannot be encoded or an attribute count
// outside 1..8.
func (g *GL) Check() error {
	if g.NumAttributes < 1 || g.NumAttributes > spec.GLAttributeSlots {
		return fmt.Errorf("shaderrec: %d attribute arrays; a GL shader record has 1 to 8 (the count field cannot say 0, and Mesa always sends one)", g.NumAttributes)
	}
	if err := g.Record.Check(); err != nil {
		return err
	}
	for i := 0; i < g.NumAttributes; i++ {
		if err := g.Attributes[i].Check(); err != nil {
			return fmt.Errorf("attribute %d: %w", i, err)
		}
	}
	return nil
}

// CheckKernel adds the kernel's rules for a record in the shader_rec
// stream: code addresses must be 0, since each shader must start at offset
// 0 of its shader BO (vc4_validate.c validate_gl_shader_rec: "Shaders must
// be at offset 0").
func (g *GL) CheckKernel() error {
	if err := g.Check(); err != nil {
		return err
	}
	r := &g.Record
	if r.FSCodeAddress != 0 || r.VSCodeAddress != 0 || r.CSCodeAddress != 0 {
		return fmt.Errorf("shaderrec: code addresses FS %#x VS %#x CS %#x must be 0: the kernel wants each shader at offset 0 of its own shader BO and writes the address itself",
			r.FSCodeAddress, r.VSCodeAddress, r.CSCodeAddress)
	}
	return nil
}

// Append appends the record in hardware form and returns the extended
// slice; it does not allocate when b has room.
func (g *GL) Append(b []byte) []byte {
	b = g.Record.Append(b)
	slots := g.NumAttributes
	if g.Extended {
		slots = spec.GLAttributeSlots
	}
	for i := 0; i < slots; i++ {
		if i < g.NumAttributes {
			b = g.Attributes[i].Append(b)
		} else {
			b = cl.AttributeRecord{}.Append(b)
		}
	}
	if g.Extended {
		for i := 0; i < g.NumAttributes; i++ {
			b = binary.LittleEndian.AppendUint32(b, g.ExtendedStrides[i])
		}
	}
	return b
}

// AppendKernel appends the record in the kernel's shader_rec form: the
// FS, VS, CS and per-attribute BO indices (u32 each), then the record.
func (g *GL) AppendKernel(b []byte, r *Relocs) []byte {
	b = binary.LittleEndian.AppendUint32(b, r.FS)
	b = binary.LittleEndian.AppendUint32(b, r.VS)
	b = binary.LittleEndian.AppendUint32(b, r.CS)
	for i := 0; i < g.NumAttributes; i++ {
		b = binary.LittleEndian.AppendUint32(b, r.Attributes[i])
	}
	return g.Append(b)
}

// Error reports a record that cannot be parsed.
type Error struct {
	// Offset is where the problem is, in the bytes given.
	Offset int
	// Msg says what is wrong.
	Msg string
}

// Error formats the problem with its offset.
func (e *Error) Error() string { return fmt.Sprintf("shaderrec: at +%d: %s", e.Offset, e.Msg) }

// Decode parses a hardware-form record with the format a GL_SHADER_STATE
// packet gives, and returns it with its length.
func Decode(b []byte, state cl.GLShaderState) (GL, int, error) {
	g := GL{NumAttributes: Count(state), Extended: state.Extended}
	n := g.Len()
	if len(b) < n {
		return GL{}, 0, &Error{0, fmt.Sprintf("a GL shader record with %d attribute arrays (extended %v) needs %d bytes, only %d left", g.NumAttributes, g.Extended, n, len(b))}
	}
	if err := g.Record.Unpack(b); err != nil {
		return GL{}, 0, err
	}
	for i := 0; i < g.NumAttributes; i++ {
		if err := g.Attributes[i].Unpack(b[spec.GLAttributeOffset(i):]); err != nil {
			return GL{}, 0, err
		}
	}
	if g.Extended {
		for i := 0; i < g.NumAttributes; i++ {
			g.ExtendedStrides[i] = binary.LittleEndian.Uint32(b[spec.ExtendedGLShaderRecordBase+spec.ExtendedStrideLen*i:])
		}
	}
	return g, n, nil
}

// DecodeKernel parses one record of the kernel's shader_rec stream (indices
// then record) and returns it with its total length.
func DecodeKernel(b []byte, state cl.GLShaderState) (Relocs, GL, int, error) {
	var r Relocs
	n := Count(state)
	idx := RelocsLen(n)
	if len(b) < idx {
		return r, GL{}, 0, &Error{0, fmt.Sprintf("%d relocation indices need %d bytes, only %d left", 3+n, idx, len(b))}
	}
	r.FS = binary.LittleEndian.Uint32(b)
	r.VS = binary.LittleEndian.Uint32(b[4:])
	r.CS = binary.LittleEndian.Uint32(b[8:])
	for i := 0; i < n; i++ {
		r.Attributes[i] = binary.LittleEndian.Uint32(b[12+4*i:])
	}
	g, m, err := Decode(b[idx:], state)
	if err != nil {
		if e, ok := err.(*Error); ok {
			e.Offset += idx
		}
		return r, GL{}, 0, err
	}
	return r, g, idx + m, nil
}

// Stream is the shader_rec buffer of a submit: records in kernel form, one
// per GL_SHADER_STATE packet of the bin CL and in the same order. Reset it
// each frame; its buffer is reused, so building allocates nothing once it
// has grown.
type Stream struct {
	buf   []byte
	count int
}

// Reset empties the stream, keeping its buffer.
func (s *Stream) Reset() { s.buf, s.count = s.buf[:0], 0 }

// Add appends a record with its relocations after checking the kernel's
// rules (CheckKernel).
func (s *Stream) Add(g *GL, r *Relocs) error {
	if err := g.CheckKernel(); err != nil {
		return fmt.Errorf("shader record %d: %w", s.count, err)
	}
	s.buf = g.AppendKernel(s.buf, r)
	s.count++
	return nil
}

// AddNV appends an NV shader record in the form the pre-upstream kernel
// validator took it: two u32 BO indices (the fragment shader's BO, then the
// pre-shaded vertex data's BO) followed by the 16-byte record whose code and
// vertex addresses are offsets in those BOs (doc/kernel.md#nv-records; Mesa's
// 2015 in-tree vc4_validate.c validate_nv_shader_state). Today's kernel
// refuses NV_SHADER_STATE (packet 65) in the bin CL before it reads any
// record, so this exists to show that refusal and to feed the simulated
// GPU, which has NV mode as the hardware does.
func (s *Stream) AddNV(rec *cl.NVShaderRecord, fsIndex, vertexIndex uint32) {
	s.buf = binary.LittleEndian.AppendUint32(s.buf, fsIndex)
	s.buf = binary.LittleEndian.AppendUint32(s.buf, vertexIndex)
	s.buf = rec.Append(s.buf)
	s.count++
}

// AppendRaw appends bytes as they are, for tests that hand the kernel a
// broken stream. It does not count a record.
func (s *Stream) AppendRaw(b []byte) { s.buf = append(s.buf, b...) }

// Bytes returns the stream; it is valid until the next Reset or Add.
func (s *Stream) Bytes() []byte { return s.buf }

// Count returns the number of records added (the submit's
// shader_rec_count).
func (s *Stream) Count() int { return s.count }
