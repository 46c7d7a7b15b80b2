package kernel

import (
	"errors"
	"syscall"
	"time"

	"github.com/vccube/vccube/sim/mem"
	"github.com/vccube/vccube/uapi"
)

// BO is a GEM buffer object: a physically contiguous region of the CMA
// pool (struct vc4_bo in vc4_drv.h over struct drm_gem_dma_object).
//
// The display (sim/display) holds BOs for framebuffers: it gets one with
// File.LookupBO, which takes a reference, and drops it with Put.
type BO struct {
	d      *Driver
	region mem.Region // the memory; Size 0 once purged
	size   uint32     // obj->size: the page-rounded size, kept when purged

	refs   int // GEM object references: handles, mappings, jobs, framebuffers, hang state, dma-bufs
	usecnt int // vc4_bo usecnt: jobs and exports using the memory; blocks purging
	madv   uint32
	kind   boKind
	label  int

	tFormat  bool    // the SET_TILING modifier
	shader   *Shader // the validation record of a shader BO
	imported bool    // a PRIME import of another device's buffer (never cached)

	lastSeq  uint64 // the fence: the seqno of the last job that listed it
	writeSeq uint64 // the exclusive fence: the last job whose render list writes it

	mmapOffset uint64   // the fake offset mmap finds it at
	userMaps   [][]byte // live user mappings, revoked when purged
	sharedMaps int      // live SharedMaps, which keep it from being purged

	inPurgeable bool
	freeTime    time.Time // when it entered the BO cache
}

// boKind is the kernel's BO type (enum vc4_kernel_bo_type in vc4_drv.h),
// which names the BO in the kernel's statistics until user space labels it.
type boKind int

const (
	boKernel boKind = iota
	boV3D
	boV3DShader
	boDumb
	boBin
	boRCL
	boBCL
	boKernelCache
	boKindCount
)

// boKindNames are the statistics names (vc4_bo.c bo_type_names[]).
var boKindNames = [boKindCount]string{"kernel", "V3D", "V3D shader", "dumb", "binner", "RCL", "BCL", "kernel BO cache"}

// Addr returns the BO's bus address, the address the GPU and the display
// use. A purged BO has none (0).
func (b *BO) Addr() uint32 { return b.region.Addr }

// Size returns the BO's size in bytes: the requested size rounded up to
// whole pages.
func (b *BO) Size() uint32 { return b.size }

// Purged reports whether the BO's memory was reclaimed (GEM_MADVISE
// DONTNEED followed by memory pressure).
func (b *BO) Purged() bool { return b.region.Size == 0 }

// TFormat reports whether SET_TILING marked the BO T-tiled
// (DRM_FORMAT_MOD_BROADCOM_VC4_T_TILED), the default modifier KMS assumes
// for a framebuffer on it (vc4_bo.c vc4_set_tiling_ioctl).
func (b *BO) TFormat() bool {
	b.d.mu.Lock()
	defer b.d.mu.Unlock()
	return b.tFormat
}

// Bytes returns the kernel's view of the BO's memory (the pages the GPU
// reads and writes), or nil once purged or once the device's pool is
// closed. It aliases the pool.
func (b *BO) Bytes() []byte {
	if b.region.Size == 0 {
		return nil
	}
	return b.d.pool.Bytes(b.region)
}

// Get takes another reference on the BO (drm_gem_object_get).
func (b *BO) Get() {
	b.d.mu.Lock()
	b.refs++
	b.d.mu.Unlock()
}

// Put drops a reference (drm_gem_object_put); the last one frees the BO
// into the kernel's BO cache.
func (b *BO) Put() {
	b.d.mu.Lock()
	b.d.unref(b)
	b.d.mu.Unlock()
}

// IncUsecnt marks the BO in use by the display: vc4_prepare_fb
// (vc4_plane.c) calls vc4_bo_inc_usecnt for the first BO of a framebuffer
// that enters a primary plane's state, so that the BO cannot be purged
// while it may be scanned out. A BO marked DONTNEED, or already purged, is
// refused with EINVAL unless it is in use already. On a display-only vc4
// (Pi 4/5) the planes have no prepare_fb and nothing is counted.
func (b *BO) IncUsecnt() error {
	b.d.mu.Lock()
	defer b.d.mu.Unlock()
	if b.d.cfg.DisplayOnly {
		return nil
	}
	return b.d.incUsecnt(b)
}

// DecUsecnt ends a use IncUsecnt began (vc4_cleanup_fb calls
// vc4_bo_dec_usecnt); a DONTNEED BO nobody uses becomes purgeable.
func (b *BO) DecUsecnt() {
	b.d.mu.Lock()
	defer b.d.mu.Unlock()
	if b.d.cfg.DisplayOnly {
		return
	}
	b.d.decUsecnt(b)
}

// WritesDone reports whether the last job that renders into the BO has
// finished: the BO's exclusive fence has signalled.
func (b *BO) WritesDone() bool {
	b.d.mu.Lock()
	defer b.d.mu.Unlock()
	return b.d.finishedSeqno >= b.writeSeq
}

// WaitWrites waits until the last job that renders into the BO has
// finished, as an atomic commit waits for the exclusive fences of the
// framebuffers it puts on screen (drm_atomic_helper_wait_for_fences; vc4
// attaches a job's fence to the BOs its render list writes in
// vc4_gem.c vc4_update_bo_seqnos, and vc4_prepare_fb picks it up).
func (b *BO) WaitWrites() {
	b.d.mu.Lock()
	defer b.d.mu.Unlock()
	_ = b.d.waitFor(b.writeSeq, 0, true)
}

// Waiting reports how many calls are blocked until a job finishes
// (WAIT_SEQNO, WAIT_BO, a display commit waiting for the render into its
// framebuffer), which a test reads to know that a call has reached its
// wait before the job may run.
func (d *Driver) Waiting() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.waiters)
}

// cacheExpiry is how long a freed BO stays in the kernel's BO cache
// (vc4_bo.c vc4_bo_cache_free_old: one second).
const cacheExpiry = time.Second

// errCMA is the injected exhaustion of Config.CMAExhaustedAt.
var errCMA = errors.New("kernel: injected CMA exhaustion")

// cmaAlloc is drm_gem_dma_create's allocation from the CMA pool, with the
// fault injection of Config.CMAExhaustedAt.
func (d *Driver) cmaAlloc(size uint64, boundary uint32) (mem.Region, error) {
	if d.cfg.CMAExhaustedAt > 0 && d.cmaAllocs+1 >= d.cfg.CMAExhaustedAt {
		return mem.Region{}, errCMA
	}
	if size > uint64(d.pool.Size()) {
		return mem.Region{}, mem.ErrNoMemory
	}
	r, err := d.pool.Alloc(int(size), boundary)
	if err == nil {
		d.cmaAllocs++
	}
	return r, err
}

// boCreate is vc4_bo_create: a BO of at least size bytes, from the kernel
// BO cache if one of the same page count is there (zeroed unless
// allowUnzeroed), else fresh from CMA; when CMA is short it purges the
// kernel cache, then the user's purgeable BOs, before failing with ENOMEM.
// The BO comes back with one reference and madvise unsupported.
func (d *Driver) boCreate(size uint64, allowUnzeroed bool, kind boKind) (*BO, error) {
	size = (size + mem.PageSize - 1) / mem.PageSize * mem.PageSize
	if size == 0 {
		return nil, errf(syscall.EINVAL, "zero-sized BO")
	}
	if size <= 1<<32-mem.PageSize {
		if bo := d.cacheGet(uint32(size), kind); bo != nil {
			if !allowUnzeroed {
				clear(d.pool.Bytes(bo.region))
			}
			return bo, nil
		}
	}
	return d.boCreateFresh(size, 0, kind)
}

// boCreateFresh allocates from CMA with the purge-and-retry order of
// vc4_bo_create; boundary is mem.Pool.Alloc's.
func (d *Driver) boCreateFresh(size uint64, boundary uint32, kind boKind) (*BO, error) {
	r, err := d.cmaAlloc(size, boundary)
	if err != nil {
		// Out of DMA memory: drop the kernel's cache and retry.
		d.cachePurge()
		r, err = d.cmaAlloc(size, boundary)
	}
	if err != nil {
		// Still short: purge every purgeable user BO and retry.
		d.userspaceCachePurge()
		r, err = d.cmaAlloc(size, boundary)
	}
	if err != nil {
		d.logf("vc4_bo_create: Failed to allocate from GEM DMA helper (%d bytes): %s", size, d.statsLocked())
		return nil, errf(syscall.ENOMEM, "Failed to allocate %d bytes from GEM DMA helper", size)
	}
	bo := &BO{d: d, region: r, size: r.Size, refs: 1, madv: uapi.MadvNotSupp, kind: kind, label: int(kind)}
	bo.mmapOffset = d.nextMmapOffset
	d.nextMmapOffset += uint64(r.Size)
	d.byOffset[bo.mmapOffset] = bo
	d.labels[bo.label].num++
	d.labels[bo.label].size += uint64(bo.size)
	return bo, nil
}

// setLabel moves the BO's statistics to label l (vc4_bo_set_label); an
// unused user label slot is freed.
func (d *Driver) setLabel(bo *BO, l int) {
	old := &d.labels[bo.label]
	old.num--
	old.size -= uint64(bo.size)
	if old.num == 0 && bo.label >= int(boKindCount) {
		old.name = ""
	}
	bo.label = l
	if l >= 0 {
		d.labels[l].num++
		d.labels[l].size += uint64(bo.size)
	}
}

// userLabel returns the slot of a label name: the slot already carrying
// that name (a kernel type's too, so a BO can be labelled "BCL"), else a
// freed user slot, else a new one (vc4_get_user_label).
func (d *Driver) userLabel(name string) int {
	free := -1
	for i := 0; i < len(d.labels); i++ {
		switch d.labels[i].name {
		case "":
			free = i
		case name:
			return i
		}
	}
	if free >= 0 {
		d.labels[free].name = name
		return free
	}
	d.labels = append(d.labels, label{name: name})
	return len(d.labels) - 1
}

// cacheGet takes a BO of exactly size bytes from the kernel BO cache
// (vc4_bo_get_from_cache): the most recently freed one.
func (d *Driver) cacheGet(size uint32, kind boKind) *BO {
	list := d.cacheBySize[size]
	if len(list) == 0 {
		return nil
	}
	bo := list[len(list)-1]
	d.cacheRemove(bo)
	bo.refs = 1
	d.setLabel(bo, int(kind))
	bo.kind = kind
	return bo
}

// cacheRemove takes bo out of both cache lists.
func (d *Driver) cacheRemove(bo *BO) {
	list := d.cacheBySize[bo.size]
	for i, b := range list {
		if b == bo {
			d.cacheBySize[bo.size] = append(list[:i], list[i+1:]...)
			break
		}
	}
	for i, b := range d.cacheTime {
		if b == bo {
			d.cacheTime = append(d.cacheTime[:i], d.cacheTime[i+1:]...)
			break
		}
	}
}

// cachePurge destroys every cached BO (vc4_bo_cache_purge).
func (d *Driver) cachePurge() {
	for len(d.cacheTime) > 0 {
		bo := d.cacheTime[len(d.cacheTime)-1]
		d.cacheRemove(bo)
		d.destroy(bo)
	}
}

// cacheFreeOld destroys the BOs that have been in the cache for a second
// (vc4_bo_cache_free_old) and rearms the timer for the rest.
func (d *Driver) cacheFreeOld() {
	expire := d.now().Add(-cacheExpiry)
	for len(d.cacheTime) > 0 {
		bo := d.cacheTime[0]
		if bo.freeTime.After(expire) {
			if d.cacheTimer != nil {
				d.cacheTimer.Reset(cacheExpiry)
			}
			return
		}
		d.cacheRemove(bo)
		d.destroy(bo)
	}
}

// destroy returns the BO's memory to the pool (vc4_bo_destroy).
func (d *Driver) destroy(bo *BO) {
	d.setLabel(bo, -1)
	bo.shader = nil
	if bo.region.Size != 0 {
		d.pool.Free(bo.region)
		bo.region = mem.Region{}
	}
	delete(d.byOffset, bo.mmapOffset)
}

// unref drops a reference; the last one frees the BO (vc4_free_object):
// into the BO cache when it can be reused, else back to the pool.
func (d *Driver) unref(bo *BO) {
	bo.refs--
	if bo.refs > 0 {
		return
	}
	if bo.refs < 0 {
		panic("kernel: BO reference count below zero")
	}
	if bo.madv == uapi.MadvDontNeed && bo.usecnt == 0 {
		d.removePurgeable(bo)
	}
	// Imported BOs are someone else's memory; purged ones have none; a
	// display-only vc4 (vc5_drm_driver) uses plain DMA GEM objects with
	// no cache.
	if bo.imported || bo.region.Size == 0 || d.cfg.DisplayOnly {
		d.destroy(bo)
		return
	}
	bo.shader = nil
	bo.madv = uapi.MadvNotSupp
	bo.usecnt = 0
	bo.tFormat = false
	bo.freeTime = d.now()
	d.cacheBySize[bo.size] = append(d.cacheBySize[bo.size], bo)
	d.cacheTime = append(d.cacheTime, bo)
	d.setLabel(bo, int(boKernelCache))
	d.cacheFreeOld()
}

// addPurgeable puts a DONTNEED BO nobody uses on the purgeable list
// (vc4_bo_add_to_purgeable_pool).
func (d *Driver) addPurgeable(bo *BO) {
	if !bo.inPurgeable {
		bo.inPurgeable = true
		d.purgeable = append(d.purgeable, bo)
	}
}

func (d *Driver) removePurgeable(bo *BO) {
	if !bo.inPurgeable {
		return
	}
	bo.inPurgeable = false
	for i, b := range d.purgeable {
		if b == bo {
			d.purgeable = append(d.purgeable[:i], d.purgeable[i+1:]...)
			return
		}
	}
}

// userspaceCachePurge purges every purgeable BO (vc4_bo_userspace_cache_purge).
func (d *Driver) userspaceCachePurge() {
	for len(d.purgeable) > 0 {
		bo := d.purgeable[0]
		d.removePurgeable(bo)
		if bo.madv == uapi.MadvDontNeed && bo.usecnt == 0 && bo.sharedMaps == 0 {
			d.purge(bo)
		}
	}
}

// purge frees a DONTNEED BO's memory; its user mappings fault from now on
// (vc4_bo_purge: drm_vma_node_unmap, dma_free_wc; vc4_fault answers
// SIGBUS).
func (d *Driver) purge(bo *BO) {
	for _, m := range bo.userMaps {
		_ = d.pool.RevokeUser(m)
	}
	d.pool.Free(bo.region)
	bo.region = mem.Region{}
	bo.madv = uapi.MadvPurged
	d.purgedNum++
	d.purgedSize += uint64(bo.size)
}

// incUsecnt marks the BO in use by a job, an export or a plane; a
// purgeable or purged BO cannot be used (vc4_bo_inc_usecnt: EINVAL).
func (d *Driver) incUsecnt(bo *BO) error {
	if bo.usecnt > 0 {
		bo.usecnt++
		return nil
	}
	switch bo.madv {
	case uapi.MadvWillNeed:
		bo.usecnt = 1
		return nil
	case uapi.MadvDontNeed:
		return errf(syscall.EINVAL, "the BO is marked purgeable (GEM_MADVISE DONTNEED)")
	case uapi.MadvPurged:
		return errf(syscall.EINVAL, "the BO was purged (GEM_MADVISE DONTNEED, then memory pressure)")
	}
	return errf(syscall.EINVAL, "the BO is the kernel's own (no madvise state)")
}

// decUsecnt ends a use; an unused DONTNEED BO becomes purgeable
// (vc4_bo_dec_usecnt).
func (d *Driver) decUsecnt(bo *BO) {
	if bo.usecnt == 0 {
		return
	}
	bo.usecnt--
	if bo.usecnt == 0 && bo.madv == uapi.MadvDontNeed {
		d.addPurgeable(bo)
	}
}
