package kernel

// The bits of the submit's surfaces, as the kernel reads them: its own
// copy of the defines of Linux drivers/gpu/drm/vc4/vc4_packet.h, which
// vc4_render_cl.c takes apart with VC4_GET_FIELD and copies into the
// render list unchanged (rcl_u16). The model reads user space's bits with
// these and not with any client code, so a client that packs a field at
// the wrong place is refused or renders wrongly here, as on a Pi.
// TestSurfaceBitsAgreeWithSpec checks them against cl/spec's description
// of the same packets.

// Fields of color_write.bits, the last u16 of TILE_RENDERING_MODE_CONFIG
// ("bits in the last u16 of VC4_PACKET_TILE_RENDERING_MODE_CONFIG").
const (
	renderConfigMSMode4x          = 1 << 0 // VC4_RENDER_CONFIG_MS_MODE_4X
	renderConfigFormatMask        = 3 << 2 // VC4_RENDER_CONFIG_FORMAT_MASK, VC4_MASK(3, 2)
	renderConfigFormatShift       = 2      // VC4_RENDER_CONFIG_FORMAT_SHIFT
	renderConfigDecimateMode4x    = 1 << 4 // VC4_RENDER_CONFIG_DECIMATE_MODE_4X
	renderConfigMemoryFormatMask  = 3 << 6 // VC4_RENDER_CONFIG_MEMORY_FORMAT_MASK, VC4_MASK(7, 6)
	renderConfigMemoryFormatShift = 6      // VC4_RENDER_CONFIG_MEMORY_FORMAT_SHIFT
)

// Values of the render config's format field (VC4_RENDER_CONFIG_FORMAT_*).
const (
	renderConfigFormatBGR565Dithered = 0
	renderConfigFormatRGBA8888       = 1
	renderConfigFormatBGR565         = 2
)

// Fields of the other surfaces' bits, bytes 0-1 of LOAD/STORE_TILE_BUFFER_
// GENERAL ("byte 0-1 of VC4_PACKET_STORE_TILE_BUFFER_GENERAL and
// VC4_PACKET_LOAD_TILE_BUFFER_GENERAL").
const (
	loadStoreBufferMask  = 7 << 0 // VC4_LOADSTORE_TILE_BUFFER_BUFFER_MASK, VC4_MASK(2, 0)
	loadStoreBufferShift = 0      // VC4_LOADSTORE_TILE_BUFFER_BUFFER_SHIFT
	loadStoreTilingMask  = 3 << 4 // VC4_LOADSTORE_TILE_BUFFER_TILING_MASK, VC4_MASK(5, 4)
	loadStoreTilingShift = 4      // VC4_LOADSTORE_TILE_BUFFER_TILING_SHIFT
	loadStoreFormatMask  = 3 << 8 // VC4_LOADSTORE_TILE_BUFFER_FORMAT_MASK, VC4_MASK(9, 8)
	loadStoreFormatShift = 8      // VC4_LOADSTORE_TILE_BUFFER_FORMAT_SHIFT

	// storeDisableColorClear is VC4_STORE_TILE_BUFFER_DISABLE_COLOR_CLEAR,
	// BIT(13), which emit_tile adds to zs_write's bits when a colour
	// store follows.
	storeDisableColorClear = 1 << 13
)

// Values of the load/store buffer field (VC4_LOADSTORE_TILE_BUFFER_*).
const (
	loadStoreBufferColor = 1 // VC4_LOADSTORE_TILE_BUFFER_COLOR
	loadStoreBufferZS    = 2 // VC4_LOADSTORE_TILE_BUFFER_ZS
)

// Values of the load/store format field (VC4_LOADSTORE_TILE_BUFFER_*).
const (
	loadStoreFormatRGBA8888     = 0 // VC4_LOADSTORE_TILE_BUFFER_RGBA8888
	loadStoreFormatBGR565Dither = 1 // VC4_LOADSTORE_TILE_BUFFER_BGR565_DITHER
	loadStoreFormatBGR565       = 2 // VC4_LOADSTORE_TILE_BUFFER_BGR565
)

// loadStoreEOF is VC4_LOADSTORE_TILE_BUFFER_EOF, BIT(3) of the address
// word of STORE_TILE_BUFFER_GENERAL ("byte 2 ... (low bits of the
// address)"): the last store of the frame.
const loadStoreEOF = 1 << 3

// Memory formats, the values of both tiling fields (VC4_TILING_FORMAT_*).
const (
	tilingLinear = 0 // VC4_TILING_FORMAT_LINEAR
	tilingT      = 1 // VC4_TILING_FORMAT_T
	tilingLT     = 2 // VC4_TILING_FORMAT_LT
)

// The masks of the surface bits the kernel accepts: the render config's
// 4x multisampling, format, 4x decimation and memory format
// (vc4_rcl_render_config_surface_setup), 0x00DD; and the load/store
// buffer, tiling and format (vc4_rcl_surface_setup), 0x0337.
const (
	renderBitsMask    = renderConfigMSMode4x | renderConfigFormatMask | renderConfigDecimateMode4x | renderConfigMemoryFormatMask
	loadStoreBitsMask = loadStoreBufferMask | loadStoreTilingMask | loadStoreFormatMask
)

// getField is VC4_GET_FIELD: the field of bits under mask, shifted down.
func getField(bits uint16, mask uint16, shift uint) uint8 {
	return uint8((bits & mask) >> shift)
}
