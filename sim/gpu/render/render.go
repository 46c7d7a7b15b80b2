// Package render is the VideoCore IV's rendering pass: control-list thread
// 1 (CT1) and everything behind it — the tile buffer loads and stores, the
// tile lists the binner wrote, primitive setup, rasterisation, early-Z,
// fragment shading on QPUs with the varyings interpolator, the TMUs and the
// TLB ([AG] §5, §6, §8, §9; doc/kernel.md#the-emitted-list for the render
// lists it runs).
//
// # Tiles in parallel
//
// The hardware renders tiles one after the other with a single tile
// buffer. The model walks the render list once, in order, to follow its
// control state (rendering mode, clear values, tile coordinates, pending
// loads, semaphores) and records every packet as an operation, decoded
// once into what a worker needs to execute it. What a packet does there
// comes from its row of the packet table (cl/spec Packet.Render): its
// control effect (a tile starts, a tile ends, a call, a semaphore) and its
// tile effect (the rendering mode, clear values, a load, a store, state, a
// draw); the workers dispatch on the same row. The pass cuts the
// operations into chains at every tile end whose store clears the whole
// tile buffer: after such a store the buffer holds known clear values, so
// what follows does not depend on what came before except through memory.
// Chains are rendered concurrently by a pool of workers, each with its own
// tile buffer, QPU, TMUs and vertex cache. The kernel's render list (Linux
// vc4_render_cl.c) clears after every tile's last store, so every tile is a
// chain. If two chains load or store the same tile, the chains are run in
// order on one worker instead, so the result never depends on the
// schedule. Once the binner has finished, the workers start on each chain
// as soon as the pass has closed it, while the pass reads on; a chain
// that shares a tile with an earlier one waits, with the chains after
// it, for the flush, and then runs in order.
//
// Each tile list starts from the render list's own state at the chain's
// start (its state packets outside the tile lists), not from what the
// previous tile's list left behind: the binner copies into every list the
// state its primitives need ([AG] §8 "the control list is responsible for
// ensuring that the state is correctly restored at the start of the
// rendering of each tile list"), so lists written by the PTB never depend
// on the difference.
//
// The tile buffer and the clear values outlive a job, as the hardware's do:
// a job that neither clears nor loads sees what the previous job left
// (doc/kernel.md#tile-buffer-persistence).
package render

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/prim"
	"github.com/vccube/vccube/cl/spec"
	"github.com/vccube/vccube/sim/gpu/cle"
	"github.com/vccube/vccube/sim/gpu/internal/modelbug"
	"github.com/vccube/vccube/sim/gpu/qpuexec"
	"github.com/vccube/vccube/sim/gpu/tlb"
	"github.com/vccube/vccube/sim/hw"
	"github.com/vccube/vccube/sim/mem"
)

// Options configure a Renderer.
type Options struct {
	// Workers is the number of tiles rendered at once; 0 means
	// runtime.GOMAXPROCS(0).
	Workers int
	// Permissive keeps shader restriction violations as warnings instead
	// of failing the job.
	Permissive bool
	// Limits bound the render list's work.
	Limits cle.Limits
	// Reference runs the general code instead of the fast paths (QPU,
	// TMU, depth tests; gpu.Options.Reference).
	Reference bool
}

// snapshot is the render thread's control state at a chain's start.
type snapshot struct {
	control
	nstate int // state ops before the chain
	carry  bool
}

type chain struct {
	first, end int
	start      snapshot
	// cleared says the chain ends with the store that clears the whole
	// buffer (every chain but the last of a batch).
	cleared bool
}

// Renderer runs render lists. It keeps the tile buffer and clear values
// between jobs. Close it to stop its workers.
type Renderer struct {
	opts     Options
	cache    *qpuexec.Cache
	view     *mem.View
	th       *cle.Thread
	sem      *cle.Semaphore
	waiting  bool
	counters *hw.Counters

	// The sequential pass's control state.
	ops      []op
	stateOps []int
	chains   []chain
	cur      snapshot
	curFirst int
	control
	frames int // EOF stores seen

	// owner detects tiles stored or loaded by two chains.
	owner    []int32
	ownerGen []uint32
	gen      uint32
	serial   bool

	// carry is the tile buffer as the last chain left it; carryIn the
	// copy the first chain of a batch starts from (so that the last chain
	// may write carry while the first still reads).
	carry, carryIn tlb.Buffer

	workers []*Worker
	work    chan *frameWork
	fw      frameWork
	closed  bool

	// concurrent says nothing else runs on the job's memory while the
	// render thread does (SetConcurrent); streaming says the workers
	// have the current batch and take its chains as the pass closes
	// them.
	concurrent, streaming bool
}

// frameWork is one batch of chains handed to the workers. The workers
// take the chains the pass has published, in order, and wait for more
// until the batch is closed. What they read of the pass's slices is
// published under mu: the pass appends to its own slices while they
// render, and never changes an element it has published.
type frameWork struct {
	r      *Renderer
	done   sync.WaitGroup
	failed atomic.Bool

	mu   sync.Mutex
	more sync.Cond // a chain published, the batch closed or failed
	// The pass's slices as published: chains[:n] may be taken.
	ops      []op
	stateOps []int
	chains   []chain
	n, next  int
	closed   bool
	waiting  int // workers waiting on more
	err      error
	errAt    int
}

// New returns a renderer that loads shaders through cache.
func New(cache *qpuexec.Cache, o Options) *Renderer {
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Limits.Packets == 0 {
		o.Limits = cle.DefaultLimits
	}
	r := &Renderer{opts: o, cache: cache}
	r.fw.r = r
	r.fw.more.L = &r.fw.mu
	r.owner = make([]int32, 256*256)
	r.ownerGen = make([]uint32, 256*256)
	r.work = make(chan *frameWork)
	for i := 0; i < o.Workers; i++ {
		w := newWorker(r, i)
		r.workers = append(r.workers, w)
		go w.loop(r.work)
	}
	return r
}

// Close stops the workers.
func (r *Renderer) Close() {
	if !r.closed {
		r.closed = true
		close(r.work)
	}
}

// Start begins a job's render list [start, end).
func (r *Renderer) Start(v *mem.View, start, end uint32, c *hw.Counters, sem *cle.Semaphore) {
	r.view = v
	if r.th == nil {
		r.th = cle.NewThread(v, "CT1", r.opts.Limits)
	}
	r.th.SetView(v)
	r.th.DeferSubLists(true)
	r.th.Start(start, end)
	r.counters, r.sem = c, sem
	r.waiting = false
	r.ops = r.ops[:0]
	r.stateOps = r.stateOps[:0]
	r.chains = r.chains[:0]
	// The rendering mode, like the clear values, is hardware state that
	// outlives the job: the kernel's list stores (buffer none) before it
	// sends TILE_RENDERING_MODE_CONFIG.
	r.pending.n = 0
	r.tile = tlb.Tile{}
	r.frames = 0
	r.gen++
	r.serial = false
	r.curFirst = 0
	r.cur = r.snap()
	r.cur.carry = true
	for _, w := range r.workers {
		w.setView(v)
	}
}

// SetConcurrent says whether the render thread runs alone on the job's
// memory from now on: the binner has finished, so nothing but the
// rendering writes memory. Then the workers may render each chain as soon
// as the pass over the render list has closed it, while the pass reads
// on. Otherwise (and with Options.Reference) they start when the pass
// reaches a flush, as before the binner is done a chain could read tile
// lists the binner has yet to write.
func (r *Renderer) SetConcurrent(alone bool) { r.concurrent = alone }

// Thread returns the CLE thread (for its registers).
func (r *Renderer) Thread() *cle.Thread { return r.th }

// Frames returns the number of end-of-frame stores the job executed.
func (r *Renderer) Frames() int { return r.frames }

func (r *Renderer) snap() snapshot {
	return snapshot{control: r.control, nstate: len(r.stateOps)}
}

// Run executes the list until it ends or waits on the semaphore; it
// renders the tiles before returning Done. It never returns with a worker
// still rendering: a batch the workers have is finished (at a wait) or
// abandoned (on an error, as the pass's error is the job's).
func (r *Renderer) Run() (cle.Status, error) {
	if r.waiting {
		if !r.sem.Take() {
			return cle.Waiting, nil
		}
		r.waiting = false
	}
	defer func() {
		if r.streaming {
			// A panic in the pass: the job ends, its workers first.
			r.abandon()
		}
	}()
	for {
		p, err := r.th.Next()
		switch {
		case errors.Is(err, cle.ErrEnd), errors.Is(err, cle.ErrHalted):
			return cle.Done, r.flush()
		case err != nil:
			r.abandon()
			return cle.Done, err
		}
		if err := r.packet(&p); err != nil {
			r.abandon()
			var h *cle.HangError
			if errors.As(err, &h) {
				return cle.Done, err
			}
			return cle.Done, r.th.Hang(p.Addr, fmt.Sprintf("%v: %v", p.Op, err), err)
		}
		if r.waiting {
			if r.streaming {
				// What the thread has done so far is rendered before
				// it waits, as at a signal.
				if err := r.flush(); err != nil {
					return cle.Done, err
				}
			}
			return cle.Waiting, nil
		}
	}
}

// use marks the current tile as touched by the current chain.
func (r *Renderer) use() {
	i := r.tile.Y*256 + r.tile.X
	c := int32(len(r.chains))
	if r.ownerGen[i] == r.gen && r.owner[i] != c {
		r.serial = true
	}
	r.ownerGen[i], r.owner[i] = r.gen, c
}

// endChain closes the chain being built: after a store that cleared the
// whole buffer (cleared), or at a flush.
func (r *Renderer) endChain(cleared bool) {
	r.chains = append(r.chains, chain{first: r.curFirst, end: len(r.ops), start: r.cur, cleared: cleared})
	r.curFirst = len(r.ops)
	r.cur = r.snap()
	if !r.serial && r.concurrent && !r.opts.Reference && len(r.workers) > 1 {
		// The chain shares no tile with an earlier one of the batch:
		// the workers may render it now. (Once one does, the rest of
		// the batch waits for the flush, to run in order.)
		if !r.streaming {
			r.startBatch(len(r.workers))
			r.streaming = true
		}
		r.publish(false)
	}
}

// packet follows one packet's effect on the control state and records it,
// decoded.
func (r *Renderer) packet(p *cle.Packet) error {
	d := spec.Lookup(p.Op)
	if d.Lists&spec.RenderList == 0 {
		return fmt.Errorf("packet %v is not valid in a render list", p.Op)
	}
	switch d.Render.Control {
	case spec.ControlWait:
		r.waiting = !r.sem.Take()
		return nil
	case spec.ControlSignal:
		// What the render thread has done so far must be visible before
		// the other thread goes on.
		if err := r.flush(); err != nil {
			return err
		}
		r.sem.Increment()
		return nil
	}
	// decode sets the whole op: grow the slice without zeroing it first.
	if len(r.ops) < cap(r.ops) {
		r.ops = r.ops[:len(r.ops)+1]
	} else {
		r.ops = append(r.ops, op{})
	}
	o := &r.ops[len(r.ops)-1]
	if err := o.decode(d, p); err != nil {
		return err
	}
	loads, err := r.follow(o)
	if err != nil {
		return err
	}
	if len(loads) > 0 {
		r.use()
	}
	switch d.Render.Tile {
	case spec.TileState:
		r.stateOps = append(r.stateOps, len(r.ops)-1)
	case spec.TileDraw:
		if d.Inline != spec.NoInline {
			// A list inline in the render list: the worker decodes it
			// from memory. Skip it here.
			return r.skipInline(d)
		}
	}
	if c := d.Render.Control; c == spec.ControlEndTile || c == spec.ControlEndFrame {
		// A tile ends at every store; a chain at the one that leaves
		// the whole buffer clear.
		t := &o.xfer
		if c == spec.ControlEndFrame || t.lastTile {
			r.frames++
		}
		if t.writes {
			r.use()
		}
		if t.clearColor && t.clearZS {
			r.endChain(true)
		}
	}
	return nil
}

// skipInline moves the thread past the data that follows packet d inline
// in the render list.
func (r *Renderer) skipInline(d *spec.Packet) error {
	if d.Inline != spec.CompressedList {
		return &tlb.Unsupported{What: "VG mode"}
	}
	// The format is the one in effect: the last PRIMITIVE_LIST_FORMAT of
	// the render list's own state (16-bit triangles if none).
	f := prim.Format{Type: prim.Triangles, IndexBits: 16}
	for i := len(r.stateOps) - 1; i >= 0; i-- {
		o := &r.ops[r.stateOps[i]]
		if o.code == spec.OpPrimitiveListFormat {
			var q cl.PrimitiveListFormat
			q.Unpack(o.bytes())
			pf, err := prim.FormatOf(q)
			if err != nil {
				return err
			}
			f = pf
			break
		}
	}
	in, err := r.th.Inline()
	if err != nil {
		return err
	}
	n, err := prim.ListLen(in, f)
	if err != nil {
		return err
	}
	r.th.Skip(n)
	return nil
}

// flush renders the chains recorded so far.
func (r *Renderer) flush() error {
	if len(r.ops) > r.curFirst {
		r.endChain(false)
	}
	err := r.renderChains()
	// Chains are rendered: the next one starts from the tile buffer the
	// last of these left.
	r.chains = r.chains[:0]
	r.cur = r.snap()
	r.cur.carry = true
	r.curFirst = len(r.ops)
	r.gen++
	r.serial = false
	return err
}

// startBatch hands a new batch, with no chain published yet, to n
// workers. The pass has closed its first chain.
func (r *Renderer) startBatch(n int) {
	if r.chains[0].start.carry {
		r.carryIn = r.carry
	}
	fw := &r.fw
	fw.failed.Store(false)
	fw.ops, fw.stateOps, fw.chains = nil, nil, nil
	fw.n, fw.next, fw.closed, fw.waiting = 0, 0, false, 0
	fw.err, fw.errAt = nil, -1
	for _, w := range r.workers {
		w.last = -1
	}
	fw.done.Add(n)
	for i := 0; i < n; i++ {
		r.work <- fw
	}
}

// publish lets the workers take every chain closed so far and, with
// closed, tells them no more will come.
func (r *Renderer) publish(closed bool) {
	fw := &r.fw
	fw.mu.Lock()
	fw.ops, fw.stateOps, fw.chains, fw.n = r.ops, r.stateOps, r.chains, len(r.chains)
	fw.closed = closed
	switch {
	case closed:
		fw.more.Broadcast()
	case fw.waiting > 0:
		fw.more.Signal()
	}
	fw.mu.Unlock()
}

// abandon ends the batch the workers have without rendering the chains
// they have not taken, and forgets their counts: the pass failed, and
// its error is the job's.
func (r *Renderer) abandon() {
	if !r.streaming {
		return
	}
	r.streaming = false
	r.fw.failed.Store(true)
	r.publish(true)
	r.fw.done.Wait()
	for _, w := range r.workers {
		w.counters = hw.Counters{}
	}
}

// renderChains runs r.chains on the workers (or on one, in order, when
// chains share tiles) and keeps the last chain's tile buffer. When the
// workers have the batch already, it closes it: they finish the chains
// published, then one of them runs those the pass held back (the ones
// from the first that shares a tile with an earlier chain), in order.
func (r *Renderer) renderChains() error {
	fw := &r.fw
	if r.streaming {
		r.streaming = false
		if fw.n == len(r.chains) {
			r.publish(true)
			fw.done.Wait()
		} else {
			// Close the batch on the chains published, then hand the
			// rest to one worker.
			fw.mu.Lock()
			fw.closed = true
			fw.more.Broadcast()
			fw.mu.Unlock()
			fw.done.Wait()
			if !fw.failed.Load() {
				r.publish(true)
				fw.done.Add(1)
				r.work <- fw
				fw.done.Wait()
			}
		}
	} else {
		if len(r.chains) == 0 {
			return nil
		}
		n := len(r.workers)
		if r.serial || len(r.chains) == 1 {
			n = 1
		}
		r.startBatch(n)
		r.publish(true)
		fw.done.Wait()
	}
	for _, w := range r.workers {
		if w.last == len(r.chains)-1 {
			r.carry = w.buf
		}
		if r.counters != nil {
			for i, v := range w.counters {
				r.counters[i] += v
			}
		}
		w.counters = hw.Counters{}
	}
	return fw.err
}

// fail records the first error of a batch.
func (fw *frameWork) fail(at int, err error) {
	fw.mu.Lock()
	if fw.err == nil || at < fw.errAt {
		fw.err, fw.errAt = err, at
	}
	fw.failed.Store(true)
	fw.more.Broadcast()
	fw.mu.Unlock()
}

// take returns the next chain of the batch, its index, and the pass's
// slices it reads, waiting for the pass to publish one; false when the
// batch is closed and every chain taken, or failed.
func (fw *frameWork) take(w *Worker) (*chain, int, bool) {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	for fw.next >= fw.n && !fw.closed && !fw.failed.Load() {
		fw.waiting++
		fw.more.Wait()
		fw.waiting--
	}
	if fw.failed.Load() || fw.next >= fw.n {
		return nil, 0, false
	}
	i := fw.next
	fw.next++
	w.ops, w.stateOps = fw.ops, fw.stateOps
	return &fw.chains[i], i, true
}

// runChainSafely is runChain with a panic — a bug in the model, never an
// answer to the job's bytes — turned into the job's hang reason, a
// *modelbug.Error with the stack, instead of taking the whole simulated
// device down.
func (w *Worker) runChainSafely(c *chain) (err error) {
	defer modelbug.Recover(&err)
	return w.runChain(c)
}

// loop is a worker goroutine: it takes chains from each batch it is sent.
func (w *Worker) loop(work chan *frameWork) {
	for fw := range work {
		for {
			c, i, ok := fw.take(w)
			if !ok {
				break
			}
			if err := w.runChainSafely(c); err != nil {
				fw.fail(i, err)
				break
			}
			w.last = i
		}
		w.ops, w.stateOps = nil, nil
		fw.done.Done()
	}
}
