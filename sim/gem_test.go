package sim_test

import (
	"errors"
	"math"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/gem"
	"github.com/vccube/vccube/internal/simrig"
	"github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/internal/simtest"
	"github.com/vccube/vccube/sim/kernel"
	"github.com/vccube/vccube/sim/kernel/cleargpu"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// Handles are per file, start at 1 and reuse the lowest free one
// (drm_gem_handle_create: idr_alloc from 1); sizes are page-rounded.
func TestHandles(t *testing.T) {
	d := newDevice(t, sim.Options{})
	a, b := open(t, d), open(t, d)
	h1, h2, h3 := simrig.AllocBO(t, a, 1), simrig.AllocBO(t, a, 4097), simrig.AllocBO(t, a, 4096)
	if h1 != 1 || h2 != 2 || h3 != 3 {
		t.Fatalf("handles %d %d %d", h1, h2, h3)
	}
	if hb := simrig.AllocBO(t, b, 1); hb != 1 {
		t.Fatalf("another file's first handle is %d", hb)
	}
	simtest.WantErrno(t, "close 2", drm.CloseHandle(a, h2), 0)
	if h := simrig.AllocBO(t, a, 1); h != 2 {
		t.Fatalf("lowest free handle not reused: %d", h)
	}
	simtest.WantErrno(t, "close unknown", drm.CloseHandle(a, 99), syscall.EINVAL)
	bo, err := a.LookupBO(h3)
	if err != nil {
		t.Fatal(err)
	}
	defer bo.Put()
	if bo.Size() != 4096 || bo.Addr()%4096 != 0 {
		t.Fatalf("BO of 4096 bytes: size %d at %#x", bo.Size(), bo.Addr())
	}
	b2, _ := a.LookupBO(1)
	defer b2.Put()
	if b2.Size() != 4096 {
		t.Fatalf("BO of 1 byte has size %d, want a page", b2.Size())
	}
}

// The kernel's BO cache keeps freed BOs for a second (vc4_bo.c
// vc4_bo_cache_free_old); the clock is the device's.
func TestBOCacheExpiry(t *testing.T) {
	var mu sync.Mutex
	now := time.Unix(1000, 0)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	d := newDevice(t, sim.Options{Now: clock})
	c := open(t, d)
	simrig.AllocBO(t, c, 4096) // the binner BO stays
	h := simrig.AllocBO(t, c, 64*1024)
	used0, _, _ := d.Pool().Stats()
	simtest.WantErrno(t, "close", drm.CloseHandle(c, h), 0)
	if used, _, _ := d.Pool().Stats(); used != used0 {
		t.Fatalf("the freed BO left the pool at once (%d -> %d): not cached", used0, used)
	}
	if stats := d.Kernel().Stats(); !hasLabel(stats, "kernel BO cache", 1) {
		t.Fatalf("cache not in the statistics: %+v", stats)
	}
	advance(500 * time.Millisecond)
	h2 := simrig.AllocBO(t, c, 4096)
	simtest.WantErrno(t, "close", drm.CloseHandle(c, h2), 0) // a free runs the expiry
	if !hasLabel(d.Kernel().Stats(), "kernel BO cache", 2) {
		t.Fatalf("a half-second-old BO was dropped from the cache: %+v", d.Kernel().Stats())
	}
	advance(time.Second)
	h3 := simrig.AllocBO(t, c, 8192)
	simtest.WantErrno(t, "close", drm.CloseHandle(c, h3), 0)
	// The BOs freed 1.5 s and 1 s ago are gone; the new one stays.
	if !hasLabel(d.Kernel().Stats(), "kernel BO cache", 1) {
		t.Fatalf("expired BOs still cached: %+v", d.Kernel().Stats())
	}
	if used, _, _ := d.Pool().Stats(); used != used0-64*1024+8192 {
		t.Fatalf("pool use %d, want %d", used, used0-64*1024+8192)
	}
}

func hasLabel(stats []kernel.LabelStats, name string, count int) bool {
	for _, s := range stats {
		if s.Name == name && s.Count == count {
			return true
		}
	}
	return false
}

// When CMA runs out, the kernel drops its cache first and purges the
// user's DONTNEED BOs only if that is not enough (vc4_bo_create).
func TestPurgeOrder(t *testing.T) {
	d := newDevice(t, sim.Options{CMASize: 20 << 20})
	c := open(t, d)
	simrig.AllocBO(t, c, 4096) // 16 MiB binner + 1 page
	const mib = 1 << 20
	// Pool: [binner 16 MiB][page][purgeable 1 MiB][cached 1 MiB][free].
	purgeable := simrig.AllocBO(t, c, mib)
	cached := simrig.AllocBO(t, c, mib)
	simtest.WantErrno(t, "close", drm.CloseHandle(c, cached), 0)
	madvise(t, c, purgeable, uapi.MadvDontNeed)
	if !hasLabel(d.Kernel().Stats(), "userspace BO cache", 1) {
		t.Fatalf("the DONTNEED BO is not in the statistics: %+v", d.Kernel().Stats())
	}
	_, free, _ := d.Pool().Stats()
	// A BO that fits once the cached one is gone: the purgeable one stays.
	big := simrig.AllocBO(t, c, free+mib)
	if !madvise(t, c, purgeable, uapi.MadvDontNeed) {
		t.Fatal("the DONTNEED BO was purged although dropping the cache sufficed")
	}
	simtest.WantErrno(t, "close", drm.CloseHandle(c, big), 0)
	// Everything past the first page: only dropping the cache and
	// purging make room.
	simrig.AllocBO(t, c, d.Pool().Size()-16*mib-4096)
	if madvise(t, c, purgeable, uapi.MadvWillNeed) {
		t.Fatal("the DONTNEED BO survived exhaustion")
	}
	if st := d.Kernel().Stats(); !hasLabel(st, "total purged BO", 1) || hasLabel(st, "userspace BO cache", 1) {
		t.Fatalf("statistics after the purge: %+v", st)
	}
}

// The binner BO is 16 MiB that must not cross a 256 MiB boundary
// (vc4_v3d.c bin_bo_alloc), split into 32 slots of 512 KiB.
func TestBinnerBO(t *testing.T) {
	var mu sync.Mutex
	var tileState []uint32
	d := newDevice(t, sim.Options{CMASize: 160 << 20, OnJobDone: func(r kernel.JobReport) {
		b, err := r.Job.Mem.Read(r.Job.BinStart, 16, "test")
		if err != nil {
			return
		}
		var bc cl.TileBinningModeConfig
		_ = bc.Unpack(b)
		mu.Lock()
		tileState = append(tileState, bc.TileStateAddress)
		mu.Unlock()
	}})
	c := open(t, d)
	// A dumb buffer (which takes no binner BO) leaves 8 MiB below the
	// 256 MiB boundary at 0xd0000000: the binner BO cannot go there.
	const boundary = 0xd0000000
	base := d.Pool().Base()
	if _, err := drm.CreateDumb(c, 1024, (boundary-base-8<<20)/4096, 32); err != nil {
		t.Fatal(err)
	}
	f := newFrame(t, c, 64, 64)
	f.run(t)
	f.run(t)
	mu.Lock()
	defer mu.Unlock()
	if len(tileState) != 2 || tileState[0] < boundary || tileState[0] >= boundary+16<<20 {
		t.Fatalf("tile state at %#x: the binner BO crossed or missed the boundary", tileState)
	}
	// Slots are 512 KiB apart; a retired job's slot is reused.
	if tileState[1] != tileState[0] || (tileState[0]-boundary)%(512<<10) != 0 {
		t.Fatalf("slots %#x", tileState)
	}
}

// With all 32 binner slots held by queued jobs, SUBMIT_CL waits for one
// to retire (vc4_v3d_get_bin_slot; doc/kernel.md#binning-configuration).
func TestBinnerSlotsWait(t *testing.T) {
	g := &gatedGPU{inner: cleargpu.New(), gate: make(chan struct{}, 64)}
	d := newDevice(t, sim.Options{GPU: g})
	c := open(t, d)
	f := newFrame(t, c, 64, 64)
	for i := 0; i < 32; i++ {
		f.submit.Seqno = 0
		if err := gem.Submit(c, f.submit); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error)
	go func() {
		s := *f.submit
		done <- gem.Submit(c, &s)
	}()
	select {
	case err := <-done:
		t.Fatalf("the 33rd job got a slot while 32 were held: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	g.gate <- struct{}{}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 32; i++ {
		g.gate <- struct{}{}
	}
	w := uapi.WaitSeqno{Seqno: 33, TimeoutNs: math.MaxUint64}
	simtest.WantErrno(t, "wait", gem.WaitForSeqno(c, &w), 0)
}

// mmap's rules (drm_gem_mmap, vc4_gem_object_mmap).
func TestMmapRules(t *testing.T) {
	d := newDevice(t, sim.Options{})
	a, b := open(t, d), open(t, d)
	h := simrig.AllocBO(t, a, 8192)
	off := mustOffset(t, a, h)
	rw := unix.PROT_READ | unix.PROT_WRITE
	if _, err := b.Mmap(off, 4096, rw); !errors.Is(err, syscall.EACCES) {
		t.Errorf("mmap by a file without a handle: %v, want EACCES", err)
	}
	if _, err := a.Mmap(off, 3*4096, rw); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("mmap longer than the BO: %v, want EINVAL", err)
	}
	if _, err := a.Mmap(off+4096, 4096, rw); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("mmap inside a BO: %v, want EINVAL", err)
	}
	if _, err := a.Mmap(off+1, 4096, rw); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("mmap at an unaligned offset: %v, want EINVAL", err)
	}
	sh := shader(t, a, func(as *qpu.Asm) { as.I(qpu.SigProgramEnd); as.I(); as.I() })
	soff := mustOffset(t, a, sh)
	if _, err := a.Mmap(soff, 4096, rw); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("writable mmap of a shader BO: %v, want EINVAL", err)
	}
	m, err := a.Mmap(soff, 4096, unix.PROT_READ)
	if err != nil {
		t.Fatalf("read-only mmap of a shader BO: %v", err)
	}
	if m[7]>>4 != 3 { // the first instruction is the program end (signal 3)
		t.Errorf("shader BO reads %x", m[:8])
	}
	a.Munmap(m)
	if err := a.Munmap(m); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("munmap twice: %v", err)
	}
}

// PRIME: export as a dma-buf, import into another file as the same BO;
// shader BOs cannot be exported.
func TestPrime(t *testing.T) {
	d := newDevice(t, sim.Options{})
	a, b := open(t, d), open(t, d)
	h := simrig.AllocBO(t, a, 4096)
	fd, err := drm.PrimeHandleToFD(a, h, uapi.CloExec|uapi.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	hb, err := drm.PrimeFDToHandle(b, fd)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := drm.PrimeFDToHandle(b, fd); again != hb {
		t.Errorf("importing twice gave handles %d and %d", hb, again)
	}
	ma, mb := simrig.MapBO(t, a, h, 4096), simrig.MapBO(t, b, hb, 4096)
	ma[100] = 0x77
	if mb[100] != 0x77 {
		t.Fatal("the imported handle is another BO")
	}
	// Back into the exporting file: its own handle.
	if ha, _ := drm.PrimeFDToHandle(a, fd); ha != h {
		t.Errorf("self-import gave handle %d, want %d", ha, h)
	}
	// An exported BO is in use: it cannot be purged (madvise still
	// answers, but the BO is never put on the purgeable list).
	madvise(t, a, h, uapi.MadvDontNeed)

	sh := shader(t, a, func(as *qpu.Asm) { as.I(qpu.SigProgramEnd); as.I(); as.I() })
	if _, err := drm.PrimeHandleToFD(a, sh, 0); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("export of a shader BO: %v, want EINVAL", err)
	}
	var bad uapi.PrimeHandle
	bad = uapi.PrimeHandle{Handle: h, Flags: 0x100}
	simtest.WantErrno(t, "bad flags", simtest.Ioctl(a, uapi.IoctlPrimeHandleToFD, &bad), syscall.EINVAL)
	bad = uapi.PrimeHandle{Handle: 99}
	simtest.WantErrno(t, "unknown handle", simtest.Ioctl(a, uapi.IoctlPrimeHandleToFD, &bad), syscall.ENOENT)
	if _, err := drm.PrimeFDToHandle(a, 1<<20); !errors.Is(err, syscall.EBADF) {
		t.Errorf("import of a bad fd: %v, want EBADF", err)
	}
	if _, err := drm.PrimeFDToHandle(a, a.Fd()); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("import of a non-dma-buf fd: %v, want EINVAL", err)
	}
}

// Dumb buffers (drm_mode_create_dumb, vc4_dumb_fixup_args).
func TestDumbBuffers(t *testing.T) {
	d := newDevice(t, sim.Options{})
	c := open(t, d)
	db, err := drm.CreateDumb(c, 801, 600, 32)
	if err != nil || db.Pitch != 801*4 || db.Size != 801*4*600 {
		t.Fatalf("%+v %v", db, err)
	}
	db16, err := drm.CreateDumb(c, 801, 2, 16)
	if err != nil || db16.Pitch != 1602 {
		t.Fatalf("16 bpp: %+v %v", db16, err)
	}
	for _, bad := range []uapi.ModeCreateDumb{{Width: 0, Height: 1, Bpp: 32}, {Width: 1, Height: 1, Bpp: 0},
		{Width: 1 << 31, Height: 1, Bpp: 32}, {Width: 1 << 16, Height: 1 << 16, Bpp: 32}} {
		arg := bad
		simtest.WantErrno(t, "bad dumb", simtest.Ioctl(c, uapi.IoctlModeCreateDumb, &arg), syscall.EINVAL)
	}
	off, err := drm.MapDumb(c, db.Handle)
	if err != nil || off%4096 != 0 {
		t.Fatalf("MAP_DUMB %#x %v", off, err)
	}
	m, err := c.Mmap(off, int(db.Size), unix.PROT_READ|unix.PROT_WRITE)
	if err != nil {
		t.Fatal(err)
	}
	m[len(m)-1] = 1
	c.Munmap(m)
	var md uapi.ModeMapDumb
	md.Handle = 99
	simtest.WantErrno(t, "MAP_DUMB unknown", simtest.Ioctl(c, uapi.IoctlModeMapDumb, &md), syscall.ENOENT)
	simtest.WantErrno(t, "DESTROY_DUMB", drm.DestroyDumb(c, db.Handle), 0)
	var dd uapi.ModeDestroyDumb
	dd.Handle = db.Handle
	simtest.WantErrno(t, "DESTROY_DUMB twice", simtest.Ioctl(c, uapi.IoctlModeDestroyDumb, &dd), syscall.EINVAL)
}

// GEM_MADVISE's argument checks, and LABEL_BO's NUL rule.
func TestMadviseAndLabelArguments(t *testing.T) {
	d := newDevice(t, sim.Options{})
	c := open(t, d)
	h := simrig.AllocBO(t, c, 4096)
	for _, a := range []uapi.GemMadvise{{Handle: h, Madv: 2}, {Handle: h, Pad: 1}} {
		arg := a
		simtest.WantErrno(t, "madvise", simtest.Ioctl(c, uapi.IoctlGemMadvise, &arg), syscall.EINVAL)
	}
	arg := uapi.GemMadvise{Handle: 99}
	simtest.WantErrno(t, "madvise unknown", simtest.Ioctl(c, uapi.IoctlGemMadvise, &arg), syscall.ENOENT)

	// strndup_user(name, len + 1): a name with no NUL within len + 1
	// bytes is EINVAL; the label is the string up to the NUL.
	name := []byte("abcdefgh")
	l := uapi.LabelBO{Handle: h, Len: 4, Name: simtest.Ptr(t, name)}
	simtest.WantErrno(t, "label without NUL", simtest.Ioctl(c, uapi.IoctlLabelBO, &l), syscall.EINVAL)
	name = []byte("ab\x00defgh")
	l = uapi.LabelBO{Handle: h, Len: 4, Name: simtest.Ptr(t, name)}
	simtest.WantErrno(t, "label with early NUL", simtest.Ioctl(c, uapi.IoctlLabelBO, &l), 0)
	if !hasLabel(d.Kernel().Stats(), "ab", 1) {
		t.Fatalf("label: %+v", d.Kernel().Stats())
	}
	l = uapi.LabelBO{Handle: h, Len: 0, Name: simtest.Ptr(t, name)}
	simtest.WantErrno(t, "label of length 0", simtest.Ioctl(c, uapi.IoctlLabelBO, &l), syscall.EINVAL)
	// len + 1 is u32 arithmetic in vc4_label_bo_ioctl: 0xFFFFFFFF + 1 is a
	// count of 0, which strndup_user answers with EFAULT, whatever the name.
	l = uapi.LabelBO{Handle: h, Len: math.MaxUint32, Name: simtest.Ptr(t, name)}
	simtest.WantErrno(t, "label of length 0xFFFFFFFF", simtest.Ioctl(c, uapi.IoctlLabelBO, &l), syscall.EFAULT)
}
