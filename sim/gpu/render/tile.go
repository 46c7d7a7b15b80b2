package render

import (
	"errors"
	"fmt"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/prim"
	"github.com/vccube/vccube/cl/spec"
	"github.com/vccube/vccube/sim/gpu/cle"
	"github.com/vccube/vccube/sim/gpu/qpuexec"
	"github.com/vccube/vccube/sim/gpu/raster"
	"github.com/vccube/vccube/sim/gpu/tlb"
	"github.com/vccube/vccube/sim/gpu/vcd"
	"github.com/vccube/vccube/sim/gpu/vertex"
	"github.com/vccube/vccube/sim/hw"
	"github.com/vccube/vccube/sim/mem"
)

// renderState is the state the render thread keeps for primitives: set
// by state packets in tile lists (or the render list itself).
type renderState struct {
	config     cl.ConfigurationBits
	flat       uint32
	pointSize  float32
	lineWidth  float32
	depth      cl.DepthOffset
	clip       raster.Rect
	hasClip    bool
	vpX, vpY   int32
	shader     vertex.State
	hasShader  bool
	format     prim.Format
	fs         *qpuexec.Program // loaded on first use after a shader change
	fsUniforms uint32
}

func (s *renderState) reset() {
	*s = renderState{pointSize: 1, lineWidth: 1, format: prim.Format{Type: prim.Triangles, IndexBits: 16}}
}

// Worker renders chains of tiles. Each has its own tile buffer, control
// thread, QPUs, TMUs and vertex cache.
type Worker struct {
	r        *Renderer
	view     *mem.View
	buf      tlb.Buffer
	th       *cle.Thread // tile lists
	inline   *cle.Thread // compressed lists inline in the render list
	counters hw.Counters

	frame    tlb.Frame
	hasFrame bool
	clear    tlb.ClearValues
	tile     tlb.Tile
	pending  [2]op
	npending int
	st       renderState

	vs *vcd.Unit
	// The vertex cache: vertices shaded for the current shader state in
	// this tile, by index.
	cache  vertex.Shaded
	slotOf map[uint32]int32
	batch  vertex.Shaded
	need   []uint32
	plist  []listPrim
	vsSeen uint64
	// vertices counts the vertices direct draws named in the chain.
	vertices uint64
	// cleared says the last chain this worker ran ended with the store
	// that cleared the whole buffer, to clearedTo: the next chain need not
	// clear it again.
	cleared   bool
	clearedTo tlb.ClearValues

	frag fragment
}

// listPrim is a primitive from a compressed list.
type listPrim struct {
	nv      int
	idx     [3]uint32
	clipped uint32 // record address of a clipped primitive, or 0
	flags   uint8
}

func newWorker(r *Renderer, i int) *Worker {
	w := &Worker{r: r, slotOf: map[uint32]int32{}}
	w.th = cle.NewThread(nil, "CT1", r.opts.Limits)
	w.inline = cle.NewThread(nil, "CT1", r.opts.Limits)
	w.vs = vcd.NewUnit(r.cache, 2*i, r.opts.Permissive)
	w.frag.init(w, 2*i+1)
	return w
}

func (w *Worker) setView(v *mem.View) {
	w.view = v
	w.th.SetView(v)
	w.inline.SetView(v)
	w.vs.SetView(v)
	w.frag.setView(v)
}

// runChain renders one chain of operations.
func (w *Worker) runChain(c *chain) error {
	r := w.r
	s := &c.start
	switch {
	case s.carry:
		w.buf = r.carryIn
	case w.cleared && w.clearedTo == s.clear:
		// The previous chain this worker ran ended with the store that
		// cleared the whole buffer to these values: it is clear already.
	default:
		w.buf.Clear(s.clear, true, true)
	}
	w.cleared = false
	w.frame, w.hasFrame, w.clear, w.tile = s.frame, s.hasFrame, s.clear, s.tile
	w.npending = s.npending
	for i := 0; i < s.npending; i++ {
		w.pending[i] = r.ops[s.pending[i]]
	}
	w.st.reset()
	w.newShader()
	w.vertices = 0
	for _, i := range r.stateOps[:s.nstate] {
		o := &r.ops[i]
		if err := w.exec(o.bytes(), o.addr); err != nil {
			return err
		}
	}
	for i := c.first; i < c.end; i++ {
		o := &r.ops[i]
		if err := w.exec(o.bytes(), o.addr); err != nil {
			var h *cle.HangError
			if errors.As(err, &h) {
				return err
			}
			return w.th.Hang(o.addr, fmt.Sprintf("%v: %v", spec.Opcode(o.raw[0]), err), err)
		}
	}
	w.cleared, w.clearedTo = c.cleared, w.clear
	return nil
}

// newShader forgets the vertex cache (a new shader state or a new tile).
func (w *Worker) newShader() {
	clear(w.slotOf)
	w.cache.Reset(0, w.st.shader.NumVaryings())
	w.st.fs = nil
}

// exec executes one packet of the render list or of a tile list.
func (w *Worker) exec(raw []byte, addr uint32) error {
	op := spec.Opcode(raw[0])
	switch op {
	case spec.OpTileRenderingModeConfig:
		var q cl.TileRenderingModeConfig
		q.Unpack(raw)
		f, err := tlb.FrameOf(&q)
		if err != nil {
			return err
		}
		w.frame, w.hasFrame = f, true
	case spec.OpClearColors:
		var q cl.ClearColors
		q.Unpack(raw)
		w.clear = tlb.ClearValuesOf(&q)
	case spec.OpTileCoordinates:
		var q cl.TileCoordinates
		q.Unpack(raw)
		w.tile = tlb.Tile{X: int(q.Column), Y: int(q.Row)}
		// The vertex cache is per tile: the hardware shades again for
		// every tile list ([AG] §8; doc/hardware.md#pipeline-modes).
		w.newShader()
		for i := 0; i < w.npending; i++ {
			if err := w.load(w.pending[i].bytes()); err != nil {
				return err
			}
		}
		w.npending = 0
	case spec.OpLoadTileBufferGeneral, spec.OpLoadFullResTileBuffer:
		if w.npending == len(w.pending) {
			return fmt.Errorf("more than %d loads pending before TILE_COORDINATES", len(w.pending))
		}
		o := &w.pending[w.npending]
		o.addr, o.n = addr, uint8(copy(o.raw[:], raw))
		w.npending++
	case spec.OpStoreTileBufferGeneral, spec.OpStoreMSTileBuffer, spec.OpStoreMSTileBufferAndEOF, spec.OpStoreFullResTileBuffer:
		return w.store(raw)
	case spec.OpBranchToSubList:
		var q cl.BranchToSubList
		q.Unpack(raw)
		return w.runList(q.Address)
	case spec.OpCompressedPrimitive, spec.OpClippedCompressedPrimitive:
		// Inline in the render list: decode the list from memory.
		w.inline.Start(addr, addr-1)
		p, err := w.inline.Next()
		if err != nil {
			return err
		}
		return w.compressed(w.inline, &p)
	case spec.OpGLArrayPrimitive, spec.OpGLIndexedPrimitive:
		return w.direct(raw)
	case spec.OpHalt:
		return &tlb.Unsupported{What: "HALT inside a tile list (it would stop the render thread mid-frame)"}
	case spec.OpNOP:
	default:
		return w.state(raw)
	}
	return nil
}

// state applies a state packet ([AG] Table 38).
func (w *Worker) state(raw []byte) error {
	s := &w.st
	switch spec.Opcode(raw[0]) {
	case spec.OpConfigurationBits:
		s.config.Unpack(raw)
		switch {
		case s.config.CoveragePipeSelect:
			return &tlb.Unsupported{What: "the coverage accumulation pipe"}
		case s.config.Oversample != cl.OversampleModeNone:
			return &tlb.Unsupported{What: "rasteriser oversampling"}
		}
	case spec.OpFlatShadeFlags:
		var q cl.FlatShadeFlags
		q.Unpack(raw)
		s.flat = q.Flags
	case spec.OpPointSize:
		var q cl.PointSize
		q.Unpack(raw)
		s.pointSize = q.Size
	case spec.OpLineWidth:
		var q cl.LineWidth
		q.Unpack(raw)
		s.lineWidth = q.Width
	case spec.OpDepthOffset:
		s.depth.Unpack(raw)
	case spec.OpClipWindow:
		var q cl.ClipWindow
		q.Unpack(raw)
		s.clip = raster.ClipRect(&q)
		s.hasClip = true
	case spec.OpViewportOffset:
		var q cl.ViewportOffset
		q.Unpack(raw)
		s.vpX, s.vpY = int32(q.X), int32(q.Y)
	case spec.OpGLShaderState, spec.OpNVShaderState:
		st, err := vertex.DecodeState(w.view, raw)
		if err != nil {
			return err
		}
		if !s.hasShader || st.Addr != s.shader.Addr || st.Kind != s.shader.Kind {
			s.shader, s.hasShader = st, true
			w.newShader()
		} else {
			s.shader = st
		}
	case spec.OpPrimitiveListFormat:
		var q cl.PrimitiveListFormat
		q.Unpack(raw)
		f, err := prim.FormatOf(q)
		if err != nil {
			return err
		}
		s.format = f
	case spec.OpRHTXBoundary, spec.OpZClipping, spec.OpClipperXYScaling, spec.OpClipperZScaling:
		// Binner state, or VG state the model does not render with.
	case spec.OpVGShaderState, spec.OpVGInlineShaderRecord, spec.OpVGCoordinateArrayPrimitives, spec.OpVGInlinePrimitives:
		return &tlb.Unsupported{What: "VG mode"}
	default:
		return fmt.Errorf("packet %v is not valid in a tile list", spec.Opcode(raw[0]))
	}
	return nil
}

// runList runs a tile list (a sub-list of the render list).
func (w *Worker) runList(addr uint32) error {
	w.th.Call(addr)
	for {
		p, err := w.th.Next()
		switch {
		case errors.Is(err, cle.ErrReturned):
			return nil
		case errors.Is(err, cle.ErrHalted):
			return &tlb.Unsupported{What: "HALT inside a tile list (it would stop the render thread mid-frame)"}
		case err != nil:
			return err
		}
		if p.Op == spec.OpCompressedPrimitive || p.Op == spec.OpClippedCompressedPrimitive {
			err = w.compressed(w.th, &p)
		} else {
			err = w.exec(p.Bytes, p.Addr)
		}
		if err != nil {
			var h *cle.HangError
			if errors.As(err, &h) {
				return err
			}
			return w.th.Hang(p.Addr, fmt.Sprintf("%v: %v", p.Op, err), err)
		}
	}
}

// load executes a pending load at TILE_COORDINATES.
func (w *Worker) load(raw []byte) error {
	if !w.hasFrame {
		return errors.New("load before TILE_RENDERING_MODE_CONFIG")
	}
	switch spec.Opcode(raw[0]) {
	case spec.OpLoadTileBufferGeneral:
		var q cl.LoadTileBufferGeneral
		q.Unpack(raw)
		switch q.Buffer {
		case cl.LoadBufferNone:
			return nil
		case cl.LoadBufferColor:
			return w.buf.LoadColor(w.view, q.Address, q.Tiling, q.Format, w.tile, &w.frame)
		case cl.LoadBufferZS:
			return w.buf.LoadZS(w.view, q.Address, q.Tiling, w.tile, &w.frame)
		}
		return &tlb.Unsupported{What: fmt.Sprintf("tile buffer load of buffer %v", q.Buffer)}
	case spec.OpLoadFullResTileBuffer:
		var q cl.LoadFullResTileBuffer
		q.Unpack(raw)
		return w.buf.LoadFullRes(w.view, q.Address, !q.DisableColorRead, !q.DisableZSRead)
	}
	return nil
}

var errNoFrame = errors.New("store before any TILE_RENDERING_MODE_CONFIG")

// msFormat is the load/store colour format of a rendering-mode format
// (RGBA8888 is 1 there and 0 here; doc/hardware.md#mode-configuration).
func msFormat(f cl.RenderFormat) cl.LoadStoreFormat {
	switch f {
	case cl.RenderFormatRGBA8888:
		return cl.LoadStoreFormatRGBA8888
	case cl.RenderFormatBGR565Dithered:
		return cl.LoadStoreFormatBGR565Dithered
	}
	return cl.LoadStoreFormatBGR565
}

// store executes a store and the clear after it ([AG] §5: "Once each tile
// has been written out the Tile Buffer ... is automatically cleared";
// doc/hardware.md#load-and-store for the disable bits).
//
// Only a store of buffer none may come before TILE_RENDERING_MODE_CONFIG:
// the kernel's list primes the clear values with one (vc4_render_cl.c
// vc4_create_rcl_bo; doc/kernel.md#the-emitted-list).
func (w *Worker) store(raw []byte) error {
	clearColor, clearZS := true, true
	switch spec.Opcode(raw[0]) {
	case spec.OpStoreTileBufferGeneral:
		var q cl.StoreTileBufferGeneral
		q.Unpack(raw)
		if !w.hasFrame && q.Buffer != cl.StoreBufferNone {
			return errNoFrame
		}
		if q.Mode != cl.StoreModeSample0 {
			return &tlb.Unsupported{What: "decimated stores"}
		}
		var err error
		switch q.Buffer {
		case cl.StoreBufferNone:
		case cl.StoreBufferColor:
			err = w.buf.StoreColor(w.view, q.Address, q.Tiling, q.Format, w.tile, &w.frame)
		case cl.StoreBufferZS:
			err = w.buf.StoreZS(w.view, q.Address, q.Tiling, w.tile, &w.frame)
		default:
			err = &tlb.Unsupported{What: fmt.Sprintf("tile buffer store of buffer %v", q.Buffer)}
		}
		if err != nil {
			return err
		}
		clearColor, clearZS = !q.DisableColorClear, !q.DisableZSClear
	case spec.OpStoreMSTileBuffer, spec.OpStoreMSTileBufferAndEOF:
		if !w.hasFrame {
			return errNoFrame
		}
		if err := w.buf.StoreColor(w.view, w.frame.Addr, w.frame.Tiling, msFormat(w.frame.Format), w.tile, &w.frame); err != nil {
			return err
		}
	case spec.OpStoreFullResTileBuffer:
		if !w.hasFrame {
			return errNoFrame
		}
		var q cl.StoreFullResTileBuffer
		q.Unpack(raw)
		if err := w.buf.StoreFullRes(w.view, q.Address, !q.DisableColorWrite, !q.DisableZSWrite); err != nil {
			return err
		}
		clearColor, clearZS = !q.DisableClear, !q.DisableClear
	}
	w.buf.Clear(w.clear, clearColor, clearZS)
	return nil
}
