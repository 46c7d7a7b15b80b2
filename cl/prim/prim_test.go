package prim

import (
	"bytes"
	"errors"
	"math/rand"
	"testing"

	"github.com/vccube/vccube/cl"
)

func tri(a, b, c uint32) Prim { return Prim{[3]uint32{a, b, c}} }
func line(a, b uint32) Prim   { return Prim{[3]uint32{a, b}} }
func point(a uint32) Prim     { return Prim{[3]uint32{a}} }

// Sequences with the bytes worked out by hand from AG Tables 39–41, each
// starting from the all-zero previous primitive.
var handLists = []struct {
	name   string
	format Format
	prims  []Prim
	coding []int
	want   []byte
}{
	{"triangles, 16-bit", Format{Triangles, 16},
		[]Prim{
			tri(0, 1, 2),           // coding 1: deltas 0,1,2 → 0x03, 0x21
			tri(2, 1, 3),           // coding 0, edge (prev 2, prev 1), +1 → 0x04
			tri(2, 3, 4),           // coding 0, edge (prev 0, prev 2), +1 → 0x05
			tri(3, 2, 5),           // coding 0, edge (prev 1, prev 0), +1 → 0x06
			tri(5, 2, 1),           // coding 0, edge (prev 2, prev 1), −4 → 0xf0
			tri(100, 110, 90),      // coding 2: 15 | 10<<4 | (−10&63)<<10 = 0xd8af, i0 100
			tri(1000, 5000, 60000), // coding 3
		},
		[]int{1, 0, 0, 0, 0, 2, 3},
		[]byte{0x03, 0x21, 0x04, 0x05, 0x06, 0xf0, 0xaf, 0xd8, 0x64, 0x00, 0x81, 0xe8, 0x03, 0x88, 0x13, 0x60, 0xea}},
	{"triangles, 24-bit", Format{Triangles, 24},
		[]Prim{
			tri(0x123456, 1, 2),            // coding 3: 10 bytes
			tri(0x10000, 0x10001, 0x0ffff), // coding 2: 15 | 1<<4 | 63<<10 = 0xfc1f, i0 in 3 bytes
		},
		[]int{3, 2},
		[]byte{0x81, 0x56, 0x34, 0x12, 0x01, 0x00, 0x00, 0x02, 0x00, 0x00, 0x1f, 0xfc, 0x00, 0x00, 0x01}},
	{"lines, 16-bit", Format{Lines, 16},
		[]Prim{
			line(0, 5),     // coding 0, i0 = prev i1, +5 → 0x14
			line(5, 7),     // coding 0, i0 = prev i1, +2 → 0x08
			line(5, 3),     // coding 0, i0 = prev i0, −4 → 0xf1
			line(9, 10),    // coding 1: +4, +7 → 0x43, 0x07
			line(100, 120), // coding 2: 2 | 20<<2 = 0x52, i0 100
			line(100, 200), // coding 3
		},
		[]int{0, 0, 0, 1, 2, 3},
		[]byte{0x14, 0x08, 0xf1, 0x43, 0x07, 0x52, 0x64, 0x00, 0x81, 0x64, 0x00, 0xc8, 0x00}},
	{"lines, 24-bit", Format{Lines, 24},
		[]Prim{line(0x20000, 0x20001)}, // coding 2: 2 | 1<<2 = 0x06, i0 in 3 bytes
		[]int{2},
		[]byte{0x06, 0x00, 0x00, 0x02}},
	{"points, 16-bit", Format{Points, 16},
		[]Prim{
			point(5),     // coding 0: 5<<2 = 0x14
			point(3),     // coding 0: −2 → 0xf8
			point(1003),  // coding 1: 3 | 1000<<2 = 0x0fa3
			point(0),     // coding 1: 3 | (−1003&0x3fff)<<2 = 0xf057
			point(40000), // coding 3
		},
		[]int{0, 0, 1, 1, 3},
		[]byte{0x14, 0xf8, 0xa3, 0x0f, 0x57, 0xf0, 0x81, 0x40, 0x9c}},
	{"points, 24-bit", Format{Points, 24},
		[]Prim{point(0xabcdef)},
		[]int{3},
		[]byte{0x81, 0xef, 0xcd, 0xab}},
}

func TestHandLists(t *testing.T) {
	for _, c := range handLists {
		e := Encoder{Format: c.format}
		var got []byte
		for _, p := range c.prims {
			var err error
			if got, err = e.Append(got, p); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
		}
		if !bytes.Equal(got, c.want) {
			t.Errorf("%s: shortest coding\n got % x\nwant % x", c.name, got, c.want)
		}
		e.Reset()
		got = got[:0]
		for i, p := range c.prims {
			var err error
			if got, err = e.AppendCoding(got, p, c.coding[i]); err != nil {
				t.Fatalf("%s: prim %d coding %d: %v", c.name, i, c.coding[i], err)
			}
		}
		if !bytes.Equal(got, c.want) {
			t.Errorf("%s: explicit coding\n got % x\nwant % x", c.name, got, c.want)
		}
		d := Decoder{Format: c.format}
		off := 0
		for i, p := range c.prims {
			it, err := d.Next(c.want[off:])
			if err != nil {
				t.Fatalf("%s: decode prim %d: %v", c.name, i, err)
			}
			if it.Kind != Primitive || it.Prim != p || it.Coding != c.coding[i] {
				t.Errorf("%s: prim %d decoded as %+v, want %v coding %d", c.name, i, it, p, c.coding[i])
			}
			off += it.Len
		}
		if off != len(c.want) {
			t.Errorf("%s: decoded %d of %d bytes", c.name, off, len(c.want))
		}
	}
}

func TestSpecialCodes(t *testing.T) {
	b, err := AppendBranch(nil, -1)
	if err != nil || !bytes.Equal(b, []byte{0x82, 0xff, 0xff}) {
		t.Fatalf("branch −1: % x %v", b, err)
	}
	b, _ = AppendBranch(b, 2)
	b = AppendEscape(b)
	if !bytes.Equal(b, []byte{0x82, 0xff, 0xff, 0x82, 0x02, 0x00, 0x80}) {
		t.Fatalf("% x", b)
	}
	if _, err := AppendBranch(nil, 40000); err == nil {
		t.Fatal("branch beyond 1 MiB accepted")
	}
	for _, ty := range []Type{Triangles, Lines, Points} {
		d := Decoder{Format: Format{ty, 16}}
		it, err := d.Next(b)
		if err != nil || it.Kind != Branch || it.Branch != -1 || it.Len != 3 {
			t.Errorf("%v: branch decoded as %+v %v", ty, it, err)
		}
		it, err = d.Next(b[6:])
		if err != nil || it.Kind != Escape || it.Len != 1 {
			t.Errorf("%v: escape decoded as %+v %v", ty, it, err)
		}
	}
	n, err := ListLen([]byte{0x03, 0x21, 0x04, 0x80, 0xff}, Format{Triangles, 16})
	if err != nil || n != 4 {
		t.Errorf("ListLen = %d, %v; want 4", n, err)
	}
	n, err = ListLen([]byte{0x14, 0x82, 0x10, 0x00, 0xff}, Format{Points, 16})
	if err != nil || n != 4 {
		t.Errorf("ListLen up to a branch = %d, %v; want 4", n, err)
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct {
		name string
		f    Format
		b    []byte
		off  int
	}{
		{"no escape", Format{Triangles, 16}, []byte{0x03, 0x21}, 2},
		{"truncated coding 3", Format{Triangles, 16}, []byte{0x81, 1, 0, 2}, 0},
		{"truncated branch", Format{Lines, 16}, []byte{0x14, 0x82, 0}, 1},
		{"point run length", Format{Points, 16}, []byte{0x14, 0x06, 0x02, 0x80}, 1},
		{"index below zero", Format{Points, 16}, []byte{0xfc, 0x80}, 0},
		{"index above 16 bits", Format{Points, 16}, []byte{0x81, 0xff, 0xff, 0x04}, 3},
	}
	for _, c := range cases {
		_, err := ListLen(c.b, c.f)
		var pe *Error
		if !errors.As(err, &pe) || pe.Offset != c.off {
			t.Errorf("%s: err = %v, want a prim.Error at +%d", c.name, err, c.off)
		}
	}
	if _, err := (&Decoder{Format: Format{Triangles, 20}}).Next([]byte{0x80}); err == nil {
		t.Error("20-bit indices accepted")
	}
}

func TestEncodeErrors(t *testing.T) {
	e := Encoder{Format: Format{Triangles, 16}}
	if _, err := e.Append(nil, tri(0x10000, 0, 0)); err == nil {
		t.Error("17-bit index accepted")
	}
	p := Encoder{Format: Format{Points, 16}}
	if _, err := p.Append(nil, Prim{[3]uint32{1, 2}}); err == nil {
		t.Error("point with two indices accepted")
	}
	if _, err := e.AppendCoding(nil, tri(500, 0, 0), 1); err == nil {
		t.Error("coding 1 with delta 500 accepted")
	}
}

func TestFormatOf(t *testing.T) {
	f, err := FormatOf(cl.PrimitiveListFormat{Type: cl.PrimitiveListTypeTriangles, DataType: cl.PrimitiveListData16BitIndex})
	if err != nil || f != (Format{Triangles, 16}) {
		t.Errorf("0x12 → %+v %v", f, err)
	}
	f, err = FormatOf(cl.PrimitiveListFormat{Type: cl.PrimitiveListTypeRHTs, DataType: cl.PrimitiveListData16BitIndex})
	if err != nil || f != (Format{Lines, 16}) {
		t.Errorf("RHTs → %+v %v", f, err)
	}
	if _, err := FormatOf(cl.PrimitiveListFormat{Type: cl.PrimitiveListTypeTriangles, DataType: cl.PrimitiveListData32BitXY}); err == nil {
		t.Error("XY lists accepted")
	}
}

// randomPrims makes a sequence with small and large steps so every coding
// is exercised.
func randomPrims(rng *rand.Rand, f Format, n int) []Prim {
	limit := int64(1) << f.IndexBits
	clamp := func(v int64) uint32 {
		if v < 0 {
			v = -v
		}
		return uint32(v % limit)
	}
	var prev Prim
	out := make([]Prim, n)
	for i := range out {
		var p Prim
		step := []int64{4, 10, 40, 20000, limit}[rng.Intn(5)]
		for k := 0; k < f.Type.Vertices(); k++ {
			p.Index[k] = clamp(int64(prev.Index[k]) + rng.Int63n(2*step+1) - step)
		}
		if f.Type != Points && rng.Intn(3) == 0 { // share an edge
			p.Index[0], p.Index[1] = prev.Index[2], prev.Index[1]
			if f.Type == Lines {
				p.Index[0], p.Index[1] = prev.Index[1], clamp(int64(prev.Index[1])+rng.Int63n(63)-31)
			}
		}
		out[i] = p
		prev = p
	}
	return out
}

func roundTrip(t *testing.T, f Format, prims []Prim) {
	t.Helper()
	e := Encoder{Format: f}
	var b []byte
	for _, p := range prims {
		n := len(b)
		var err error
		if b, err = e.Append(b, p); err != nil {
			t.Fatal(err)
		}
		if len(b)-n > f.MaxLen() {
			t.Fatalf("%v: %v took %d bytes, MaxLen says %d", f, p, len(b)-n, f.MaxLen())
		}
	}
	b = AppendEscape(b)
	d := Decoder{Format: f}
	off := 0
	for i, p := range prims {
		it, err := d.Next(b[off:])
		if err != nil {
			t.Fatalf("%v: prim %d: %v", f, i, err)
		}
		if it.Kind != Primitive || it.Prim != p {
			t.Fatalf("%v: prim %d = %+v, want %v", f, i, it, p)
		}
		off += it.Len
	}
	if it, err := d.Next(b[off:]); err != nil || it.Kind != Escape || off+1 != len(b) {
		t.Fatalf("%v: list does not end in one escape", f)
	}
}

// MaxLen is coding 3's length, worked out from AG Tables 39–41: code 129
// and then 3, 2 or 1 indices of 2 or 3 bytes.
func TestMaxLen(t *testing.T) {
	for _, c := range []struct {
		f    Format
		want int
	}{
		{Format{Triangles, 16}, 7}, {Format{Triangles, 24}, 10},
		{Format{Lines, 16}, 5}, {Format{Lines, 24}, 7},
		{Format{Points, 16}, 3}, {Format{Points, 24}, 4},
	} {
		if got := c.f.MaxLen(); got != c.want {
			t.Errorf("%v.MaxLen() = %d, want %d", c.f, got, c.want)
		}
		e := Encoder{Format: c.f}
		p := Prim{}
		for i := 0; i < c.f.Type.Vertices(); i++ {
			p.Index[i] = uint32(i + 1)
		}
		if b, err := e.AppendCoding(nil, p, 3); err != nil || len(b) != c.want {
			t.Errorf("%v coding 3 = % x (%v), want %d bytes", c.f, b, err, c.want)
		}
	}
}

func TestRoundTripRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, ty := range []Type{Triangles, Lines, Points} {
		for _, bits := range []uint{16, 24} {
			for n := 0; n < 50; n++ {
				roundTrip(t, Format{ty, bits}, randomPrims(rng, Format{ty, bits}, 40))
			}
		}
	}
}

func FuzzRoundTrip(f *testing.F) {
	f.Add(byte(0), []byte{1, 2, 3, 4, 5, 6})
	f.Add(byte(5), []byte{0xff, 0xff, 0xff, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, sel byte, data []byte) {
		format := Format{Type(sel % 3), []uint{16, 24}[sel/3%2]}
		n := format.Type.Vertices()
		mask := uint32(1)<<format.IndexBits - 1
		var prims []Prim
		for len(data) >= 3*n {
			var p Prim
			for k := 0; k < n; k++ {
				p.Index[k] = (uint32(data[0]) | uint32(data[1])<<8 | uint32(data[2])<<16) & mask
				data = data[3:]
			}
			prims = append(prims, p)
		}
		roundTrip(t, format, prims)
	})
}

// The decoder never panics and reports an offset inside the input.
func FuzzDecode(f *testing.F) {
	for _, c := range handLists {
		f.Add(byte(c.format.Type), c.format.IndexBits == 24, c.want)
	}
	f.Fuzz(func(t *testing.T, ty byte, wide bool, b []byte) {
		format := Format{Type(ty % 3), 16}
		if wide {
			format.IndexBits = 24
		}
		n, err := ListLen(b, format)
		if n > len(b) {
			t.Fatalf("ListLen %d beyond %d bytes", n, len(b))
		}
		var pe *Error
		if err != nil && errors.As(err, &pe) && (pe.Offset < 0 || pe.Offset > len(b)) {
			t.Fatalf("error offset %d outside input", pe.Offset)
		}
	})
}

func TestEncodeDoesNotAllocate(t *testing.T) {
	buf := make([]byte, 0, 1024)
	e := Encoder{Format: Format{Triangles, 16}}
	allocs := testing.AllocsPerRun(100, func() {
		b := buf[:0]
		e.Reset()
		for i := uint32(0); i < 36; i += 3 {
			b, _ = e.Append(b, tri(i, i+1, i+2))
		}
		b = AppendEscape(b)
		_ = b
	})
	if allocs != 0 {
		t.Fatalf("%v allocations", allocs)
	}
}
