package raster

import (
	"math/rand"
	"testing"
)

// PartialMask is BlockMask's fast path: on random triangles, lines and
// points under random scissors, every block around them, inside, outside
// and on the edges, gets the same mask from both, bit for bit.
func TestPartialMaskMatchesBlockMask(t *testing.T) {
	rng := rand.New(rand.NewSource(27))
	var empty, full, partial int
	for n := 0; n < 3000; n++ {
		span := 16 << (2 + rng.Intn(9)) // 1/16 pixels: small primitives as well as huge ones
		v := func() Vertex {
			return Vertex{X: int32(rng.Intn(span) - span/4), Y: int32(rng.Intn(span) - span/4), InvW: 1}
		}
		a, b, c := v(), v(), v()
		if n%7 == 0 {
			b.Y = a.Y // a horizontal edge: the top-left rule's bias
		}
		sc := Rect{rng.Intn(80) - 40, rng.Intn(80) - 40, 20 + rng.Intn(200), 20 + rng.Intn(200)}
		p, ok := randomPrim(rng, n, &a, &b, &c, sc)
		if !ok {
			continue
		}
		for r := 0; r < 40; r++ {
			// Blocks over the bounds and a block beyond them.
			bd := p.Bounds()
			bx := bd.X0&^3 + 4*(rng.Intn((bd.X1-bd.X0)/4+3)-1)
			by := bd.Y0&^3 + 4*(rng.Intn((bd.Y1-bd.Y0)/4+3)-1)
			want, got := p.BlockMask(bx, by), p.PartialMask(bx, by)
			if got != want {
				t.Fatalf("%v %v %v scissor %v kind %d, block (%d,%d): PartialMask %#04x, BlockMask %#04x", a, b, c, sc, p.kind, bx, by, got, want)
			}
			switch want {
			case 0:
				empty++
			case 0xFFFF:
				full++
			default:
				partial++
			}
		}
	}
	t.Logf("%d empty, %d full, %d partial", empty, full, partial)
	if empty < 1000 || full < 1000 || partial < 1000 {
		t.Fatalf("%d empty, %d full, %d partial blocks: the generator needs a look", empty, full, partial)
	}
}

// randomPrim sets up one of the three kinds of primitive from a, b and c
// by turns of n: a line of a random width, a point of a random size, a
// triangle facing either way. The tests that hold a fast path to
// BlockMask share it.
func randomPrim(rng *rand.Rand, n int, a, b, c *Vertex, sc Rect) (Prim, bool) {
	var p Prim
	var ok bool
	switch n % 5 {
	case 0:
		ok = p.SetupLine(a, b, float32(1+rng.Intn(8)), sc)
	case 1:
		ok = p.SetupPoint(a, float32(1+rng.Intn(16)), sc)
	default:
		ok = p.SetupTriangle(a, b, c, sc, n%2 == 0)
	}
	return p, ok
}

// An edge's raster mask is its sign at each of the block's 16 pixel
// centres (at), with or without the shortcut for blocks wholly on its
// inner side: random edges, and blocks on, beside and across them,
// including blocks whose least centre is exactly 0.
func TestEdgeRasterMatchesCentres(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	var whole, some int
	for n := 0; n < 20000; n++ {
		e := edge{
			dx: int64(rng.Intn(129)-64) * int64(1+rng.Intn(16)),
			dy: int64(rng.Intn(129)-64) * int64(1+rng.Intn(16)),
			ax: int64(rng.Intn(2048) - 512), ay: int64(rng.Intn(2048) - 512),
			bias: int64(rng.Intn(3) - 1),
		}
		cx, cy := int(e.ax/16), int(e.ay/16)
		bx, by := (cx+rng.Intn(24)-12)&^3, (cy+rng.Intn(24)-12)&^3
		if n%3 == 0 {
			// A block whose least centre is 0 exactly, where the
			// shortcut must not take it as inner.
			sx, sy := -16*e.dy, 16*e.dx
			e.bias -= e.at(bx, by) + 3*min(0, sx) + 3*min(0, sy)
		}
		var want uint32
		for y := range 4 {
			for x := range 4 {
				if e.at(bx+x, by+y) > 0 {
					want |= 1 << (4*y + x)
				}
			}
		}
		if got := e.raster(bx, by); got != want {
			t.Fatalf("edge %+v, block (%d,%d): raster %#04x, the centres %#04x", e, bx, by, got, want)
		}
		if want == 0xFFFF {
			whole++
		} else {
			some++
		}
	}
	if whole < 2000 || some < 2000 {
		t.Fatalf("%d whole and %d other masks: the generator needs a look", whole, some)
	}
}
