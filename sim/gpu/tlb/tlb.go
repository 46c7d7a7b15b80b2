// Package tlb is the VideoCore IV tile buffer (TLB): the on-chip colour,
// Z and stencil store of one 64×64-pixel tile, the Z and stencil tests the
// fragment shaders trigger by writing TLB_Z, masked colour writes and
// reads, and the loads and stores that move a tile between the buffer and
// memory ([AG] §5 "Tile Buffer"; doc/hardware.md#load-and-store,
// doc/hardware.md#tiles, doc/hardware.md#tile-buffer-formats).
//
// What is modelled: 32-bit colour tiles without multisampling (64×64
// pixels) and with 4× multisampling (32×32 pixels of 4 samples, colour, Z
// and stencil per sample: see MSIndex), the two configurations the Linux
// kernel lets user space pick; colour in RGBA8888 and BGR565 (dithered or
// not); Z24 and 8-bit stencil; linear, T and LT memory formats through
// package texture's layouts; stores of sample 0 or of the 4× resolve;
// full-resolution dumps (doc/hardware.md#multisampling). What is not: the
// 64-bit HDR tile buffer, the VG mask, coverage mode (the CAP), ×16
// decimation; a job that asks for them fails with an *Unsupported error
// rather than render something else.
package tlb

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/spec"
	"github.com/vccube/vccube/sim/gpu/internal/utiles"
	"github.com/vccube/vccube/sim/mem"
	"github.com/vccube/vccube/texture"
)

// Size is the width and height of a tile in pixels without
// multisampling: cl/spec's TileSize. The buffer holds Size×Size samples
// whatever the mode; with 4× multisampling a tile is SizeMS pixels a side.
const Size = spec.TileSize

// SizeMS is the side of a tile in 4× multisample mode ([AG] §5 "Tile
// Buffer": "32x32 pixels in 4x multisample mode").
const SizeMS = spec.TileSizeMSAA

// Samples is the number of samples of a pixel in multisample mode.
const Samples = 4

// Pixels is the number of pixels in a tile without multisampling, and
// the number of samples the buffer holds in either mode.
const Pixels = Size * Size

// MSIndex returns the element of the buffer's arrays that holds sample s
// of tile pixel (x, y) in 4× multisample mode. The samples are kept as a
// full-resolution dump writes them, which Mesa reads back in its shaders
// (vc4_nir_lower_txf_ms.c: 2×2-pixel quads of 64 bytes in raster order,
// 16 quads a row; in a quad, sample s of all four pixels at byte 16·s,
// pixel (x&1, y&1) at 4·(x&1) + 8·(y&1); doc/hardware.md#multisampling).
// A full-resolution dump of the buffer is then its arrays in order.
func MSIndex(x, y, s int) int {
	return (y>>1)*(SizeMS/2)*16 + (x>>1)*16 + s*4 + (y&1)*2 + x&1
}

// Unsupported reports a feature the model does not implement.
type Unsupported struct {
	// What names the feature.
	What string
}

// Error says the feature is not modelled.
func (e *Unsupported) Error() string { return "not modelled: " + e.What }

// Frame is the render target of a frame, from TILE_RENDERING_MODE_CONFIG.
type Frame struct {
	// Addr is the colour buffer STORE_MS_TILE_BUFFER writes.
	Addr uint32
	// Width and Height are the frame's size in pixels: loads and stores
	// touch only pixels inside it.
	Width, Height int
	// Format and Tiling are the colour buffer's format.
	Format cl.RenderFormat
	Tiling cl.Tiling
	// EarlyZDisable and EarlyZGreater are the early-Z controls: off, and
	// the update direction (GT/GE when set, LT/LE when clear).
	EarlyZDisable, EarlyZGreater bool
	// MS is 4× multisample mode; Resolve says STORE_MS_TILE_BUFFER
	// writes the 4× decimation (the average of each pixel's samples)
	// rather than sample 0.
	MS, Resolve bool
}

// Side is the side of the frame's tiles in pixels.
func (f *Frame) Side() int {
	if f.MS {
		return SizeMS
	}
	return Size
}

// maxFrame is the largest frame side the model renders: the kernel's limit
// for any surface, texture.MaxSurfaceSize (4096), because "the shaded
// vertex format stores signed 12.4 fixed point (-2048,2047) offsets from
// the viewport center" (Linux vc4_validate.c vc4_check_tex_size, which the
// kernel applies to every render target); the layouts of package texture
// stop there too. What the hardware does with a zero or larger size is not
// documented ([AG] Table 38 id 113 gives only "uint16").
const maxFrame = texture.MaxSurfaceSize

// FrameOf returns the frame a TILE_RENDERING_MODE_CONFIG describes, or an
// *Unsupported error for the modes the model lacks.
func FrameOf(p *cl.TileRenderingModeConfig) (Frame, error) {
	switch {
	case p.Color64:
		return Frame{}, &Unsupported{"the 64-bit (HDR) tile buffer"}
	case p.Decimate == cl.DecimateMode4x && !p.Multisample4x:
		return Frame{}, &Unsupported{"4x decimation without multisampling"}
	case p.Decimate != cl.DecimateMode1x && p.Decimate != cl.DecimateMode4x:
		return Frame{}, &Unsupported{fmt.Sprintf("decimate mode %v", p.Decimate)}
	case p.EnableVGMask:
		return Frame{}, &Unsupported{"the VG mask buffer"}
	case p.CoverageMode:
		return Frame{}, &Unsupported{"coverage mode"}
	case p.Format > cl.RenderFormatBGR565:
		return Frame{}, fmt.Errorf("TILE_RENDERING_MODE_CONFIG: reserved colour format %d", p.Format)
	case p.Tiling > cl.TilingLT:
		return Frame{}, fmt.Errorf("TILE_RENDERING_MODE_CONFIG: reserved memory format %d", p.Tiling)
	case p.Width == 0 || p.Height == 0 || p.Width > maxFrame || p.Height > maxFrame:
		return Frame{}, fmt.Errorf("TILE_RENDERING_MODE_CONFIG: a %d×%d frame (the model renders 1 to %d pixels each way)", p.Width, p.Height, maxFrame)
	}
	return Frame{Addr: p.Address, Width: int(p.Width), Height: int(p.Height), Format: p.Format, Tiling: p.Tiling,
		EarlyZDisable: p.EarlyZDisable, EarlyZGreater: p.EarlyZDirectionGreater,
		MS: p.Multisample4x, Resolve: p.Decimate == cl.DecimateMode4x}, nil
}

// ClearValues are the values a store clears the buffer to (CLEAR_COLORS).
type ClearValues struct {
	// Color is the clear colour word. CLEAR_COLORS carries 64 bits: two
	// copies of an RGBA8888 word for a 32-bit tile buffer (kernel and Mesa
	// write the same word twice); we use the low word.
	Color uint32
	// Z is the 24-bit clear depth, Stencil the clear stencil.
	Z       uint32
	Stencil uint8
}

// ClearValuesOf returns the clear values of a CLEAR_COLORS packet.
func ClearValuesOf(p *cl.ClearColors) ClearValues {
	return ClearValues{Color: uint32(p.Color), Z: p.Z & 0xFFFFFF, Stencil: p.Stencil}
}

// ZS packs a 24-bit Z and a stencil value as the Z/stencil buffer holds
// them: Z in bits 31:8, stencil in bits 7:0 (doc/hardware.md#tile-buffer-formats; Mesa
// vc4_draw.c "the depth buffer is stored with Z in the high 24").
func ZS(z uint32, s uint8) uint32 { return z<<8 | uint32(s) }

// Buffer is one tile buffer. Pixel (x, y) of the tile is element y·64 + x
// without multisampling; sample s of pixel (x, y) is element MSIndex(x, y,
// s) with.
//
// Color and ZS may be read directly. They are written through the
// Buffer's methods only (or, in a test, followed by Touch): the methods
// keep the record of which rows were written since the last clear, which
// ClearWritten relies on.
type Buffer struct {
	Color [Pixels]uint32
	// ZS holds Z24 << 8 | stencil per pixel.
	ZS [Pixels]uint32
	// pix is the multisample buffer's pixels as a load or store moves
	// them: pixel (x, y) at y·64 + x, as a non-multisample buffer's.
	pix [Pixels]uint32
	// color and zs record, for each array, the rows (elements 64r to
	// 64r+63; sample rows in multisample mode) that may hold something
	// other than the value the last clear of that array wrote. The zero
	// Buffer is all zeros, cleared to zero.
	color, zs rows
	// imgs is the images of the last loads and stores.
	imgs images
}

// rows is the record of one array's rows written since its last clear:
// every row whose bit is clear in dirty holds clean in all its elements.
type rows struct {
	dirty uint64
	clean uint32
}

// Clear sets the colour and/or the Z/stencil buffer to the clear values,
// every element of them: the general code ClearWritten stands for.
func (b *Buffer) Clear(c ClearValues, color, zs bool) {
	if color {
		fill(b.Color[:], c.Color)
		b.color = rows{clean: c.Color}
	}
	if zs {
		v := ZS(c.Z, c.Stencil)
		fill(b.ZS[:], v)
		b.zs = rows{clean: v}
	}
}

// ClearWritten is Clear, filling only the rows written since the last
// clear when that clear wrote the same value: a store clears the tile
// buffer after every tile, and most of a frame's tiles have few or no
// fragments. TestClearWrittenMatchesClear compares it with Clear.
func (b *Buffer) ClearWritten(c ClearValues, color, zs bool) {
	if color {
		b.color.clear(&b.Color, c.Color)
	}
	if zs {
		b.zs.clear(&b.ZS, ZS(c.Z, c.Stencil))
	}
}

// clear sets every element of a to v, writing only the dirty rows when
// the clean ones hold v already.
func (r *rows) clear(a *[Pixels]uint32, v uint32) {
	if v != r.clean {
		fill(a[:], v)
		*r = rows{clean: v}
		return
	}
	for d := r.dirty; d != 0; {
		// A run of dirty rows at once.
		first := bits.TrailingZeros64(d)
		n := bits.TrailingZeros64(^(d >> first))
		fill(a[first*Size:(first+n)*Size], v)
		d &^= (1<<n - 1) << first
	}
	r.dirty = 0
}

// Touch records that Color and ZS were written other than through the
// Buffer's methods: the next clear writes them whole.
func (b *Buffer) Touch() {
	b.color.dirty, b.zs.dirty = ^uint64(0), ^uint64(0)
}

// Tile is a tile's position: its column and row in tiles.
type Tile struct{ X, Y int }

// image is one memory image the buffer is stored to or loaded from.
type image struct {
	layout texture.Layout
	addr   uint32
	cpp    int
	tab    *utiles.Table // T and LT: the utiles' offsets
	// utileEnd is the end of the utile that ends furthest from addr, in
	// bytes from it (T and LT).
	utileEnd int
}

func newImage(addr uint32, tiling cl.Tiling, cpp int, f *Frame) (image, error) {
	l, err := texture.NewLayout(texture.Tiling(tiling), cpp, f.Width, f.Height)
	if err != nil {
		return image{}, fmt.Errorf("tile buffer image at %#08x: %w", addr, err)
	}
	im := image{layout: l, addr: addr, cpp: cpp, tab: utiles.For(l)}
	if im.tab != nil {
		for _, o := range im.tab.Off {
			im.utileEnd = max(im.utileEnd, int(o)+64)
		}
	}
	return im, nil
}

// imageKey is what newImage's layout and utile table depend on.
type imageKey struct {
	tiling        cl.Tiling
	cpp           int
	width, height int
}

// images keeps the last images a Buffer's loads and stores used: every
// tile of a frame stores to the same image, so its layout and utile
// table are made once a frame instead of once a tile, and the tile
// workers no longer meet at the utile cache's lock (utiles.For) after
// each tile. Two entries: the colour image and the Z/stencil one.
type images struct {
	key  [2]imageKey
	im   [2]image
	n    [2]bool // entry i holds an image
	next int     // the entry the next miss replaces
}

// image is newImage with the layout and table of the last images of the
// same key; TestImageCacheMatchesNewImage holds it to newImage.
func (c *images) image(addr uint32, tiling cl.Tiling, cpp int, f *Frame) (image, error) {
	k := imageKey{tiling, cpp, f.Width, f.Height}
	for i := range c.key {
		if c.n[i] && c.key[i] == k {
			im := c.im[i]
			im.addr = addr
			return im, nil
		}
	}
	im, err := newImage(addr, tiling, cpp, f)
	if err != nil {
		return im, err
	}
	i := c.next
	c.key[i], c.im[i], c.n[i] = k, im, true
	c.next = 1 - i
	return im, nil
}

// runs walks the tile's pixels that lie inside the frame in blocks whose
// rows are contiguous in memory: a block is w×h pixels from tile-relative
// (x, y), its first pixel at byte offset off of the image and each row
// pitch bytes after the previous. A linear image is one block per tile
// (pitch = the image stride); a T or LT image is one block per utile
// (64 bytes, pixels in raster order inside, [AG] §11). Use it as
//
//	for r := im.runs(t, f); r.next(); { ... }
type runs struct {
	im             *image
	x0, y0, x1, y1 int // frame pixels of the tile ∩ frame
	uw, uh         int // block size: a utile, or the whole tile
	fx, fy         int // next block's frame pixel
	x, y, w, h     int // current block
	off, pitch     int
}

func (im *image) runs(t Tile, f *Frame) runs {
	side := f.Side()
	r := runs{im: im, x0: t.X * side, y0: t.Y * side}
	r.x1, r.y1 = min(r.x0+side, f.Width), min(r.y0+side, f.Height)
	if im.layout.Tiling() == texture.Linear {
		r.uw, r.uh = Size, Size
		r.pitch = im.layout.Stride()
	} else {
		r.uw, r.uh = texture.UtileWidth(im.cpp), texture.UtileHeight(im.cpp)
		r.pitch = r.uw * im.cpp
	}
	r.fx, r.fy = r.x0, r.y0
	return r
}

func (r *runs) next() bool {
	if r.fx >= r.x1 {
		r.fx = r.x0
		r.fy += r.uh
	}
	if r.fy >= r.y1 || r.x0 >= r.x1 {
		return false
	}
	r.w = min(r.uw, r.x1-r.fx)
	r.h = min(r.uh, r.y1-r.fy)
	r.x, r.y = r.fx-r.x0, r.fy-r.y0
	if t := r.im.tab; t != nil {
		r.off = t.Utile(r.fx, r.fy)
	} else {
		r.off = r.im.layout.Offset(r.fx, r.fy)
	}
	r.fx += r.uw
	return true
}

// storeWholeUtiles is the fast path of a 32-bit store to a T or LT image
// when the tile's part inside the frame is whole utiles, each 64
// contiguous bytes at its tabulated offset: 16×16 of them, or at the
// frame's right or bottom edge as many as the frame holds when its width
// and height are whole utiles. It reports false, having written nothing,
// when the general path must be taken: a utile cut by the frame, or one
// outside the span.
func (im *image) storeWholeUtiles(sp *span, src *[Pixels]uint32, t Tile, f *Frame) bool {
	x0, y0 := t.X*Size, t.Y*Size
	tab := im.tab
	if f.MS || tab == nil || im.cpp != 4 || im.addr < sp.base || x0 >= f.Width || y0 >= f.Height {
		return false
	}
	const n = Size / 4 // utiles per tile side at 32 bpp
	nx, ny := n, n
	if x0+Size > f.Width {
		if (f.Width-x0)%4 != 0 {
			return false
		}
		nx = (f.Width - x0) / 4
	}
	if y0+Size > f.Height {
		if (f.Height-y0)%4 != 0 {
			return false
		}
		ny = (f.Height - y0) / 4
	}
	base := int(im.addr - sp.base)
	rows := tab.Off[(y0/4)*tab.PerRow:]
	// Every utile must lie in the span; check them all before writing,
	// unless every utile of the image does.
	if base+im.utileEnd > len(sp.buf) {
		for uy := 0; uy < ny; uy++ {
			for _, o := range rows[uy*tab.PerRow+x0/4 : uy*tab.PerRow+x0/4+nx] {
				if base+int(o)+64 > len(sp.buf) {
					return false
				}
			}
		}
	}
	if nx == n && ny == n {
		putUtiles(sp.buf[base:], rows[x0/4:], tab.PerRow, src)
		return true
	}
	for uy := 0; uy < ny; uy++ {
		for ux, o := range rows[uy*tab.PerRow+x0/4 : uy*tab.PerRow+x0/4+nx] {
			putUtile(sp.buf[base+int(o):], src[:], 4*uy*Size+4*ux)
		}
	}
	return true
}

// span returns the bytes of the current block.
func (r *runs) bytes(sp *span, addr uint32) ([]byte, error) {
	return sp.bytes(addr+uint32(r.off), (r.h-1)*r.pitch+r.w*r.im.cpp)
}

// span returns the memory region holding addr, for a store or load that
// then indexes it itself; access checks each run.
type span struct {
	v     *mem.View
	buf   []byte
	base  uint32
	write bool
	what  string
}

func openSpan(v *mem.View, addr uint32, write bool, what string) (span, error) {
	buf, off, err := v.Span(addr, write, what)
	if err != nil {
		return span{}, err
	}
	return span{v: v, buf: buf, base: addr - off, write: write, what: what}, nil
}

// bytes returns n bytes at address addr, or the fault for them.
func (s *span) bytes(addr uint32, n int) ([]byte, error) {
	off := uint64(addr) - uint64(s.base)
	if addr >= s.base && off+uint64(n) <= uint64(len(s.buf)) {
		return s.buf[off : off+uint64(n)], nil
	}
	if s.write {
		return s.v.Write(addr, uint32(n), s.what)
	}
	return s.v.Read(addr, uint32(n), s.what)
}

// StoreColor stores the colour buffer to an image: the frame buffer of
// STORE_MS_TILE_BUFFER, or a STORE_TILE_BUFFER_GENERAL colour image.
// format is the load/store colour format; (x, y) of the frame is used for
// the BGR565 dither pattern. In multisample mode it stores each pixel's
// sample 0 ([AG] Table 38 id 28, mode 0 "Sample 0").
func (b *Buffer) StoreColor(v *mem.View, addr uint32, tiling cl.Tiling, format cl.LoadStoreFormat, t Tile, f *Frame) error {
	return b.storeColor(v, addr, tiling, format, t, f, false)
}

// StoreColorResolved is StoreColor with the 4× decimation of multisample
// mode: each pixel stores the average of its four samples (Resolve;
// without multisampling it is StoreColor).
func (b *Buffer) StoreColorResolved(v *mem.View, addr uint32, tiling cl.Tiling, format cl.LoadStoreFormat, t Tile, f *Frame) error {
	return b.storeColor(v, addr, tiling, format, t, f, true)
}

func (b *Buffer) storeColor(v *mem.View, addr uint32, tiling cl.Tiling, format cl.LoadStoreFormat, t Tile, f *Frame, resolve bool) error {
	src := &b.Color
	if f.MS {
		b.pixels(&b.Color, resolve)
		src = &b.pix
	}
	cpp := 4
	if format != cl.LoadStoreFormatRGBA8888 {
		cpp = 2
	}
	im, err := b.imgs.image(addr, tiling, cpp, f)
	if err != nil {
		return err
	}
	sp, err := openSpan(v, addr, true, "TLB colour store")
	if err != nil {
		return err
	}
	if format == cl.LoadStoreFormatRGBA8888 && im.storeWholeUtiles(&sp, src, t, f) {
		return nil
	}
	for r := im.runs(t, f); r.next(); {
		blk, err := r.bytes(&sp, addr)
		if err != nil {
			return err
		}
		if format == cl.LoadStoreFormatRGBA8888 && r.w == 4 && r.h == 4 && r.pitch == 16 {
			putUtile(blk, src[:], r.y*Size+r.x)
			continue
		}
		if format == cl.LoadStoreFormatRGBA8888 {
			putRows(blk, r.pitch, src[r.y*Size+r.x:], r.w, r.h)
			continue
		}
		for row := 0; row < r.h; row++ {
			dst := blk[row*r.pitch:]
			y := r.y + row
			px := src[y*Size+r.x : y*Size+r.x+r.w]
			switch format {
			case cl.LoadStoreFormatBGR565:
				for i, c := range px {
					binary.LittleEndian.PutUint16(dst[2*i:], to565(c, -1, 0))
				}
			default: // dithered
				gy := t.Y*f.Side() + y
				for i, c := range px {
					binary.LittleEndian.PutUint16(dst[2*i:], to565(c, t.X*f.Side()+r.x+i, gy))
				}
			}
		}
	}
	return nil
}

// LoadColor loads the colour buffer from an image. In multisample mode
// each pixel's value goes to all four of its samples (Mesa vc4_job.c
// vc4_job_submit: "multisample loads replicate out to the other samples").
func (b *Buffer) LoadColor(v *mem.View, addr uint32, tiling cl.Tiling, format cl.LoadStoreFormat, t Tile, f *Frame) error {
	b.color.dirty = ^uint64(0) // before anything is written, even on a fault
	cpp := 4
	if format != cl.LoadStoreFormatRGBA8888 {
		cpp = 2
	}
	im, err := b.imgs.image(addr, tiling, cpp, f)
	if err != nil {
		return err
	}
	sp, err := openSpan(v, addr, false, "TLB colour load")
	if err != nil {
		return err
	}
	dstBuf := &b.Color
	if f.MS {
		dstBuf = &b.pix
	}
	for r := im.runs(t, f); r.next(); {
		blk, err := r.bytes(&sp, addr)
		if err != nil {
			return err
		}
		for row := 0; row < r.h; row++ {
			src := blk[row*r.pitch:]
			y := r.y + row
			dst := dstBuf[y*Size+r.x : y*Size+r.x+r.w]
			if cpp == 4 {
				getWords(dst, src)
			} else {
				for i := range dst {
					dst[i] = from565(binary.LittleEndian.Uint16(src[2*i:]))
				}
			}
		}
	}
	if f.MS {
		b.replicate(&b.Color)
	}
	return nil
}

// StoreZS stores the Z/stencil buffer: 32 bits per pixel, Z24 in bits
// 31:8 and stencil in 7:0 (doc/hardware.md#tile-buffer-formats). In
// multisample mode it stores each pixel's sample 0.
func (b *Buffer) StoreZS(v *mem.View, addr uint32, tiling cl.Tiling, t Tile, f *Frame) error {
	im, err := b.imgs.image(addr, tiling, 4, f)
	if err != nil {
		return err
	}
	sp, err := openSpan(v, addr, true, "TLB Z/stencil store")
	if err != nil {
		return err
	}
	src := &b.ZS
	if f.MS {
		b.pixels(&b.ZS, false)
		src = &b.pix
	}
	if im.storeWholeUtiles(&sp, src, t, f) {
		return nil
	}
	for r := im.runs(t, f); r.next(); {
		blk, err := r.bytes(&sp, addr)
		if err != nil {
			return err
		}
		if r.w == 4 && r.h == 4 && r.pitch == 16 {
			putUtile(blk, src[:], r.y*Size+r.x)
			continue
		}
		putRows(blk, r.pitch, src[r.y*Size+r.x:], r.w, r.h)
	}
	return nil
}

// LoadZS loads the Z/stencil buffer, each pixel to all its samples in
// multisample mode.
func (b *Buffer) LoadZS(v *mem.View, addr uint32, tiling cl.Tiling, t Tile, f *Frame) error {
	b.zs.dirty = ^uint64(0) // before anything is written, even on a fault
	im, err := b.imgs.image(addr, tiling, 4, f)
	if err != nil {
		return err
	}
	sp, err := openSpan(v, addr, false, "TLB Z/stencil load")
	if err != nil {
		return err
	}
	dstBuf := &b.ZS
	if f.MS {
		dstBuf = &b.pix
	}
	for r := im.runs(t, f); r.next(); {
		blk, err := r.bytes(&sp, addr)
		if err != nil {
			return err
		}
		for row := 0; row < r.h; row++ {
			src := blk[row*r.pitch:]
			y := r.y + row
			getWords(dstBuf[y*Size+r.x:y*Size+r.x+r.w], src)
		}
	}
	if f.MS {
		b.replicate(&b.ZS)
	}
	return nil
}

// The layout of a full-resolution dump is internal to the V3D and not
// documented ([AG] §5: "written and read in a format internal to the 3D
// system"). In multisample mode it is the one Mesa's shaders read a
// multisample texture with (MSIndex). Without multisampling it is ours:
// the 64×64 32-bit samples of one buffer in raster order. Either way 16
// KiB; colour at the address given, Z/stencil after it when both are
// dumped. The kernel dumps one buffer per packet (vc4_render_cl.c), so only
// a round trip through this model can observe the layout.

// StoreFullRes dumps the colour and/or Z/stencil buffer raw to addr.
func (b *Buffer) StoreFullRes(v *mem.View, addr uint32, color, zs bool) error {
	if color {
		if err := dump(v, addr, &b.Color); err != nil {
			return err
		}
		addr += spec.FullResTileBytes
	}
	if zs {
		return dump(v, addr, &b.ZS)
	}
	return nil
}

// LoadFullRes reloads what StoreFullRes dumped.
func (b *Buffer) LoadFullRes(v *mem.View, addr uint32, color, zs bool) error {
	if color {
		b.color.dirty = ^uint64(0)
		if err := undump(v, addr, &b.Color); err != nil {
			return err
		}
		addr += spec.FullResTileBytes
	}
	if zs {
		b.zs.dirty = ^uint64(0)
		return undump(v, addr, &b.ZS)
	}
	return nil
}

func dump(v *mem.View, addr uint32, src *[Pixels]uint32) error {
	dst, err := v.Write(addr, spec.FullResTileBytes, "TLB full-resolution store")
	if err != nil {
		return err
	}
	putWords(dst, src[:])
	return nil
}

func undump(v *mem.View, addr uint32, dst *[Pixels]uint32) error {
	src, err := v.Read(addr, spec.FullResTileBytes, "TLB full-resolution load")
	if err != nil {
		return err
	}
	getWords(dst[:], src)
	return nil
}

// pixels sets b.pix, pixel (x, y) at y·64 + x, to the multisample buffer
// src's pixels: sample 0 of each, or with resolve the average of its four
// samples, channel by channel (each byte of the word), rounded half up:
// (a + b + c + d + 2) / 4. The guide says only that "the multisamples are
// resolved to a single pixel color value per pixel" ([AG] §5); averaging
// is what 4× decimation names, the rounding is our choice (UNCERTAIN,
// doc/hardware.md#multisampling).
func (b *Buffer) pixels(src *[Pixels]uint32, resolve bool) {
	for y := 0; y < SizeMS; y++ {
		for x := 0; x < SizeMS; x++ {
			i := MSIndex(x, y, 0)
			if !resolve {
				b.pix[y*Size+x] = src[i]
				continue
			}
			var w uint32
			for sh := 0; sh < 32; sh += 8 {
				sum := src[i]>>sh&0xFF + src[i+4]>>sh&0xFF + src[i+8]>>sh&0xFF + src[i+12]>>sh&0xFF
				w |= (sum + 2) / 4 << sh
			}
			b.pix[y*Size+x] = w
		}
	}
}

// replicate sets every sample of each pixel of the multisample buffer dst
// to the pixel's value in b.pix (y·64 + x).
func (b *Buffer) replicate(dst *[Pixels]uint32) {
	for y := 0; y < SizeMS; y++ {
		for x := 0; x < SizeMS; x++ {
			i := MSIndex(x, y, 0)
			p := b.pix[y*Size+x]
			dst[i], dst[i+4], dst[i+8], dst[i+12] = p, p, p, p
		}
	}
}

// BGR565 packing of the tile's 8888 word: byte 0 → bits 15:11, byte 1 → bits
// 10:5, byte 2 → bits 4:0, alpha dropped. DERIVED from Mesa's format table,
// which stores PIPE_FORMAT_B5G6R5_UNORM (R in bits 15:11) through a shader
// swizzle that puts R in byte 0 (vc4_formats.c;
// doc/hardware.md#tile-buffer-formats, UNCERTAIN there). The hardware's 8 →
// 5/6-bit conversion is not documented: without dithering we keep the top
// bits; with dithering we first add an ordered-dither offset from a 4×4
// Bayer matrix, scaled to one step of the narrower field, to pick between
// the two nearest levels.
func to565(c uint32, x, y int) uint16 {
	r, g, b := c&0xFF, c>>8&0xFF, c>>16&0xFF
	if x >= 0 {
		d := bayer4[y&3][x&3] // 0..15
		r = min(r+d/2, 255)
		g = min(g+d/4, 255)
		b = min(b+d/2, 255)
	}
	return uint16(r>>3<<11 | g>>2<<5 | b>>3)
}

var bayer4 = [4][4]uint32{
	{0, 8, 2, 10},
	{12, 4, 14, 6},
	{3, 11, 1, 9},
	{15, 7, 13, 5},
}

// from565 expands a BGR565 pixel to the tile's 8888 word by replicating
// each field's top bits into its low bits; alpha reads as 0xFF (our choice:
// the format has no alpha).
func from565(p uint16) uint32 {
	r := uint32(p >> 11 & 31)
	g := uint32(p >> 5 & 63)
	b := uint32(p & 31)
	r = r<<3 | r>>2
	g = g<<2 | g>>4
	b = b<<3 | b>>2
	return r | g<<8 | b<<16 | 0xFF<<24
}
