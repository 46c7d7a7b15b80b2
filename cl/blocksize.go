package cl

// Bytes returns the size of a tile-allocation block in bytes: 32 << v,
// that is 32, 64, 128 or 256 (AG Table 38 id 112 "Tile Allocation Block
// Size (32,64,128,256 bytes)"; vc4_packet.h
// VC4_BIN_CONFIG_ALLOC_BLOCK_SIZE_32..256 = 0..3). The field is two bits
// wide; bits above them are ignored, as the packet has no room for them.
func (v BlockSize) Bytes() uint32 { return 32 << (v & 3) }
