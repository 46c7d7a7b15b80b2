package termview

// Area-average ("box") scaling. Each output pixel is the average of the
// source area it covers, with source pixels that it covers only in part
// weighted by the part covered. Along one axis, with S source pixels and
// D output pixels, measure positions in units of 1/D source pixel: output
// pixel i covers [i·S, (i+1)·S) and source pixel j covers [j·D, (j+1)·D),
// so every weight — the length of an overlap — is an integer, the weights
// of an output pixel add up to S, and a 2-D output pixel's weights add up
// to Sx·Sy. The average is then one integer division, rounded to nearest:
// the result is exact and the same on every machine. The same formula
// enlarges a frame smaller than the window (an output pixel then covers a
// part of one source pixel, or parts of two).

// axis holds the taps of one axis: output pixel i reads source pixels
// src[first[i]:first[i+1]] with weights w[first[i]:first[i+1]].
type axis struct {
	first []int32
	src   []int32
	w     []uint32
	total uint32 // S, the sum of each output pixel's weights
}

// newAxis computes the taps for S source pixels onto D output pixels.
func newAxis(s, d int) axis {
	a := axis{first: make([]int32, 0, d+1), total: uint32(s)}
	S, D := int64(s), int64(d)
	for i := int64(0); i < D; i++ {
		a.first = append(a.first, int32(len(a.src)))
		lo, hi := i*S, (i+1)*S
		for j := lo / D; j*D < hi; j++ {
			overlap := min(hi, (j+1)*D) - max(lo, j*D)
			if overlap > 0 {
				a.src = append(a.src, int32(j))
				a.w = append(a.w, uint32(overlap))
			}
		}
	}
	a.first = append(a.first, int32(len(a.src)))
	return a
}

// scaler scales frames of one size to one picture size.
type scaler struct {
	x, y axis
	// row holds one source row scaled horizontally, R, G, B per output
	// pixel; acc sums rows for one output row.
	row []uint32
	acc []uint64
}

func newScaler(srcW, srcH, dstW, dstH int) *scaler {
	return &scaler{
		x:   newAxis(srcW, dstW),
		y:   newAxis(srcH, dstH),
		row: make([]uint32, 3*dstW),
		acc: make([]uint64, 3*dstW),
	}
}

// chans is where R, G and B sit in a 4-byte pixel.
type chans struct{ r, g, b int }

// scale writes the picture into dst, one 0xRRGGBB word per pixel, row by
// row. src holds the frame's rows, pitch bytes apart, 4 bytes per pixel
// with the channels at c.
func (s *scaler) scale(dst []uint32, src []byte, pitch int, c chans) {
	dstW := len(s.x.first) - 1
	total := uint64(s.x.total) * uint64(s.y.total)
	half := total / 2
	for oy := 0; oy+1 < len(s.y.first); oy++ {
		clear(s.acc)
		for t := s.y.first[oy]; t < s.y.first[oy+1]; t++ {
			s.scaleRow(src[int(s.y.src[t])*pitch:], c)
			wy := uint64(s.y.w[t])
			acc := s.acc[:len(s.row)]
			for i, v := range s.row {
				acc[i] += wy * uint64(v)
			}
		}
		out := dst[oy*dstW : (oy+1)*dstW]
		for i := range out {
			r := (s.acc[3*i] + half) / total
			g := (s.acc[3*i+1] + half) / total
			b := (s.acc[3*i+2] + half) / total
			out[i] = uint32(r)<<16 | uint32(g)<<8 | uint32(b)
		}
	}
}

// scaleRow scales one source row horizontally into s.row. An output
// pixel's taps are consecutive source pixels, so each output reads one
// contiguous run of the row.
func (s *scaler) scaleRow(line []byte, c chans) {
	x := &s.x
	row := s.row
	for i := 0; i+1 < len(x.first); i++ {
		t0, t1 := x.first[i], x.first[i+1]
		ws := x.w[t0:t1]
		j := int(x.src[t0])
		p := line[4*j : 4*(j+len(ws))]
		var r, g, b uint32
		for k, w := range ws {
			q := p[4*k : 4*k+4]
			r += w * uint32(q[c.r])
			g += w * uint32(q[c.g])
			b += w * uint32(q[c.b])
		}
		row[3*i], row[3*i+1], row[3*i+2] = r, g, b
	}
}
