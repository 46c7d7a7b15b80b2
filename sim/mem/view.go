package mem

import (
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
)

// Access says how the GPU may touch a region of a job.
type Access uint8

const (
	// Read: the GPU only reads it (shader code, the validated bin CL,
	// shader records and uniforms, textures, vertex data).
	Read Access = 1 << iota
	// Write: the GPU writes it (render targets, tile allocation and tile
	// state memory). A writable region is readable too.
	Write
)

// View is the GPU's window onto the pool for one job: the only memory the
// GPU model can reach. On real hardware the kernel's validator is what keeps
// the GPU inside the job's buffers (it has no MMU); here every access is
// also checked, and an access outside the job's regions is refused and
// recorded as a Fault. A clean fuzz run over accepted submits with zero
// faults is the proof that the validator model lets nothing escape.
//
// A View may be used from several goroutines (tiles render in parallel).
type View struct {
	pool    *Pool
	regions []viewRegion // sorted by address, non-overlapping
	gen     uint64       // changes whenever the regions do (Reset, Add)

	faults     atomic.Uint64
	mu         sync.Mutex
	firstFault *Fault
}

type viewRegion struct {
	Region
	access Access
	name   string
}

// Fault records a GPU access outside the job's memory.
type Fault struct {
	Addr  uint32
	Size  uint32
	Write bool
	What  string // which unit made the access, e.g. "TMU0 fetch"
}

// Error describes the access, e.g. "GPU read of 4 bytes at 0x00001000
// outside the job's buffers (TMU0 fetch)".
func (f *Fault) Error() string {
	op := "read"
	if f.Write {
		op = "write"
	}
	return fmt.Sprintf("GPU %s of %d bytes at %#08x outside the job's buffers (%s)", op, f.Size, f.Addr, f.What)
}

// NewView returns an empty view onto p.
func NewView(p *Pool) *View { return &View{pool: p} }

// Reset empties v for reuse by the next job without allocating.
func (v *View) Reset() {
	v.gen++
	v.regions = v.regions[:0]
	v.faults.Store(0)
	v.firstFault = nil
}

// Add grants the job access to r. Overlapping grants (the same BO listed
// twice in bo_handles) are merged with the union of their access.
func (v *View) Add(r Region, access Access, name string) {
	if r.Size == 0 {
		return
	}
	v.gen++
	for i := range v.regions {
		e := &v.regions[i]
		if e.Region == r {
			e.access |= access
			return
		}
	}
	// Insert in address order without allocating once the slice has grown
	// to the job's size (views are reused job after job).
	i := sort.Search(len(v.regions), func(i int) bool { return v.regions[i].Addr > r.Addr })
	v.regions = append(v.regions, viewRegion{})
	copy(v.regions[i+1:], v.regions[i:])
	v.regions[i] = viewRegion{Region: r, access: access, name: name}
}

// Generation identifies the view's current set of regions: it changes
// whenever Reset or Add does, so a span a caller got from Span stays
// valid to reuse for the same address while Generation is unchanged.
// Like Reset and Add, it is for the goroutine that sets the view up (the
// job's regions do not change while its units run).
func (v *View) Generation() uint64 { return v.gen }

// Regions returns the granted regions (for diagnostics and tests).
func (v *View) Regions() []Region {
	out := make([]Region, len(v.regions))
	for i, r := range v.regions {
		out[i] = r.Region
	}
	return out
}

// Grant is a region of a job's memory with the access and name it was
// granted with.
type Grant struct {
	Region
	Access Access
	Name   string
}

// Grants returns the granted regions with their access and names, in
// address order (for recording a job: sim/hw/jobfile).
func (v *View) Grants() []Grant {
	out := make([]Grant, len(v.regions))
	for i, r := range v.regions {
		out[i] = Grant{Region: r.Region, Access: r.access, Name: r.name}
	}
	return out
}

// find returns the region containing [addr, addr+n), or nil. Regions may
// nest (a BO and a sub-range of it), so the containing one is searched for
// among all regions starting at or below addr.
func (v *View) find(addr, n uint32) *viewRegion {
	i := sort.Search(len(v.regions), func(i int) bool { return v.regions[i].Addr > addr })
	for j := i - 1; j >= 0; j-- {
		if v.regions[j].Contains(addr, n) {
			return &v.regions[j]
		}
	}
	return nil
}

// Read returns the n bytes at bus address addr, aliasing the pool's memory,
// or records and returns a Fault if they are not all inside one region the
// job may read. what names the unit making the access.
func (v *View) Read(addr, n uint32, what string) ([]byte, error) {
	r := v.find(addr, n)
	if r == nil {
		return nil, v.fault(addr, n, false, what)
	}
	off := addr - v.pool.base
	return v.pool.data[off : off+n : off+n], nil
}

// Write is Read for a region the job may write.
func (v *View) Write(addr, n uint32, what string) ([]byte, error) {
	r := v.find(addr, n)
	if r == nil || r.access&Write == 0 {
		return nil, v.fault(addr, n, true, what)
	}
	off := addr - v.pool.base
	return v.pool.data[off : off+n : off+n], nil
}

// Span returns the whole region containing addr and the offset of addr in
// it, so a unit that streams through memory (the CLE, the TMU) checks once
// and then indexes the slice itself. write asks for a writable region.
func (v *View) Span(addr uint32, write bool, what string) (buf []byte, off uint32, err error) {
	r := v.find(addr, 1)
	if r == nil || (write && r.access&Write == 0) {
		return nil, 0, v.fault(addr, 1, write, what)
	}
	start := r.Addr - v.pool.base
	return v.pool.data[start : start+r.Size : start+r.Size], addr - r.Addr, nil
}

func (v *View) fault(addr, n uint32, write bool, what string) error {
	f := &Fault{Addr: addr, Size: n, Write: write, What: what}
	v.faults.Add(1)
	v.mu.Lock()
	if v.firstFault == nil {
		v.firstFault = f
	}
	v.mu.Unlock()
	return f
}

// Faults returns how many accesses were refused and the first of them.
func (v *View) Faults() (uint64, *Fault) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.faults.Load(), v.firstFault
}
