package qpu

import "fmt"

// VPMSize is the SIZE field of a VPM generic block setup (AG Tables 32 and
// 33, bits 9:8): the width of each element access.
type VPMSize uint8

// The SIZE values; 3 is reserved.
const (
	VPMSize8  VPMSize = 0
	VPMSize16 VPMSize = 1
	VPMSize32 VPMSize = 2
)

// String names the size: "8-bit", "16-bit", "32-bit" or "reserved".
func (s VPMSize) String() string {
	switch s {
	case VPMSize8:
		return "8-bit"
	case VPMSize16:
		return "16-bit"
	case VPMSize32:
		return "32-bit"
	}
	return "reserved"
}

// VPMSetup is a VPM generic block read or write setup: the value a shader
// writes to VPMVCD_RD_SETUP (waddr 49 through register file A) or
// VPMVCD_WR_SETUP (waddr 49 through file B). It is the one description of
// the register layout, from the reference guide's Table 33 "VPM Generic
// Block Read Setup Format" and Table 32 "VPM Generic Block Write Setup
// Format" (doc/hardware.md#vpm):
//
//	31:30  ID        0 selects the generic block setup (1-3: DMA setups, Tables 34-37)
//	23:20  NUM       read setups only: vectors to read, 0 means 16
//	17:12  STRIDE    added to ADDR after each vector, 0 means 64
//	11     HORIZ     1 horizontal, 0 vertical
//	10     LANED     1 laned, 0 packed (ignored for 32-bit)
//	9:8    SIZE      0 8-bit, 1 16-bit, 2 32-bit
//	7:0    ADDR      Y (32-bit), {Y,H} (16-bit) or {Y,B} (8-bit); vertical: {Y[5:4],X,...}
//
// Mesa writes 0x00001a00 (horizontal 32-bit, stride 1, row 0) as the write
// setup and that plus NUM << 20 as the read setup (vc4_qpu_emit.c).
type VPMSetup struct {
	Num        int // read setups: 1..16 vectors (16 encodes as 0)
	Stride     int // 1..64 (64 encodes as 0)
	Horizontal bool
	Laned      bool
	Size       VPMSize
	Addr       uint8
}

// Field positions of the generic block setup (AG Tables 32, 33).
const (
	vpmIDShift     = 30
	vpmNumShift    = 20
	vpmNumMask     = 0xF
	vpmStrideShift = 12
	vpmStrideMask  = 0x3F
	vpmHorizBit    = 1 << 11
	vpmLanedBit    = 1 << 10
	vpmSizeShift   = 8
	vpmSizeMask    = 3
	vpmAddrMask    = 0xFF
)

// HorizontalVPM32 returns the setup Mesa's VS and CS use: horizontal 32-bit
// vectors starting at row, stride 1, and (for a read setup) n vectors.
func HorizontalVPM32(row uint8, n int) VPMSetup {
	return VPMSetup{Num: n, Stride: 1, Horizontal: true, Size: VPMSize32, Addr: row}
}

// EncodeRead returns the VPMVCD_RD_SETUP value, or an error if a field is
// out of range.
func (s VPMSetup) EncodeRead() (uint32, error) {
	if s.Num < 1 || s.Num > 16 {
		return 0, fmt.Errorf("qpu: VPM read setup NUM %d outside 1..16", s.Num)
	}
	v, err := s.encode()
	if err != nil {
		return 0, err
	}
	return v | uint32(s.Num&vpmNumMask)<<vpmNumShift, nil
}

// EncodeWrite returns the VPMVCD_WR_SETUP value (NUM is not part of it).
func (s VPMSetup) EncodeWrite() (uint32, error) { return s.encode() }

func (s VPMSetup) encode() (uint32, error) {
	if s.Stride < 1 || s.Stride > 64 {
		return 0, fmt.Errorf("qpu: VPM setup STRIDE %d outside 1..64", s.Stride)
	}
	if s.Size > VPMSize32 {
		return 0, fmt.Errorf("qpu: VPM setup SIZE %d is reserved", s.Size)
	}
	v := uint32(s.Stride&vpmStrideMask)<<vpmStrideShift |
		uint32(s.Size)<<vpmSizeShift | uint32(s.Addr)
	if s.Horizontal {
		v |= vpmHorizBit
	}
	if s.Laned {
		v |= vpmLanedBit
	}
	return v, nil
}

// DecodeVPMSetup decodes a setup register value. generic is false when ID
// (bits 31:30) selects one of the DMA setups instead (AG Tables 34-37). For
// a write setup (read false) NUM is left 0 and bits 29:18 are ignored.
func DecodeVPMSetup(v uint32, read bool) (s VPMSetup, generic bool) {
	if v>>vpmIDShift != 0 {
		return s, false
	}
	s.Addr = uint8(v & vpmAddrMask)
	s.Stride = int(v >> vpmStrideShift & vpmStrideMask)
	if s.Stride == 0 {
		s.Stride = 64
	}
	s.Horizontal = v&vpmHorizBit != 0
	s.Laned = v&vpmLanedBit != 0
	s.Size = VPMSize(v >> vpmSizeShift & vpmSizeMask)
	if read {
		s.Num = int(v >> vpmNumShift & vpmNumMask)
		if s.Num == 0 {
			s.Num = 16
		}
	}
	return s, true
}

// String describes the setup as a disassembly comment does, e.g.
// "horizontal 32-bit packed addr 0x00 stride 1 num 3".
func (s VPMSetup) String() string {
	dir := "vertical"
	if s.Horizontal {
		dir = "horizontal"
	}
	pack := "packed"
	if s.Laned {
		pack = "laned"
	}
	str := fmt.Sprintf("%s %s %s addr %#02x stride %d", dir, s.Size, pack, s.Addr, s.Stride)
	if s.Num != 0 {
		str += fmt.Sprintf(" num %d", s.Num)
	}
	return str
}
