package tlb

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/sim/gpu/raster"
)

// BenchmarkStore stores one 64×64 tile of a 1920×1080 frame, colour
// linear and Z/stencil T-format, as the cube's frames do.
func BenchmarkStore(b *testing.B) {
	v, r, _ := memoryB(b, 1920*1088*4)
	var buf Buffer
	pattern(&buf)
	f := Frame{Width: 1920, Height: 1080}
	for _, c := range []struct {
		name   string
		tiling cl.Tiling
		zs     bool
	}{{"color-linear", cl.TilingLinear, false}, {"zs-T", cl.TilingT, true}, {"color-T", cl.TilingT, false}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(Pixels * 4)
			for i := 0; i < b.N; i++ {
				t := Tile{i % 30, i / 30 % 16}
				var err error
				if c.zs {
					err = buf.StoreZS(v, r.Addr, c.tiling, t, &f)
				} else {
					err = buf.StoreColor(v, r.Addr, c.tiling, cl.LoadStoreFormatRGBA8888, t, &f)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFragmentBlock is a fragment shader thread's tile buffer work on
// one 4×4 block of a tile, as render's fragment stage does it: the
// early-Z test (DepthPasses), the TLB_Z write (ZWriteBlock, less-or-equal
// with update, no stencil) and the colour write of the passing elements,
// over the tile's 256 blocks in raster order with the element layout of
// raster.LaneX/LaneY. "cover" draws every pixel in front of what is there
// (the cube's faces over the cleared buffer, then the same depths again);
// "mixed" has partial masks and depths that fail about half the time
// (the stored depths are put back, a 16 KiB copy, every 256 blocks).
// Each runs with every version of zBlock (zBlockVersions).
func BenchmarkFragmentBlock(b *testing.B) {
	type block struct {
		blk  Block
		z, c [16]uint32
		mask uint16
	}
	r := rand.New(rand.NewPCG(5, 6))
	for _, mixed := range []bool{false, true} {
		name := "cover"
		if mixed {
			name = "mixed"
		}
		blocks := make([]block, Pixels/16)
		for n := range blocks {
			k := &blocks[n]
			bx, by := n%(Size/4)*4, n/(Size/4)*4
			p := raster.BlockParity(by)
			k.mask = 0xFFFF
			if mixed && n%3 != 0 {
				k.mask = uint16(r.Uint32())
			}
			var idx [16]uint16
			for i := range 16 {
				idx[i] = uint16((by+int(raster.LaneY[p][i]))*Size + bx + int(raster.LaneX[p][i]))
				k.z[i] = r.Uint32() & 0xFFFFFF
				k.c[i] = r.Uint32()
			}
			var ok bool
			if k.blk, ok = BlockOf(&idx); !ok {
				b.Fatalf("block %d is not in pairs", n)
			}
		}
		var zs [Pixels]uint32
		for p := range zs {
			zs[p] = ZS(0xFFFFFF, 0)
			if mixed {
				zs[p] = ZS(r.Uint32()&0xFFFFFF, 0)
			}
		}
		for _, v := range zBlockVersions() {
			b.Run(name+"/"+v, func(b *testing.B) {
				defer useZBlock(v)()
				var buf Buffer
				buf.ZS = zs
				var st Stencil
				d := DepthState{Func: cl.DepthFuncLessEqual, Update: true}
				for i := 0; i < b.N; i++ {
					n := i % len(blocks)
					if n == 0 && mixed {
						buf.ZS = zs
					}
					k := &blocks[n]
					m := buf.DepthPasses(&k.blk, &k.z, k.mask, d.Func)
					pass, _ := buf.ZWriteBlock(&k.blk, &k.z, m, d, &st, false)
					buf.WriteColorBlock(&k.blk, &k.c, pass)
				}
			})
		}
	}
}

// BenchmarkClear is the clear after a tile's store, of both buffers to
// the values they were cleared to before, when no row, an eighth of the
// rows or every row was written since (one pixel of each, written
// before every clear): Clear, the general code, fills the whole buffer
// every time, ClearWritten the rows written.
func BenchmarkClear(b *testing.B) {
	cv := ClearValues{Color: 0xFF102030, Z: 0xFFFFFF, Stencil: 0}
	for _, rows := range []int{0, Size / 8, Size} {
		var writes [][16]uint16 // 16 pixels a write, one a row
		for r := 0; r < rows; r += 16 {
			var idx [16]uint16
			for i := range idx {
				idx[i] = uint16((r+i)%Size*Size + i)
			}
			writes = append(writes, idx)
		}
		mask := uint16(1<<min(rows, 16) - 1)
		var c, z [16]uint32
		for _, general := range []bool{true, false} {
			name := fmt.Sprintf("rows=%d/ClearWritten", rows)
			if general {
				name = fmt.Sprintf("rows=%d/Clear", rows)
			}
			b.Run(name, func(b *testing.B) {
				var buf Buffer
				buf.Clear(cv, true, true)
				d := DepthState{Func: cl.DepthFuncAlways, Update: true}
				var st Stencil
				for i := 0; i < b.N; i++ {
					for k := range writes {
						buf.WriteColor(&writes[k], &c, mask)
						buf.ZWrite(&writes[k], &z, mask, d, &st, false)
					}
					if general {
						buf.Clear(cv, true, true)
					} else {
						buf.ClearWritten(cv, true, true)
					}
				}
			})
		}
	}
}

// BenchmarkBlockWZThenDepth is a block's W and Z from its column's and
// row's plane terms (raster.Prim.BlockWZ) followed at once by the
// early-Z test of that Z (DepthPasses), as render's fragment stage does
// them, over a tile's 256 blocks: the test reads the Z the kernel has
// just stored, so it times the hand-over between the two as well as
// their work.
func BenchmarkBlockWZThenDepth(b *testing.B) {
	v := [3]raster.Vertex{{X: -8 * 16, Y: -8 * 16, Z: 0.25, InvW: 0.5}, {X: 200 * 16, Y: 0, Z: 0.5, InvW: 0.4}, {X: 0, Y: 200 * 16, Z: 0.75, InvW: 0.3}}
	var p raster.Prim
	if !p.SetupTriangle(&v[0], &v[1], &v[2], raster.Rect{X1: Size, Y1: Size}, false) {
		b.Fatal("no triangle")
	}
	var cols [Size / 4]raster.ColTerms
	var rows [Size / 4]raster.RowTerms
	var blks [Size / 4][Size / 4]Block
	for k := range cols {
		p.Col(4*k, &cols[k])
		p.Row(4*k, &rows[k])
	}
	for n := range Pixels / 16 {
		bx, by := n%(Size/4)*4, n/(Size/4)*4
		var idx [16]uint16
		par := raster.BlockParity(by)
		for i := range 16 {
			idx[i] = uint16((by+int(raster.LaneY[par][i]))*Size + bx + int(raster.LaneX[par][i]))
		}
		var ok bool
		if blks[by/4][bx/4], ok = BlockOf(&idx); !ok {
			b.Fatalf("block %d is not in pairs", n)
		}
	}
	var buf Buffer
	for i := range buf.ZS {
		buf.ZS[i] = ZS(0xFFFFFF, 0)
	}
	var w, z [16]uint32
	var sink uint16
	for i := 0; i < b.N; i++ {
		n := i % (Pixels / 16)
		c, r := n%(Size/4), n/(Size/4)
		p.BlockWZ(&cols[c], &rows[r], &w, &z)
		sink ^= buf.DepthPasses(&blks[r][c], &z, 0xFFFF, cl.DepthFuncLessEqual)
	}
	if sink == 0xABCD {
		b.Log(sink)
	}
}
