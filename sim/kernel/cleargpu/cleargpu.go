// Package cleargpu is a placeholder VideoCore IV for testing the simulated
// kernel (sim/kernel) before and besides the real GPU model (sim/gpu). It
// performs only what a render control list does without its binned tile
// lists: tile buffer clears, loads and stores. It does not bin, shade or
// rasterise anything, and it does not follow BRANCH_TO_SUB_LIST: a job that
// draws comes out as a cleared (or reloaded) frame. Never use it to judge
// rendering.
//
// Every memory access goes through the job's mem.View, so a test that runs
// accepted jobs on it proves that the render lists the kernel generates stay
// inside the job's buffers.
//
// What it assumes where the reference guide is silent, for the sake of a
// definite behaviour:
//   - general loads and stores touch only the pixels of the tile that lie
//     inside the frame of TILE_RENDERING_MODE_CONFIG (the hardware clips to
//     the frame; a tile wholly outside it touches nothing);
//   - the colour tile buffer holds 32-bit words; a 16-bit (BGR565) store
//     writes the low half of each word and a load fills the low half;
//   - a full-resolution dump is the tile buffer's words in raster order,
//     spec.FullResTileBytes per tile;
//   - the tile buffer and the clear values persist from job to job, as the
//     hardware's do (doc/kernel.md#tile-buffer-persistence).
package cleargpu

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/spec"
	"github.com/vccube/vccube/sim/hw"
	"github.com/vccube/vccube/texture"
)

// tileWords is the tile buffer: one 32-bit word a sample.
const tileWords = spec.TileBufferSamples

// GPU is the placeholder. The zero value is ready to use; it runs one job
// at a time.
type GPU struct {
	mu sync.Mutex

	clearColor [2]uint32
	clearZS    uint32 // Z in bits 31:8, stencil in 7:0 (the ZS buffer's word)
	color      [tileWords]uint32
	zs         [tileWords]uint32

	// Per job.
	job     *hw.Job
	cfg     cl.TileRenderingModeConfig
	tileX   int
	tileY   int
	pending pendingLoad
	eof     bool
	regs    hw.Regs
}

// pendingLoad is a load waiting for the next TILE_COORDINATES.
type pendingLoad struct {
	kind    int // 0 none, 1 general, 2 full-res
	general cl.LoadTileBufferGeneral
	full    cl.LoadFullResTileBuffer
}

// New returns a placeholder GPU.
func New() *GPU { return &GPU{} }

var _ hw.GPU = (*GPU)(nil)

// errHang is the base of the reasons a job hangs.
var errHang = errors.New("cleargpu")

// Run executes the job's render control list (the bin list is not run).
func (g *GPU) Run(job *hw.Job) hw.Result {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.job = job
	g.cfg = cl.TileRenderingModeConfig{}
	g.pending = pendingLoad{}
	g.eof = false
	g.regs = hw.Regs{CT0CA: job.BinEnd, CT0EA: job.BinEnd, CT1CA: job.RenderStart, CT1EA: job.RenderEnd}
	err := g.render()
	g.job = nil
	if err == nil && !g.eof {
		err = fmt.Errorf("%w: the render list ended without an end-of-frame store", errHang)
	}
	if err != nil {
		return hw.Result{Hung: true, Reason: err, Regs: g.regs}
	}
	g.regs.CT1CA = job.RenderEnd
	return hw.Result{Regs: g.regs}
}

func (g *GPU) render() error {
	start, end := g.job.RenderStart, g.job.RenderEnd
	if end <= start {
		return fmt.Errorf("%w: empty render list", errHang)
	}
	buf, off, err := g.job.Mem.Span(start, false, "CLE render list")
	if err != nil {
		return err
	}
	if uint64(off)+uint64(end-start) > uint64(len(buf)) {
		_, err := g.job.Mem.Read(start, end-start, "CLE render list")
		return err
	}
	list := buf[off : off+(end-start)]
	for pos := 0; pos < len(list); {
		g.regs.CT1CA = start + uint32(pos)
		op := spec.Opcode(list[pos])
		p := spec.Lookup(op)
		if p == nil || pos+p.Len > len(list) {
			return fmt.Errorf("%w: packet %d at %#x is not a whole render-list packet", errHang, op, g.regs.CT1CA)
		}
		if err := g.packet(op, list[pos:pos+p.Len]); err != nil {
			return err
		}
		pos += p.Len
	}
	return nil
}

func (g *GPU) packet(op spec.Opcode, b []byte) error {
	switch op {
	case spec.OpNOP, spec.OpWaitOnSemaphore, spec.OpBranchToSubList, spec.OpHalt:
		// No binning here: the tile lists are not followed.
	case spec.OpClearColors:
		var p cl.ClearColors
		_ = p.Unpack(b)
		g.clearColor = [2]uint32{uint32(p.Color), uint32(p.Color >> 32)}
		g.clearZS = p.Z<<8 | uint32(p.Stencil)
	case spec.OpTileRenderingModeConfig:
		_ = g.cfg.Unpack(b)
	case spec.OpTileCoordinates:
		var p cl.TileCoordinates
		_ = p.Unpack(b)
		g.tileX, g.tileY = int(p.Column), int(p.Row)
		return g.doPendingLoad()
	case spec.OpLoadTileBufferGeneral:
		g.pending.kind = 1
		_ = g.pending.general.Unpack(b)
	case spec.OpLoadFullResTileBuffer:
		g.pending.kind = 2
		_ = g.pending.full.Unpack(b)
	case spec.OpStoreTileBufferGeneral:
		var p cl.StoreTileBufferGeneral
		_ = p.Unpack(b)
		return g.storeGeneral(&p)
	case spec.OpStoreMSTileBuffer, spec.OpStoreMSTileBufferAndEOF:
		if err := g.storeColour(); err != nil {
			return err
		}
		g.clear(true, true)
		g.eof = op == spec.OpStoreMSTileBufferAndEOF
	case spec.OpStoreFullResTileBuffer:
		var p cl.StoreFullResTileBuffer
		_ = p.Unpack(b)
		return g.storeFullRes(&p)
	default:
		return fmt.Errorf("%w: packet %v in a render list is not supported by the placeholder GPU", errHang, op)
	}
	return nil
}

func (g *GPU) clear(colour, zs bool) {
	if colour {
		for i := range g.color {
			g.color[i] = g.clearColor[0]
		}
	}
	if zs {
		for i := range g.zs {
			g.zs[i] = g.clearZS
		}
	}
}

// image describes a general load or store target.
type image struct {
	layout texture.Layout
	addr   uint32
}

func (g *GPU) imageOf(tiling cl.Tiling, cpp int, addr uint32) (image, error) {
	w, h := int(g.cfg.Width), int(g.cfg.Height)
	if w == 0 || h == 0 {
		return image{}, nil
	}
	l, err := texture.NewLayout(texture.Tiling(tiling), cpp, w, h)
	if err != nil {
		return image{}, fmt.Errorf("%w: %v", errHang, err)
	}
	return image{layout: l, addr: addr}, nil
}

// forTilePixels calls fn for each pixel of the current tile inside the
// frame, with its index in the tile buffer and its byte offset in img.
func (g *GPU) forTilePixels(img image, fn func(i int, off int)) {
	if img.layout.Cpp() == 0 {
		return
	}
	t := spec.TileSide(g.cfg.Multisample4x)
	w, h := int(g.cfg.Width), int(g.cfg.Height)
	for ty := 0; ty < t; ty++ {
		y := g.tileY*t + ty
		if y >= h {
			break
		}
		for tx := 0; tx < t; tx++ {
			x := g.tileX*t + tx
			if x >= w {
				break
			}
			fn(ty*t+tx, img.layout.Offset(x, y))
		}
	}
}

// span returns the bytes of img, writable or not, through the View.
func (g *GPU) span(img image, write bool, what string) ([]byte, error) {
	n := uint32(img.layout.Size())
	if write {
		return g.job.Mem.Write(img.addr, n, what)
	}
	return g.job.Mem.Read(img.addr, n, what)
}

func (g *GPU) doPendingLoad() error {
	switch g.pending.kind {
	case 1:
		p := &g.pending.general
		g.pending.kind = 0
		return g.loadGeneral(p)
	case 2:
		p := &g.pending.full
		g.pending.kind = 0
		return g.loadFullRes(p)
	}
	return nil
}

func cppOf(format cl.LoadStoreFormat) int {
	if format == cl.LoadStoreFormatRGBA8888 {
		return 4
	}
	return 2
}

func (g *GPU) loadGeneral(p *cl.LoadTileBufferGeneral) error {
	var cpp int
	var dst *[tileWords]uint32
	switch p.Buffer {
	case cl.LoadBufferColor:
		cpp, dst = cppOf(p.Format), &g.color
	case cl.LoadBufferZS:
		cpp, dst = 4, &g.zs
	default:
		return nil
	}
	img, err := g.imageOf(p.Tiling, cpp, p.Address)
	if err != nil || img.layout.Cpp() == 0 {
		return err
	}
	mem, err := g.span(img, false, "TLB general load")
	if err != nil {
		return err
	}
	g.forTilePixels(img, func(i, off int) {
		if cpp == 4 {
			dst[i] = binary.LittleEndian.Uint32(mem[off:])
		} else {
			dst[i] = uint32(binary.LittleEndian.Uint16(mem[off:]))
		}
	})
	return nil
}

func (g *GPU) storeGeneral(p *cl.StoreTileBufferGeneral) error {
	var cpp int
	var src *[tileWords]uint32
	switch p.Buffer {
	case cl.StoreBufferNone:
	case cl.StoreBufferColor:
		cpp, src = cppOf(p.Format), &g.color
	case cl.StoreBufferZS:
		cpp, src = 4, &g.zs
	default:
		return fmt.Errorf("%w: store of buffer %v is not supported by the placeholder GPU", errHang, p.Buffer)
	}
	if src != nil {
		if err := g.store(src, p.Tiling, cpp, p.Address, "TLB general store"); err != nil {
			return err
		}
	}
	g.clear(!p.DisableColorClear, !p.DisableZSClear)
	if p.LastTile {
		g.eof = true
	}
	return nil
}

// storeColour is STORE_MS_TILE_BUFFER: the colour tile to the frame buffer
// of TILE_RENDERING_MODE_CONFIG.
func (g *GPU) storeColour() error {
	cpp := 2
	if g.cfg.Format == cl.RenderFormatRGBA8888 {
		cpp = 4
	}
	return g.store(&g.color, g.cfg.Tiling, cpp, g.cfg.Address, "TLB multisample store")
}

func (g *GPU) store(src *[tileWords]uint32, tiling cl.Tiling, cpp int, addr uint32, what string) error {
	img, err := g.imageOf(tiling, cpp, addr)
	if err != nil || img.layout.Cpp() == 0 {
		return err
	}
	mem, err := g.span(img, true, what)
	if err != nil {
		return err
	}
	g.forTilePixels(img, func(i, off int) {
		if cpp == 4 {
			binary.LittleEndian.PutUint32(mem[off:], src[i])
		} else {
			binary.LittleEndian.PutUint16(mem[off:], uint16(src[i]))
		}
	})
	return nil
}

func (g *GPU) loadFullRes(p *cl.LoadFullResTileBuffer) error {
	mem, err := g.job.Mem.Read(p.Address, spec.FullResTileBytes, "TLB full-resolution load")
	if err != nil {
		return err
	}
	for _, c := range []struct {
		skip bool
		dst  *[tileWords]uint32
	}{{p.DisableColorRead, &g.color}, {p.DisableZSRead, &g.zs}} {
		if c.skip {
			continue
		}
		for i := range c.dst {
			c.dst[i] = binary.LittleEndian.Uint32(mem[4*i:])
		}
	}
	return nil
}

func (g *GPU) storeFullRes(p *cl.StoreFullResTileBuffer) error {
	if !p.DisableColorWrite || !p.DisableZSWrite {
		mem, err := g.job.Mem.Write(p.Address, spec.FullResTileBytes, "TLB full-resolution store")
		if err != nil {
			return err
		}
		src := &g.color
		if p.DisableColorWrite {
			src = &g.zs
		}
		for i, v := range src {
			binary.LittleEndian.PutUint32(mem[4*i:], v)
		}
	}
	if !p.DisableClear {
		g.clear(true, true)
	}
	if p.LastTile {
		g.eof = true
	}
	return nil
}
