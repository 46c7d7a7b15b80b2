package drm

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"runtime"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// The trace format: JSON Lines, one object per line, version TraceVersion.
//
// The first line is a TraceHeader ({"format":"vccube-trace","version":1,
// …}); every further line is a TraceRecord: one ioctl, mmap, munmap, read
// or close of a traced Conn, in the order the calls finished. A record
// holds the request's name and number, the argument's bytes before and
// after the call (hex) and the result, and, because the kernel reads and
// writes memory the argument only points at, whatever a replay of the call
// needs besides:
//
//   - SUBMIT_CL: the bin CL, the shader records, the uniforms (base64) and
//     the bo_handles; the contents at submit time of every BO of the job
//     that the program had mapped (BOs are written through mmap, which the
//     ioctl never sees), each sent in full when it changed since the last
//     record of the same BO, otherwise by its CRC-32 alone; a BO that is
//     only the job's colour or Z/S write surface is left out, since the
//     job overwrites it;
//   - CREATE_SHADER_BO: the code; LABEL_BO: the name; VERSION: the three
//     strings the kernel copied out; PERFMON_GET_VALUES: the counter
//     values;
//   - after a WAIT_SEQNO or WAIT_BO that succeeded: for every job it showed
//     finished, the CRC-32 of its colour (and Z/S) write BO as the GPU left
//     it, whole and per 64 KiB chunk, read through the trace's own mapping.
//
// Version 1 is this format; a reader refuses any other version. The
// struct layouts in "in"/"out" are those of the recording machine
// (TraceHeader.PointerBytes says whether its pointers were 4 or 8 bytes:
// only DRM_IOCTL_VERSION's layout depends on it).
const (
	TraceFormat  = "vccube-trace"
	TraceVersion = 1
)

// TraceChunk is the size of the pieces a frame's checksum is also given
// for, so that a replay can say where two frames differ.
const TraceChunk = 64 << 10

// TraceHeader is the first line of a trace.
type TraceHeader struct {
	Format  string `json:"format"`  // TraceFormat
	Version int    `json:"version"` // TraceVersion
	// GOARCH and PointerBytes describe the recording machine.
	GOARCH       string `json:"goarch"`
	PointerBytes int    `json:"pointer_bytes"`
	// Start is when the recorder was made; TraceRecord.T counts from it.
	Start time.Time `json:"start"`
	// Program names what was recorded (e.g. "vccube 1.0 -frames 3").
	Program string `json:"program,omitempty"`
}

// Hex is bytes written as a hex string in the trace (argument structs,
// which are small and read best that way).
type Hex []byte

// MarshalJSON writes the bytes as a hex string.
func (h Hex) MarshalJSON() ([]byte, error) {
	out := make([]byte, 0, 2*len(h)+2)
	out = append(out, '"')
	const digits = "0123456789abcdef"
	for _, b := range h {
		out = append(out, digits[b>>4], digits[b&15])
	}
	return append(out, '"'), nil
}

// UnmarshalJSON reads a hex string.
func (h *Hex) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if len(s)%2 != 0 {
		return fmt.Errorf("hex string of odd length %d", len(s))
	}
	out := make([]byte, len(s)/2)
	for i := range out {
		hi, lo := unhex(s[2*i]), unhex(s[2*i+1])
		if hi < 0 || lo < 0 {
			return fmt.Errorf("bad hex digit in %q", s[2*i:2*i+2])
		}
		out[i] = byte(hi<<4 | lo)
	}
	*h = out
	return nil
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// TraceRecord is one call of a traced Conn.
type TraceRecord struct {
	// Seq numbers the records from 1 in the order they were written.
	Seq int `json:"seq"`
	// T is the call's start in seconds since TraceHeader.Start.
	T float64 `json:"t"`
	// Conn says which traced Conn made the call: 0 for the first
	// Recorder.Trace, 1 for the second, …
	Conn int `json:"conn"`
	// Op is "ioctl", "mmap", "munmap", "read" or "close".
	Op string `json:"op"`

	// Name and Req are the ioctl's C name (uapi.IoctlName) and number;
	// In and Out the argument's bytes before and after the call (Out only
	// for requests that copy out).
	Name string `json:"name,omitempty"`
	Req  uint32 `json:"req,omitempty"`
	In   Hex    `json:"in,omitempty"`
	Out  Hex    `json:"out,omitempty"`

	// Errno is the call's errno, 0 for success; Err names it, or holds
	// the text of an error that is not an errno.
	Errno int    `json:"errno"`
	Err   string `json:"err,omitempty"`

	// Offset, Length and Prot are an mmap's arguments (Length also a
	// munmap's and a read's result).
	Offset uint64 `json:"offset,omitempty"`
	Length int    `json:"length,omitempty"`
	Prot   int    `json:"prot,omitempty"`
	// Bytes are what a read returned.
	Bytes Hex `json:"bytes,omitempty"`

	// What SUBMIT_CL's pointers pointed at.
	BinCL     []byte   `json:"bin_cl,omitempty"`
	ShaderRec []byte   `json:"shader_rec,omitempty"`
	Uniforms  []byte   `json:"uniforms,omitempty"`
	BOHandles []uint32 `json:"bo_handles,omitempty"`
	// BOs are the contents of the job's mapped BOs at submit time.
	BOs []TraceBO `json:"bos,omitempty"`
	// Code is CREATE_SHADER_BO's code.
	Code []byte `json:"code,omitempty"`
	// Label is LABEL_BO's name.
	Label string `json:"label,omitempty"`
	// Version is what DRM_IOCTL_VERSION copied out.
	Version *TraceVersionData `json:"version,omitempty"`
	// Values are PERFMON_GET_VALUES' counters.
	Values []uint64 `json:"values,omitempty"`
	// Frames are the checksums of the write surfaces of the jobs a wait
	// showed finished.
	Frames []TraceFrame `json:"frames,omitempty"`
}

// TraceBO is one BO's contents at a submit.
type TraceBO struct {
	Handle uint32 `json:"handle"`
	// Size is the number of bytes the program had mapped.
	Size int `json:"size"`
	// CRC is the CRC-32 (IEEE) of those bytes.
	CRC uint32 `json:"crc32"`
	// Data holds the bytes when they changed since the BO's last record;
	// otherwise they are the same as then and Data is absent.
	Data []byte `json:"data,omitempty"`
}

// TraceVersionData is what DRM_IOCTL_VERSION answered.
type TraceVersionData struct {
	Major, Minor, Patchlevel int32
	Name, Date, Desc         string
}

// TraceFrame is the checksum of a finished job's write surface.
type TraceFrame struct {
	// Seqno is the job's seqno (SUBMIT_CL's answer).
	Seqno uint64 `json:"seqno"`
	// Surface is "color_write" or "zs_write"; Handle the BO's handle.
	Surface string `json:"surface"`
	Handle  uint32 `json:"handle"`
	// Size is the number of bytes summed (the BO's size as created).
	Size int `json:"size"`
	// CRC is the CRC-32 (IEEE) of the whole BO, Chunks of each
	// TraceChunk bytes of it in order.
	CRC    uint32   `json:"crc32"`
	Chunks []uint32 `json:"chunks,omitempty"`
	// Err says why the BO could not be read, if it could not.
	Err string `json:"err,omitempty"`
}

// Recorder writes the trace of one or more Conns to one writer: the
// GPU's and, with a separate display card, the display's.
type Recorder struct {
	mu    sync.Mutex
	w     io.Writer
	start time.Time
	seq   int
	conns int
	buf   []byte
	err   error
}

// NewRecorder writes the header to w and returns a recorder. program
// names what is recorded, for whoever reads the trace.
func NewRecorder(w io.Writer, program string) (*Recorder, error) {
	r := &Recorder{w: w, start: time.Now()}
	h := TraceHeader{Format: TraceFormat, Version: TraceVersion, GOARCH: runtime.GOARCH,
		PointerBytes: int(unsafe.Sizeof(uintptr(0))), Start: r.start, Program: program}
	b, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return nil, fmt.Errorf("drm: writing the trace: %w", err)
	}
	return r, nil
}

// Err returns the first error writing the trace, if any: a traced Conn
// does not fail a call because its record could not be written.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

func (r *Recorder) write(rec *TraceRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	rec.Seq = r.seq
	b, err := json.Marshal(rec)
	if err == nil {
		r.buf = append(append(r.buf[:0], b...), '\n')
		_, err = r.w.Write(r.buf)
	}
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("drm: writing the trace: %w", err)
	}
}

// Trace returns a Conn that forwards every call to c and records it. Its
// Close closes c and releases the mappings the trace made to read frames
// back.
//
// Tracing is for debugging: it copies what the calls point at, sums
// buffers and writes a line per call; it is not allocation-free.
func (r *Recorder) Trace(c uapi.Conn) uapi.Conn {
	r.mu.Lock()
	id := r.conns
	r.conns++
	r.mu.Unlock()
	return &traceConn{Conn: c, r: r, id: id,
		sizes: map[uint32]int{}, offsets: map[uint32]uint64{}, maps: map[uint64][]byte{},
		sent: map[uint32]uint32{}, own: map[uint32][]byte{}, perfmons: map[uint32]int{}}
}

type traceConn struct {
	uapi.Conn
	r  *Recorder
	id int

	mu       sync.Mutex
	sizes    map[uint32]int    // handle → size asked for at creation
	offsets  map[uint32]uint64 // handle → fake offset from MMAP_BO
	maps     map[uint64][]byte // fake offset → the program's mapping
	sent     map[uint32]uint32 // handle → CRC of the contents last recorded
	own      map[uint32][]byte // handle → the trace's own read-only mapping
	perfmons map[uint32]int    // perfmon id → number of counters
	pending  []traceJob        // submitted, not yet seen finished
}

type traceJob struct {
	seqno    uint64
	handles  []uint32
	surfaces [2]uint32 // colour and Z/S write handles, 0 if absent
}

var surfaceNames = [2]string{"color_write", "zs_write"}

func (t *traceConn) newRecord(op string) *TraceRecord {
	return &TraceRecord{Conn: t.id, Op: op, T: time.Since(t.r.start).Seconds()}
}

func setResult(rec *TraceRecord, err error) {
	var errno syscall.Errno
	switch {
	case err == nil:
	case errors.As(err, &errno):
		rec.Errno = int(errno)
		rec.Err = unix.ErrnoName(errno)
		if rec.Err == "" {
			rec.Err = errno.Error()
		}
	default:
		rec.Errno = -1
		rec.Err = err.Error()
	}
}

func (t *traceConn) Ioctl(req uapi.Request, arg unsafe.Pointer) error {
	rec := t.newRecord("ioctl")
	rec.Name, rec.Req = uapi.IoctlName(req), uint32(req)
	n := int(req.Size())
	var argBytes []byte
	if arg != nil && n > 0 {
		argBytes = unsafe.Slice((*byte)(arg), n)
		rec.In = append(Hex(nil), argBytes...)
	}
	var vin uapi.Version // DRM_IOCTL_VERSION's buffer sizes, which the kernel overwrites
	if req == uapi.IoctlVersion && arg != nil {
		vin = *(*uapi.Version)(arg)
	}
	t.mu.Lock()
	t.before(req, arg, rec)
	t.mu.Unlock()
	err := t.Conn.Ioctl(req, arg)
	if req.CopiesOut() && argBytes != nil {
		rec.Out = append(Hex(nil), argBytes...)
	}
	setResult(rec, err)
	if err == nil {
		t.mu.Lock()
		t.after(req, arg, rec, &vin)
		t.mu.Unlock()
	}
	t.r.write(rec)
	return err
}

// before copies what the call points at and, for a submit, the contents of
// its mapped BOs.
func (t *traceConn) before(req uapi.Request, arg unsafe.Pointer, rec *TraceRecord) {
	if arg == nil {
		return
	}
	switch req {
	case uapi.IoctlSubmitCL:
		a := (*uapi.SubmitCL)(arg)
		rec.BinCL = copyUser(a.BinCL, int(a.BinCLSize))
		rec.ShaderRec = copyUser(a.ShaderRec, int(a.ShaderRecSize))
		rec.Uniforms = copyUser(a.Uniforms, int(a.UniformsSize))
		rec.BOHandles = append([]uint32(nil), uapi.UserSlice[uint32](a.BOHandles, int(a.BOHandleCount))...)
		writeOnly := map[uint32]bool{}
		for _, s := range []*uapi.SubmitRCLSurface{&a.ColorWrite, &a.ZSWrite, &a.MSAAColorWrite, &a.MSAAZSWrite} {
			if h, ok := handleAt(rec.BOHandles, s.HIndex); ok {
				writeOnly[h] = true
			}
		}
		for _, s := range []*uapi.SubmitRCLSurface{&a.ColorRead, &a.ZSRead} {
			if h, ok := handleAt(rec.BOHandles, s.HIndex); ok {
				writeOnly[h] = false
			}
		}
		seen := map[uint32]bool{}
		for _, h := range rec.BOHandles {
			if seen[h] || writeOnly[h] {
				continue
			}
			seen[h] = true
			off, ok := t.offsets[h]
			if !ok {
				continue
			}
			m, ok := t.maps[off]
			if !ok {
				continue
			}
			bo := TraceBO{Handle: h, Size: len(m), CRC: crc32.ChecksumIEEE(m)}
			if last, ok := t.sent[h]; !ok || last != bo.CRC {
				bo.Data = append([]byte(nil), m...)
				t.sent[h] = bo.CRC
			}
			rec.BOs = append(rec.BOs, bo)
		}
	case uapi.IoctlCreateShaderBO:
		a := (*uapi.CreateShaderBO)(arg)
		rec.Code = copyUser(a.Data, int(a.Size))
	case uapi.IoctlLabelBO:
		a := (*uapi.LabelBO)(arg)
		rec.Label = string(uapi.UserBytes(a.Name, int(a.Len)))
	}
}

// after notes what the kernel answered: handles, offsets, seqnos, perfmons,
// and on a wait the checksums of the finished jobs' surfaces.
func (t *traceConn) after(req uapi.Request, arg unsafe.Pointer, rec *TraceRecord, vin *uapi.Version) {
	if arg == nil {
		return
	}
	switch req {
	case uapi.IoctlCreateBO:
		a := (*uapi.CreateBO)(arg)
		t.forget(a.Handle)
		t.sizes[a.Handle] = int(a.Size)
	case uapi.IoctlCreateShaderBO:
		a := (*uapi.CreateShaderBO)(arg)
		t.forget(a.Handle)
		t.sizes[a.Handle] = int(a.Size)
	case uapi.IoctlModeCreateDumb:
		a := (*uapi.ModeCreateDumb)(arg)
		t.forget(a.Handle)
		t.sizes[a.Handle] = int(a.Size)
	case uapi.IoctlMmapBO:
		a := (*uapi.MmapBO)(arg)
		t.offsets[a.Handle] = a.Offset
	case uapi.IoctlModeMapDumb:
		a := (*uapi.ModeMapDumb)(arg)
		t.offsets[a.Handle] = a.Offset
	case uapi.IoctlGemClose:
		t.forget((*uapi.GemClose)(arg).Handle)
	case uapi.IoctlSubmitCL:
		a := (*uapi.SubmitCL)(arg)
		j := traceJob{seqno: a.Seqno, handles: rec.BOHandles}
		for i, s := range []*uapi.SubmitRCLSurface{&a.ColorWrite, &a.ZSWrite} {
			j.surfaces[i], _ = handleAt(rec.BOHandles, s.HIndex)
		}
		t.pending = append(t.pending, j)
	case uapi.IoctlWaitSeqno:
		rec.Frames = t.finished((*uapi.WaitSeqno)(arg).Seqno)
	case uapi.IoctlWaitBO:
		h := (*uapi.WaitBO)(arg).Handle
		var last uint64
		for _, j := range t.pending {
			for _, jh := range j.handles {
				if jh == h {
					last = max(last, j.seqno)
				}
			}
		}
		if last != 0 {
			rec.Frames = t.finished(last)
		}
	case uapi.IoctlPerfmonCreate:
		a := (*uapi.PerfmonCreate)(arg)
		t.perfmons[a.ID] = int(a.Ncounters)
	case uapi.IoctlPerfmonDestroy:
		delete(t.perfmons, (*uapi.PerfmonDestroy)(arg).ID)
	case uapi.IoctlPerfmonGetValues:
		a := (*uapi.PerfmonGetValues)(arg)
		rec.Values = append([]uint64(nil), uapi.UserSlice[uint64](a.ValuesPtr, t.perfmons[a.ID])...)
	case uapi.IoctlVersion:
		a := (*uapi.Version)(arg)
		str := func(p, n, capacity uintptr) string {
			return string(uapi.UserBytes(uint64(p), int(min(n, capacity))))
		}
		rec.Version = &TraceVersionData{Major: a.VersionMajor, Minor: a.VersionMinor, Patchlevel: a.VersionPatchlevel,
			Name: str(a.Name, a.NameLen, vin.NameLen), Date: str(a.Date, a.DateLen, vin.DateLen), Desc: str(a.Desc, a.DescLen, vin.DescLen)}
	}
}

// handleAt returns handles[i], if i indexes it.
func handleAt(handles []uint32, i uint32) (uint32, bool) {
	if i == uapi.SurfaceAbsent || int64(i) >= int64(len(handles)) {
		return 0, false
	}
	return handles[i], true
}

// forget drops what the trace knew of a handle that is closed or reused,
// and its own mapping of the BO.
func (t *traceConn) forget(h uint32) {
	if m, ok := t.own[h]; ok {
		_ = t.Conn.Munmap(m)
		delete(t.own, h)
	}
	delete(t.sizes, h)
	delete(t.offsets, h)
	delete(t.sent, h)
}

// finished sums the write surfaces of the pending jobs up to seqno and
// drops them from the pending list.
func (t *traceConn) finished(seqno uint64) []TraceFrame {
	var frames []TraceFrame
	rest := t.pending[:0]
	for _, j := range t.pending {
		if j.seqno > seqno {
			rest = append(rest, j)
			continue
		}
		for i, h := range j.surfaces {
			if h == 0 {
				continue
			}
			f := TraceFrame{Seqno: j.seqno, Surface: surfaceNames[i], Handle: h}
			m, err := t.ownMap(h)
			if err != nil {
				f.Err = err.Error()
			} else {
				f.Size, f.CRC, f.Chunks = len(m), crc32.ChecksumIEEE(m), ChunkSums(m)
			}
			frames = append(frames, f)
		}
	}
	t.pending = rest
	return frames
}

// ChunkSums returns the CRC-32 of each TraceChunk bytes of b, as
// TraceFrame.Chunks holds them.
func ChunkSums(b []byte) []uint32 {
	var sums []uint32
	for len(b) > 0 {
		n := min(len(b), TraceChunk)
		sums = append(sums, crc32.ChecksumIEEE(b[:n]))
		b = b[n:]
	}
	return sums
}

// ownMap maps BO h read-only through the traced Conn itself (not
// recorded), once, so that a finished frame can be summed whether or not
// the program mapped it.
func (t *traceConn) ownMap(h uint32) ([]byte, error) {
	if m, ok := t.own[h]; ok {
		return m, nil
	}
	size, ok := t.sizes[h]
	if !ok || size <= 0 {
		return nil, fmt.Errorf("the size of BO %d is not known to the trace (made before tracing began?)", h)
	}
	off, ok := t.offsets[h]
	if !ok {
		a := uapi.MmapBO{Handle: h}
		if err := t.Conn.Ioctl(uapi.IoctlMmapBO, unsafe.Pointer(&a)); err != nil {
			return nil, fmt.Errorf("MMAP_BO of BO %d: %w", h, err)
		}
		off = a.Offset
		t.offsets[h] = off
	}
	m, err := t.Conn.Mmap(off, size, unix.PROT_READ)
	if err != nil {
		return nil, fmt.Errorf("mmap of BO %d: %w", h, err)
	}
	t.own[h] = m
	return m, nil
}

func copyUser(addr uint64, n int) []byte {
	return append([]byte(nil), uapi.UserBytes(addr, n)...)
}

func (t *traceConn) Mmap(offset uint64, length int, prot int) ([]byte, error) {
	rec := t.newRecord("mmap")
	rec.Offset, rec.Length, rec.Prot = offset, length, prot
	b, err := t.Conn.Mmap(offset, length, prot)
	setResult(rec, err)
	if err == nil {
		t.mu.Lock()
		t.maps[offset] = b
		t.mu.Unlock()
	}
	t.r.write(rec)
	return b, err
}

func (t *traceConn) Munmap(b []byte) error {
	rec := t.newRecord("munmap")
	rec.Length = len(b)
	t.mu.Lock()
	for off, m := range t.maps {
		if len(m) > 0 && len(b) > 0 && &m[0] == &b[0] {
			delete(t.maps, off)
		}
	}
	t.mu.Unlock()
	err := t.Conn.Munmap(b)
	setResult(rec, err)
	t.r.write(rec)
	return err
}

func (t *traceConn) Read(p []byte) (int, error) {
	rec := t.newRecord("read")
	n, err := t.Conn.Read(p)
	if n > 0 {
		rec.Length = n
		rec.Bytes = append(Hex(nil), p[:n]...)
	}
	setResult(rec, err)
	t.r.write(rec)
	return n, err
}

// SetNonblock forwards to the traced Conn when it can switch to
// non-blocking reads (drm.File, the simulator's files), so a traced Conn
// behaves as the one it wraps.
func (t *traceConn) SetNonblock(nonblocking bool) error {
	if nb, ok := t.Conn.(interface{ SetNonblock(bool) error }); ok {
		return nb.SetNonblock(nonblocking)
	}
	return errors.New("drm: the traced Conn cannot switch to non-blocking reads")
}

func (t *traceConn) Close() error {
	rec := t.newRecord("close")
	t.mu.Lock()
	for h, m := range t.own {
		_ = t.Conn.Munmap(m)
		delete(t.own, h)
	}
	t.mu.Unlock()
	err := t.Conn.Close()
	setResult(rec, err)
	t.r.write(rec)
	return err
}

// String returns the bytes in hex, as the trace writes them.
func (h Hex) String() string {
	b, _ := h.MarshalJSON()
	return string(b[1 : len(b)-1])
}
