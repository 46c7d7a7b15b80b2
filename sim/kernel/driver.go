package kernel

import (
	"errors"
	"fmt"
	"math/bits"
	"sync"
	"syscall"
	"time"

	"github.com/vccube/vccube/sim/hw"
	"github.com/vccube/vccube/sim/mem"
)

// Config configures a Driver.
type Config struct {
	// Pool is the CMA pool every BO comes from. Required.
	Pool *mem.Pool
	// GPU runs the validated jobs. Required unless NoV3D or DisplayOnly
	// (then no job can be submitted).
	GPU hw.GPU
	// NoV3D models a vc4 whose V3D is not bound (a Pi 0-3 device tree
	// with the V3D node disabled): SUBMIT_CL, GET_PARAM, GET_HANG_STATE,
	// the perfmon ioctls, CREATE_BO and CREATE_SHADER_BO fail with ENODEV
	// (the !vc4->v3d checks in vc4_gem.c, vc4_bo.c, vc4_drv.c,
	// vc4_perfmon.c; doc/kernel.md#probing-the-device).
	NoV3D bool
	// DisplayOnly models the vc4 of a Pi 4 or 5 (vc5_drm_driver): its
	// only buffers are plain DMA GEM objects from dumb buffers, which are
	// not cached. Package sim refuses every vc4 ioctl before it gets here.
	DisplayOnly bool
	// Now is the clock of the BO cache's one-second expiry; time.Now if nil.
	Now func() time.Time
	// CMAExhaustedAt injects CMA exhaustion: the Nth fresh CMA allocation
	// (counting every BO the kernel allocates from the pool: user BOs,
	// dumb buffers, the 16 MiB binner BO a process's first CREATE_BO
	// takes, and the exec and render-list BOs of each submit, but not BOs
	// reused from the BO cache) and every later one fail, as an exhausted
	// pool does. 0 disables it.
	CMAExhaustedAt int
	// Log receives the lines the kernel would print (drm_err, DRM_INFO),
	// such as "Resetting GPU." May be nil.
	Log func(line string)
	// OnJobDone, if set, is called after the GPU ran each job (after
	// each run, when a job hung in binning is restarted), before the job
	// is retired; tests use it to check the job's memory accesses.
	OnJobDone func(JobReport)
	// HangcheckPeriod is the time between two of the kernel's hang
	// checks (hang.go): a hung job is reset at the second check after the
	// GPU stopped. KernelHangcheckPeriod is the kernel's; 0 resets a
	// hung job as soon as the GPU reports it.
	HangcheckPeriod time.Duration
	// BinHangRestarts is how many times a job whose binning hung is
	// restarted after a reset before it is force-completed. The kernel
	// restarts it every time (vc4_irq.c vc4_cancel_bin_job), which is a
	// negative value here: a job that hangs in the binner on every run
	// then never ends. 0, the default, force-completes it at once as a
	// job hung in the render thread is.
	BinHangRestarts int
	// GPUFaults make the GPU hang, stall or run late on chosen jobs.
	GPUFaults GPUFaults
	// CountEvents makes the GPU count every job's performance events, as
	// if a perfmon were attached to each, for JobReport.Job.Counters (a
	// benchmark's view of every job, whatever the client asked for). It
	// changes nothing a client can see: only a perfmon the client created
	// receives counts.
	CountEvents bool
}

// JobReport describes a job the GPU ran.
type JobReport struct {
	Seqno uint64
	// Run counts the job's runs from 1: a job whose binning hung runs
	// again after the reset (Config.BinHangRestarts).
	Run int
	// Result is what the GPU returned.
	Result hw.Result
	// Faults counts the GPU accesses outside the job's memory that the
	// View refused; First is the first of them.
	Faults uint64
	First  *mem.Fault
	// Job is the job as the GPU saw it; valid only during the callback.
	Job *hw.Job
}

// Driver is one simulated vc4 device: the state Linux keeps in struct
// vc4_dev.
//
// Observable differences from the real driver, besides the stricter checks
// commented where they are made:
//   - jobs run one at a time on a worker goroutine (hw.GPU.Run takes a
//     whole job), so the binning of one job never overlaps the rendering
//     of the previous one;
//   - a hung job is known when hw.GPU.Run returns; the hang check that
//     resets it follows Config.HangcheckPeriod after that (hang.go);
//   - waits are not interrupted by signals (no EINTR or ERESTARTSYS);
//   - mmap offsets are never reused;
//   - syncobjs are not modelled: in_sync and out_sync must be 0.
type Driver struct {
	mu   sync.Mutex
	cfg  Config
	pool *mem.Pool

	// BO cache (vc4_dev.bo_cache) and purgeable list (vc4_dev.purgeable).
	cacheBySize map[uint32][]*BO
	cacheTime   []*BO // oldest first
	cacheTimer  *time.Timer
	purgeable   []*BO
	purgedNum   int
	purgedSize  uint64
	labels      []label
	cmaAllocs   int

	nextMmapOffset uint64
	byOffset       map[uint64]*BO
	userMaps       map[*byte]*BO
	exported       map[*BO]*dmabuf

	// The binner BO and its 32 slots (vc4_v3d.c bin_bo_alloc).
	binBO        *BO
	binRefs      int
	binAllocUsed uint32

	// The job queue (vc4_gem.c).
	emitSeqno     uint64
	finishedSeqno uint64
	queue         []*job // submitted, not yet retired; queue[0] runs first
	freeJobs      []*job
	wake          chan struct{}
	quit          chan struct{}
	workerDone    chan struct{}
	waiters       []*waiter
	freeWaiters   []*waiter
	hang          *hangState
	fenceCtx      uint64    // vc4->dma_fence_context: the fence context of the jobs
	epoch         time.Time // the hang checks' clock starts here

	closed bool
}

type label struct {
	name string
	num  int
	size uint64
}

// New starts a driver over cfg.Pool.
func New(cfg Config) (*Driver, error) {
	if cfg.Pool == nil {
		return nil, errors.New("kernel: Config.Pool is nil")
	}
	if cfg.GPU == nil && !cfg.NoV3D && !cfg.DisplayOnly {
		return nil, errors.New("kernel: Config.GPU is nil: pass the GPU model (sim/gpu) or, for kernel-only tests, cleargpu.GPU")
	}
	d := &Driver{
		cfg:         cfg,
		fenceCtx:    FenceContextAlloc(),
		pool:        cfg.Pool,
		cacheBySize: map[uint32][]*BO{},
		byOffset:    map[uint64]*BO{},
		userMaps:    map[*byte]*BO{},
		exported:    map[*BO]*dmabuf{},
		wake:        make(chan struct{}, 1),
		quit:        make(chan struct{}),
		workerDone:  make(chan struct{}),
		epoch:       time.Now(),
	}
	for _, n := range boKindNames {
		d.labels = append(d.labels, label{name: n})
	}
	// Fake mmap offsets start where the DRM core's do
	// (DRM_FILE_PAGE_OFFSET_START in drm_gem.c): past 4 GiB on 64-bit
	// kernels, at 256 MiB + 64 KiB on 32-bit ones.
	if bits.UintSize == 64 {
		d.nextMmapOffset = 1 << 32
	} else {
		d.nextMmapOffset = 0x10000000 + 16*mem.PageSize
	}
	d.cacheTimer = time.AfterFunc(time.Hour, func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		if !d.closed {
			d.cacheFreeOld()
		}
	})
	d.cacheTimer.Stop()
	go d.worker()
	return d, nil
}

// Close retires the queued jobs, frees the cached BOs and stops the
// driver. BOs still held by open files stay allocated in the pool.
func (d *Driver) Close() error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	d.closed = true
	d.mu.Unlock()
	close(d.quit)
	<-d.workerDone
	d.mu.Lock()
	defer d.mu.Unlock()
	d.cacheTimer.Stop()
	d.releaseExports()
	d.cachePurge()
	if d.hang != nil {
		d.freeHangState(d.hang)
		d.hang = nil
	}
	return nil
}

func (d *Driver) now() time.Time {
	if d.cfg.Now != nil {
		return d.cfg.Now()
	}
	return time.Now()
}

func (d *Driver) logf(format string, args ...any) {
	if d.cfg.Log != nil {
		d.cfg.Log(fmt.Sprintf(format, args...))
	}
}

// LabelStats is one line of the kernel's BO statistics
// (/sys/kernel/debug/dri/N/bo_stats, vc4_bo.c vc4_bo_stats_print).
type LabelStats struct {
	Name  string
	Count int
	Bytes uint64
}

// Stats returns the BO statistics as the kernel prints them
// (vc4_bo_stats_print): a line per label with BOs, the kernel's types
// first, then, when not zero, the "userspace BO cache" (the BOs marked
// DONTNEED that nobody uses, which memory pressure purges) and the "total
// purged BO" so far.
func (d *Driver) Stats() []LabelStats {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.statsLines()
}

func (d *Driver) statsLines() []LabelStats {
	var out []LabelStats
	for _, l := range d.labels {
		if l.num > 0 {
			out = append(out, LabelStats{l.name, l.num, l.size})
		}
	}
	if n := len(d.purgeable); n > 0 {
		var size uint64
		for _, bo := range d.purgeable {
			size += uint64(bo.size)
		}
		out = append(out, LabelStats{"userspace BO cache", n, size})
	}
	if d.purgedNum > 0 {
		out = append(out, LabelStats{"total purged BO", d.purgedNum, d.purgedSize})
	}
	return out
}

// statsLocked is the statistics as one log line, with the pool's use.
func (d *Driver) statsLocked() string {
	s := ""
	for _, l := range d.statsLines() {
		s += fmt.Sprintf("%s: %dkb BOs (%d); ", l.Name, l.Bytes/1024, l.Count)
	}
	used, free, largest := d.pool.Stats()
	return s + fmt.Sprintf("CMA %d KiB used, %d KiB free, largest free %d KiB", used/1024, free/1024, largest/1024)
}

// File is one open file of the device: its GEM handles, its perfmons and
// its claim on the binner BO (struct drm_file with struct vc4_file).
type File struct {
	d         *Driver
	handles   []*BO // index = handle; handle 0 is never used
	binBOUsed bool
	perfmons  []*perfmon // index = id; id 0 is never used
	closed    bool
	user      UserMemory // the memory of the process the file belongs to
	files     UserFiles  // and its descriptor table
	syncobjs  []*syncobj // index = handle; handle 0 is never used
}

// Open opens a new file on the device (vc4_open) for a caller in this
// process: its user pointers are addresses here (LocalMemory), its
// descriptors this process's (LocalFiles).
func (d *Driver) Open() *File { return d.OpenFor(nil, nil) }

// OpenFor opens a new file for a process whose memory u reaches (every
// copy_from_user and copy_to_user of the file's ioctls goes through u)
// and whose descriptor table is files. nil means this process's
// (LocalMemory, LocalFiles).
func (d *Driver) OpenFor(u UserMemory, files UserFiles) *File {
	if u == nil {
		u = LocalMemory
	}
	if files == nil {
		files = LocalFiles
	}
	return &File{d: d, handles: make([]*BO, 1, 16), perfmons: make([]*perfmon, 1), user: u, files: files, syncobjs: make([]*syncobj, 1)}
}

// User returns the memory of the process the file belongs to.
func (f *File) User() UserMemory { return f.user }

// Files is the descriptor table of the process the file belongs to.
func (f *File) Files() UserFiles { return f.files }

// Close releases everything the file owns, as closing a DRM fd does:
// every handle (drm_gem_release), the binner BO claim and the perfmons
// (vc4_close). Jobs the file queued keep their own references.
func (f *File) Close() {
	d := f.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if f.closed {
		return
	}
	f.closed = true
	for h, bo := range f.handles {
		if bo != nil {
			f.handles[h] = nil
			d.unref(bo)
		}
	}
	if f.binBOUsed {
		f.binBOUsed = false
		d.binBOPut()
	}
	clear(f.perfmons)
	clear(f.syncobjs) // drm_syncobj_release
}

// newHandle gives bo the lowest free handle of the file, starting at 1
// (drm_gem_handle_create: idr_alloc(.., 1, 0, ..)), taking a reference.
func (f *File) newHandle(bo *BO) uint32 {
	bo.refs++
	for h := 1; h < len(f.handles); h++ {
		if f.handles[h] == nil {
			f.handles[h] = bo
			return uint32(h)
		}
	}
	f.handles = append(f.handles, bo)
	return uint32(len(f.handles) - 1)
}

// lookup is drm_gem_object_lookup without the reference: nil for an
// unknown handle.
func (f *File) lookup(handle uint32) *BO {
	if f.closed || handle == 0 || uint64(handle) >= uint64(len(f.handles)) {
		return nil
	}
	return f.handles[handle]
}

// hasHandleTo reports whether the file holds a handle to bo, which
// mmap requires (drm_vma_node_is_allowed).
func (f *File) hasHandleTo(bo *BO) bool {
	for _, b := range f.handles {
		if b == bo {
			return true
		}
	}
	return false
}

// LookupBO returns the BO a handle of this file names, with a reference
// the caller drops with BO.Put: the way the display resolves the handles
// of ADDFB2 (drm_gem_object_lookup). An unknown handle is ENOENT.
func (f *File) LookupBO(handle uint32) (*BO, error) {
	d := f.d
	d.mu.Lock()
	defer d.mu.Unlock()
	bo := f.lookup(handle)
	if bo == nil {
		return nil, errf(syscall.ENOENT, "no GEM handle %d", handle)
	}
	bo.refs++
	return bo, nil
}

// binBOGet takes a reference on the binner BO, allocating it if nobody
// holds one (vc4_v3d_bin_bo_get, bin_bo_alloc): 16 MiB that must not cross
// a 256 MiB boundary, because the binner's tile-state pointers keep only
// the low 28 bits, split into 32 slots of 512 KiB.
//
// The kernel allocates in a loop until a BO does not cross the boundary;
// the model asks the pool for such a region directly.
func (d *Driver) binBOGet() error {
	if d.binBO != nil {
		d.binRefs++
		return nil
	}
	bo, err := d.boCreateFresh(binBOSize, 1<<28, boBin)
	if err != nil {
		d.logf("Failed to allocate memory for tile binning: -12. You may need to enable DMA or give it more memory.")
		return err
	}
	d.binBO = bo
	d.binRefs = 1
	d.binAllocUsed = 0
	return nil
}

// binBOPut drops a reference on the binner BO; the last frees it.
func (d *Driver) binBOPut() {
	d.binRefs--
	if d.binRefs == 0 {
		bo := d.binBO
		d.binBO = nil
		d.unref(bo)
	}
}

// The binner BO (vc4_v3d.c bin_bo_alloc): 16 MiB in 32 slots of 512 KiB.
const (
	binBOSize    = 16 << 20
	binSlotSize  = 512 << 10
	binSlotCount = binBOSize / binSlotSize
)

// grabBinBO takes the file's reference on the binner BO at its first BO
// creation (vc4_bo.c vc4_grab_bin_bo); ENODEV without a V3D.
func (f *File) grabBinBO() error {
	if f.d.cfg.NoV3D {
		return errf(syscall.ENODEV, "no VC4 V3D probed")
	}
	if f.binBOUsed {
		return nil
	}
	if err := f.d.binBOGet(); err != nil {
		return err
	}
	f.binBOUsed = true
	return nil
}
