package spec

import "testing"

// Bit positions copied by hand from the defines of Linux
// drivers/gpu/drm/vc4/vc4_packet.h (torvalds/linux 2cc2c3cb), converted to
// payload (or record) bit numbers: "byte 1 of config bits, BIT(7)" is
// payload bit 15, "last u8 of TILE_BINNING_MODE_CONFIG" is payload byte
// 14, "last u16 of TILE_RENDERING_MODE_CONFIG" starts at payload bit 64.
// The table was written from AG Table 38; this checks it against the
// kernel's independent copy of the same facts.
func TestBitsAgainstKernelHeader(t *testing.T) {
	cases := []struct {
		op           Opcode
		field        string
		start, width uint
		define       string
	}{
		{OpConfigurationBits, "enable_forward_facing", 0, 1, "VC4_CONFIG_BITS_ENABLE_PRIM_FRONT BIT(0), byte 0"},
		{OpConfigurationBits, "enable_reverse_facing", 1, 1, "VC4_CONFIG_BITS_ENABLE_PRIM_BACK BIT(1)"},
		{OpConfigurationBits, "clockwise", 2, 1, "VC4_CONFIG_BITS_CW_PRIMITIVES BIT(2)"},
		{OpConfigurationBits, "enable_depth_offset", 3, 1, "VC4_CONFIG_BITS_ENABLE_DEPTH_OFFSET BIT(3)"},
		{OpConfigurationBits, "antialiased_points_lines", 4, 1, "VC4_CONFIG_BITS_AA_POINTS_AND_LINES BIT(4)"},
		{OpConfigurationBits, "oversample", 6, 2, "VC4_CONFIG_BITS_RASTERIZER_OVERSAMPLE_* << 6"},
		{OpConfigurationBits, "coverage_pipe_select", 8, 1, "VC4_CONFIG_BITS_COVERAGE_PIPE_SELECT BIT(0), byte 1"},
		{OpConfigurationBits, "coverage_update", 9, 2, "VC4_CONFIG_BITS_COVERAGE_UPDATE_* << 1, byte 1"},
		{OpConfigurationBits, "coverage_read_mode", 11, 1, "VC4_CONFIG_BITS_COVERAGE_READ_LEAVE BIT(3), byte 1"},
		{OpConfigurationBits, "depth_func", 12, 3, "VC4_CONFIG_BITS_DEPTH_FUNC_SHIFT 4, byte 1"},
		{OpConfigurationBits, "z_updates", 15, 1, "VC4_CONFIG_BITS_Z_UPDATE BIT(7), byte 1"},
		{OpConfigurationBits, "early_z", 16, 1, "VC4_CONFIG_BITS_EARLY_Z BIT(0), byte 2"},
		{OpConfigurationBits, "early_z_updates", 17, 1, "VC4_CONFIG_BITS_EARLY_Z_UPDATE BIT(1), byte 2"},

		{OpTileBinningModeConfig, "multisample_4x", 112, 1, "VC4_BIN_CONFIG_MS_MODE_4X BIT(0)"},
		{OpTileBinningModeConfig, "color_64", 113, 1, "VC4_BIN_CONFIG_TILE_BUFFER_64BIT BIT(1)"},
		{OpTileBinningModeConfig, "auto_init_tile_state", 114, 1, "VC4_BIN_CONFIG_AUTO_INIT_TSDA BIT(2)"},
		{OpTileBinningModeConfig, "initial_block_size", 115, 2, "VC4_BIN_CONFIG_ALLOC_INIT_BLOCK_SIZE_MASK VC4_MASK(4, 3)"},
		{OpTileBinningModeConfig, "block_size", 117, 2, "VC4_BIN_CONFIG_ALLOC_BLOCK_SIZE_MASK VC4_MASK(6, 5)"},
		{OpTileBinningModeConfig, "double_buffer", 119, 1, "VC4_BIN_CONFIG_DB_NON_MS BIT(7)"},

		{OpTileRenderingModeConfig, "multisample_4x", 64, 1, "VC4_RENDER_CONFIG_MS_MODE_4X BIT(0)"},
		{OpTileRenderingModeConfig, "color_64", 65, 1, "VC4_RENDER_CONFIG_TILE_BUFFER_64BIT BIT(1)"},
		{OpTileRenderingModeConfig, "format", 66, 2, "VC4_RENDER_CONFIG_FORMAT_MASK VC4_MASK(3, 2)"},
		{OpTileRenderingModeConfig, "decimate", 68, 2, "VC4_RENDER_CONFIG_DECIMATE_MODE_* << 4"},
		{OpTileRenderingModeConfig, "tiling", 70, 2, "VC4_RENDER_CONFIG_MEMORY_FORMAT_MASK VC4_MASK(7, 6)"},
		{OpTileRenderingModeConfig, "enable_vg_mask", 72, 1, "VC4_RENDER_CONFIG_ENABLE_VG_MASK BIT(8)"},
		{OpTileRenderingModeConfig, "coverage_mode", 73, 1, "VC4_RENDER_CONFIG_COVERAGE_MODE BIT(9)"},
		{OpTileRenderingModeConfig, "early_z_direction_greater", 74, 1, "VC4_RENDER_CONFIG_EARLY_Z_DIRECTION_G BIT(10)"},
		{OpTileRenderingModeConfig, "early_z_disable", 75, 1, "VC4_RENDER_CONFIG_EARLY_Z_COVERAGE_DISABLE BIT(11)"},
		{OpTileRenderingModeConfig, "double_buffer", 76, 1, "VC4_RENDER_CONFIG_DB_NON_MS BIT(12)"},

		{OpStoreTileBufferGeneral, "buffer", 0, 3, "VC4_LOADSTORE_TILE_BUFFER_BUFFER_MASK VC4_MASK(2, 0)"},
		{OpStoreTileBufferGeneral, "tiling", 4, 2, "VC4_LOADSTORE_TILE_BUFFER_TILING_MASK VC4_MASK(5, 4)"},
		{OpStoreTileBufferGeneral, "mode", 6, 2, "VC4_STORE_TILE_BUFFER_MODE_MASK VC4_MASK(7, 6)"},
		{OpStoreTileBufferGeneral, "format", 8, 2, "VC4_LOADSTORE_TILE_BUFFER_FORMAT_MASK VC4_MASK(9, 8)"},
		{OpStoreTileBufferGeneral, "disable_double_buffer_swap", 12, 1, "VC4_STORE_TILE_BUFFER_DISABLE_SWAP BIT(12)"},
		{OpStoreTileBufferGeneral, "disable_color_clear", 13, 1, "VC4_STORE_TILE_BUFFER_DISABLE_COLOR_CLEAR BIT(13)"},
		{OpStoreTileBufferGeneral, "disable_zs_clear", 14, 1, "VC4_STORE_TILE_BUFFER_DISABLE_ZS_CLEAR BIT(14)"},
		{OpStoreTileBufferGeneral, "disable_vg_mask_clear", 15, 1, "VC4_STORE_TILE_BUFFER_DISABLE_VG_MASK_CLEAR BIT(15)"},
		{OpStoreTileBufferGeneral, "disable_color_dump", 16, 1, "VC4_LOADSTORE_TILE_BUFFER_DISABLE_FULL_COLOR BIT(0) of the address word"},
		{OpStoreTileBufferGeneral, "disable_zs_dump", 17, 1, "VC4_LOADSTORE_TILE_BUFFER_DISABLE_FULL_ZS BIT(1)"},
		{OpStoreTileBufferGeneral, "disable_vg_mask_dump", 18, 1, "VC4_LOADSTORE_TILE_BUFFER_DISABLE_FULL_VG_MASK BIT(2)"},
		{OpStoreTileBufferGeneral, "last_tile", 19, 1, "VC4_LOADSTORE_TILE_BUFFER_EOF BIT(3)"},
		{OpLoadTileBufferGeneral, "buffer", 0, 3, "VC4_LOADSTORE_TILE_BUFFER_BUFFER_MASK"},
		{OpLoadTileBufferGeneral, "tiling", 4, 2, "VC4_LOADSTORE_TILE_BUFFER_TILING_MASK"},
		{OpLoadTileBufferGeneral, "format", 8, 2, "VC4_LOADSTORE_TILE_BUFFER_FORMAT_MASK"},

		{OpStoreFullResTileBuffer, "disable_color_write", 0, 1, "VC4_LOADSTORE_FULL_RES_DISABLE_COLOR BIT(0)"},
		{OpStoreFullResTileBuffer, "disable_zs_write", 1, 1, "VC4_LOADSTORE_FULL_RES_DISABLE_ZS BIT(1)"},
		{OpStoreFullResTileBuffer, "disable_clear", 2, 1, "VC4_LOADSTORE_FULL_RES_DISABLE_CLEAR_ALL BIT(2)"},
		{OpStoreFullResTileBuffer, "last_tile", 3, 1, "VC4_LOADSTORE_FULL_RES_EOF BIT(3)"},

		{OpPrimitiveListFormat, "type", 0, 4, "VC4_PRIMITIVE_LIST_FORMAT_TYPE_* << 0"},
		{OpPrimitiveListFormat, "data_type", 4, 4, "VC4_PRIMITIVE_LIST_FORMAT_16_INDEX (1 << 4)"},
		{OpGLIndexedPrimitive, "index_type", 4, 4, "VC4_INDEX_BUFFER_U16 (1 << 4)"},
	}
	for _, c := range cases {
		f := Lookup(c.op).Field(c.field)
		if f == nil || f.Start != c.start || f.Width != c.width {
			t.Errorf("%s.%s = %+v, want bits %d+%d (%s)", c.op, c.field, f, c.start, c.width, c.define)
		}
	}
	flags := []struct {
		s     *Struct
		field string
		bit   uint
	}{
		{GLShaderRecord, "fs_single_threaded", 0},   // VC4_SHADER_FLAG_FS_SINGLE_THREAD BIT(0)
		{GLShaderRecord, "point_size_included", 1},  // VC4_SHADER_FLAG_VS_POINT_SIZE BIT(1)
		{GLShaderRecord, "enable_clipping", 2},      // VC4_SHADER_FLAG_ENABLE_CLIPPING BIT(2)
		{NVShaderRecord, "clip_header_included", 3}, // VC4_SHADER_FLAG_SHADED_CLIP_COORDS BIT(3), NV only
	}
	for _, c := range flags {
		if f := c.s.Field(c.field); f == nil || f.Start != c.bit {
			t.Errorf("%s.%s = %+v, want bit %d", c.s.Name, c.field, f, c.bit)
		}
	}
	// Enum values from the same header.
	values := []struct {
		e     *Enum
		name  string
		value uint32
	}{
		{RenderFormat, "rgba8888", 1}, {RenderFormat, "bgr565_dithered", 0}, {RenderFormat, "bgr565", 2},
		{LoadStoreFormat, "rgba8888", 0}, {LoadStoreFormat, "bgr565_dithered", 1}, {LoadStoreFormat, "bgr565", 2},
		{StoreBuffer, "zs", 2}, {StoreBuffer, "z_only", 3}, {StoreBuffer, "full_dump", 5},
		{Tiling, "t", 1}, {Tiling, "lt", 2},
		{BlockSize, "128", 2}, {PrimitiveListType, "rhts", 3}, {PrimitiveListData, "32_bit_xy", 3},
	}
	for _, v := range values {
		if name, ok := v.e.NameOf(v.value); !ok || name != v.name {
			t.Errorf("%s value %d = %q, want %q", v.e.GoName, v.value, name, v.name)
		}
	}
}
