package tlb

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/spec"
	"github.com/vccube/vccube/sim/gpu/raster"
	"github.com/vccube/vccube/sim/internal/simtest"
	"github.com/vccube/vccube/sim/mem"
	"github.com/vccube/vccube/texture"
)

func memory(t *testing.T, size int) (*mem.View, mem.Region, []byte) { return memoryB(t, size) }

func memoryB(t testing.TB, size int) (*mem.View, mem.Region, []byte) {
	t.Helper()
	return simtest.Memory(t, size, mem.Read|mem.Write, "test")
}

// pattern fills the buffer with colours that name their pixel.
func pattern(b *Buffer) {
	for y := range Size {
		for x := range Size {
			b.Color[y*Size+x] = uint32(y)<<16 | uint32(x)<<8 | 0xA5
			b.ZS[y*Size+x] = ZS(uint32(y*Size+x), uint8(x))
		}
	}
	b.Touch()
}

// A 100×70 frame (not a multiple of 64): tile (1, 1) holds frame pixels
// 64..99 × 64..69. Linear RGBA8888 stride is 100×4 (100 is a multiple of
// the 4-pixel utile width; vc4_check_tex_size), so pixel (x, y) is at
// y·400 + 4x; nothing outside the frame is written.
func TestStoreLinearRGBA8888PartialTile(t *testing.T) {
	v, r, mem := memory(t, 400*70+4096)
	for i := range mem {
		mem[i] = 0xEE
	}
	var b Buffer
	pattern(&b)
	f := Frame{Width: 100, Height: 70}
	if err := b.StoreColor(v, r.Addr, cl.TilingLinear, cl.LoadStoreFormatRGBA8888, Tile{1, 1}, &f); err != nil {
		t.Fatal(err)
	}
	for y := range 70 {
		for x := range 100 {
			got := binary.LittleEndian.Uint32(mem[y*400+4*x:])
			if x >= 64 && y >= 64 {
				want := uint32(y-64)<<16 | uint32(x-64)<<8 | 0xA5
				if got != want {
					t.Fatalf("pixel (%d,%d) = %#x, want %#x", x, y, got, want)
				}
			} else if got != 0xEEEEEEEE {
				t.Fatalf("pixel (%d,%d) outside the tile was written", x, y)
			}
		}
	}
	if mem[400*70] != 0xEE {
		t.Error("wrote past the frame")
	}
}

// A whole-tile T-format store into a buffer that ends before the image
// does: into one that ends with the tile's furthest utile, every utile is
// written; into one a page shorter (buffers are whole pages), the store is
// refused with a fault (and the whole-tile path does not write past the
// buffer).
func TestStoreWholeTileIntoAShortBuffer(t *testing.T) {
	f := Frame{Width: 128, Height: 128}
	l, err := texture.NewLayout(texture.Tiling(cl.TilingT), 4, f.Width, f.Height)
	if err != nil {
		t.Fatal(err)
	}
	tileEnd := 0 // the end of tile (1, 1)'s furthest utile
	for y := 64; y < 128; y += 4 {
		for x := 64; x < 128; x += 4 {
			tileEnd = max(tileEnd, l.Offset(x, y)+64)
		}
	}
	if tileEnd >= l.Size() {
		t.Fatalf("tile (1, 1) ends the image (%d of %d bytes): the test needs a tile that does not", tileEnd, l.Size())
	}
	var b Buffer
	pattern(&b)
	for _, size := range []int{l.Size(), tileEnd, tileEnd - 4096} {
		v, r, buf := memory(t, size)
		if size = int(r.Size); size != l.Size() && size != tileEnd && size >= tileEnd {
			t.Fatalf("a %d-byte buffer holds tile (1, 1), which ends at %d", size, tileEnd)
		}
		err := b.StoreColor(v, r.Addr, cl.TilingT, cl.LoadStoreFormatRGBA8888, Tile{1, 1}, &f)
		if size >= tileEnd {
			if err != nil {
				t.Fatalf("a %d-byte buffer: %v", size, err)
			}
			for y := 64; y < 128; y++ {
				for x := 64; x < 128; x++ {
					if got, want := binary.LittleEndian.Uint32(buf[l.Offset(x, y):]), b.Color[(y-64)*Size+x-64]; got != want {
						t.Fatalf("a %d-byte buffer: pixel (%d, %d) = %#x, want %#x", size, x, y, got, want)
					}
				}
			}
			continue
		}
		var fault *mem.Fault
		if !errors.As(err, &fault) {
			t.Fatalf("a %d-byte buffer, short of the tile's %d bytes: %v, want a fault", size, tileEnd, err)
		}
	}
}

// T-format addresses from the layout of doc/hardware.md#texture-formats, 32 bpp, a
// 64-pixel-wide image (2 tiles of 32×32 px per tile row):
//
//	(16, 0): ux 4, sx 1, k 1 → sub-tile 3 → 3072 (the document's example)
//	(0, 4):  uy 1 → utile 4 of sub-tile 0 → 256
//	(32, 0): second tile of row 0 → 4096
//	(0, 32): tile row 1 runs right to left: tile_x 1 → 2·4096 + 4096;
//	         sub-tile order [2,1,3,0][0] = 2 → +2048 → 14336
//	(5, 6):  utile (1, 1) → 64·5 = 320, pixel (1, 2) in it → +36 → 356
func TestStoreTFormatAddresses(t *testing.T) {
	v, r, mem := memory(t, 64*64*4)
	var b Buffer
	pattern(&b)
	f := Frame{Width: 64, Height: 64}
	if err := b.StoreColor(v, r.Addr, cl.TilingT, cl.LoadStoreFormatRGBA8888, Tile{0, 0}, &f); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ x, y, off int }{
		{16, 0, 3072}, {0, 4, 256}, {32, 0, 4096}, {0, 32, 14336}, {5, 6, 356}, {0, 0, 0},
	} {
		if got, want := binary.LittleEndian.Uint32(mem[c.off:]), b.Color[c.y*Size+c.x]; got != want {
			t.Errorf("(%d,%d) at %d: %#x, want %#x", c.x, c.y, c.off, got, want)
		}
	}
}

// LT (doc/hardware.md#texture-formats), 32 bpp, 64 wide: 16 utiles per row;
// (5, 6) → ((6/4)·16 + 5/4)·64 + ((6%4)·4 + 5%4)·4 = 1124.
func TestStoreLTAndLoadRoundTrip(t *testing.T) {
	v, r, mem := memory(t, 64*64*4)
	var b Buffer
	pattern(&b)
	f := Frame{Width: 64, Height: 64}
	if err := b.StoreColor(v, r.Addr, cl.TilingLT, cl.LoadStoreFormatRGBA8888, Tile{0, 0}, &f); err != nil {
		t.Fatal(err)
	}
	if got := binary.LittleEndian.Uint32(mem[1124:]); got != b.Color[6*Size+5] {
		t.Errorf("(5,6) = %#x", got)
	}
	var c Buffer
	if err := c.LoadColor(v, r.Addr, cl.TilingLT, cl.LoadStoreFormatRGBA8888, Tile{0, 0}, &f); err != nil {
		t.Fatal(err)
	}
	if c.Color != b.Color {
		t.Error("LT load does not give back the stored tile")
	}
}

// BGR565: byte 0 → bits 15:11, byte 1 → 10:5, byte 2 → 4:0, top bits kept.
// 0x00FF8040: R 0x40 → 8, G 0x80 → 32, B 0xFF → 31 = 0x441F.
func TestBGR565(t *testing.T) {
	v, r, mem := memory(t, 4096*2)
	var b Buffer
	b.Color[0] = 0x00FF8040
	b.Color[1] = 0xFFFFFFFF
	f := Frame{Width: 64, Height: 64}
	if err := b.StoreColor(v, r.Addr, cl.TilingLinear, cl.LoadStoreFormatBGR565, Tile{0, 0}, &f); err != nil {
		t.Fatal(err)
	}
	if got := binary.LittleEndian.Uint16(mem); got != 0x441F {
		t.Errorf("565 = %#04x, want 0x441f", got)
	}
	if got := binary.LittleEndian.Uint16(mem[2:]); got != 0xFFFF {
		t.Errorf("white = %#04x", got)
	}
	var c Buffer
	c.LoadColor(v, r.Addr, cl.TilingLinear, cl.LoadStoreFormatBGR565, Tile{0, 0}, &f)
	// Expansion replicates the top bits: R 8 → 0x42, G 32 → 0x82, B 31 → 0xFF.
	if c.Color[0] != 0xFFFF8242 {
		t.Errorf("expanded %#x, want 0xffff8242", c.Color[0])
	}
	// Dithering moves each channel by less than one 565 step.
	for i := range b.Color {
		b.Color[i] = 0x00808080 + uint32(i%7)
	}
	b.StoreColor(v, r.Addr, cl.TilingLinear, cl.LoadStoreFormatBGR565Dithered, Tile{0, 0}, &f)
	for i := range Pixels {
		p := binary.LittleEndian.Uint16(mem[2*i:])
		r5 := int(p >> 11)
		base := int(0x80+i%7) >> 3
		if r5 != base && r5 != base+1 {
			t.Fatalf("pixel %d: dithered red %d from %#x", i, r5, 0x80+i%7)
		}
	}
}

func TestZSStoreLoadAndFullRes(t *testing.T) {
	v, r, mem := memory(t, 4*spec.FullResTileBytes)
	var b Buffer
	pattern(&b)
	f := Frame{Width: 64, Height: 64}
	if err := b.StoreZS(v, r.Addr, cl.TilingLinear, Tile{0, 0}, &f); err != nil {
		t.Fatal(err)
	}
	// Pixel (3, 2): Z = 2·64+3 in bits 31:8, stencil 3.
	if got := binary.LittleEndian.Uint32(mem[(2*64+3)*4:]); got != (131<<8 | 3) {
		t.Errorf("ZS word %#x", got)
	}
	var c Buffer
	c.LoadZS(v, r.Addr, cl.TilingLinear, Tile{0, 0}, &f)
	if c.ZS != b.ZS {
		t.Error("ZS round trip")
	}
	if err := b.StoreFullRes(v, r.Addr+spec.FullResTileBytes, true, true); err != nil {
		t.Fatal(err)
	}
	var d Buffer
	if err := d.LoadFullRes(v, r.Addr+spec.FullResTileBytes, true, true); err != nil {
		t.Fatal(err)
	}
	if d.Color != b.Color || d.ZS != b.ZS {
		t.Error("full-resolution round trip")
	}
}

func TestStoreOutsideTheJobFaults(t *testing.T) {
	v, r, _ := memory(t, 4096)
	var b Buffer
	f := Frame{Width: 64, Height: 64}
	err := b.StoreColor(v, r.Addr, cl.TilingLinear, cl.LoadStoreFormatRGBA8888, Tile{0, 0}, &f)
	var fault *mem.Fault
	if !errors.As(err, &fault) || !fault.Write {
		t.Fatalf("err = %v, want a write fault (16 KiB tile into a 4 KiB buffer)", err)
	}
	if err := b.StoreColor(v, r.Addr-4096, cl.TilingLinear, cl.LoadStoreFormatRGBA8888, Tile{0, 0}, &f); !errors.As(err, &fault) {
		t.Fatalf("err = %v, want a fault before the buffer", err)
	}
}

func TestClear(t *testing.T) {
	var b Buffer
	pattern(&b)
	b.Clear(ClearValues{Color: 0x11223344, Z: 0xFFFFFF, Stencil: 7}, true, false)
	if b.Color[100] != 0x11223344 || b.ZS[100] == ZS(0xFFFFFF, 7) {
		t.Error("colour-only clear")
	}
	b.Clear(ClearValues{Color: 0, Z: 0xFFFFFF, Stencil: 7}, false, true)
	if b.Color[100] != 0x11223344 || b.ZS[4095] != 0xFFFFFF07 {
		t.Error("ZS-only clear")
	}
	cc := cl.ClearColors{Color: 0xAABBCCDD_11223344, Z: 0x123456, Stencil: 9}
	if got := ClearValuesOf(&cc); got != (ClearValues{0x11223344, 0x123456, 9}) {
		t.Errorf("clear values %+v", got)
	}
}

// The depth function table of AG Table 38 id 96, fragment on the left.
func TestDepthFunctions(t *testing.T) {
	type row struct{ lt, eq, gt bool } // passes for z < zb, z == zb, z > zb
	want := map[cl.DepthFunc]row{
		cl.DepthFuncNever:        {false, false, false},
		cl.DepthFuncLess:         {true, false, false},
		cl.DepthFuncEqual:        {false, true, false},
		cl.DepthFuncLessEqual:    {true, true, false},
		cl.DepthFuncGreater:      {false, false, true},
		cl.DepthFuncNotEqual:     {true, false, true},
		cl.DepthFuncGreaterEqual: {false, true, true},
		cl.DepthFuncAlways:       {true, true, true},
	}
	for f, w := range want {
		if Passes(f, 1, 2) != w.lt || Passes(f, 2, 2) != w.eq || Passes(f, 3, 2) != w.gt {
			t.Errorf("%v", f)
		}
	}
}

func lanes(first uint16) (idx [16]uint16) {
	for i := range idx {
		idx[i] = first + uint16(i)
	}
	return
}

func TestZWriteMasksAndUpdates(t *testing.T) {
	var b Buffer
	b.Clear(ClearValues{Z: 1000}, false, true)
	idx := lanes(0)
	var z [16]uint32
	for i := range z {
		z[i] = uint32(990 + 2*i) // lanes 0..4 below 1000, lane 5 equal
	}
	var st Stencil
	pass, _ := b.ZWrite(&idx, &z, 0xFFFF, DepthState{cl.DepthFuncLess, true}, &st, false)
	if pass != 0x001F {
		t.Errorf("LESS passes %#04x, want 0x001f", pass)
	}
	if b.ZS[0]>>8 != 990 || b.ZS[5]>>8 != 1000 {
		t.Error("Z update")
	}
	// Masked-out lanes are not tested or written.
	pass, _ = b.ZWrite(&idx, &z, 0x0002, DepthState{cl.DepthFuncAlways, true}, &st, false)
	if pass != 0x0002 || b.ZS[3]>>8 != 996 || b.ZS[1]>>8 != 992 {
		t.Errorf("masked write: pass %#x", pass)
	}
	// Without updates the buffer keeps its depths.
	b.ZWrite(&idx, &z, 0xFFFF, DepthState{cl.DepthFuncAlways, false}, &st, false)
	if b.ZS[10]>>8 != 1000 {
		t.Error("Z written with updates disabled")
	}
	// Only the low 24 bits of the written value count.
	z[0] = 0xFF000000 | 5
	b.ZWrite(&idx, &z, 1, DepthState{cl.DepthFuncAlways, true}, &st, false)
	if b.ZS[0]>>8 != 5 {
		t.Errorf("Z %#x", b.ZS[0]>>8)
	}
}

// Stencil: front face "ref 3, mask 0xff, func EQ, zpass REPLACE(2)… " built
// from Table 27's fields by hand.
func TestStencil(t *testing.T) {
	var b Buffer
	b.Clear(ClearValues{Z: 0xFFFFFF, Stencil: 3}, false, true)
	b.ZS[1] = ZS(0xFFFFFF, 4)
	idx := lanes(0)
	var z [16]uint32
	var st Stencil
	// WSEL 1 (front), write mask code 3 (0xff), zfail keep(1), zpass incsat(3),
	// sfail zero(0), func EQ(2), ref 3, mask 0xff.
	w := uint32(1)<<30 | 3<<28 | 1<<25 | 3<<22 | 0<<19 | 2<<16 | 3<<8 | 0xff
	st.Setup(w)
	pass, sfail := b.ZWrite(&idx, &z, 0x3, DepthState{cl.DepthFuncAlways, false}, &st, false)
	if pass != 0x1 || sfail != 0x2 {
		t.Errorf("pass %#x, stencil fail %#x; want 1 and 2 (lane 1's stencil is 4)", pass, sfail)
	}
	if uint8(b.ZS[0]) != 4 || uint8(b.ZS[1]) != 0 {
		t.Errorf("stencils %d %d, want 4 (incsat) and 0 (sfail zero)", uint8(b.ZS[0]), uint8(b.ZS[1]))
	}
	// The back face is still disabled: everything passes, nothing changes.
	if pass, _ := b.ZWrite(&idx, &z, 0x3, DepthState{cl.DepthFuncAlways, false}, &st, true); pass != 0x3 || uint8(b.ZS[0]) != 4 {
		t.Errorf("back face: pass %#x", pass)
	}
	// Full write masks (select 0): front mask 0x01.
	st.Setup(0x0001)
	b.ZWrite(&idx, &z, 0x1, DepthState{cl.DepthFuncAlways, false}, &st, false)
	// Stencil 4 ≠ ref 3: sfail op zero under mask 0x01 keeps bit 2.
	if uint8(b.ZS[0]) != 4 {
		t.Errorf("masked stencil %d", uint8(b.ZS[0]))
	}
	for op, want := range []uint8{0, 200, 3, 201, 199, 55, 201, 199} {
		if got := stencilOp(uint8(op), 200, 3); got != want {
			t.Errorf("op %d: %d, want %d", op, got, want)
		}
	}
	if stencilOp(3, 255, 0) != 255 || stencilOp(4, 0, 0) != 0 || stencilOp(6, 255, 0) != 0 || stencilOp(7, 0, 0) != 255 {
		t.Error("saturating and wrapping ops")
	}
}

func TestColorWriteRead(t *testing.T) {
	var b Buffer
	idx := lanes(64)
	var c, out [16]uint32
	for i := range c {
		c[i] = uint32(i + 1)
	}
	b.WriteColor(&idx, &c, 0x8001)
	if b.Color[64] != 1 || b.Color[79] != 16 || b.Color[65] != 0 {
		t.Error("masked colour write")
	}
	b.ReadColor(&idx, &out)
	if out[0] != 1 || out[1] != 0 || out[15] != 16 {
		t.Error("colour read")
	}
}

func TestFrameOfRefusesWhatIsNotModelled(t *testing.T) {
	f, err := FrameOf(&cl.TileRenderingModeConfig{Address: 0x1000, Width: 800, Height: 600, Format: cl.RenderFormatRGBA8888, Tiling: cl.TilingT})
	if err != nil || f.Width != 800 || f.Tiling != cl.TilingT {
		t.Fatalf("%+v %v", f, err)
	}
	ms, err := FrameOf(&cl.TileRenderingModeConfig{Address: 0x1000, Width: 80, Height: 60, Multisample4x: true, Decimate: cl.DecimateMode4x})
	if err != nil || !ms.MS || !ms.Resolve || ms.Side() != 32 {
		t.Errorf("4x multisampling with 4x decimation: %+v %v", ms, err)
	}
	var u *Unsupported
	for name, c := range map[string]cl.TileRenderingModeConfig{
		"x16 decimation":       {Width: 8, Height: 8, Multisample4x: true, Decimate: cl.DecimateMode16x},
		"x4 decimation, no MS": {Width: 8, Height: 8, Decimate: cl.DecimateMode4x},
		"64-bit colour":        {Width: 8, Height: 8, Color64: true},
	} {
		if _, err := FrameOf(&c); !errors.As(err, &u) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// The multisample buffer keeps its samples where Mesa's shaders look for
// them in a full-resolution dump: byte address (x&~1)·32 + (y&~1)·512 +
// 16·s + 4·(x&1) + 8·(y&1) in a 32×32 tile (vc4_nir_lower_txf_ms.c,
// written out here from its shifts and masks, not from MSIndex).
func TestMSIndexIsMesasFullResLayout(t *testing.T) {
	seen := map[int]bool{}
	for y := range SizeMS {
		for x := range SizeMS {
			for s := range Samples {
				addr := (x&30)*2*4*4 + (y&30)*32*4*4 + (x<<2)&4 | (y<<3)&8 | s<<4
				if got := 4 * MSIndex(x, y, s); got != addr {
					t.Fatalf("sample %d of (%d, %d): word %d, Mesa reads byte %d", s, x, y, got/4, addr)
				}
				seen[addr] = true
			}
		}
	}
	if len(seen) != Pixels {
		t.Errorf("%d distinct samples, want %d", len(seen), Pixels)
	}
}

// A multisample tile stores 32×32 pixels: the resolve averages each
// pixel's samples byte by byte, rounding half up; a sample-0 store takes
// sample 0; a load puts a pixel's value in all four samples; the Z/stencil
// store takes sample 0.
func TestMultisampleStoreResolveAndLoad(t *testing.T) {
	const w, h = 40, 36 // two tiles by two, the right and bottom ones partial
	v, r, mem := memory(t, 3*w*h*4)
	f := Frame{Width: w, Height: h, MS: true, Resolve: true}
	var b Buffer
	for y := range SizeMS {
		for x := range SizeMS {
			for s := range Samples {
				// Channel bytes: s·40 + x, 2·(s == 3), 0xFF·(s == 0), y.
				c := uint32(s*40+x) | uint32(y)<<24
				if s == 0 {
					c |= 0xFF << 16
				}
				if s == 3 {
					c |= 2 << 8
				}
				b.Color[MSIndex(x, y, s)] = c
				b.ZS[MSIndex(x, y, s)] = ZS(uint32(1000*s+y*SizeMS+x), uint8(s))
			}
		}
	}
	tile := Tile{1, 1} // frame pixels 32..39 × 32..35
	res, s0, zs := r.Addr, r.Addr+w*h*4, r.Addr+2*w*h*4
	if err := b.StoreColorResolved(v, res, cl.TilingLinear, cl.LoadStoreFormatRGBA8888, tile, &f); err != nil {
		t.Fatal(err)
	}
	if err := b.StoreColor(v, s0, cl.TilingLinear, cl.LoadStoreFormatRGBA8888, tile, &f); err != nil {
		t.Fatal(err)
	}
	if err := b.StoreZS(v, zs, cl.TilingLinear, tile, &f); err != nil {
		t.Fatal(err)
	}
	word := func(base uint32, x, y int) uint32 {
		return binary.LittleEndian.Uint32(mem[int(base-r.Addr)+4*(y*w+x):])
	}
	for y := range h {
		for x := range w {
			tx, ty := x-32, y-32
			if tx < 0 || ty < 0 {
				if word(res, x, y) != 0 || word(s0, x, y) != 0 || word(zs, x, y) != 0 {
					t.Fatalf("pixel (%d, %d) outside tile (1, 1) written", x, y)
				}
				continue
			}
			// (0+40+80+120)/4 + x = 60 + x; 2/4 = 0.5 rounds up to 1;
			// 255/4 = 63.75 rounds to 64; y.
			want := uint32(60+tx) | 1<<8 | 64<<16 | uint32(ty)<<24
			if got := word(res, x, y); got != want {
				t.Errorf("resolved (%d, %d) = %#08x, want %#08x", x, y, got, want)
			}
			if got, want := word(s0, x, y), uint32(tx)|0xFF<<16|uint32(ty)<<24; got != want {
				t.Errorf("sample 0 of (%d, %d) = %#08x, want %#08x", x, y, got, want)
			}
			if got, want := word(zs, x, y), ZS(uint32(ty*SizeMS+tx), 0); got != want {
				t.Errorf("Z/stencil of (%d, %d) = %#08x, want %#08x", x, y, got, want)
			}
		}
	}
	var c Buffer
	if err := c.LoadColor(v, s0, cl.TilingLinear, cl.LoadStoreFormatRGBA8888, tile, &f); err != nil {
		t.Fatal(err)
	}
	if err := c.LoadZS(v, zs, cl.TilingLinear, tile, &f); err != nil {
		t.Fatal(err)
	}
	for s := range Samples {
		if got, want := c.Color[MSIndex(3, 2, s)], uint32(3)|0xFF<<16|2<<24; got != want {
			t.Errorf("loaded sample %d of (3, 2) = %#08x, want %#08x", s, got, want)
		}
		if got, want := c.ZS[MSIndex(3, 2, s)], ZS(2*SizeMS+3, 0); got != want {
			t.Errorf("loaded Z/stencil sample %d of (3, 2) = %#08x, want %#08x", s, got, want)
		}
	}
}

func TestWordsAndFill(t *testing.T) {
	src := []uint32{0x04030201, 0x08070605}
	dst := make([]byte, 8)
	putWords(dst, src)
	if string(dst) != "\x01\x02\x03\x04\x05\x06\x07\x08" {
		t.Errorf("putWords % x", dst)
	}
	back := make([]uint32, 2)
	getWords(back, dst)
	if back[0] != src[0] || back[1] != src[1] {
		t.Errorf("getWords %x", back)
	}
	s := make([]uint32, 37)
	fill(s, 9)
	for i, v := range s {
		if v != 9 {
			t.Fatalf("fill: element %d = %d", i, v)
		}
	}
}

// Whole tiles (the utile fast path) and partial ones (the general path)
// put every pixel where package texture's layout says, in T and LT.
func TestStoresFollowTheLayout(t *testing.T) {
	for _, tiling := range []cl.Tiling{cl.TilingT, cl.TilingLT} {
		v, r, m := memory(t, 128*96*4)
		var b Buffer
		pattern(&b)
		f := Frame{Width: 128, Height: 96}
		l, err := texture.NewLayout(texture.Tiling(tiling), 4, 128, 96)
		if err != nil {
			t.Fatal(err)
		}
		for _, tile := range []Tile{{1, 0}, {0, 1}} { // whole, then cut by the frame
			if err := b.StoreZS(v, r.Addr, tiling, tile, &f); err != nil {
				t.Fatal(err)
			}
			for y := 0; y < Size && tile.Y*Size+y < 96; y++ {
				for x := 0; x < Size; x++ {
					off := l.Offset(tile.X*Size+x, tile.Y*Size+y)
					if got := binary.LittleEndian.Uint32(m[off:]); got != b.ZS[y*Size+x] {
						t.Fatalf("%v tile %v pixel (%d,%d) = %#x, want %#x", tiling, tile, x, y, got, b.ZS[y*Size+x])
					}
				}
			}
		}
	}
}

// Stores of the tiles at a frame's right and bottom edges write each
// pixel of the tile inside the frame where the layout puts it and leave
// every other byte of the image alone: frames whose edges cut the tiles
// between utiles (the whole-utile path) and inside them (the general
// path), T and LT, colour and Z/stencil.
func TestEdgeTileStoresFollowTheLayout(t *testing.T) {
	for _, tiling := range []cl.Tiling{cl.TilingT, cl.TilingLT} {
		for _, fs := range [][2]int{{120, 72}, {100, 70}, {98, 64}, {64, 100}, {200, 64}} {
			f := Frame{Width: fs[0], Height: fs[1]}
			l, err := texture.NewLayout(texture.Tiling(tiling), 4, f.Width, f.Height)
			if err != nil {
				t.Fatal(err)
			}
			var b Buffer
			pattern(&b)
			for _, zs := range []bool{false, true} {
				for ty := 0; ty*Size < f.Height; ty++ {
					for tx := 0; tx*Size < f.Width; tx++ {
						v, r, m := memory(t, l.Size())
						for i := range m {
							m[i] = 0xEE
						}
						src := &b.Color
						if zs {
							src = &b.ZS
							err = b.StoreZS(v, r.Addr, tiling, Tile{tx, ty}, &f)
						} else {
							err = b.StoreColor(v, r.Addr, tiling, cl.LoadStoreFormatRGBA8888, Tile{tx, ty}, &f)
						}
						if err != nil {
							t.Fatal(err)
						}
						written := make([]bool, len(m))
						for y := ty * Size; y < min((ty+1)*Size, f.Height); y++ {
							for x := tx * Size; x < min((tx+1)*Size, f.Width); x++ {
								off := l.Offset(x, y)
								want := src[(y-ty*Size)*Size+x-tx*Size]
								if got := binary.LittleEndian.Uint32(m[off:]); got != want {
									t.Fatalf("%v %dx%d zs %v tile (%d,%d): pixel (%d,%d) = %#x, want %#x", tiling, f.Width, f.Height, zs, tx, ty, x, y, got, want)
								}
								for k := range 4 {
									written[off+k] = true
								}
							}
						}
						for i := range m {
							if !written[i] && m[i] != 0xEE {
								t.Fatalf("%v %dx%d zs %v tile (%d,%d): byte %#x outside the tile was written", tiling, f.Width, f.Height, zs, tx, ty, i)
							}
						}
					}
				}
			}
		}
	}
}

// ZWrite's loop for a face without stencil test equals the general loop
// (zWrite), on random depths, masks, functions and update settings, with
// lanes sharing pixels.
func TestZWriteWithoutStencil(t *testing.T) {
	seed := uint64(3)
	next := func() uint32 {
		seed = seed*6364136223846793005 + 1442695040888963407
		return uint32(seed >> 32)
	}
	var a, b Buffer
	for n := 0; n < 20000; n++ {
		var idx [16]uint16
		var z [16]uint32
		for i := range idx {
			idx[i] = uint16(next() % 24) // repeats: later lanes see earlier updates
			z[i] = next() % 8 * 0x200000 // few distinct depths: many ties
			if n%2 == 0 {
				z[i] |= 0xAB000000 // bits above 24 are ignored
			}
		}
		for p := 0; p < 24; p++ {
			a.ZS[p] = ZS(next()%8*0x200000, uint8(next()))
			b.ZS[p] = a.ZS[p]
		}
		d := DepthState{Func: cl.DepthFunc(next() % 8), Update: next()%2 == 0}
		mask := uint16(next())
		var st Stencil
		reverse := n%3 == 0
		if n%5 == 0 { // the other face has a stencil test: not used here
			if reverse {
				st.Setup(1<<30 | 0x00FF0000)
			} else {
				st.Setup(2<<30 | 0x00FF0000)
			}
		}
		pa, sa := a.ZWrite(&idx, &z, mask, d, &st, reverse)
		face := &st.front
		if reverse {
			face = &st.back
		}
		pb, sb := b.zWrite(&idx, &z, mask, d, face)
		if pa != pb || sa != sb || a.ZS != b.ZS {
			t.Fatalf("case %d: pass %#04x/%#04x stencil fail %#04x/%#04x, buffers equal %v", n, pa, pb, sa, sb, a.ZS == b.ZS)
		}
	}
}

// The kernel does not check the alignment of the colour buffer's offset
// (vc4_render_cl.c vc4_rcl_render_config_surface_setup), so
// STORE_MS_TILE_BUFFER can store to an address that is not a multiple of
// four. The store must still put every pixel where the layout says, in
// every memory format (and not trip the race detector's pointer checks).
func TestStoreToUnalignedAddress(t *testing.T) {
	for _, tiling := range []cl.Tiling{cl.TilingLinear, cl.TilingT, cl.TilingLT} {
		v, r, m := memory(t, 64*64*4+64)
		var b Buffer
		pattern(&b)
		f := Frame{Width: 64, Height: 64}
		const skew = 3
		if err := b.StoreColor(v, r.Addr+skew, tiling, cl.LoadStoreFormatRGBA8888, Tile{0, 0}, &f); err != nil {
			t.Fatal(err)
		}
		l, err := texture.NewLayout(texture.Tiling(tiling), 4, 64, 64)
		if err != nil {
			t.Fatal(err)
		}
		for y := range Size {
			for x := range Size {
				off := skew + l.Offset(x, y)
				if got := binary.LittleEndian.Uint32(m[off:]); got != b.Color[y*Size+x] {
					t.Fatalf("%v pixel (%d,%d) = %#x, want %#x", tiling, x, y, got, b.Color[y*Size+x])
				}
			}
		}
		var c Buffer
		if err := c.LoadColor(v, r.Addr+skew, tiling, cl.LoadStoreFormatRGBA8888, Tile{0, 0}, &f); err != nil {
			t.Fatal(err)
		}
		if c.Color != b.Color {
			t.Errorf("%v: the load from the unaligned address does not give back the stored tile", tiling)
		}
	}
}

// randomBlock returns a Block of 8 distinct pairs: a 4×4 block of the
// tile in the element layout of raster.LaneX/LaneY for odd n, pairs
// anywhere in the tile for even n.
func randomBlock(r *rand.Rand, n int) Block {
	var blk Block
	if n%2 != 0 {
		bx, by := 4*r.IntN(Size/4), 4*r.IntN(Size/4)
		p := raster.BlockParity(by)
		for k := range blk.Pair {
			blk.Pair[k] = uint16((by+int(raster.LaneY[p][2*k]))*Size + bx + int(raster.LaneX[p][2*k]))
		}
		return blk
	}
	for k := range blk.Pair {
	again:
		blk.Pair[k] = uint16(2 * r.IntN(Pixels/2))
		for j := range k {
			if blk.Pair[j] == blk.Pair[k] {
				goto again
			}
		}
	}
	return blk
}

// ZWriteBlock, DepthPasses and WriteColorBlock give ZWrite's, Passes' and
// WriteColor's answers for blocks of distinct pixel pairs: random depths
// with many ties and bits above 24, stored depths, masks, every
// function, with and without update, and stencil tests on either face;
// 100000 blocks. zBlock, each version (SSE2 and AVX2 on amd64), and
// colorBlock (SSE2 on amd64) are compared with their Go loops on the
// way.
func TestZWriteBlock(t *testing.T) {
	for _, v := range zBlockVersions() {
		t.Run(v, func(t *testing.T) {
			defer useZBlock(v)()
			testZWriteBlock(t)
		})
	}
}

func testZWriteBlock(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	var a, b, c, e Buffer
	for n := 0; n < 100000; n++ {
		blk := randomBlock(r, n)
		idx := blk.Idx()
		if got, ok := BlockOf(&idx); !ok || got.Pair != blk.Pair {
			t.Fatalf("case %d: BlockOf(%v) = %v, %v; want %v", n, idx, got, ok, blk)
		}
		var z, col [16]uint32
		for i := range idx {
			z[i] = uint32(r.IntN(8)) * 0x200000
			if n%3 == 0 {
				z[i] = r.Uint32()
			}
			if n%2 == 0 {
				z[i] |= 0xAB000000
			}
			col[i] = r.Uint32()
			a.ZS[idx[i]] = ZS(uint32(r.IntN(8))*0x200000, uint8(r.Uint32()))
			if n%3 == 1 {
				a.ZS[idx[i]] = r.Uint32()
			}
			b.ZS[idx[i]], c.ZS[idx[i]], e.ZS[idx[i]] = a.ZS[idx[i]], a.ZS[idx[i]], a.ZS[idx[i]]
			a.Color[idx[i]] = r.Uint32()
			b.Color[idx[i]], c.Color[idx[i]] = a.Color[idx[i]], a.Color[idx[i]]
		}
		d := DepthState{Func: cl.DepthFunc(r.IntN(8)), Update: r.IntN(2) == 0}
		mask := uint16(r.Uint32())
		switch n % 7 {
		case 0:
			mask = 0xFFFF
		case 1:
			mask = 0
		}
		var st Stencil
		reverse := n%3 == 0
		if n%5 == 0 {
			st.Setup(uint32(1+r.IntN(3))<<30 | r.Uint32()&0x0FFFFFFF)
		}
		var want uint16
		for i := range 16 {
			if mask&(1<<i) != 0 && Passes(d.Func, z[i]&0xFFFFFF, a.ZS[idx[i]]>>8) {
				want |= 1 << i
			}
		}
		if got := a.DepthPasses(&blk, &z, mask, d.Func); got != want {
			t.Fatalf("case %d: DepthPasses %#04x, Passes %#04x", n, got, want)
		}
		if got := zBlockGo(&c.ZS, &blk, &z, mask, d.Func, false); got != want || c.ZS != a.ZS {
			t.Fatalf("case %d: zBlockGo without update %#04x, Passes %#04x; buffers equal %v", n, got, want, c.ZS == a.ZS)
		}
		pa, sa := a.ZWriteBlock(&blk, &z, mask, d, &st, reverse)
		pb, sb := b.ZWrite(&idx, &z, mask, d, &st, reverse)
		if pa != pb || sa != sb || a.ZS != b.ZS {
			t.Fatalf("case %d: pass %#04x/%#04x stencil fail %#04x/%#04x, buffers equal %v", n, pa, pb, sa, sb, a.ZS == b.ZS)
		}
		pc := zBlockGo(&c.ZS, &blk, &z, mask, d.Func, d.Update)
		if pe := zBlock(&e.ZS, &blk, &z, mask, d.Func, d.Update); pc != pe || c.ZS != e.ZS {
			t.Fatalf("case %d: zBlockGo %#04x and zBlock %#04x differ, buffers equal %v", n, pc, pe, c.ZS == e.ZS)
		}
		if !st.front.enabled && !reverse || !st.back.enabled && reverse {
			if pc != pa || c.ZS != a.ZS {
				t.Fatalf("case %d: zBlockGo %#04x and ZWriteBlock %#04x differ", n, pc, pa)
			}
		}
		a.WriteColorBlock(&blk, &col, mask)
		b.WriteColor(&idx, &col, mask)
		colorBlockGo(&c.Color, &blk, &col, mask)
		if a.Color != b.Color || c.Color != b.Color {
			t.Fatalf("case %d: colour writes of mask %#04x: WriteColorBlock equal %v, colorBlockGo equal %v", n, mask, a.Color == b.Color, c.Color == b.Color)
		}
		for _, i := range idx { // the next case starts from equal buffers
			c.ZS[i], e.ZS[i] = a.ZS[i], a.ZS[i]
		}
	}
}

// BlockOf takes only distinct horizontal pairs inside the tile.
func TestBlockOf(t *testing.T) {
	good := Block{Pair: [8]uint16{0, 2, 64, 66, 4, 6, 68, 70}}
	idx := good.Idx()
	if blk, ok := BlockOf(&idx); !ok || blk.Pair != good.Pair || blk.rowMask() != 3 {
		t.Fatalf("BlockOf(%v) = %v, %v", idx, blk, ok)
	}
	for name, change := range map[string]func(*[16]uint16){
		"odd pair":         func(i *[16]uint16) { i[2], i[3] = 3, 4 },
		"not adjacent":     func(i *[16]uint16) { i[3] = 5 },
		"repeated pair":    func(i *[16]uint16) { i[14], i[15] = 0, 1 },
		"outside the tile": func(i *[16]uint16) { i[0], i[1] = Pixels, Pixels+1 },
	} {
		bad := idx
		change(&bad)
		if blk, ok := BlockOf(&bad); ok {
			t.Errorf("%s: BlockOf(%v) = %v, want refused", name, bad, blk)
		}
	}
}

// Offset adds the base to every pair, as eight 16-bit additions would,
// for every base a block inside the tile can have (and on big- and
// little-endian words alike: each 16-bit lane is added on its own).
func TestBlockOffset(t *testing.T) {
	layout := Block{Pair: [8]uint16{0, 2, Size, Size + 2, 4, 6, Size + 4, Size + 6}}
	for base := 0; base+3*Size+3 < Pixels; base++ {
		var got Block
		got.Offset(&layout, uint16(base))
		for k, p := range layout.Pair {
			if got.Pair[k] != p+uint16(base) {
				t.Fatalf("base %d: pair %d is %d, want %d", base, k, got.Pair[k], p+uint16(base))
			}
		}
	}
}

// Shifted gives Offset's pairs and rows: a block moved right from its
// row's first is the block Offset makes at its own base, for every
// block of every row of blocks in the tile.
func TestBlockShifted(t *testing.T) {
	layout := Block{Pair: [8]uint16{0, 2, Size, Size + 2, 4, 6, Size + 4, Size + 6}}
	idx := layout.Idx()
	layout, _ = BlockOf(&idx)
	for y := 0; y+4 <= Size; y++ {
		for x0 := 0; x0+4 <= Size; x0 += 2 {
			var first Block
			first.Offset(&layout, uint16(y*Size+x0))
			for x := x0; x+4 <= Size; x += 2 {
				var got, want Block
				got.Shifted(&first, uint16(x-x0))
				want.Offset(&layout, uint16(y*Size+x))
				if got.Pair != want.Pair || got.rowMask() != want.rowMask() || got.rowMask() != exactRows(&got) {
					t.Fatalf("row %d from x %d, block at x %d: pairs %v rows %#x, Offset's %v rows %#x", y, x0, x, got.Pair, got.rowMask(), want.Pair, want.rowMask())
				}
			}
		}
	}
}

// A Block that breaks the rules (odd pixels, pixels past the tile) still
// writes only inside the buffer, and the SSE2 and Go versions agree on it.
func TestBlockOutOfRange(t *testing.T) {
	type guarded struct {
		before [64]uint32
		buf    Buffer
		after  [64]uint32
	}
	var a, b guarded
	// Masked to even pixels of the tile, the pairs are 4094, 2, 0, 4, 4092,
	// 4088, 10 and 12: distinct, so both versions give the same result.
	blk := Block{Pair: [8]uint16{0xFFFF, Pixels + 3, 1, 0x8005, 4093, 0x7FF9, 0x100B, 0xF00D}}
	var z, c [16]uint32
	for i := range z {
		z[i] = 0x1000 + uint32(i)
		c[i] = 0xC0DE0000 + uint32(i)
	}
	for _, buf := range []*Buffer{&a.buf, &b.buf} {
		buf.Clear(ClearValues{Z: 0xFFFFFF, Stencil: 7, Color: 1}, true, true)
	}
	pa := zBlock(&a.buf.ZS, &blk, &z, 0xFFFF, cl.DepthFuncLess, true)
	pb := zBlockGo(&b.buf.ZS, &blk, &z, 0xFFFF, cl.DepthFuncLess, true)
	colorBlock(&a.buf.Color, &blk, &c, 0xFFFF)
	colorBlockGo(&b.buf.Color, &blk, &c, 0xFFFF)
	colorBlock(&a.buf.Color, &blk, &c, 0x5A5A)
	colorBlockGo(&b.buf.Color, &blk, &c, 0x5A5A)
	if a.before != [64]uint32{} || a.after != [64]uint32{} || b.before != [64]uint32{} || b.after != [64]uint32{} {
		t.Fatal("a block write went outside the buffer")
	}
	if pa != pb || a.buf != b.buf {
		t.Errorf("SSE2 and Go differ: pass %#04x/%#04x, buffers equal %v", pa, pb, a.buf == b.buf)
	}
	// Pairs that coincide once masked (the results are unspecified).
	blk = Block{Pair: [8]uint16{0xFFFF, 0xFFFE, 4095, Pixels, 1, 0x8001, 0, 0}}
	zBlock(&a.buf.ZS, &blk, &z, 0xFFFF, cl.DepthFuncAlways, true)
	zBlockGo(&b.buf.ZS, &blk, &z, 0xFFFF, cl.DepthFuncAlways, true)
	colorBlock(&a.buf.Color, &blk, &c, 0x1234)
	colorBlockGo(&b.buf.Color, &blk, &c, 0x1234)
	if a.before != [64]uint32{} || a.after != [64]uint32{} || b.before != [64]uint32{} || b.after != [64]uint32{} {
		t.Fatal("a block write went outside the buffer")
	}
}

// NonZeroLanes (SSE2 on amd64) gives nonZeroGo's and the definition's
// answer on every 16-bit pattern of zero and non-zero elements, with
// non-zero values that have any one bit set, or many.
func TestNonZeroLanes(t *testing.T) {
	for m := 0; m < 1<<16; m++ {
		var v [16]uint32
		for i := range v {
			if m&(1<<i) != 0 {
				v[i] = 1 << ((m + 5*i) % 32)
				if (m+i)%3 == 0 {
					v[i] |= 0xFFFF0000
				}
			}
		}
		if got, goGot := NonZeroLanes(&v), nonZeroGo(&v); got != uint16(m) || goGot != uint16(m) {
			t.Fatalf("%v: NonZeroLanes %#04x, nonZeroGo %#04x, want %#04x", v, got, goGot, m)
		}
	}
}

// ZPassedBlock, with each version of zStore, leaves the buffer as
// ZWriteBlock leaves it when every element of the mask passes the test
// (DepthFuncAlways) and there is no stencil test: the passing elements'
// Z with their stored stencil where update is set, the rows written
// marked, nothing else touched.
func TestZPassedBlock(t *testing.T) {
	for _, v := range zBlockVersions() {
		t.Run(v, func(t *testing.T) {
			defer useZBlock(v)()
			r := rand.New(rand.NewPCG(33, 34))
			var a, b, c Buffer
			for n := 0; n < 100000; n++ {
				blk := randomBlock(r, n)
				idx := blk.Idx()
				var z [16]uint32
				for i := range idx {
					z[i] = r.Uint32()
					a.ZS[idx[i]] = r.Uint32()
					b.ZS[idx[i]], c.ZS[idx[i]] = a.ZS[idx[i]], a.ZS[idx[i]]
				}
				mask := uint16(r.Uint32())
				switch n % 5 {
				case 0:
					mask = 0xFFFF
				case 1:
					mask = 0
				}
				update := n%7 != 3
				a.zs.dirty, b.zs.dirty = 0, 0
				a.ZPassedBlock(&blk, &z, mask, update)
				pass, _ := b.ZWriteBlock(&blk, &z, mask, DepthState{Func: cl.DepthFuncAlways, Update: update}, &Stencil{}, n%2 == 0)
				if pass != mask || a.ZS != b.ZS || a.zs.dirty != b.zs.dirty {
					t.Fatalf("case %d: mask %#04x update %v: ZWriteBlock passes %#04x; buffers equal %v, rows %#x and %#x", n, mask, update, pass, a.ZS == b.ZS, a.zs.dirty, b.zs.dirty)
				}
				zStoreGo(&c.ZS, &blk, &z, mask)
				if update && c.ZS != a.ZS {
					t.Fatalf("case %d: mask %#04x: zStoreGo and zStore differ", n, mask)
				}
				c.ZS = a.ZS
			}
		})
	}
}
