package kernel

import (
	"testing"

	"github.com/vccube/vccube/cl/spec"
)

// The masks of the surface bits the kernel accepts, as vc4_render_cl.c
// writes them: VC4_RENDER_CONFIG_MS_MODE_4X | FORMAT_MASK |
// DECIMATE_MODE_4X | MEMORY_FORMAT_MASK for color_write
// (vc4_rcl_render_config_surface_setup), and VC4_LOADSTORE_TILE_BUFFER_
// BUFFER_MASK | TILING_MASK | FORMAT_MASK for the others
// (vc4_rcl_surface_setup); doc/kernel.md#surfaces.
func TestSurfaceBitMasks(t *testing.T) {
	if renderBitsMask != 0x00DD {
		t.Errorf("color_write mask %#04x, want 0x00dd", renderBitsMask)
	}
	if loadStoreBitsMask != 0x0337 {
		t.Errorf("load/store mask %#04x, want 0x0337", loadStoreBitsMask)
	}
}

// The kernel's masks (packet.go, from vc4_packet.h) and cl/spec's
// description of the same packets (from the reference guide) place every
// field the kernel reads at the same bits. color_write's bits are payload
// bits 79:64 of TILE_RENDERING_MODE_CONFIG; the address word of
// STORE_TILE_BUFFER_GENERAL starts at payload bit 16.
func TestSurfaceBitsAgreeWithSpec(t *testing.T) {
	for _, c := range []struct {
		op    spec.Opcode
		field string
		base  uint   // payload bit of the kernel word's bit 0
		mask  uint32 // the kernel's mask in that word
		shift uint   // and shift (the field's lowest bit)
		name  string
	}{
		{spec.OpTileRenderingModeConfig, "multisample_4x", 64, renderConfigMSMode4x, 0, "VC4_RENDER_CONFIG_MS_MODE_4X"},
		{spec.OpTileRenderingModeConfig, "format", 64, renderConfigFormatMask, renderConfigFormatShift, "VC4_RENDER_CONFIG_FORMAT"},
		{spec.OpTileRenderingModeConfig, "tiling", 64, renderConfigMemoryFormatMask, renderConfigMemoryFormatShift, "VC4_RENDER_CONFIG_MEMORY_FORMAT"},
		{spec.OpStoreTileBufferGeneral, "buffer", 0, loadStoreBufferMask, loadStoreBufferShift, "VC4_LOADSTORE_TILE_BUFFER_BUFFER"},
		{spec.OpStoreTileBufferGeneral, "tiling", 0, loadStoreTilingMask, loadStoreTilingShift, "VC4_LOADSTORE_TILE_BUFFER_TILING"},
		{spec.OpStoreTileBufferGeneral, "format", 0, loadStoreFormatMask, loadStoreFormatShift, "VC4_LOADSTORE_TILE_BUFFER_FORMAT"},
		{spec.OpLoadTileBufferGeneral, "buffer", 0, loadStoreBufferMask, loadStoreBufferShift, "VC4_LOADSTORE_TILE_BUFFER_BUFFER"},
		{spec.OpLoadTileBufferGeneral, "tiling", 0, loadStoreTilingMask, loadStoreTilingShift, "VC4_LOADSTORE_TILE_BUFFER_TILING"},
		{spec.OpLoadTileBufferGeneral, "format", 0, loadStoreFormatMask, loadStoreFormatShift, "VC4_LOADSTORE_TILE_BUFFER_FORMAT"},
		{spec.OpStoreTileBufferGeneral, "disable_color_clear", 0, storeDisableColorClear, 13, "VC4_STORE_TILE_BUFFER_DISABLE_COLOR_CLEAR"},
		{spec.OpStoreTileBufferGeneral, "last_tile", 16, loadStoreEOF, 3, "VC4_LOADSTORE_TILE_BUFFER_EOF"},
	} {
		f := spec.Lookup(c.op).Field(c.field)
		if f == nil {
			t.Errorf("%v has no field %s", c.op, c.field)
			continue
		}
		want := uint32(1<<f.Width-1) << (f.Start - c.base)
		if c.mask != want || c.shift != f.Start-c.base {
			t.Errorf("%s: kernel mask %#x shift %d; cl/spec's %v.%s is bits %d+%d, mask %#x",
				c.name, c.mask, c.shift, c.op, c.field, f.Start, f.Width, want)
		}
	}
	// The kernel accepts only the 4x value of the render config's
	// decimate field: the field's low bit.
	if f := spec.Lookup(spec.OpTileRenderingModeConfig).Field("decimate"); renderConfigDecimateMode4x != 1<<(f.Start-64) {
		t.Errorf("VC4_RENDER_CONFIG_DECIMATE_MODE_4X %#x, cl/spec's decimate field starts at payload bit %d", renderConfigDecimateMode4x, f.Start)
	}
	// Enum values: cl/spec names the same numbers.
	for _, c := range []struct {
		e     *spec.Enum
		name  string
		value uint32
	}{
		{spec.RenderFormat, "bgr565_dithered", renderConfigFormatBGR565Dithered},
		{spec.RenderFormat, "rgba8888", renderConfigFormatRGBA8888},
		{spec.RenderFormat, "bgr565", renderConfigFormatBGR565},
		{spec.LoadStoreFormat, "rgba8888", loadStoreFormatRGBA8888},
		{spec.LoadStoreFormat, "bgr565_dithered", loadStoreFormatBGR565Dither},
		{spec.LoadStoreFormat, "bgr565", loadStoreFormatBGR565},
		{spec.StoreBuffer, "color", loadStoreBufferColor},
		{spec.StoreBuffer, "zs", loadStoreBufferZS},
		{spec.Tiling, "linear", tilingLinear},
		{spec.Tiling, "t", tilingT},
		{spec.Tiling, "lt", tilingLT},
	} {
		if name, ok := c.e.NameOf(c.value); !ok || name != c.name {
			t.Errorf("%s value %d is %q in cl/spec, the kernel's %q", c.e.GoName, c.value, name, c.name)
		}
	}
}
