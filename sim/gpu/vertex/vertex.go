// Package vertex is the VideoCore IV's vertex pipeline up to the PTB and
// PSE: it decodes the current shader state (GL or NV), and for a list of
// vertex indices produces shaded vertices — in GL mode by fetching the
// attributes into the VPM (the VCD) and running the coordinate or vertex
// shader on a QPU in batches of up to 16, in NV mode by reading the
// pre-shaded vertices from memory ([AG] §8 "System Pipelines and Modes";
// doc/hardware.md#pipeline-modes).
//
// The binner (PTB) asks for Coords: the shaded coordinates of [AG] Figure
// 11 (Xc, Yc, Zc, Wc, Xs|Ys, Zs, 1/Wc, optional point size). The renderer
// (PSE) asks for Vertices: [AG] Figure 10 (Xs|Ys, Zs, 1/Wc, optional point
// size, then the varyings the fragment shader reads). Vertex shading
// happens twice, once for binning and once per tile that uses the vertex,
// as on the hardware (doc/hardware.md#pipeline-modes).
package vertex

import (
	"encoding/binary"
	"fmt"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/spec"
	"github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/sim/mem"
)

// Kind is the pipeline mode a shader state packet selects.
type Kind uint8

// Modes ([AG] §8: GL, NV and VG).
const (
	None Kind = iota
	GL
	NV
)

// State is the current shader state: the record a GL_SHADER_STATE or
// NV_SHADER_STATE packet points at, decoded.
type State struct {
	// Kind says which record the state holds (None before any packet).
	Kind Kind
	// Addr is the record's address.
	Addr uint32
	// GL is the decoded GL shader record with its attribute records
	// (Kind GL).
	GL GLRecord
	// NV is the decoded NV shader record (Kind NV).
	NV cl.NVShaderRecord
}

// DecodeState reads the record a GL_SHADER_STATE or NV_SHADER_STATE
// packet points at.
func DecodeState(v *mem.View, pkt []byte) (State, error) {
	switch spec.Opcode(pkt[0]) {
	case spec.OpGLShaderState:
		var p cl.GLShaderState
		if err := p.Unpack(pkt); err != nil {
			return State{}, err
		}
		g := GLRecord{NumAttributes: spec.GLAttributeCount(p.NumAttributeArrays), Extended: p.Extended}
		n := spec.GLShaderRecordLen(g.NumAttributes, g.Extended)
		b, err := v.Read(p.Address, uint32(n), "GL shader record fetch")
		if err != nil {
			return State{}, err
		}
		if err := g.decode(b); err != nil {
			return State{}, err
		}
		return State{Kind: GL, Addr: p.Address, GL: g}, nil
	case spec.OpNVShaderState:
		var p cl.NVShaderState
		if err := p.Unpack(pkt); err != nil {
			return State{}, err
		}
		b, err := v.Read(p.Address, cl.NVShaderRecordLen, "NV shader record fetch")
		if err != nil {
			return State{}, err
		}
		var r cl.NVShaderRecord
		if err := r.Unpack(b); err != nil {
			return State{}, err
		}
		return State{Kind: NV, Addr: p.Address, NV: r}, nil
	}
	return State{}, fmt.Errorf("vertex: packet %v is not a shader state this model runs (VG mode is not modelled)", spec.Opcode(pkt[0]))
}

// GLRecord is a GL shader state record as the VCD reads it: the fixed
// part, the attribute records and, in the extended form, the stride words
// ([AG] Table 45; the layout is cl/spec's GLShaderRecord and
// AttributeRecord).
type GLRecord struct {
	// Record is the fixed part (bytes 0–35).
	Record cl.GLShaderRecord
	// NumAttributes is the number of attribute arrays, 1..8, from the
	// GL_SHADER_STATE word (spec.GLAttributeCount).
	NumAttributes int
	// Attributes are the attribute records; only the first NumAttributes
	// are read.
	Attributes [spec.GLAttributeSlots]cl.AttributeRecord
	// Extended is the GL_SHADER_STATE word's extended-record bit.
	Extended bool
	// ExtendedStrides are the extended form's stride words, one per
	// attribute array.
	ExtendedStrides [spec.GLAttributeSlots]uint32
}

// decode reads the record from b, which holds the record's
// spec.GLShaderRecordLen bytes for g's count and form.
func (g *GLRecord) decode(b []byte) error {
	if err := g.Record.Unpack(b); err != nil {
		return err
	}
	for i := 0; i < g.NumAttributes; i++ {
		if err := g.Attributes[i].Unpack(b[spec.GLAttributeOffset(i):]); err != nil {
			return err
		}
	}
	if g.Extended {
		for i := 0; i < g.NumAttributes; i++ {
			g.ExtendedStrides[i] = binary.LittleEndian.Uint32(b[spec.ExtendedGLShaderRecordBase+spec.ExtendedStrideLen*i:])
		}
	}
	return nil
}

// Stride returns attribute array n's stride as the VCD fetches with it.
// [AG] Table 45 gives each attribute record a stride byte and the extended
// record a stride word per array, and Table 38 (id 64) says extended
// strides are spec.ExtendedStrideBits wide, but not how the word and the
// byte combine. The model takes bits 7:0 from the byte and bits 31:8 from
// the word, as the kernel does for its bounds check (vc4_validate.c
// validate_gl_shader_rec), and keeps the field's 26 bits; no peer shows
// what the hardware does with the word's upper bits (Mesa never sends
// extended records), and dropping them is what a 26-bit field does. A
// normal record's stride is its byte.
func (g *GLRecord) Stride(n int) uint32 {
	s := uint32(g.Attributes[n].Stride)
	if g.Extended {
		s |= g.ExtendedStrides[n] &^ 0xFF
	}
	return s & (1<<spec.ExtendedStrideBits - 1)
}

// PointSizeIncluded reports whether shaded vertices carry a point size.
func (s *State) PointSizeIncluded() bool {
	if s.Kind == NV {
		return s.NV.PointSizeIncluded
	}
	return s.GL.Record.PointSizeIncluded
}

// ClippingEnabled reports the record's "enable clipping" flag.
func (s *State) ClippingEnabled() bool {
	if s.Kind == NV {
		return s.NV.EnableClipping
	}
	return s.GL.Record.EnableClipping
}

// NumVaryings is the number of varying components the fragment shader
// reads (the record's FS number of varyings).
func (s *State) NumVaryings() int {
	if s.Kind == NV {
		return int(s.NV.FSNumVaryings)
	}
	return int(s.GL.Record.FSNumVaryings)
}

// FS returns the fragment shader's code and uniforms addresses and whether
// it is single-threaded.
func (s *State) FS() (code, uniforms uint32, single bool) {
	if s.Kind == NV {
		return s.NV.FSCodeAddress, s.NV.FSUniformsAddress, s.NV.FSSingleThreaded
	}
	r := &s.GL.Record
	return r.FSCodeAddress, r.FSUniformsAddress, r.FSSingleThreaded
}

// Coord is a shaded vertex as the binner reads it ([AG] Figure 11).
type Coord struct {
	// Clip is Xc, Yc, Zc, Wc; HasClip is false for NV vertices stored
	// without the clip header, which cannot be clipped.
	Clip    [4]float32
	HasClip bool
	// X and Y are Xs and Ys: 12.4 fixed point, relative to the viewport
	// centre.
	X, Y int16
	// Z is Zs, InvW is 1/Wc.
	Z, InvW float32
	// PointSize is the shaded point size, or 0 when the format has none.
	PointSize float32
}

// Shaded holds vertices as the PSE reads them ([AG] Figure 10), struct of
// arrays: vertex k's varyings are Vary[k*NVary : (k+1)*NVary].
type Shaded struct {
	// N is the number of vertices.
	N int
	// X and Y are each vertex's Xs and Ys (12.4 fixed point, relative to
	// the viewport centre), Z its Zs, InvW its 1/Wc and PointSize its
	// point size (0 when the format has none).
	X, Y      []int16
	Z, InvW   []float32
	PointSize []float32
	// NVary is the number of varying components per vertex, and Vary
	// holds them, vertex after vertex.
	NVary int
	Vary  []float32
}

// Reset makes s hold n vertices with nvary varyings each, reusing its
// storage.
func (s *Shaded) Reset(n, nvary int) {
	s.N, s.NVary = n, nvary
	s.X = grow(s.X, n)
	s.Y = grow(s.Y, n)
	s.Z = grow(s.Z, n)
	s.InvW = grow(s.InvW, n)
	s.PointSize = grow(s.PointSize, n)
	s.Vary = grow(s.Vary, n*nvary)
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/2)
	}
	return s[:n]
}

// words reads n 32-bit words at addr.
func words(v *mem.View, addr uint32, dst []uint32, what string) error {
	b, err := v.Read(addr, uint32(4*len(dst)), what)
	if err != nil {
		return err
	}
	for i := range dst {
		dst[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return nil
}

// nvFormat is the format of an NV record's shaded vertices ([AG] Figure
// 12) with nvary varyings.
func nvFormat(r *cl.NVShaderRecord, nvary int) qpu.ShadedFormat {
	return qpu.ShadedFormat{ClipHeader: r.ClipHeaderIncluded, PointSize: r.PointSizeIncluded, Varyings: nvary}
}

// nvWords reads the words of NV-mode vertex index in format f into
// scratch.
func nvWords(v *mem.View, r *cl.NVShaderRecord, f qpu.ShadedFormat, index uint32, scratch []uint32) ([]uint32, error) {
	w := scratch[:f.Words()]
	addr := r.VertexDataAddress + index*uint32(r.Stride)
	return w, words(v, addr, w, "NV vertex fetch")
}

// NVCoords reads NV-mode vertices for the binner: out[i] is vertex idx[i]
// of the record's shaded vertex data ([AG] Table 46, Figure 12).
func NVCoords(v *mem.View, st *State, idx []uint32, out []Coord) error {
	if st.Kind != NV {
		return fmt.Errorf("vertex: NVCoords on a %v shader state", st.Kind)
	}
	f := nvFormat(&st.NV, 0)
	var scratch [qpu.ShadedClipWords + qpu.ShadedScreenWords + 1]uint32 // + point size
	for i, index := range idx {
		w, err := nvWords(v, &st.NV, f, index, scratch[:])
		if err != nil {
			return err
		}
		DecodeCoord(f, w, &out[i])
	}
	return nil
}

// NVVertices reads NV-mode vertices for the renderer into out, which must
// have been Reset for len(idx) vertices and the state's varyings.
func NVVertices(v *mem.View, st *State, idx []uint32, out *Shaded) error {
	if st.Kind != NV {
		return fmt.Errorf("vertex: NVVertices on a %v shader state", st.Kind)
	}
	f := nvFormat(&st.NV, out.NVary)
	var scratch [qpu.ShadedClipWords + qpu.ShadedScreenWords + 1 + 256]uint32 // + point size and up to 255 varyings
	for k, index := range idx {
		w, err := nvWords(v, &st.NV, f, index, scratch[:])
		if err != nil {
			return err
		}
		DecodeVertex(f, w, out, k)
	}
	return nil
}

// String names the mode ("GL", "NV", or "no" for None).
func (k Kind) String() string {
	switch k {
	case GL:
		return "GL"
	case NV:
		return "NV"
	}
	return "no"
}

// Append adds src's vertices after s's; both must have the same number
// of varyings (s may be empty).
func (s *Shaded) Append(src *Shaded) {
	if s.N == 0 {
		s.NVary = src.NVary
	}
	s.X = append(s.X[:s.N], src.X[:src.N]...)
	s.Y = append(s.Y[:s.N], src.Y[:src.N]...)
	s.Z = append(s.Z[:s.N], src.Z[:src.N]...)
	s.InvW = append(s.InvW[:s.N], src.InvW[:src.N]...)
	s.PointSize = append(s.PointSize[:s.N], src.PointSize[:src.N]...)
	s.Vary = append(s.Vary[:s.N*s.NVary], src.Vary[:src.N*src.NVary]...)
	s.N += src.N
}
