package render

import (
	"fmt"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/spec"
	"github.com/vccube/vccube/sim/gpu/cle"
	"github.com/vccube/vccube/sim/gpu/tlb"
)

// op is a packet the rendering thread executes, decoded once: its row of
// the packet table (cl/spec Packet.Render) and what executing it needs.
// The pass over the render list decodes every render-list packet into one
// and the workers execute those; a worker decodes the render list's own
// packets it meets in a tile list the same way. State and draw packets
// keep their bytes: the workers execute them from the bytes, as they do
// the packets of a tile list.
type op struct {
	addr  uint32 // the packet's address
	code  spec.Opcode
	eff   spec.Effect
	n     uint8
	sub   uint32          // spec.ControlCall: the sub-list's address
	clear tlb.ClearValues // spec.TileClearValues
	tile  tlb.Tile        // spec.ControlStartTile
	frame tlb.Frame       // spec.TileMode
	xfer  transfer        // spec.TileLoad, spec.TileStore
	raw   [cl.TileBinningModeConfigLen]byte
}

func (o *op) bytes() []byte { return o.raw[:o.n] }

// decode sets o to packet p, whose row of the packet table is d.
func (o *op) decode(d *spec.Packet, p *cle.Packet) error {
	*o = op{addr: p.Addr, code: p.Op, eff: d.Render}
	switch d.Render.Control {
	case spec.ControlStartTile:
		var q cl.TileCoordinates
		if err := q.Unpack(p.Bytes); err != nil {
			return err
		}
		o.tile = tlb.Tile{X: int(q.Column), Y: int(q.Row)}
	case spec.ControlCall:
		var q cl.BranchToSubList
		if err := q.Unpack(p.Bytes); err != nil {
			return err
		}
		o.sub = q.Address
	}
	switch d.Render.Tile {
	case spec.TileMode:
		var q cl.TileRenderingModeConfig
		if err := q.Unpack(p.Bytes); err != nil {
			return err
		}
		f, err := tlb.FrameOf(&q)
		if err != nil {
			return err
		}
		o.frame = f
	case spec.TileClearValues:
		var q cl.ClearColors
		if err := q.Unpack(p.Bytes); err != nil {
			return err
		}
		o.clear = tlb.ClearValuesOf(&q)
	case spec.TileLoad, spec.TileStore:
		return o.xfer.decode(d, p.Bytes)
	case spec.TileState, spec.TileDraw:
		o.n = uint8(copy(o.raw[:], p.Bytes))
	}
	return nil
}

// transfer is a load or a store between the tile buffer and memory.
type transfer struct {
	what   moves
	tiling cl.Tiling
	format cl.LoadStoreFormat
	addr   uint32
	// color and zs say which buffers a full-resolution load or store
	// moves.
	color, zs bool
	// resolve is a general store's 4× decimation (mode 1): each pixel
	// stores the average of its samples.
	resolve bool
	// err, when set, is what executing the transfer reports instead: a
	// mode the model lacks.
	err error
	// needsFrame says the transfer fails before any
	// TILE_RENDERING_MODE_CONFIG.
	needsFrame bool

	// Stores only. writes says the store writes memory for the current
	// tile; clearColor and clearZS what it clears afterwards; lastTile
	// is its last_tile (end of frame) field.
	writes              bool
	clearColor, clearZS bool
	lastTile            bool
}

// moves says what a transfer moves.
type moves uint8

const (
	movesNothing moves = iota // buffer none: a store still clears
	movesColor                // the colour buffer, at the tile's place in an image
	movesZS                   // the Z/stencil buffer, likewise
	movesFrame                // the colour buffer to the frame of TILE_RENDERING_MODE_CONFIG
	movesFullRes              // color and/or zs raw, at the address given
)

// decode sets t, which is zero, to the load or store p, whose row of the
// packet table is d. The general packets' fields: [AG] Table 38 ids 28 and 29; the
// full-resolution ones': ids 26 and 27. STORE_MS_TILE_BUFFER(_AND_EOF)
// stores the colour buffer to the frame buffer of the rendering mode (ids
// 24 and 25; Linux vc4_render_cl.c emit_tile).
func (t *transfer) decode(d *spec.Packet, p []byte) error {
	switch d.Op {
	case spec.OpLoadTileBufferGeneral:
		var q cl.LoadTileBufferGeneral
		if err := q.Unpack(p); err != nil {
			return err
		}
		t.needsFrame = true
		t.tiling, t.format, t.addr = q.Tiling, q.Format, q.Address
		switch q.Buffer {
		case cl.LoadBufferNone:
		case cl.LoadBufferColor:
			t.what = movesColor
		case cl.LoadBufferZS:
			t.what = movesZS
		default:
			t.err = &tlb.Unsupported{What: fmt.Sprintf("tile buffer load of buffer %v", q.Buffer)}
		}
	case spec.OpLoadFullResTileBuffer:
		var q cl.LoadFullResTileBuffer
		if err := q.Unpack(p); err != nil {
			return err
		}
		t.needsFrame = true
		t.what, t.addr = movesFullRes, q.Address
		t.color, t.zs = !q.DisableColorRead, !q.DisableZSRead
	case spec.OpStoreTileBufferGeneral:
		var q cl.StoreTileBufferGeneral
		if err := q.Unpack(p); err != nil {
			return err
		}
		// Only a store of buffer none may come before
		// TILE_RENDERING_MODE_CONFIG: the kernel's list primes the clear
		// values with one (vc4_render_cl.c vc4_create_rcl_bo;
		// doc/kernel.md#the-emitted-list).
		t.needsFrame = q.Buffer != cl.StoreBufferNone
		t.writes = q.Buffer != cl.StoreBufferNone
		t.tiling, t.format, t.addr = q.Tiling, q.Format, q.Address
		t.clearColor, t.clearZS, t.lastTile = !q.DisableColorClear, !q.DisableZSClear, q.LastTile
		t.resolve = q.Mode == cl.StoreModeDecimateX4
		switch {
		case q.Mode != cl.StoreModeSample0 && q.Mode != cl.StoreModeDecimateX4:
			t.err = &tlb.Unsupported{What: fmt.Sprintf("store mode %v", q.Mode)}
		case q.Buffer == cl.StoreBufferNone:
		case q.Buffer == cl.StoreBufferColor:
			t.what = movesColor
		case q.Buffer == cl.StoreBufferZS:
			t.what = movesZS
		default:
			t.err = &tlb.Unsupported{What: fmt.Sprintf("tile buffer store of buffer %v", q.Buffer)}
		}
	case spec.OpStoreMSTileBuffer, spec.OpStoreMSTileBufferAndEOF:
		t.needsFrame, t.writes = true, true
		t.what = movesFrame
		t.clearColor, t.clearZS = true, true
	case spec.OpStoreFullResTileBuffer:
		var q cl.StoreFullResTileBuffer
		if err := q.Unpack(p); err != nil {
			return err
		}
		t.needsFrame = true
		t.what, t.addr = movesFullRes, q.Address
		t.color, t.zs = !q.DisableColorWrite, !q.DisableZSWrite
		t.writes = t.color || t.zs
		t.clearColor, t.clearZS, t.lastTile = !q.DisableClear, !q.DisableClear, q.LastTile
	default:
		return unexecuted(d.Op)
	}
	return nil
}

// unexecuted is the error for a packet whose row of the packet table the
// model has no code for: a row added to cl/spec without its decoding or
// execution here (TestEveryEffectIsExecuted fails on one).
func unexecuted(op spec.Opcode) error { return &tlb.Unsupported{What: op.String()} }

// control is the rendering thread's control state: what the pass over the
// render list follows, what a chain starts from, and what a worker
// follows through its chains.
type control struct {
	frame    tlb.Frame
	hasFrame bool
	clear    tlb.ClearValues
	tile     tlb.Tile
	pending  loads
}

// follow applies o's effect on the control state. At a tile start it
// returns the loads that start triggers, valid until the next load.
func (c *control) follow(o *op) ([]transfer, error) {
	switch o.eff.Tile {
	case spec.TileMode:
		c.frame, c.hasFrame = o.frame, true
	case spec.TileClearValues:
		c.clear = o.clear
	case spec.TileLoad:
		return nil, c.pending.add(&o.xfer)
	}
	if o.eff.Control != spec.ControlStartTile {
		return nil, nil
	}
	c.tile = o.tile
	l := c.pending.q[:c.pending.n]
	c.pending.n = 0
	return l, nil
}

// loads are the loads waiting for the next tile.
type loads struct {
	q [2]transfer
	n int
}

// add queues a load.
func (l *loads) add(t *transfer) error {
	if l.n == len(l.q) {
		return fmt.Errorf("more than %d loads pending before TILE_COORDINATES", len(l.q))
	}
	l.q[l.n] = *t
	l.n++
	return nil
}
