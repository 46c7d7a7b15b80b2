// Package cube builds, for cl's tests, the submit vccube sends for one
// frame of the cube: 800×600, six faces, each drawn with its own GL shader
// record (so each face gets its own light uniform) as 6 vertices
// (2 triangles) of one attribute array of pre-transformed vertices that
// pass-through VS and CS read (doc/hardware.md#shaded-vertex-formats), one T-format
// texture sampled by the FS, a linear RGBA8888 colour buffer for scanout
// and a clear. It is an example with plausible values, not the renderer's
// code.
package cube

import (
	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/bincl"
	"github.com/vccube/vccube/cl/shaderrec"
	"github.com/vccube/vccube/cl/submit"
	"github.com/vccube/vccube/cl/uniforms"
)

// Frame size and the BO handles the job lists, in bo_handles order.
const (
	Width, Height = 800, 600
	FSHandle      = 10
	VSHandle      = 11
	CSHandle      = 12
	VertexHandle  = 13
	TextureHandle = 14
	ColorHandle   = 15
)

// Uniform values: texture P0 (offset 0 in its BO, type RGBA8888, no mip
// levels) and P1 (256×256, linear filters, repeat), and the viewport terms
// the VS and CS read (half-size × 16, Z scale and offset: the factors of
// Mesa vc4_program.c emit_scaled_viewport_write and emit_zs_write).
const (
	TexP0      = 0x00000000
	TexP1      = 0x10010000 // height 256 at bits 30:20, width 256 at bits 18:8
	ClearColor = 0xff333333
)

// Prefix returns the frame state of the bin CL: back faces culled and the
// clockwise bit set, as Mesa sets it for GL's default CCW front face (front
// faces then have negative signed area in y-down pixel space; see the bit's
// doc in cl/spec), LEQUAL with Z writes and early Z, viewport centre
// (400, 300), clipper half-size 400 × −300 px (y flipped) in 1/16 px, and
// depth scale = offset = 0.5 (so the doubtful field order of
// CLIPPER_Z_SCALING cannot matter, doc/hardware.md#viewport).
func Prefix() *bincl.Prefix {
	x, y, err := bincl.Tiles(Width, Height, false)
	if err != nil {
		panic(err)
	}
	return &bincl.Prefix{
		Binning:             cl.TileBinningModeConfig{WidthInTiles: x, HeightInTiles: y},
		PrimitiveListFormat: &cl.PrimitiveListFormat{Type: cl.PrimitiveListTypeTriangles, DataType: cl.PrimitiveListData16BitIndex},
		ClipWindow:          &cl.ClipWindow{Width: Width, Height: Height},
		Configuration: &cl.ConfigurationBits{EnableForwardFacing: true, Clockwise: true,
			DepthFunc: cl.DepthFuncLessEqual, ZUpdates: true, EarlyZ: true, EarlyZUpdates: true},
		ViewportOffset: &cl.ViewportOffset{X: cl.SubpixelOf(Width / 2), Y: cl.SubpixelOf(Height / 2)},
		ClipperXY:      &cl.ClipperXYScaling{HalfWidth: Width / 2 * 16, HalfHeight: -Height / 2 * 16},
		ClipperZ:       &cl.ClipperZScaling{Scale: 0.5, Offset: 0.5},
	}
}

// Record returns the GL shader record every face uses: one attribute array
// of 6 floats (xc, yc, zc, wc, s, t), stride 24, read whole by both the VS
// and the CS; a single-threaded FS with 2 varyings; clipping on.
func Record() shaderrec.GL {
	g := shaderrec.GL{
		Record: cl.GLShaderRecord{FSSingleThreaded: true, EnableClipping: true, FSNumVaryings: 2,
			VSAttributeSelect: 1, VSAttributesSize: 24, CSAttributeSelect: 1, CSAttributesSize: 24},
		NumAttributes: 1,
	}
	g.Attributes[0] = cl.AttributeRecord{SizeMinusOne: 23, Stride: 24}
	return g
}

// Lights are the per-face light terms the FS reads after the texture
// parameters.
var Lights = [6]float32{1, 0.8, 0.6, 0.4, 0.2, 0.1}

// Builder holds what Build reuses between frames.
type Builder struct {
	prefix *bincl.Prefix
	rec    shaderrec.GL
	tex    [1]uint32
	fs     [3]uint32
	vs     [4]uint32
}

// NewBuilder prepares the per-frame constants.
func NewBuilder() *Builder {
	b := &Builder{prefix: Prefix(), rec: Record()}
	b.vs = [4]uint32{uniforms.Float(Width / 2 * 16), uniforms.Float(-Height / 2 * 16), uniforms.Float(0.5), uniforms.Float(0.5)}
	return b
}

// Build fills j with the frame's submit.
func (b *Builder) Build(j *submit.Job) error {
	j.Reset()
	fs := j.AddBO(FSHandle)
	vs := j.AddBO(VSHandle)
	cs := j.AddBO(CSHandle)
	vtx := j.AddBO(VertexHandle)
	tex := j.AddBO(TextureHandle)
	col := j.AddBO(ColorHandle)
	relocs := shaderrec.Relocs{FS: fs, VS: vs, CS: cs, Attributes: [8]uint32{vtx}}
	b.tex[0] = tex
	j.Bin.Begin(b.prefix)
	for face := uint32(0); face < 6; face++ {
		j.Bin.Draw(b.rec.State(), cl.GLArrayPrimitive{Mode: cl.PrimitiveModeTriangles, Length: 6, First: 6 * face})
		if err := j.ShaderRecs.Add(&b.rec, &relocs); err != nil {
			return err
		}
		b.fs = [3]uint32{TexP0, TexP1, uniforms.Float(Lights[face])}
		j.Uniforms.AppendBlock(b.tex[:], b.fs[:])
		j.Uniforms.AppendBlock(nil, b.vs[:])
		j.Uniforms.AppendBlock(nil, b.vs[:])
	}
	j.Bin.End()
	if err := j.SetFrame(Width, Height, false); err != nil {
		return err
	}
	j.ColorWrite = submit.ColorWrite(col, 0, cl.TilingLinear)
	j.SetClear(ClearColor, 0xffffff, 0)
	return nil
}
