// Package shaders holds the cube's three QPU programs — the coordinate
// shader (CS, binning pass), the vertex shader (VS, render pass) and the
// fragment shader (FS) of one GL shader state record — written with the
// shaders/qpu assembler, and the interface other packages program against:
// code words, attribute arrays and their VPM layout, the ordered uniforms of
// each program (which are texture P0/P1), texture-sample and varying counts,
// and functions that fill the uniform values without allocating.
//
// The kernel accepts 3D work only with GL shader state (vc4_validate.c
// cmd_info[]; doc/kernel.md#bin-cl), so all three programs are needed; each
// goes at offset 0 of its own shader BO (DRM_IOCTL_VC4_CREATE_SHADER_BO),
// where the kernel validates it (vc4_validate_shaders.c). The FS is
// single-threaded: shader record flag bit 0 must be 1 (vc4_validate.c
// validate_gl_shader_rec; doc/kernel.md#threads).
//
// Design (with the lead): two attribute arrays, position (x, y, z) for both
// VS and CS and texture coordinate (s, t) for the VS only; the MVP matrix,
// the viewport scales and the depth mapping are VS/CS uniforms; the light
// is per face, computed on the CPU, and reaches the FS as uniforms, so the
// renderer issues one draw (one shader record, its own uniform blocks) per
// face. ModelVertex models the VS's output words in Go (the NV pipeline
// shades vertices with it); internal/shadermodel models the other programs
// for the tests, which compare the programs and the GPU model with them.
package shaders

import (
	"strconv"

	"github.com/vccube/vccube/shaders/hazard"
	"github.com/vccube/vccube/shaders/qpu"
)

// UniformKind says what a uniform slot holds.
type UniformKind uint8

// Uniform kinds. Texture parameters are consumed implicitly by TMU writes
// (AG §4 "Texture and Memory Lookup Unit Setup"); the kernel relocates each
// sample's P0 (it adds the texture BO's address to the offset the slot
// holds, doc/kernel.md#texture-relocation) and expects one texture BO index
// per sample at the head of the block.
const (
	UniformValue UniformKind = iota // a value the program reads (UNIFORM_READ)
	UniformTexP0                    // texture config parameter 0 of a sample
	UniformTexP1                    // texture config parameter 1 of a sample
)

// Uniform describes one slot of a program's uniform stream, in the order
// the program consumes them.
type Uniform struct {
	Name    string      // short identifier, e.g. "mvp[5]", "half_width16", "tex0.p0"
	Meaning string      // what to put there
	Kind    UniformKind // value or texture parameter
	Sample  int         // for texture parameters: the sample (order of TMUn_S writes)
}

// Attribute describes one attribute array the VS (and maybe the CS) reads.
// The renderer puts these numbers in the shader record's attribute record
// (AG Table 45: bytes − 1, stride, VS VPM offset, CS VPM offset).
type Attribute struct {
	Name        string // "position" or "texcoord"
	Components  int    // float32 components per vertex
	Bytes       int    // bytes per vertex (the record stores Bytes − 1)
	VSVPMOffset uint8  // byte offset of the attribute in the VS's VPM vertex data
	CSVPMOffset uint8  // byte offset in the CS's VPM vertex data (when InCS)
	InCS        bool   // selected for the CS as well as the VS
}

// Attribute arrays, in shader-record order (array n = bit n of the select
// bits). Positions are object space; texture coordinates follow the GL
// convention, t = 0 at the bottom of the picture (math/scene Vertex.S/T).
var Attributes = [2]Attribute{
	{Name: "position", Components: 3, Bytes: 12, VSVPMOffset: 0, CSVPMOffset: 0, InCS: true},
	{Name: "texcoord", Components: 2, Bytes: 8, VSVPMOffset: 12},
}

// Program is one of the cube's shaders with everything a shader record,
// a uniform stream and the kernel's validator need to agree on.
type Program struct {
	Name  string
	Stage hazard.Stage
	// Code is the program, one 64-bit instruction per element; write it
	// with qpu.Bytes to a shader BO at offset 0.
	Code []uint64
	// Uniforms is the uniform stream the program consumes, in order:
	// what the kernel's validator counts (doc/kernel.md#uniform-counting,
	// doc/kernel.md#tmu-rules). In a
	// SUBMIT_CL uniform block it follows TextureSamples texture BO
	// indices.
	Uniforms []Uniform
	// TextureSamples is the number of texture samples (TMUn_S writes).
	TextureSamples int
	// Threaded is false for all three: the FS record needs flag bit 0 = 1.
	Threaded bool
	// Varyings is the number of varying components the FS reads, for the
	// record's FS varyings byte (and the number the VS writes after 1/Wc).
	Varyings int
	// AttributeSelect and AttributeSize are the VS/CS record fields (AG
	// Table 45): which arrays are loaded and the VPM bytes per vertex.
	AttributeSelect uint8
	AttributeSize   uint8
	// VPMReads is the number of 32-bit words the VS/CS reads per vertex
	// (all of AttributeSize).
	VPMReads int
	// Output is the shaded vertex format the VS or CS writes to the VPM
	// (qpu.VertexFormat or qpu.CoordinateFormat; AG Figures 10-12); zero
	// for the FS. Outputs names its words in order, the varyings by what
	// they carry.
	Output  qpu.ShadedFormat
	Outputs []string
}

// Uniform slot numbers of the VS and CS (both read the same stream).
const (
	VertexUniformMVP     = 0  // 16 slots: the MVP matrix, column-major (mgl32.Mat4 order)
	VertexUniformXScale  = 16 // viewport X scale, width/2 · 16 (1/16 pixel)
	VertexUniformYScale  = 17 // viewport Y scale, −height/2 · 16
	VertexUniformZScale  = 18 // depth scale (0.5 for GL's default range)
	VertexUniformZOffset = 19 // depth offset (0.5)
	NumVertexUniforms    = 20
)

// Uniform slot numbers of the FS.
const (
	FragmentUniformTexP0   = 0 // texture 0 config parameter 0 (relocated by the kernel)
	FragmentUniformTexP1   = 1 // texture 0 config parameter 1
	FragmentUniformLightK1 = 2 // FaceLight.K1 replicated to 4 bytes
	FragmentUniformLightB1 = 3
	FragmentUniformLightK3 = 4
	FragmentUniformLightB3 = 5
	FragmentUniformLightL  = 6
	NumFragmentUniforms    = 7
)

// The cube's programs, assembled when the package is initialised.
var (
	// FS is the fragment shader.
	FS = fragmentProgram()
	// VS is the vertex shader.
	VS = vertexProgram(hazard.Vertex)
	// CS is the coordinate shader.
	CS = vertexProgram(hazard.Coordinate)
)

// Programs returns the three programs in the order the shader record
// and the uniform stream list them: FS, VS, CS.
func Programs() [3]*Program { return [3]*Program{FS, VS, CS} }

// Bytes returns the program as shader BO contents.
func (p *Program) Bytes() []byte { return qpu.Bytes(p.Code) }

// Listing returns the program's disassembly.
func (p *Program) Listing() string { return qpu.Disassemble(p.Code) }

func vertexUniforms() []Uniform {
	u := make([]Uniform, NumVertexUniforms)
	for i := 0; i < 16; i++ {
		u[VertexUniformMVP+i] = Uniform{
			Name:    "mvp[" + strconv.Itoa(i) + "]",
			Meaning: "MVP matrix element " + strconv.Itoa(i) + " (column " + strconv.Itoa(i/4) + ", row " + strconv.Itoa(i%4) + "; mgl32.Mat4 order), float32",
		}
	}
	u[VertexUniformXScale] = Uniform{Name: "x_scale16", Meaning: "viewport X scale in 1/16 pixel, +width/2·16 (scene.Viewport.XScale16), float32"}
	u[VertexUniformYScale] = Uniform{Name: "y_scale16", Meaning: "viewport Y scale in 1/16 pixel, −height/2·16 (scene.Viewport.YScale16), float32"}
	u[VertexUniformZScale] = Uniform{Name: "z_scale", Meaning: "depth scale: Zs = z_ndc·z_scale + z_offset (scene.ZScale), float32"}
	u[VertexUniformZOffset] = Uniform{Name: "z_offset", Meaning: "depth offset (scene.ZOffset), float32"}
	return u
}

func fragmentUniforms() []Uniform {
	return []Uniform{
		FragmentUniformTexP0: {Name: "tex0.p0", Kind: UniformTexP0, Sample: 0,
			Meaning: "texture config parameter 0: level-0 offset in the texture BO (4 KiB aligned) | type | FLIPY | mip levels − 1"},
		FragmentUniformTexP1: {Name: "tex0.p1", Kind: UniformTexP1, Sample: 0,
			Meaning: "texture config parameter 1: size, filters, wrap modes"},
		FragmentUniformLightK1: {Name: "light.k1", Meaning: "FaceLight.K1 in all four bytes"},
		FragmentUniformLightB1: {Name: "light.b1", Meaning: "FaceLight.B1 in all four bytes"},
		FragmentUniformLightK3: {Name: "light.k3", Meaning: "FaceLight.K3 in all four bytes"},
		FragmentUniformLightB3: {Name: "light.b3", Meaning: "FaceLight.B3 in all four bytes"},
		FragmentUniformLightL:  {Name: "light.l", Meaning: "FaceLight.L in all four bytes"},
	}
}
