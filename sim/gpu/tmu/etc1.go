package tmu

import "encoding/binary"

// ETC1 decoding, from the OES_compressed_ETC1_RGB8_texture extension
// specification (Khronos registry), the format vc4's TMU samples as type
// ETC1 ([AG] Table 18; Mesa vc4_formats.c maps ETC1_RGB8 to it). No code
// was taken from any decoder.
//
// A block is 64 bits, most significant byte first. Bits 63–40 hold two
// base colours: in individual mode (bit 33 clear) two 4-bit values per
// channel, R1 R2 G1 G2 B1 B2, each widened by repeating it (c·17); in
// differential mode (bit 33 set) a 5-bit colour R1 G1 B1 each followed by
// a 3-bit two's-complement difference, the second colour being their sum,
// both widened as c<<3 | c>>2 (a sum outside 0–31 is left undefined by
// the spec, which reserves it; the model keeps its low 5 bits, UNCERTAIN). Bits 39–37 and 36–34 choose each sub-block's
// modifier table; bit 32 (flip) splits the block into two 4×2 sub-blocks
// one above the other instead of two 2×4 side by side. Bits 31–16 and
// 15–0 give each texel's index's high and low bit, texel (x, y) at bit
// x·4 + y; index 0, 1, 2, 3 adds a, b, −a, −b of the table to each channel
// of its sub-block's base colour, clamped to 0…255.

// etc1Modifiers is the spec's table of (a, b) per table codeword.
var etc1Modifiers = [8][2]int{
	{2, 8}, {5, 17}, {9, 29}, {13, 42}, {18, 60}, {24, 80}, {33, 106}, {47, 183},
}

// etc1Texel decodes texel (x, y), 0 ≤ x, y < 4, of the 8-byte block b
// into the TMU's returned word: R, G, B in bytes 0–2 and 255 in byte 3.
// y counts rows as the block's data orders them, which is how the TMU
// reads them with P1's ETCFLIP set.
func etc1Texel(b []byte, x, y int) uint32 {
	w := binary.BigEndian.Uint64(b)
	flip := w>>32&1 != 0
	second := x >= 2
	if flip {
		second = y >= 2
	}
	var base [3]int
	for c := range 3 {
		shift := 56 - 8*c // the channel's byte: bits 63–56, 55–48, 47–40
		v := int(w >> shift & 0xFF)
		if w>>33&1 == 0 { // individual: two 4-bit colours
			n := v >> 4
			if second {
				n = v & 0xF
			}
			base[c] = n * 17
		} else { // differential: 5-bit colour and 3-bit difference
			n := v >> 3
			if second {
				d := v & 7
				if d >= 4 {
					d -= 8
				}
				n = (n + d) & 31
			}
			base[c] = n<<3 | n>>2
		}
	}
	cw := w >> 37 & 7
	if second {
		cw = w >> 34 & 7
	}
	k := uint(x*4 + y)
	idx := (w>>(16+k)&1)<<1 | w>>k&1
	m := etc1Modifiers[cw][idx&1]
	if idx >= 2 {
		m = -m
	}
	out := uint32(0xFF) << 24
	for c := range 3 {
		out |= uint32(min(255, max(0, base[c]+m))) << (8 * c)
	}
	return out
}
