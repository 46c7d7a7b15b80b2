package texture

import "fmt"

// Type is a texture data type: the 5-bit TYPE value split across texture
// config parameters 0 (bits 3:0) and 1 (bit 4) ([AG] Table 18; Linux and
// Mesa vc4_packet.h enum vc4_texture_data_type).
type Type uint8

// The texture data types, numbered as in [AG] Table 18.
const (
	RGBA8888  Type = 0  // 32 bpp, 8 bits per channel R, G, B, A
	RGBX8888  Type = 1  // 32 bpp, alpha read as 1.0
	RGBA4444  Type = 2  // 16 bpp, 4 bits per channel
	RGBA5551  Type = 3  // 16 bpp, 5 bits per colour, 1-bit alpha
	RGB565    Type = 4  // 16 bpp, alpha read as 1.0
	LUMINANCE Type = 5  // 8 bpp luminance, alpha 1.0
	ALPHA     Type = 6  // 8 bpp alpha, colour 0
	LUMALPHA  Type = 7  // 16 bpp: 8-bit luminance, 8-bit alpha
	ETC1      Type = 8  // 4 bpp Ericsson Texture Compression, 64-bit blocks of 4×4 pixels
	S16F      Type = 9  // 16-bit float sample (blending supported)
	S8        Type = 10 // 8-bit integer sample (blending supported)
	S16       Type = 11 // 16-bit integer sample (point sampling only)
	BW1       Type = 12 // 1 bpp black and white
	A4        Type = 13 // 4 bpp alpha
	A1        Type = 14 // 1 bpp alpha
	RGBA64    Type = 15 // 64 bpp, 16-bit float per channel
	RGBA32R   Type = 16 // 32 bpp RGBA8888 in raster (linear) order
	YUYV422R  Type = 17 // 32 bpp Y, U, Y, V in raster order
)

// typeInfo is the one description of a texture type; every Type method
// reads it.
type typeInfo struct {
	name string
	// bpp is bits per pixel from [AG] Table 18.
	bpp int
	// raster marks the two raster-order types ([AG] Table 18; reloc_tex()
	// treats RGBA32R as VC4_TILING_FORMAT_LINEAR).
	raster bool
	// fields lists the widths of the unsigned normalized channel fields of a
	// pixel from bit 0 up (ChannelBits); empty when the samples are not
	// such fields or the layout of the fields is unknown.
	fields []uint8
}

var typeTable = [...]typeInfo{
	RGBA8888: {"RGBA8888", 32, false, []uint8{8, 8, 8, 8}},
	RGBX8888: {"RGBX8888", 32, false, []uint8{8, 8, 8, 8}},
	RGBA4444: {"RGBA4444", 16, false, []uint8{4, 4, 4, 4}},
	// Mesa vc4_formats.c maps PIPE_FORMAT_A1B5G5R5_UNORM (alpha in bit 0)
	// and B5G6R5_UNORM (blue in bits 4:0) to these two types.
	RGBA5551:  {"RGBA5551", 16, false, []uint8{1, 5, 5, 5}},
	RGB565:    {"RGB565", 16, false, []uint8{5, 6, 5}},
	LUMINANCE: {"LUMINANCE", 8, false, []uint8{8}},
	ALPHA:     {"ALPHA", 8, false, []uint8{8}},
	LUMALPHA:  {"LUMALPHA", 16, false, []uint8{8, 8}},
	ETC1:      {"ETC1", 4, false, nil},
	S16F:      {"S16F", 16, false, nil},
	S8:        {"S8", 8, false, nil}, // signedness undocumented: no box filter
	S16:       {"S16", 16, false, nil},
	BW1:       {"BW1", 1, false, nil},
	A4:        {"A4", 4, false, nil},
	A1:        {"A1", 1, false, nil},
	RGBA64:    {"RGBA64", 64, false, nil},
	RGBA32R:   {"RGBA32R", 32, true, []uint8{8, 8, 8, 8}},
	YUYV422R:  {"YUYV422R", 32, true, nil},
}

func (t Type) info() (typeInfo, bool) {
	if int(t) < len(typeTable) {
		return typeTable[t], true
	}
	return typeInfo{}, false
}

// Valid reports whether t is one of the 18 types of [AG] Table 18.
func (t Type) Valid() bool { return int(t) < len(typeTable) }

// String returns the name [AG] Table 18 gives the type.
func (t Type) String() string {
	if i, ok := t.info(); ok {
		return i.name
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// BitsPerPixel returns the bits per pixel of [AG] Table 18 (4 for ETC1),
// or 0 for an invalid type.
func (t Type) BitsPerPixel() int {
	i, _ := t.info()
	return i.bpp
}

// Raster reports whether the type is stored in raster (linear) order rather
// than T or LT format: RGBA32R and YUYV422R ([AG] Table 18).
func (t Type) Raster() bool {
	i, _ := t.info()
	return i.raster
}

// ChannelBits returns the widths of the unsigned normalized channel fields
// of a pixel of the type, from bit 0 up (8, 8, 8, 8 for RGBA8888; 5, 6, 5
// for RGB565), or nil when the type's samples are not such fields (ETC1,
// the signed and float types, the sub-byte and YUV types) or their layout is
// unknown. The slice is the type table's; do not modify it.
func (t Type) ChannelBits() []uint8 {
	i, _ := t.info()
	return i.fields
}

// Storage returns how the hardware stores a width×height level of this
// type, in the units the layouts of this package work in: bytes per element
// and the element grid. Elements are pixels, except that ETC1 is stored as
// 64-bit blocks of 4×4 pixels ([AG] §11 "Compressed ETC1 textures are
// organized as a 2 × 4 block of 64-bit blocks", i.e. the 64-bpp utile
// shape). ok is false for the sub-byte types BW1, A4 and A1: their utile
// shapes are known (UtileSize) but the order of pixels inside a byte is not
// documented, and the kernel refuses them, so this package has no byte
// layout for them.
func (t Type) Storage(width, height int) (cpp, gridW, gridH int, ok bool) {
	i, valid := t.info()
	switch {
	case !valid:
		return 0, 0, 0, false
	case t == ETC1:
		return 8, (width + 3) >> 2, (height + 3) >> 2, true
	case i.bpp < 8:
		return 0, 0, 0, false
	}
	return i.bpp / 8, width, height, true
}

// Tiling returns the memory format in which the TMU expects a
// width×height level of this type: Linear for the raster types, otherwise
// LT or T by SizeIsLT on the type's element grid (Linux vc4_validate.c
// reloc_tex(); Mesa vc4_resource.c vc4_setup_slices()). ok is false where
// Storage is.
func (t Type) Tiling(width, height int) (tiling Tiling, ok bool) {
	cpp, gw, gh, ok := t.Storage(width, height)
	if !ok {
		return 0, false
	}
	if t.Raster() {
		return Linear, true
	}
	if SizeIsLT(gw, gh, cpp) {
		return LTFormat, true
	}
	return TFormat, true
}
