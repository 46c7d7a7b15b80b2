package render

import (
	"errors"
	"fmt"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/prim"
	"github.com/vccube/vccube/cl/spec"
	"github.com/vccube/vccube/sim/gpu/cle"
	"github.com/vccube/vccube/sim/gpu/raster"
	"github.com/vccube/vccube/sim/gpu/tlb"
	"github.com/vccube/vccube/sim/gpu/vertex"
	"github.com/vccube/vccube/uapi"
)

// compressed decodes the compressed list after packet p (read through th)
// and renders its primitives. For CLIPPED_COMPRESSED_PRIMITIVE the first
// primitive's flagged vertices come from the clipped-primitive record
// ([AG] Table 38 id 49, Table 44).
//
// A relative branch inside the list (code 130) continues it at the
// branch code's own address plus the offset in 32-byte units: the base is
// not documented (our binner never writes one; cl/prim leaves the choice
// to us).
func (w *Worker) compressed(th *cle.Thread, p *cle.Packet) error {
	var clip cl.ClippedCompressedPrimitive
	if p.Op == spec.OpClippedCompressedPrimitive {
		clip.Unpack(p.Bytes)
	}
	dec := prim.Decoder{Format: w.st.format}
	nv := w.st.format.Type.Vertices()
	w.plist = w.plist[:0]
	for {
		at := th.PC()
		in, err := th.Inline()
		if err != nil {
			return err
		}
		it, err := dec.Next(in)
		if err != nil {
			return err
		}
		th.Skip(it.Len)
		switch it.Kind {
		case prim.Escape:
			return w.renderList()
		case prim.Branch:
			th.Jump(uint32(int64(at) + 32*int64(it.Branch)))
		default:
			lp := listPrim{nv: nv, idx: it.Prim.Index}
			if len(w.plist) == 0 && clip.ClipFlags != 0 {
				lp.clipped, lp.flags = clip.Address, clip.ClipFlags
			}
			w.plist = append(w.plist, lp)
		}
	}
}

// shadeMissing shades the vertices queued in w.need into the vertex cache.
func (w *Worker) shadeMissing() error {
	if len(w.need) == 0 {
		return nil
	}
	if !w.st.hasShader {
		return errors.New("primitives without a shader state")
	}
	w.batch.Reset(len(w.need), w.st.shader.NumVaryings())
	if err := w.vs.Vertices(&w.st.shader, w.need, &w.batch); err != nil {
		return err
	}
	w.counters[uapi.PerfcntQPUTotalClkCyclesVertexCoordShading] += 4 * (w.vs.Instructions - w.vsSeen)
	w.counters[uapi.PerfcntQPUTotalClkCyclesExecValidInst] += 4 * (w.vs.Instructions - w.vsSeen)
	w.vsSeen = w.vs.Instructions
	w.counters[uapi.PerfcntTMUTotalTextQuadsProcessed] += w.vs.TexQuads - w.vsTexSeen
	w.vsTexSeen = w.vs.TexQuads
	base := int32(w.cache.N)
	w.cache.Append(&w.batch)
	for i, v := range w.need {
		w.slotOf.Set(v, base+int32(i))
	}
	w.need = w.need[:0]
	return nil
}

// want queues index v for shading if it is not cached.
func (w *Worker) want(v uint32) {
	if _, ok := w.slotOf.Get(v); ok {
		return
	}
	w.slotOf.Set(v, -1)
	w.need = append(w.need, v)
}

// renderList shades the vertices of w.plist and renders it.
func (w *Worker) renderList() error {
	if w.cache.N > 1<<16 {
		// Bound the tile's vertex cache (a long direct draw).
		w.newShader()
	}
	for i := range w.plist {
		lp := &w.plist[i]
		for k := 0; k < lp.nv; k++ {
			w.want(lp.idx[k])
		}
	}
	if err := w.shadeMissing(); err != nil {
		return err
	}
	for i := range w.plist {
		if err := w.primitive(&w.plist[i]); err != nil {
			return err
		}
	}
	return nil
}

// direct renders a GL_ARRAY_PRIMITIVE or GL_INDEXED_PRIMITIVE met in the
// render list or a tile list: in render mode the PSE takes the
// primitives straight into the current tile (no binning, so no clipping).
func (w *Worker) direct(raw []byte) error {
	w.plist = w.plist[:0]
	var mode cl.PrimitiveMode
	var x vertex.Indices
	lim := w.r.opts.Limits
	if spec.Opcode(raw[0]) == spec.OpGLArrayPrimitive {
		var q cl.GLArrayPrimitive
		q.Unpack(raw)
		if err := lim.CountVertices(&w.vertices, q.Length); err != nil {
			return err
		}
		mode, x = q.Mode, vertex.ArrayIndices(&q)
	} else {
		var q cl.GLIndexedPrimitive
		q.Unpack(raw)
		if err := lim.CountVertices(&w.vertices, q.Length); err != nil {
			return err
		}
		var err error
		mode = q.Mode
		if x, err = vertex.IndexList(w.view, &q); err != nil {
			return err
		}
	}
	if mode > cl.PrimitiveModeTriangleFan {
		return fmt.Errorf("reserved primitive mode %d", mode)
	}
	a := directSink{w: w, idx: &x}
	if err := vertex.Assemble(mode, x.N, &a); err != nil {
		return err
	}
	return w.renderList()
}

// directSink collects a direct draw's primitives and renders them a batch
// at a time, so a long draw never holds more than a batch.
type directSink struct {
	w   *Worker
	idx *vertex.Indices
}

func (d *directSink) Primitive(nv int, a, b, c int) error {
	lp := listPrim{nv: nv}
	pos := [3]int{a, b, c}
	for k := 0; k < nv; k++ {
		lp.idx[k] = d.idx.At(pos[k])
	}
	d.w.plist = append(d.w.plist, lp)
	if len(d.w.plist) == 1024 {
		if err := d.w.renderList(); err != nil {
			return err
		}
		d.w.plist = d.w.plist[:0]
	}
	return nil
}

// scissor is the pixel region primitives may cover in the current tile:
// the tile ∩ the frame ∩ the clip window.
func (w *Worker) scissor() raster.Rect {
	r := w.tileInFrame()
	if w.st.hasClip {
		r = r.Intersect(w.st.clip)
	}
	return r
}

// tileInFrame is the pixel region of the current tile inside the frame:
// scissor's without the clip window.
func (w *Worker) tileInFrame() raster.Rect {
	side := w.frame.Side()
	x0, y0 := w.tile.X*side, w.tile.Y*side
	r := raster.Rect{X0: x0, Y0: y0, X1: x0 + side, Y1: y0 + side}
	return r.Intersect(raster.Rect{X1: w.frame.Width, Y1: w.frame.Height})
}

// primitive sets up and renders one primitive.
func (w *Worker) primitive(lp *listPrim) error {
	f := &w.frag
	nvary := w.st.shader.NumVaryings()
	for k := 0; k < lp.nv; k++ {
		s, _ := w.slotOf.Get(lp.idx[k])
		c := &w.cache
		f.verts[k] = raster.Vertex{X: int32(c.X[s]) + w.st.vpX, Y: int32(c.Y[s]) + w.st.vpY, Z: c.Z[s], InvW: c.InvW[s]}
		f.vary[k] = c.Vary[int(s)*nvary : int(s+1)*nvary]
		f.psize[k] = c.PointSize[s]
	}
	if lp.clipped != 0 {
		if err := w.clipped(lp, nvary); err != nil {
			return err
		}
	}
	sc := w.scissor()
	pr := &f.prim
	// 4× rasteriser oversampling: coverage per sample. Mesa sets it only
	// for a multisampled job ("Don't set the rasterizer to oversample if
	// we're doing our binning and load/stores in single-sample mode",
	// vc4_emit.c); what it does to a single-sample tile is not documented.
	pr.Oversample = w.st.config.Oversample == cl.OversampleMode4x
	if pr.Oversample && !w.frame.MS {
		return &tlb.Unsupported{What: "rasteriser oversampling without a multisample tile buffer"}
	}
	ok := false
	reverse := false
	pr.QuadRect = raster.Rect{} // triangles only (see below)
	switch lp.nv {
	case 1:
		size := w.st.pointSize
		if w.st.shader.PointSizeIncluded() {
			size = f.psize[0]
		}
		ok = pr.SetupPoint(&f.verts[0], size, sc)
	case 2:
		ok = pr.SetupLine(&f.verts[0], &f.verts[1], w.st.lineWidth, sc)
	default:
		wd := raster.Winding(&f.verts[0], &f.verts[1], &f.verts[2])
		if wd == raster.Degenerate {
			return nil
		}
		var drawn bool
		reverse, drawn = raster.Facing(&w.st.config, wd)
		if reverse {
			w.counters[uapi.PerfcntPSEPrimsReversed]++
		}
		if !drawn {
			return nil
		}
		ok = pr.SetupTriangle(&f.verts[0], &f.verts[1], &f.verts[2], sc, reverse)
		// The multisample clip-window rule (raster BlockSamples) comes
		// from blits, which are triangles; lines and points keep a
		// per-pixel clip window.
		pr.QuadRect = w.tileInFrame()
		if ok && w.st.config.EnableDepthOffset {
			pr.SetDepthOffset(w.st.depth.Factor, w.st.depth.Units)
		}
	}
	if !ok {
		w.counters[uapi.PerfcntFEPValidPrimsNoRender]++
		return nil
	}
	return f.shadePrim(lp.nv, nvary)
}

// clipped replaces the flagged vertices of a clipped primitive by the
// record's: position, Zs and 1/Wc from the record, varyings as the
// record's coefficients weight the original vertices' ([AG] Table 44),
// except the flat-shaded ones, which take the original primitive's
// provoking (last) vertex's value: the model's choice, as OpenGL
// requires; the hardware's is not documented (doc/hardware.md#varyings).
func (w *Worker) clipped(lp *listPrim, nvary int) error {
	f := &w.frag
	n := 0
	for k := 0; k < lp.nv; k++ {
		if lp.flags&(1<<k) != 0 {
			n++
		}
	}
	rec, err := w.view.Read(lp.clipped, uint32(n*cl.ClippedVertexLen), "PSE clipped primitive record")
	if err != nil {
		return err
	}
	orig := f.vary
	e := 0
	var out [3]raster.Vertex
	for k := 0; k < lp.nv; k++ {
		out[k] = f.verts[k]
		if lp.flags&(1<<k) == 0 {
			continue
		}
		var cv cl.ClippedVertex
		cv.Unpack(rec[e*cl.ClippedVertexLen:])
		e++
		out[k] = raster.Vertex{X: int32(cv.ScreenX) + w.st.vpX, Y: int32(cv.ScreenY) + w.st.vpY, Z: cv.ScreenZ, InvW: cv.InvWc}
		co := [3]float32{cv.VaryingCoef0, cv.VaryingCoef1, cv.VaryingCoef2}
		dst := f.clipVary[k][:nvary]
		for j := range dst {
			if j < 32 && w.st.flat&(1<<j) != 0 {
				// A flat varying keeps the provoking vertex's value
				// on every piece (doc/hardware.md#varyings).
				dst[j] = orig[lp.nv-1][j]
				continue
			}
			var v float32
			for o := 0; o < lp.nv; o++ {
				v += co[o] * orig[o][j]
			}
			dst[j] = v
		}
		f.vary[k] = dst
	}
	f.verts = out
	return nil
}
