package spec

import "testing"

// Every packet that may appear in a render list or a tile list has a row
// of effects: a packet added to the table with those lists and no Render
// fails here. Packets the rendering thread never executes have none.
func TestEveryRenderedPacketHasAnEffect(t *testing.T) {
	for i := range Packets {
		p := &Packets[i]
		e := p.Render
		if p.Lists&(RenderList|TileList) == 0 {
			if e != (Effect{}) {
				t.Errorf("%s (lists %v) has render effect %v", p.Name, p.Lists, e)
			}
			continue
		}
		if e.Control == 0 || e.Control > ControlEndFrame || e.Tile == 0 || e.Tile > TileDraw {
			t.Errorf("%s (lists %v) has no render effect (%v)", p.Name, p.Lists, e)
		}
	}
}

// The rows the renderer's walks turn on, each with its source.
func TestEffectRows(t *testing.T) {
	for _, c := range []struct {
		op   Opcode
		want Effect
		src  string
	}{
		{OpTileCoordinates, Effect{ControlStartTile, TileNone}, "AG §9: a tile list has one Tile Coordinates item at the start"},
		{OpStoreMSTileBuffer, Effect{ControlEndTile, TileStore}, "AG §9: one Store Tile Buffer item (24, 25, 26, or 28) at the end"},
		{OpStoreMSTileBufferAndEOF, Effect{ControlEndFrame, TileStore}, "AG Table 38 id 25: and signal end of frame"},
		{OpStoreFullResTileBuffer, Effect{ControlEndTile, TileStore}, "AG §9; its Last Tile of Frame bit ends the frame"},
		{OpStoreTileBufferGeneral, Effect{ControlEndTile, TileStore}, "AG §9; its Last Tile of Frame bit ends the frame"},
		{OpLoadFullResTileBuffer, Effect{ControlNone, TileLoad}, "AG §9: a load occurs before the Tile Coordinates of its tile"},
		{OpLoadTileBufferGeneral, Effect{ControlNone, TileLoad}, "AG §9"},
		{OpBranchToSubList, Effect{ControlCall, TileNone}, "AG Table 38 id 17; vc4_render_cl.c emit_tile calls each tile list"},
		{OpBranch, Effect{ControlBranch, TileNone}, "AG Table 38 id 16"},
		{OpReturnFromSubList, Effect{ControlReturn, TileNone}, "AG Table 38 id 18"},
		{OpHalt, Effect{ControlHalt, TileNone}, "AG Table 38 id 0"},
		{OpNOP, Effect{ControlNone, TileNone}, "AG Table 38 id 1"},
		{OpIncrementSemaphore, Effect{ControlSignal, TileNone}, "AG Table 38 id 7"},
		{OpWaitOnSemaphore, Effect{ControlWait, TileNone}, "AG Table 38 id 8"},
		{OpTileRenderingModeConfig, Effect{ControlNone, TileMode}, "AG Table 38 id 113"},
		{OpClearColors, Effect{ControlNone, TileClearValues}, "AG Table 38 id 114"},
		{OpCompressedPrimitive, Effect{ControlNone, TileDraw}, "AG Table 38 id 48"},
		{OpClippedCompressedPrimitive, Effect{ControlNone, TileDraw}, "AG Table 38 id 49"},
		{OpGLArrayPrimitive, Effect{ControlNone, TileDraw}, "AG Table 38 id 33"},
		{OpGLIndexedPrimitive, Effect{ControlNone, TileDraw}, "AG Table 38 id 32"},
		{OpGLShaderState, Effect{ControlNone, TileState}, "AG Table 38 id 64"},
		{OpPrimitiveListFormat, Effect{ControlNone, TileState}, "AG Table 38 id 56"},
		{OpClipWindow, Effect{ControlNone, TileState}, "AG Table 38 id 102"},
	} {
		if got := Lookup(c.op).Render; got != c.want {
			t.Errorf("%v: effect %v, want %v (%s)", c.op, got, c.want, c.src)
		}
	}
}

// A tile starts at TILE_COORDINATES and nowhere else, and ends at a store
// and nowhere else (AG §9 "Control Record IDs and Data Summary").
func TestOnlyCoordinatesAndStoresStartAndEndTiles(t *testing.T) {
	for i := range Packets {
		p := &Packets[i]
		switch c := p.Render.Control; {
		case c == ControlStartTile && p.Op != OpTileCoordinates:
			t.Errorf("%s starts a tile", p.Name)
		case (c == ControlEndTile || c == ControlEndFrame) != (p.Render.Tile == TileStore):
			t.Errorf("%s: %v; a tile ends at a store and only there (AG §9)", p.Name, p.Render)
		}
	}
}

// What the binner writes into a tile list only draws, sets state or
// chains the list: the render list alone starts and ends tiles, loads,
// stores and sets the rendering mode (AG §8 "System Operation": the host
// adds "a 'tile coords' item before and a 'store tile' item after each
// tile list").
func TestTileListPacketsDrawOrSetState(t *testing.T) {
	for i := range Packets {
		p := &Packets[i]
		if p.Lists&TileList == 0 {
			continue
		}
		switch p.Render.Control {
		case ControlNone, ControlBranch, ControlReturn:
		default:
			t.Errorf("%s in a tile list: control %v", p.Name, p.Render.Control)
		}
		switch p.Render.Tile {
		case TileNone, TileState, TileDraw:
		default:
			t.Errorf("%s in a tile list: tile effect %v", p.Name, p.Render.Tile)
		}
	}
}
