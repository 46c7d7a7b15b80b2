package gputest

import (
	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/spec"
)

// Surface is a load/store surface of a render list.
type Surface struct {
	Addr   uint32
	Tiling cl.Tiling
	Format cl.LoadStoreFormat
}

// RCL describes a render control list the way the Linux kernel builds one
// from a SUBMIT_CL (vc4_render_cl.c vc4_create_rcl_bo and emit_tile;
// doc/kernel.md#the-emitted-list). Append
// emits it with package cl's encoders, so tests can run the render lists
// the simulated kernel will generate without depending on it.
type RCL struct {
	Width, Height int
	// Color is the colour_write surface: the frame buffer of
	// TILE_RENDERING_MODE_CONFIG (nil: no colour write).
	Color       *Surface
	ColorFormat cl.RenderFormat
	// UseClear adds the clear preamble.
	UseClear   bool
	ClearColor uint32
	ClearZ     uint32
	ClearS     uint8
	// ColorRead, ZSRead and ZSWrite are the other surfaces (nil: none).
	ColorRead, ZSRead, ZSWrite *Surface
	// TileAlloc is the tile allocation address of the bin job and
	// BinTilesX its width in tiles; 0 means a render-only job.
	TileAlloc uint32
	BinTilesX int
	// MS renders in 4× multisample mode with 32×32 tiles, the frame
	// buffer store resolving each pixel's samples (Mesa's choice for a
	// multisampled job, vc4_job.c vc4_job_submit).
	MS bool
	// MSAAColor, when set, is the msaa_color_write surface: every tile
	// stored full-resolution at Addr + 16 KiB · (y·ceil(Width/32) + x)
	// (vc4_render_cl.c vc4_full_res_offset), before the other stores.
	MSAAColor *Surface
	// ColorReadFullRes, when set, is a full-resolution color_read: every
	// tile loaded from the same place a full-resolution store puts it.
	ColorReadFullRes *Surface
}

// Append appends the render list to b.
func (r RCL) Append(b []byte) []byte {
	if r.UseClear {
		b = cl.ClearColors{Color: uint64(r.ClearColor) | uint64(r.ClearColor)<<32, Z: r.ClearZ, Stencil: r.ClearS}.Append(b)
		b = cl.TileCoordinates{}.Append(b)
		b = cl.StoreTileBufferGeneral{}.Append(b)
	}
	mode := cl.TileRenderingModeConfig{Width: uint16(r.Width), Height: uint16(r.Height), Format: r.ColorFormat}
	side := spec.TileSize
	if r.MS {
		mode.Multisample4x, mode.Decimate = true, cl.DecimateMode4x
		side = spec.TileSizeMSAA
	}
	if r.Color != nil {
		mode.Address = r.Color.Addr
		mode.Tiling = r.Color.Tiling
	}
	b = mode.Append(b)
	tx, ty := (r.Width+side-1)/side, (r.Height+side-1)/side
	for y := 0; y < ty; y++ {
		for x := 0; x < tx; x++ {
			last := x == tx-1 && y == ty-1
			coords := cl.TileCoordinates{Column: uint8(x), Row: uint8(y)}
			if r.ColorReadFullRes != nil {
				stride := (r.Width + spec.TileSizeMSAA - 1) / spec.TileSizeMSAA
				b = cl.LoadFullResTileBuffer{DisableZSRead: true,
					Address: r.ColorReadFullRes.Addr + uint32(spec.FullResTileBytes*(y*stride+x))}.Append(b)
			}
			if r.ColorRead != nil {
				b = cl.LoadTileBufferGeneral{Buffer: cl.LoadBufferColor, Tiling: r.ColorRead.Tiling, Format: r.ColorRead.Format, Address: r.ColorRead.Addr}.Append(b)
			}
			if r.ZSRead != nil {
				if r.ColorRead != nil {
					b = coords.Append(b)
					b = cl.StoreTileBufferGeneral{DisableColorClear: true, DisableZSClear: true, DisableVGMaskClear: true}.Append(b)
				}
				b = cl.LoadTileBufferGeneral{Buffer: cl.LoadBufferZS, Tiling: r.ZSRead.Tiling, Address: r.ZSRead.Addr}.Append(b)
			}
			b = coords.Append(b)
			if r.TileAlloc != 0 {
				if x == 0 && y == 0 {
					b = cl.WaitOnSemaphore{}.Append(b)
				}
				b = cl.BranchToSubList{Address: r.TileAlloc + uint32(32*(y*r.BinTilesX+x))}.Append(b)
			}
			wrote := false
			if r.MSAAColor != nil {
				stride := (r.Width + spec.TileSizeMSAA - 1) / spec.TileSizeMSAA
				b = cl.StoreFullResTileBuffer{DisableZSWrite: true, DisableClear: true,
					Address: r.MSAAColor.Addr + uint32(spec.FullResTileBytes*(y*stride+x))}.Append(b)
				wrote = true
			}
			if r.ZSWrite != nil {
				if wrote {
					b = coords.Append(b)
				}
				b = cl.StoreTileBufferGeneral{Buffer: cl.StoreBufferZS, Tiling: r.ZSWrite.Tiling,
					DisableColorClear: r.Color != nil, LastTile: last && r.Color == nil, Address: r.ZSWrite.Addr}.Append(b)
				wrote = true
			}
			if r.Color != nil {
				if wrote {
					b = coords.Append(b)
				}
				if last {
					b = cl.StoreMSTileBufferAndEOF{}.Append(b)
				} else {
					b = cl.StoreMSTileBuffer{}.Append(b)
				}
			}
		}
	}
	return b
}
