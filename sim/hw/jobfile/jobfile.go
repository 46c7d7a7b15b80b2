// Package jobfile saves a GPU job as the V3D sees it — the regions of
// memory the kernel granted it, with their bytes, and the control-list
// executor's start and end addresses (hw.Job) — and loads it back, so
// that the GPU model can run a job recorded from any program again
// without the program: Mesa's kmscube recorded under vc4serve
// -record-jobs becomes a Go benchmark and a differential test that need
// neither qemu nor Mesa.
//
// A job is self-contained at this boundary: the kernel has validated the
// submit, written the render list and relocated every address (Linux
// vc4_gem.c vc4_submit_next_bin_job / vc4_submit_next_render_job start
// the hardware with nothing more than CT0CA/CT0EA and CT1CA/CT1EA), so
// the bytes of the granted regions at the job's start are all the GPU can
// read. The regions go back to the same bus addresses, which the lists
// and shader records hold.
//
// The file is gzip-compressed; inside, little-endian:
//
//	magic   "vc4job\x00\x01" (the last byte is the format's version)
//	uint32  BinStart, BinEnd, RenderStart, RenderEnd
//	uint32  the number of regions, then each:
//	        uint32 Addr, uint32 Size, uint8 Access (mem.Access),
//	        uint16 name length, the name,
//	        uint8 1 and Size bytes, or 0 for a region inside an earlier
//	        one (the bytes are the outer region's)
//	uint32  the number of binner overflow regions the job was given
//	        (OUTOMEM), then each: uint32 Addr, uint32 Size
package jobfile

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/vccube/vccube/sim/hw"
	"github.com/vccube/vccube/sim/mem"
)

// magic starts every job file; its last byte is the format's version.
const magic = "vc4job\x00\x01"

// Region is one granted region of a recorded job.
type Region struct {
	mem.Grant
	// Data is the region's bytes when the job started; nil for a region
	// inside an earlier one, whose bytes are the outer region's.
	Data []byte
}

// Job is a recorded job.
type Job struct {
	// The control lists' addresses (hw.Job).
	BinStart, BinEnd, RenderStart, RenderEnd uint32
	// Regions are the granted regions in address order.
	Regions []Region
	// Overflow are the binner overflow regions the kernel handed out
	// while the job ran, in order: a replay hands out the same ones.
	Overflow []mem.Region
}

// Capture copies j's memory and addresses as they are now, before it runs.
// Binner overflow regions are known only once it has run: Recorder adds
// them.
func Capture(j *hw.Job) (*Job, error) {
	rec := &Job{BinStart: j.BinStart, BinEnd: j.BinEnd, RenderStart: j.RenderStart, RenderEnd: j.RenderEnd}
	var outer mem.Region
	for _, g := range j.Mem.Grants() {
		r := Region{Grant: g}
		if !outer.Contains(g.Addr, g.Size) {
			b, err := j.Mem.Read(g.Addr, g.Size, "job recording")
			if err != nil {
				return nil, err
			}
			r.Data = append([]byte(nil), b...)
			outer = g.Region
		}
		rec.Regions = append(rec.Regions, r)
	}
	return rec, nil
}

// Write writes j to w in the job file format.
func (j *Job) Write(w io.Writer) error {
	zw := gzip.NewWriter(w)
	bw := bufio.NewWriter(zw)
	le := binary.LittleEndian
	var b []byte
	b = append(b, magic...)
	for _, v := range [...]uint32{j.BinStart, j.BinEnd, j.RenderStart, j.RenderEnd, uint32(len(j.Regions))} {
		b = le.AppendUint32(b, v)
	}
	bw.Write(b)
	for _, r := range j.Regions {
		if r.Data != nil && len(r.Data) != int(r.Size) {
			return fmt.Errorf("jobfile: region %v has %d bytes", r.Region, len(r.Data))
		}
		if len(r.Name) > 0xFFFF {
			return fmt.Errorf("jobfile: region %v: name too long", r.Region)
		}
		b = le.AppendUint32(b[:0], r.Addr)
		b = le.AppendUint32(b, r.Size)
		b = append(b, byte(r.Access))
		b = le.AppendUint16(b, uint16(len(r.Name)))
		b = append(b, r.Name...)
		if r.Data != nil {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
		bw.Write(b)
		bw.Write(r.Data)
	}
	b = le.AppendUint32(b[:0], uint32(len(j.Overflow)))
	for _, o := range j.Overflow {
		b = le.AppendUint32(b, o.Addr)
		b = le.AppendUint32(b, o.Size)
	}
	bw.Write(b)
	if err := bw.Flush(); err != nil {
		return err
	}
	return zw.Close()
}

// Save writes j to the file path.
func (j *Job) Save(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = j.Write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// maxRegion bounds a region's size when reading (the largest CMA pool a
// Pi's kernel offers is 512 MiB), so that a corrupt file fails cleanly
// instead of asking for gigabytes.
const maxRegion = 512 << 20

// Read reads a job file.
func Read(r io.Reader) (*Job, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("jobfile: not a job file: %w", err)
	}
	br := bufio.NewReader(zr)
	fail := func(what string, err error) (*Job, error) {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("jobfile: reading %s: %w", what, err)
	}
	head := make([]byte, len(magic)+5*4)
	if _, err := io.ReadFull(br, head); err != nil {
		return fail("the header", err)
	}
	if string(head[:len(magic)]) != magic {
		return nil, errors.New("jobfile: not a job file of this version (bad magic)")
	}
	le := binary.LittleEndian
	u := func(i int) uint32 { return le.Uint32(head[len(magic)+4*i:]) }
	j := &Job{BinStart: u(0), BinEnd: u(1), RenderStart: u(2), RenderEnd: u(3)}
	n := u(4)
	var outer mem.Region
	for i := uint32(0); i < n; i++ {
		var h [11]byte
		if _, err := io.ReadFull(br, h[:]); err != nil {
			return fail(fmt.Sprintf("region %d", i), err)
		}
		var r Region
		r.Addr, r.Size, r.Access = le.Uint32(h[0:]), le.Uint32(h[4:]), mem.Access(h[8])
		if r.Size == 0 || r.Size > maxRegion || uint64(r.Addr)+uint64(r.Size) > 1<<32 {
			return nil, fmt.Errorf("jobfile: region %d: bad size %#x at %#08x", i, r.Size, r.Addr)
		}
		name := make([]byte, le.Uint16(h[9:]))
		if _, err := io.ReadFull(br, name); err != nil {
			return fail(fmt.Sprintf("region %d's name", i), err)
		}
		r.Name = string(name)
		has, err := br.ReadByte()
		if err != nil {
			return fail(fmt.Sprintf("region %d", i), err)
		}
		switch {
		case has == 1:
			r.Data = make([]byte, r.Size)
			if _, err := io.ReadFull(br, r.Data); err != nil {
				return fail(fmt.Sprintf("region %d's bytes", i), err)
			}
			outer = r.Region
		case has == 0 && outer.Contains(r.Addr, r.Size):
		default:
			return nil, fmt.Errorf("jobfile: region %d (%v) has no bytes and is not inside the region before it", i, r.Region)
		}
		if i > 0 && r.Addr < j.Regions[i-1].Addr {
			return nil, fmt.Errorf("jobfile: region %d (%v) is out of address order", i, r.Region)
		}
		j.Regions = append(j.Regions, r)
	}
	var cnt [4]byte
	if _, err := io.ReadFull(br, cnt[:]); err != nil {
		return fail("the overflow count", err)
	}
	for i := uint32(0); i < le.Uint32(cnt[:]); i++ {
		var o [8]byte
		if _, err := io.ReadFull(br, o[:]); err != nil {
			return fail(fmt.Sprintf("overflow region %d", i), err)
		}
		j.Overflow = append(j.Overflow, mem.Region{Addr: le.Uint32(o[0:]), Size: le.Uint32(o[4:])})
	}
	if _, err := br.ReadByte(); err != io.EOF {
		return nil, errors.New("jobfile: bytes after the job")
	}
	return j, nil
}

// Load reads the job file path.
func Load(path string) (*Job, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f)
}

// Replay is a recorded job placed in a pool, ready for a GPU to run.
type Replay struct {
	// Job is the job to hand to hw.GPU.Run. Reset makes it ready again.
	Job  hw.Job
	rec  *Job
	pool *mem.Pool
	view *mem.View
	next int
}

// Place puts j's regions at their addresses in p, which must span them
// (a pool at mem.DefaultBase of mem.DefaultSize spans every job the
// simulated kernel makes), and returns the job ready to run.
func (j *Job) Place(p *mem.Pool) (*Replay, error) {
	end := uint64(p.Base()) + uint64(p.Size())
	for _, r := range append(regionsOf(j.Regions), j.Overflow...) {
		if r.Addr < p.Base() || r.End() > end {
			return nil, fmt.Errorf("jobfile: region %v lies outside the pool [%#08x, %#x)", r, p.Base(), end)
		}
	}
	rp := &Replay{rec: j, pool: p, view: mem.NewView(p)}
	rp.Job = hw.Job{Mem: rp.view, BinStart: j.BinStart, BinEnd: j.BinEnd, RenderStart: j.RenderStart, RenderEnd: j.RenderEnd, Overflow: rp.overflow}
	rp.Reset()
	return rp, nil
}

func regionsOf(rs []Region) []mem.Region {
	out := make([]mem.Region, len(rs))
	for i, r := range rs {
		out[i] = r.Region
	}
	return out
}

// Reset puts back the bytes every region had when the job was recorded,
// grants the regions again and rewinds the overflow regions, so that the
// next run of Job is the recorded one again.
func (rp *Replay) Reset() {
	rp.view.Reset()
	for _, r := range rp.rec.Regions {
		if r.Data != nil {
			copy(rp.pool.Bytes(r.Region), r.Data)
		}
		rp.view.Add(r.Region, r.Access, r.Name)
	}
	rp.next = 0
}

// overflow hands out the recorded binner overflow regions in order (the
// kernel's vc4_overflow_mem_work hands out a fresh bin slot each time).
func (rp *Replay) overflow() (mem.Region, bool) {
	if rp.next >= len(rp.rec.Overflow) {
		return mem.Region{}, false
	}
	r := rp.rec.Overflow[rp.next]
	rp.next++
	rp.view.Add(r, mem.Write, "binner overflow")
	return r, true
}

// Recorder is a hw.GPU that records chosen jobs to files and passes every
// job on to the GPU it wraps.
type Recorder struct {
	// GPU runs the jobs.
	GPU hw.GPU
	// Path says where job n (1 for the first job run) goes; "" records
	// nothing.
	Path func(n int) string
	// OnError, if set, hears of a job that could not be recorded (the job
	// still runs).
	OnError func(n int, err error)

	n atomic.Int64
}

// Jobs returns how many jobs have been run.
func (rc *Recorder) Jobs() int { return int(rc.n.Load()) }

// Run records j if Path names a file for it, then runs it.
func (rc *Recorder) Run(j *hw.Job) hw.Result {
	n := int(rc.n.Add(1))
	path := ""
	if rc.Path != nil {
		path = rc.Path(n)
	}
	if path == "" {
		return rc.GPU.Run(j)
	}
	rec, err := Capture(j)
	if err != nil {
		rc.fail(n, err)
		return rc.GPU.Run(j)
	}
	run := *j
	if j.Overflow != nil {
		run.Overflow = func() (mem.Region, bool) {
			r, ok := j.Overflow()
			if ok {
				rec.Overflow = append(rec.Overflow, r)
			}
			return r, ok
		}
	}
	res := rc.GPU.Run(&run)
	if err := rec.Save(path); err != nil {
		rc.fail(n, err)
	}
	return res
}

func (rc *Recorder) fail(n int, err error) {
	if rc.OnError != nil {
		rc.OnError(n, err)
	}
}
