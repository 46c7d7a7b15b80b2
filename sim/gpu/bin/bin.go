// Package bin is the VideoCore IV's binning pass: the control-list thread 0
// (CT0) state machine and the primitive tile binner (PTB). It runs a
// binning control list, shades every vertex's coordinates (through a
// Shader: the coordinate shader on a QPU in GL mode, or pre-shaded vertices
// in NV mode), assembles primitives, clips and culls them, and appends
// them with the state they need to the list of every tile they touch, in
// the hardware's compressed format in tile allocation memory ([AG] §8
// "System Pipelines and Modes", §9; doc/hardware.md#binning).
//
// What goes into the tile lists (our reading of [AG] §8: "the PTB only adds
// state change data to a list when the state is relevant to primitives
// actually entered in the list", and START_TILE_BINNING "advances the state
// counters so that the state items that follow actually go into tile
// lists"): every state item set after START_TILE_BINNING — configuration
// bits, flat shade flags, point size, line width, RHT x boundary, depth
// offset, clip window, viewport offset, Z clipping planes and the shader
// state — is copied into a tile's list, verbatim, before the first
// primitive that tile receives after the item changed. Items set before
// START_TILE_BINNING are "prefix state" that the render list must set
// itself ([AG] §8). The clipper scalings and the binning configuration are
// consumed by the binner only ("(B)" in [AG] Table 38). Each list gets a
// PRIMITIVE_LIST_FORMAT before its first compressed list and whenever the
// primitive type changes.
package bin

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
	"github.com/vccube/vccube/sim/hw"
	"github.com/vccube/vccube/sim/mem"
)

// Shader supplies the binner with shaded coordinates: out[i] for vertex
// index idx[i].
type Shader interface {
	Coords(st *vertex.State, idx []uint32, out []vertex.Coord) error
}

// State items the binner copies into tile lists.
const (
	itemConfig = iota
	itemFlatShade
	itemPointSize
	itemLineWidth
	itemRHTX
	itemDepthOffset
	itemClipWindow
	itemViewport
	itemZClip
	itemShader
	numItems
)

// item is one state item: the packet as the bin list gave it, and the
// generation at which it last changed (0: prefix state, never copied).
type item struct {
	raw [16]byte
	n   int
	gen uint32
}

// Binner runs binning lists. Use one per GPU; it is reused job after job.
type Binner struct {
	view     *mem.View
	th       *cle.Thread
	shader   Shader
	counters *hw.Counters
	sem      *cle.Semaphore
	waiting  bool

	configured, started bool
	tilesX, tilesY      int
	lists               lists

	items [numItems]item
	gen   uint32

	config     cl.ConfigurationBits
	pointSize  float32
	lineWidth  float32
	clipWindow raster.Rect
	hasClipWin bool
	vpX, vpY   int32
	xyScale    cl.ClipperXYScaling
	zScale     cl.ClipperZScaling
	state      vertex.State
	hasState   bool
	frame      raster.Rect
	side       int  // tile side in pixels (64, or 32 multisampled)
	ms         bool // 4× multisample mode
	listFormat cl.PrimitiveListFormat

	// The draw being binned and its window of shaded positions.
	draw     vertex.Indices
	vertices uint64 // vertices named by the job's draws so far
	winStart int
	winLen   int
	first    vertex.Coord // position 0, kept for fans and loops
	idx      []uint32     // the window's vertex indices, by position
	uniq     []uint32     // the window's distinct indices, shaded
	slot     []int32      // each position's place in uniq
	slotOf   vertex.Slots
	coords   []vertex.Coord
	// outc is the clipper's outcode of each slot of the window and
	// firstOutc position 0's, 0 until classify finds it.
	outc      []uint32
	firstOutc uint32
	reference bool // no outcodes kept, the planes made every primitive
	prim      raster.Prim
	clip      clipper
}

// New returns a binner that shades coordinates with s.
func New(s Shader) *Binner {
	return &Binner{shader: s}
}

// SetReference makes the binner's clipper test every vertex of every
// primitive against planes made for it, the general code its kept
// outcodes and planes stand for (gpu.Options.Reference).
func (b *Binner) SetReference(on bool) { b.reference = on }

// Start begins a job's binning list [start, end).
func (b *Binner) Start(v *mem.View, start, end uint32, overflow func() (mem.Region, bool), c *hw.Counters, sem *cle.Semaphore, limits cle.Limits) {
	b.view = v
	if b.th == nil {
		b.th = cle.NewThread(v, "CT0", limits)
	}
	b.th.SetView(v)
	b.th.Start(start, end)
	b.counters, b.sem = c, sem
	b.waiting = false
	b.configured, b.started = false, false
	b.items = [numItems]item{}
	b.gen = 0
	b.config = cl.ConfigurationBits{}
	b.pointSize, b.lineWidth = 1, 1
	b.hasClipWin, b.hasState = false, false
	b.vpX, b.vpY = 0, 0
	b.xyScale, b.zScale = cl.ClipperXYScaling{}, cl.ClipperZScaling{}
	b.listFormat = cl.PrimitiveListFormat{}
	b.vertices = 0
	b.lists.alloc = allocator{view: v, overflow: overflow}
}

// Thread returns the CLE thread (for its registers).
func (b *Binner) Thread() *cle.Thread { return b.th }

// OverflowsUsed returns how many overflow regions the job took.
func (b *Binner) OverflowsUsed() int { return b.lists.alloc.overflows }

func (b *Binner) count(event int, n uint64) {
	if b.counters != nil {
		b.counters[event] += n
	}
}

// Run executes the list until it ends or waits on the semaphore.
func (b *Binner) Run() (cle.Status, error) {
	if b.waiting {
		if !b.sem.Take() {
			return cle.Waiting, nil
		}
		b.waiting = false
	}
	for {
		p, err := b.th.Next()
		switch {
		case errors.Is(err, cle.ErrEnd), errors.Is(err, cle.ErrHalted):
			return cle.Done, nil
		case err != nil:
			return cle.Done, err
		}
		if err := b.packet(&p); err != nil {
			var h *cle.HangError
			if errors.As(err, &h) {
				return cle.Done, err
			}
			return cle.Done, b.th.Hang(p.Addr, fmt.Sprintf("%v: %v", p.Op, err), err)
		}
		if b.waiting {
			return cle.Waiting, nil
		}
	}
}

// setItem records a state item; after START_TILE_BINNING it will be copied
// into the tile lists that need it.
func (b *Binner) setItem(i int, raw []byte) {
	it := &b.items[i]
	if it.n == len(raw) && it.gen != 0 && string(it.raw[:it.n]) == string(raw) {
		return // unchanged: nothing new for the lists
	}
	it.n = copy(it.raw[:], raw)
	if b.started {
		b.gen++
		it.gen = b.gen
	}
}

func (b *Binner) packet(p *cle.Packet) error {
	raw := p.Bytes
	switch p.Op {
	case spec.OpTileBinningModeConfig:
		return b.binningConfig(raw)
	case spec.OpStartTileBinning:
		if !b.configured {
			return errors.New("START_TILE_BINNING before TILE_BINNING_MODE_CONFIG")
		}
		b.started = true
		return nil
	case spec.OpConfigurationBits:
		if err := b.config.Unpack(raw); err != nil {
			return err
		}
		b.setItem(itemConfig, raw)
	case spec.OpFlatShadeFlags:
		b.setItem(itemFlatShade, raw)
	case spec.OpPointSize:
		var q cl.PointSize
		q.Unpack(raw)
		b.pointSize = q.Size
		b.setItem(itemPointSize, raw)
	case spec.OpLineWidth:
		var q cl.LineWidth
		q.Unpack(raw)
		b.lineWidth = q.Width
		b.setItem(itemLineWidth, raw)
	case spec.OpRHTXBoundary:
		b.setItem(itemRHTX, raw)
	case spec.OpDepthOffset:
		b.setItem(itemDepthOffset, raw)
	case spec.OpClipWindow:
		var q cl.ClipWindow
		q.Unpack(raw)
		b.clipWindow = raster.ClipRect(&q)
		b.hasClipWin = true
		b.setItem(itemClipWindow, raw)
	case spec.OpViewportOffset:
		var q cl.ViewportOffset
		q.Unpack(raw)
		b.vpX, b.vpY = int32(q.X), int32(q.Y)
		b.setItem(itemViewport, raw)
	case spec.OpZClipping:
		b.setItem(itemZClip, raw)
	case spec.OpClipperXYScaling:
		return b.xyScale.Unpack(raw)
	case spec.OpClipperZScaling:
		return b.zScale.Unpack(raw)
	case spec.OpPrimitiveListFormat:
		// Mesa sends it after START_TILE_BINNING "to reset the current
		// compressed primitives format" (vc4_draw.c vc4_start_draw). The
		// binner writes its own format packets per list, so only the
		// value is kept.
		return b.listFormat.Unpack(raw)
	case spec.OpGLShaderState, spec.OpNVShaderState:
		st, err := vertex.DecodeState(b.view, raw)
		if err != nil {
			return err
		}
		b.state, b.hasState = st, true
		b.setItem(itemShader, raw)
	case spec.OpVGShaderState, spec.OpVGInlineShaderRecord, spec.OpVGCoordinateArrayPrimitives, spec.OpVGInlinePrimitives:
		return &tlb.Unsupported{What: "VG mode (" + p.Op.String() + ")"}
	case spec.OpGLArrayPrimitive:
		var q cl.GLArrayPrimitive
		q.Unpack(raw)
		return b.arrayPrimitive(q)
	case spec.OpGLIndexedPrimitive:
		var q cl.GLIndexedPrimitive
		q.Unpack(raw)
		return b.indexedPrimitive(q)
	case spec.OpFlush:
		return b.flush(false)
	case spec.OpFlushAll:
		return b.flush(true)
	case spec.OpIncrementSemaphore:
		b.sem.Increment()
	case spec.OpWaitOnSemaphore:
		b.waiting = !b.sem.Take()
	default:
		return fmt.Errorf("packet %v is not valid in a binning list ([AG] Table 38 marks it for rendering)", p.Op)
	}
	return nil
}

// binningConfig handles TILE_BINNING_MODE_CONFIG: the tile counts and the
// binning memory the kernel patched in ([AG] Table 38 id 112;
// vc4_validate.c validate_tile_binning_config).
func (b *Binner) binningConfig(raw []byte) error {
	var c cl.TileBinningModeConfig
	if err := c.Unpack(raw); err != nil {
		return err
	}
	switch {
	case c.Color64:
		return &tlb.Unsupported{What: "the 64-bit tile buffer"}
	case c.WidthInTiles == 0 || c.HeightInTiles == 0:
		return errors.New("TILE_BINNING_MODE_CONFIG with zero tiles")
	}
	b.tilesX, b.tilesY = int(c.WidthInTiles), int(c.HeightInTiles)
	n := b.tilesX * b.tilesY
	// 4× multisampling halves the tile side ([AG] §5 "Tile Buffer").
	b.ms, b.side = c.Multisample4x, tlb.Size
	if b.ms {
		b.side = tlb.SizeMS
	}
	b.frame = raster.Rect{X1: b.tilesX * b.side, Y1: b.tilesY * b.side}
	// The tile state data array, which the hardware writes
	// (spec.TileStateBytes a tile).
	if _, err := b.view.Write(c.TileStateAddress, uint32(spec.TileStateBytes*n), "PTB tile state data array"); err != nil {
		return err
	}
	initial := c.InitialBlockSize.Bytes()
	b.lists.blockSize = c.BlockSize.Bytes()
	area := initial * uint32(n)
	if area > c.TileAllocSize {
		return fmt.Errorf("tile allocation memory of %d bytes cannot hold %d initial blocks of %d bytes", c.TileAllocSize, n, initial)
	}
	buf, err := b.view.Write(c.TileAllocAddress, area, "PTB tile allocation memory")
	if err != nil {
		return err
	}
	b.lists.tiles = growTiles(b.lists.tiles, n)
	for i := range b.lists.tiles {
		t := &b.lists.tiles[i]
		*t = tileList{buf: buf[uint32(i)*initial : uint32(i+1)*initial : uint32(i+1)*initial], addr: c.TileAllocAddress + uint32(i)*initial}
	}
	// Further blocks follow the initial ones rounded up to 256 bytes
	// (vc4_validate.c: "The initial allocation gets rounded to the next
	// 256 bytes before the hardware starts fulfilling further
	// allocations").
	next := uint64(c.TileAllocAddress) + uint64((area+255)&^255)
	b.lists.alloc.next = uint32(min(next, uint64(c.TileAllocAddress)+uint64(c.TileAllocSize)))
	b.lists.alloc.limit = uint64(c.TileAllocAddress) + uint64(c.TileAllocSize)
	b.configured = true
	return nil
}

func growTiles(s []tileList, n int) []tileList {
	if cap(s) < n {
		return make([]tileList, n)
	}
	return s[:n]
}

// flush ends the tile lists (FLUSH), after forcing the current state into
// every list for FLUSH_ALL_STATE ([AG] Table 38 ids 4 and 5).
func (b *Binner) flush(all bool) error {
	if !b.configured {
		return errors.New("FLUSH before TILE_BINNING_MODE_CONFIG")
	}
	if all {
		for i := range b.lists.tiles {
			if err := b.writeState(&b.lists.tiles[i]); err != nil {
				return err
			}
		}
	}
	return b.lists.flush()
}

// writeState copies into t every state item that changed since t last
// received it.
func (b *Binner) writeState(t *tileList) error {
	for i := range b.items {
		it := &b.items[i]
		if it.gen == 0 || t.seen[i] == it.gen {
			continue
		}
		if err := b.lists.packet(t, it.raw[:it.n]); err != nil {
			return err
		}
		t.seen[i] = it.gen
	}
	return nil
}

// oversample says primitives cover sample points rather than pixel
// centres: CONFIGURATION_BITS' 4× rasteriser oversampling in 4×
// multisample mode (raster.Prim.Oversample). The binner sends a primitive
// to every tile one of its samples may fall in.
func (b *Binner) oversample() bool {
	return b.ms && b.config.Oversample == cl.OversampleMode4x
}

// scissor is the region primitives are binned in: the clip window (the
// whole frame until a CLIP_WINDOW is seen: our choice, the reset value is
// not documented) within the frame of tiles.
func (b *Binner) scissor() raster.Rect {
	if !b.hasClipWin {
		return b.frame
	}
	return b.clipWindow.Intersect(b.frame)
}

// emit writes a primitive (with its state) to every tile pr touches.
func (b *Binner) emit(pr *raster.Prim, f cl.PrimitiveListFormat, p prim.Prim, clipped []byte) error {
	r := pr.Bounds()
	side := b.side
	for ty := r.Y0 / side; ty <= (r.Y1-1)/side; ty++ {
		for tx := r.X0 / side; tx <= (r.X1-1)/side; tx++ {
			tr := raster.Rect{X0: tx * side, Y0: ty * side, X1: (tx + 1) * side, Y1: (ty + 1) * side}
			if !pr.TouchesRect(tr) {
				continue
			}
			t := &b.lists.tiles[ty*b.tilesX+tx]
			if err := b.writeState(t); err != nil {
				return err
			}
			if err := b.lists.primitive(t, f, p, clipped); err != nil {
				return err
			}
		}
	}
	return nil
}
