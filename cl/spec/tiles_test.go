package spec

import "testing"

// The tile numbers against their sources, written out by hand: AG §5 and
// Mesa vc4_job.c for the sides, vc4_packet.h VC4_TILE_BUFFER_SIZE
// (64 * 64 * 4 = 16384) for a full-resolution buffer, and vc4_validate.c
// validate_tile_binning_config (48 * tile_count) for the tile state.
func TestTileNumbers(t *testing.T) {
	if TileSide(false) != 64 || TileSide(true) != 32 {
		t.Errorf("tile sides %d and %d (MSAA), want 64 and 32", TileSide(false), TileSide(true))
	}
	if FullResTileBytes != 16384 {
		t.Errorf("FullResTileBytes = %d, want VC4_TILE_BUFFER_SIZE 16384", FullResTileBytes)
	}
	// The buffer holds the same samples with and without multisampling.
	if s := TileSide(true); s*s*4 != TileBufferSamples {
		t.Errorf("a %d×%d tile at 4 samples is %d samples, the buffer %d", s, s, s*s*4, TileBufferSamples)
	}
	if TileStateBytes != 48 {
		t.Errorf("TileStateBytes = %d, want 48", TileStateBytes)
	}
}
