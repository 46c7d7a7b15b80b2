package kernel

import "testing"

// The masks of the surface bits the kernel accepts, as vc4_render_cl.c
// writes them: VC4_RENDER_CONFIG_MS_MODE_4X | FORMAT_MASK |
// DECIMATE_MODE_4X | MEMORY_FORMAT_MASK for color_write
// (vc4_rcl_render_config_surface_setup), and VC4_LOADSTORE_TILE_BUFFER_
// BUFFER_MASK | TILING_MASK | FORMAT_MASK for the others
// (vc4_rcl_surface_setup); kernel-vc4.md §10.2, §10.3.
func TestSurfaceBitMasks(t *testing.T) {
	if renderBitsMask != 0x00DD {
		t.Errorf("color_write mask %#04x, want 0x00dd", renderBitsMask)
	}
	if loadStoreBitsMask != 0x0337 {
		t.Errorf("load/store mask %#04x, want 0x0337", loadStoreBitsMask)
	}
}
