// Package mem models the memory the VideoCore IV sees: the Linux CMA pool
// from which the vc4 driver allocates every buffer object, addressed by the
// GPU with 32-bit bus addresses, and the per-job View through which the GPU
// model reaches it.
//
// On a Pi every vc4 BO is physically contiguous: the driver allocates them
// with the GEM DMA (formerly CMA) helper, and the GPU has no MMU
// (doc/kernel.md#buffer-objects; Linux drivers/gpu/drm/vc4/vc4_bo.c vc4_bo_create).
// Pool reproduces that: one contiguous region, carved into page-rounded,
// page-aligned regions by a first-fit allocator, so fragmentation and
// exhaustion behave like the real pool's.
//
// The pool's bytes live in a memfd, so that the CPU mapping a program gets
// from mmap(2) on the simulated device is a real, separate shared mapping of
// the same pages the GPU model reads and writes.
package mem

import (
	"errors"
	"fmt"
	"sort"
	"sync"

	"golang.org/x/sys/unix"
)

// PageSize is the kernel's PAGE_SIZE on the Pi (4 KiB); BO sizes are rounded
// up to it (vc4_bo.c vc4_bo_create: roundup(size, PAGE_SIZE)).
const PageSize = 4096

// DefaultBase is the bus address of the first byte of the simulated pool.
// On BCM2836/7 the GPU sees SDRAM through the 0xC0000000 alias
// (dma-ranges in bcm2836.dtsi / bcm2837.dtsi), so CMA buffers have bus
// addresses above 0xC0000000; we place the pool well inside that window.
const DefaultBase uint32 = 0xC8000000

// DefaultSize is the pool size a Raspberry Pi OS image gets from
// dtoverlay=vc4-kms-v3d today (cma-512 is the largest overlay parameter,
// 256 MiB is the common default on 1 GiB boards).
const DefaultSize = 256 << 20

// ErrNoMemory is returned when no free span is large enough: the kernel's
// drm_gem_dma_create failure that vc4 reports as ENOMEM.
var ErrNoMemory = errors.New("mem: CMA pool exhausted")

// ErrClosed is returned by Alloc and MapUser once the pool is closed.
var ErrClosed = errors.New("mem: the CMA pool is closed")

// Region is a range of bus addresses [Addr, Addr+Size).
type Region struct {
	Addr uint32
	Size uint32
}

// End returns the first bus address after r (as a uint64, so a region ending
// at 4 GiB does not wrap).
func (r Region) End() uint64 { return uint64(r.Addr) + uint64(r.Size) }

// Contains reports whether [addr, addr+n) lies inside r.
func (r Region) Contains(addr uint32, n uint32) bool {
	return addr >= r.Addr && uint64(addr)+uint64(n) <= r.End()
}

// String formats the region as "[address+size]" in hex.
func (r Region) String() string { return fmt.Sprintf("[%#08x+%#x]", r.Addr, r.Size) }

// Pool is the simulated CMA region.
type Pool struct {
	base uint32
	size uint32
	fd   int    // memfd holding the pool's pages
	data []byte // the kernel's and GPU's mapping of the whole pool

	mu   sync.Mutex
	free []Region // free spans, sorted by address, coalesced
	used uint32
}

// NewPool creates a pool of size bytes (rounded up to a page) whose first
// byte has bus address base. base must be page aligned and the pool must
// not extend past 4 GiB of bus address space.
func NewPool(base uint32, size int) (*Pool, error) {
	if base%PageSize != 0 {
		return nil, fmt.Errorf("mem: pool base %#x is not page aligned", base)
	}
	size = roundUp(size, PageSize)
	if size <= 0 || uint64(base)+uint64(size) > 1<<32 {
		return nil, fmt.Errorf("mem: pool of %d bytes at %#x does not fit in 32-bit bus addresses", size, base)
	}
	fd, err := unix.MemfdCreate("vccube-cma", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("mem: memfd_create: %w", err)
	}
	if err := unix.Ftruncate(fd, int64(size)); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("mem: sizing the pool to %d bytes: %w", size, err)
	}
	data, err := unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("mem: mapping the pool: %w", err)
	}
	return &Pool{
		base: base,
		size: uint32(size),
		fd:   fd,
		data: data,
		free: []Region{{Addr: base, Size: uint32(size)}},
	}, nil
}

// Close releases the pool's memory. Mappings made with MapUser stay valid
// until they are unmapped (the memfd's pages are freed with the last one).
func (p *Pool) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.data == nil {
		return nil
	}
	err := unix.Munmap(p.data)
	p.data = nil
	if cerr := unix.Close(p.fd); err == nil {
		err = cerr
	}
	return err
}

// Base returns the bus address of the pool's first byte.
func (p *Pool) Base() uint32 { return p.base }

// Size returns the pool's size in bytes.
func (p *Pool) Size() uint32 { return p.size }

// Alloc carves a page-aligned region of at least size bytes (rounded up to
// a page) from the lowest free span that fits. If boundary is non-zero the
// region must not cross a multiple of boundary (the binner BO must not
// cross a 256 MiB boundary: vc4_v3d.c bin_bo_alloc). The memory is zeroed,
// as every vc4 BO is (vc4_bo.c: fresh DMA memory is zero, cached BOs are
// cleared).
func (p *Pool) Alloc(size int, boundary uint32) (Region, error) {
	if size <= 0 {
		return Region{}, fmt.Errorf("mem: allocation of %d bytes", size)
	}
	n64 := uint64(roundUp(size, PageSize))
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.data == nil {
		return Region{}, ErrClosed
	}
	if n64 > uint64(p.size) {
		return Region{}, ErrNoMemory
	}
	n := uint32(n64)
	for i, f := range p.free {
		addr, ok := fitIn(f, n, boundary)
		if !ok {
			continue
		}
		r := Region{Addr: addr, Size: n}
		p.carve(i, r)
		p.used += n
		clear(p.bytes(r))
		return r, nil
	}
	return Region{}, ErrNoMemory
}

// fitIn returns the lowest page-aligned address in span f where n bytes fit
// without crossing a multiple of boundary.
func fitIn(f Region, n uint32, boundary uint32) (uint32, bool) {
	if f.Size < n {
		return 0, false
	}
	addr := uint64(f.Addr)
	if boundary != 0 {
		if uint64(n) > uint64(boundary) {
			return 0, false
		}
		next := (addr/uint64(boundary) + 1) * uint64(boundary)
		if addr+uint64(n) > next {
			addr = next
		}
	}
	if addr+uint64(n) > f.End() {
		return 0, false
	}
	return uint32(addr), true
}

// carve removes r from free span i, leaving what remains on either side.
// It edits the free list in place, so allocating from the pool costs no
// heap allocation once the list has grown to its working size.
func (p *Pool) carve(i int, r Region) {
	f := p.free[i]
	before := Region{Addr: f.Addr, Size: r.Addr - f.Addr}
	after := Region{Addr: uint32(r.End()), Size: uint32(f.End() - r.End())}
	switch {
	case before.Size > 0 && after.Size > 0:
		p.free = append(p.free, Region{})
		copy(p.free[i+2:], p.free[i+1:])
		p.free[i], p.free[i+1] = before, after
	case before.Size > 0:
		p.free[i] = before
	case after.Size > 0:
		p.free[i] = after
	default:
		p.free = append(p.free[:i], p.free[i+1:]...)
	}
}

// Free returns r to the pool. Freeing a region that is not allocated (or
// twice) panics: it is a bug in the kernel model, not a user error.
func (p *Pool) Free(r Region) {
	p.mu.Lock()
	defer p.mu.Unlock()
	i := sort.Search(len(p.free), func(i int) bool { return p.free[i].Addr >= r.Addr })
	if (i < len(p.free) && uint64(p.free[i].Addr) < r.End()) ||
		(i > 0 && p.free[i-1].End() > uint64(r.Addr)) ||
		r.Addr < p.base || r.End() > uint64(p.base)+uint64(p.size) {
		panic(fmt.Sprintf("mem: freeing %v, which is not allocated", r))
	}
	p.free = append(p.free, Region{})
	copy(p.free[i+1:], p.free[i:])
	p.free[i] = r
	p.used -= r.Size
	// Coalesce with the neighbours.
	if i+1 < len(p.free) && p.free[i].End() == uint64(p.free[i+1].Addr) {
		p.free[i].Size += p.free[i+1].Size
		p.free = append(p.free[:i+1], p.free[i+2:]...)
	}
	if i > 0 && p.free[i-1].End() == uint64(p.free[i].Addr) {
		p.free[i-1].Size += p.free[i].Size
		p.free = append(p.free[:i], p.free[i+1:]...)
	}
}

// Stats reports the bytes in use, the bytes free and the largest free span
// (what the kernel prints as BO statistics when an allocation fails).
func (p *Pool) Stats() (used, free, largest uint32) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, f := range p.free {
		free += f.Size
		largest = max(largest, f.Size)
	}
	return p.used, free, largest
}

// Bytes returns the kernel's view of region r: a slice aliasing the pool's
// memory, or nil once the pool is closed (its memory is gone; the slice
// must not be used after Close either). r must lie inside the pool.
func (p *Pool) Bytes(r Region) []byte {
	if r.Addr < p.base || r.End() > uint64(p.base)+uint64(p.size) {
		panic(fmt.Sprintf("mem: region %v outside the pool", r))
	}
	p.mu.Lock()
	closed := p.data == nil
	p.mu.Unlock()
	if closed {
		return nil
	}
	return p.bytes(r)
}

func (p *Pool) bytes(r Region) []byte {
	off := r.Addr - p.base
	return p.data[off : off+r.Size : off+r.Size]
}

// MapUser makes a separate shared mapping of region r for a user-space
// mmap(2) of a BO: the program writes through it and the GPU model sees the
// same pages. The mapping outlives GEM_CLOSE until UnmapUser, as a real
// mapping does.
func (p *Pool) MapUser(r Region, prot int) ([]byte, error) {
	if r.Addr < p.base || r.End() > uint64(p.base)+uint64(p.size) || r.Addr%PageSize != 0 {
		return nil, fmt.Errorf("mem: cannot map %v", r)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.data == nil {
		// The memfd is closed; its number may already name another file.
		return nil, ErrClosed
	}
	return unix.Mmap(p.fd, int64(r.Addr-p.base), int(r.Size), prot, unix.MAP_SHARED)
}

// Fd returns the memfd holding the pool's pages, for handing to another
// process (over a Unix socket, SCM_RIGHTS) that maps BOs itself at the
// offsets kernel.SharedMap gives: a region's bytes are at Addr-Base in it.
// The descriptor belongs to the pool (do not close it) and is valid until
// Close; it is -1 after.
func (p *Pool) Fd() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.data == nil {
		return -1
	}
	return p.fd
}

// UnmapUser undoes MapUser.
func (p *Pool) UnmapUser(b []byte) error { return unix.Munmap(b) }

// RevokeUser replaces a user mapping with an inaccessible one, so that a
// later access faults, as touching a purged BO through an old mapping does
// on the real kernel (vc4_bo.c vc4_fault returns VM_FAULT_SIGBUS; here the
// access raises SIGSEGV, which debug.SetPanicOnFault turns into a panic a
// test can recover). The caller still unmaps b later.
func (p *Pool) RevokeUser(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	return unix.Mprotect(b, unix.PROT_NONE)
}

func roundUp(n, to int) int { return (n + to - 1) / to * to }
