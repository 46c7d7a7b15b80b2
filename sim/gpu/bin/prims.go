package bin

import (
	"errors"
	"fmt"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/prim"
	"github.com/vccube/vccube/sim/gpu/raster"
	"github.com/vccube/vccube/sim/gpu/vertex"
	"github.com/vccube/vccube/uapi"
)

// arrayPrimitive handles GL_ARRAY_PRIMITIVE: vertices first … first+length−1.
func (b *Binner) arrayPrimitive(q cl.GLArrayPrimitive) error {
	if err := b.th.Limits().CountVertices(&b.vertices, q.Length); err != nil {
		return err
	}
	b.draw = vertex.ArrayIndices(&q)
	return b.drawPrims(q.Mode)
}

// indexedPrimitive handles GL_INDEXED_PRIMITIVE.
func (b *Binner) indexedPrimitive(q cl.GLIndexedPrimitive) error {
	if err := b.th.Limits().CountVertices(&b.vertices, q.Length); err != nil {
		return err
	}
	x, err := vertex.IndexList(b.view, &q)
	if err != nil {
		return err
	}
	b.draw = x
	return b.drawPrims(q.Mode)
}

// window is how many consecutive vertex positions of a draw are shaded at
// a time. The hardware's vertex cache (VCM) is small too; how often a
// vertex is shaded changes only the counters, never the result.
const window = 1024

// drawPrims assembles and bins the primitives of the draw in b.draw.
func (b *Binner) drawPrims(mode cl.PrimitiveMode) error {
	if !b.started {
		return errors.New("primitives before START_TILE_BINNING")
	}
	if !b.hasState {
		return errors.New("primitives without a shader state")
	}
	if mode > cl.PrimitiveModeTriangleFan {
		return fmt.Errorf("reserved primitive mode %d", mode)
	}
	n := b.draw.N
	if n == 0 {
		return nil
	}
	b.winStart, b.winLen = 0, 0
	// Position 0 stays available for fans and loops.
	if err := b.shade(0, 1); err != nil {
		return err
	}
	b.first, b.firstOutc = b.coords[0], 0
	return vertex.Assemble(mode, n, b)
}

// shade shades positions [lo, lo+count) of the draw into the window,
// each distinct index once.
func (b *Binner) shade(lo, count int) error {
	count = min(count, b.draw.N-lo)
	b.slotOf.Reset()
	b.uniq = b.uniq[:0]
	b.slot = b.slot[:0]
	b.idx = b.idx[:0]
	for p := lo; p < lo+count; p++ {
		v := b.draw.At(p)
		s, ok := b.slotOf.Get(v)
		if !ok {
			s = int32(len(b.uniq))
			b.slotOf.Set(v, s)
			b.uniq = append(b.uniq, v)
		}
		b.slot = append(b.slot, s)
		b.idx = append(b.idx, v)
	}
	if cap(b.coords) < len(b.uniq) {
		b.coords = make([]vertex.Coord, len(b.uniq), window)
	}
	b.coords = b.coords[:len(b.uniq)]
	if cap(b.outc) < len(b.uniq) {
		b.outc = make([]uint32, len(b.uniq), window)
	}
	b.outc = b.outc[:len(b.uniq)]
	clear(b.outc)
	if err := b.shader.Coords(&b.state, b.uniq, b.coords); err != nil {
		return err
	}
	b.winStart, b.winLen = lo, count
	return nil
}

// cover makes the window hold positions lo..hi (hi − lo < 3).
func (b *Binner) cover(lo, hi int) error {
	if lo >= b.winStart && hi < b.winStart+b.winLen {
		return nil
	}
	return b.shade(lo, max(window, hi-lo+1))
}

// coord returns the shaded coordinates and list index of position p, which
// the window holds (or 0).
func (b *Binner) coord(p int) (*vertex.Coord, uint32) {
	if p == 0 && b.winStart != 0 {
		return &b.first, listIndex(b.draw.At(0))
	}
	return &b.coords[b.slot[p-b.winStart]], listIndex(b.idx[p-b.winStart])
}

// outcode returns where the clipper's outcode of position p is kept: as
// coord, the window's slot for it, or position 0's own.
func (b *Binner) outcode(p int) *uint32 {
	if p == 0 && b.winStart != 0 {
		return &b.firstOutc
	}
	return &b.outc[b.slot[p-b.winStart]]
}

// listIndex is the index the PTB writes into a tile list: 16 bits
// (erratum GFXH-515, Mesa vc4_draw.c vc4_draw_vbo: "The binner emits 16 bit
// indices for drawarrays, which means that if start + count > 64k it would
// truncate the top bits"), so array draws past vertex 65535 wrap, as on the
// hardware.
func listIndex(v uint32) uint32 { return v & 0xFFFF }

var listFormats = [4]cl.PrimitiveListFormat{
	1: {Type: cl.PrimitiveListTypePoints, DataType: cl.PrimitiveListData16BitIndex},
	2: {Type: cl.PrimitiveListTypeLines, DataType: cl.PrimitiveListData16BitIndex},
	3: {Type: cl.PrimitiveListTypeTriangles, DataType: cl.PrimitiveListData16BitIndex},
}

// screen is a binned vertex's screen position (viewport offset added).
func (b *Binner) screen(c *vertex.Coord) raster.Vertex {
	return raster.Vertex{X: int32(c.X) + b.vpX, Y: int32(c.Y) + b.vpY, Z: c.Z, InvW: c.InvW}
}

// Primitive bins one primitive of nv vertices at draw positions pa, pb, pc
// (vertex.Sink).
func (b *Binner) Primitive(nv int, pa, pb, pc int) error {
	pos := [3]int{pa, pb, pc}
	lo, hi := b.draw.N, 0
	for k := 0; k < nv; k++ {
		if pos[k] != 0 {
			lo, hi = min(lo, pos[k]), max(hi, pos[k])
		}
	}
	if lo <= hi {
		if err := b.cover(lo, hi); err != nil {
			return err
		}
	}
	var cs [3]*vertex.Coord
	var p prim.Prim
	for k := 0; k < nv; k++ {
		cs[k], p.Index[k] = b.coord(pos[k])
	}
	if b.state.ClippingEnabled() {
		var memo []*uint32
		if !b.reference {
			var m [3]*uint32
			for k := 0; k < nv; k++ {
				m[k] = b.outcode(pos[k])
			}
			memo = m[:nv]
		}
		switch b.clip.classify(b, cs[:nv], memo) {
		case outside:
			b.count(uapi.PerfcntPLBPrimsOutsideViewport, 1)
			return nil
		case needsClipping:
			b.count(uapi.PerfcntPLBPrimsNeedClipping, 1)
			if nv == 1 {
				return nil // a point is either in or out
			}
			return b.clipAndEmit(nv, cs, p)
		}
	}
	sc := b.scissor()
	b.prim.Oversample = b.oversample()
	f := listFormats[nv]
	switch nv {
	case 1:
		v := b.screen(cs[0])
		size := b.pointSize
		if b.state.PointSizeIncluded() {
			size = cs[0].PointSize
		}
		if !b.prim.SetupPoint(&v, size, sc) {
			b.count(uapi.PerfcntPLBPrimsOutsideViewport, 1)
			return nil
		}
	case 2:
		v0, v1 := b.screen(cs[0]), b.screen(cs[1])
		if !b.prim.SetupLine(&v0, &v1, b.lineWidth, sc) {
			b.count(uapi.PerfcntPLBPrimsOutsideViewport, 1)
			return nil
		}
	default:
		v0, v1, v2 := b.screen(cs[0]), b.screen(cs[1]), b.screen(cs[2])
		if _, drawn := raster.Facing(&b.config, raster.Winding(&v0, &v1, &v2)); !drawn {
			return nil
		}
		if !b.prim.SetupTriangle(&v0, &v1, &v2, sc, false) {
			b.count(uapi.PerfcntPLBPrimsOutsideViewport, 1)
			return nil
		}
	}
	return b.emit(&b.prim, f, p, nil)
}
