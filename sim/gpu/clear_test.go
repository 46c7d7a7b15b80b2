package gpu

import (
	"fmt"
	"testing"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/sim/gpu/internal/gputest"
	"github.com/vccube/vccube/sim/hw"
	"github.com/vccube/vccube/sim/mem"
)

// A worker skips the clear at the start of a chain when the last packet
// it ran was a store that cleared its buffer to the same values
// (render.Worker.cleared). These lists make that shortcut wrong if it ever
// looks at anything less: clear values that change from tile to tile,
// batches cut by INCREMENT_SEMAPHORE, and tile lists that clear and then
// draw. On several workers a chain often follows another chain than the
// one before it in the list, which is where a careless shortcut shows.
func TestTilesStartFromTheirClearValues(t *testing.T) {
	for _, workers := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			g := New(Options{Workers: workers})
			t.Cleanup(g.Close)
			const tiles = 32
			j := newTJob(t, 64*tiles, 64)
			fs := j.program(fsConst())
			// A tile list that stores (clearing the buffer) and then
			// draws the whole tile in colour 7: a 64×64 quad at the
			// viewport offset, which the render list sets to the tile.
			var vb []byte
			for _, v := range []gputest.NVVertex{j.nv(0, 0, 0.5), j.nv(64, 0, 0.5), j.nv(0, 64, 0.5), j.nv(0, 64, 0.5), j.nv(64, 0, 0.5), j.nv(64, 64, 0.5)} {
				vb = gputest.AppendNV(vb, v)
			}
			rec := cl.NVShaderRecord{FSSingleThreaded: true, ClipHeaderIncluded: true, Stride: 28,
				FSCodeAddress: fs, FSUniformsAddress: j.put(words(7), 4), VertexDataAddress: j.put(vb, 16)}
			var tl []byte
			tl = cl.StoreTileBufferGeneral{}.Append(tl)
			tl = cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, DepthFunc: cl.DepthFuncAlways}.Append(tl)
			tl = cl.NVShaderState{Address: j.put(rec.Append(nil), 16)}.Append(tl)
			tl = cl.GLArrayPrimitive{Mode: cl.PrimitiveModeTriangles, Length: 6}.Append(tl)
			tl = cl.ReturnFromSubList{}.Append(tl)
			sub := j.put(tl, 32)

			colour := func(i int) uint32 { return 0xFF000000 | uint32(i)*0x010203 }
			var l []byte
			l = cl.ClearColors{Color: uint64(colour(0)) * 0x100000001, Z: 0xFFFFFF}.Append(l)
			l = cl.TileCoordinates{}.Append(l)
			l = cl.StoreTileBufferGeneral{}.Append(l)
			l = cl.TileRenderingModeConfig{Address: j.color.Addr, Width: 64 * tiles, Height: 64, Format: cl.RenderFormatRGBA8888}.Append(l)
			want := make([]uint32, tiles)
			for i := range tiles {
				// The store clears to the values in effect: tile i shows
				// what the store before it cleared to.
				want[i] = colour(i)
				l = cl.ClearColors{Color: uint64(colour(i+1)) * 0x100000001, Z: 0xFFFFFF}.Append(l)
				l = cl.TileCoordinates{Column: uint8(i)}.Append(l)
				if i%8 == 5 {
					// Every eighth tile: the tile list clears and draws,
					// and the batch of chains ends here, before this
					// tile's own store.
					want[i] = 7
					l = cl.ViewportOffset{X: cl.SubpixelOf(float64(64 * i))}.Append(l)
					l = cl.BranchToSubList{Address: sub}.Append(l)
					l = cl.IncrementSemaphore{}.Append(l)
					l = cl.TileCoordinates{Column: uint8(i)}.Append(l)
				}
				if i == tiles-1 {
					l = cl.StoreMSTileBufferAndEOF{}.Append(l)
				} else {
					l = cl.StoreMSTileBuffer{}.Append(l)
				}
			}
			lists := j.m.Alloc(t, len(l)+64, mem.Read, "render list")
			rs := lists.Put(0, l)
			for run := 0; run < 3; run++ {
				if r := g.Run(&hw.Job{Mem: j.m.View, RenderStart: rs, RenderEnd: rs + uint32(len(l))}); r.Hung {
					t.Fatal(r.Reason)
				}
				for i, w := range want {
					if p := j.pixel(64*i+10, 20); p != w {
						t.Fatalf("run %d: tile %d shows %#x, want %#x", run, i, p, w)
					}
				}
			}
		})
	}
}
