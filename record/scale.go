package record

// shrink scales a frame down by an integer factor: output pixel (x, y) is
// the mean of the source block [f·x, f·x+f) × [f·y, f·y+f), cut at the
// frame's right and bottom edges (so no source pixel is lost), rounded to
// nearest. A block of one colour stays exactly that colour.
type shrink struct {
	f      int
	srcW   int
	srcH   int
	dstW   int
	dstH   int
	acc    []uint32 // R, G, B sums of one output row
	widths []uint32 // the number of source columns in each output column's block
}

func newShrink(f, srcW, srcH int) *shrink {
	s := &shrink{f: f, srcW: srcW, srcH: srcH, dstW: (srcW + f - 1) / f, dstH: (srcH + f - 1) / f}
	s.acc = make([]uint32, 3*s.dstW)
	s.widths = make([]uint32, s.dstW)
	for x := range s.widths {
		s.widths[x] = uint32(min(f, srcW-x*f))
	}
	return s
}

// scale writes the shrunk frame into dst (dstW×dstH words), reading the
// source's rows into row (srcW words).
func (s *shrink) scale(dst []uint32, row []uint32, src *source) {
	for oy := 0; oy < s.dstH; oy++ {
		clear(s.acc)
		y0, y1 := oy*s.f, min((oy+1)*s.f, s.srcH)
		for y := y0; y < y1; y++ {
			src.readRow(row, y)
			for ox := 0; ox < s.dstW; ox++ {
				var r, g, b uint32
				for _, c := range row[ox*s.f : ox*s.f+int(s.widths[ox])] {
					r += c >> 16 & 0xff
					g += c >> 8 & 0xff
					b += c & 0xff
				}
				a := s.acc[3*ox : 3*ox+3]
				a[0] += r
				a[1] += g
				a[2] += b
			}
		}
		h := uint32(y1 - y0)
		out := dst[oy*s.dstW : (oy+1)*s.dstW]
		for x := range out {
			n := h * s.widths[x]
			r := (s.acc[3*x] + n/2) / n
			g := (s.acc[3*x+1] + n/2) / n
			b := (s.acc[3*x+2] + n/2) / n
			out[x] = r<<16 | g<<8 | b
		}
	}
}
