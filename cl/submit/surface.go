package submit

import (
	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/spec"
	"github.com/vccube/vccube/uapi"
)

// The surfaces' bits fields are packet bits, so they are computed by
// encoding the packet and reading the bits back through the table, never
// by a second copy of the layout:
//
//   - color_write.bits are TILE_RENDERING_MODE_CONFIG payload bits 79:64,
//     which the kernel copies into the packet it emits (vc4_render_cl.c
//     vc4_create_rcl_bo, vc4_rcl_render_config_surface_setup);
//   - color_read, zs_read and zs_write bits are LOAD/STORE_TILE_BUFFER_GENERAL
//     payload bits 15:0 (vc4_rcl_surface_setup, emit_tile).
//
// The two colour-format codes differ: RGBA8888 is 1 in the render config
// (cl.RenderFormatRGBA8888) and 0 in load/store (cl.LoadStoreFormatRGBA8888).
var (
	renderBitsStart    = spec.Lookup(spec.OpTileRenderingModeConfig).Field("multisample_4x").Start
	loadStoreBitsStart = spec.Lookup(spec.OpStoreTileBufferGeneral).Field("buffer").Start
)

// surfaceBitsWidth is the width of drm_vc4_submit_rcl_surface.bits.
const surfaceBitsWidth = 16

// RenderBits returns the color_write bits for a render configuration: its
// flag fields (multisample, HDR, format, decimate, tiling, …) as the u16
// the kernel puts in TILE_RENDERING_MODE_CONFIG. Address, width and height
// are ignored. Linear RGBA8888 is 0x0004, T-format RGBA8888 0x0044
// (doc/kernel.md#surfaces).
func RenderBits(c cl.TileRenderingModeConfig) uint16 {
	c.Address, c.Width, c.Height = 0, 0, 0
	var a [cl.TileRenderingModeConfigLen]byte
	b := c.Append(a[:0])
	return uint16(spec.GetBits(b[1:], renderBitsStart, surfaceBitsWidth))
}

// RenderConfigOf returns the TILE_RENDERING_MODE_CONFIG flag fields that
// color_write bits select (address, width and height zero).
func RenderConfigOf(bits uint16) cl.TileRenderingModeConfig {
	var a [cl.TileRenderingModeConfigLen]byte
	a[0] = byte(spec.OpTileRenderingModeConfig)
	spec.PutBits(a[1:], renderBitsStart, surfaceBitsWidth, uint64(bits))
	var c cl.TileRenderingModeConfig
	_ = c.Unpack(a[:]) // cannot fail: right opcode and length
	return c
}

// StoreBits returns the zs_write bits for a store: the packet's first 16
// payload bits (buffer, tiling, mode, format, no-swap and no-clear flags).
// T-format Z/stencil is 0x0012 (doc/kernel.md#surfaces).
func StoreBits(s cl.StoreTileBufferGeneral) uint16 {
	var a [cl.StoreTileBufferGeneralLen]byte
	b := s.Append(a[:0])
	return uint16(spec.GetBits(b[1:], loadStoreBitsStart, surfaceBitsWidth))
}

// LoadBits returns the color_read or zs_read bits for a load: the packet's
// first 16 payload bits. T-format RGBA8888 colour is 0x0011.
func LoadBits(l cl.LoadTileBufferGeneral) uint16 {
	var a [cl.LoadTileBufferGeneralLen]byte
	b := l.Append(a[:0])
	return uint16(spec.GetBits(b[1:], loadStoreBitsStart, surfaceBitsWidth))
}

// StoreOf returns the STORE_TILE_BUFFER_GENERAL fields that surface bits
// select (address and the high flags zero).
func StoreOf(bits uint16) cl.StoreTileBufferGeneral {
	var a [cl.StoreTileBufferGeneralLen]byte
	a[0] = byte(spec.OpStoreTileBufferGeneral)
	spec.PutBits(a[1:], loadStoreBitsStart, surfaceBitsWidth, uint64(bits))
	var s cl.StoreTileBufferGeneral
	_ = s.Unpack(a[:])
	return s
}

// LoadOf returns the LOAD_TILE_BUFFER_GENERAL fields that surface bits
// select (address zero).
func LoadOf(bits uint16) cl.LoadTileBufferGeneral {
	var a [cl.LoadTileBufferGeneralLen]byte
	a[0] = byte(spec.OpLoadTileBufferGeneral)
	spec.PutBits(a[1:], loadStoreBitsStart, surfaceBitsWidth, uint64(bits))
	var l cl.LoadTileBufferGeneral
	_ = l.Unpack(a[:])
	return l
}

// Absent is an unused surface: hindex 0xFFFFFFFF. A zeroed surface would
// mean "BO index 0" (vc4_render_cl.c; doc/kernel.md#struct-layouts).
func Absent() uapi.SubmitRCLSurface { return uapi.SubmitRCLSurface{HIndex: uapi.SurfaceAbsent} }

// ColorWrite returns a color_write surface in RGBA8888: bo_handles index,
// byte offset in that BO and tiling (linear for a scanout buffer, or T).
func ColorWrite(hindex, offset uint32, tiling cl.Tiling) uapi.SubmitRCLSurface {
	return uapi.SubmitRCLSurface{HIndex: hindex, Offset: offset,
		Bits: RenderBits(cl.TileRenderingModeConfig{Format: cl.RenderFormatRGBA8888, Tiling: tiling})}
}

// ColorRead returns a color_read surface in RGBA8888 with the given tiling.
func ColorRead(hindex, offset uint32, tiling cl.Tiling) uapi.SubmitRCLSurface {
	return uapi.SubmitRCLSurface{HIndex: hindex, Offset: offset,
		Bits: LoadBits(cl.LoadTileBufferGeneral{Buffer: cl.LoadBufferColor, Tiling: tiling, Format: cl.LoadStoreFormatRGBA8888})}
}

// ZSWrite returns a zs_write surface: Z (24 bits) and stencil (8 bits) in 32
// bits per pixel with the given tiling; the kernel wants format 0.
func ZSWrite(hindex, offset uint32, tiling cl.Tiling) uapi.SubmitRCLSurface {
	return uapi.SubmitRCLSurface{HIndex: hindex, Offset: offset,
		Bits: StoreBits(cl.StoreTileBufferGeneral{Buffer: cl.StoreBufferZS, Tiling: tiling})}
}

// ZSRead returns a zs_read surface with the given tiling.
func ZSRead(hindex, offset uint32, tiling cl.Tiling) uapi.SubmitRCLSurface {
	return uapi.SubmitRCLSurface{HIndex: hindex, Offset: offset,
		Bits: LoadBits(cl.LoadTileBufferGeneral{Buffer: cl.LoadBufferZS, Tiling: tiling})}
}
