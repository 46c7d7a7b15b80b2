package texture

import "fmt"

// Layout is where each pixel of one image level lives in memory: its
// format (linear, T or LT), bytes per pixel (1, 2, 4 or 8) and size.
//
// Coordinates are in memory order as the GPU sees them: (0, 0) is the first
// pixel in memory, which the hardware treats as the bottom-left of the image
// ([AG] §11), x grows to the right and y grows with memory rows ("up" for
// the GPU). Offset gives a single pixel's address; package texture/convert
// converts whole pictures.
//
// A Layout is a plain value (about a hundred bytes, no pointers) and never
// allocates. Offset, the per-pixel method, has a pointer receiver so that
// a call does not copy it; the other methods take it by value.
type Layout struct {
	tiling           Tiling
	cpp              int
	width, height    int
	alignedW         int
	alignedH         int
	stride           int  // Linear: bytes per row. LT: bytes per row of utiles. T: bytes per row of tiles.
	utilesPerRow     int  // LT and T: aligned width in utiles
	tilesPerRow      int  // T: aligned width in 4 KiB tiles
	uwShift, uhShift uint // log2 of the utile width and height
	cppShift         uint // log2 of cpp
	size             int
}

// NewLayout describes a width×height image of cpp bytes per pixel in the
// given format, padded as Linux vc4_validate.c vc4_check_tex_size() and Mesa
// vc4_setup_slices() pad it (see AlignedSize). A linear layout gets the
// kernel's stride, the width rounded up to a whole utile; use
// NewLinearLayout for another stride.
//
// cpp must be 1, 2, 4 or 8 (the sub-byte types have no byte layout here;
// see Type.Storage) and width and height 1 to MaxSurfaceSize (the kernel's
// limit for any surface; textures stop at MaxSize).
func NewLayout(tiling Tiling, cpp, width, height int) (Layout, error) {
	if err := checkLayoutArgs(cpp, width, height); err != nil {
		return Layout{}, err
	}
	aw, ah, ok := AlignedSize(tiling, width, height, cpp)
	if !ok {
		return Layout{}, fmt.Errorf("texture: unknown memory format %v: use Linear, TFormat or LTFormat", tiling)
	}
	l := Layout{
		tiling: tiling, cpp: cpp, width: width, height: height,
		alignedW: aw, alignedH: ah,
		uwShift: log2(UtileWidth(cpp)), uhShift: log2(UtileHeight(cpp)),
		cppShift: log2(cpp),
	}
	switch tiling {
	case Linear:
		l.stride = aw * cpp
	case LTFormat:
		l.utilesPerRow = aw >> l.uwShift
		l.stride = l.utilesPerRow * UtileBytes
	case TFormat:
		l.utilesPerRow = aw >> l.uwShift
		l.tilesPerRow = l.utilesPerRow / 8
		l.stride = l.tilesPerRow * TileBytes
	}
	l.size = aw * ah * cpp
	return l, nil
}

// NewLinearLayout describes a width×height raster image of cpp bytes per
// pixel whose rows start stride bytes apart; stride must hold a row. It
// exists for raster textures read with another stride than the kernel's:
// [AG] Appendix A erratum HW-2898 says the TMU's address calculation for
// raster textures assumes power-of-two widths, so a non-power-of-two
// RGBA32R texture must be padded to nextpow2(width)*cpp per row to sample
// correctly on BCM2835.
func NewLinearLayout(cpp, width, height, stride int) (Layout, error) {
	l, err := NewLayout(Linear, cpp, width, height)
	if err != nil {
		return Layout{}, err
	}
	if stride < width*cpp {
		return Layout{}, fmt.Errorf("texture: stride %d bytes is less than a row of %d pixels × %d bytes", stride, width, cpp)
	}
	size, ok := mulInt(stride, height)
	if !ok {
		return Layout{}, fmt.Errorf("texture: %d rows of stride %d bytes are more bytes than memory can hold", height, stride)
	}
	l.stride = stride
	l.size = size
	return l, nil
}

func checkLayoutArgs(cpp, width, height int) error {
	switch cpp {
	case 1, 2, 4, 8:
	default:
		return fmt.Errorf("texture: %d bytes per pixel has no T, LT or raster layout: use 1, 2, 4 or 8", cpp)
	}
	if width < 1 || height < 1 || width > MaxSurfaceSize || height > MaxSurfaceSize {
		return fmt.Errorf("texture: image size %d×%d is outside 1×1 to %d×%d", width, height, MaxSurfaceSize, MaxSurfaceSize)
	}
	return nil
}

// Tiling returns the layout's memory format.
func (l Layout) Tiling() Tiling { return l.tiling }

// Cpp returns the bytes per pixel.
func (l Layout) Cpp() int { return l.cpp }

// Width returns the image width in pixels.
func (l Layout) Width() int { return l.width }

// Height returns the image height in pixels.
func (l Layout) Height() int { return l.height }

// AlignedWidth returns the padded width in pixels (see AlignedSize).
func (l Layout) AlignedWidth() int { return l.alignedW }

// AlignedHeight returns the padded height in pixels (see AlignedSize).
func (l Layout) AlignedHeight() int { return l.alignedH }

// Stride returns the bytes between two rows of a linear layout, between two
// rows of utiles of an LT layout, or between two rows of 4 KiB tiles of a T
// layout.
func (l Layout) Stride() int { return l.stride }

// Size returns the bytes the image occupies, padding included: aligned
// width × cpp × aligned height, the size vc4_check_tex_size() checks (or
// stride × height for a linear layout with its own stride).
func (l Layout) Size() int { return l.size }

// String describes the layout, e.g. "T 256×256 cpp 4 (256×256, 262144 bytes)".
func (l Layout) String() string {
	return fmt.Sprintf("%v %d×%d cpp %d (%d×%d, %d bytes)", l.tiling, l.width, l.height, l.cpp, l.alignedW, l.alignedH, l.size)
}

// tSubtileOrder gives the position in memory (0–3, in 1 KiB steps) of the
// sub-tile at column sx and row sy of a 4 KiB tile, indexed by the tile
// row's parity and 2*sy+sx. Even tile rows store the sub-tiles bottom-left,
// top-left, top-right, bottom-right; odd rows top-right, bottom-right,
// bottom-left, top-left, "bottom" being the smaller y (Mesa vc4_tiling.c
// file comment and t_utile_address(); [AG] §11 Figure 14; the post "vc4:
// T-format Textures": "s00 s10 s11 s01" and "s11 s01 s00 s10"; igt
// lib/igt_vc4.c uses the same
// {0,3,1,2} and {2,1,3,0}).
var tSubtileOrder = [2][4]int{
	{0, 3, 1, 2},
	{2, 1, 3, 0},
}

// UtileOffset returns the byte offset of the utile at utile column ux and
// utile row uy of a T or LT layout.
func (l *Layout) UtileOffset(ux, uy int) int {
	if l.tiling == LTFormat {
		// LT: utiles in raster order ([AG] §11 "Linear-tile Format"; Mesa
		// vc4_tiling_lt.c).
		return (uy*l.utilesPerRow + ux) * UtileBytes
	}
	// T ([AG] §11; Mesa vc4_tiling.c t_utile_address()): a tile is 8×8
	// utiles; odd tile rows run right to left.
	tx, ty := ux>>3, uy>>3
	if ty&1 != 0 {
		tx = l.tilesPerRow - 1 - tx
	}
	sub := tSubtileOrder[ty&1][(uy>>1)&2|(ux>>2)&1]
	return ty*l.stride + tx*TileBytes + sub*SubtileBytes + ((uy&3)<<2|ux&3)*UtileBytes
}

// Offset returns the byte offset of pixel (x, y) from the start of the
// image, for 0 ≤ x < AlignedWidth and 0 ≤ y < AlignedHeight (the padding
// has addresses too), and -1 outside that range. y counts rows in memory
// order: row 0 is the first row in memory, the bottom row for the GPU.
//
// Inside a utile pixels are in raster order ([AG] §11 "in simple raster
// order"), so pixel (x, y) is at ((y mod uh)·uw + (x mod uw))·cpp within
// its utile.
//
// The receiver is a pointer because Offset is called per pixel (the
// simulated display's scanout, the clear-only GPU, the utile tables of
// the TMU and TLB): passing the Layout by value copied it on every call,
// and a T-format lookup cost about 10 ns instead of about 6 ns
// (BenchmarkOffset, best of five runs each on the build machine).
func (l *Layout) Offset(x, y int) int {
	if x < 0 || y < 0 || x >= l.alignedW || y >= l.alignedH {
		return -1
	}
	if l.tiling == Linear {
		return y*l.stride + x<<l.cppShift
	}
	uw, uh := 1<<l.uwShift, 1<<l.uhShift
	inUtile := ((y&(uh-1))<<l.uwShift | x&(uw-1)) << l.cppShift
	return l.UtileOffset(x>>l.uwShift, y>>l.uhShift) + inUtile
}
