package cuberender

import (
	"errors"
	"fmt"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/bincl"
	"github.com/vccube/vccube/cl/shaderrec"
	"github.com/vccube/vccube/cl/submit"
	"github.com/vccube/vccube/gem"
	"github.com/vccube/vccube/math/scene"
	"github.com/vccube/vccube/shaders"
	"golang.org/x/sys/unix"
)

// Indices of the BOs in every submit's bo_handles, the same each frame
// (doc/kernel.md#a-cube-submit). The shader BOs come first, as in Mesa's jobs.
const (
	boFS = iota
	boVS
	boCS
	boVertices
	boTexture
	boColour
	numBOs
)

// prepare fills the parts of every frame's submit that never change: the
// bin CL's state prefix, the shader record and its relocations, the
// viewport words of the VS/CS uniforms.
func (r *Renderer) prepare() {
	vp := r.scene.Viewport()
	tx, ty, _ := bincl.Tiles(vp.Width, vp.Height, false) // checked by scene.New's size limit
	r.prefix = bincl.Prefix{
		Binning: cl.TileBinningModeConfig{WidthInTiles: tx, HeightInTiles: ty},
		// Mesa sends 16-bit-index triangles right after
		// START_TILE_BINNING (vc4_draw.c vc4_start_draw).
		PrimitiveListFormat: &cl.PrimitiveListFormat{Type: cl.PrimitiveListTypeTriangles, DataType: cl.PrimitiveListData16BitIndex},
		ClipWindow:          &cl.ClipWindow{Width: uint16(vp.Width), Height: uint16(vp.Height)},
		// vkcube culls back faces, its front faces are counter-clockwise
		// and its depth test is LESS_OR_EQUAL against a buffer cleared
		// to 1.0 (Vulkan-Tools cube/cube.c demo_prepare_pipeline). The
		// winding bit is the scene's (scene.ClockwiseBit explains it).
		// Early Z is what Mesa enables for LESS/LEQUAL without stencil
		// (vc4_state.c vc4_create_depth_stencil_alpha_state; vc4_emit.c
		// takes it away only for MSAA; doc/hardware.md#configuration-bits).
		Configuration: &cl.ConfigurationBits{
			EnableForwardFacing: true,
			Clockwise:           scene.ClockwiseBit,
			DepthFunc:           cl.DepthFuncLessEqual,
			ZUpdates:            true,
			EarlyZ:              true,
			EarlyZUpdates:       true,
		},
		ViewportOffset: &cl.ViewportOffset{X: cl.Subpixel(vp.CentreX16()), Y: cl.Subpixel(vp.CentreY16())},
		ClipperXY:      &cl.ClipperXYScaling{HalfWidth: vp.XScale16(), HalfHeight: vp.YScale16()},
		ClipperZ:       &cl.ClipperZScaling{Scale: scene.ZScale, Offset: scene.ZOffset},
	}

	fs, vs, cs := shaders.FS, shaders.VS, shaders.CS
	r.rec.Record = cl.GLShaderRecord{
		FSSingleThreaded:  !fs.Threaded,
		EnableClipping:    true, // Mesa always sets it (vc4_draw.c vc4_emit_gl_shader_state)
		FSNumUniforms:     uint8(len(fs.Uniforms)),
		FSNumVaryings:     uint8(fs.Varyings),
		VSNumUniforms:     uint16(len(vs.Uniforms)),
		VSAttributeSelect: vs.AttributeSelect,
		VSAttributesSize:  vs.AttributeSize,
		CSNumUniforms:     uint16(len(cs.Uniforms)),
		CSAttributeSelect: cs.AttributeSelect,
		CSAttributesSize:  cs.AttributeSize,
	}
	off, _ := attributeOffsets()
	r.rec.NumAttributes = len(shaders.Attributes)
	r.relocs = shaderrec.Relocs{FS: boFS, VS: boVS, CS: boCS}
	for i, a := range shaders.Attributes {
		r.rec.Attributes[i] = cl.AttributeRecord{
			Address:      uint32(off[i]), // a byte offset in the vertex BO; the kernel relocates it
			SizeMinusOne: uint8(a.Bytes - 1),
			Stride:       uint8(a.Bytes),
			VSVPMOffset:  a.VSVPMOffset,
			CSVPMOffset:  a.CSVPMOffset,
		}
		r.relocs.Attributes[i] = boVertices
	}
	r.texIndex[0] = boTexture
}

// Build records the frame with the cube turned by degrees about +y
// (scene.AngleForFrame(k) for frame k), drawing into colour buffer buf.
// It allocates nothing. Submit sends it.
//
// The caller makes sure buf is not on screen and not still being drawn
// (WaitBuffer): the GPU starts writing it as soon as the job runs.
func (r *Renderer) Build(buf int, degrees float32) error {
	if r.closed {
		return errClosed
	}
	if buf < 0 || buf >= len(r.colour) {
		return errBadBuffer
	}
	r.built = -1
	f := &r.frame
	r.scene.UpdateAngle(f, degrees)
	vp := r.scene.Viewport()
	shaders.FillVertexUniforms(&r.vsUni, (*[16]float32)(&f.MVP), shaders.VertexParams{
		XScale16: vp.XScale16(), YScale16: vp.YScale16(),
		ZScale: scene.ZScale, ZOffset: scene.ZOffset,
	})

	j := &r.job
	j.Reset()
	j.AddBO(r.fs.Handle())
	j.AddBO(r.vs.Handle())
	j.AddBO(r.cs.Handle())
	j.AddBO(r.vertices.Handle())
	j.AddBO(r.tex.Handle())
	j.AddBO(r.colour[buf].Handle())

	j.Bin.Begin(&r.prefix)
	state := r.rec.State()
	r.faces = 0
	for face := 0; face < scene.NumFaces; face++ {
		// A face turned away from the camera is culled by the hardware
		// anyway (CONFIGURATION_BITS); not sending it saves the binner
		// and the kernel's validator the work. An edge-on face covers
		// no pixel and is not front-facing either.
		if !f.FrontFacing[face] {
			continue
		}
		r.faces++
		first := scene.Face(face).FirstVertex()
		j.Bin.Draw(state, cl.GLArrayPrimitive{Mode: cl.PrimitiveModeTriangles, Length: scene.VerticesPerFace, First: uint32(first)})
		if err := j.ShaderRecs.Add(&r.rec, &r.relocs); err != nil {
			return fmt.Errorf("render: shader record: %w", err)
		}
		// The light values repeat every turn; the cache pays LightFor's
		// two math.Pow calls once per value (shaders.LightCache).
		shaders.FillFragmentUniforms(&r.fsUni[face], r.texP0, r.texP1, r.lights.For(f.Light[face]))
		// One block per program, FS, VS, CS (doc/kernel.md#uniforms): the FS
		// block starts with the texture's bo_handles index.
		j.Uniforms.AppendBlock(r.texIndex[:], r.fsUni[face][:])
		j.Uniforms.AppendBlock(nil, r.vsUni[:])
		j.Uniforms.AppendBlock(nil, r.vsUni[:])
	}
	j.Bin.End()
	if err := j.Bin.Err(); err != nil {
		return fmt.Errorf("render: bin CL: %w", err)
	}
	if err := j.SetFrame(vp.Width, vp.Height, false); err != nil {
		return fmt.Errorf("render: %w", err)
	}
	// Colour only: Z lives in the tile buffer (see the package
	// documentation); Reset left zs_write absent.
	j.ColorWrite = submit.ColorWrite(boColour, 0, cl.TilingLinear)
	j.SetClear(clearWord(), ClearZ, 0)
	if r.perfmon != nil {
		j.PerfmonID = r.perfmon.ID()
	}
	r.built = buf
	return nil
}

// Frame returns the scene state of the last Build.
func (r *Renderer) Frame() *scene.Frame { return &r.frame }

// Faces returns how many faces the last Build draws.
func (r *Renderer) Faces() int { return r.faces }

// Submit sends the frame recorded by Build to the kernel
// (DRM_IOCTL_VC4_SUBMIT_CL) and returns its seqno. It allocates nothing.
// On failure the error is the kernel's refusal with gem's hint (for
// ENOMEM: how to enlarge CMA).
func (r *Renderer) Submit() (uint64, error) {
	if r.closed {
		return 0, errClosed
	}
	buf := r.built
	if buf < 0 {
		return 0, errNotBuilt
	}
	if err := r.markUnfinished(buf); err != nil {
		return 0, err
	}
	seqno, err := r.job.Submit(r.c)
	if err != nil {
		return 0, err
	}
	r.built = -1
	r.seqno[buf] = seqno
	r.marked[buf] = true
	r.lastSeqno = seqno
	return seqno, nil
}

// Render is Build then Submit.
func (r *Renderer) Render(buf int, degrees float32) (uint64, error) {
	if err := r.Build(buf, degrees); err != nil {
		return 0, err
	}
	return r.Submit()
}

// Wait waits until the job with the given seqno has finished
// (DRM_IOCTL_VC4_WAIT_SEQNO), at most Options.WaitTimeout; it allocates
// nothing. A GPU that does not finish in time is reported as hung
// (*HangError). The first Wait that sees a frame end also checks that the
// GPU finished drawing it: a frame whose job the kernel gave up on is a
// *LostFrameError (see markUnfinished).
func (r *Renderer) Wait(seqno uint64) error {
	if r.closed {
		return errClosed
	}
	if r.stuck != 0 && seqno >= r.stuck {
		// Jobs finish in order: nothing after a job that did not
		// finish in time can have finished since; do not wait again.
		return &HangError{Seqno: r.stuck, Timeout: r.opt.WaitTimeout.String(), Err: unix.ETIME}
	}
	r.wait.Seqno = seqno
	r.wait.TimeoutNs = gem.Timeout(r.opt.WaitTimeout)
	err := gem.WaitForSeqno(r.c, &r.wait)
	if errors.Is(err, unix.ETIME) {
		r.stuck = seqno
		return &HangError{Seqno: seqno, Timeout: r.opt.WaitTimeout.String(), Err: err}
	}
	if err != nil {
		return err
	}
	return r.checkFinished(seqno)
}

// WaitBuffer waits until the last frame drawn into colour buffer buf has
// finished (at once if none was).
func (r *Renderer) WaitBuffer(buf int) error {
	if buf < 0 || buf >= len(r.colour) {
		return errBadBuffer
	}
	return r.Wait(r.seqno[buf])
}

// Done reports, without waiting, whether the job with the given seqno has
// finished (WAIT_SEQNO with a zero timeout answers ETIME while it runs).
func (r *Renderer) Done(seqno uint64) (bool, error) {
	if r.closed {
		return false, errClosed
	}
	r.wait.Seqno = seqno
	r.wait.TimeoutNs = 0
	err := gem.WaitForSeqno(r.c, &r.wait)
	if errors.Is(err, unix.ETIME) {
		return false, nil
	}
	return err == nil, err
}

// HangError is a frame the GPU did not finish in time. The kernel resets
// a GPU that stopped within two seconds (vc4_gem.c
// vc4_hangcheck_elapsed), so a job still running after Options.WaitTimeout
// is one the kernel keeps restarting (a job whose binning hangs every
// time: vc4_irq.c vc4_cancel_bin_job puts it back after each reset) or a
// GPU the kernel cannot reset; no later job can run before it.
type HangError struct {
	Seqno   uint64 // the frame's job, as SUBMIT_CL returned it
	Timeout string // how long Wait waited (Options.WaitTimeout)
	Err     error  // the wait's error: ETIME
}

// Error says what happened and what to look at.
func (e *HangError) Error() string {
	return fmt.Sprintf("render: the GPU did not finish frame seqno %d within %s (WAIT_SEQNO: ETIME): it is stuck on it "+
		"(the kernel resets a hung VideoCore IV and logs \"Resetting GPU.\", see dmesg; "+
		"a job whose binning hangs every time is restarted after each reset and never ends)", e.Seqno, e.Timeout)
}

// Unwrap returns the wait's error.
func (e *HangError) Unwrap() error { return e.Err }

var (
	errClosed    = errors.New("render: renderer is closed")
	errBadBuffer = errors.New("render: no such colour buffer")
	errNotBuilt  = errors.New("render: Submit without Build")
)
