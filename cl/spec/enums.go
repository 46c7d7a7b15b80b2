package spec

// Enumerations shared by packet and record fields. Each cites the table it
// comes from; value names are snake case (the dumper prints them).

// PrimitiveMode is the primitive mode of GL_INDEXED_PRIMITIVE and
// GL_ARRAY_PRIMITIVE (AG Table 38 ids 32/33; Mesa XML enum in "Indexed
// Primitive List").
var PrimitiveMode = &Enum{
	GoName: "PrimitiveMode",
	Doc:    "PrimitiveMode is the primitive mode of GL_INDEXED_PRIMITIVE and GL_ARRAY_PRIMITIVE (AG Table 38 ids 32/33).",
	Values: []EnumValue{
		{0, "points", ""},
		{1, "lines", ""},
		{2, "line_loop", ""},
		{3, "line_strip", ""},
		{4, "triangles", ""},
		{5, "triangle_strip", ""},
		{6, "triangle_fan", ""},
	},
}

// IndexType is the index size of GL_INDEXED_PRIMITIVE (AG Table 38 id 32;
// vc4_packet.h VC4_INDEX_BUFFER_U8/U16).
var IndexType = &Enum{
	GoName: "IndexType",
	Doc:    "IndexType is the index size of GL_INDEXED_PRIMITIVE (AG Table 38 id 32; vc4_packet.h VC4_INDEX_BUFFER_*).",
	Values: []EnumValue{
		{0, "8_bit", "8-bit indices"},
		{1, "16_bit", "16-bit little-endian indices"},
	},
}

// VGPrimitiveType is the primitive type of the VG primitive packets 41/42
// (AG Table 38 ids 41/42).
var VGPrimitiveType = &Enum{
	GoName: "VGPrimitiveType",
	Doc:    "VGPrimitiveType is the primitive type of VG_COORDINATE_ARRAY_PRIMITIVES and VG_INLINE_PRIMITIVES (AG Table 38 ids 41/42).",
	Values: []EnumValue{
		{1, "rhts", "RHTs"},
		{3, "rht_strip", "RHT strip"},
		{4, "triangles", ""},
		{5, "triangle_strip", ""},
		{6, "triangle_fan", ""},
	},
}

// PrimitiveListType is the primitive type of PRIMITIVE_LIST_FORMAT (AG
// Table 38 id 56; vc4_packet.h VC4_PRIMITIVE_LIST_FORMAT_TYPE_*).
var PrimitiveListType = &Enum{
	GoName: "PrimitiveListType",
	Doc:    "PrimitiveListType is the primitive type of PRIMITIVE_LIST_FORMAT: which compressed coding table applies (AG Table 38 id 56).",
	Values: []EnumValue{
		{0, "points", "points list (AG Table 41)"},
		{1, "lines", "lines list (AG Table 40)"},
		{2, "triangles", "triangles list (AG Table 39)"},
		{3, "rhts", "RHTs list (AG Tables 40/43)"},
	},
}

// PrimitiveListData is the data type of PRIMITIVE_LIST_FORMAT (AG Table 38
// id 56; vc4_packet.h VC4_PRIMITIVE_LIST_FORMAT_16_INDEX / _32_XY). The AG
// also mentions 24-bit index lists without giving their data-type number.
var PrimitiveListData = &Enum{
	GoName: "PrimitiveListData",
	Doc:    "PrimitiveListData is the data type of PRIMITIVE_LIST_FORMAT (AG Table 38 id 56).",
	Values: []EnumValue{
		{1, "16_bit_index", "16-bit vertex indices"},
		{3, "32_bit_xy", "16+16-bit (x, y) coordinates (VG)"},
	},
}

// StoreBuffer selects the tile buffer a STORE_TILE_BUFFER_GENERAL writes
// (AG Table 38 id 28; vc4_packet.h VC4_LOADSTORE_TILE_BUFFER_*).
var StoreBuffer = &Enum{
	GoName: "StoreBuffer",
	Doc:    "StoreBuffer selects the tile buffer STORE_TILE_BUFFER_GENERAL writes (AG Table 38 id 28).",
	Values: []EnumValue{
		{0, "none", "store nothing (used to latch clear values)"},
		{1, "color", ""},
		{2, "zs", "Z and stencil"},
		{3, "z_only", ""},
		{4, "vg_mask", ""},
		{5, "full_dump", "all buffers, raw"},
	},
}

// LoadBuffer selects the tile buffer a LOAD_TILE_BUFFER_GENERAL reads (AG
// Table 38 id 29; value 3 is "N/A" there).
var LoadBuffer = &Enum{
	GoName: "LoadBuffer",
	Doc:    "LoadBuffer selects the tile buffer LOAD_TILE_BUFFER_GENERAL reads (AG Table 38 id 29; 3 is not applicable).",
	Values: []EnumValue{
		{0, "none", ""},
		{1, "color", ""},
		{2, "zs", "Z and stencil"},
		{4, "vg_mask", ""},
		{5, "full_reload", "all buffers, raw"},
	},
}

// Tiling is a memory layout of an image (vc4_packet.h
// VC4_TILING_FORMAT_*; AG Table 38 ids 28/29 "Format", id 113 "Memory
// Format").
var Tiling = &Enum{
	GoName: "Tiling",
	Doc:    "Tiling is the memory layout of a frame buffer or tile dump (vc4_packet.h VC4_TILING_FORMAT_*; AG Table 38 ids 28, 29, 113).",
	Values: []EnumValue{
		{0, "linear", "raster order"},
		{1, "t", "T-format (4 KiB tiles)"},
		{2, "lt", "LT-format (micro-tiles only)"},
	},
}

// StoreMode is the sample mode of STORE_TILE_BUFFER_GENERAL (AG Table 38 id
// 28 bits 7:6; vc4_packet.h VC4_STORE_TILE_BUFFER_MODE_*).
var StoreMode = &Enum{
	GoName: "StoreMode",
	Doc:    "StoreMode is how STORE_TILE_BUFFER_GENERAL reduces samples (AG Table 38 id 28).",
	Values: []EnumValue{
		{0, "sample_0", ""},
		{1, "decimate_x4", ""},
		{2, "decimate_x16", "multisample mode only"},
	},
}

// LoadStoreFormat is the pixel colour format of the general tile-buffer
// load and store (AG Table 38 ids 28/29 bits 9:8; vc4_packet.h
// VC4_LOADSTORE_TILE_BUFFER_RGBA8888 = 0, _BGR565_DITHER = 1, _BGR565 = 2).
// Note RGBA8888 is 0 here but 1 in RenderFormat.
var LoadStoreFormat = &Enum{
	GoName: "LoadStoreFormat",
	Doc:    "LoadStoreFormat is the pixel format of LOAD/STORE_TILE_BUFFER_GENERAL (AG Table 38 ids 28/29; vc4_packet.h VC4_LOADSTORE_TILE_BUFFER_*). RGBA8888 is 0 here but 1 in RenderFormat.",
	Values: []EnumValue{
		{0, "rgba8888", ""},
		{1, "bgr565_dithered", ""},
		{2, "bgr565", "no dither"},
	},
}

// RenderFormat is the non-HDR frame-buffer colour format of
// TILE_RENDERING_MODE_CONFIG (AG Table 38 id 113 bits 67:66; vc4_packet.h
// VC4_RENDER_CONFIG_FORMAT_BGR565_DITHERED = 0, _RGBA8888 = 1, _BGR565 = 2).
var RenderFormat = &Enum{
	GoName: "RenderFormat",
	Doc:    "RenderFormat is the frame-buffer format of TILE_RENDERING_MODE_CONFIG (AG Table 38 id 113; vc4_packet.h VC4_RENDER_CONFIG_FORMAT_*). RGBA8888 is 1 here but 0 in LoadStoreFormat.",
	Values: []EnumValue{
		{0, "bgr565_dithered", ""},
		{1, "rgba8888", ""},
		{2, "bgr565", "no dither"},
	},
}

// DecimateMode is the decimation of TILE_RENDERING_MODE_CONFIG (AG Table 38
// id 113 bits 69:68; vc4_packet.h VC4_RENDER_CONFIG_DECIMATE_MODE_*).
var DecimateMode = &Enum{
	GoName: "DecimateMode",
	Doc:    "DecimateMode is the multisample resolve of TILE_RENDERING_MODE_CONFIG (AG Table 38 id 113).",
	Values: []EnumValue{
		{0, "1x", ""},
		{1, "4x", ""},
		{2, "16x", ""},
	},
}

// BlockSize is a tile-allocation block size of TILE_BINNING_MODE_CONFIG (AG
// Table 38 id 112; vc4_packet.h VC4_BIN_CONFIG_ALLOC_BLOCK_SIZE_*).
var BlockSize = &Enum{
	GoName: "BlockSize",
	Doc:    "BlockSize is a tile-allocation block size of TILE_BINNING_MODE_CONFIG (AG Table 38 id 112).",
	Values: []EnumValue{
		{0, "32", "32 bytes"},
		{1, "64", "64 bytes"},
		{2, "128", "128 bytes"},
		{3, "256", "256 bytes"},
	},
}

// DepthFunc is the depth test of CONFIGURATION_BITS (AG Table 38 id 96
// bits 14:12; same numbering as Gallium's PIPE_FUNC_*, vc4_packet.h).
var DepthFunc = &Enum{
	GoName: "DepthFunc",
	Doc:    "DepthFunc is the depth-test function of CONFIGURATION_BITS (AG Table 38 id 96).",
	Values: []EnumValue{
		{0, "never", ""},
		{1, "less", ""},
		{2, "equal", ""},
		{3, "less_equal", ""},
		{4, "greater", ""},
		{5, "not_equal", ""},
		{6, "greater_equal", ""},
		{7, "always", ""},
	},
}

// OversampleMode is the rasteriser oversample mode of CONFIGURATION_BITS
// (AG Table 38 id 96 bits 7:6; 3 is reserved).
var OversampleMode = &Enum{
	GoName: "OversampleMode",
	Doc:    "OversampleMode is the rasteriser oversample mode of CONFIGURATION_BITS (AG Table 38 id 96; 3 is reserved).",
	Values: []EnumValue{
		{0, "none", ""},
		{1, "4x", ""},
		{2, "16x", ""},
	},
}

// CoverageUpdateMode is the coverage update mode of CONFIGURATION_BITS (AG
// Table 38 id 96 bits 10:9; vc4_packet.h VC4_CONFIG_BITS_COVERAGE_UPDATE_*).
var CoverageUpdateMode = &Enum{
	GoName: "CoverageUpdateMode",
	Doc:    "CoverageUpdateMode is the coverage update mode of CONFIGURATION_BITS (AG Table 38 id 96).",
	Values: []EnumValue{
		{0, "nonzero", ""},
		{1, "odd", ""},
		{2, "or", ""},
		{3, "zero", ""},
	},
}

// CoverageReadType is the coverage read type of CONFIGURATION_BITS (AG
// Table 38 id 96 bit 5).
var CoverageReadType = &Enum{
	GoName: "CoverageReadType",
	Doc:    "CoverageReadType is the coverage read type of CONFIGURATION_BITS (AG Table 38 id 96).",
	Values: []EnumValue{
		{0, "level_4x8_bit", "4 × 8-bit level"},
		{1, "mask_16_bit", "16-bit mask"},
	},
}

// CoverageReadMode is the coverage read mode of CONFIGURATION_BITS (AG
// Table 38 id 96 bit 11; vc4_packet.h VC4_CONFIG_BITS_COVERAGE_READ_LEAVE).
var CoverageReadMode = &Enum{
	GoName: "CoverageReadMode",
	Doc:    "CoverageReadMode is the coverage read mode of CONFIGURATION_BITS (AG Table 38 id 96).",
	Values: []EnumValue{
		{0, "clear_on_read", ""},
		{1, "leave_on_read", ""},
	},
}

// FSThreading is the thread mode of VG_INLINE_SHADER_RECORD (AG Table 38 id
// 67 bits 2:0).
var FSThreading = &Enum{
	GoName: "FSThreading",
	Doc:    "FSThreading is the fragment-shader thread mode of VG_INLINE_SHADER_RECORD (AG Table 38 id 67).",
	Values: []EnumValue{
		{0, "dual", "dual-threaded"},
		{1, "single", "single-threaded"},
	},
}

// Enums lists every enum, in the order the generator emits them.
var Enums = []*Enum{
	PrimitiveMode, IndexType, VGPrimitiveType, PrimitiveListType, PrimitiveListData,
	StoreBuffer, LoadBuffer, Tiling, StoreMode, LoadStoreFormat, RenderFormat,
	DecimateMode, BlockSize, DepthFunc, OversampleMode, CoverageUpdateMode,
	CoverageReadType, CoverageReadMode, FSThreading,
}
