package cleargpu_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/spec"
	"github.com/vccube/vccube/sim/hw"
	"github.com/vccube/vccube/sim/kernel/cleargpu"
	"github.com/vccube/vccube/sim/mem"
	"github.com/vccube/vccube/texture"
)

// The tests build render lists with package cl's encoders, shaped as the
// kernel generates them for a SUBMIT_CL (Linux vc4_render_cl.c
// vc4_create_rcl_bo, emit_tile): CLEAR_COLORS, TILE_RENDERING_MODE_CONFIG,
// a store of nothing at tile (0, 0) that latches the clear values, then per
// tile its loads, TILE_COORDINATES, its stores, and STORE_MS_TILE_BUFFER
// (AND_EOF on the last tile).

// guard fills untouched memory: no clear colour below has a 0xaa byte.
const guard = 0xaa

// rig is one job's memory.
type rig struct {
	t    *testing.T
	pool *mem.Pool
	view *mem.View
}

func newRig(t *testing.T) *rig {
	t.Helper()
	p, err := mem.NewPool(mem.DefaultBase, 4<<20)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return &rig{t: t, pool: p, view: mem.NewView(p)}
}

// buf allocates n bytes filled with the guard byte and lets the job access
// them.
func (r *rig) buf(n int, access mem.Access, name string) (uint32, []byte) {
	r.t.Helper()
	reg, err := r.pool.Alloc(n, 0)
	if err != nil {
		r.t.Fatal(err)
	}
	r.view.Add(reg, access, name)
	b := r.pool.Bytes(reg)[:n]
	for i := range b {
		b[i] = guard
	}
	return reg.Addr, b
}

// run puts the render list in memory the job may read and runs it.
func (r *rig) run(g *cleargpu.GPU, list []byte) hw.Result {
	r.t.Helper()
	addr, b := r.buf(max(len(list), 1), mem.Read, "render list")
	copy(b, list)
	return g.Run(&hw.Job{Mem: r.view, RenderStart: addr, RenderEnd: addr + uint32(len(list))})
}

// frame is a render list's frame: its size and colour buffer.
type frame struct {
	w, h   int
	format cl.RenderFormat
	tiling cl.Tiling
	addr   uint32
	msaa   bool
}

// clearList is the kernel's list for a clear-only job: every tile cleared
// and stored to the frame.
func clearList(f frame, colour uint32, z uint32, stencil uint8) []byte {
	b := cl.ClearColors{Color: uint64(colour) | uint64(colour)<<32, Z: z, Stencil: stencil}.Append(nil)
	return appendTiles(b, f, nil)
}

// appendTiles appends the mode config, the latching store and the tiles;
// perTile (if set) appends a tile's loads before its TILE_COORDINATES and
// returns the stores to put after it.
func appendTiles(b []byte, f frame, perTile func(b []byte, x, y int) ([]byte, []byte)) []byte {
	b = cl.TileRenderingModeConfig{Address: f.addr, Width: uint16(f.w), Height: uint16(f.h), Format: f.format,
		Tiling: f.tiling, Multisample4x: f.msaa}.Append(b)
	b = cl.TileCoordinates{}.Append(b)
	b = cl.StoreTileBufferGeneral{}.Append(b)
	side := spec.TileSide(f.msaa)
	tx, ty := (f.w+side-1)/side, (f.h+side-1)/side
	for y := 0; y < ty; y++ {
		for x := 0; x < tx; x++ {
			var stores []byte
			if perTile != nil {
				b, stores = perTile(b, x, y)
			}
			b = cl.TileCoordinates{Column: uint8(x), Row: uint8(y)}.Append(b)
			b = append(b, stores...)
			if x == tx-1 && y == ty-1 {
				b = cl.StoreMSTileBufferAndEOF{}.Append(b)
			} else {
				b = cl.StoreMSTileBuffer{}.Append(b)
			}
		}
	}
	return b
}

func mustRun(t *testing.T, r *rig, g *cleargpu.GPU, list []byte) {
	t.Helper()
	if res := r.run(g, list); res.Hung {
		t.Fatalf("the job hung: %v", res.Reason)
	}
}

func cppOf(f cl.RenderFormat) int {
	if f == cl.RenderFormatRGBA8888 {
		return 4
	}
	return 2
}

// A clear-only job fills exactly the frame's pixels with the clear colour
// (the low 16 bits for BGR565), in each tiling, and touches no byte of the
// buffer outside the frame: not the padding T and LT formats round the
// image up to, not what follows it. The frame is not a whole number of
// tiles, so the last column and row of tiles are clipped.
func TestClearFillsTheFrameInEachFormatAndTiling(t *testing.T) {
	const colour = 0x80402010 // bytes 10 20 40 80, none of them the guard
	for _, format := range []cl.RenderFormat{cl.RenderFormatRGBA8888, cl.RenderFormatBGR565, cl.RenderFormatBGR565Dithered} {
		for _, tiling := range []cl.Tiling{cl.TilingLinear, cl.TilingT, cl.TilingLT} {
			for _, msaa := range []bool{false, true} {
				r := newRig(t)
				cpp := cppOf(format)
				l, err := texture.NewLayout(texture.Tiling(tiling), cpp, 100, 70)
				if err != nil {
					t.Fatal(err)
				}
				addr, b := r.buf(l.Size()+4096, mem.Write, "colour buffer")
				f := frame{w: 100, h: 70, format: format, tiling: tiling, addr: addr, msaa: msaa}
				mustRun(t, r, cleargpu.New(), clearList(f, colour, 0, 0))

				want := []byte{0x10, 0x20, 0x40, 0x80}[:cpp]
				changed, pixels := 0, 0
				for i, v := range b {
					if v != guard {
						changed++
					}
					if i%cpp == 0 && i+cpp <= len(b) && bytes.Equal(b[i:i+cpp], want) {
						pixels++
					}
				}
				if pixels != 100*70 || changed != 100*70*cpp {
					t.Errorf("%v %v msaa %v: %d pixels of the clear colour, %d bytes changed; want %d and %d",
						format, tiling, msaa, pixels, changed, 100*70, 100*70*cpp)
				}
				// Where each pixel is, the layout description says.
				for _, p := range [][2]int{{0, 0}, {99, 0}, {0, 69}, {99, 69}, {64, 64}, {63, 31}} {
					if o := l.Offset(p[0], p[1]); !bytes.Equal(b[o:o+cpp], want) {
						t.Errorf("%v %v: pixel %v at offset %d is % x", format, tiling, p, o, b[o:o+cpp])
					}
				}
			}
		}
	}
}

// A linear frame is in raster order with the kernel's stride: width
// rounded up to a whole utile (vc4_validate.c vc4_check_tex_size), 100×4
// bytes for RGBA8888.
func TestLinearFrameIsRasterOrder(t *testing.T) {
	r := newRig(t)
	addr, b := r.buf(100*70*4, mem.Write, "colour buffer")
	mustRun(t, r, cleargpu.New(), clearList(frame{w: 100, h: 70, format: cl.RenderFormatRGBA8888, addr: addr}, 0x01020304, 0, 0))
	for _, o := range []int{0, 99 * 4, 100 * 4, 69*400 + 99*4} {
		if got := binary.LittleEndian.Uint32(b[o:]); got != 0x01020304 {
			t.Errorf("word at %d = %#x", o, got)
		}
	}
}

// A Z/stencil store writes each sample as the ZS buffer holds it: Z in
// bits 31:8 and stencil in bits 7:0 of a 32-bit word, where CLEAR_COLORS
// gives Z in its low 24 bits (doc/hardware.md#tile-buffer-formats; Linux
// vc4_render_cl.c uses 4 bytes a pixel for Z/stencil).
func TestClearZAndStencil(t *testing.T) {
	r := newRig(t)
	colourAddr, _ := r.buf(64*64*4, mem.Write, "colour")
	zsAddr, zs := r.buf(64*64*4, mem.Write, "ZS buffer")
	f := frame{w: 64, h: 64, format: cl.RenderFormatRGBA8888, tiling: cl.TilingT, addr: colourAddr}
	b := cl.ClearColors{Color: 0x11223344_11223344, Z: 0xabcdef, Stencil: 0x5a}.Append(nil)
	b = appendTiles(b, f, func(b []byte, x, y int) ([]byte, []byte) {
		return b, cl.StoreTileBufferGeneral{Buffer: cl.StoreBufferZS, Tiling: cl.TilingT, DisableColorClear: true, Address: zsAddr}.Append(nil)
	})
	mustRun(t, r, cleargpu.New(), b)
	for i := 0; i < 64*64; i++ {
		if got := binary.LittleEndian.Uint32(zs[4*i:]); got != 0xabcdef5a {
			t.Fatalf("ZS word %d = %#x, want 0xabcdef5a", i, got)
		}
	}
}

// A general load before TILE_COORDINATES fills the tile buffer from memory
// (the kernel's colour_read and zs_read), so an image loaded from one
// tiling and stored to another is the same picture; a BGR565 load fills
// the low half of each word and a BGR565 store writes it back. A store
// that disables the colour clear leaves the colour for the next store.
func TestLoadThenStoreKeepsThePicture(t *testing.T) {
	const w, h = 80, 40
	for _, tc := range []struct {
		from, to cl.Tiling
		format   cl.LoadStoreFormat
		render   cl.RenderFormat
	}{
		{cl.TilingLinear, cl.TilingT, cl.LoadStoreFormatRGBA8888, cl.RenderFormatRGBA8888},
		{cl.TilingT, cl.TilingLT, cl.LoadStoreFormatRGBA8888, cl.RenderFormatRGBA8888},
		{cl.TilingLT, cl.TilingLinear, cl.LoadStoreFormatBGR565, cl.RenderFormatBGR565},
	} {
		r := newRig(t)
		cpp := 4
		if tc.format != cl.LoadStoreFormatRGBA8888 {
			cpp = 2
		}
		src, _ := texture.NewLayout(texture.Tiling(tc.from), cpp, w, h)
		dst, _ := texture.NewLayout(texture.Tiling(tc.to), cpp, w, h)
		srcAddr, sb := r.buf(src.Size(), mem.Read, "colour_read")
		dstAddr, db := r.buf(dst.Size(), mem.Write, "colour_write")
		pixel := func(x, y int) []byte { return []byte{byte(x), byte(y), byte(x ^ y), 0x7f}[:cpp] }
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				copy(sb[src.Offset(x, y):], pixel(x, y))
			}
		}
		// The kernel's zs_write comes before the colour store and keeps
		// the colour (DisableColorClear).
		zsAddr, _ := r.buf(w*h*4, mem.Write, "zs_write")
		f := frame{w: w, h: h, format: tc.render, tiling: tc.to, addr: dstAddr}
		list := cl.ClearColors{Color: 0x01010101_01010101}.Append(nil)
		list = appendTiles(list, f, func(b []byte, x, y int) ([]byte, []byte) {
			return cl.LoadTileBufferGeneral{Buffer: cl.LoadBufferColor, Tiling: tc.from, Format: tc.format, Address: srcAddr}.Append(b),
				cl.StoreTileBufferGeneral{Buffer: cl.StoreBufferZS, DisableColorClear: true, Address: zsAddr}.Append(nil)
		})
		mustRun(t, r, cleargpu.New(), list)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				if o := dst.Offset(x, y); !bytes.Equal(db[o:o+cpp], pixel(x, y)) {
					t.Fatalf("%v to %v: pixel (%d, %d) is % x, want % x", tc.from, tc.to, x, y, db[o:o+cpp], pixel(x, y))
				}
			}
		}
	}
}

// A full-resolution store dumps a tile's colour samples as 32-bit words in
// raster order, spec.FullResTileBytes a tile, and a full-resolution load
// brings them back: the multisample path the kernel uses for MSAA
// surfaces (vc4_render_cl.c, VC4_LOADSTORE_FULL_RES).
func TestFullResolutionDumpAndReload(t *testing.T) {
	r := newRig(t)
	dumpAddr, dump := r.buf(spec.FullResTileBytes, mem.Write, "full-res dump")
	colourAddr, colour := r.buf(64*64*4, mem.Write, "colour")
	g := cleargpu.New()
	f := frame{w: 64, h: 64, format: cl.RenderFormatRGBA8888, addr: colourAddr}
	list := cl.ClearColors{Color: 0x0a0b0c0d_0a0b0c0d}.Append(nil)
	list = appendTiles(list, f, func(b []byte, x, y int) ([]byte, []byte) {
		return b, cl.StoreFullResTileBuffer{DisableZSWrite: true, DisableClear: true, Address: dumpAddr}.Append(nil)
	})
	mustRun(t, r, g, list)
	for i := 0; i < spec.TileBufferSamples; i++ {
		if got := binary.LittleEndian.Uint32(dump[4*i:]); got != 0x0a0b0c0d {
			t.Fatalf("dump word %d = %#x", i, got)
		}
	}
	// Another picture in the dump, reloaded into a frame cleared to
	// something else: the frame shows the dump.
	for i := 0; i < spec.TileBufferSamples; i++ {
		binary.LittleEndian.PutUint32(dump[4*i:], uint32(i))
	}
	// A second dump of the reloaded tile either keeps the tile buffer
	// (DisableClear) or clears it before the frame's store.
	copyAddr, dumpCopy := r.buf(spec.FullResTileBytes, mem.Write, "second dump")
	for _, keep := range []bool{true, false} {
		list = cl.ClearColors{Color: 0xffffffff_ffffffff}.Append(nil)
		list = appendTiles(list, f, func(b []byte, x, y int) ([]byte, []byte) {
			return cl.LoadFullResTileBuffer{DisableZSRead: true, Address: dumpAddr}.Append(b),
				cl.StoreFullResTileBuffer{DisableZSWrite: true, DisableClear: keep, Address: copyAddr}.Append(nil)
		})
		mustRun(t, r, g, list)
		for i := 0; i < 64*64; i++ {
			want := uint32(i)
			if !keep {
				want = 0xffffffff
			}
			if got := binary.LittleEndian.Uint32(colour[4*i:]); got != want {
				t.Fatalf("DisableClear %v: pixel %d = %#x after the reload, want %#x", keep, i, got, want)
			}
			if got := binary.LittleEndian.Uint32(dumpCopy[4*i:]); got != uint32(i) {
				t.Fatalf("DisableClear %v: word %d of the second dump = %#x, want %#x", keep, i, got, i)
			}
		}
	}
}

// The tile buffer and the clear values persist from job to job, as the
// hardware's do: a job without CLEAR_COLORS stores the colour the last one
// set (the kernel emits CLEAR_COLORS only for VC4_SUBMIT_CL_USE_CLEAR_COLOR).
func TestClearValuesPersistAcrossJobs(t *testing.T) {
	r := newRig(t)
	addr, b := r.buf(64*64*4, mem.Write, "colour")
	g := cleargpu.New()
	f := frame{w: 64, h: 64, format: cl.RenderFormatRGBA8888, addr: addr}
	mustRun(t, r, g, clearList(f, 0x33333333, 0, 0))
	for i := range b {
		b[i] = 0
	}
	mustRun(t, r, g, appendTiles(nil, f, nil))
	if got := binary.LittleEndian.Uint32(b[4*(64*64-1):]); got != 0x33333333 {
		t.Errorf("the second job stored %#x, want the first job's clear colour", got)
	}
}

// A job that draws comes out as a cleared frame: the binned tile lists
// (BRANCH_TO_SUB_LIST) and the semaphore wait are not followed, even to
// memory outside the job.
func TestDrawingIsNotFollowed(t *testing.T) {
	r := newRig(t)
	addr, b := r.buf(64*64*4, mem.Write, "colour")
	f := frame{w: 64, h: 64, format: cl.RenderFormatRGBA8888, addr: addr}
	list := cl.ClearColors{Color: 0x44444444_44444444}.Append(nil)
	list = appendTiles(list, f, func(b []byte, x, y int) ([]byte, []byte) {
		return b, append(cl.WaitOnSemaphore{}.Append(nil), cl.BranchToSubList{Address: 0x10}.Append(nil)...)
	})
	mustRun(t, r, cleargpu.New(), list)
	if got := binary.LittleEndian.Uint32(b); got != 0x44444444 {
		t.Errorf("pixel 0 = %#x, want the clear colour", got)
	}
	if n, _ := r.view.Faults(); n != 0 {
		t.Errorf("%d accesses outside the job", n)
	}
}

// On success the render list's current address has reached its end
// (CT1CA = CT1EA) and there was no binning (CT0CA = CT0EA).
func TestRegistersAfterAJob(t *testing.T) {
	r := newRig(t)
	addr, _ := r.buf(64*64*4, mem.Write, "colour")
	list := clearList(frame{w: 64, h: 64, format: cl.RenderFormatRGBA8888, addr: addr}, 1, 0, 0)
	la, lb := r.buf(len(list), mem.Read, "render list")
	copy(lb, list)
	res := cleargpu.New().Run(&hw.Job{Mem: r.view, RenderStart: la, RenderEnd: la + uint32(len(list))})
	if res.Hung || res.Regs.CT1CA != la+uint32(len(list)) || res.Regs.CT1EA != res.Regs.CT1CA || res.Regs.CT0CA != res.Regs.CT0EA {
		t.Errorf("result %+v; render list at %#x+%d", res, la, len(list))
	}
}

// What it cannot run, it reports as a hang (what the kernel sees of a job
// the hardware does not finish: vc4_gem.c vc4_hangcheck_elapsed), with the
// reason, and CT1CA at the packet that stopped it.
func TestRefusals(t *testing.T) {
	f := func(r *rig) frame {
		addr, _ := r.buf(64*64*4, mem.Write, "colour")
		return frame{w: 64, h: 64, format: cl.RenderFormatRGBA8888, addr: addr}
	}
	for _, tc := range []struct {
		name string
		list func(r *rig) []byte
		want string
		at   int // CT1CA's offset in the list, -1 to skip
	}{
		{"an empty render list", func(*rig) []byte { return nil }, "empty render list", -1},
		{"no end-of-frame store", func(r *rig) []byte {
			return cl.TileCoordinates{}.Append(cl.TileRenderingModeConfig{Width: 64, Height: 64}.Append(nil))
		}, "without an end-of-frame store", -1},
		{"a last store that does not end the frame", func(r *rig) []byte {
			l := appendTiles(nil, f(r), nil)
			return cl.StoreMSTileBuffer{}.Append(l[:len(l)-len(cl.StoreMSTileBufferAndEOF{}.Append(nil))])
		}, "without an end-of-frame store", -1},
		{"a drawing packet", func(r *rig) []byte {
			b := cl.TileRenderingModeConfig{Width: 64, Height: 64}.Append(nil)
			return cl.GLArrayPrimitive{Mode: cl.PrimitiveModeTriangles, Length: 3}.Append(b)
		}, "not supported by the placeholder GPU", len(cl.TileRenderingModeConfig{}.Append(nil))},
		{"a packet cut short", func(r *rig) []byte {
			b := cl.TileRenderingModeConfig{Width: 64, Height: 64}.Append(nil)
			return b[:len(b)-1]
		}, "is not a whole render-list packet", 0},
		{"a store of the VG mask", func(r *rig) []byte {
			return cl.StoreTileBufferGeneral{Buffer: cl.StoreBufferVGMask}.Append(appendTiles(nil, f(r), nil))
		}, "store of buffer", -1},
		{"a store outside the job's memory", func(r *rig) []byte {
			return clearList(frame{w: 64, h: 64, format: cl.RenderFormatRGBA8888, addr: 0x1000}, 0, 0, 0)
		}, "outside the job's buffers", -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t)
			list := tc.list(r)
			la, lb := r.buf(max(len(list), 1), mem.Read, "render list")
			copy(lb, list)
			res := cleargpu.New().Run(&hw.Job{Mem: r.view, RenderStart: la, RenderEnd: la + uint32(len(list))})
			if !res.Hung || res.Reason == nil || !strings.Contains(res.Reason.Error(), tc.want) {
				t.Fatalf("result %+v; want a hang because %q", res, tc.want)
			}
			if tc.at >= 0 && res.Regs.CT1CA != la+uint32(tc.at) {
				t.Errorf("CT1CA %#x, want %#x (the packet at offset %d)", res.Regs.CT1CA, la+uint32(tc.at), tc.at)
			}
		})
	}
	// An access outside the job is the View's fault, reported as such.
	r := newRig(t)
	res := r.run(cleargpu.New(), clearList(frame{w: 64, h: 64, format: cl.RenderFormatRGBA8888, addr: 0x1000}, 0, 0, 0))
	var fault *mem.Fault
	if !errors.As(res.Reason, &fault) || !fault.Write {
		t.Errorf("reason %v; want the View's *mem.Fault for a write", res.Reason)
	}
}
