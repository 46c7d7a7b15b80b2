package raster

import "math"

// laneColOff and laneRowOff give, for blocks of each parity, the byte
// offset of element i's column and row term in a [4]float64 (LaneX and
// LaneY times 8), for blockWZ's SSE2 version.
var laneColOff, laneRowOff = func() (col, row [2][16]int64) {
	for p := range col {
		for i := range col[p] {
			col[p][i], row[p][i] = 8*int64(LaneX[p][i]&3), 8*int64(LaneY[p][i]&3)
		}
	}
	return col, row
}()

// laneColOff4 and laneRowOff4 are the same offsets into a [4]float32.
var laneColOff4, laneRowOff4 = func() (col, row [2][16]int64) {
	for p := range col {
		for i := range col[p] {
			col[p][i], row[p][i] = 4*int64(LaneX[p][i]&3), 4*int64(LaneY[p][i]&3)
		}
	}
	return col, row
}()

// blockVPGo computes BlockVP's value of every element of a block of
// parity par from the per-column (ax) and per-row (by) terms: their
// float32 sum.
func blockVPGo(ax, by *[4]float32, par int, out *[16]uint32) {
	lx, ly := &LaneX[par], &LaneY[par]
	for i := range 16 {
		out[i] = math.Float32bits(ax[lx[i]&3] + by[ly[i]&3])
	}
}

// blockVPCLanesGo is blockVPGo with the row's terms in element order
// (Varying.RowLanes) that also fills c with cbits: a varying read's VP
// and C.
func blockVPCLanesGo(ax *[4]float32, row *[16]float32, par int, out *[16]uint32, cbits uint32, c *[16]uint32) {
	lx := &LaneX[par&1]
	for i := range 16 {
		out[i] = math.Float32bits(ax[lx[i]&3] + row[i])
		c[i] = cbits
	}
}

// blockWZGo computes BlockInputs' W and Z of every element of a block of
// parity par from the per-column (qx, zx) and per-row (qy, zy) terms:
// W = 1/(qx + qy) rounded to float32, Z = zToFixed(zx + zy + depth).
func blockWZGo(qx, qy, zx, zy *[4]float64, depth float64, par int, w, z *[16]uint32) {
	lx, ly := &LaneX[par], &LaneY[par]
	for i := range 16 {
		cx, ry := lx[i]&3, ly[i]&3
		w[i] = math.Float32bits(float32(1 / sumFirstNaN(qx[cx], qy[ry])))
		z[i] = zToFixed(zx[cx] + zy[ry] + depth)
	}
}

// sumFirstNaN is a + b, but when both are NaN it is a's NaN (quieted),
// as SSE2's and AVX's adds give their first source operand's (Intel SDM
// vol. 1, 4.8.3.5, Table 4-7) and the assembly forms add the column's
// term first. Go does not say which of two NaNs a + b gives, and its
// compiler may put either operand first: a -race build of
// TestBlockWZMatchesGo took qy's.
func sumFirstNaN(a, b float64) float64 {
	if a != a {
		return math.Float64frombits(math.Float64bits(a) | 1<<51)
	}
	return a + b
}
