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

	control
	st renderState
	// listOp is the packet of a tile list being executed, decoded.
	listOp op

	vs *vcd.Unit
	// The vertex cache: vertices shaded for the current shader state in
	// this tile, by index.
	cache     vertex.Shaded
	slotOf    vertex.Slots
	batch     vertex.Shaded
	need      []uint32
	plist     []listPrim
	vsSeen    uint64
	vsTexSeen uint64 // w.vs.TexQuads already counted
	// vertices counts the vertices direct draws named in the chain.
	vertices uint64
	// ops and stateOps are the pass's slices as published for the chain
	// being run; last is the index of the last chain of the batch this
	// worker ran (-1 for none).
	ops      []op
	stateOps []int
	last     int
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
	w := &Worker{r: r}
	w.th = cle.NewThread(nil, "CT1", r.opts.Limits)
	w.inline = cle.NewThread(nil, "CT1", r.opts.Limits)
	w.vs = vcd.NewUnit(r.cache, 2*i, r.opts.Permissive)
	w.vs.SetReference(r.opts.Reference)
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
		w.clearBuf(s.clear, true, true)
	}
	w.cleared = false
	w.control = s.control
	w.st.reset()
	w.newShader()
	w.vertices = 0
	for _, i := range w.stateOps[:s.nstate] {
		if err := w.state(w.ops[i].bytes()); err != nil {
			return err
		}
	}
	for i := c.first; i < c.end; i++ {
		o := &w.ops[i]
		if err := w.op(o); err != nil {
			var h *cle.HangError
			if errors.As(err, &h) {
				return err
			}
			return w.th.Hang(o.addr, fmt.Sprintf("%v: %v", o.code, err), err)
		}
	}
	w.cleared, w.clearedTo = c.cleared, w.clear
	return nil
}

// newShader forgets the vertex cache (a new shader state or a new tile).
func (w *Worker) newShader() {
	w.slotOf.Reset()
	w.cache.Reset(0, w.st.shader.NumVaryings())
	w.st.fs = nil
}

// op executes a decoded packet: its effect on the control state, as the
// pass over the render list followed it, then the rest of its control
// effect and its tile effect.
func (w *Worker) op(o *op) error {
	loads, err := w.follow(o)
	if err != nil {
		return err
	}
	switch o.eff.Control {
	case spec.ControlStartTile:
		// The vertex cache is per tile: the hardware shades again for
		// every tile list ([AG] §8; doc/hardware.md#pipeline-modes).
		w.newShader()
		for i := range loads {
			if err := w.load(&loads[i]); err != nil {
				return err
			}
		}
	case spec.ControlCall:
		return w.runList(o.sub)
	}
	switch o.eff.Tile {
	case spec.TileStore:
		return w.store(&o.xfer)
	case spec.TileState:
		return w.state(o.bytes())
	case spec.TileDraw:
		if spec.Lookup(o.code).Inline == spec.NoInline {
			p := cle.Packet{Op: o.code, Addr: o.addr, Bytes: o.bytes()}
			return w.draw(nil, &p)
		}
		// A list inline in the render list: decode it from memory.
		w.inline.Start(o.addr, o.addr-1)
		p, err := w.inline.Next()
		if err != nil {
			return err
		}
		return w.draw(w.inline, &p)
	}
	return nil
}

// listPacket executes a packet of a tile list: state and draws from its
// bytes, the render list's own packets (tiles, loads, stores, the
// rendering mode, clear values) decoded as the render list's are. The
// pass over the render list does not look into tile lists, so it neither
// counts a frame nor cuts a chain at a store there; the binner writes no
// such packet into a tile list (cl/spec TileList).
func (w *Worker) listPacket(p *cle.Packet) error {
	d := spec.Lookup(p.Op)
	switch d.Render.Tile {
	case spec.TileState:
		return w.state(p.Bytes)
	case spec.TileDraw:
		return w.draw(w.th, p)
	}
	switch d.Render.Control {
	case 0, spec.ControlWait, spec.ControlSignal:
		return fmt.Errorf("packet %v is not valid in a tile list", p.Op)
	}
	if err := w.listOp.decode(d, p); err != nil {
		return err
	}
	return w.op(&w.listOp)
}

// draw executes a draw packet read through th (the thread that reads any
// list inline after it).
func (w *Worker) draw(th *cle.Thread, p *cle.Packet) error {
	switch p.Op {
	case spec.OpCompressedPrimitive, spec.OpClippedCompressedPrimitive:
		return w.compressed(th, p)
	case spec.OpGLArrayPrimitive, spec.OpGLIndexedPrimitive:
		return w.direct(p.Bytes)
	case spec.OpVGCoordinateArrayPrimitives, spec.OpVGInlinePrimitives:
		return &tlb.Unsupported{What: "VG mode"}
	}
	return unexecuted(p.Op)
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
		case s.config.Oversample > cl.OversampleMode4x:
			return &tlb.Unsupported{What: fmt.Sprintf("rasteriser oversample mode %v", s.config.Oversample)}
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
	case spec.OpRHTXBoundary, spec.OpZClipping:
		// Binner state, or VG state the model does not render with.
	case spec.OpVGShaderState, spec.OpVGInlineShaderRecord:
		return &tlb.Unsupported{What: "VG mode"}
	default:
		return unexecuted(spec.Opcode(raw[0]))
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
		if err = w.listPacket(&p); err != nil {
			var h *cle.HangError
			if errors.As(err, &h) {
				return err
			}
			return w.th.Hang(p.Addr, fmt.Sprintf("%v: %v", p.Op, err), err)
		}
	}
}

var (
	errLoadNoFrame = errors.New("load before TILE_RENDERING_MODE_CONFIG")
	errNoFrame     = errors.New("store before any TILE_RENDERING_MODE_CONFIG")
)

// load executes a load when its tile starts.
func (w *Worker) load(t *transfer) error {
	if !w.hasFrame {
		return errLoadNoFrame
	}
	if t.err != nil {
		return t.err
	}
	switch t.what {
	case movesColor:
		return w.buf.LoadColor(w.view, t.addr, t.tiling, t.format, w.tile, &w.frame)
	case movesZS:
		return w.buf.LoadZS(w.view, t.addr, t.tiling, w.tile, &w.frame)
	case movesFullRes:
		return w.buf.LoadFullRes(w.view, t.addr, t.color, t.zs)
	}
	return nil
}

// msFormat is the load/store colour format of a rendering-mode format:
// RGBA8888 is 1 there and 0 here ([AG] Table 38 id 113 "0,1,2=bgr565
// dithered, rgba8888, bgr565"; ids 28 and 29 "0,1,2 = rgba8888, bgr565
// dithered, bgr565 no dither"; doc/hardware.md#mode-configuration).
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
// has been written out the Tile Buffer ... is automatically cleared"; the
// disable-clear bits: [AG] Table 38 ids 26 and 28,
// doc/hardware.md#load-and-store).
func (w *Worker) store(t *transfer) error {
	if t.needsFrame && !w.hasFrame {
		return errNoFrame
	}
	if t.err != nil {
		return t.err
	}
	var err error
	if t.resolve && (!w.frame.MS || t.what == movesZS) {
		// A 4× decimated store needs the four samples of multisample
		// mode; what it does to Z/stencil is not documented.
		return &tlb.Unsupported{What: "a 4x decimated store of a single-sample or Z/stencil buffer"}
	}
	switch t.what {
	case movesColor:
		if t.resolve {
			err = w.buf.StoreColorResolved(w.view, t.addr, t.tiling, t.format, w.tile, &w.frame)
		} else {
			err = w.buf.StoreColor(w.view, t.addr, t.tiling, t.format, w.tile, &w.frame)
		}
	case movesZS:
		err = w.buf.StoreZS(w.view, t.addr, t.tiling, w.tile, &w.frame)
	case movesFrame:
		// The rendering mode's decimation: the average of each pixel's
		// samples (4×) or sample 0 (1×) in multisample mode ([AG] Table
		// 38 id 113; Mesa vc4_job.c sets 4× for every multisampled job:
		// "Controls whether color_write's VC4_PACKET_STORE_MS_TILE_BUFFER
		// does 4x decimation").
		if w.frame.Resolve {
			err = w.buf.StoreColorResolved(w.view, w.frame.Addr, w.frame.Tiling, msFormat(w.frame.Format), w.tile, &w.frame)
		} else {
			err = w.buf.StoreColor(w.view, w.frame.Addr, w.frame.Tiling, msFormat(w.frame.Format), w.tile, &w.frame)
		}
	case movesFullRes:
		err = w.buf.StoreFullRes(w.view, t.addr, t.color, t.zs)
	}
	if err != nil {
		return err
	}
	w.clearBuf(w.clear, t.clearColor, t.clearZS)
	return nil
}

// clearBuf clears the tile buffer: only the rows written since it was
// last cleared to the same values, or with Options.Reference all of it.
func (w *Worker) clearBuf(c tlb.ClearValues, color, zs bool) {
	if w.r.opts.Reference {
		w.buf.Clear(c, color, zs)
		return
	}
	w.buf.ClearWritten(c, color, zs)
}
