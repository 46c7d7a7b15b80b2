package cuberender

import (
	"fmt"
	"io"

	"github.com/vccube/vccube/cl/dump"
	"github.com/vccube/vccube/cl/uniforms"
	"github.com/vccube/vccube/shaders"
	"github.com/vccube/vccube/uapi"
)

// Dump prints the submit the last Build recorded, as the kernel will receive
// it: the bin CL, the shader records with their BO indices, the uniform
// blocks (texture parameters decoded), the bo_handles and surfaces, and the
// disassembly of the three shaders. The render control list is not there:
// the kernel writes it from the surfaces (vc4_render_cl.c). For -dump.
func (r *Renderer) Dump(w io.Writer) error {
	if r.closed {
		return errClosed
	}
	j := &r.job
	bin, err := j.Bin.Bytes()
	if err != nil {
		return fmt.Errorf("render: dump: %w", err)
	}
	records := j.ShaderRecs.Count()
	shapes := make([]uniforms.Shape, 0, 3*records)
	for i := 0; i < records; i++ {
		for _, p := range shaders.Programs() {
			shapes = append(shapes, shapeOf(p))
		}
	}
	if err := dump.Job(w, bin, j.ShaderRecs.Bytes(), j.Uniforms.Bytes(), shapes); err != nil {
		return fmt.Errorf("render: dump: %w", err)
	}
	ew := &errWriter{w: w}
	names := [numBOs]string{"FS", "VS", "CS", "vertices", "texture", "colour buffer"}
	ew.printf("bo_handles, %d:\n", len(j.BOHandles))
	for i, h := range j.BOHandles {
		name := ""
		if i < len(names) {
			name = names[i]
		}
		ew.printf("  [%d] handle %d %s\n", i, h, name)
	}
	ew.printf("frame %d×%d, tiles %d,%d–%d,%d, flags %#x, clear colour %#08x, clear Z %#06x\n",
		j.Width, j.Height, j.MinXTile, j.MinYTile, j.MaxXTile, j.MaxYTile, j.Flags, j.ClearColor[0], j.ClearZ)
	for _, s := range []struct {
		name string
		surf *uapi.SubmitRCLSurface
	}{{"color_write", &j.ColorWrite}, {"zs_write", &j.ZSWrite}} {
		if s.surf.HIndex == uapi.SurfaceAbsent {
			ew.printf("%s: absent\n", s.name)
			continue
		}
		ew.printf("%s: hindex %d offset %d bits %#04x flags %#x\n", s.name, s.surf.HIndex, s.surf.Offset, s.surf.Bits, s.surf.Flags)
	}
	for _, p := range shaders.Programs() {
		ew.printf("%s, %d instructions:\n%s", p.Name, len(p.Code), p.Listing())
	}
	return ew.err
}

// shapeOf returns the uniform block shape of a program as the kernel's
// validator computes it: its texture samples (BO indices in front of the
// block) and uniform words, with the slots of each sample's P0 and P1 so
// that a dump decodes them.
func shapeOf(p *shaders.Program) uniforms.Shape {
	sh := uniforms.Shape{Samples: p.TextureSamples, Uniforms: len(p.Uniforms)}
	if p.TextureSamples > 0 {
		sh.Params = make([][]int, p.TextureSamples)
		for i, u := range p.Uniforms {
			if u.Kind == shaders.UniformTexP0 || u.Kind == shaders.UniformTexP1 {
				sh.Params[u.Sample] = append(sh.Params[u.Sample], i)
			}
		}
	}
	return sh
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
