package cl

// Sizes in bytes that enum values of the packet table stand for.

// Bytes returns the size of a tile-allocation block in bytes: 32 << v,
// that is 32, 64, 128 or 256 (AG Table 38 id 112 "Tile Allocation Block
// Size (32,64,128,256 bytes)"; vc4_packet.h
// VC4_BIN_CONFIG_ALLOC_BLOCK_SIZE_32..256 = 0..3). The field is two bits
// wide; bits above them are ignored, as the packet has no room for them.
func (v BlockSize) Bytes() uint32 { return 32 << (v & 3) }

// Bytes returns the size of one index of GL_INDEXED_PRIMITIVE: 1 for
// IndexType8Bit, 2 for IndexType16Bit (AG Table 38 id 32; vc4_packet.h
// VC4_INDEX_BUFFER_U8/U16), and 0 for the reserved values, which have no
// size.
func (v IndexType) Bytes() int {
	switch v {
	case IndexType8Bit:
		return 1
	case IndexType16Bit:
		return 2
	}
	return 0
}
