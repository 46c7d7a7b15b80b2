package mem

import (
	"errors"
	"runtime/debug"
	"testing"

	"golang.org/x/sys/unix"
)

func newPool(t *testing.T, size int) *Pool {
	t.Helper()
	p, err := NewPool(DefaultBase, size)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func TestAllocRoundsToPagesFirstFitAndCoalesces(t *testing.T) {
	p := newPool(t, 16*PageSize)
	a, err := p.Alloc(1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if a != (Region{DefaultBase, PageSize}) {
		t.Fatalf("first allocation = %v, want one page at the base", a)
	}
	b, _ := p.Alloc(PageSize+1, 0)
	if b.Addr != DefaultBase+PageSize || b.Size != 2*PageSize {
		t.Fatalf("second allocation = %v", b)
	}
	c, _ := p.Alloc(PageSize, 0)
	p.Free(b)
	// A one-page request is satisfied from the hole b left (first fit).
	d, _ := p.Alloc(PageSize, 0)
	if d.Addr != b.Addr {
		t.Fatalf("first fit: got %v, want the hole at %#x", d, b.Addr)
	}
	p.Free(a)
	p.Free(c)
	p.Free(d)
	used, free, largest := p.Stats()
	if used != 0 || free != 16*PageSize || largest != 16*PageSize {
		t.Fatalf("after freeing everything: used %d free %d largest %d; want one coalesced span", used, free, largest)
	}
}

func TestAllocIsZeroedAfterReuse(t *testing.T) {
	p := newPool(t, 4*PageSize)
	a, _ := p.Alloc(3*PageSize, 0)
	b := p.Bytes(a)
	for i := range b {
		b[i] = 0xd0 // igt vc4_create_bo create-bo-zeroed fills with 0xd0
	}
	p.Free(a)
	a2, _ := p.Alloc(3*PageSize, 0)
	for i, v := range p.Bytes(a2) {
		if v != 0 {
			t.Fatalf("byte %d of a reused region is %#x, want 0", i, v)
		}
	}
}

func TestAllocExhaustionAndFragmentation(t *testing.T) {
	p := newPool(t, 4*PageSize)
	var rs []Region
	for i := 0; i < 4; i++ {
		r, err := p.Alloc(PageSize, 0)
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	if _, err := p.Alloc(1, 0); !errors.Is(err, ErrNoMemory) {
		t.Fatalf("full pool: err = %v, want ErrNoMemory", err)
	}
	p.Free(rs[0])
	p.Free(rs[2])
	// Two free pages, but not contiguous: a two-page BO does not fit, as on
	// a fragmented CMA pool (anholt/linux #135).
	if _, err := p.Alloc(2*PageSize, 0); !errors.Is(err, ErrNoMemory) {
		t.Fatalf("fragmented pool: err = %v, want ErrNoMemory", err)
	}
}

func TestAllocBoundary(t *testing.T) {
	p := newPool(t, 8*PageSize)
	// Occupy the first page so the free span starts one page in.
	if _, err := p.Alloc(PageSize, 0); err != nil {
		t.Fatal(err)
	}
	// A 4-page region that must not cross a 4-page boundary starts at the
	// next multiple of 4 pages (relative to bus address 0).
	r, err := p.Alloc(4*PageSize, 4*PageSize)
	if err != nil {
		t.Fatal(err)
	}
	if r.Addr%(4*PageSize) != 0 {
		t.Fatalf("region %v crosses a %#x boundary", r, 4*PageSize)
	}
}

func TestFreeTwicePanics(t *testing.T) {
	p := newPool(t, 2*PageSize)
	r, _ := p.Alloc(PageSize, 0)
	p.Free(r)
	defer func() {
		if recover() == nil {
			t.Fatal("double free did not panic")
		}
	}()
	p.Free(r)
}

func TestUserMappingSharesPagesAndOutlivesFree(t *testing.T) {
	p := newPool(t, 2*PageSize)
	r, _ := p.Alloc(PageSize, 0)
	m, err := p.MapUser(r, unix.PROT_READ|unix.PROT_WRITE)
	if err != nil {
		t.Fatal(err)
	}
	defer p.UnmapUser(m)
	m[5] = 42
	if got := p.Bytes(r)[5]; got != 42 {
		t.Fatalf("GPU view sees %d, want the CPU's write 42", got)
	}
	p.Bytes(r)[6] = 7
	if m[6] != 7 {
		t.Fatalf("CPU view sees %d, want the GPU's write 7", m[6])
	}
}

var sink byte

func TestRevokedMappingFaults(t *testing.T) {
	p := newPool(t, PageSize)
	r, _ := p.Alloc(PageSize, 0)
	m, _ := p.MapUser(r, unix.PROT_READ|unix.PROT_WRITE)
	defer p.UnmapUser(m)
	if err := p.RevokeUser(m); err != nil {
		t.Fatal(err)
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	faulted := func() (f bool) {
		defer func() { f = recover() != nil }()
		sink = m[0]
		return false
	}()
	if !faulted {
		t.Fatal("touching a revoked (purged) mapping did not fault")
	}
}

func TestViewRefusesOutsideAndReadOnly(t *testing.T) {
	p := newPool(t, 8*PageSize)
	code, _ := p.Alloc(PageSize, 0)
	target, _ := p.Alloc(2*PageSize, 0)
	other, _ := p.Alloc(PageSize, 0) // not part of the job
	v := NewView(p)
	v.Add(code, Read, "shader")
	v.Add(target, Write, "colour")

	if _, err := v.Read(code.Addr+8, 8, "QPU fetch"); err != nil {
		t.Fatalf("read inside a read region: %v", err)
	}
	if b, err := v.Write(target.Addr+PageSize, PageSize, "TLB store"); err != nil || len(b) != PageSize {
		t.Fatalf("write inside a write region: %d bytes, %v", len(b), err)
	}
	// Straddling the end of a region, a read-only region written, and a
	// region the job does not own are all refused.
	if _, err := v.Read(target.Addr+2*PageSize-4, 8, "TMU"); err == nil {
		t.Fatal("read straddling the end of a region was allowed")
	}
	if _, err := v.Write(code.Addr, 4, "TLB"); err == nil {
		t.Fatal("write to a read-only region was allowed")
	}
	_, err := v.Read(other.Addr, 4, "VCD")
	var f *Fault
	if !errors.As(err, &f) || f.Addr != other.Addr || f.What != "VCD" {
		t.Fatalf("read of another BO: err = %v", err)
	}
	n, first := v.Faults()
	if n != 3 || first == nil || first.What != "TMU" {
		t.Fatalf("faults = %d, first %v; want 3, first the TMU read", n, first)
	}
	buf, off, err := v.Span(target.Addr+100, true, "TLB")
	if err != nil || off != 100 || len(buf) != int(target.Size) {
		t.Fatalf("Span = %d bytes at offset %d, %v", len(buf), off, err)
	}
	v.Reset()
	if n, _ := v.Faults(); n != 0 || len(v.Regions()) != 0 {
		t.Fatal("Reset did not empty the view")
	}
}

func TestViewAddDoesNotAllocateWhenReused(t *testing.T) {
	p := newPool(t, 8*PageSize)
	var rs []Region
	for i := 0; i < 6; i++ {
		r, _ := p.Alloc(PageSize, 0)
		rs = append(rs, r)
	}
	v := NewView(p)
	job := func() {
		v.Reset()
		for i := len(rs) - 1; i >= 0; i-- {
			v.Add(rs[i], Read, "bo")
		}
	}
	job()
	if n := testing.AllocsPerRun(100, job); n != 0 {
		t.Fatalf("building a job's view allocates %v times", n)
	}
}

func TestAllocAndFreeDoNotAllocate(t *testing.T) {
	p := newPool(t, 64*PageSize)
	// Fragment the pool a little so carve splits spans in the middle.
	keep, _ := p.Alloc(PageSize, 0)
	hole, _ := p.Alloc(PageSize, 0)
	p.Free(hole)
	cycle := func() {
		a, err := p.Alloc(3*PageSize, 0)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := p.Alloc(PageSize, 4*PageSize)
		p.Free(a)
		p.Free(b)
	}
	cycle()
	if n := testing.AllocsPerRun(100, cycle); n != 0 {
		t.Fatalf("Alloc/Free allocate %v times per cycle", n)
	}
	p.Free(keep)
}

// A closed pool has no memory: Bytes answers nil, Alloc and MapUser
// ErrClosed (its memfd is closed, and the number may name another file
// by now), instead of touching what is gone. Mappings made before stay.
func TestClosedPool(t *testing.T) {
	p := newPool(t, 4*PageSize)
	r, _ := p.Alloc(PageSize, 0)
	m, err := p.MapUser(r, unix.PROT_READ|unix.PROT_WRITE)
	if err != nil {
		t.Fatal(err)
	}
	defer p.UnmapUser(m)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if b := p.Bytes(r); b != nil {
		t.Errorf("Bytes after Close: %d bytes", len(b))
	}
	if _, err := p.Alloc(PageSize, 0); !errors.Is(err, ErrClosed) {
		t.Errorf("Alloc after Close: %v", err)
	}
	if _, err := p.MapUser(r, unix.PROT_READ); !errors.Is(err, ErrClosed) {
		t.Errorf("MapUser after Close: %v", err)
	}
	m[0] = 1 // the user mapping outlives the pool's own
	p.Free(r)
}
