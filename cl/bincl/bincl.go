// Package bincl builds the binning control list of a
// DRM_IOCTL_VC4_SUBMIT_CL in the shape the Linux kernel accepts
// (vc4_validate.c vc4_validate_bin_cl and the validate_* helpers;
// doc/kernel.md#bin-cl; Mesa's packet order, doc/hardware.md#binning-list):
//
//	TILE_BINNING_MODE_CONFIG (addresses 0; the kernel fills them)
//	START_TILE_BINNING
//	[PRIMITIVE_LIST_FORMAT] [CLIP_WINDOW] [CONFIGURATION_BITS] [DEPTH_OFFSET]
//	[POINT_SIZE] [LINE_WIDTH] [FLAT_SHADE_FLAGS] [VIEWPORT_OFFSET]
//	[CLIPPER_XY_SCALING] [CLIPPER_Z_SCALING]
//	per draw: GL_SHADER_STATE, then GL_ARRAY_PRIMITIVE or
//	          [GEM_HANDLES] GL_INDEXED_PRIMITIVE
//	INCREMENT_SEMAPHORE FLUSH           (the last two bytes: 0x07 0x04)
//
// The Builder checks the kernel's rules as it goes and keeps the first
// error, so a frame is built with plain calls and one error check at the
// end. It reuses its buffer: once grown, building a frame allocates
// nothing.
//
// To produce lists the kernel must refuse (tests of the simulated kernel),
// set Unchecked to skip every rule, and use Raw to insert arbitrary bytes.
package bincl

import (
	"errors"
	"fmt"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/spec"
	"github.com/vccube/vccube/texture"
)

// MaxFrameSize is the largest render target the kernel accepts in either
// direction: the render surfaces go through vc4_validate.c
// vc4_check_tex_size (vc4_render_cl.c vc4_rcl_surface_setup), whose limit
// package texture states.
const MaxFrameSize = texture.MaxSurfaceSize

// MaxDraws is how many primitive packets Mesa allows in one bin CL before
// it flushes the job: the binner's state counters do not wrap safely
// (erratum HW-2116; Mesa vc4_draw.c).
const MaxDraws = 0x1ef0

// MaxArrayIndex is the largest first+count of a GL_ARRAY_PRIMITIVE: the
// binner stores 16-bit indices in the tile lists (erratum GFXH-515 /
// SW-5891; Mesa vc4_draw.c).
const MaxArrayIndex = 65535

// Tiles returns the bin tile counts for a width×height frame: ceil(size /
// spec.TileSide(msaa)) in each direction (Mesa vc4_job.c vc4_get_job;
// doc/kernel.md#binning-configuration).
func Tiles(width, height int, msaa bool) (x, y uint8, err error) {
	if width < 1 || height < 1 || width > MaxFrameSize || height > MaxFrameSize {
		return 0, 0, fmt.Errorf("bincl: frame %d×%d: each side must be 1..%d pixels (vc4_check_tex_size)", width, height, MaxFrameSize)
	}
	t := spec.TileSide(msaa)
	return uint8((width + t - 1) / t), uint8((height + t - 1) / t), nil
}

// Prefix is the state a bin CL starts with. Nil packets are omitted.
type Prefix struct {
	// Binning is TILE_BINNING_MODE_CONFIG. User space sets the tile
	// counts and optionally Multisample4x; the address, size and
	// allocation fields must be zero (the kernel writes them).
	Binning cl.TileBinningModeConfig
	// PrimitiveListFormat follows START_TILE_BINNING; Mesa always sends
	// 16-bit-index triangles (0x12) there (vc4_draw.c vc4_start_draw).
	PrimitiveListFormat *cl.PrimitiveListFormat
	// ClipWindow must not be empty: a zero-sized clip window hangs the
	// binner (Mesa vc4_draw.c).
	ClipWindow *cl.ClipWindow
	// Configuration sets culling, winding and the depth test.
	Configuration *cl.ConfigurationBits
	// DepthOffset sets polygon offset (with Configuration's enable bit).
	DepthOffset *cl.DepthOffset
	// PointSize is the point size.
	PointSize *cl.PointSize
	// LineWidth is the line width.
	LineWidth *cl.LineWidth
	// FlatShadeFlags selects flat-shaded varyings.
	FlatShadeFlags *cl.FlatShadeFlags
	// ViewportOffset is the viewport centre shaded Xs/Ys are relative to.
	ViewportOffset *cl.ViewportOffset
	// ClipperXY is the viewport half-size the clipper needs (1/16 px).
	ClipperXY *cl.ClipperXYScaling
	// ClipperZ is the depth scale and offset the clipper needs.
	ClipperZ *cl.ClipperZScaling
}

type phase uint8

const (
	empty phase = iota
	binning
	ended
)

// Builder builds one bin CL at a time.
type Builder struct {
	// Unchecked turns off every rule, so tests can build lists the kernel
	// must reject.
	Unchecked bool

	buf       []byte
	err       error
	phase     phase
	states    int
	draws     int
	haveState bool
}

// Reset starts a new list, keeping the buffer and the Unchecked setting.
func (b *Builder) Reset() {
	b.buf = b.buf[:0]
	b.err = nil
	b.phase = empty
	b.states, b.draws = 0, 0
	b.haveState = false
}

// Err returns the first rule broken so far.
func (b *Builder) Err() error { return b.err }

func (b *Builder) fail(format string, args ...any) {
	if b.err == nil && !b.Unchecked {
		b.err = fmt.Errorf("bincl: "+format, args...)
	}
}

// ok reports whether to go on emitting: always when Unchecked, otherwise
// only while no rule has been broken.
func (b *Builder) ok() bool { return b.Unchecked || b.err == nil }

// check records err (from a packet's Check) as the first broken rule.
// Callers pass the concrete packet's Check result: passing the packet as
// a cl.Packet interface would allocate.
func (b *Builder) check(err error) {
	if err != nil && b.err == nil && !b.Unchecked {
		b.err = err
	}
}

// Begin emits TILE_BINNING_MODE_CONFIG, START_TILE_BINNING and the prefix
// state.
func (b *Builder) Begin(p *Prefix) {
	if b.phase != empty {
		b.fail("Begin called twice: the kernel allows one TILE_BINNING_MODE_CONFIG and one START_TILE_BINNING (validate_tile_binning_config, validate_start_tile_binning)")
	}
	bc := &p.Binning
	if bc.TileAllocAddress != 0 || bc.TileAllocSize != 0 || bc.TileStateAddress != 0 {
		b.fail("TILE_BINNING_MODE_CONFIG addresses must be 0: the kernel allocates binner memory and writes them")
	}
	if bc.WidthInTiles == 0 || bc.HeightInTiles == 0 {
		b.fail("TILE_BINNING_MODE_CONFIG needs a non-zero tile count (got %d×%d); use Tiles", bc.WidthInTiles, bc.HeightInTiles)
	}
	if bc.DoubleBuffer || bc.Color64 {
		b.fail("TILE_BINNING_MODE_CONFIG double-buffer and 64-bit colour are refused by the kernel (validate_tile_binning_config)")
	}
	if bc.AutoInitTileState || bc.InitialBlockSize != 0 || bc.BlockSize != 0 {
		b.fail("TILE_BINNING_MODE_CONFIG block sizes and auto-init are the kernel's to set; leave them zero")
	}
	if p.ClipWindow != nil && (p.ClipWindow.Width == 0 || p.ClipWindow.Height == 0) {
		b.fail("CLIP_WINDOW of %d×%d pixels: an empty clip window hangs the binner", p.ClipWindow.Width, p.ClipWindow.Height)
	}
	if !b.ok() {
		return
	}
	b.check(bc.Check())
	b.buf = bc.Append(b.buf)
	b.buf = cl.StartTileBinning{}.Append(b.buf)
	b.phase = binning
	if p.PrimitiveListFormat != nil {
		b.check(p.PrimitiveListFormat.Check())
		b.buf = p.PrimitiveListFormat.Append(b.buf)
	}
	if p.ClipWindow != nil {
		b.buf = p.ClipWindow.Append(b.buf)
	}
	if p.Configuration != nil {
		b.check(p.Configuration.Check())
		b.buf = p.Configuration.Append(b.buf)
	}
	if p.DepthOffset != nil {
		b.buf = p.DepthOffset.Append(b.buf)
	}
	if p.PointSize != nil {
		b.buf = p.PointSize.Append(b.buf)
	}
	if p.LineWidth != nil {
		b.buf = p.LineWidth.Append(b.buf)
	}
	if p.FlatShadeFlags != nil {
		b.buf = p.FlatShadeFlags.Append(b.buf)
	}
	if p.ViewportOffset != nil {
		b.buf = p.ViewportOffset.Append(b.buf)
	}
	if p.ClipperXY != nil {
		b.buf = p.ClipperXY.Append(b.buf)
	}
	if p.ClipperZ != nil {
		b.buf = p.ClipperZ.Append(b.buf)
	}
}

func (b *Builder) inList(what string) {
	switch b.phase {
	case empty:
		b.fail("%s before Begin: the list must start with TILE_BINNING_MODE_CONFIG and START_TILE_BINNING", what)
	case ended:
		b.fail("%s after End: INCREMENT_SEMAPHORE and FLUSH must be the last two bytes", what)
	}
}

// ShaderState emits GL_SHADER_STATE. Its address must be 0: the kernel
// rejects any bit above the low four (validate_gl_shader_state). Each one
// consumes the next record of the shader_rec stream.
func (b *Builder) ShaderState(s cl.GLShaderState) {
	b.inList("GL_SHADER_STATE")
	if s.Address != 0 {
		b.fail("GL_SHADER_STATE address %#x must be 0: the kernel takes records from shader_rec in order and writes their addresses", s.Address)
	}
	b.check(s.Check())
	if !b.ok() {
		return
	}
	b.buf = s.Append(b.buf)
	b.states++
	b.haveState = true
}

// NVShaderState emits NV_SHADER_STATE, which the hardware has and today's
// kernel refuses ("packet 65 invalid": it is not in vc4_validate.c's
// cmd_info[]); so this is a rule violation unless the builder is
// Unchecked. Like GL_SHADER_STATE it takes the next record of the
// shader_rec stream (shaderrec.Stream.AddNV).
func (b *Builder) NVShaderState(s cl.NVShaderState) {
	b.inList("NV_SHADER_STATE")
	b.fail("NV_SHADER_STATE (packet 65) is not in the kernel's bin-CL table: use GL shader state")
	if !b.ok() {
		return
	}
	b.buf = s.Append(b.buf)
	b.states++
	b.haveState = true
}

func (b *Builder) draw(what string, length uint32) {
	b.inList(what)
	if !b.haveState {
		b.fail("%s before any GL_SHADER_STATE (\"shader state must precede primitives\")", what)
	}
	if length == 0 {
		b.fail("%s with length 0: the kernel's max index wraps to 0xffffffff and the attribute bounds check fails", what)
	}
	if b.draws >= MaxDraws {
		b.fail("more than %d draws in one bin CL: split the frame into several jobs (erratum HW-2116)", MaxDraws)
	}
}

// DrawArrays emits GL_ARRAY_PRIMITIVE.
func (b *Builder) DrawArrays(p cl.GLArrayPrimitive) {
	b.draw("GL_ARRAY_PRIMITIVE", p.Length)
	if uint64(p.First)+uint64(p.Length) > MaxArrayIndex {
		b.fail("GL_ARRAY_PRIMITIVE first %d + length %d > %d: the binner keeps 16-bit indices (SW-5891); bias the attribute address and start at 0", p.First, p.Length, MaxArrayIndex)
	}
	if p.Mode > cl.PrimitiveModeTriangleFan {
		b.fail("GL_ARRAY_PRIMITIVE mode %d is not a primitive mode", p.Mode)
	}
	if !b.ok() {
		return
	}
	b.buf = p.Append(b.buf)
	b.draws++
}

// DrawIndexed emits GL_INDEXED_PRIMITIVE, preceded by GEM_HANDLES when h is
// not nil. Its IndexAddress is a byte offset into bo_handles[h.BOIndex0]
// (bo_handles[0] if no GEM_HANDLES was ever sent); the kernel checks the
// index list fits and writes the address (validate_indexed_prim_list).
func (b *Builder) DrawIndexed(h *cl.GEMHandles, p cl.GLIndexedPrimitive) {
	b.draw("GL_INDEXED_PRIMITIVE", p.Length)
	b.check(p.Check())
	if p.IndexType > cl.IndexType16Bit {
		b.fail("GL_INDEXED_PRIMITIVE index type %d: the hardware has 8- and 16-bit indices", p.IndexType)
	}
	if p.Mode > cl.PrimitiveModeTriangleFan {
		b.fail("GL_INDEXED_PRIMITIVE mode %d is not a primitive mode", p.Mode)
	}
	if !b.ok() {
		return
	}
	if h != nil {
		b.buf = h.Append(b.buf)
	}
	b.buf = p.Append(b.buf)
	b.draws++
}

// Draw emits a shader state and an array draw: one GL shader record's
// worth of drawing.
func (b *Builder) Draw(s cl.GLShaderState, p cl.GLArrayPrimitive) {
	b.ShaderState(s)
	b.DrawArrays(p)
}

// Emit appends a state packet between draws (for example a new
// CONFIGURATION_BITS). Only packets the kernel accepts in a bin CL are
// allowed, and not those whose place the Builder manages (binning config,
// start, shader state, primitives, GEM handles, semaphore, flush, halt).
func Emit[P cl.Packet](b *Builder, p P) {
	op := p.Opcode()
	d := spec.Lookup(op)
	b.inList(op.String())
	switch {
	case d == nil || !d.KernelBin:
		b.fail("%s is not accepted in a bin CL by the kernel (vc4_validate.c cmd_info[])", op)
	case op == spec.OpTileBinningModeConfig || op == spec.OpStartTileBinning || op == spec.OpGLShaderState ||
		op == spec.OpGLArrayPrimitive || op == spec.OpGLIndexedPrimitive || op == spec.OpGEMHandles ||
		op == spec.OpIncrementSemaphore || op == spec.OpFlush || op == spec.OpHalt:
		b.fail("emit %s with the Builder's own method, which keeps its order", op)
	}
	b.check(p.Check())
	if !b.ok() {
		return
	}
	n := len(b.buf)
	b.buf = p.Append(b.buf)
	if op == spec.OpClipWindow {
		// Read the size back through the table: p is a type parameter,
		// and converting it to an interface to inspect it would allocate.
		payload := b.buf[n+1:]
		w, h := d.Field("width").Raw(payload), d.Field("height").Raw(payload)
		if w == 0 || h == 0 {
			b.fail("CLIP_WINDOW of %d×%d pixels: an empty clip window hangs the binner", w, h)
			if !b.Unchecked {
				b.buf = b.buf[:n]
			}
		}
	}
}

// Raw appends bytes unchecked, to build lists the kernel must refuse.
func (b *Builder) Raw(p []byte) { b.buf = append(b.buf, p...) }

// End emits INCREMENT_SEMAPHORE and FLUSH, which the kernel requires as the
// list's last two bytes (validate_increment_semaphore, validate_flush).
func (b *Builder) End() {
	b.inList("End")
	if !b.ok() {
		return
	}
	b.buf = cl.IncrementSemaphore{}.Append(b.buf)
	b.buf = cl.Flush{}.Append(b.buf)
	b.phase = ended
}

// ErrNotEnded is returned by Bytes for a list without End.
var ErrNotEnded = errors.New("bincl: the list has no End (INCREMENT_SEMAPHORE, FLUSH)")

// Bytes returns the list and the first broken rule. The bytes are valid
// until the next Reset. Unchecked builders return whatever was built.
func (b *Builder) Bytes() ([]byte, error) {
	if b.err != nil {
		return nil, b.err
	}
	if b.phase != ended && !b.Unchecked {
		return nil, ErrNotEnded
	}
	return b.buf, nil
}

// ShaderStates returns the number of shader-state packets (GL_SHADER_STATE,
// and NV_SHADER_STATE in an Unchecked list): the number of records the
// shader_rec stream must hold (the submit's
// shader_rec_count must be at least this).
func (b *Builder) ShaderStates() int { return b.states }

// Draws returns the number of primitive packets.
func (b *Builder) Draws() int { return b.draws }
