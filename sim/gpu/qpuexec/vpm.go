package qpuexec

import (
	"encoding/binary"
	"fmt"

	"github.com/vccube/vccube/shaders/qpu"
)

// The VPM (vertex pipe memory) as both sides see it (AG §7 "VPM and VCD").
//
// Memory: rows of 16 32-bit words. The VCD writes a batch's vertex
// attributes into it, one column per vertex (AG §7 "Vertex Attribute Format
// in VPM from VCD"); a vertex or coordinate shader reads them and writes the
// shaded vertices back, again one column per vertex; the PSE and PTB read
// those (AG Figures 10-11). Each batch is given a part of the memory, which
// the QPU sees as a window of at most 64 rows addressed from 0 (AG §7 "For
// vertex shading purposes a portion of the VPM is automatically allocated to
// the QPU ... and the addresses of read and write accesses are automatically
// mapped to the correct locations").
//
// The guide says the batch's space holds "the batch of vertex input
// attributes and shaded vertices" (AG §8, GL mode step 2) but not whether
// reads and writes are mapped to the same base. Mesa's shaders read
// attributes from row 0 and write outputs from row 0 (vc4_qpu_emit.c:
// vr_setup and vw_setup both start at Y = 0), which is safe either way
// because they finish reading before they write. We give the QPU two
// segments, one for reads and one for writes, and let the GPU model decide
// where they are: separate segments model a VPM that keeps the inputs
// intact, equal segments model one that shares them.

// VPMRows is the number of rows of VPM memory modelled: 16 KiB, the largest
// VPM the guide allows ("Fully configured systems may have up to 16Kbytes",
// AG §7). The batches of one Run never need more than two 64-row windows.
const VPMRows = 256

// VPMWindowRows is the height of the window the QPU sees, in rows (AG §7
// "a 2D array of 32-bit words, 16 words wide with a maximum height of 64
// words"); Y addresses wrap beyond 63.
const VPMWindowRows = 64

// VPM is the vertex pipe memory. The zero value is an all-zero VPM ready to
// use. A VPM is not safe for concurrent use; give each goroutine that shades
// vertices its own.
type VPM struct {
	rows [VPMRows][16]uint32
}

// Segment is the part of the VPM allocated to one batch: the QPU's Y address
// y (0-63) maps to VPM row (Base + y) mod VPMRows.
type Segment struct {
	Base int // first VPM row, 0..VPMRows-1
	Rows int // rows allocated, 1..64; QPU writes to Y >= Rows are dropped
}

// Check reports whether the segment fits the VPM and the QPU's window.
func (s Segment) Check() error {
	if s.Base < 0 || s.Base >= VPMRows {
		return fmt.Errorf("qpuexec: VPM segment base row %d outside the %d-row VPM", s.Base, VPMRows)
	}
	if s.Rows < 1 || s.Rows > VPMWindowRows {
		return fmt.Errorf("qpuexec: VPM segment of %d rows; a batch window has 1 to %d", s.Rows, VPMWindowRows)
	}
	return nil
}

// row returns the VPM row holding window row y of s. Reads always return
// data, even outside the allocated rows (AG §7: "the data will always be
// returned even if the address falls outside of the window of allocated VPM
// space").
func (v *VPM) row(s Segment, y int) *[16]uint32 {
	return &v.rows[(s.Base+y&(VPMWindowRows-1))%VPMRows]
}

// Row returns window row y (0-63) of segment s: word x of the row is column
// x, that is vertex x of the batch.
func (v *VPM) Row(s Segment, y int) *[16]uint32 { return v.row(s, y) }

// Word returns the word at window row y, column x of segment s: for a
// shaded batch, word y of vertex x's output (AG Figures 10, 11).
func (v *VPM) Word(s Segment, y, x int) uint32 { return v.row(s, y)[x&15] }

// SetWord stores w at window row y, column x of segment s.
func (v *VPM) SetWord(s Segment, y, x int, w uint32) { v.row(s, y)[x&15] = w }

// StoreVertexBytes is the VCD's write of attribute data for one vertex:
// the bytes b go into column vertex (0-15) of segment s, starting at byte
// offset off of the column, where byte k of the column is byte k%4
// (little-endian) of the word in row k/4 (AG §7 "Vertex Attribute Format in
// VPM from VCD"; the VPM offsets of the shader record's attribute records
// count bytes this way, AG Table 45). It refuses data that does not fit the
// segment.
func (v *VPM) StoreVertexBytes(s Segment, vertex, off int, b []byte) error {
	if vertex < 0 || vertex > 15 {
		return fmt.Errorf("qpuexec: VPM column %d: a batch has 16 vertices", vertex)
	}
	if off < 0 || off+len(b) > 4*s.Rows {
		return fmt.Errorf("qpuexec: %d attribute bytes at VPM offset %d overflow the batch's %d rows", len(b), off, s.Rows)
	}
	i := 0
	if off%4 == 0 {
		// Whole words at once: most attributes start on a word (Mesa's
		// VPM offsets are multiples of 4) and are 4, 8, 12 or 16 bytes.
		for ; i+4 <= len(b); i += 4 {
			v.row(s, (off+i)/4)[vertex] = binary.LittleEndian.Uint32(b[i:])
		}
	}
	storeVertexBytes(v, s, vertex, off+i, b[i:])
	return nil
}

// storeVertexBytes is StoreVertexBytes a byte at a time, unchecked: the
// general form, and the bytes the whole words leave.
// TestStoreVertexBytesWordsMatchBytes holds the word form to it.
func storeVertexBytes(v *VPM, s Segment, vertex, off int, b []byte) {
	for i, c := range b {
		k := off + i
		w := &v.row(s, k/4)[vertex]
		sh := uint(k%4) * 8
		*w = *w&^(0xFF<<sh) | uint32(c)<<sh
	}
}

// The SIZE field's values (the register layout is shaders/qpu's VPMSetup,
// the one description of AG Tables 32 and 33).
const (
	vpmSize8  = uint8(qpu.VPMSize8)
	vpmSize16 = uint8(qpu.VPMSize16)
	vpmSize32 = uint8(qpu.VPMSize32)
)

// vpmSetup is a decoded generic block setup, and the access state that
// evolves from it: ADDR advances by the stride after every vector.
type vpmSetup struct {
	addr   uint32 // ADDR, advanced after each vector
	stride uint32 // 1..64
	num    int    // read setups: vectors still to read
	horiz  bool
	laned  bool
	size   uint8
}

// decodeVPMSetup decodes a generic block setup value (written to
// VPMVCD_RD_SETUP or VPMVCD_WR_SETUP from SIMD element 0, AG §7); generic
// is false for the DMA setups (ID != 0, AG Tables 34-37), which the caller
// treats separately. LANED is ignored for 32-bit accesses (AG Table 32).
func decodeVPMSetup(v uint32, read bool) (s vpmSetup, generic bool) {
	d, generic := qpu.DecodeVPMSetup(v, read)
	if !generic {
		return s, false
	}
	s.addr = uint32(d.Addr)
	s.stride = uint32(d.Stride)
	s.horiz = d.Horizontal
	s.size = uint8(d.Size)
	s.laned = d.Laned && d.Size != qpu.VPMSize32
	s.num = d.Num
	return s, true
}

// addrBits is the width of the ADDR field for the access size: {Y[5:0]}
// for 32-bit, {Y[5:0], H} for 16-bit, {Y[5:0], B[1:0]} for 8-bit (AG
// Tables 32, 33); advancing past the top wraps Y beyond 63 to 0 (AG §7).
func (s *vpmSetup) addrMask() uint32 {
	switch s.size {
	case vpmSize32:
		return 0x3F
	case vpmSize16:
		return 0x7F
	}
	return 0xFF
}

func (s *vpmSetup) advance() { s.addr = (s.addr + s.stride) & s.addrMask() }

// vpmLane locates element e of the current vector: its window row, column,
// bit shift in the word and width mask. The mapping is AG Figures 8 and 9
// with the ADDR layouts of Tables 32/33:
//
//	horizontal 32-bit   ADDR = Y          row Y,              column e
//	horizontal 16-bit   ADDR = {Y, H}     laned: row Y, column e, half H
//	                                      packed: row Y, column 8H + e/2, half e%2
//	horizontal 8-bit    ADDR = {Y, B}     laned: row Y, column e, byte B
//	                                      packed: row Y, column 4B + e/4, byte e%4
//	vertical 32-bit     ADDR = {Y[5:4], X}          row Y + e, column X
//	vertical 16-bit     ADDR = {Y[5:4], X, H}       laned: row Y + e, column X, half H
//	                                                packed: row Y + 8H + e/2, column X, half e%2
//	vertical 8-bit      ADDR = {Y[5:4], X, B}       laned: row Y + e, column X, byte B
//	                                                packed: row Y + 4B + e/4, column X, byte e%4
func (s *vpmSetup) lane(e int) (y, x int, shift uint, mask uint32) {
	a := int(s.addr)
	switch s.size {
	case vpmSize32:
		if s.horiz {
			return a & 63, e, 0, 0xFFFFFFFF
		}
		return (a>>4&3)*16 + e, a & 15, 0, 0xFFFFFFFF
	case vpmSize16:
		h := a & 1
		if s.horiz {
			y = a >> 1 & 63
			if s.laned {
				return y, e, uint(16 * h), 0xFFFF
			}
			return y, 8*h + e/2, uint(16 * (e % 2)), 0xFFFF
		}
		x, y = a>>1&15, (a>>5&3)*16
		if s.laned {
			return y + e, x, uint(16 * h), 0xFFFF
		}
		return y + 8*h + e/2, x, uint(16 * (e % 2)), 0xFFFF
	default: // 8-bit (and the reserved size 3, refused when written)
		b := a & 3
		if s.horiz {
			y = a >> 2 & 63
			if s.laned {
				return y, e, uint(8 * b), 0xFF
			}
			return y, 4*b + e/4, uint(8 * (e % 4)), 0xFF
		}
		x, y = a>>2&15, (a>>6&3)*16
		if s.laned {
			return y + e, x, uint(8 * b), 0xFF
		}
		return y + 4*b + e/4, x, uint(8 * (e % 4)), 0xFF
	}
}

// readVector reads the current vector of s from segment seg into out and
// advances s. 8- and 16-bit elements are zero-extended: the guide does not
// say, and zero extension lets the program choose with an unpack or a shift
// (doe300/VC4C src/tools/Emulator.cpp VPM::readValue does the same).
func (v *VPM) readVector(seg Segment, s *vpmSetup, out *[16]uint32) {
	if s.size == vpmSize32 && s.horiz {
		*out = *v.row(seg, int(s.addr&63))
		s.advance()
		return
	}
	for e := 0; e < 16; e++ {
		y, x, sh, m := s.lane(e)
		out[e] = v.row(seg, y)[x] >> sh & m
	}
	s.advance()
}

// writeVector writes in as the current vector of s into segment seg and
// advances s. Elements whose window row is outside the segment's rows are
// dropped (AG §7: "writes to addresses outside of the window of allocated
// VPM space will be masked"). 8- and 16-bit writes change only their byte
// or half-word.
func (v *VPM) writeVector(seg Segment, s *vpmSetup, in *[16]uint32) {
	if s.size == vpmSize32 && s.horiz {
		if y := int(s.addr & 63); y < seg.Rows {
			*v.row(seg, y) = *in
		}
		s.advance()
		return
	}
	for e := 0; e < 16; e++ {
		y, x, sh, m := s.lane(e)
		if y&63 >= seg.Rows {
			continue
		}
		w := &v.row(seg, y)[x]
		*w = *w&^(m<<sh) | (in[e]&m)<<sh
	}
	s.advance()
}
