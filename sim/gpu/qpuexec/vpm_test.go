package qpuexec

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/vccube/vccube/shaders/qpu"
)

// vpmPattern fills a segment so that every byte says where it is: word (y,
// x) = bytes {0xB0, 0xB1, x, y}.
func vpmPattern(v *VPM, s Segment) {
	for y := 0; y < 64; y++ {
		for x := 0; x < 16; x++ {
			v.SetWord(s, y, x, uint32(y)<<24|uint32(x)<<16|0xB1<<8|0xB0)
		}
	}
}

func byteOf(w uint32, b int) uint32 { return w >> (8 * b) & 0xFF }
func halfOf(w uint32, h int) uint32 { return w >> (16 * h) & 0xFFFF }

// TestVPMAccessModesFromTheGuide reads each example of AG Figures 8 and 9
// through a read setup (ADDR encoded per AG Table 33) and compares with the
// figures' element positions.
func TestVPMAccessModesFromTheGuide(t *testing.T) {
	var v VPM
	seg := Segment{Base: 32, Rows: 64}
	vpmPattern(&v, seg)
	w := func(y, x int) uint32 { return v.Word(seg, y, x) }
	const (
		horiz = 1 << 11
		laned = 1 << 10
		s8    = 0 << 8
		s16   = 1 << 8
		s32   = 2 << 8
	)
	cases := []struct {
		name  string
		setup uint32
		want  func(e int) uint32
	}{
		{"8-bit packed, Y=0, B=2 (fig 8a)", horiz | s8 | 0<<2 | 2, func(e int) uint32 { return byteOf(w(0, 8+e/4), e%4) }},
		{"8-bit laned, Y=1, B=1 (fig 8b)", horiz | laned | s8 | 1<<2 | 1, func(e int) uint32 { return byteOf(w(1, e), 1) }},
		{"16-bit laned, Y=2, H=0 (fig 8c)", horiz | laned | s16 | 2<<1 | 0, func(e int) uint32 { return halfOf(w(2, e), 0) }},
		{"16-bit packed, Y=3, H=1 (fig 8d)", horiz | s16 | 3<<1 | 1, func(e int) uint32 { return halfOf(w(3, 8+e/2), e%2) }},
		{"32-bit, Y=63 (fig 8e)", horiz | s32 | 63, func(e int) uint32 { return w(63, e) }},
		{"vertical 8-bit packed, Y=0, X=0, B=1 (fig 9a)", s8 | 0<<6 | 0<<2 | 1, func(e int) uint32 { return byteOf(w(4+e/4, 0), e%4) }},
		{"vertical 8-bit laned, Y=0, X=1, B=2 (fig 9b)", laned | s8 | 0<<6 | 1<<2 | 2, func(e int) uint32 { return byteOf(w(e, 1), 2) }},
		{"vertical 16-bit laned, Y=0, X=2, H=0 (fig 9c)", laned | s16 | 0<<5 | 2<<1 | 0, func(e int) uint32 { return halfOf(w(e, 2), 0) }},
		{"vertical 16-bit packed, Y=0, X=15, H=1 (fig 9d)", s16 | 0<<5 | 15<<1 | 1, func(e int) uint32 { return halfOf(w(8+e/2, 15), e%2) }},
		{"vertical 32-bit, Y=16, X=1 (fig 9e)", s32 | 1<<4 | 1, func(e int) uint32 { return w(16+e, 1) }},
	}
	for _, c := range cases {
		s, ok := decodeVPMSetup(c.setup|1<<20, true)
		if !ok {
			t.Fatalf("%s: not a generic setup", c.name)
		}
		var got vec
		v.readVector(seg, &s, &got)
		for e := 0; e < 16; e++ {
			if got[e] != c.want(e) {
				t.Errorf("%s: element %d = %#x, want %#x", c.name, e, got[e], c.want(e))
				break
			}
		}
		// The write path puts the same elements in the same places.
		var v2 VPM
		s2, _ := decodeVPMSetup(c.setup, false)
		in := seq(func(e int) uint32 { return uint32(0x1000 + e) })
		v2.writeVector(seg, &s2, &in)
		s3, _ := decodeVPMSetup(c.setup, true)
		var back vec
		v2.readVector(seg, &s3, &back)
		for e := 0; e < 16; e++ {
			mask := uint32(0xFFFFFFFF)
			if s3.size == vpmSize8 {
				mask = 0xFF
			} else if s3.size == vpmSize16 {
				mask = 0xFFFF
			}
			if back[e] != in[e]&mask {
				t.Errorf("%s: write then read element %d = %#x, want %#x", c.name, e, back[e], in[e]&mask)
				break
			}
		}
	}
}

func TestVPMStrideCountAndWrap(t *testing.T) {
	var v VPM
	seg := Segment{Base: 200, Rows: 64}
	vpmPattern(&v, seg)
	// Horizontal 32-bit from Y=62, stride 1, 3 vectors: rows 62, 63, then
	// the address wraps beyond 63 to row 0 (AG §7).
	s, _ := decodeVPMSetup(3<<20|1<<12|1<<11|2<<8|62, true)
	if s.num != 3 {
		t.Fatalf("NUM = %d, want 3", s.num)
	}
	for _, y := range []int{62, 63, 0} {
		var got vec
		v.readVector(seg, &s, &got)
		if got[5] != v.Word(seg, y, 5) {
			t.Errorf("row %d: got %#x", y, got[5])
		}
	}
	// NUM 0 means 16 and STRIDE 0 means 64 (AG Table 33).
	s, _ = decodeVPMSetup(1<<11|2<<8, true)
	if s.num != 16 || s.stride != 64 {
		t.Errorf("NUM/STRIDE 0 decode as %d/%d, want 16/64", s.num, s.stride)
	}
	// The segment maps onto VPM rows modulo the VPM: base 200 + row 63.
	if got, want := v.Row(seg, 63), &v.rows[(200+63)%VPMRows]; got != want {
		t.Error("window row 63 of a segment at 200 is not VPM row 7")
	}
}

func TestVPMWritesOutsideTheSegmentAreDropped(t *testing.T) {
	var v VPM
	seg := Segment{Base: 0, Rows: 4}
	s, _ := decodeVPMSetup(1<<12|1<<11|2<<8|3, false) // from Y=3, stride 1
	one := splat(1)
	v.writeVector(seg, &s, &one) // row 3: inside
	v.writeVector(seg, &s, &one) // row 4: outside the 4 allocated rows
	if v.rows[3][0] != 1 || v.rows[4][0] != 0 {
		t.Errorf("rows 3, 4 = %d, %d; want 1, 0 (AG §7: writes outside the window are masked)", v.rows[3][0], v.rows[4][0])
	}
}

func TestStoreVertexBytes(t *testing.T) {
	var v VPM
	seg := Segment{Base: 10, Rows: 3}
	if err := v.StoreVertexBytes(seg, 5, 2, []byte{1, 2, 3, 4, 5}); err != nil {
		t.Fatal(err)
	}
	// Bytes 2..6 of column 5: word 0 bytes 2,3 and word 1 bytes 0,1,2.
	if got := v.Word(seg, 0, 5); got != 0x02010000 {
		t.Errorf("row 0 = %#08x", got)
	}
	if got := v.Word(seg, 1, 5); got != 0x00050403 {
		t.Errorf("row 1 = %#08x", got)
	}
	if err := v.StoreVertexBytes(seg, 5, 10, []byte{1, 2, 3}); err == nil {
		t.Error("bytes past the segment's 3 rows were accepted")
	}
	if err := v.StoreVertexBytes(seg, 16, 0, []byte{1}); err == nil {
		t.Error("column 16 was accepted")
	}
}

// TestStoreVertexBytesWordsMatchBytes compares StoreVertexBytes, which
// stores whole words where it can, with the byte-at-a-time form on every
// offset and length that fits a 3-row segment placed across the VPM's
// end, over a VPM of random words.
func TestStoreVertexBytesWordsMatchBytes(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	seg := Segment{Base: VPMRows - 2, Rows: 3}
	for off := 0; off < 12; off++ {
		for n := 0; off+n <= 12; n++ {
			var got, want VPM
			for y := range got.rows {
				for x := range got.rows[y] {
					w := rng.Uint32()
					got.rows[y][x], want.rows[y][x] = w, w
				}
			}
			b := make([]byte, n)
			rng.Read(b)
			col := rng.Intn(16)
			if err := got.StoreVertexBytes(seg, col, off, b); err != nil {
				t.Fatal(err)
			}
			storeVertexBytes(&want, seg, col, off, b)
			if got != want {
				t.Fatalf("%d bytes at offset %d of column %d: the word form and the byte form differ", n, off, col)
			}
		}
	}
}

// vertexProgram is a minimal VS/CS in Mesa's shape: write setup, read setup
// for n rows, three instructions, reads, one write per row.
func vertexProgram(t *testing.T, gap int, extraRead bool) []uint64 {
	return asm(t, func(a *qpu.Asm) {
		a.I(qpu.LoadImm(qpu.VWSetup, 0x00001a00))
		a.I(qpu.LoadImm(qpu.VRSetup, 0x00201a00)) // 2 rows from Y=0
		for i := 0; i < gap; i++ {
			a.I()
		}
		a.I(qpu.Mov(qpu.R0, qpu.VPM))
		a.I(qpu.Mov(qpu.R1, qpu.VPM))
		if extraRead {
			a.I(qpu.Mov(qpu.R2, qpu.VPM))
		}
		a.I(qpu.FAdd(qpu.VPM, qpu.R0, qpu.R1))
		a.I(qpu.FMul(qpu.VPM, qpu.R0, qpu.R1))
		ending(a)
	})
}

func TestVertexShaderThroughTheVPM(t *testing.T) {
	r := newRig(t)
	in := Segment{0, 2}
	out := Segment{2, 2}
	for x := 0; x < 16; x++ {
		r.vpm.SetWord(in, 0, x, fbits(float32(x)))
		r.vpm.SetWord(in, 1, x, fbits(2))
	}
	r.run(vertexProgram(t, 2, false), strictVertex, &Start{VPM: &r.vpm, VPMRead: in, VPMWrite: out})
	for x := 0; x < 16; x++ {
		if got := r.vpm.Word(out, 0, x); got != fbits(float32(x)+2) {
			t.Errorf("vertex %d word 0 = %#x", x, got)
		}
		if got := r.vpm.Word(out, 1, x); got != fbits(float32(x)*2) {
			t.Errorf("vertex %d word 1 = %#x", x, got)
		}
	}
}

func TestVPMReadRules(t *testing.T) {
	r := newRig(t)
	start := func() *Start { return &Start{VPM: &r.vpm, VPMRead: Segment{0, 2}, VPMWrite: Segment{2, 2}} }

	// Reading one instruction after the setup breaks AG §7's latency,
	// which the hardware tolerates (Mesa's shaders do it on every Pi):
	// the load keeps it as a warning only, even in strict mode, and the
	// read stalls until its data is there.
	p, err := r.load(vertexProgram(t, 0, false), strictVertex)
	if err != nil {
		t.Fatalf("strict load refused a VPM read right after its setup: %v", err)
	}
	if !hasWarning(p.Warnings, "vpm-read-latency") {
		t.Errorf("load warnings %v, want the tolerated vpm-read-latency", p.Warnings)
	}
	r.q.Warnings = nil
	s := start()
	for x := 0; x < 16; x++ {
		r.vpm.SetWord(s.VPMRead, 0, x, fbits(float32(x)))
		r.vpm.SetWord(s.VPMRead, 1, x, fbits(2))
	}
	r.run(vertexProgram(t, 0, false), strictVertex, s)
	if len(r.q.Warnings) != 0 {
		t.Errorf("run warnings %v, want none: the early read stalls", r.q.Warnings)
	}
	for x := 0; x < 16; x++ {
		if got := r.vpm.Word(s.VPMWrite, 0, x); got != fbits(float32(x)+2) {
			t.Errorf("early read: vertex %d word 0 = %#x, want the data read after the stall", x, got)
		}
	}

	// A read beyond the programmed count returns undefined data.
	r.q.Warnings = nil
	r.run(vertexProgram(t, 2, true), permissiveVertex, start())
	if !hasWarning(r.q.Warnings, "VPM read count") {
		t.Errorf("warnings %v, want a VPM read count violation", r.q.Warnings)
	}

	// Reads left over at program end. With a branch in the program the
	// static checker does not count VPM reads; the run does.
	left := asm(t, func(a *qpu.Asm) {
		a.I(qpu.LoadImm(qpu.VRSetup, 0x00201a00))
		a.I(qpu.Mov(qpu.Null, qpu.SmallInt(1)).SetFlags())
		a.I(qpu.Branch(qpu.BranchAllZS, "end")) // never taken
		a.I()
		a.I()
		a.I(qpu.Mov(qpu.R0, qpu.VPM))
		a.Label("end")
		ending(a)
	})
	p = r.mustLoad(left, strictVertex)
	if _, err := r.q.Run(p, nil, start()); err == nil || !strings.Contains(err.Error(), "VPM read count") {
		t.Errorf("strict run leaving a VPM read: %v", err)
	}
	r.q.Warnings = nil
	p = r.mustLoad(left, permissiveVertex)
	if _, err := r.q.Run(p, nil, start()); err != nil {
		t.Fatal(err)
	}
	if !hasWarning(r.q.Warnings, "VPM read count") {
		t.Errorf("warnings %v, want reads left at program end", r.q.Warnings)
	}

	// A second setup while two reads of the first are outstanding is
	// ignored (vc4asm addendum).
	twice := asm(t, func(a *qpu.Asm) {
		a.I(qpu.LoadImm(qpu.VRSetup, 0x00201a00))
		a.I(qpu.LoadImm(qpu.VRSetup, 0x00101a01))
		a.I()
		a.I()
		a.I(qpu.Mov(qpu.R0, qpu.VPM))
		a.I(qpu.Mov(qpu.R1, qpu.VPM))
		ending(a)
	})
	r.q.Warnings = nil
	p = r.mustLoad(twice, permissiveVertex)
	if _, err := r.q.Run(p, nil, start()); err != nil {
		t.Fatal(err)
	}
	if !hasWarning(r.q.Warnings, "VPM read setup") {
		t.Errorf("warnings %v, want an ignored read setup", r.q.Warnings)
	}
}

func hasWarning(ws []Violation, rule string) bool {
	for _, w := range ws {
		if w.Rule == rule {
			return true
		}
	}
	return false
}
