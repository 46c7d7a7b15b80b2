package kernel

import (
	"encoding/binary"
	"fmt"
	"syscall"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/spec"
	"github.com/vccube/vccube/sim/mem"
	"github.com/vccube/vccube/uapi"
)

// Render control list generation (vc4_render_cl.c vc4_get_rcl,
// vc4_create_rcl_bo, emit_tile; doc/kernel.md#render-list,
// doc/kernel.md#surfaces). The kernel,
// not user space, writes the render list, from the six surfaces of the
// submit. The packets that carry the surfaces' bits are written as the
// kernel writes them, with the bits copied unchanged; the others are built
// with cl's typed encoders.

// The surface bits: for color_write they are TILE_RENDERING_MODE_CONFIG
// payload bits 79:64, for the others LOAD/STORE_TILE_BUFFER_GENERAL payload
// bits 15:0; vc4_render_cl.c checks their fields with the masks of
// vc4_packet.h (packet.go) and copies them into those packets unchanged.

// rclSetup holds the surfaces' BOs (struct vc4_rcl_setup).
type rclSetup struct {
	colorRead, colorWrite, zsRead, zsWrite, msaaColorWrite, msaaZSWrite *BO
}

// getRCL is vc4_get_rcl: tile bounds, then the surfaces in the kernel's
// order, then the list.
func (j *job) getRCL() error {
	a := j.args
	hasBin := a.BinCLSize != 0
	if a.MinXTile > a.MaxXTile || a.MinYTile > a.MaxYTile {
		return errf(syscall.EINVAL, "Bad render tile set (%d,%d)-(%d,%d)", a.MinXTile, a.MinYTile, a.MaxXTile, a.MaxYTile)
	}
	// Stricter than the kernel, which lets max == bin tiles through (an
	// off-by-one, doc/kernel.md#checks): the render list would then
	// branch to a tile list the binner never wrote.
	if hasBin && (a.MaxXTile >= j.binTilesX || a.MaxYTile >= j.binTilesY) {
		return errf(syscall.EINVAL, "Render tiles (%d,%d) outside of bin config (%d,%d)", a.MaxXTile, a.MaxYTile, j.binTilesX, j.binTilesY)
	}
	var s rclSetup
	var err error
	if s.colorWrite, err = j.renderConfigSurface(&a.ColorWrite); err != nil {
		return err
	}
	if s.colorRead, err = j.surface(&a.ColorRead, "color_read", false); err != nil {
		return err
	}
	if s.zsRead, err = j.surface(&a.ZSRead, "zs_read", false); err != nil {
		return err
	}
	if s.zsWrite, err = j.surface(&a.ZSWrite, "zs_write", true); err != nil {
		return err
	}
	if s.msaaColorWrite, err = j.msaaSurface(&a.MSAAColorWrite); err != nil {
		return err
	}
	if s.msaaZSWrite, err = j.msaaSurface(&a.MSAAZSWrite); err != nil {
		return err
	}
	if s.colorWrite == nil && s.zsWrite == nil && s.msaaColorWrite == nil && s.msaaZSWrite == nil {
		return errf(syscall.EINVAL, "RCL requires color or Z/S write")
	}
	return j.createRCLBO(&s)
}

// addWrite records a surface the GPU writes (exec->rcl_write_bo[]).
func (j *job) addWrite(bo *BO) {
	j.writeBOs[j.nWrite] = bo
	j.nWrite++
	j.view.Add(bo.region, mem.Write, "render target")
}

// renderConfigSurface is vc4_rcl_render_config_surface_setup (color_write):
// flags and bits are checked before the absent test.
func (j *job) renderConfigSurface(surf *uapi.SubmitRCLSurface) (*BO, error) {
	if surf.Flags != 0 {
		return nil, errf(syscall.EINVAL, "No flags supported on render config.")
	}
	if surf.Bits&^renderBitsMask != 0 {
		return nil, errf(syscall.EINVAL, "Unknown bits in render config: 0x%04x", surf.Bits)
	}
	if surf.HIndex == uapi.SurfaceAbsent {
		return nil, nil
	}
	bo, err := j.useBO(surf.HIndex)
	if err != nil {
		return nil, err
	}
	j.addWrite(bo)
	tiling := getField(surf.Bits, renderConfigMemoryFormatMask, renderConfigMemoryFormatShift)
	format := getField(surf.Bits, renderConfigFormatMask, renderConfigFormatShift)
	if tiling > tilingLT {
		return nil, errf(syscall.EINVAL, "Bad tiling format")
	}
	var cpp int
	switch format {
	case renderConfigFormatBGR565Dithered, renderConfigFormatBGR565:
		cpp = 2
	case renderConfigFormatRGBA8888:
		cpp = 4
	default:
		return nil, errf(syscall.EINVAL, "Bad tile buffer format")
	}
	if !checkTexSize(bo.size, surf.Offset, tiling, int(j.args.Width), int(j.args.Height), cpp) {
		return nil, errf(syscall.EINVAL, "Overflow in %dx%d color_write at %d in a %d-byte BO", j.args.Width, j.args.Height, surf.Offset, bo.size)
	}
	return bo, nil
}

// surface is vc4_rcl_surface_setup for color_read, zs_read and zs_write
// (flags before the absent test; alignment and size only when the surface
// is not full-resolution: doc/kernel.md#surfaces).
func (j *job) surface(surf *uapi.SubmitRCLSurface, name string, isWrite bool) (*BO, error) {
	if surf.Flags&^uapi.SurfaceReadIsFullRes != 0 {
		return nil, errf(syscall.EINVAL, "Extra flags set (%s)", name)
	}
	if surf.HIndex == uapi.SurfaceAbsent {
		return nil, nil
	}
	bo, err := j.useBO(surf.HIndex)
	if err != nil {
		return nil, err
	}
	if isWrite {
		j.addWrite(bo)
	}
	if surf.Flags&uapi.SurfaceReadIsFullRes != 0 {
		if surf == &j.args.ZSWrite {
			return nil, errf(syscall.EINVAL, "general zs write may not be a full-res.")
		}
		if surf.Bits != 0 {
			return nil, errf(syscall.EINVAL, "load/store general bits set with full res load/store.")
		}
		// Stricter than the kernel, which never checks a full-resolution
		// read's alignment although it ORs flag bits into the low four
		// bits of the address (vc4_render_cl.c emit_tile).
		if surf.Offset&0xf != 0 {
			return nil, errf(syscall.EINVAL, "full-res %s must be 16b aligned", name)
		}
		return bo, j.fullResBoundsCheck(bo, surf)
	}
	if surf.Bits&^loadStoreBitsMask != 0 {
		return nil, errf(syscall.EINVAL, "Unknown bits in load/store: 0x%04x", surf.Bits)
	}
	tiling := getField(surf.Bits, loadStoreTilingMask, loadStoreTilingShift)
	buffer := getField(surf.Bits, loadStoreBufferMask, loadStoreBufferShift)
	format := getField(surf.Bits, loadStoreFormatMask, loadStoreFormatShift)
	if tiling > tilingLT {
		return nil, errf(syscall.EINVAL, "Bad tiling format")
	}
	var cpp int
	switch buffer {
	case loadStoreBufferZS:
		if format != 0 {
			return nil, errf(syscall.EINVAL, "No color format should be set for ZS")
		}
		cpp = 4
	case loadStoreBufferColor:
		switch format {
		case loadStoreFormatBGR565, loadStoreFormatBGR565Dither:
			cpp = 2
		case loadStoreFormatRGBA8888:
			cpp = 4
		default:
			return nil, errf(syscall.EINVAL, "Bad tile buffer format")
		}
	default:
		return nil, errf(syscall.EINVAL, "Bad load/store buffer %d.", buffer)
	}
	if surf.Offset&0xf != 0 {
		return nil, errf(syscall.EINVAL, "load/store buffer must be 16b aligned.")
	}
	if !checkTexSize(bo.size, surf.Offset, tiling, int(j.args.Width), int(j.args.Height), cpp) {
		return nil, errf(syscall.EINVAL, "Overflow in %dx%d %s at %d in a %d-byte BO", j.args.Width, j.args.Height, name, surf.Offset, bo.size)
	}
	return bo, nil
}

// msaaSurface is vc4_rcl_msaa_surface_setup: flags and bits must be 0
// even for an absent surface.
func (j *job) msaaSurface(surf *uapi.SubmitRCLSurface) (*BO, error) {
	if surf.Flags != 0 || surf.Bits != 0 {
		return nil, errf(syscall.EINVAL, "MSAA surface had nonzero flags/bits")
	}
	if surf.HIndex == uapi.SurfaceAbsent {
		return nil, nil
	}
	bo, err := j.useBO(surf.HIndex)
	if err != nil {
		return nil, err
	}
	j.addWrite(bo)
	if surf.Offset&0xf != 0 {
		return nil, errf(syscall.EINVAL, "MSAA write must be 16b aligned.")
	}
	return bo, j.fullResBoundsCheck(bo, surf)
}

// fullResBoundsCheck is vc4_full_res_bounds_check, with the tile stride of
// fullResRowTiles for every tile size (doc/kernel.md#the-emitted-list).
//
// Stricter than the kernel, which only checks that the last tile starts
// inside the BO: here it must end inside it.
func (j *job) fullResBoundsCheck(bo *BO, surf *uapi.SubmitRCLSurface) error {
	a := j.args
	stride := fullResRowTiles(a.Width)
	if surf.Offset > bo.size {
		return errf(syscall.EINVAL, "surface offset %d > BO size %d", surf.Offset, bo.size)
	}
	if (bo.size-surf.Offset)/spec.FullResTileBytes < stride*uint32(a.MaxYTile)+uint32(a.MaxXTile)+1 {
		return errf(syscall.EINVAL, "MSAA tile %d, %d out of bounds (bo size %d, offset %d)", a.MaxXTile, a.MaxYTile, bo.size, surf.Offset)
	}
	return nil
}

// fullResRowTiles is the kernel's row stride of a full-resolution surface
// in tiles: ceil(width / 32), the 4× multisample tile side, whatever the
// tile size (vc4_render_cl.c vc4_full_res_offset and
// vc4_full_res_bounds_check use DIV_ROUND_UP(width, 32)).
func fullResRowTiles(width uint16) uint32 {
	return (uint32(width) + spec.TileSizeMSAA - 1) / spec.TileSizeMSAA
}

// fullResAddr is vc4_full_res_offset: a tile's own block of a
// full-resolution surface.
func (j *job) fullResAddr(bo *BO, surf *uapi.SubmitRCLSurface, x, y uint8) uint32 {
	stride := fullResRowTiles(j.args.Width)
	return bo.Addr() + surf.Offset + spec.FullResTileBytes*(stride*uint32(y)+uint32(x))
}

// createRCLBO is vc4_create_rcl_bo: it sizes the list, allocates its BO
// and writes it.
func (j *job) createRCLBO(s *rclSetup) error {
	a := j.args
	d := j.d
	hasBin := a.BinCLSize != 0
	// u8 arithmetic as in the kernel: 0..255 wraps to 0 tiles.
	xtiles := uint8(a.MaxXTile - a.MinXTile + 1)
	ytiles := uint8(a.MaxYTile - a.MinYTile + 1)
	positiveX, positiveY := true, true
	if a.Flags&uapi.SubmitFixedRCLOrder != 0 {
		positiveX = a.Flags&uapi.SubmitRCLOrderIncreasingX != 0
		positiveY = a.Flags&uapi.SubmitRCLOrderIncreasingY != 0
	}

	size := uint32(cl.TileRenderingModeConfigLen)
	loop := uint32(cl.TileCoordinatesLen)
	if a.Flags&uapi.SubmitUseClearColor != 0 {
		size += cl.ClearColorsLen + cl.TileCoordinatesLen + cl.StoreTileBufferGeneralLen
	}
	fullRes := func(surf *uapi.SubmitRCLSurface) bool { return surf.Flags&uapi.SurfaceReadIsFullRes != 0 }
	if s.colorRead != nil {
		if fullRes(&a.ColorRead) {
			loop += cl.LoadFullResTileBufferLen
		} else {
			loop += cl.LoadTileBufferGeneralLen
		}
	}
	if s.zsRead != nil {
		if fullRes(&a.ZSRead) {
			loop += cl.LoadFullResTileBufferLen
		} else {
			if s.colorRead != nil && !fullRes(&a.ColorRead) {
				loop += cl.TileCoordinatesLen + cl.StoreTileBufferGeneralLen
			}
			loop += cl.LoadTileBufferGeneralLen
		}
	}
	// The kernel sizes the store that executes the colour load only when
	// the colour read is not full-resolution, but emit_tile writes it
	// whenever a colour read precedes a general Z/stencil read: with a
	// full-resolution colour read and a general Z/stencil read it writes
	// 10 bytes a tile more than it sized, past its own size and possibly
	// past the BO, and then stops at BUG_ON(setup->next_offset != size)
	// (vc4_render_cl.c vc4_create_rcl_bo, emit_tile). A kernel oops is not
	// something a simulation can return: we log the BUG as the kernel
	// prints it and refuse the submit with EINVAL, so that a client and a
	// test both see it. (Mesa never asks for it: its colour and depth
	// buffers share one sample count, and it marks a read full-resolution
	// exactly when the buffer is multisampled, vc4_job.c
	// vc4_submit_setup_rcl_surface.)
	if s.colorRead != nil && fullRes(&a.ColorRead) && s.zsRead != nil && !fullRes(&a.ZSRead) {
		d.logf("kernel BUG at drivers/gpu/drm/vc4/vc4_render_cl.c: vc4_create_rcl_bo: BUG_ON(setup->next_offset != size): " +
			"a full-resolution color_read with a general zs_read writes a TILE_COORDINATES and a store per tile the list was not sized for")
		return errf(syscall.EINVAL, "full-resolution color_read with a non-full-resolution zs_read: the kernel's render list overruns its size and BUGs (vc4_create_rcl_bo)")
	}
	if hasBin {
		size += cl.WaitOnSemaphoreLen
		loop += cl.BranchToSubListLen
	}
	writes := uint32(0)
	if s.msaaColorWrite != nil {
		loop += cl.StoreFullResTileBufferLen
		writes++
	}
	if s.msaaZSWrite != nil {
		loop += cl.StoreFullResTileBufferLen
		writes++
	}
	if s.zsWrite != nil {
		loop += cl.StoreTileBufferGeneralLen
		writes++
	}
	if s.colorWrite != nil {
		loop += cl.StoreMSTileBufferLen
		writes++
	}
	// A TILE_COORDINATES between consecutive stores.
	loop += cl.TileCoordinatesLen * (writes - 1)
	size += uint32(xtiles) * uint32(ytiles) * loop

	bo, err := d.boCreate(uint64(size), true, boRCL)
	if err != nil {
		return err
	}
	j.rclBO = bo
	j.view.Add(bo.region, mem.Read, "render control list")
	out := d.pool.Bytes(bo.region)[:0:size]

	// A store in None mode after new clear values makes the tile buffer
	// take them (the previous frame's store cleared it to the old ones).
	if a.Flags&uapi.SubmitUseClearColor != 0 {
		out = cl.ClearColors{
			Color: uint64(a.ClearColor[1])<<32 | uint64(a.ClearColor[0]),
			// The kernel writes clear_z as a whole u32: its top byte
			// lands in the VG mask field.
			Z:       a.ClearZ & 0xFFFFFF,
			VGMask:  uint8(a.ClearZ >> 24),
			Stencil: a.ClearS,
		}.Append(out)
		out = cl.TileCoordinates{}.Append(out)
		out = cl.StoreTileBufferGeneral{Buffer: cl.StoreBufferNone}.Append(out)
	}

	// The render config: colour address, frame size and color_write's
	// bits as user space gave them.
	var colorAddr uint32
	if s.colorWrite != nil {
		colorAddr = s.colorWrite.Addr() + a.ColorWrite.Offset
	}
	out = append(out, byte(spec.OpTileRenderingModeConfig))
	out = binary.LittleEndian.AppendUint32(out, colorAddr)
	out = binary.LittleEndian.AppendUint16(out, a.Width)
	out = binary.LittleEndian.AppendUint16(out, a.Height)
	out = binary.LittleEndian.AppendUint16(out, a.ColorWrite.Bits)

	for yi := uint8(0); yi < ytiles; yi++ {
		y := a.MinYTile + yi
		if !positiveY {
			y = a.MaxYTile - yi
		}
		for xi := uint8(0); xi < xtiles; xi++ {
			x := a.MinXTile + xi
			if !positiveX {
				x = a.MaxXTile - xi
			}
			first := xi == 0 && yi == 0
			last := xi == xtiles-1 && yi == ytiles-1
			out = j.emitTile(out, s, x, y, first, last)
		}
	}
	if uint32(len(out)) != size {
		panic(fmt.Sprintf("kernel: render list of %d bytes, %d computed", len(out), size))
	}
	j.ct1ca = bo.Addr()
	j.ct1ea = bo.Addr() + size
	return nil
}

// emitTile is emit_tile: the loads, the tile's sub-list and the stores of
// one tile.
func (j *job) emitTile(out []byte, s *rclSetup, x, y uint8, first, last bool) []byte {
	a := j.args
	hasBin := a.BinCLSize != 0
	fullRes := func(surf *uapi.SubmitRCLSurface) bool { return surf.Flags&uapi.SurfaceReadIsFullRes != 0 }
	coords := cl.TileCoordinates{Column: x, Row: y}

	// A load happens at the next TILE_COORDINATES, and only one may be
	// pending.
	if s.colorRead != nil {
		if fullRes(&a.ColorRead) {
			out = cl.LoadFullResTileBuffer{DisableZSRead: true, Address: j.fullResAddr(s.colorRead, &a.ColorRead, x, y)}.Append(out)
		} else {
			out = appendGeneral(out, spec.OpLoadTileBufferGeneral, a.ColorRead.Bits, s.colorRead.Addr()+a.ColorRead.Offset)
		}
	}
	if s.zsRead != nil {
		if fullRes(&a.ZSRead) {
			// A full-resolution load follows the colour load directly
			// (emit_tile emits no store between them).
			out = cl.LoadFullResTileBuffer{DisableColorRead: true, Address: j.fullResAddr(s.zsRead, &a.ZSRead, x, y)}.Append(out)
		} else {
			if s.colorRead != nil {
				// Execute the colour load with a store that does nothing.
				out = coords.Append(out)
				out = cl.StoreTileBufferGeneral{Buffer: cl.StoreBufferNone,
					DisableColorClear: true, DisableZSClear: true, DisableVGMaskClear: true}.Append(out)
			}
			out = appendGeneral(out, spec.OpLoadTileBufferGeneral, a.ZSRead.Bits, s.zsRead.Addr()+a.ZSRead.Offset)
		}
	}

	// Clipping needs the tile coordinates, so they are always emitted.
	out = coords.Append(out)
	// The first tile waits for the binner to finish.
	if first && hasBin {
		out = cl.WaitOnSemaphore{}.Append(out)
	}
	if hasBin {
		out = cl.BranchToSubList{Address: j.tileAllocAddr + initialBlockSize.Bytes()*(uint32(y)*uint32(j.binTilesX)+uint32(x))}.Append(out)
	}

	if s.msaaColorWrite != nil {
		lastWrite := s.msaaZSWrite == nil && s.zsWrite == nil && s.colorWrite == nil
		st := cl.StoreFullResTileBuffer{DisableZSWrite: true, Address: j.fullResAddr(s.msaaColorWrite, &a.MSAAColorWrite, x, y)}
		if !lastWrite {
			st.DisableClear = true
		} else if last {
			st.LastTile = true
		}
		out = st.Append(out)
	}
	if s.msaaZSWrite != nil {
		lastWrite := s.zsWrite == nil && s.colorWrite == nil
		if s.msaaColorWrite != nil {
			out = coords.Append(out)
		}
		st := cl.StoreFullResTileBuffer{DisableColorWrite: true, Address: j.fullResAddr(s.msaaZSWrite, &a.MSAAZSWrite, x, y)}
		if !lastWrite {
			st.DisableClear = true
		} else if last {
			st.LastTile = true
		}
		out = st.Append(out)
	}
	if s.zsWrite != nil {
		lastWrite := s.colorWrite == nil
		if s.msaaColorWrite != nil || s.msaaZSWrite != nil {
			out = coords.Append(out)
		}
		bits := a.ZSWrite.Bits
		if !lastWrite {
			bits |= storeDisableColorClear
		}
		addr := s.zsWrite.Addr() + a.ZSWrite.Offset
		if last && lastWrite {
			addr |= loadStoreEOF
		}
		out = appendGeneral(out, spec.OpStoreTileBufferGeneral, bits, addr)
	}
	if s.colorWrite != nil {
		if s.msaaColorWrite != nil || s.msaaZSWrite != nil || s.zsWrite != nil {
			out = coords.Append(out)
		}
		if last {
			out = cl.StoreMSTileBufferAndEOF{}.Append(out)
		} else {
			out = cl.StoreMSTileBuffer{}.Append(out)
		}
	}
	return out
}

// appendGeneral writes a LOAD_TILE_BUFFER_GENERAL or
// STORE_TILE_BUFFER_GENERAL as emit_tile does: the opcode, a surface's 16
// bits (rcl_u16) and the address word, whose low four bits are flags
// (rcl_u32).
func appendGeneral(out []byte, op spec.Opcode, bits uint16, addr uint32) []byte {
	out = append(out, byte(op))
	out = binary.LittleEndian.AppendUint16(out, bits)
	return binary.LittleEndian.AppendUint32(out, addr)
}
