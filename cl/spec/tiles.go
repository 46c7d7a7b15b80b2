package spec

// Tile geometry: the sizes the binning and rendering packets count in.
// TILE_BINNING_MODE_CONFIG and TILE_RENDERING_MODE_CONFIG give a frame in
// tiles, the binner keeps per-tile state, and the full-resolution loads and
// stores move one tile buffer at a time. These are the only statements of
// those numbers; cl/bincl, the simulated kernel and the simulated GPU read
// them from here.

// Tile sides in pixels. The tile buffer holds 64×64 samples, so a tile is
// 64×64 pixels without multisampling and 32×32 pixels with 4× multisampling
// (AG §5 "Tile Buffer"; Mesa vc4_job.c vc4_get_job: tile_width =
// tile_height = msaa ? 32 : 64).
const (
	// TileSize is the side of a tile without multisampling.
	TileSize = 64
	// TileSizeMSAA is the side of a tile with 4× multisampling.
	TileSizeMSAA = 32
)

// TileSide returns the side of a tile in pixels: TileSizeMSAA with 4×
// multisampling, TileSize without.
func TileSide(msaa bool) int {
	if msaa {
		return TileSizeMSAA
	}
	return TileSize
}

// TileBufferSamples is the number of samples the tile buffer holds: 64×64,
// which is one 64×64-pixel tile or one 32×32-pixel tile at 4 samples a
// pixel (AG §5).
const TileBufferSamples = TileSize * TileSize

// FullResTileBytes is the size of one buffer (colour or Z/stencil) of a
// full-resolution tile dump, LOAD/STORE_FULL_RES_TILE_BUFFER (AG Table 38
// ids 26, 27): 64×64 samples of 4 bytes, 16 KiB, whatever the tile size
// (Linux vc4_packet.h VC4_TILE_BUFFER_SIZE "Size of a full resolution color
// or Z tile buffer load/store", 64 * 64 * 4; vc4_render_cl.c
// vc4_full_res_offset).
const FullResTileBytes = TileBufferSamples * 4

// TileStateBytes is the size of one tile's entry in the tile state data
// array whose address TILE_BINNING_MODE_CONFIG gives: "size of 48 bytes *
// num tiles" (AG Table 38 id 112; Linux vc4_validate.c
// validate_tile_binning_config: tile_state_size = 48 * tile_count). The
// binner owns its contents, which are not documented.
const TileStateBytes = 48
