package record

// Palettes by median cut. A GIF frame has at most 256 colours; each frame
// gets its own palette (a local colour table), built from the pixels it
// holds, so that every face of the cube gets colours of its own as it
// turns into view.
//
// The method is Heckbert's median cut ("Color image quantization for
// frame buffer display", SIGGRAPH 1982) on a histogram of 5 bits per
// channel (32768 bins): the box of bins with the most pixels times the
// longest side is cut across that side at its pixel median, until there
// are as many boxes as palette entries; a box's colour is the mean of its
// pixels' true colours. Two rules make the result exact where it matters:
//
//   - a bin whose pixels are all one colour and that holds at least 1/256
//     of the frame (a fair share of the palette) gets an entry of its own,
//     before the cut — vkcube's 0.2 grey background is such a colour, and
//     it comes out exact, not averaged with the cube's darkest texels;
//   - when there are no more bins than entries, every bin gets its own
//     entry: a frame of few colours keeps them all (exactly, as far as
//     they fall in different bins).
//
// All arithmetic is in integers and every choice has a fixed tie-break,
// so a frame's palette is the same on every machine.

const (
	binBits = 5
	numBins = 1 << (3 * binBits)
	// maxColours is a GIF colour table's largest size (GIF89a §18, §21: 2^(n+1)
	// for n ≤ 7).
	maxColours = 256
	// maxExact bounds the colours given an entry before the cut, so that
	// the cut always has most of the palette.
	maxExact = 32
	// mixed marks a bin that has seen two different colours.
	mixed = 1 << 24
)

// binOf is the histogram bin of the colour 0xRRGGBB: the top 5 bits of
// each channel.
func binOf(c uint32) uint16 {
	return uint16(c>>(24-binBits)&0x1f<<10 | c>>(16-binBits)&0x1f<<5 | c>>(8-binBits)&0x1f)
}

// quantizer builds palettes. Its tables are reused from frame to frame.
type quantizer struct {
	count  [numBins]uint32
	sum    [numBins][3]uint32
	first  [numBins]uint32 // the first colour seen in the bin, | mixed if another was
	index  [numBins]uint8  // the bin's palette entry
	picked [numBins]bool   // the bin has an exact entry (during build)
	used   []uint16        // the bins seen, in the order first seen
	exact  []uint16        // the bins with exact entries
	rest   []uint16        // the bins left for the cut
	boxes  []box
	// palette holds the entries as R, G, B triples.
	palette []byte
}

// box is a range of q.rest with its statistics.
type box struct {
	lo, hi   int // q.rest[lo:hi]
	count    uint32
	min, max [3]uint8 // bin coordinates, 0–31, per channel
}

func newQuantizer() *quantizer {
	return &quantizer{
		used:    make([]uint16, 0, numBins),
		exact:   make([]uint16, 0, numBins),
		rest:    make([]uint16, 0, numBins),
		boxes:   make([]box, 0, maxColours),
		palette: make([]byte, 0, 3*maxColours),
	}
}

// binCoord returns channel ch's coordinate (0–31) of bin k.
func binCoord(k uint16, ch int) uint8 {
	return uint8(k >> (binBits * (2 - ch)) & 0x1f)
}

// add counts the pixels of one row.
func (q *quantizer) add(row []uint32) {
	for _, c := range row {
		k := binOf(c)
		if q.count[k] == 0 {
			q.used = append(q.used, k)
			q.first[k] = c
		} else if q.first[k] != c {
			q.first[k] |= mixed
		}
		q.count[k]++
		s := &q.sum[k]
		s[0] += c >> 16 & 0xff
		s[1] += c >> 8 & 0xff
		s[2] += c & 0xff
	}
}

// build makes the palette of the pixels added since the last reset, total
// of them, and fills the bin → entry table.
func (q *quantizer) build(total int) {
	q.palette, q.exact, q.rest, q.boxes = q.palette[:0], q.exact[:0], q.rest[:0], q.boxes[:0]

	// Exact entries, when the bins outnumber the entries: pure bins with a
	// fair share, the largest first (ties: lower bin number), at most
	// maxExact. The candidates are gathered in q.exact first (about 256
	// at most: each holds a 256th of the pixels) and picked from there.
	if len(q.used) > maxColours {
		share := uint32(max(1, total/maxColours))
		for _, k := range q.used {
			if q.first[k]&mixed == 0 && q.count[k] >= share {
				q.exact = append(q.exact, k)
			}
		}
		cands := q.exact
		for n := 0; n < maxExact && n < len(cands); n++ {
			best := n
			for i := n + 1; i < len(cands); i++ {
				if q.count[cands[i]] > q.count[cands[best]] || q.count[cands[i]] == q.count[cands[best]] && cands[i] < cands[best] {
					best = i
				}
			}
			cands[n], cands[best] = cands[best], cands[n]
		}
		q.exact = cands[:min(maxExact, len(cands))]
	}
	for i, k := range q.exact {
		q.picked[k] = true
		q.index[k] = uint8(i)
		c := q.first[k]
		q.palette = append(q.palette, byte(c>>16), byte(c>>8), byte(c))
	}
	for _, k := range q.used {
		if !q.picked[k] {
			q.rest = append(q.rest, k)
		}
	}
	for _, k := range q.exact {
		q.picked[k] = false
	}

	// Few enough bins: one entry each, in the order first seen.
	if len(q.rest) <= maxColours-len(q.exact) {
		for i := range q.rest {
			q.boxes = append(q.boxes, q.stats(i, i+1))
		}
	} else {
		q.cut()
	}
	// Each box's entry is the mean of its pixels' true colours.
	for _, bx := range q.boxes {
		var s [3]uint64
		for _, k := range q.rest[bx.lo:bx.hi] {
			for ch := 0; ch < 3; ch++ {
				s[ch] += uint64(q.sum[k][ch])
			}
		}
		n := uint64(bx.count)
		entry := uint8(len(q.palette) / 3)
		q.palette = append(q.palette, byte((s[0]+n/2)/n), byte((s[1]+n/2)/n), byte((s[2]+n/2)/n))
		for _, k := range q.rest[bx.lo:bx.hi] {
			q.index[k] = entry
		}
	}
}

// cut makes the boxes: one box of all of q.rest, split until the palette
// is full or no box has two bins.
func (q *quantizer) cut() {
	q.boxes = append(q.boxes, q.stats(0, len(q.rest)))
	for len(q.boxes) < maxColours-len(q.exact) {
		i := q.pickBox()
		if i < 0 {
			break
		}
		a, b := q.split(q.boxes[i])
		q.boxes[i] = a
		q.boxes = append(q.boxes, b)
	}
}

// stats returns the box of q.rest[lo:hi].
func (q *quantizer) stats(lo, hi int) box {
	b := box{lo: lo, hi: hi, min: [3]uint8{31, 31, 31}}
	for _, k := range q.rest[lo:hi] {
		b.count += q.count[k]
		for ch := 0; ch < 3; ch++ {
			c := binCoord(k, ch)
			b.min[ch] = min(b.min[ch], c)
			b.max[ch] = max(b.max[ch], c)
		}
	}
	return b
}

// longest returns the box's longest side (the first of R, G, B on a tie)
// and its length in bins.
func (b *box) longest() (ch int, side uint8) {
	for c := 0; c < 3; c++ {
		if s := b.max[c] - b.min[c]; s > side {
			ch, side = c, s
		}
	}
	return ch, side
}

// pickBox returns the box to cut next: the one with the largest pixel
// count times longest side (the first such), or −1 if no box can be cut.
func (q *quantizer) pickBox() int {
	best, bestScore := -1, uint64(0)
	for i := range q.boxes {
		_, side := q.boxes[i].longest()
		if score := uint64(q.boxes[i].count) * uint64(side); score > bestScore {
			best, bestScore = i, score
		}
	}
	return best
}

// split cuts a box across its longest side at the pixel median: bins at
// or below the cut go to the first box. The cut is kept inside the box so
// that neither half is empty.
func (q *quantizer) split(b box) (box, box) {
	ch, _ := b.longest()
	var hist [32]uint32
	for _, k := range q.rest[b.lo:b.hi] {
		hist[binCoord(k, ch)] += q.count[k]
	}
	cut, cum := b.min[ch], uint32(0)
	for c := b.min[ch]; c < b.max[ch]; c++ {
		cum += hist[c]
		cut = c
		if 2*cum >= b.count {
			break
		}
	}
	// Partition q.rest[lo:hi] in place.
	i, j := b.lo, b.hi-1
	for i <= j {
		if binCoord(q.rest[i], ch) <= cut {
			i++
		} else {
			q.rest[i], q.rest[j] = q.rest[j], q.rest[i]
			j--
		}
	}
	return q.stats(b.lo, i), q.stats(i, b.hi)
}

// reset forgets the pixels added, touching only the bins used.
func (q *quantizer) reset() {
	for _, k := range q.used {
		q.count[k] = 0
		q.sum[k] = [3]uint32{}
		q.first[k] = 0
	}
	q.used = q.used[:0]
}
