package cuberender

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/submit"
	"github.com/vccube/vccube/math/scene"
	"github.com/vccube/vccube/shaders"
	"golang.org/x/sys/unix"
)

// The NV pipeline (-pipeline nv).
//
// The bare-metal cube vccube grew from (the post "vc4: cube demo – 'from
// scratch'", 2023-07-04; doc/hardware.md#public-write-ups) shades the vertices on
// the CPU and hands the GPU an NV shader state: NV_SHADER_STATE (packet 65)
// pointing at a 16-byte NV record with only a fragment shader and the
// shaded vertices (AG Table 46). Linux's vc4 validator has no entry for
// packet 65 in its bin-CL table (vc4_validate.c cmd_info[]), so SUBMIT_CL
// refuses such a list with EINVAL ("packet 65 invalid";
// doc/kernel.md#bin-cl). SubmitNV builds that job for real — the same
// frame, vertices shaded by the Go model of the VS (shaders.ModelVertex),
// the record in the pre-upstream validator's form (FS BO and vertex BO
// indices, then the record; doc/kernel.md#nv-records) — and submits it, so a
// person sees the kernel's answer rather than our claim about it.

// ErrNVAccepted is returned by SubmitNV if the kernel accepts the NV job,
// which no upstream Linux kernel does.
var ErrNVAccepted = errors.New("render: the kernel accepted NV shader state")

// NVRefusedError is the kernel's refusal of the NV job, explained.
type NVRefusedError struct {
	// Err is the submit's error (EINVAL from a vc4 kernel).
	Err error
}

// Error explains why the job was refused and why vccube draws with GL
// shader state.
func (e *NVRefusedError) Error() string {
	why := "the kernel refused the NV shader state job: " + e.Err.Error() + "\n"
	if errors.Is(e.Err, unix.EINVAL) {
		why += "This is expected. NV_SHADER_STATE (packet 65) hands the GPU vertices the CPU has already shaded, " +
			"which is how the bare-metal cube vccube started from drives a VideoCore IV without an operating system. " +
			"Linux's vc4 driver validates every bin control list before the GPU sees it and its packet table " +
			"(vc4_validate.c cmd_info[]) has no entry for packet 65, so it answers EINVAL (\"packet 65 invalid\"). " +
			"It accepts only GL_SHADER_STATE, whose vertex and coordinate shaders it can check, " +
			"which is why vccube's default pipeline (-pipeline gl) runs a vertex and a coordinate shader on the QPUs."
	}
	return why
}

// Unwrap returns the submit's error.
func (e *NVRefusedError) Unwrap() error { return e.Err }

// nvStride is the bytes of one shaded vertex in the NV record's vertex data:
// the VS output words without clip header (AG Figure 11: Xs|Ys, Zs, 1/Wc,
// then the varyings).
var nvStride = 4 * len(shaders.VertexOutput{}.Words())

// SubmitNV renders the frame with the cube turned by degrees through NV
// shader state into colour buffer 0 and returns the kernel's answer:
// *NVRefusedError wrapping its errno (EINVAL on any vc4 kernel), or
// ErrNVAccepted after waiting for the job if a kernel ever takes it. It
// allocates a temporary BO for the shaded vertices and frees it again.
func (r *Renderer) SubmitNV(degrees float32) error {
	if r.closed {
		return errClosed
	}
	var f scene.Frame
	r.scene.UpdateAngle(&f, degrees)
	vp := r.scene.Viewport()
	params := shaders.VertexParams{XScale16: vp.XScale16(), YScale16: vp.YScale16(), ZScale: scene.ZScale, ZOffset: scene.ZOffset}

	verts := scene.Vertices()
	shaded, mem, err := r.newBO("NV shaded vertices", nvStride*len(verts))
	defer shaded.Close()
	if err != nil {
		return err
	}
	for i := range verts {
		v := &verts[i]
		out := shaders.ModelVertex((*[16]float32)(&f.MVP), params, [3]float32(v.Position), v.S, v.T)
		for w, word := range out.Words() {
			binary.LittleEndian.PutUint32(mem[i*nvStride+4*w:], word)
		}
	}

	j := new(submit.Job)
	j.Reset()
	fsIdx := j.AddBO(r.fs.Handle())
	vtxIdx := j.AddBO(shaded.Handle())
	texIdx := [1]uint32{j.AddBO(r.tex.Handle())}
	colIdx := j.AddBO(r.colour[0].Handle())

	// The builder enforces the kernel's rules, which forbid packet 65:
	// switch them off to build what the kernel is to judge.
	j.Bin.Unchecked = true
	j.Bin.Begin(&r.prefix)
	record := cl.NVShaderRecord{
		FSSingleThreaded: !shaders.FS.Threaded,
		Stride:           uint8(nvStride),
		FSNumUniforms:    uint8(len(shaders.FS.Uniforms)),
		FSNumVaryings:    uint8(shaders.FS.Varyings),
		// Code and vertex addresses are offsets in their BOs (0), for
		// the kernel to relocate, as in GL records.
	}
	var fsUni [shaders.NumFragmentUniforms]uint32
	for face := 0; face < scene.NumFaces; face++ {
		if !f.FrontFacing[face] {
			continue
		}
		j.Bin.NVShaderState(cl.NVShaderState{})
		j.Bin.DrawArrays(cl.GLArrayPrimitive{Mode: cl.PrimitiveModeTriangles, Length: scene.VerticesPerFace,
			First: uint32(scene.Face(face).FirstVertex())})
		j.ShaderRecs.AddNV(&record, fsIdx, vtxIdx)
		shaders.FillFragmentUniforms(&fsUni, r.texP0, r.texP1, shaders.LightFor(f.Light[face]))
		j.Uniforms.AppendBlock(texIdx[:], fsUni[:])
	}
	j.Bin.End()
	if err := j.SetFrame(vp.Width, vp.Height, false); err != nil {
		return fmt.Errorf("render: %w", err)
	}
	j.ColorWrite = submit.ColorWrite(colIdx, 0, cl.TilingLinear)
	j.SetClear(clearWord(), ClearZ, 0)
	seqno, err := j.Submit(r.c)
	if err != nil {
		return &NVRefusedError{Err: err}
	}
	r.seqno[0], r.lastSeqno = seqno, seqno
	if err := r.Wait(seqno); err != nil {
		return err
	}
	return ErrNVAccepted
}
