package convert

import (
	"encoding/binary"
	"fmt"

	"github.com/vccube/vccube/texture"
)

// layout is what the converters need of a texture.Layout, taken once per
// call from its accessors: the converters are client code and read the
// layout description only through its exported API.
type layout struct {
	l                *texture.Layout
	tiling           texture.Tiling
	cpp              int
	width, height    int
	alignedW         int
	alignedH         int
	stride           int
	size             int
	utilesPerRow     int
	uwShift, uhShift uint
}

func newLayout(l *texture.Layout) layout {
	uw, uh := texture.UtileWidth(l.Cpp()), texture.UtileHeight(l.Cpp())
	return layout{
		l: l, tiling: l.Tiling(), cpp: l.Cpp(), width: l.Width(), height: l.Height(),
		alignedW: l.AlignedWidth(), alignedH: l.AlignedHeight(), stride: l.Stride(), size: l.Size(),
		utilesPerRow: l.AlignedWidth() / uw, uwShift: log2(uw), uhShift: log2(uh),
	}
}

// utileOffset is the layout's texture.Layout.UtileOffset.
func (l *layout) utileOffset(ux, uy int) int { return l.l.UtileOffset(ux, uy) }

// log2 returns the base-2 logarithm of a power of two.
func log2(n int) uint {
	var s uint
	for 1<<s < n {
		s++
	}
	return s
}

// FromLinear converts a linear picture into layout l, writing Size()
// bytes at the start of dst (for upload: linear → T, LT or raster). The
// padding is zeroed, so the result depends only on the picture. The picture
// must have the layout's width, height and cpp.
//
// flipRows chooses the row order. With flipRows false, picture row r
// becomes memory row r, which the GPU takes as row r from the bottom.
// With flipRows true, picture row r becomes memory row Height-1-r: for a
// top-down picture this is "alternative 1" of the post "vc4: T-format
// Textures" ("flip the linear image ... and then convert", FLIPY off). See
// FlipMode.
//
// FromLinear does not allocate.
func FromLinear(tl texture.Layout, dst []byte, src texture.Picture, flipRows bool) error {
	l := newLayout(&tl)
	if err := l.checkPicture(src); err != nil {
		return err
	}
	if len(dst) < l.size {
		return fmt.Errorf("texture: destination holds %d bytes; %v needs %d", len(dst), tl, l.size)
	}
	dst = dst[:l.size]
	if l.tiling == texture.Linear {
		l.linearRows(dst, src, flipRows, true)
		return nil
	}
	l.utiles(dst, src, flipRows, true)
	return nil
}

// ToLinear converts an image stored in layout l back into a linear
// picture (for capture and tests: T, LT or raster → linear). It reads
// Size() bytes from src and writes only the picture's pixels; padding is
// ignored. flipRows means what it means for FromLinear, so
// ToLinear(FromLinear(p, f), f) gives p back.
//
// ToLinear does not allocate.
func ToLinear(tl texture.Layout, dst texture.Picture, src []byte, flipRows bool) error {
	l := newLayout(&tl)
	if err := l.checkPicture(dst); err != nil {
		return err
	}
	if len(src) < l.size {
		return fmt.Errorf("texture: source holds %d bytes; %v needs %d", len(src), tl, l.size)
	}
	src = src[:l.size]
	if l.tiling == texture.Linear {
		l.linearRows(src, dst, flipRows, false)
		return nil
	}
	l.utiles(src, dst, flipRows, false)
	return nil
}

func (l *layout) checkPicture(p texture.Picture) error {
	if err := p.Check(); err != nil {
		return err
	}
	if p.Width != l.width || p.Height != l.height || p.Cpp != l.cpp {
		return fmt.Errorf("texture: picture is %d×%d with %d bytes per pixel; the layout %v wants %d×%d with %d",
			p.Width, p.Height, p.Cpp, *l.l, l.width, l.height, l.cpp)
	}
	return nil
}

// pictureRow returns the picture row that holds memory row y.
func (l *layout) pictureRow(y int, flipRows bool) int {
	if flipRows {
		return l.height - 1 - y
	}
	return y
}

// linearRows copies rows between a linear layout (mem) and a picture; toMem
// gives the direction. Going to memory it zeroes the padding at the end of
// each row.
func (l *layout) linearRows(mem []byte, p texture.Picture, flipRows, toMem bool) {
	row := l.width * l.cpp
	for y := 0; y < l.height; y++ {
		m := mem[y*l.stride : y*l.stride+l.stride]
		pr := l.pictureRow(y, flipRows)
		q := p.Pix[pr*p.Stride : pr*p.Stride+row]
		if toMem {
			copy(m, q)
			clear(m[row:])
		} else {
			copy(q, m[:row])
		}
	}
}

// utiles converts between a T or LT layout (mem) and a picture; toMem
// gives the direction.
//
// A T layout goes one 1 KiB sub-tile at a time: a sub-tile wholly inside
// the picture takes the fast path (moveSubtile16 or moveSubtile8). LT layouts (small levels
// only) and the sub-tiles on the right and top edges go one utile at a
// time.
func (l *layout) utiles(mem []byte, p texture.Picture, flipRows, toMem bool) {
	uw, uh := 1<<l.uwShift, 1<<l.uhShift
	if l.tiling == texture.LTFormat {
		for uy := 0; uy < l.alignedH>>l.uhShift; uy++ {
			for ux := 0; ux < l.utilesPerRow; ux++ {
				l.utile(mem, p, ux, uy, flipRows, toMem)
			}
		}
		return
	}
	sw, sh := 4*uw, 4*uh // a sub-tile in pixels
	fullX, fullY := l.width/sw, l.height/sh
	for sy := 0; sy < l.alignedH/sh; sy++ {
		first := l.pictureRow(sy*sh, flipRows)
		step := p.Stride
		if flipRows {
			step = -step
		}
		for sx := 0; sx < l.alignedW/sw; sx++ {
			if sx >= fullX || sy >= fullY {
				for i := 0; i < 16; i++ {
					l.utile(mem, p, sx*4+(i&3), sy*4+(i>>2), flipRows, toMem)
				}
				continue
			}
			base := l.utileOffset(sx*4, sy*4)
			sub := mem[base : base+texture.SubtileBytes]
			q := first*p.Stride + sx*sw*l.cpp
			if uh == 4 {
				moveSubtile16(sub, p.Pix, q, step, toMem)
			} else {
				moveSubtile8(sub, p.Pix, q, step, toMem)
			}
		}
	}
	storeFence()
}

// moveSubtile16Go moves a sub-tile of 16-byte utile rows (cpp 2, 4 and 8:
// utiles 4 rows high, so a sub-tile is 16 picture rows of 64 bytes) between
// sub and the picture bytes pix, whose rows start at q, q+step, ....
// Picture row i of the sub-tile is row i%4 of utiles (0..3, i/4), which
// sit at (i/4)*256 + ux*64 + (i%4)*16 in the sub-tile (utiles in raster
// order, pixels in raster order inside a utile).
// It is the reference for the SSE2 version on amd64 (subtile_amd64.s).
func moveSubtile16Go(sub, pix []byte, q, step int, toMem bool) {
	_ = sub[texture.SubtileBytes-1]
	for i := 0; i < 16; i++ {
		s := pix[q : q+64 : q+64]
		o := (i>>2)*256 + (i&3)*16
		d := sub[o : o+208 : o+208] // four 16-byte rows at +0, +64, +128, +192
		if toMem {
			move64(d[0:], s[0:])
			move64(d[8:], s[8:])
			move64(d[64:], s[16:])
			move64(d[72:], s[24:])
			move64(d[128:], s[32:])
			move64(d[136:], s[40:])
			move64(d[192:], s[48:])
			move64(d[200:], s[56:])
		} else {
			move64(s[0:], d[0:])
			move64(s[8:], d[8:])
			move64(s[16:], d[64:])
			move64(s[24:], d[72:])
			move64(s[32:], d[128:])
			move64(s[40:], d[136:])
			move64(s[48:], d[192:])
			move64(s[56:], d[200:])
		}
		q += step
	}
}

// moveSubtile8 is moveSubtile16 for cpp 1: 8×8-pixel utiles of 8-byte rows,
// so a sub-tile is 32 picture rows of 32 bytes, and picture row i is row
// i%8 of utiles (0..3, i/8), at (i/8)*256 + ux*64 + (i%8)*8.
func moveSubtile8(sub, pix []byte, q, step int, toMem bool) {
	_ = sub[texture.SubtileBytes-1]
	for i := 0; i < 32; i++ {
		s := pix[q : q+32 : q+32]
		o := (i>>3)*256 + (i&7)*8
		d := sub[o : o+200 : o+200] // four 8-byte rows at +0, +64, +128, +192
		if toMem {
			move64(d[0:], s[0:])
			move64(d[64:], s[8:])
			move64(d[128:], s[16:])
			move64(d[192:], s[24:])
		} else {
			move64(s[0:], d[0:])
			move64(s[8:], d[64:])
			move64(s[16:], d[128:])
			move64(s[24:], d[192:])
		}
		q += step
	}
}

// move64 copies 8 bytes from src to dst as one 64-bit word (the compiler
// turns the pair into a single load and store).
func move64(dst, src []byte) {
	binary.LittleEndian.PutUint64(dst, binary.LittleEndian.Uint64(src))
}

// utile moves the utile at utile column ux and row uy.
func (l *layout) utile(mem []byte, p texture.Picture, ux, uy int, flipRows, toMem bool) {
	uw, uh := 1<<l.uwShift, 1<<l.uhShift
	u := mem[l.utileOffset(ux, uy):][:texture.UtileBytes]
	if (ux+1)*uw > l.width || (uy+1)*uh > l.height {
		l.edgeUtile(u, p, ux, uy, flipRows, toMem)
		return
	}
	rowBytes := uw * l.cpp // 8 or 16
	for r := 0; r < uh; r++ {
		q := l.pictureRow(uy*uh+r, flipRows)*p.Stride + ux*rowBytes
		d := u[r*rowBytes : (r+1)*rowBytes]
		s := p.Pix[q : q+rowBytes]
		if !toMem {
			d, s = s, d
		}
		move64(d, s)
		if rowBytes == 16 {
			move64(d[8:], s[8:])
		}
	}
}

// edgeUtile moves a utile that is partly or wholly outside the picture,
// pixel by pixel.
func (l *layout) edgeUtile(u []byte, p texture.Picture, ux, uy int, flipRows, toMem bool) {
	uw, uh := 1<<l.uwShift, 1<<l.uhShift
	cpp := l.cpp
	for r := 0; r < uh; r++ {
		y := uy*uh + r
		for c := 0; c < uw; c++ {
			x := ux*uw + c
			d := u[(r*uw+c)*cpp : (r*uw+c+1)*cpp]
			if x >= l.width || y >= l.height {
				if toMem {
					clear(d)
				}
				continue
			}
			q := l.pictureRow(y, flipRows)*p.Stride + x*cpp
			if toMem {
				copy(d, p.Pix[q:q+cpp])
			} else {
				copy(p.Pix[q:q+cpp], d)
			}
		}
	}
}
