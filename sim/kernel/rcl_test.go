package kernel_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/dump"
	"github.com/vccube/vccube/cl/spec"
	"github.com/vccube/vccube/uapi"
)

var update = flag.Bool("update", false, "rewrite the golden render list (read its note first)")

// symbols names the bus addresses of a job for a dump that does not
// depend on where the pool put the BOs.
type symbol struct {
	name       string
	base, size uint32
}

func symbolic(syms []symbol, a uint32) string {
	if a == 0 {
		return "0"
	}
	for _, s := range syms {
		if a >= s.base && a-s.base < s.size {
			return fmt.Sprintf("%s+%#x", s.name, a-s.base)
		}
	}
	return fmt.Sprintf("%#08x", a)
}

// dumpList prints a render control list with cl's dumper (cl/dump), one
// packet a line, replacing each address by its place in a named region
// so that the text does not depend on where the pool put the BOs.
func dumpList(t testing.TB, b []byte, syms []symbol) string {
	t.Helper()
	var out strings.Builder
	err := dump.Walk(b, dump.Options{List: spec.RenderList}, func(p *dump.Packet) error {
		line := dump.Line(p, spec.RenderList)
		payload := p.Payload()
		for i := range p.Desc.Fields {
			f := &p.Desc.Fields[i]
			if f.Kind != spec.Address {
				continue
			}
			a := uint32(f.Raw(payload) << f.Shift)
			line = strings.Replace(line, dump.FormatField(f, payload), f.Name+"="+symbolic(syms, a), 1)
		}
		out.WriteString(line)
		out.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatalf("render list does not decode: %v", err)
	}
	return out.String()
}

// expectedRCL is the render list doc/kernel.md#the-emitted-list describes for a job
// with a bin CL, USE_CLEAR_COLOR, a colour write and a Z/S write and no
// reads, written from that description (not from the code under test):
//
//  1. CLEAR_COLORS (both colour words, Z, stencil), TILE_COORDINATES(0,0)
//     and a STORE_TILE_BUFFER_GENERAL of buffer NONE at address 0;
//  2. TILE_RENDERING_MODE_CONFIG: colour address, width, height and the
//     color_write bits;
//  3. per tile, y rows outer, x inner, increasing: TILE_COORDINATES(x,y);
//     WAIT_ON_SEMAPHORE on the first tile; BRANCH_TO_SUB_LIST to
//     tile_alloc + 32·(y·tiles_x + x); the Z/S store with the zs_write
//     bits plus "disable colour clear" (a colour write follows) at the Z/S
//     address; TILE_COORDINATES(x,y) (a store came before); then
//     STORE_MS_TILE_BUFFER, or STORE_MS_TILE_BUFFER_AND_EOF on the last
//     tile.
func expectedRCL(a *uapi.SubmitCL, colorAddr, zsAddr, tileAlloc uint32, tilesX uint32) []byte {
	var b []byte
	b = cl.ClearColors{Color: uint64(a.ClearColor[1])<<32 | uint64(a.ClearColor[0]), Z: a.ClearZ, Stencil: a.ClearS}.Append(b)
	b = cl.TileCoordinates{}.Append(b)
	b = cl.StoreTileBufferGeneral{Buffer: cl.StoreBufferNone}.Append(b)
	// color_write bits 0x04: RGBA8888 (format 1), linear, no MSAA.
	b = cl.TileRenderingModeConfig{Address: colorAddr, Width: a.Width, Height: a.Height, Format: cl.RenderFormatRGBA8888}.Append(b)
	for y := uint32(a.MinYTile); y <= uint32(a.MaxYTile); y++ {
		for x := uint32(a.MinXTile); x <= uint32(a.MaxXTile); x++ {
			first := x == uint32(a.MinXTile) && y == uint32(a.MinYTile)
			last := x == uint32(a.MaxXTile) && y == uint32(a.MaxYTile)
			b = cl.TileCoordinates{Column: uint8(x), Row: uint8(y)}.Append(b)
			if first {
				b = cl.WaitOnSemaphore{}.Append(b)
			}
			b = cl.BranchToSubList{Address: tileAlloc + 32*(y*tilesX+x)}.Append(b)
			// zs_write bits 0x12: buffer Z/S, T-format.
			b = cl.StoreTileBufferGeneral{Buffer: cl.StoreBufferZS, Tiling: cl.TilingT, DisableColorClear: true, Address: zsAddr}.Append(b)
			b = cl.TileCoordinates{Column: uint8(x), Row: uint8(y)}.Append(b)
			if last {
				b = cl.StoreMSTileBufferAndEOF{}.Append(b)
			} else {
				b = cl.StoreMSTileBuffer{}.Append(b)
			}
		}
	}
	return b
}

const goldenNote = `# The render control list the simulated kernel generates for the cube's
# surfaces: an 800x600 frame (13x10 tiles of 64 pixels), colour written
# linear RGBA8888 (color_write bits 0x04), Z/S written T-format (zs_write
# bits 0x12), USE_CLEAR_COLOR, a bin CL (so a semaphore wait and per-tile
# branches), one packet a line, decoded by cl/dump.
#
# How it was made and checked: TestRenderCLGolden writes it with -update.
# The same bytes are compared, in that test, with a list built
# independently from doc/kernel.md#the-emitted-list (expectedRCL), and it
# was read against that section and doc/kernel.md#observed by hand: the
# preamble is CLEAR_COLORS, TILE_COORDINATES(0,0), a buffer-NONE store
# at 0, then the mode config;
# each tile is coordinates, [WAIT_ON_SEMAPHORE on the first], the branch
# to tile_alloc + 32*(13y+x), the Z/S store with disable_color_clear,
# coordinates again, the colour store; only the last tile (12,9) ends
# with STORE_MS_TILE_BUFFER_AND_EOF. Addresses are printed relative to
# the BOs (color, zs) and to the tile allocation area (tile_alloc).
# Regenerate only after understanding a difference.
`

func TestRenderCLGolden(t *testing.T) {
	fx := newFixture(t, 800, 600)
	s := fx.valid()
	if err := fx.submit(s); err != nil {
		t.Fatal(err)
	}
	rep := fx.lastReport()
	var bc cl.TileBinningModeConfig
	if err := bc.Unpack(rep.bin); err != nil {
		t.Fatal(err)
	}
	colorAddr, zsAddr := fx.addr(iColor), fx.addr(iZS)
	want := expectedRCL(&s.args, colorAddr, zsAddr, bc.TileAllocAddress, uint32(bc.WidthInTiles))
	if !bytes.Equal(rep.rcl, want) {
		t.Errorf("render list differs from the kernel's sequence (doc/kernel.md#the-emitted-list)\n got:\n%s\nwant:\n%s",
			head(dumpList(t, rep.rcl, nil), 12), head(dumpList(t, want, nil), 12))
	}

	syms := []symbol{
		{"color", colorAddr, 800 * 600 * 4},
		{"zs", zsAddr, 800 * 608 * 4},
		{"tile_alloc", bc.TileAllocAddress, bc.TileAllocSize},
	}
	got := dumpList(t, rep.rcl, syms)
	path := filepath.Join("testdata", "rcl_cube.golden")
	if *update {
		if err := os.WriteFile(path, []byte(goldenNote+got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	golden, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	body := string(golden)
	for strings.HasPrefix(body, "#") {
		body = body[strings.IndexByte(body, '\n')+1:]
	}
	if body != got {
		t.Errorf("render list dump differs from %s:\n%s", path, firstDiff(body, got))
	}
}

func head(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d:\n golden: %s\n got:    %s", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d lines", len(la), len(lb))
}

// Other shapes of the kernel's list (doc/kernel.md#the-emitted-list): reads,
// MSAA writes, no bin CL and the fixed tile
// orders, against sequences worked out from the same description.
func TestRenderCLShapes(t *testing.T) {
	fx := newFixture(t, 128, 64) // 2×1 tiles
	bo := func(size uint32) (uint32, uint32) {
		h := fx.bo(size)
		b, err := fx.f.LookupBO(h)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Put()
		return h, b.Addr()
	}
	fullH, fullAddr := bo(4 * 16384)
	msaaH, msaaAddr := bo(4 * 16384)

	// Mesa's multisampled job: colour and Z/S read at full resolution
	// (vc4_job.c vc4_submit_setup_rcl_surface marks a read of a
	// multisampled buffer READ_IS_FULL_RES), MSAA colour write. emit_tile
	// writes the two full-resolution loads back to back: no store between
	// them, since a full-resolution load names its own address.
	zsFullH, zsFullAddr := bo(4 * 16384)
	t.Run("full-res reads and MSAA, no bin", func(t *testing.T) {
		s := fx.valid()
		s.bin = nil
		s.handles = append(s.handles, fullH, msaaH, zsFullH)
		full := uint32(len(s.handles) - 3)
		msaa := uint32(len(s.handles) - 2)
		zsFull := uint32(len(s.handles) - 1)
		s.args.Flags = 0
		s.args.ColorRead = uapi.SubmitRCLSurface{HIndex: full, Flags: uapi.SurfaceReadIsFullRes}
		s.args.ZSRead = uapi.SubmitRCLSurface{HIndex: zsFull, Flags: uapi.SurfaceReadIsFullRes}
		s.args.MSAAColorWrite = uapi.SubmitRCLSurface{HIndex: msaa}
		s.args.ColorWrite.HIndex = uapi.SurfaceAbsent
		s.args.ColorWrite.Bits = 0
		if err := fx.submit(s); err != nil {
			t.Fatal(err)
		}
		rep := fx.lastReport()
		zs := fx.addr(iZS)
		// Tile (x, 0): the full-res colour load at its own 16 KiB block
		// (ceil(128/32) = 4 blocks a row) with disable-ZS, the full-res
		// Z/S load with disable-colour; coordinates; no bin, so no wait
		// and no branch; the MSAA colour store with disable-ZS and
		// disable-clear (a Z/S write follows); coordinates and the Z/S
		// store, EOF on the last tile.
		var want []byte
		want = cl.TileRenderingModeConfig{Width: 128, Height: 64}.Append(want)
		for x := uint32(0); x < 2; x++ {
			last := x == 1
			want = cl.LoadFullResTileBuffer{DisableZSRead: true, Address: fullAddr + 16384*x}.Append(want)
			want = cl.LoadFullResTileBuffer{DisableColorRead: true, Address: zsFullAddr + 16384*x}.Append(want)
			want = cl.TileCoordinates{Column: uint8(x)}.Append(want)
			want = cl.StoreFullResTileBuffer{DisableZSWrite: true, DisableClear: true, Address: msaaAddr + 16384*x}.Append(want)
			want = cl.TileCoordinates{Column: uint8(x)}.Append(want)
			want = cl.StoreTileBufferGeneral{Buffer: cl.StoreBufferZS, Tiling: cl.TilingT, LastTile: last, Address: zs}.Append(want)
		}
		if !bytes.Equal(rep.rcl, want) {
			t.Errorf("got:\n%s\nwant:\n%s", dumpList(t, rep.rcl, nil), dumpList(t, want, nil))
		}
	})

	// A general colour read with a full-resolution Z/S read: again no
	// store between the loads (emit_tile adds one only before a general
	// Z/S load).
	t.Run("general colour read, full-res Z/S read", func(t *testing.T) {
		s := fx.valid()
		s.bin = nil
		s.handles = append(s.handles, zsFullH)
		zsFull := uint32(len(s.handles) - 1)
		s.args.Flags = 0
		s.args.ColorRead = uapi.SubmitRCLSurface{HIndex: iColor, Bits: loadBitsColorLinear}
		s.args.ZSRead = uapi.SubmitRCLSurface{HIndex: zsFull, Flags: uapi.SurfaceReadIsFullRes}
		s.args.ZSWrite.HIndex = uapi.SurfaceAbsent
		if err := fx.submit(s); err != nil {
			t.Fatal(err)
		}
		rep := fx.lastReport()
		color := fx.addr(iColor)
		var want []byte
		want = cl.TileRenderingModeConfig{Address: color, Width: 128, Height: 64, Format: cl.RenderFormatRGBA8888}.Append(want)
		for x := uint32(0); x < 2; x++ {
			want = cl.LoadTileBufferGeneral{Buffer: cl.LoadBufferColor, Address: color}.Append(want)
			want = cl.LoadFullResTileBuffer{DisableColorRead: true, Address: zsFullAddr + 16384*x}.Append(want)
			want = cl.TileCoordinates{Column: uint8(x)}.Append(want)
			if x == 1 {
				want = cl.StoreMSTileBufferAndEOF{}.Append(want)
			} else {
				want = cl.StoreMSTileBuffer{}.Append(want)
			}
		}
		if !bytes.Equal(rep.rcl, want) {
			t.Errorf("got:\n%s\nwant:\n%s", dumpList(t, rep.rcl, nil), dumpList(t, want, nil))
		}
	})

	// A full-resolution colour read with a general Z/S read: emit_tile
	// writes a TILE_COORDINATES and a store per tile that
	// vc4_create_rcl_bo did not size, and the kernel BUGs. The simulated
	// one logs the BUG and refuses the submit.
	t.Run("full-res colour read, general Z/S read: the kernel BUGs", func(t *testing.T) {
		s := fx.valid()
		s.bin = nil
		s.handles = append(s.handles, fullH)
		full := uint32(len(s.handles) - 1)
		s.args.Flags = 0
		s.args.ColorRead = uapi.SubmitRCLSurface{HIndex: full, Flags: uapi.SurfaceReadIsFullRes}
		s.args.ZSRead = uapi.SubmitRCLSurface{HIndex: iZS, Bits: storeBitsZST}
		before := len(fx.reports)
		err := fx.submit(s)
		if !errors.Is(err, syscall.EINVAL) {
			t.Fatalf("submit: %v, want EINVAL", err)
		}
		fx.mu.Lock()
		defer fx.mu.Unlock()
		if len(fx.reports) != before {
			t.Error("the refused job ran")
		}
		if len(fx.log) == 0 || !strings.Contains(fx.log[len(fx.log)-1], "kernel BUG") {
			t.Errorf("kernel log %q, want the BUG line", fx.log)
		}
	})

	t.Run("fixed order, decreasing x", func(t *testing.T) {
		s := fx.valid()
		s.bin = nil
		s.args.Flags = uapi.SubmitFixedRCLOrder | uapi.SubmitRCLOrderIncreasingY
		s.args.ZSWrite.HIndex = uapi.SurfaceAbsent
		if err := fx.submit(s); err != nil {
			t.Fatal(err)
		}
		rep := fx.lastReport()
		var want []byte
		want = cl.TileRenderingModeConfig{Address: fx.addr(iColor), Width: 128, Height: 64, Format: cl.RenderFormatRGBA8888}.Append(want)
		want = cl.TileCoordinates{Column: 1}.Append(want)
		want = cl.StoreMSTileBuffer{}.Append(want)
		want = cl.TileCoordinates{Column: 0}.Append(want)
		want = cl.StoreMSTileBufferAndEOF{}.Append(want)
		if !bytes.Equal(rep.rcl, want) {
			t.Errorf("got:\n%s\nwant:\n%s", dumpList(t, rep.rcl, nil), dumpList(t, want, nil))
		}
	})
}
