package record

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func paletteOf(t *testing.T, px []uint32) (*quantizer, [][3]byte) {
	t.Helper()
	q := newQuantizer()
	q.add(px)
	q.build(len(px))
	var pal [][3]byte
	for i := 0; i < len(q.palette); i += 3 {
		pal = append(pal, [3]byte{q.palette[i], q.palette[i+1], q.palette[i+2]})
	}
	if len(pal) == 0 || len(pal) > 256 {
		t.Fatalf("%d palette entries", len(pal))
	}
	return q, pal
}

func rgb(c uint32) [3]byte { return [3]byte{byte(c >> 16), byte(c >> 8), byte(c)} }

func TestBinOf(t *testing.T) {
	// The top 5 bits of R, G, B: 0x33 → 6; 0xff → 31; 0x08 → 1.
	if got := binOf(0x33ff08); got != 6<<10|31<<5|1 {
		t.Errorf("binOf(33ff08) = %#x", got)
	}
	for _, k := range []uint16{0, 6<<10 | 31<<5 | 1, 0x7fff} {
		if binCoord(k, 0) != uint8(k>>10) || binCoord(k, 1) != uint8(k>>5&31) || binCoord(k, 2) != uint8(k&31) {
			t.Errorf("binCoord(%#x) wrong", k)
		}
	}
}

// A frame of few colours in different bins keeps every colour exactly, in
// the order they first appear.
func TestFewColoursExact(t *testing.T) {
	px := []uint32{grey, 0xff0000, grey, 0x00ff00, 0x0000ff, 0xff0000}
	q, pal := paletteOf(t, px)
	if want := [][3]byte{rgb(grey), rgb(0xff0000), rgb(0x00ff00), rgb(0x0000ff)}; !slices.Equal(pal, want) {
		t.Errorf("palette %v, want %v", pal, want)
	}
	for _, c := range px {
		if e := q.index[binOf(c)]; pal[e] != rgb(c) {
			t.Errorf("%06x maps to %v", c, pal[e])
		}
	}
}

// Two colours in one bin share its entry: the mean of the pixels.
func TestBinMean(t *testing.T) {
	// 0x30 and 0x37 are both in bin 6: mean of three 0x30 and one 0x37
	// = (144 + 55) / 4 = 49.75 → 50.
	_, pal := paletteOf(t, []uint32{0x303030, 0x303030, 0x303030, 0x373737})
	if want := [][3]byte{{50, 50, 50}}; !slices.Equal(pal, want) {
		t.Errorf("palette %v, want %v", pal, want)
	}
}

// A frame of many colours (more bins than entries) on a dominant
// background: the background gets an exact entry, every pixel maps to an
// entry close to it, and the same frame always gives the same palette.
func TestManyColours(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	px := make([]uint32, 200*150)
	for i := range px {
		if i%3 == 0 {
			px[i] = rng.Uint32() & 0xffffff
		} else {
			// The background, and a colour of the same bin next to it
			// in a few pixels: the bin is not pure...
			px[i] = grey
		}
	}
	q, pal := paletteOf(t, px)
	if len(pal) != 256 {
		t.Errorf("%d entries, want a full palette", len(pal))
	}
	if e := q.index[binOf(grey)]; pal[e] != rgb(grey) {
		t.Errorf("the background maps to %v", pal[e])
	}
	worst := 0
	for _, c := range px {
		e := q.index[binOf(c)]
		worst = max(worst, chanDiff(c, uint32(pal[e][0])<<16|uint32(pal[e][1])<<8|uint32(pal[e][2])))
	}
	// Random colours fill the whole cube: 255 boxes of it are about 40
	// levels on a side at worst.
	if worst > 64 {
		t.Errorf("a pixel is %d levels from its entry", worst)
	}
	_, again := paletteOf(t, px)
	if !slices.Equal(pal, again) {
		t.Error("the same frame gave another palette")
	}
}

// A mixed bin (two colours) is not given an exact entry, whatever its
// size: its entry would be wrong for one of them.
func TestMixedBinNotExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	px := make([]uint32, 100*100)
	for i := range px {
		switch {
		case i%2 == 0:
			px[i] = grey
		case i%4 == 1:
			px[i] = 0x343434 // same bin as grey
		default:
			px[i] = rng.Uint32() & 0xffffff
		}
	}
	q, pal := paletteOf(t, px)
	if q.first[binOf(grey)]&mixed == 0 {
		t.Fatal("the grey bin is not marked mixed")
	}
	// Its entry is a mean over the bin's box: 2500 pixels of 51, 1250 of
	// 52 and whatever random colours share the box — within a level of
	// grey.
	e := q.index[binOf(grey)]
	if d := chanDiff(grey, uint32(pal[e][0])<<16|uint32(pal[e][1])<<8|uint32(pal[e][2])); d > 1 {
		t.Errorf("the grey bin's entry %v is %d levels off", pal[e], d)
	}
}

// reset clears what add counted.
func TestQuantizerReset(t *testing.T) {
	q := newQuantizer()
	q.add([]uint32{0xff0000, 0x00ff00})
	q.build(2)
	q.reset()
	q.add([]uint32{0x0000ff})
	q.build(1)
	if !slices.Equal(q.palette, []byte{0, 0, 255}) {
		t.Errorf("palette after reset %v", q.palette)
	}
}
