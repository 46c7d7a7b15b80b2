package spec

import "fmt"

// Effect is what a packet does when the rendering thread (CLE thread 1)
// executes it, in the render list or in a tile list the render list calls:
// its effect on the thread's control and on the tile being rendered.
// Packet.Render holds it for every packet that may appear in a render list
// or a tile list (Packet.Lists); the packets the rendering thread never
// executes keep the zero Effect.
//
// The simulated GPU's renderer (sim/gpu/render) reads it for both of its
// walks: the pass over the render list that cuts it into tiles and
// follows the render state, and the per-tile execution of the tiles and
// their tile lists.
type Effect struct {
	// Control is the effect on the thread's flow and tile sequence.
	Control Control
	// Tile is the effect on the tile being rendered.
	Tile TileEffect
}

// Control is a packet's effect on the rendering thread's control: the
// flow of its list and the sequence of tiles it renders. The zero value
// describes nothing.
type Control uint8

// Control effects.
const (
	// ControlNone: the thread goes on with the next packet.
	ControlNone Control = iota + 1
	// ControlHalt: the thread stops (AG Table 38 id 0).
	ControlHalt
	// ControlBranch: the thread goes on at the packet's address (AG
	// Table 38 id 16).
	ControlBranch
	// ControlCall: the thread calls the sub-list at the packet's address,
	// at most two levels deep (AG Table 38 id 17); the render list calls
	// each tile's list so (Linux vc4_render_cl.c emit_tile).
	ControlCall
	// ControlReturn: the thread returns from a sub-list, or goes on if it
	// is in none (AG Table 38 id 18).
	ControlReturn
	// ControlSignal: the thread increments the semaphore the other thread
	// waits on (AG Table 38 id 7).
	ControlSignal
	// ControlWait: the thread waits until the other thread has
	// incremented the semaphore (AG Table 38 id 8); the kernel's render
	// list waits so for the binner before the first tile list
	// (vc4_render_cl.c emit_tile).
	ControlWait
	// ControlStartTile: a tile starts. The packets after it render into
	// that tile, general loads and stores address it, and the loads
	// issued since the last tile happen now (AG §9 "Control Record IDs
	// and Data Summary": "each tile list must have one Tile Coordinates
	// item (115) at the start"; vc4_render_cl.c vc4_tile_coordinates:
	// the packet "triggers a pending load if there is one, are used for
	// clipping during rendering, and determine where loads/stores happen
	// relative to their base address").
	ControlStartTile
	// ControlEndTile: the tile ends (AG §9: "and one Store Tile Buffer
	// item (24, 25, 26, or 28) at the end"). A store whose last_tile field
	// is set ends the frame too (AG Table 38 ids 26 and 28, "Last Tile of
	// Frame").
	ControlEndTile
	// ControlEndFrame: the tile ends, and the frame with it (AG Table 38
	// id 25, "signal end of frame").
	ControlEndFrame
)

var controlNames = [...]string{"", "none", "halt", "branch", "call", "return", "signal", "wait", "start tile", "end tile", "end frame"}

// String names the control effect.
func (c Control) String() string {
	if c != 0 && int(c) < len(controlNames) {
		return controlNames[c]
	}
	return fmt.Sprintf("Control(%d)", uint8(c))
}

// TileEffect is a packet's effect on the tile the rendering thread
// renders. The zero value describes nothing.
type TileEffect uint8

// Tile effects.
const (
	// TileNone: the tile is not affected.
	TileNone TileEffect = iota + 1
	// TileMode: the packet sets the rendering mode: the frame buffer,
	// its size and format, and the tile buffer's mode (AG Table 38
	// id 113). AG §9: "Rendering mode lists start with a Tile Rendering
	// Mode Configuration item (113)".
	TileMode
	// TileClearValues: the packet sets the values stores clear the tile
	// buffer to (AG Table 38 id 114). The buffer is cleared at the next
	// store, not now: "The tile buffer gets cleared when the previous tile
	// is stored" (vc4_render_cl.c vc4_create_rcl_bo).
	TileClearValues
	// TileLoad: the packet loads the tile buffer from memory when the
	// next tile starts (AG §9: a Load Tile Buffer item "must occur before
	// the Tile Coordinates item (115) of the tile list of interest";
	// vc4_render_cl.c emit_tile: "the load doesn't actually occur until
	// the tile coords packet is processed").
	TileLoad
	// TileStore: the packet writes the tile buffer to memory and then
	// clears it to the clear values, but for the buffers its disable-clear
	// fields keep (AG §5: the tile buffer "is automatically cleared" once
	// each tile has been written out; Table 38 ids 24–26 and 28).
	TileStore
	// TileState: the packet sets state the tile's primitives are drawn
	// with: the shader state or one of the render state records (AG §9:
	// "state data records"; AG Table 38 ids 56, 64–67, 96–104).
	TileState
	// TileDraw: the packet draws primitives into the current tile (AG
	// Table 38 ids 32, 33, 41, 42, 48 and 49).
	TileDraw
)

var tileEffectNames = [...]string{"", "none", "mode", "clear values", "load", "store", "state", "draw"}

// String names the tile effect.
func (t TileEffect) String() string {
	if t != 0 && int(t) < len(tileEffectNames) {
		return tileEffectNames[t]
	}
	return fmt.Sprintf("TileEffect(%d)", uint8(t))
}

// String reads "control/tile", e.g. "end tile/store".
func (e Effect) String() string { return e.Control.String() + "/" + e.Tile.String() }
