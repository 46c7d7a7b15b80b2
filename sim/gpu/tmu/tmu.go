// Package tmu is the VideoCore IV texture and memory lookup unit (TMU) as a
// QPU sees it: the request FIFO a shader fills by writing TMUn_S/T/R/B
// (each write but a direct lookup's carrying a configuration uniform), the
// lookup itself — texture types, T/LT/raster layouts and mip placement
// from package texture, FLIPY, wrap modes, nearest/bilinear/mipmapped
// filtering, level of detail from the quad's derivatives — and the receive
// FIFO that ldtmu pops into r4 ([AG] §4; doc/hardware.md#tmu).
//
// # Returned words
//
// Every lookup returns one 32-bit word per element: four 8-bit channels
// ([AG] §4 "QPU Interface"). For RGBA8888 (and RGBA32R) it is the texel's
// little-endian memory word unchanged (doc/hardware.md#tmu). Other types are
// expanded to 8 bits per channel, the type's first-named channel in byte 0,
// which is what Mesa's format swizzles assume (vc4_formats.c: B5G6R5 and
// B4G4R4A4 pipe formats, whose red field is the most significant, read red
// from byte 0 of RGB565 and byte 1 of RGBA4444's A,R,G,B… see expand):
//
//	RGBA4444  bits 15:12, 11:8, 7:4, 3:0 → bytes 0, 1, 2, 3 (×17)
//	RGBA5551  bits 15:11, 10:6, 5:1 → bytes 0, 1, 2 (5 → 8 bits by
//	          replication); bit 0 → byte 3 (0 or 255)
//	RGB565    bits 15:11, 10:5, 4:0 → bytes 0, 1, 2; byte 3 = 255
//	RGBX8888  the memory word with byte 3 = 255 ("alpha set to 1.0")
//	LUMINANCE L → bytes 0, 1, 2; byte 3 = 255 ([AG] Table 18)
//	ALPHA     A → byte 3; bytes 0–2 = 0 ([AG] Table 18: "RGA set to 0")
//	LUMALPHA  memory byte 0 (L) → bytes 0, 1, 2; memory byte 1 (A) → byte 3
//	          (Mesa maps L8A8, L in the first byte, and reads L from byte 0
//	          and A from byte 3)
//
//	ETC1      each 4×4 block decoded as the OES_compressed_ETC1_RGB8_texture
//	          spec says → bytes 0, 1, 2 (R, G, B); byte 3 = 255 (Mesa's
//	          swizzle for ETC1 reads R, G, B from X, Y, Z, vc4_formats.c)
//
// Not modelled (a lookup fails the job with an *Unsupported error): ETC1
// without P1's ETCFLIP, S16F, S8, S16 (the returned formats are
// undocumented), RGBA64 (two reads per lookup), BW1, A4, A1, YUYV422R
// (refused by the kernel anyway) and child images.
//
// # Cube maps (doc/hardware.md#cube-maps)
//
// With P0's CMMODE the lookup's S, T and R registers are a direction (R is
// the r coordinate, not a border colour: [AG] Tables 21–23) and P2 or P3
// carries the stride between faces ([AG] Table 17). Face k (+X, −X, +Y,
// −Y, +Z, −Z) is a whole mip chain whose level 0 lies k strides above
// P0's base (Mesa vc4_resource.c vc4_setup_slices, vc4_state.c
// vc4_create_sampler_view). The face is the direction's axis of largest
// magnitude and the face coordinates follow OpenGL ES 2.0 §3.7.5 Table
// 3.21 — s = (sc + 1)/2, t = (tc + 1)/2, without a division by the major
// component, which the shader has already made ±1 (Mesa vc4_program.c
// runs nir_normalize_cubemap_coords) — then the face is sampled as a 2D
// texture of P1's size, filters and wraps.
//
// # Filtering (doc/hardware.md#tmu; OpenGL ES 2.0 §3.7.7–3.7.8 where the AG is silent)
//
// Texel space is u = s·w, v = t·h for a level of w×h (the power-of-two
// container below level 0, [AG] §4). NEAREST picks texel floor(u) (ETC1
// rounds u and moves a row edge down, etc1Nearest), LINEAR
// blends the 2×2 texels around (u − ½, v − ½) with weights quantised to
// 1/256 (the hardware's weight precision is not documented; 8 bits is our
// choice). Both filters see s and t in fixed point, subTexelBits below a
// texel of level 0's power-of-two container for a positive coordinate and
// a bit less for a negative one, truncated toward zero (fixCoord: DERIVED
// from the Pi 3 record, doc/hardware.md#tmu). The level of detail is log2 of the larger screen-space footprint
// of a pixel, computed per 2×2 quad from the differences between its
// elements (element 1 − 0 across, element 2 − 0 down; the quad layout of
// doc/hardware.md#rasterisation), plus lodOffset (1/64, DERIVED from the
// Pi 3 record) and the per-element bias from TMUn_B;
// with P2/P3's BSLOD only the bias counts. LOD ≤ c magnifies (MAGFILT, level
// 0), above it MINFILT applies; c is OpenGL ES 2.0 §3.7.8's, ½ for a
// linear MAGFILT with a nearest-mipmap MINFILT and 0 otherwise
// (magnifyUpTo); mip levels run 0…MIPLVLS.
package tmu

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/sim/gpu/internal/lanes"
	"github.com/vccube/vccube/sim/gpu/internal/utiles"
	"github.com/vccube/vccube/sim/mem"
	"github.com/vccube/vccube/texture"
)

// Register indices of the four TMU parameter registers: each one's write
// address less the unit's S address (shaders/qpu WTMU0S..WTMU0B; [AG]
// Tables 14 and 20).
const (
	S = int(qpu.WTMU0S - qpu.WTMU0S)
	T = int(qpu.WTMU0T - qpu.WTMU0S)
	R = int(qpu.WTMU0R - qpu.WTMU0S)
	B = int(qpu.WTMU0B - qpu.WTMU0S)
)

// Unsupported reports a lookup the model does not implement.
type Unsupported struct {
	// What names the feature.
	What string
}

// Error says the feature is not modelled.
func (e *Unsupported) Error() string { return "not modelled: TMU " + e.What }

// Depths of the per-QPU FIFOs ([AG] §4 "QPU Interface"): the request FIFO
// holds eight parameter slots (an (s, t) request takes two), the receive
// FIFO eight colour slots.
const (
	RequestSlots = 8
	ReceiveSlots = 8
)

// recvMask takes a receive FIFO position modulo ReceiveSlots, a power of
// two (the constant below does not compile otherwise): an AND where the
// modulo of a signed int took a dozen instructions a lookup.
const recvMask = ReceiveSlots - 1

const _ uint = -(ReceiveSlots & recvMask)

// ErrDeadlock is returned when a shader writes a parameter while the
// request FIFO is full and the receive FIFO cannot drain it: on the
// hardware the QPU stalls for ever (only the shader itself could read the
// results out).
var ErrDeadlock = errors.New("TMU request FIFO full with its receive FIFO full: the shader would stall for ever")

// ErrEmpty is returned by Receive when no lookup is outstanding: the
// hardware's ldtmu would wait for ever.
var ErrEmpty = errors.New("ldtmu with no TMU lookup outstanding: the shader would stall for ever")

// request is one lookup waiting in the request FIFO.
type request struct {
	regs    [4][16]uint32
	written uint8 // bit r set when register r was written
	params  [4]uint32
	nparams int
	slots   int
}

// Unit is one TMU as one QPU sees it: its request and receive FIFOs and
// its view of memory. The zero value is not ready; use New.
type Unit struct {
	view *mem.View
	// cur is the request being assembled (parameters written, S not yet).
	cur request
	// pending are complete requests waiting for room in the receive FIFO.
	pending     [RequestSlots]request
	npending    int
	usedSlots   int // request slots held by cur and pending
	recv        [ReceiveSlots][16]uint32
	rhead, rlen int

	texs texCache
	span memSpan
	// last is the decoded lookup of the previous request, with its plan,
	// reused when the next one has the same parameters (a shader samples
	// one texture thread after thread); Reset with a view (a new job)
	// forgets it, since its level bytes belong to the old view.
	last    sampler
	lastKey samplerKey
	hasLast bool
	// faceMem is the cube-map faces' level bytes of last (see
	// sampler.faceMem).
	faceMem faceLevels
	// fault is the first failed texel fetch of the lookup in progress.
	fault error

	// Lookups counts completed lookups (quads are counted by the caller).
	Lookups uint64
	// Received counts the results popped by Receive: the lookups the
	// shader read, which the V3D's TMU quad counter counts (the caller
	// turns them into quads).
	Received uint64

	// Reference runs every lookup on the general code: the request FIFO
	// for every request, and nearest(), bilinear() and minify() per
	// element, instead of the fast paths (a lookup completed as its S is
	// written, the 16-element nearest loops). Both give the same results;
	// the general code is the reference the fast paths are tested against.
	Reference bool
}

// New returns a unit that reads through v.
func New(v *mem.View) *Unit { return &Unit{view: v} }

// Reset empties the FIFOs (a new shader thread) and, if v is not nil,
// points the unit at a new job's memory.
func (u *Unit) Reset(v *mem.View) {
	if v != nil {
		// A new job: the memory behind the same addresses may be other
		// buffers now. (The texture layouts cached stay valid: they
		// depend only on the parameters.)
		u.view = v
		u.hasLast = false
	}
	u.span = memSpan{}
	u.cur.begin()
	u.npending, u.usedSlots, u.rhead, u.rlen = 0, 0, 0, 0
}

// Write is a QPU write of vals to parameter register reg (S, T, R or B),
// for the elements in mask (others read as 0, as unwritten parameters do).
// param is the configuration uniform the write popped; direct says the
// write is a direct (general-memory) lookup — an S write with no T, R or B
// written before it — which pops no uniform ([AG] §4 "Texture and Memory
// Lookup Unit Setup"). Writing S completes the request.
func (u *Unit) Write(reg int, vals *[16]uint32, mask uint16, param uint32, direct bool) error {
	if u.usedSlots >= RequestSlots {
		u.drain()
		if u.usedSlots >= RequestSlots {
			return ErrDeadlock
		}
	}
	c := &u.cur
	// atOnce: an S write whose request would go into the empty pending
	// FIFO, where drain would complete it at once.
	atOnce := reg == S && u.npending == 0 && u.rlen < ReceiveSlots && !u.Reference
	switch {
	case atOnce && mask == 0xFFFF:
		// The lookup reads S from vals; c.regs[S] gets a copy only if
		// the request must wait (below).
	case mask == 0xFFFF:
		lanes.Copy(&c.regs[reg], vals)
	default:
		for i := range 16 {
			if mask&(1<<i) != 0 {
				c.regs[reg][i] = vals[i]
			} else {
				c.regs[reg][i] = 0
			}
		}
		vals = &c.regs[reg]
	}
	c.written |= 1 << (uint(reg) & 3) // reg is S, T, R or B: no shift checks
	c.slots++
	u.usedSlots++
	if !direct && c.nparams < len(c.params) {
		c.params[c.nparams] = param
		c.nparams++
	}
	if reg != S {
		return nil
	}
	if atOnce {
		// Do the lookup here, as drain would.
		out := &u.recv[(u.rhead+u.rlen)&recvMask]
		// lookup's answer for this request, without its calls where
		// sample and sameKey would find the last sampler and its plan
		// (lastPlan; TestFastPathsMatchReference).
		if p := u.lastPlan(c); p == planNearestClampT32 {
			nearestClampT32(&u.last.clamp, vals, &c.regs[T], out)
		} else if p == planBilinear {
			// bilinearLevel0, without its call.
			if !bilinearT32(&u.last.bil, vals, &c.regs[T], out) {
				u.bilinearOutOfRange(&u.last, vals, &c.regs[T], out)
			}
		} else if err := u.lookup(c, vals, out); err != nil {
			u.keepPending(c, vals)
			return err
		}
		u.rlen++
		u.usedSlots -= c.slots
		u.Lookups++
		u.cur.begin()
		return nil
	}
	if u.npending == len(u.pending) {
		return ErrDeadlock
	}
	u.pending[u.npending] = *c
	u.npending++
	u.cur.begin()
	return u.drain()
}

// lastPlan returns the last sampler's plan if request r, complete, is a
// texture lookup that sample would serve with it: it wrote T and S only
// (so no border colour), with the two parameters of the last sampler's
// key. Otherwise, or if the unit runs the reference code (whose samplers
// are planned planLanes), it returns planLanes. The cube's every lookup
// is one (planNearestClampT32), and so are glmark2's effect2d blur's
// (the same plan) and its desktop blur's and kmscube's -M rgba
// (planBilinear).
func (u *Unit) lastPlan(r *request) plan {
	k := &u.lastKey
	if r.written == 1<<T|1<<S && r.nparams == 2 && u.hasLast &&
		k.n == 2 && k.border == 0 && k.params[0] == r.params[0] && k.params[1] == r.params[1] {
		return u.last.plan
	}
	return planLanes
}

// begin makes r an empty request: no register written, no parameter. The
// registers keep their old values, which nothing reads: lookup zeroes T
// if it was not written, and R and B are read only when written.
func (r *request) begin() { r.written, r.nparams, r.slots = 0, 0, 0 }

// drain moves pending requests into the receive FIFO while it has room,
// doing the lookups.
func (u *Unit) drain() error {
	for u.npending > 0 && u.rlen < ReceiveSlots {
		r := &u.pending[0]
		out := &u.recv[(u.rhead+u.rlen)&recvMask]
		if err := u.lookup(r, &r.regs[S], out); err != nil {
			return err
		}
		u.rlen++
		u.usedSlots -= r.slots
		copy(u.pending[:], u.pending[1:u.npending])
		u.npending--
		u.Lookups++
	}
	return nil
}

// Receive pops the oldest lookup result into out (an ldtmu signal).
func (u *Unit) Receive(out *[16]uint32) error {
	if u.rlen == 0 {
		if err := u.drain(); err != nil {
			return err
		}
		if u.rlen == 0 {
			return ErrEmpty
		}
	}
	lanes.Copy(out, &u.recv[u.rhead])
	u.rhead = (u.rhead + 1) & recvMask
	u.rlen--
	u.Received++
	if u.npending == 0 {
		return nil // drain would find nothing to do
	}
	return u.drain()
}

// Outstanding returns the number of lookups not yet received.
func (u *Unit) Outstanding() int { return u.rlen + u.npending }

// Idle reports that the unit holds nothing: no parameter of a request
// being assembled, no request pending, no result to receive. A thread
// starts with its units idle (Reset).
func (u *Unit) Idle() bool { return u.usedSlots == 0 && u.rlen == 0 }

// WriteAtOnce is Write for a caller whose requests never wait in the
// request FIFO: the unit was idle (Idle) when the thread started, every
// S write finds fewer than ReceiveSlots results not yet received, at most
// three of T, R and B are written before each S, every write is of all 16
// lanes, and every ReceiveAtOnce follows an S whose result it pops. Under
// those terms Write never finds a FIFO full and always takes its at-once
// path (the lookup done as S is written, its result straight into the
// receive FIFO), so WriteAtOnce does that path alone, without the request
// FIFO's accounting: the unit's state, its results and its errors are
// Write's (TestWriteAtOnceMatchesWrite). Reference must be false. A caller
// that cannot promise the terms calls Write.
//
// Its lookup repeats Write's at-once lookup on purpose: the two as
// calls of one helper (too large to inline) cost the cube's 800x600
// frame 0.3 % more instructions (bench/icount, GOGC=off: 25.68 M
// against 25.61 M, 2026-12-05).
func (u *Unit) WriteAtOnce(reg int, vals *[16]uint32, param uint32, direct bool) error {
	c := &u.cur
	c.written |= 1 << (uint(reg) & 3) // reg is S, T, R or B: no shift checks
	c.slots++
	u.usedSlots++
	if !direct {
		// At most three parameters precede S, so there is room.
		c.params[c.nparams&3] = param
		c.nparams++
	}
	if reg != S {
		lanes.Copy(&c.regs[reg], vals)
		return nil
	}
	out := &u.recv[(u.rhead+u.rlen)&recvMask]
	if p := u.lastPlan(c); p == planNearestClampT32 {
		nearestClampT32(&u.last.clamp, vals, &c.regs[T], out)
	} else if p == planBilinear {
		if !bilinearT32(&u.last.bil, vals, &c.regs[T], out) {
			u.bilinearOutOfRange(&u.last, vals, &c.regs[T], out)
		}
	} else if err := u.lookup(c, vals, out); err != nil {
		u.keepPending(c, vals)
		return err
	}
	u.rlen++
	u.usedSlots -= c.slots
	u.Lookups++
	u.cur.begin()
	return nil
}

// keepPending leaves the FIFOs as drain does when the lookup of request
// c, whose S values are vals, fails at once: the request pending, with
// its S, and a new one begun. Write's and WriteAtOnce's failure path.
func (u *Unit) keepPending(c *request, vals *[16]uint32) {
	if vals != &c.regs[S] {
		lanes.Copy(&c.regs[S], vals)
	}
	u.pending[0] = *c
	u.npending = 1
	u.cur.begin()
}

// ReceiveAtOnce is Receive for WriteAtOnce's caller: a result is waiting
// in the receive FIFO and no request waits behind it.
func (u *Unit) ReceiveAtOnce(out *[16]uint32) {
	lanes.Copy(out, &u.recv[u.rhead])
	u.rhead = (u.rhead + 1) & recvMask
	u.rlen--
	u.Received++
}

// lookup performs one request; s is its S register (r.regs[S], or the
// written values when Write does the lookup at once).
func (u *Unit) lookup(r *request, s *[16]uint32, out *[16]uint32) error {
	if r.written == 1<<S && r.nparams == 0 {
		return u.direct(s, out)
	}
	if r.nparams < 2 {
		return fmt.Errorf("TMU lookup with %d configuration parameters: a texture lookup writes at least two registers ([AG] §4)", r.nparams)
	}
	if r.written&(1<<T) == 0 {
		r.regs[T] = [16]uint32{} // an unwritten parameter reads as 0
	}
	return u.sample(r, s, out)
}

// direct is a general-memory lookup: the 32-bit word at each element's S
// address with its two low bits ignored ([AG] §4).
func (u *Unit) direct(addr *[16]uint32, out *[16]uint32) error {
	for i := range 16 {
		a := addr[i] &^ 3
		b, err := u.span.read(u.view, a, 4)
		if err != nil {
			return err
		}
		out[i] = binary.LittleEndian.Uint32(b)
	}
	return nil
}

// memSpan caches the region of the last texel read, so a lookup costs one
// region search per texture instead of one per texel.
type memSpan struct {
	buf  []byte
	base uint32
}

func (s *memSpan) read(v *mem.View, addr uint32, n uint32) ([]byte, error) {
	if s.buf != nil && addr >= s.base {
		off := uint64(addr - s.base)
		if off+uint64(n) <= uint64(len(s.buf)) {
			return s.buf[off : off+uint64(n)], nil
		}
	}
	buf, off, err := v.Span(addr, false, "TMU fetch")
	if err != nil {
		return nil, err
	}
	if uint64(off)+uint64(n) > uint64(len(buf)) {
		return v.Read(addr, n, "TMU fetch") // faults with the exact range
	}
	s.buf, s.base = buf, addr-off
	return buf[off : off+n], nil
}

// texKey identifies a texture: where its level 0 is and how it is laid out.
type texKey struct {
	base          uint32
	typ           texture.Type
	width, height int
	levels        int
}

// texCache remembers the last few textures' levels with their utile
// tables; a frame samples few textures, and laying one out (NewMipPlan,
// the tables) costs far more than a lookup.
type texCache struct {
	e    [8]*texEntry
	next int
}

type texEntry struct {
	key    texKey
	levels [texture.MaxLevels]level
	n      int
}

func (c *texCache) get(k texKey) (*texEntry, error) {
	for _, e := range c.e {
		if e != nil && e.key == k {
			return e, nil
		}
	}
	e := &texEntry{key: k}
	if err := e.build(); err != nil {
		return nil, err
	}
	c.e[c.next] = e
	c.next = (c.next + 1) % len(c.e)
	return e, nil
}

// build lays out the texture's levels (package texture is the one
// description of where texels live) and tabulates each level's utile
// offsets from it.
func (e *texEntry) build() error {
	k := e.key
	if k.typ == texture.RGBA32R {
		// Erratum HW-2898 ([AG] Appendix A): the TMU's raster-texture
		// address calculation assumes a power-of-two width, so rows are
		// nextpow2(width)·4 bytes apart whatever the width.
		l, err := texture.NewLinearLayout(4, k.width, k.height, nextPow2(k.width)*4)
		if err != nil {
			return err
		}
		e.levels[0] = newLevel(l, k.base, k.width, k.height)
		e.n = 1
		return nil
	}
	plan, err := texture.NewMipPlan(k.typ, k.width, k.height, k.levels)
	if err != nil {
		return err
	}
	top := plan.BaseOffset()
	for i := 0; i < k.levels; i++ {
		// The level's address and layout come from its power-of-two
		// container ([AG] §4 "Texture Data Storage": addresses
		// "determined assuming power of 2 sized images"), but the TMU
		// samples the picture inside it, max(1, w>>i) × max(1, h>>i):
		// the guide has levels "padded to fit within a power of 2
		// container image", i.e. smaller than the container, and Mesa
		// draws and uploads level i at u_minify(width0, i) into its
		// first rows and columns while P1 carries level 0's size
		// (vc4_resource.c vc4_setup_slices, vc4_uniforms.c
		// write_texture_p1), so a lookup at s = 1 must reach the
		// picture's last column, not the container's. (Sampling the
		// container left glmark2's terrain, whose tilt-shift blur
		// samples Mesa-generated mip levels of a 640×480 texture, with
		// the undrawn part of level 1 showing beyond s = 320/512.)
		// Both readings agree for power-of-two textures.
		lv := plan.Level(i)
		e.levels[i] = newLevel(lv.Layout, k.base-uint32(top-lv.Offset), lv.Width, lv.Height)
	}
	e.n = k.levels
	return nil
}

// level is one mip level ready for texel fetches.
type level struct {
	layout texture.Layout
	addr   uint32 // bus address of the level's first byte
	w, h   int    // the size the TMU samples over: the level's picture
	size   int    // bytes the level occupies

	// tab is a T or LT layout tabulated by utile (package utiles); a
	// linear level (tab nil) is addressed with its stride.
	tab      *utiles.Table
	stride   int
	cppShift uint
	// tabEnd is the end of the furthest utile tab.Off places, or -1 if
	// an offset is negative: a level's bytes hold every utile when
	// tabEnd ≤ len(bytes), which planNearestClampT32 needs to fetch
	// without checks.
	tabEnd int
}

func newLevel(l texture.Layout, addr uint32, w, h int) level {
	lv := level{layout: l, addr: addr, w: w, h: h, size: l.Size(), tab: utiles.For(l), stride: l.Stride()}
	for 1<<lv.cppShift < l.Cpp() {
		lv.cppShift++
	}
	if lv.tab != nil {
		utile := 1 << (lv.tab.WShift + lv.tab.HShift + lv.tab.CppShift)
		for _, o := range lv.tab.Off {
			if o < 0 {
				lv.tabEnd = -1
				break
			}
			lv.tabEnd = max(lv.tabEnd, int(o)+utile)
		}
	}
	return lv
}

// offset is layout.Offset(x, y) for 0 ≤ x < w, 0 ≤ y < h.
func (lv *level) offset(x, y int) int {
	if lv.tab == nil {
		return y*lv.stride + x<<lv.cppShift
	}
	return lv.tab.Offset(x, y)
}

// sampler is a decoded lookup.
type sampler struct {
	typ   texture.Type
	cpp   int
	p0    texture.P0
	p1    texture.P1
	bslod bool
	// tex is the face being sampled: faces[face]. A 2D texture has one
	// face, 0; a cube map six (cube), chosen per element.
	tex    *texEntry
	face   int
	faces  [6]*texEntry
	cube   bool
	nlev   int
	border uint32
	// mem[d] is level d's bytes (of face 0) when they lie in one
	// readable region (looked up on first use); bad[d] says they do
	// not, and each texel is then fetched with its own check. A cube
	// map's other faces keep theirs in faceMem, the unit's (so that a
	// 2D sampler stays small to clear).
	mem     [texture.MaxLevels][]byte
	bad     [texture.MaxLevels]bool
	faceMem *faceLevels

	// What every lookup with these parameters shares, worked out once
	// by decode (planLookups) instead of per request.
	plan plan
	// flip is -1 with FLIPY, else 0 (see nearestLevel0).
	flip int
	// ax and ay are level 0's axes (the nearest plans).
	ax, ay axis
	// clamp is planNearestClampT32's parameters.
	clamp clampT32
	// bil is planBilinear's parameters.
	bil bilinT32
	// fixS and fixT are the scales of the fixed-point coordinates the
	// filters see (fixCoord, which halves them for negative
	// coordinates): 2^(log2 nextpow2(W) + subTexelBits) for
	// P1's width W, likewise for the height.
	fixS, fixT float64
	// lanesS and lanesT are fixS and fixT as fixLanes applies them.
	lanesS, lanesT coordFix
}

// faceLevels is sampler.mem and sampler.bad for faces 1 to 5 of a cube
// map (index face − 1).
type faceLevels struct {
	mem [5][texture.MaxLevels][]byte
	bad [5][texture.MaxLevels]bool
}

// plan is how a sampler's lookups are done when the unit is not running
// the reference code. Every plan but planLanes stands for sampleLanes'
// per-element loop on some lookups, and is tested against it.
type plan uint8

const (
	// planLanes: sampleLanes, element by element (the level of detail
	// matters, a filter is reserved, or level 0 is not in one readable
	// region).
	planLanes plan = iota
	// planNearest: nearestLevel0's loops.
	planNearest
	// planNearestClampT32: nearestClampT32, 32-bit texels in 4×4
	// utiles with clamp to edge on both axes (the cube's texture).
	planNearestClampT32
	// planBilinear: bilinearLevel0.
	planBilinear
)

// samplerKey is what decides a lookup's sampler.
type samplerKey struct {
	params [4]uint32
	n      int
	border uint32
}

// sample does a texture lookup with S from s and the other registers
// from r.
func (u *Unit) sample(r *request, s *[16]uint32, out *[16]uint32) error {
	var border uint32
	if r.written&(1<<R) != 0 && r.params[0]&p0CubeMapBit == 0 {
		// Border colour: element 0 of the R write ([AG] §4). A cube
		// map's R is its r coordinate, and its sampler has no border
		// colour (the key must not change with r).
		border = r.regs[R][0]
	}
	if !u.sameKey(r, border) {
		key := samplerKey{params: r.params, n: r.nparams, border: border}
		for i := r.nparams; i < len(key.params); i++ {
			key.params[i] = 0
		}
		if err := u.decode(&u.last, &key); err != nil {
			u.hasLast = false
			return err
		}
		u.lastKey, u.hasLast = key, true
	}
	sm := &u.last
	if !u.Reference {
		switch sm.plan {
		case planNearestClampT32:
			nearestClampT32(&sm.clamp, s, &r.regs[T], out)
			return nil
		case planNearest:
			u.nearestLevel0(sm, s, &r.regs[T], out)
			return nil
		case planBilinear:
			u.bilinearLevel0(sm, s, &r.regs[T], out)
			return nil
		}
	}
	sampleLanes(u, sm, r, s, out)
	return u.fault
}

// sameKey says the last sampler is the one of request r with border
// colour border: its key is r's (the parameters r has, then zeros). It
// compares the parameters one word at a time, as Write stored them: a
// copy of the whole array made right after those stores cannot take
// their values from the store buffer and waits for them (in the cube's
// lookups that wait cost more than the rest of the comparison).
func (u *Unit) sameKey(r *request, border uint32) bool {
	k := &u.lastKey
	if !u.hasLast || k.n != r.nparams || k.border != border {
		return false
	}
	for i := 0; i < r.nparams && i < len(k.params); i++ {
		if k.params[i] != r.params[i] {
			return false
		}
	}
	return true
}

// decode turns a lookup's parameters into a sampler.
func (u *Unit) decode(sm *sampler, k *samplerKey) error {
	*sm = sampler{border: k.border}
	sm.p0 = texture.DecodeP0(k.params[0])
	sm.p1 = texture.DecodeP1(k.params[1])
	stride, strides := uint32(0), 0
	for _, w := range k.params[2:k.n] {
		p := texture.DecodeP2(w)
		switch p.Kind {
		case texture.ParamCubeStride:
			sm.bslod = p.DisableAutoLOD
			stride = p.CubeStride
			strides++
		case texture.ParamChildSize, texture.ParamChildOffset:
			return &Unsupported{"child images"}
		}
	}
	if sm.p0.CubeMap && strides != 1 {
		// The kernel refuses such a lookup ("Cube map stride not set",
		// "Cube map stride set twice": Linux vc4_validate.c
		// reloc_tex); what the hardware would do is not documented.
		return fmt.Errorf("TMU cube-map lookup with %d cube-map strides in P2/P3: it needs exactly one ([AG] Table 17)", strides)
	}
	sm.typ = texture.JoinType(sm.p0, sm.p1)
	switch sm.typ {
	case texture.RGBA8888, texture.RGBX8888, texture.RGBA32R,
		texture.RGBA4444, texture.RGBA5551, texture.RGB565, texture.LUMALPHA,
		texture.LUMINANCE, texture.ALPHA:
		// The types expand turns into the returned word.
		sm.cpp = sm.typ.BitsPerPixel() / 8 // whole bytes for every type above
	case texture.ETC1:
		// 8-byte blocks of 4×4 texels, decoded by etc1Texel. Mesa always
		// sets ETCFLIP for ETC1 (vc4_state.c vc4_create_sampler_view)
		// and its blocks then read as the OES_compressed_ETC1_RGB8_texture
		// spec orders them; which rows a block gives without the flip is
		// not documented.
		if !sm.p1.ETCFlip {
			return &Unsupported{"ETC1 without ETCFLIP"}
		}
		sm.cpp = 8
	default:
		return &Unsupported{fmt.Sprintf("texture type %v", sm.typ)}
	}
	n := int(sm.p0.LastLevel) + 1
	if sm.typ == texture.RGBA32R {
		n = 1
	}
	faces := 1
	if sm.p0.CubeMap {
		faces = 6
	}
	for f := range faces {
		// Face f's level 0 is f strides above the base; its smaller
		// levels lie below it as a 2D texture's do.
		t, err := u.texs.get(texKey{sm.p0.Base + uint32(f)*stride, sm.typ, sm.p1.Width, sm.p1.Height, n})
		if err != nil {
			return err
		}
		sm.faces[f] = t
	}
	sm.cube = sm.p0.CubeMap
	if sm.cube {
		u.faceMem = faceLevels{}
		sm.faceMem = &u.faceMem
	}
	sm.tex, sm.nlev = sm.faces[0], sm.faces[0].n
	sm.fixS = math.Ldexp(float64(nextPow2(int(sm.p1.Width))), subTexelBits)
	sm.fixT = math.Ldexp(float64(nextPow2(int(sm.p1.Height))), subTexelBits)
	sm.lanesS, sm.lanesT = newCoordFix(sm.fixS), newCoordFix(sm.fixT)
	u.planLookups(sm)
	return nil
}

func nextPow2(n int) int {
	p := 1
	for p < n {
		p <<= 1
	}
	return p
}

// p0CubeMapBit is P0's CMMODE ([AG] Table 15), which sample tests before
// decoding P0 (texture.P0.CubeMap is the one description; a test checks
// the two agree).
const p0CubeMapBit = 1 << 9

// lodOf returns the level of detail of each element of a request whose S
// register is s.
func lodOf(sm *sampler, r *request, s *[16]uint32, lod *[16]float32) {
	var bias [16]float32
	if r.written&(1<<B) != 0 {
		for i := range bias {
			bias[i] = math.Float32frombits(r.regs[B][i])
		}
	}
	if sm.bslod {
		*lod = bias
		return
	}
	w, h := float64(sm.p1.Width), float64(sm.p1.Height)
	t := &r.regs[T]
	for q := 0; q < 16; q += 4 {
		f := func(i int) (float64, float64) {
			return float64(math.Float32frombits(s[q+i])) * w, float64(math.Float32frombits(t[q+i])) * h
		}
		u0, v0 := f(0)
		u1, v1 := f(1)
		u2, v2 := f(2)
		dx := math.Hypot(clampAbs(u1-u0, w), clampAbs(v1-v0, h))
		dy := math.Hypot(clampAbs(u2-u0, w), clampAbs(v2-v0, h))
		l := math.Log2(math.Max(dx, dy))
		if math.IsInf(l, -1) || math.IsNaN(l) {
			l = -128
		}
		for i := 0; i < 4; i++ {
			lod[q+i] = float32(l+lodOffset) + bias[q+i]
		}
	}
}

// clampAbs limits a texel-space derivative to the texture's size on its
// axis, keeping its sign: a step of more than the whole texture counts
// as the whole texture.
//
// DERIVED from the Pi 3 record, UNCERTAIN (doc/hardware.md#tmu): dEQP's
// texture.mipmap.2d.basic.*_non_square cases fail on a Pi 3 with exactly
// one 32×64 cell of pure level 5 where OpenGL's level of detail (log2
// 34.3 = 5.10) blends in 10 % of level 6, and this clamp gives that
// cell LOD 5 while changing nothing that agreed with the record
// (doc/conformance.md#deqp-gles2).
func clampAbs(d, size float64) float64 {
	return math.Max(-size, math.Min(d, size))
}

// lodCube is lodOf for a cube map whose direction is (s, t, rz) and
// whose elements sample faces face: element i's level of detail comes
// from the quad's directions projected onto face i (OpenGL ES 2.0
// §3.7.5's face coordinates, divided by the face axis' component), in
// texels of P1's size. The projection undoes the shader's normalisation,
// so the differences are those of the face's own coordinates even for
// the quad's elements whose directions lean onto a neighbouring face.
//
// UNCERTAIN: the guide gives no arithmetic. Two simpler readings fail
// piglit's cubemap tests, which pass on a Pi 3 and draw each face's
// levels 1:1 at odd pixel positions, so that quads straddle a face's
// edge: differencing each element's own face coordinates sees a jump
// where a neighbour changes face (a far smaller mip level than the
// face's), and differencing the normalised directions shrinks the step
// beyond the edge (the next larger level, at faces drawn 4×4).
func lodCube(sm *sampler, r *request, s, t, rz *[16]uint32, face *[16]uint8, lod *[16]float32) {
	w, h := float64(sm.p1.Width), float64(sm.p1.Height)
	var dir [16][3]float64
	for i := range dir {
		dir[i] = [3]float64{float64(math.Float32frombits(s[i])), float64(math.Float32frombits(t[i])), float64(math.Float32frombits(rz[i]))}
	}
	var bias [16]float32
	if r.written&(1<<B) != 0 {
		for i := range bias {
			bias[i] = math.Float32frombits(r.regs[B][i])
		}
	}
	if sm.bslod {
		*lod = bias
		return
	}
	for i := range 16 {
		q := i &^ 3
		f := face[i]
		u0, v0 := projectOnFace(f, dir[q])
		u1, v1 := projectOnFace(f, dir[q+1])
		u2, v2 := projectOnFace(f, dir[q+2])
		dx := math.Hypot((u1-u0)*w, (v1-v0)*h)
		dy := math.Hypot((u2-u0)*w, (v2-v0)*h)
		lod[i] = lodOfFootprint(math.Max(dx, dy)) + lodOffset + bias[i]
	}
}

// lodOffset is what the TMU's level of detail, computed from a quad's
// coordinates, adds to log2 of the footprint (lodOf, lodCube; the bias
// from TMUn_B adds to both, and BSLOD's explicit level has neither).
// DERIVED from Mesa CI's Pi 3 record (doc/hardware.md#tmu):
//   - piglit's ext_texture_compression_s3tc compressedteximage tests draw
//     each level of a 128×128 mipmap 1:1 with NEAREST_MIPMAP_LINEAR and
//     fail on a Pi 3. At an exact level of detail no other level is
//     blended and they pass. They fail when another level's weight is at
//     least 3/256, which an offset of ±3/256 or more gives.
//   - dEQP's texture.mipmap.2d.basic.*_non_square cases fail on a Pi 3
//     too. With clampAbs they fail on the model at offsets 0 and −1/64,
//     and pass at +1/64. So the sign is negative.
//   - Offsets from −0.02 to 0 change nothing else of dEQP-GLES2's
//     texture and fbo groups or piglit's texture tests.
//
// UNCERTAIN: the size, and whether it is an offset at all rather than
// some other imprecision that is not zero at powers of two. 1/64 is the
// smallest power-of-two fraction that fits. The self-test's mip-lod
// probe settles the sign on a Pi (doc/selftest.md).
const lodOffset = -1.0 / 64

// lodOfFootprint is log2 of a footprint in texels, with a zero or NaN
// footprint giving -128 (magnification).
func lodOfFootprint(d float64) float32 {
	l := math.Log2(d)
	if math.IsInf(l, -1) || math.IsNaN(l) {
		l = -128
	}
	return float32(l)
}
