package kernel

import (
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// Fences (drivers/dma-buf/dma-fence.c, dma-fence-array.c): the completion
// of some work — a vc4 job (vc4_fence.c), a KMS commit's flip (the CRTC's
// out-fence, drm_crtc.c drm_crtc_create_fence) — that syncobjs hold, sync
// files carry between processes and devices, and that SUBMIT_CL and atomic
// commits wait for.
//
// Every fence of the simulator lives under one lock, fenceMu, with the
// sync files that watch them; waiting is on fenceCond. Fences are
// recycled (a per-frame out-fence or job fence allocates nothing once the
// pool has grown), so a Fence must not be used after its last Put.

var (
	fenceMu   sync.Mutex
	fenceCond = sync.NewCond(&fenceMu)
	fencePool []*Fence

	// fenceContexts is dma_fence_context_alloc's counter: every fence
	// timeline (a driver's job queue, a CRTC) gets its own context.
	fenceContexts atomic.Uint64
)

// FenceContextAlloc returns a new fence context (dma_fence_context_alloc).
func FenceContextAlloc() uint64 { return fenceContexts.Add(1) }

// Fence is a struct dma_fence: a point (seqno) on a timeline (context)
// that signals once, with a timestamp.
type Fence struct {
	ctx, seqno       uint64
	driver, timeline string // dma_fence_ops get_driver_name, get_timeline_name
	signaled         bool
	timestamp        int64 // ns on the signaller's clock (CLOCK_MONOTONIC on a Pi)
	refs             int32

	// An array fence (dma_fence_array, what merging sync files of several
	// contexts makes) signals when all of children have.
	children []*Fence
	pending  int

	watchers []watcher // sync files and array fences to tell when it signals
	waiting  int       // callers blocked in Wait
}

// watcher is one thing a fence tells when it signals: a sync file (which
// becomes readable) or an array fence (which counts it).
type watcher struct {
	sf  *syncFile
	arr *Fence
}

// stubFence is dma_fence_get_stub's fence: signalled from the start,
// never freed.
var stubFence = &Fence{driver: "stub", timeline: "stub", signaled: true, refs: 1 << 30}

// StubFence returns the always-signalled fence (dma_fence_get_stub), with
// a reference.
func StubFence() *Fence { return stubFence.Get() }

// NewFence returns an unsignalled fence at seqno on context ctx, named
// for SYNC_IOC_FILE_INFO by its driver and timeline, with one reference.
func NewFence(ctx, seqno uint64, driver, timeline string) *Fence {
	fenceMu.Lock()
	defer fenceMu.Unlock()
	return newFenceLocked(ctx, seqno, driver, timeline)
}

func newFenceLocked(ctx, seqno uint64, driver, timeline string) *Fence {
	var f *Fence
	if n := len(fencePool); n > 0 {
		f = fencePool[n-1]
		fencePool = fencePool[:n-1]
	} else {
		f = &Fence{}
	}
	f.ctx, f.seqno, f.driver, f.timeline = ctx, seqno, driver, timeline
	f.signaled, f.timestamp, f.refs, f.pending, f.waiting = false, 0, 1, 0, 0
	return f
}

// Get takes a reference (dma_fence_get).
func (f *Fence) Get() *Fence {
	fenceMu.Lock()
	f.refs++
	fenceMu.Unlock()
	return f
}

// Put drops a reference (dma_fence_put); the last one recycles the fence.
func (f *Fence) Put() {
	fenceMu.Lock()
	f.putLocked()
	fenceMu.Unlock()
}

func (f *Fence) putLocked() {
	f.refs--
	if f.refs > 0 || f == stubFence {
		return
	}
	for i, c := range f.children {
		c.unwatchLocked(watcher{arr: f})
		c.putLocked()
		f.children[i] = nil
	}
	f.children = f.children[:0]
	clear(f.watchers)
	f.watchers = f.watchers[:0]
	fencePool = append(fencePool, f)
}

// Signal signals the fence at time ts (dma_fence_signal_timestamp): the
// sync files carrying it become readable once all their fences have
// signalled, and its waiters wake. Signalling twice does nothing.
func (f *Fence) Signal(ts int64) {
	fenceMu.Lock()
	f.signalLocked(ts)
	fenceMu.Unlock()
	fenceCond.Broadcast()
}

func (f *Fence) signalLocked(ts int64) {
	if f.signaled {
		return
	}
	f.signaled, f.timestamp = true, ts
	for _, w := range f.watchers {
		switch {
		case w.sf != nil:
			w.sf.wake()
		case w.arr != nil:
			w.arr.pending--
			if w.arr.pending == 0 {
				w.arr.signalLocked(ts)
			}
		}
	}
	clear(f.watchers)
	f.watchers = f.watchers[:0]
}

// unwatchLocked removes w from the fence's watchers.
func (f *Fence) unwatchLocked(w watcher) {
	for i, x := range f.watchers {
		if x == w {
			f.watchers = append(f.watchers[:i], f.watchers[i+1:]...)
			return
		}
	}
}

// Signaled reports whether the fence has signalled (dma_fence_is_signaled).
func (f *Fence) Signaled() bool {
	fenceMu.Lock()
	defer fenceMu.Unlock()
	return f.signaled
}

// Wait blocks until the fence signals (dma_fence_wait, which vc4 and the
// atomic helpers call interruptibly; nothing interrupts it here).
func (f *Fence) Wait() {
	fenceMu.Lock()
	f.waiting++
	for !f.signaled {
		fenceCond.Wait()
	}
	f.waiting--
	fenceMu.Unlock()
}

// Waiting reports how many callers are in Wait on the fence, which a test
// reads to know that a call has reached its wait before it signals.
func (f *Fence) Waiting() int {
	fenceMu.Lock()
	defer fenceMu.Unlock()
	return f.waiting
}

// Context returns the fence's context.
func (f *Fence) Context() uint64 { return f.ctx }

// Seqno returns the fence's position on its context.
func (f *Fence) Seqno() uint64 { return f.seqno }

// Timestamp returns when the fence signalled (0 before).
func (f *Fence) Timestamp() int64 {
	fenceMu.Lock()
	defer fenceMu.Unlock()
	return f.timestamp
}

// onlyContext reports whether the fence, or every fence of an array, is
// on context ctx (dma_fence_match_context).
func (f *Fence) onlyContext(ctx uint64) bool {
	fenceMu.Lock()
	defer fenceMu.Unlock()
	if len(f.children) == 0 {
		return f.ctx == ctx
	}
	for _, c := range f.children {
		if c.ctx != ctx {
			return false
		}
	}
	return true
}

// newArrayLocked makes the array fence of fences (dma_fence_array_create
// with signal_on_any false), taking over their references.
func newArrayLocked(fences []*Fence) *Fence {
	a := newFenceLocked(FenceContextAlloc(), 1, "dma_fence_array", "unbound")
	a.children = append(a.children[:0], fences...)
	for _, c := range fences {
		if !c.signaled {
			a.pending++
			c.watchers = append(c.watchers, watcher{arr: a})
		}
	}
	if a.pending == 0 {
		a.signaled = true
		for _, c := range fences {
			a.timestamp = max(a.timestamp, c.timestamp)
		}
	}
	return a
}

// monotonicNs reads CLOCK_MONOTONIC, the clock of the kernel's fence
// timestamps.
func monotonicNs() int64 {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return ts.Nano()
}
