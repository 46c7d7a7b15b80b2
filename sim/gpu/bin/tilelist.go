package bin

import (
	"fmt"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/prim"
	"github.com/vccube/vccube/sim/mem"
)

// Tile lists in tile allocation memory.
//
// Facts ([AG] Table 38 id 112, §8; Linux vc4_validate.c
// validate_tile_binning_config and vc4_render_cl.c emit_tile;
// doc/hardware.md#binning):
//   - tile (x, y)'s list starts in its initial block at
//     tile_alloc + initial_block_size·(y·tiles_x + x), where the render list
//     branches to it;
//   - further blocks of the configured block size are handed out after the
//     initial blocks, "rounded to the next 256 bytes" (kernel comment);
//   - when the memory is exhausted the binner raises OUTOMEM and the host
//     supplies overflow memory through BPOA/BPOS ([AG] §8; vc4_irq.c);
//   - FLUSH ends every list with RETURN_FROM_SUB_LIST.
//
// Our choices where the sources are silent (doc/hardware.md#open-questions, item 1):
//   - a full block is chained with an escape (if a compressed list is open)
//     and a BRANCH to the next block, and the list reopened there with a
//     new COMPRESSED_PRIMITIVE; we do not emit the in-list relative branch
//     (code 130), whose base address is undocumented;
//   - every COMPRESSED_PRIMITIVE starts from the all-zero "previous
//     primitive", as package cl/prim assumes; the renderer decodes the same
//     way;
//   - six bytes of every block are kept free for that escape and branch,
//     which also leave room for the escape and RETURN of a FLUSH;
//   - the tile state data array is checked writable but its contents
//     (spec.TileStateBytes undocumented bytes per tile) are kept inside
//     the model.

// reserve is the room kept at the end of every block: an escape code and a
// BRANCH.
const reserve = 1 + cl.BranchLen

// allocator hands out tile-list blocks.
type allocator struct {
	view     *mem.View
	next     uint32 // next free byte of the current region
	limit    uint64 // end of the current region
	overflow func() (mem.Region, bool)
	// Overflows counts overflow regions received.
	overflows int
}

// alloc returns n bytes of binning memory, asking for overflow memory when
// the current region is used up.
func (a *allocator) alloc(n uint32) (uint32, error) {
	for uint64(a.next)+uint64(n) > a.limit {
		if a.overflow == nil {
			return 0, errOutOfMemory
		}
		r, ok := a.overflow()
		if !ok || r.Size < n {
			return 0, errOutOfMemory
		}
		a.overflows++
		a.next, a.limit = r.Addr, r.End()
	}
	addr := a.next
	a.next += n
	return addr, nil
}

var errOutOfMemory = fmt.Errorf("binner out of tile allocation memory and no overflow memory (OUTOMEM unanswered: \"Couldn't allocate binner overflow mem\")")

// tileList is the writer of one tile's list.
type tileList struct {
	buf  []byte // the current block, aliasing GPU memory
	addr uint32 // bus address of buf[0]
	pos  int    // next byte to write in buf

	open   bool // a compressed primitive list is open
	enc    prim.Encoder
	format cl.PrimitiveListFormat
	hasFmt bool
	// seen[i] is the generation of state item i last written here.
	seen [numItems]uint32
	// prims counts primitives written (for tests and counters).
	prims int
}

// lists is the set of tile lists of one binning pass.
type lists struct {
	tiles     []tileList
	alloc     allocator
	blockSize uint32
}

// room returns the bytes left in t's block before the reserve.
func (t *tileList) room() int { return len(t.buf) - reserve - t.pos }

// ensure makes room for n bytes, chaining a new block if needed.
func (l *lists) ensure(t *tileList, n int) error {
	if t.room() >= n {
		return nil
	}
	if n > int(l.blockSize)-reserve {
		return fmt.Errorf("binner: %d bytes do not fit a %d-byte tile-list block", n, l.blockSize)
	}
	addr, err := l.alloc.alloc(l.blockSize)
	if err != nil {
		return err
	}
	buf, err := l.alloc.view.Write(addr, l.blockSize, "PTB tile list write")
	if err != nil {
		return err
	}
	wasOpen := t.open
	l.closeList(t)
	t.pos += len(cl.Branch{Address: addr}.Append(t.buf[t.pos:t.pos]))
	t.buf, t.addr, t.pos = buf, addr, 0
	if wasOpen {
		var hdr [cl.CompressedPrimitiveLen]byte
		t.openList(cl.CompressedPrimitive{}.Append(hdr[:0]))
	}
	return nil
}

// openList starts a compressed list with its packet, hdr
// (COMPRESSED_PRIMITIVE or CLIPPED_COMPRESSED_PRIMITIVE; room must have
// been ensured).
func (t *tileList) openList(hdr []byte) {
	t.put(hdr)
	t.open = true
	t.enc.Reset()
}

// put appends raw bytes (room must have been ensured).
func (t *tileList) put(b []byte) {
	copy(t.buf[t.pos:], b)
	t.pos += len(b)
}

// closeList ends an open compressed list with the escape code.
func (l *lists) closeList(t *tileList) {
	if t.open {
		t.pos += len(prim.AppendEscape(t.buf[t.pos:t.pos]))
		t.open = false
	}
}

// packet writes a state packet, closing any open compressed list first.
func (l *lists) packet(t *tileList, b []byte) error {
	l.closeList(t)
	if err := l.ensure(t, len(b)); err != nil {
		return err
	}
	t.put(b)
	return nil
}

// primitive appends a primitive to t's compressed list in format f,
// writing PRIMITIVE_LIST_FORMAT and opening a list as needed. clipped,
// when not nil, is a CLIPPED_COMPRESSED_PRIMITIVE packet to start a new
// list with (it applies to the first primitive of the list that follows).
func (l *lists) primitive(t *tileList, f cl.PrimitiveListFormat, p prim.Prim, clipped []byte) error {
	if !t.hasFmt || t.format != f {
		var b [cl.PrimitiveListFormatLen]byte
		if err := l.packet(t, f.Append(b[:0])); err != nil {
			return err
		}
		t.format, t.hasFmt = f, true
	}
	pf, err := prim.FormatOf(f)
	if err != nil {
		return err
	}
	maxPrim := pf.MaxLen()
	if clipped != nil {
		l.closeList(t)
		if err := l.ensure(t, len(clipped)+maxPrim); err != nil {
			return err
		}
		t.openList(clipped)
	} else if !t.open {
		if err := l.ensure(t, cl.CompressedPrimitiveLen+maxPrim); err != nil {
			return err
		}
		var hdr [cl.CompressedPrimitiveLen]byte
		t.openList(cl.CompressedPrimitive{}.Append(hdr[:0]))
	} else if err := l.ensure(t, maxPrim); err != nil {
		return err
	}
	t.enc.Format = pf
	b, err := t.enc.Append(t.buf[t.pos:t.pos], p)
	if err != nil {
		return err
	}
	t.pos += len(b)
	t.prims++
	return nil
}

// flush ends every list with RETURN_FROM_SUB_LIST (FLUSH, [AG] Table 38
// id 4).
func (l *lists) flush() error {
	for i := range l.tiles {
		t := &l.tiles[i]
		l.closeList(t)
		// The reserve always leaves room for the escape and the return.
		t.pos += len(cl.ReturnFromSubList{}.Append(t.buf[t.pos:t.pos]))
	}
	return nil
}
