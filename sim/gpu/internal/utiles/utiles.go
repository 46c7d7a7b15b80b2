// Package utiles tabulates where the utiles of a T- or LT-format image lie
// in memory, for the units that touch such images pixel by pixel: the
// TMU's texel fetches and the TLB's loads and stores.
//
// Package texture is the one description of the formats; a Table is
// texture.Layout.Offset evaluated once per utile (64 bytes, pixels in
// raster order inside, [AG] §11), so that a fetch costs one table load
// instead of the T-format address arithmetic and a non-inlined call per
// pixel (BenchmarkOffset compares the two).
package utiles

import (
	"sync"

	"github.com/vccube/vccube/texture"
)

// Table is a T or LT layout tabulated by utile.
type Table struct {
	// PerRow is the number of utiles in a row of the aligned image.
	PerRow int
	// Off[uy·PerRow + ux] is the byte offset of utile (ux, uy) from the
	// image's start, as texture.Layout.Offset gives it for the utile's
	// first pixel.
	Off []int32
	// WShift and HShift are log2 of the utile's width and height in
	// pixels, CppShift log2 of the bytes per pixel.
	WShift, HShift, CppShift uint
}

// Offset returns the byte offset of pixel (x, y) of the aligned image (0 ≤
// x < AlignedWidth, 0 ≤ y < AlignedHeight; not checked): what
// texture.Layout.Offset returns there.
func (t *Table) Offset(x, y int) int {
	in := (y&(1<<t.HShift-1))<<t.WShift | x&(1<<t.WShift-1)
	return int(t.Off[(y>>t.HShift)*t.PerRow+x>>t.WShift]) + in<<t.CppShift
}

// Utile returns the byte offset of the utile holding pixel (x, y).
func (t *Table) Utile(x, y int) int {
	return int(t.Off[(y>>t.HShift)*t.PerRow+x>>t.WShift])
}

// key is what decides where a T or LT layout's utiles lie: the format,
// the bytes per pixel and the padded size. Not the picture's size: a mip
// level's picture is smaller than the power-of-two container that decides
// its padding (texture.MipPlan), so equal pictures can lie differently.
type key struct {
	tiling                  texture.Tiling
	cpp, alignedW, alignedH int
}

// maxTables bounds the cache: a program renders and samples a few sizes;
// when more are seen the cache starts again (tables in use stay valid).
const maxTables = 32

var cache struct {
	sync.Mutex
	m map[key]*Table
}

// For returns the table of a T or LT layout (nil for a linear one), from a
// cache shared by every unit: tables depend only on the layout and are
// never written once built.
func For(l texture.Layout) *Table {
	if l.Tiling() == texture.Linear {
		return nil
	}
	k := key{l.Tiling(), l.Cpp(), l.AlignedWidth(), l.AlignedHeight()}
	cache.Lock()
	defer cache.Unlock()
	if t := cache.m[k]; t != nil {
		return t
	}
	if cache.m == nil || len(cache.m) >= maxTables {
		cache.m = map[key]*Table{}
	}
	t := build(l)
	cache.m[k] = t
	return t
}

func build(l texture.Layout) *Table {
	uw, uh := texture.UtileWidth(l.Cpp()), texture.UtileHeight(l.Cpp())
	t := &Table{PerRow: l.AlignedWidth() / uw, WShift: log2(uw), HShift: log2(uh), CppShift: log2(l.Cpp())}
	rows := l.AlignedHeight() / uh
	t.Off = make([]int32, t.PerRow*rows)
	for uy := 0; uy < rows; uy++ {
		for ux := 0; ux < t.PerRow; ux++ {
			t.Off[uy*t.PerRow+ux] = int32(l.Offset(ux*uw, uy*uh))
		}
	}
	return t
}

func log2(n int) uint {
	s := uint(0)
	for 1<<s < n {
		s++
	}
	return s
}
