package raster

// PartialMask is BlockMask for a block a row span leaves partial (the
// fast path's blocks between RowSpan's Lo and FullLo, FullHi and Hi):
// the same bits, computed without branches for the edge functions of
// triangles and lines. It tests the 16 pixel centres of each edge at once
// in raster order (bit 4y+x for pixel (bx+x, by+y)), ANDs the scissor's
// rows and columns in, and moves the bits to element order with two table
// lookups. Rectangles (points) go to BlockMask. Both agree bit for bit
// (TestPartialMaskMatchesBlockMask); BlockMask stays the reference.
//
// A block inside the scissor, as most are, takes all its rows and
// columns without scissorRaster's clamps, and the edges are tested in
// one call (edgesRaster), not one each.
func (p *Prim) PartialMask(bx, by int) uint16 {
	if p.kind != kindEdges {
		return p.BlockMask(bx, by)
	}
	m := uint32(0xFFFF)
	if s := &p.scissor; bx < s.X0 || bx+4 > s.X1 || by < s.Y0 || by+4 > s.Y1 {
		if m = scissorRaster(s, bx, by); m == 0 {
			return 0
		}
	}
	m = edgesRaster(p.edges[:p.nedge], m, bx, by)
	t := &rasterToLanes[BlockParity(by)]
	return t[0][m&0xFF] | t[1][m>>8]
}

// raster returns bit 4y+x set when E > 0 at the centre of pixel
// (bx+x, by+y), 0 ≤ x, y < 4: edgesRaster of e alone.
func (e *edge) raster(bx, by int) uint32 {
	return edgesRaster([]edge{*e}, 0xFFFF, bx, by)
}

// edgesRaster returns m with the bits (4y+x) of the pixels outside any of
// the edges cleared: bit 4y+x stays when E > 0 at the centre of pixel
// (bx+x, by+y), 0 ≤ x, y < 4, for every edge. E steps by −16·dy a pixel
// in x and by 16·dx in y (at); v > 0 is the sign bit of −v (|v| < 2⁶²).
// It stops at the first edge that leaves no bit.
//
// A partial block is on the inner side of some of its primitive's
// edges: E is linear, so when it is positive at the corner of the 16
// centres where it is least, it is positive at all of them, and the
// edge keeps every bit without the 16 tests
// (TestEdgeRasterMatchesCentres).
func edgesRaster(edges []edge, m uint32, bx, by int) uint32 {
	px, py := int64(bx)*16+8, int64(by)*16+8
	for j := range edges {
		e := &edges[j]
		sx, sy := -16*e.dy, 16*e.dx
		r := e.dx*(py-e.ay) - e.dy*(px-e.ax) + e.bias // e.at(bx, by)
		if r+3*min(0, sx)+3*min(0, sy) > 0 {
			continue
		}
		sx2, sx3 := 2*sx, 3*sx
		em := rowBits(r, sx, sx2, sx3) | rowBits(r+sy, sx, sx2, sx3)<<4 |
			rowBits(r+2*sy, sx, sx2, sx3)<<8 | rowBits(r+3*sy, sx, sx2, sx3)<<12
		if m &= uint32(em); m == 0 {
			return 0
		}
	}
	return m
}

// rowBits returns bit x set when r + x·sx > 0 for x = 0 … 3, given
// sx, 2·sx and 3·sx: one row of edgesRaster, written out so that the
// four rows are too.
func rowBits(r, sx, sx2, sx3 int64) uint64 {
	return uint64(-r)>>63 | uint64(-(r+sx))>>63<<1 | uint64(-(r+sx2))>>63<<2 | uint64(-(r+sx3))>>63<<3
}

// scissorRaster returns, in raster order, the pixels of the block at
// (bx, by) inside the scissor s.
func scissorRaster(s *Rect, bx, by int) uint32 {
	x0, x1 := min(max(s.X0-bx, 0), 4), min(max(s.X1-bx, 0), 4)
	y0, y1 := min(max(s.Y0-by, 0), 4), min(max(s.Y1-by, 0), 4)
	if x0 >= x1 || y0 >= y1 {
		return 0
	}
	cols := uint32(1)<<x1 - uint32(1)<<x0                                       // bit x per column inside
	rows := uint32(0x1111) & (uint32(1)<<(4*y1) - 1) &^ (uint32(1)<<(4*y0) - 1) // bit 4y per row inside
	return cols * rows
}

// rasterToLanes[p][h][b] is the element mask, in a block of parity p, of
// the pixels whose raster-order bits (bit 4y+x) are byte b of half h
// (rows 0–1 for h = 0, rows 2–3 for h = 1): LaneX and LaneY inverted.
var rasterToLanes = func() (t [2][2][256]uint16) {
	for p := range t {
		var laneOf [16]int // raster bit → element
		for i := range 16 {
			laneOf[4*int(LaneY[p][i]&3)+int(LaneX[p][i]&3)] = i
		}
		for h := range 2 {
			for b := range 256 {
				for k := range 8 {
					if b>>k&1 != 0 {
						t[p][h][b] |= 1 << laneOf[8*h+k]
					}
				}
			}
		}
	}
	return t
}()
