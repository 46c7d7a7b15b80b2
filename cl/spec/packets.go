package spec

// Opcodes of every documented VideoCore IV control-list packet (AG Table 38;
// Linux vc4_packet.h enum vc4_packet), plus the kernel's GEM_HANDLES
// pseudo-packet. Ids AG Table 38 lists as reserved (2–3, 9–15, 19–23, 30–31,
// 34–40, 43–47, 50–55, 57–63, 68–95, 107–111, 116–253, 255) have no
// constant: the Broadcom driver names 2, 3, 19 and 20 (markers, repeat) but
// nothing documents them.
const (
	OpHalt                        Opcode = 0
	OpNOP                         Opcode = 1
	OpFlush                       Opcode = 4
	OpFlushAll                    Opcode = 5
	OpStartTileBinning            Opcode = 6
	OpIncrementSemaphore          Opcode = 7
	OpWaitOnSemaphore             Opcode = 8
	OpBranch                      Opcode = 16
	OpBranchToSubList             Opcode = 17
	OpReturnFromSubList           Opcode = 18
	OpStoreMSTileBuffer           Opcode = 24
	OpStoreMSTileBufferAndEOF     Opcode = 25
	OpStoreFullResTileBuffer      Opcode = 26
	OpLoadFullResTileBuffer       Opcode = 27
	OpStoreTileBufferGeneral      Opcode = 28
	OpLoadTileBufferGeneral       Opcode = 29
	OpGLIndexedPrimitive          Opcode = 32
	OpGLArrayPrimitive            Opcode = 33
	OpVGCoordinateArrayPrimitives Opcode = 41
	OpVGInlinePrimitives          Opcode = 42
	OpCompressedPrimitive         Opcode = 48
	OpClippedCompressedPrimitive  Opcode = 49
	OpPrimitiveListFormat         Opcode = 56
	OpGLShaderState               Opcode = 64
	OpNVShaderState               Opcode = 65
	OpVGShaderState               Opcode = 66
	OpVGInlineShaderRecord        Opcode = 67
	OpConfigurationBits           Opcode = 96
	OpFlatShadeFlags              Opcode = 97
	OpPointSize                   Opcode = 98
	OpLineWidth                   Opcode = 99
	OpRHTXBoundary                Opcode = 100
	OpDepthOffset                 Opcode = 101
	OpClipWindow                  Opcode = 102
	OpViewportOffset              Opcode = 103
	OpZClipping                   Opcode = 104
	OpClipperXYScaling            Opcode = 105
	OpClipperZScaling             Opcode = 106
	OpTileBinningModeConfig       Opcode = 112
	OpTileRenderingModeConfig     Opcode = 113
	OpClearColors                 Opcode = 114
	OpTileCoordinates             Opcode = 115
	OpGEMHandles                  Opcode = 254
)

// Shorthands for the table below.
const (
	bin    = BinList
	render = RenderList
	tile   = TileList
	both   = BinList | RenderList // AG: no (B)/(R) mark
)

func flag(name string, bit uint, doc string) Field {
	return Field{Name: name, Start: bit, Width: 1, Kind: Bool, Doc: doc}
}

func uintField(name string, start, width uint, doc string) Field {
	return Field{Name: name, Start: start, Width: width, Kind: Uint, Doc: doc}
}

func enumField(name string, start, width uint, e *Enum, doc string) Field {
	return Field{Name: name, Start: start, Width: width, Kind: Enumerated, Enum: e, Doc: doc}
}

// hex marks a field the dumper prints in hexadecimal.
func hex(f Field) Field {
	f.Hex = true
	return f
}

func floatField(name string, start uint, doc string) Field {
	return Field{Name: name, Start: start, Width: 32, Kind: Float, Doc: doc}
}

// addr is an address stored whole in 32 bits, with an alignment the
// hardware requires (1 for none).
func addr(name string, start uint, align uint32, doc string) Field {
	return Field{Name: name, Start: start, Width: 32, Kind: Address, Align: align, Doc: doc}
}

// addrHigh is an address whose low shift bits are implied zero and whose
// remaining bits share a word with flags.
func addrHigh(name string, start, width, shift uint, doc string) Field {
	return Field{Name: name, Start: start, Width: width, Kind: Address, Shift: shift, Doc: doc}
}

// Packets is the packet table, in opcode order.
var Packets = []Packet{
	{
		Op: OpHalt, Name: "HALT", Len: 1, Lists: both, KernelBin: true,
		Render: Effect{ControlHalt, TileNone},
		Doc:    "HALT stops the control-list thread. The kernel stops parsing a bin CL after it, so the mandatory ending can never follow.",
		Source: "AG Table 38 id 0; vc4_validate.c cmd_info[]",
	},
	{
		Op: OpNOP, Name: "NOP", Len: 1, Lists: both | tile, KernelBin: true,
		Render: Effect{ControlNone, TileNone},
		Doc:    "NOP does nothing.",
		Source: "AG Table 38 id 1; vc4_validate.c cmd_info[]",
	},
	{
		Op: OpFlush, Name: "FLUSH", Len: 1, Lists: bin, KernelBin: true,
		Doc:    "FLUSH appends RETURN_FROM_SUB_LIST to every tile list and flushes the tile lists to memory. The kernel requires it as the last byte of the bin CL.",
		Source: "AG Table 38 id 4; vc4_validate.c validate_flush",
	},
	{
		Op: OpFlushAll, Name: "FLUSH_ALL", Len: 1, Lists: bin, KernelBin: true,
		Doc:    "FLUSH_ALL (Flush All State) is FLUSH preceded by forcing the current state into every tile list.",
		Source: "AG Table 38 id 5; vc4_packet.h VC4_PACKET_FLUSH_ALL",
	},
	{
		Op: OpStartTileBinning, Name: "START_TILE_BINNING", Len: 1, Lists: bin, KernelBin: true,
		Doc:    "START_TILE_BINNING advances the binner's state counters so that the state items after it go into the tile lists. The kernel requires exactly one, after TILE_BINNING_MODE_CONFIG.",
		Source: "AG Table 38 id 6; vc4_validate.c validate_start_tile_binning",
	},
	{
		Op: OpIncrementSemaphore, Name: "INCREMENT_SEMAPHORE", Len: 1, Lists: both, KernelBin: true,
		Render: Effect{ControlSignal, TileNone},
		Doc:    "INCREMENT_SEMAPHORE increments the CLE semaphore once the tile lists are flushed; the render thread waits on it. The kernel requires it as the second-to-last byte of the bin CL.",
		Source: "AG Table 38 id 7; vc4_validate.c validate_increment_semaphore",
	},
	{
		Op: OpWaitOnSemaphore, Name: "WAIT_ON_SEMAPHORE", Len: 1, Lists: both,
		Render: Effect{ControlWait, TileNone},
		Doc:    "WAIT_ON_SEMAPHORE makes this thread wait until the other thread increments the semaphore. The kernel emits it before the first tile's sub-list in the render CL.",
		Source: "AG Table 38 id 8; vc4_render_cl.c emit_tile",
	},
	{
		Op: OpBranch, Name: "BRANCH", Len: 5, Lists: both | tile,
		Render: Effect{ControlBranch, TileNone},
		Fields: []Field{
			addr("address", 0, 1, "Address is the absolute address the list continues at."),
		},
		Doc:    "BRANCH continues the list at an absolute address (the binner chains tile-list blocks with it).",
		Source: "AG Table 38 id 16; Mesa v3d_packet_v21.xml \"Branch\"",
	},
	{
		Op: OpBranchToSubList, Name: "BRANCH_TO_SUB_LIST", Len: 5, Lists: both,
		Render: Effect{ControlCall, TileNone},
		Fields: []Field{
			addr("address", 0, 1, "Address is the absolute address of the sub-list."),
		},
		Doc:    "BRANCH_TO_SUB_LIST calls a sub-list (at most two levels of nesting); the render CL calls each tile's list with it.",
		Source: "AG Table 38 id 17; vc4_render_cl.c emit_tile",
	},
	{
		Op: OpReturnFromSubList, Name: "RETURN_FROM_SUB_LIST", Len: 1, Lists: both | tile,
		Render: Effect{ControlReturn, TileNone},
		Doc:    "RETURN_FROM_SUB_LIST returns from a sub-list (ignored if the return stack is empty). FLUSH appends it to every tile list.",
		Source: "AG Table 38 id 18",
	},
	{
		Op: OpStoreMSTileBuffer, Name: "STORE_MS_TILE_BUFFER", Len: 1, Lists: render,
		Render: Effect{ControlEndTile, TileStore},
		Doc:    "STORE_MS_TILE_BUFFER stores the resolved colour tile to the frame buffer TILE_RENDERING_MODE_CONFIG describes, at the current tile coordinates.",
		Source: "AG Table 38 id 24; vc4_packet.h",
	},
	{
		Op: OpStoreMSTileBufferAndEOF, Name: "STORE_MS_TILE_BUFFER_AND_EOF", Len: 1, Lists: render,
		Render: Effect{ControlEndFrame, TileStore},
		Doc:    "STORE_MS_TILE_BUFFER_AND_EOF is STORE_MS_TILE_BUFFER that also signals the end of the frame (last tile).",
		Source: "AG Table 38 id 25; vc4_packet.h",
	},
	{
		Op: OpStoreFullResTileBuffer, Name: "STORE_FULL_RES_TILE_BUFFER", Len: 5, Lists: render,
		Render: Effect{ControlEndTile, TileStore},
		Fields: []Field{
			flag("disable_color_write", 0, "DisableColorWrite skips the colour buffer."),
			flag("disable_zs_write", 1, "DisableZSWrite skips the Z/stencil buffer."),
			flag("disable_clear", 2, "DisableClear keeps the tile buffer instead of clearing it after the store."),
			flag("last_tile", 3, "LastTile signals the end of the frame."),
			addrHigh("address", 4, 28, 4, "Address is where this tile's raw samples go (16-byte aligned; the tile coordinates are not used)."),
		},
		Doc:    "STORE_FULL_RES_TILE_BUFFER stores the raw (unresolved) tile buffer to one tile-sized block.",
		Source: "AG Table 38 id 26; vc4_packet.h VC4_LOADSTORE_FULL_RES_*",
	},
	{
		Op: OpLoadFullResTileBuffer, Name: "LOAD_FULL_RES_TILE_BUFFER", Len: 5, Lists: render,
		Render: Effect{ControlNone, TileLoad},
		Fields: []Field{
			flag("disable_color_read", 0, "DisableColorRead skips the colour buffer."),
			flag("disable_zs_read", 1, "DisableZSRead skips the Z/stencil buffer."),
			addrHigh("address", 4, 28, 4, "Address is where this tile's raw samples come from (16-byte aligned)."),
		},
		Doc:    "LOAD_FULL_RES_TILE_BUFFER reloads a raw tile buffer dump; it takes effect at the next TILE_COORDINATES.",
		Source: "AG Table 38 id 27; vc4_packet.h VC4_LOADSTORE_FULL_RES_*",
	},
	{
		Op: OpStoreTileBufferGeneral, Name: "STORE_TILE_BUFFER_GENERAL", Len: 7, Lists: render,
		Render: Effect{ControlEndTile, TileStore},
		Fields: []Field{
			enumField("buffer", 0, 3, StoreBuffer, "Buffer is the tile buffer to store."),
			enumField("tiling", 4, 2, Tiling, "Tiling is the memory layout of the image."),
			enumField("mode", 6, 2, StoreMode, "Mode is how samples are reduced (non-HDR colour only)."),
			enumField("format", 8, 2, LoadStoreFormat, "Format is the pixel colour format (non-HDR colour only)."),
			flag("disable_double_buffer_swap", 12, "DisableDoubleBufferSwap applies in double-buffer mode."),
			flag("disable_color_clear", 13, "DisableColorClear keeps the colour buffer after the store."),
			flag("disable_zs_clear", 14, "DisableZSClear keeps the Z/stencil buffer after the store."),
			flag("disable_vg_mask_clear", 15, "DisableVGMaskClear keeps the VG mask after the store."),
			flag("disable_color_dump", 16, "DisableColorDump skips colour in full-dump mode."),
			flag("disable_zs_dump", 17, "DisableZSDump skips Z/stencil in full-dump mode."),
			flag("disable_vg_mask_dump", 18, "DisableVGMaskDump skips the VG mask in full-dump mode."),
			flag("last_tile", 19, "LastTile signals the end of the frame."),
			addrHigh("address", 20, 28, 4, "Address is the base of the whole image (16-byte aligned); the hardware adds the current tile's position."),
		},
		Doc:    "STORE_TILE_BUFFER_GENERAL stores one tile buffer into an image, at the position of the current tile coordinates. The kernel's color_read/zs_read/zs_write surface bits are payload bits 15:0.",
		Source: "AG Table 38 id 28; vc4_packet.h VC4_LOADSTORE_TILE_BUFFER_*, VC4_STORE_TILE_BUFFER_*",
	},
	{
		Op: OpLoadTileBufferGeneral, Name: "LOAD_TILE_BUFFER_GENERAL", Len: 7, Lists: render,
		Render: Effect{ControlNone, TileLoad},
		Fields: []Field{
			enumField("buffer", 0, 3, LoadBuffer, "Buffer is the tile buffer to load."),
			enumField("tiling", 4, 2, Tiling, "Tiling is the memory layout of the image."),
			enumField("format", 8, 2, LoadStoreFormat, "Format is the pixel colour format (non-HDR colour only)."),
			flag("disable_color_load", 16, "DisableColorLoad skips colour in full-reload mode."),
			flag("disable_zs_load", 17, "DisableZSLoad skips Z/stencil in full-reload mode."),
			flag("disable_vg_mask_load", 18, "DisableVGMaskLoad skips the VG mask in full-reload mode."),
			addrHigh("address", 20, 28, 4, "Address is the base of the whole image (16-byte aligned)."),
		},
		Doc:    "LOAD_TILE_BUFFER_GENERAL loads one tile buffer from an image; it takes effect at the next TILE_COORDINATES.",
		Source: "AG Table 38 id 29; vc4_packet.h VC4_LOADSTORE_TILE_BUFFER_*",
	},
	{
		Op: OpGLIndexedPrimitive, Name: "GL_INDEXED_PRIMITIVE", Len: 14, Lists: both, KernelBin: true,
		Render: Effect{ControlNone, TileDraw},
		Fields: []Field{
			enumField("mode", 0, 4, PrimitiveMode, "Mode is the primitive mode."),
			enumField("index_type", 4, 4, IndexType, "IndexType is the index size."),
			uintField("length", 8, 32, "Length is the number of indices."),
			addr("index_address", 40, 1, "IndexAddress is the address of the index list. In a user bin CL it is a byte offset into the BO named by the last GEM_HANDLES (BO index 0 without one); the kernel writes the address."),
			uintField("max_index", 72, 32, "MaxIndex is the largest index the primitives may use; larger indices are an error."),
		},
		Doc:    "GL_INDEXED_PRIMITIVE draws primitives from an index list (glDrawElements).",
		Source: "AG Table 38 id 32; vc4_validate.c validate_indexed_prim_list",
	},
	{
		Op: OpGLArrayPrimitive, Name: "GL_ARRAY_PRIMITIVE", Len: 10, Lists: both, KernelBin: true,
		Render: Effect{ControlNone, TileDraw},
		Fields: []Field{
			enumField("mode", 0, 8, PrimitiveMode, "Mode is the primitive mode (8 bits in AG Table 38; the XML gives 4)."),
			uintField("length", 8, 32, "Length is the number of vertices."),
			uintField("first", 40, 32, "First is the index of the first vertex."),
		},
		Doc:    "GL_ARRAY_PRIMITIVE draws consecutive vertices (glDrawArrays; AG \"Vertex Array Primitives\").",
		Source: "AG Table 38 id 33; vc4_validate.c validate_gl_array_primitive",
	},
	{
		Op: OpVGCoordinateArrayPrimitives, Name: "VG_COORDINATE_ARRAY_PRIMITIVES", Len: 10, Lists: both,
		Render: Effect{ControlNone, TileDraw},
		Fields: []Field{
			enumField("type", 0, 4, VGPrimitiveType, "Type is the primitive type."),
			uintField("continuation", 4, 4, "Continuation marks a continuation list (triangle fans only)."),
			uintField("length", 8, 32, "Length is the number of primitives."),
			addr("address", 40, 1, "Address is the address of the list of 32-bit (x, y) screen coordinates."),
		},
		Doc:    "VG_COORDINATE_ARRAY_PRIMITIVES draws VG-mode primitives from a coordinate array (VG shader mode only).",
		Source: "AG Table 38 id 41, §9 \"VG Coordinate Array Primitives\"",
	},
	{
		Op: OpVGInlinePrimitives, Name: "VG_INLINE_PRIMITIVES", Len: 2, Lists: both, Inline: VGCoordinates,
		Render: Effect{ControlNone, TileDraw},
		Fields: []Field{
			enumField("type", 0, 4, VGPrimitiveType, "Type is the primitive type."),
			uintField("continuation", 4, 4, "Continuation marks a continuation list (triangle fans only)."),
		},
		Doc:    "VG_INLINE_PRIMITIVES is followed inline by 32-bit (x, y) coordinates ended by the escape word 0xbfff0000 (VG shader mode only).",
		Source: "AG Table 38 id 42, §9 \"VG Inline Primitives\"",
	},
	{
		Op: OpCompressedPrimitive, Name: "COMPRESSED_PRIMITIVE", Len: 1, Lists: render | tile, Inline: CompressedList,
		Render: Effect{ControlNone, TileDraw},
		Doc:    "COMPRESSED_PRIMITIVE is followed inline by an escape-terminated compressed primitive list in the current PRIMITIVE_LIST_FORMAT; the binner writes it into tile lists.",
		Source: "AG Table 38 id 48, Tables 39–43; vc4_packet.h (size 1: the inline list is not counted)",
	},
	{
		Op: OpClippedCompressedPrimitive, Name: "CLIPPED_COMPRESSED_PRIMITIVE", Len: 5, Lists: render | tile, Inline: CompressedList,
		Render: Effect{ControlNone, TileDraw},
		Fields: []Field{
			hex(uintField("clip_flags", 0, 3, "ClipFlags has one bit per vertex of the next primitive: set if that vertex is clipped.")),
			addrHigh("address", 3, 29, 3, "Address is the clipped-primitive record (8-byte aligned; see ClippedVertex)."),
		},
		Doc:    "CLIPPED_COMPRESSED_PRIMITIVE gives the clipped-vertex record of the first primitive of the compressed list that follows inline.",
		Source: "AG Table 38 id 49, Table 44 (vc4_packet.h gives size 1, not counting the address word; we count it: AG gives it 32 bits)",
	},
	{
		Op: OpPrimitiveListFormat, Name: "PRIMITIVE_LIST_FORMAT", Len: 2, Lists: both | tile, KernelBin: true,
		Render: Effect{ControlNone, TileState},
		Fields: []Field{
			enumField("type", 0, 4, PrimitiveListType, "Type is the primitive type of the compressed lists."),
			enumField("data_type", 4, 4, PrimitiveListData, "DataType is what the compressed lists encode."),
		},
		Doc:    "PRIMITIVE_LIST_FORMAT sets the format of the compressed primitive lists that follow. AG marks it (R), but Mesa emits 0x12 in the bin CL after START_TILE_BINNING and the kernel accepts it.",
		Source: "AG Table 38 id 56; Mesa vc4_draw.c vc4_start_draw; vc4_validate.c cmd_info[]",
	},
	{
		Op: OpGLShaderState, Name: "GL_SHADER_STATE", Len: 5, Lists: both | tile, KernelBin: true,
		Render: Effect{ControlNone, TileState},
		Fields: []Field{
			uintField("num_attribute_arrays", 0, 3, "NumAttributeArrays is the number of attribute records (0 means 8); the hardware ignores it for extended records, but the kernel still takes its relocation count from it."),
			flag("extended", 3, "Extended selects the extended record with 26-bit attribute strides."),
			addrHigh("address", 4, 28, 4, "Address is the GL shader record (16-byte aligned). User space leaves it 0: the kernel rejects any higher bit and writes the address of its validated copy."),
		},
		Doc:    "GL_SHADER_STATE selects GL (vertex-shading) mode with a GL shader record.",
		Source: "AG Table 38 id 64; vc4_validate.c validate_gl_shader_state",
	},
	{
		Op: OpNVShaderState, Name: "NV_SHADER_STATE", Len: 5, Lists: both | tile,
		Render: Effect{ControlNone, TileState},
		Fields: []Field{
			addr("address", 0, 16, "Address is the NV shader record (16-byte aligned)."),
		},
		Doc:    "NV_SHADER_STATE selects NV (no vertex shading) mode with an NV shader record. The Linux kernel refuses it in a bin CL.",
		Source: "AG Table 38 id 65, Table 46; vc4_validate.c cmd_info[] (no entry)",
	},
	{
		Op: OpVGShaderState, Name: "VG_SHADER_STATE", Len: 5, Lists: both | tile,
		Render: Effect{ControlNone, TileState},
		Fields: []Field{
			addr("address", 0, 16, "Address is the VG shader record (16-byte aligned)."),
		},
		Doc:    "VG_SHADER_STATE selects VG mode with a VG shader record.",
		Source: "AG Table 38 id 66, Table 47",
	},
	{
		Op: OpVGInlineShaderRecord, Name: "VG_INLINE_SHADER_RECORD", Len: 9, Lists: both | tile,
		Render: Effect{ControlNone, TileState},
		Fields: []Field{
			enumField("threading", 0, 3, FSThreading, "Threading says whether the fragment shader is dual- or single-threaded."),
			addrHigh("fs_code_address", 3, 29, 3, "FSCodeAddress is the fragment shader code (8-byte aligned)."),
			addr("fs_uniforms_address", 32, 4, "FSUniformsAddress is the fragment shader's uniforms (4-byte aligned)."),
		},
		Doc:    "VG_INLINE_SHADER_RECORD selects VG mode with the fragment shader given inline.",
		Source: "AG Table 38 id 67",
	},
	{
		Op: OpConfigurationBits, Name: "CONFIGURATION_BITS", Len: 4, Lists: both | tile, KernelBin: true,
		Render: Effect{ControlNone, TileState},
		Fields: []Field{
			flag("enable_forward_facing", 0, "EnableForwardFacing draws forward-facing primitives (clear: cull them)."),
			flag("enable_reverse_facing", 1, "EnableReverseFacing draws reverse-facing primitives (clear: cull them)."),
			flag("clockwise", 2, "Clockwise chooses the forward-facing winding: with the bit set, forward-facing primitives are those with negative signed area (x1−x0)(y2−y0) − (x2−x0)(y1−y0) in y-down pixel space (row 0 at the top of the frame); with it clear, those with positive area. Mesa sets it for Gallium's front_ccw (vc4_state.c vc4_create_rasterizer_state); math/scene.ClockwiseBit explains why vkcube's front faces need it."),
			flag("enable_depth_offset", 3, "EnableDepthOffset applies DEPTH_OFFSET."),
			flag("antialiased_points_lines", 4, "AntialiasedPointsLines is documented as not actually supported."),
			enumField("coverage_read_type", 5, 1, CoverageReadType, "CoverageReadType is the coverage read format."),
			enumField("oversample", 6, 2, OversampleMode, "Oversample is the rasteriser oversample mode."),
			flag("coverage_pipe_select", 8, "CoveragePipeSelect sends fragments to the coverage pipe instead of fragment shaders."),
			enumField("coverage_update", 9, 2, CoverageUpdateMode, "CoverageUpdate is the coverage update mode."),
			enumField("coverage_read_mode", 11, 1, CoverageReadMode, "CoverageReadMode is what a coverage read does to the coverage."),
			enumField("depth_func", 12, 3, DepthFunc, "DepthFunc is the depth test."),
			flag("z_updates", 15, "ZUpdates writes passing depths to the Z buffer."),
			flag("early_z", 16, "EarlyZ enables the early-Z test."),
			flag("early_z_updates", 17, "EarlyZUpdates keeps the early-Z buffer updated."),
		},
		Doc:    "CONFIGURATION_BITS sets culling, winding, depth test and coverage state.",
		Source: "AG Table 38 id 96; vc4_packet.h VC4_CONFIG_BITS_*",
	},
	{
		Op: OpFlatShadeFlags, Name: "FLAT_SHADE_FLAGS", Len: 5, Lists: both | tile, KernelBin: true,
		Render: Effect{ControlNone, TileState},
		Fields: []Field{
			hex(uintField("flags", 0, 32, "Flags has bit i set when varying i is flat-shaded.")),
		},
		Doc:    "FLAT_SHADE_FLAGS selects flat shading per varying.",
		Source: "AG Table 38 id 97",
	},
	{
		Op: OpPointSize, Name: "POINT_SIZE", Len: 5, Lists: both | tile, KernelBin: true,
		Render: Effect{ControlNone, TileState},
		Fields: []Field{
			floatField("size", 0, "Size is the point size in pixels."),
		},
		Doc:    "POINT_SIZE sets the point size.",
		Source: "AG Table 38 id 98",
	},
	{
		Op: OpLineWidth, Name: "LINE_WIDTH", Len: 5, Lists: both | tile, KernelBin: true,
		Render: Effect{ControlNone, TileState},
		Fields: []Field{
			floatField("width", 0, "Width is the line width in pixels."),
		},
		Doc:    "LINE_WIDTH sets the line width.",
		Source: "AG Table 38 id 99",
	},
	{
		Op: OpRHTXBoundary, Name: "RHT_X_BOUNDARY", Len: 3, Lists: both | tile, KernelBin: true,
		Render: Effect{ControlNone, TileState},
		Fields: []Field{
			{Name: "x", Start: 0, Width: 16, Kind: Int, Doc: "X is the RHT primitive X boundary (sint16)."},
		},
		Doc:    "RHT_X_BOUNDARY sets the x boundary of VG RHT primitives.",
		Source: "AG Table 38 id 100",
	},
	{
		Op: OpDepthOffset, Name: "DEPTH_OFFSET", Len: 5, Lists: both | tile, KernelBin: true,
		Render: Effect{ControlNone, TileState},
		Fields: []Field{
			{Name: "factor", Start: 0, Width: 16, Kind: Float187, Doc: "Factor is the depth offset factor (top 16 bits of a float32)."},
			{Name: "units", Start: 16, Width: 16, Kind: Float187, Doc: "Units is the depth offset in units (top 16 bits of a float32)."},
		},
		Doc:    "DEPTH_OFFSET sets polygon offset (applied with CONFIGURATION_BITS enable_depth_offset).",
		Source: "AG Table 38 id 101; Mesa v3d_packet_v21.xml comment (float 1-8-7)",
	},
	{
		Op: OpClipWindow, Name: "CLIP_WINDOW", Len: 9, Lists: both | tile, KernelBin: true,
		Render: Effect{ControlNone, TileState},
		Fields: []Field{
			uintField("left", 0, 16, "Left is the leftmost pixel column."),
			uintField("bottom", 16, 16, "Bottom is the smallest pixel row (hardware y grows downward in memory)."),
			uintField("width", 32, 16, "Width is the window width in pixels. Never 0: a zero-sized clip window hangs the binner (Mesa vc4_draw.c)."),
			uintField("height", 48, 16, "Height is the window height in pixels. Never 0."),
		},
		Doc:    "CLIP_WINDOW scissors primitives to a pixel rectangle.",
		Source: "AG Table 38 id 102",
	},
	{
		Op: OpViewportOffset, Name: "VIEWPORT_OFFSET", Len: 5, Lists: both | tile, KernelBin: true,
		Render: Effect{ControlNone, TileState},
		Fields: []Field{
			{Name: "x", Start: 0, Width: 16, Kind: Subpixel, Doc: "X is the viewport centre x in 1/16 pixel."},
			{Name: "y", Start: 16, Width: 16, Kind: Subpixel, Doc: "Y is the viewport centre y in 1/16 pixel."},
		},
		Doc:    "VIEWPORT_OFFSET sets the viewport centre that shaded Xs/Ys are relative to (12.4 fixed point: Mesa XML type s12.4, Mesa writes 16 × translate).",
		Source: "AG Table 38 id 103; Mesa v3d_packet_v21.xml; Mesa vc4_emit.c; doc/hardware.md#viewport",
	},
	{
		Op: OpZClipping, Name: "Z_CLIPPING", Len: 9, Lists: both | tile,
		Render: Effect{ControlNone, TileState},
		Fields: []Field{
			floatField("min_zw", 0, "MinZw is the near clipping plane."),
			floatField("max_zw", 32, "MaxZw is the far clipping plane."),
		},
		Doc:    "Z_CLIPPING sets the Z min and max clipping planes. The Linux kernel refuses it in a bin CL.",
		Source: "AG Table 38 id 104; vc4_validate.c cmd_info[] (no entry)",
	},
	{
		Op: OpClipperXYScaling, Name: "CLIPPER_XY_SCALING", Len: 9, Lists: bin, KernelBin: true,
		Fields: []Field{
			floatField("half_width", 0, "HalfWidth is the viewport half-width in 1/16 pixel."),
			floatField("half_height", 32, "HalfHeight is the viewport half-height in 1/16 pixel (negative flips y)."),
		},
		Doc:    "CLIPPER_XY_SCALING gives the clipper the viewport scale it needs to make new vertices.",
		Source: "AG Table 38 id 105",
	},
	{
		Op: OpClipperZScaling, Name: "CLIPPER_Z_SCALING", Len: 9, Lists: bin, KernelBin: true,
		Fields: []Field{
			floatField("scale", 0, "Scale is the Zc-to-Zs scale."),
			floatField("offset", 32, "Offset is the Zc-to-Zs offset."),
		},
		Doc:    "CLIPPER_Z_SCALING gives the clipper the depth scale and offset. Order per AG and the XML (scale first); Mesa wrote offset first until 2016, so the order is uncertain: keep scale == offset (doc/hardware.md#viewport).",
		Source: "AG Table 38 second id \"105\" (typo for 106); Mesa v3d_packet_v21.xml",
	},
	{
		Op: OpTileBinningModeConfig, Name: "TILE_BINNING_MODE_CONFIG", Len: 16, Lists: bin, KernelBin: true,
		Fields: []Field{
			addr("tile_alloc_address", 0, 1, "TileAllocAddress is the tile allocation memory. User space sends 0; the kernel writes it."),
			uintField("tile_alloc_size", 32, 32, "TileAllocSize is the size of the tile allocation memory in bytes. User space sends 0; the kernel writes it."),
			addr("tile_state_address", 64, 16, "TileStateAddress is the tile state data array, 48 bytes per tile (16-byte aligned). User space sends 0; the kernel writes it."),
			uintField("width_in_tiles", 96, 8, "WidthInTiles is the frame width in tiles (never 0)."),
			uintField("height_in_tiles", 104, 8, "HeightInTiles is the frame height in tiles (never 0)."),
			flag("multisample_4x", 112, "Multisample4x selects 4x multisampling (32×32-pixel tiles)."),
			flag("color_64", 113, "Color64 selects the 64-bit (HDR) colour tile buffer; the kernel refuses it."),
			flag("auto_init_tile_state", 114, "AutoInitTileState makes the hardware initialise the tile state array; the kernel forces it."),
			enumField("initial_block_size", 115, 2, BlockSize, "InitialBlockSize is each tile list's first block; the kernel forces 32."),
			enumField("block_size", 117, 2, BlockSize, "BlockSize is the size of further blocks; the kernel forces 128."),
			flag("double_buffer", 119, "DoubleBuffer selects double-buffering in non-multisample mode; the kernel refuses it."),
		},
		Doc:    "TILE_BINNING_MODE_CONFIG starts a bin CL: tile counts, binning memory and flags. The kernel overwrites bytes 1–12 and the block-size and auto-init flags.",
		Source: "AG Table 38 id 112; vc4_packet.h VC4_BIN_CONFIG_*; vc4_validate.c validate_tile_binning_config",
	},
	{
		Op: OpTileRenderingModeConfig, Name: "TILE_RENDERING_MODE_CONFIG", Len: 11, Lists: render,
		Render: Effect{ControlNone, TileMode},
		Fields: []Field{
			addr("address", 0, 1, "Address is the colour frame buffer STORE_MS_TILE_BUFFER writes."),
			uintField("width", 32, 16, "Width is the frame width in pixels."),
			uintField("height", 48, 16, "Height is the frame height in pixels."),
			flag("multisample_4x", 64, "Multisample4x selects 4x multisampling."),
			flag("color_64", 65, "Color64 selects the 64-bit (HDR) colour tile buffer."),
			enumField("format", 66, 2, RenderFormat, "Format is the non-HDR frame-buffer colour format."),
			enumField("decimate", 68, 2, DecimateMode, "Decimate is the multisample resolve."),
			enumField("tiling", 70, 2, Tiling, "Tiling is the frame buffer's memory layout."),
			flag("enable_vg_mask", 72, "EnableVGMask enables the VG mask buffer."),
			flag("coverage_mode", 73, "CoverageMode selects coverage mode."),
			flag("early_z_direction_greater", 74, "EarlyZDirectionGreater sets the early-Z update direction to GT/GE (clear: LT/LE)."),
			flag("early_z_disable", 75, "EarlyZDisable disables early-Z and early coverage."),
			flag("double_buffer", 76, "DoubleBuffer selects double-buffering in non-multisample mode."),
		},
		Doc:    "TILE_RENDERING_MODE_CONFIG configures a render pass. The kernel builds it from the submit's color_write surface, whose bits are payload bits 79:64.",
		Source: "AG Table 38 id 113; vc4_packet.h VC4_RENDER_CONFIG_*; vc4_render_cl.c vc4_create_rcl_bo",
	},
	{
		Op: OpClearColors, Name: "CLEAR_COLORS", Len: 14, Lists: render,
		Render: Effect{ControlNone, TileClearValues},
		Fields: []Field{
			hex(uintField("color", 0, 64, "Color is the clear colour: two RGBA8888 words (low word first), or one RGBA16161616.")),
			hex(uintField("z", 64, 24, "Z is the clear depth (24-bit, 0xffffff = 1.0).")),
			hex(uintField("vg_mask", 88, 8, "VGMask is the clear VG mask.")),
			uintField("stencil", 96, 8, "Stencil is the clear stencil value."),
		},
		Doc:    "CLEAR_COLORS sets the values stores clear the tile buffer to.",
		Source: "AG Table 38 id 114; vc4_render_cl.c vc4_create_rcl_bo",
	},
	{
		Op: OpTileCoordinates, Name: "TILE_COORDINATES", Len: 3, Lists: render,
		Render: Effect{ControlStartTile, TileNone},
		Fields: []Field{
			uintField("column", 0, 8, "Column is the tile column (AG says int8; the kernel writes u8)."),
			uintField("row", 8, 8, "Row is the tile row."),
		},
		Doc:    "TILE_COORDINATES starts a tile: it triggers pending loads and sets the tile that clipping and general loads/stores use.",
		Source: "AG Table 38 id 115; vc4_render_cl.c vc4_tile_coordinates",
	},
	{
		Op: OpGEMHandles, Name: "GEM_HANDLES", Len: 9, Lists: bin, KernelBin: true, Pseudo: true,
		Fields: []Field{
			uintField("bo_index_0", 0, 32, "BOIndex0 is the bo_handles index of the BO the next GL_INDEXED_PRIMITIVE's index_address is an offset into."),
			uintField("bo_index_1", 32, 32, "BOIndex1 is a second bo_handles index (unused by the current kernel)."),
		},
		Doc:    "GEM_HANDLES is the kernel's pseudo-packet naming BOs for the following packets; the kernel consumes it and does not copy it to the hardware list.",
		Source: "vc4_packet.h VC4_PACKET_GEM_HANDLES; vc4_validate.c validate_gem_handles",
	},
}
