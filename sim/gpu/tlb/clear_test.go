package tlb

import (
	"math/rand/v2"
	"testing"

	"github.com/vccube/vccube/cl"
)

// exactRows is the rows of the tile a block's pixels lie in, once masked
// as the Block methods mask them, worked out pixel by pixel.
func exactRows(blk *Block) uint64 {
	var m uint64
	for _, i := range blk.Idx() {
		m |= 1 << (i / Size)
	}
	return m
}

// ClearWritten leaves the buffer as Clear does, bit for bit, after any
// sequence of the writes that change it: colour and Z writes of single
// elements and of blocks (made by BlockOf, by Offset with any base, by
// Shifted, with pixels crossing rows or wrapping past the tile, or as
// literals), stencil
// updates, loads and full-resolution loads, and clears of either buffer
// to values that repeat often; 20000 operations.
func TestClearWrittenMatchesClear(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	v, reg, raw := memory(t, 2*Pixels*4)
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	f := Frame{Width: Size, Height: Size}
	var fast, gen Buffer
	var layout Block // the element layout of a 4×4 block, as render's
	for k := range layout.Pair {
		layout.Pair[k] = uint16(k/2*Size + k%2*2)
	}
	layoutIdx := layout.Idx()
	layout, ok := BlockOf(&layoutIdx)
	if !ok {
		t.Fatal("the 4×4 layout is no block")
	}
	values := []ClearValues{{}, {Color: 0xFF102030, Z: 0xFFFFFF, Stencil: 7}, {Color: 1, Z: 0x123456}}
	for n := 0; n < 20000; n++ {
		var blk Block
		switch r.IntN(5) {
		case 0:
			blk = randomBlock(r, n)
			idx := blk.Idx()
			blk, _ = BlockOf(&idx)
		case 1:
			blk.Offset(&layout, uint16(4*r.IntN(Pixels/4)))
		case 2:
			blk.Offset(&layout, uint16(r.IntN(1<<16)))
		case 3:
			// A block of a row from the row's first, as render's.
			var first Block
			first.Offset(&layout, uint16(4*r.IntN(Pixels/4)))
			blk.Shifted(&first, uint16(4*r.IntN(Size/4+2)))
		default:
			for k := range blk.Pair {
				blk.Pair[k] = uint16(r.Uint32())
			}
		}
		if got, want := blk.rowMask(), exactRows(&blk); got != want {
			t.Fatalf("op %d: block %v: rows %#x, want %#x", n, blk.Pair, got, want)
		}
		var idx [16]uint16
		var z, c [16]uint32
		for i := range idx {
			idx[i] = uint16(r.IntN(Pixels))
			z[i] = uint32(r.IntN(8)) * 0x200000
			c[i] = r.Uint32()
		}
		mask := uint16(r.Uint32())
		d := DepthState{Func: cl.DepthFunc(r.IntN(8)), Update: r.IntN(2) == 0}
		var st Stencil
		if r.IntN(4) == 0 {
			st.Setup(uint32(1+r.IntN(3))<<30 | r.Uint32()&0x0FFFFFFF)
		}
		op, load := r.IntN(10), r.IntN(8) == 0
		for _, b := range []*Buffer{&fast, &gen} {
			switch op {
			case 0:
				b.WriteColor(&idx, &c, mask)
			case 1:
				b.WriteColorBlock(&blk, &c, mask)
			case 2:
				b.ZWrite(&idx, &z, mask, d, &st, false)
			case 3:
				b.ZWriteBlock(&blk, &z, mask, d, &st, n%2 == 0)
			case 4:
				if load {
					var err error
					switch n % 3 {
					case 0:
						err = b.LoadColor(v, reg.Addr, cl.TilingLinear, cl.LoadStoreFormatRGBA8888, Tile{}, &f)
					case 1:
						err = b.LoadZS(v, reg.Addr, cl.TilingLinear, Tile{}, &f)
					default:
						err = b.LoadFullRes(v, reg.Addr, n%2 == 0, true)
					}
					if err != nil {
						t.Fatal(err)
					}
				}
			default:
				cv, color, zs := values[n%len(values)], n%5 != 0, n%7 != 0
				if b == &fast {
					b.ClearWritten(cv, color, zs)
				} else {
					b.Clear(cv, color, zs)
				}
			}
		}
		if fast.Color != gen.Color || fast.ZS != gen.ZS {
			t.Fatalf("op %d (%d): ClearWritten and Clear differ: colour equal %v, Z/stencil equal %v", n, op, fast.Color == gen.Color, fast.ZS == gen.ZS)
		}
	}
}
