package render

import (
	"testing"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/spec"
	"github.com/vccube/vccube/sim/gpu/cle"
	"github.com/vccube/vccube/sim/gpu/qpuexec"
	"github.com/vccube/vccube/sim/gpu/tlb"
	"github.com/vccube/vccube/sim/mem"
)

// Every packet the rendering thread may execute has code here for its row
// of the packet table (cl/spec Packet.Render): a packet added to cl/spec
// with an effect this package neither decodes nor executes fails. The
// packets carry zero payloads in a job with no memory, so most executions
// fail, but not for want of code.
func TestEveryEffectIsExecuted(t *testing.T) {
	r := New(qpuexec.NewCache(), Options{Workers: 1})
	defer r.Close()
	w := r.workers[0]
	w.setView(mem.NewView(nil))
	w.th.Start(0x1000, 0x2000)
	for i := range spec.Packets {
		d := &spec.Packets[i]
		if d.Render == (spec.Effect{}) {
			continue
		}
		raw := make([]byte, d.Len)
		raw[0] = byte(d.Op)
		p := cle.Packet{Op: d.Op, Addr: 0x1000, Bytes: raw}
		var o op
		err := o.decode(d, &p)
		if err == nil {
			switch d.Render.Tile {
			case spec.TileState:
				err = w.state(raw)
			case spec.TileDraw:
				err = w.draw(w.th, &p)
			}
		}
		if err != nil && err.Error() == unexecuted(d.Op).Error() {
			t.Errorf("%s (%v): %v", d.Name, d.Render, err)
		}
	}
}

// The pass over the render list takes tiles, frames and chains from the
// packet table's rows: TILE_COORDINATES starts a tile and runs the loads
// before it, every store ends one, a store with end of frame counts a
// frame, a store that clears the whole buffer ends a chain, and
// BRANCH_TO_SUB_LIST calls a tile list.
func TestPassFollowsTheTable(t *testing.T) {
	r := New(qpuexec.NewCache(), Options{Workers: 1})
	defer r.Close()
	r.Start(mem.NewView(nil), 0, 0, nil, &cle.Semaphore{})
	feed := func(b []byte) *op {
		t.Helper()
		p := cle.Packet{Op: spec.Opcode(b[0]), Addr: 0x1000, Bytes: b}
		if err := r.packet(&p); err != nil {
			t.Fatalf("%v: %v", p.Op, err)
		}
		return &r.ops[len(r.ops)-1]
	}
	check := func(what string, chains, frames int) {
		t.Helper()
		if len(r.chains) != chains || r.frames != frames {
			t.Fatalf("after %s: %d chains and %d frames, want %d and %d", what, len(r.chains), r.frames, chains, frames)
		}
	}
	feed(cl.TileRenderingModeConfig{Width: 128, Height: 64, Format: cl.RenderFormatRGBA8888}.Append(nil))
	if !r.hasFrame || r.frame.Width != 128 {
		t.Fatalf("rendering mode: %+v", r.frame)
	}
	feed(cl.LoadTileBufferGeneral{Buffer: cl.LoadBufferColor, Address: 0x10000}.Append(nil))
	if r.pending.n != 1 {
		t.Fatalf("%d loads pending, want 1", r.pending.n)
	}
	o := feed(cl.TileCoordinates{Column: 1}.Append(nil))
	if r.tile != (tlb.Tile{X: 1}) || o.tile != r.tile || r.pending.n != 0 {
		t.Fatalf("TILE_COORDINATES: tile %+v (op %+v), %d loads pending", r.tile, o.tile, r.pending.n)
	}
	if o := feed(cl.BranchToSubList{Address: 0x4000}.Append(nil)); o.eff.Control != spec.ControlCall || o.sub != 0x4000 {
		t.Fatalf("BRANCH_TO_SUB_LIST: %v to %#x", o.eff, o.sub)
	}
	// A store that keeps the colour buffer ends the tile, not the chain.
	feed(cl.StoreTileBufferGeneral{Buffer: cl.StoreBufferZS, DisableColorClear: true, Address: 0x20000}.Append(nil))
	check("a store that keeps colour", 0, 0)
	feed(cl.TileCoordinates{Column: 1}.Append(nil))
	feed(cl.StoreMSTileBuffer{}.Append(nil))
	check("STORE_MS_TILE_BUFFER", 1, 0)
	feed(cl.TileCoordinates{}.Append(nil))
	feed(cl.StoreTileBufferGeneral{LastTile: true}.Append(nil))
	check("a general store with last_tile", 2, 1)
	feed(cl.TileCoordinates{}.Append(nil))
	feed(cl.StoreFullResTileBuffer{DisableColorWrite: true, DisableZSWrite: true, LastTile: true}.Append(nil))
	check("a full-resolution store with last_tile", 3, 2)
	feed(cl.TileCoordinates{}.Append(nil))
	feed(cl.StoreMSTileBufferAndEOF{}.Append(nil))
	check("STORE_MS_TILE_BUFFER_AND_EOF", 4, 3)
	if c := r.chains[0]; c.first != 0 || c.end != 7 || !c.cleared {
		t.Fatalf("first chain %+v, want ops 0 to 7, ending clear", c)
	}

	// State packets are recorded as the render list's state, for every
	// chain after them; a bin-only packet is refused.
	feed(cl.ClipWindow{Width: 64, Height: 64}.Append(nil))
	if len(r.stateOps) != 1 || r.ops[r.stateOps[0]].code != spec.OpClipWindow {
		t.Fatalf("state ops %v", r.stateOps)
	}
	p := cle.Packet{Op: spec.OpFlush, Bytes: cl.Flush{}.Append(nil)}
	if err := r.packet(&p); err == nil {
		t.Fatal("FLUSH in a render list: no error")
	}
}
