// Package replay plays a trace that drm.Recorder wrote (vccube -trace) back
// against a device — the simulated vc4, or a real one — and reports the
// first calls whose answers differ from the recorded ones: a different
// errno, a different returned field, or a rendered frame whose checksum
// differs. A run recorded on a Raspberry Pi thus becomes a test of the
// simulated device, and a run recorded on the simulated device a test of a
// Pi.
//
// What is replayed: the GPU's calls (the vc4 ioctls, GEM_CLOSE, VERSION,
// and GET_CAP of the render capabilities) of one traced Conn. The display's
// calls (KMS, master, client capabilities, events) are skipped: the
// simulated monitor is not the one the run was recorded with. Mappings are
// not replayed one by one: the replay maps BOs itself, writes into them
// the contents the trace recorded at each submit, and reads back the
// frames the trace has checksums of.
//
// Identifiers the kernel allocates — GEM handles, seqnos, perfmon ids,
// mmap offsets — are not compared: the replay maps each recorded one to
// the one the device gave and translates later calls. Every other field
// the kernel writes is compared, but for the time a wait had left and the
// performance counters that measure time rather than count work
// (uapi.PerfcntCountsWork). A wait that timed out when recorded may
// succeed on replay (the device was faster); one that succeeded must
// succeed, and the replay waits long enough for a slow simulated GPU.
package replay

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"reflect"
	"runtime"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// DefaultWait is how long a replayed wait that succeeded when recorded may
// take: long enough for the simulated GPU to render a large frame on a
// busy machine.
const DefaultWait = 60 * time.Second

// Options say what to replay and when to stop.
type Options struct {
	// Conn is the traced Conn to replay (drm.TraceRecord.Conn): 0, the
	// first one traced, is vccube's GPU.
	Conn int
	// MaxDivergences is how many divergences to collect before stopping;
	// 0 (or 1) stops at the first.
	MaxDivergences int
	// Wait bounds each replayed wait that succeeded when recorded; 0 means
	// DefaultWait.
	Wait time.Duration
}

// Divergence is a call whose answer differs from the recorded one.
type Divergence struct {
	// Seq is the record's number in the trace (drm.TraceRecord.Seq).
	Seq int
	// Call is the ioctl's name.
	Call string
	// What differs: "errno", "field Value", "frame checksum", …
	What string
	// Recorded and Replayed are the two answers.
	Recorded, Replayed string
	// Detail says more, e.g. which part of a frame differs.
	Detail string
}

// String reads like "record 57, DRM_IOCTL_VC4_GET_PARAM: field Value:
// recorded 0x1, replayed 0x0".
func (d Divergence) String() string {
	s := fmt.Sprintf("record %d, %s: %s: recorded %s, replayed %s", d.Seq, d.Call, d.What, d.Recorded, d.Replayed)
	if d.Detail != "" {
		s += " (" + d.Detail + ")"
	}
	return s
}

// Result is what a replay found.
type Result struct {
	// Records is the number of records read.
	Records int
	// Replayed is the number of calls made on the device.
	Replayed int
	// Skipped counts the records not replayed, by reason.
	Skipped map[string]int
	// Frames is the number of frame checksums compared, of
	// FramesRecorded in the replayed Conn's records.
	Frames, FramesRecorded int
	// Submits is the number of SUBMIT_CL records of the replayed Conn;
	// SubmitsSkipped those the replay could not make (a BO or perfmon
	// they name was made by a call it skipped).
	Submits, SubmitsSkipped int
	// Divergences are the calls whose answers differ, in trace order.
	Divergences []Divergence
	// Stopped is set when the replay stopped at MaxDivergences before the
	// end of the trace.
	Stopped bool
	// Unchecked says, once the replay reached the end of the trace, what
	// of the recorded run it did not check: a submit it skipped, a frame
	// it did not compare, or no frame at all. A replay with no divergence
	// but something unchecked is no verdict on the device.
	Unchecked []string
}

// Run replays the trace tr holds on c, which must be a fresh file of the
// device (the handles the trace names are mapped as the calls that made
// them are replayed). It returns an error only when the trace cannot be
// read or replayed at all, or is damaged: records missing from its
// numbering (the recorder numbers them from 1 without a gap), BO
// contents that do not match their checksum. What the device answers
// differently is in the Result, and what the replay could not check in
// Result.Unchecked.
func Run(tr *drm.TraceReader, c uapi.Conn, o Options) (*Result, error) {
	if o.Wait == 0 {
		o.Wait = DefaultWait
	}
	r := &replayer{c: c, o: o, hdr: tr.Header, res: &Result{Skipped: map[string]int{}},
		handles: map[uint32]uint32{}, seqnos: map[uint64]uint64{}, perfmons: map[uint32]uint32{},
		events: map[uint32][]uint8{}, contents: map[uint32][]byte{}, maps: map[uint32][]byte{}, sizes: map[uint32]int{},
		unseen: map[uint64]bool{}}
	defer r.unmapAll()
	last := 0 // the number of the last record read
	for {
		rec, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return r.res, err
		}
		if err := missing(last, rec.Seq); err != nil {
			return r.res, err
		}
		last = rec.Seq
		r.res.Records++
		if rec.Conn == o.Conn {
			r.res.FramesRecorded += len(rec.Frames)
			if rec.Op == "ioctl" && uapi.Request(rec.Req) == uapi.IoctlSubmitCL {
				r.res.Submits++
			}
		}
		switch {
		case rec.Conn != o.Conn:
			r.skip("another traced Conn (the display card)")
		case rec.Op == "ioctl":
			r.ioctl(rec)
		case rec.Op == "mmap" || rec.Op == "munmap":
			r.skip("mmap and munmap (the replay maps BOs itself)")
		case rec.Op == "read":
			r.skip("event reads (display)")
		case rec.Op == "close":
			r.skip("close")
		default:
			r.skip("unknown operation " + rec.Op)
		}
		if r.damaged != nil {
			return r.res, r.damaged
		}
		if len(r.res.Divergences) >= max(o.MaxDivergences, 1) {
			r.res.Stopped = true
			return r.res, nil
		}
	}
	r.res.Unchecked = r.unchecked()
	return r.res, nil
}

// missing says which records are missing between record last and the
// next one read, numbered seq: the recorder numbers its records from 1,
// one after the other, so a gap is a record deleted from the file.
func missing(last, seq int) error {
	switch {
	case seq == last+1:
		return nil
	case seq <= last:
		return fmt.Errorf("record %d follows record %d: the records are out of order or repeated; the trace was edited, and a replay of it would not test the device", seq, last)
	case seq == last+2:
		return fmt.Errorf("record %d is missing (record %d follows record %d): the trace was cut or edited, and a replay of it would not test the device", last+1, seq, last)
	}
	return fmt.Errorf("records %d to %d are missing (record %d follows record %d): the trace was cut or edited, and a replay of it would not test the device", last+1, seq-1, seq, last)
}

// unchecked lists what of the recorded run the replay did not check.
func (r *replayer) unchecked() []string {
	res := r.res
	if res.Records == 0 {
		return []string{"the trace holds no records after its header: the run it recorded made no call, or the file was cut"}
	}
	var u []string
	if res.SubmitsSkipped > 0 {
		u = append(u, fmt.Sprintf("%d of %d submits not replayed (they name BOs or perfmons made by calls the replay skipped)", res.SubmitsSkipped, res.Submits))
	}
	switch {
	case res.FramesRecorded == 0:
		u = append(u, "no frame compared: the trace holds no frame checksum (the run it recorded finished no job)")
	case res.Frames == 0:
		u = append(u, fmt.Sprintf("no frame compared of the %d recorded", res.FramesRecorded))
	case res.Frames < res.FramesRecorded:
		u = append(u, fmt.Sprintf("%d of %d recorded frames not compared", res.FramesRecorded-res.Frames, res.FramesRecorded))
	}
	if n := len(r.unseen); n > 0 && res.Frames > 0 {
		u = append(u, fmt.Sprintf("%d of the %d jobs replayed had no frame compared: no wait in the trace shows them finished", n, r.jobs))
	}
	return u
}

type replayer struct {
	c   uapi.Conn
	o   Options
	hdr drm.TraceHeader
	res *Result
	pin runtime.Pinner
	// damaged is set when the trace contradicts itself.
	damaged error

	handles  map[uint32]uint32 // recorded → replayed
	seqnos   map[uint64]uint64
	perfmons map[uint32]uint32
	events   map[uint32][]uint8 // recorded perfmon id → its events
	contents map[uint32][]byte  // recorded handle → the contents last recorded
	maps     map[uint32][]byte  // replayed handle → the replay's mapping
	sizes    map[uint32]int     // replayed handle → size at creation

	// unseen holds the recorded seqnos of the jobs replayed whose frames
	// no wait has compared yet; jobs counts the jobs replayed.
	unseen map[uint64]bool
	jobs   int
}

func (r *replayer) skip(why string) { r.res.Skipped[why]++ }

// skipCall skips an ioctl record, counting a skipped submit.
func (r *replayer) skipCall(rec *drm.TraceRecord, why string) {
	r.skip(why)
	if uapi.Request(rec.Req) == uapi.IoctlSubmitCL {
		r.res.SubmitsSkipped++
	}
}

func (r *replayer) diverge(rec *drm.TraceRecord, what, recorded, replayed, detail string) {
	r.res.Divergences = append(r.res.Divergences, Divergence{Seq: rec.Seq, Call: rec.Name, What: what,
		Recorded: recorded, Replayed: replayed, Detail: detail})
}

// role says how the replay treats one field of an argument.
type role uint8

const (
	compared   role = iota // compared when the kernel writes it back
	handleIn               // a GEM handle the call names: translated
	handleOut              // a GEM handle the call returns: mapped
	seqnoIn                // a seqno the call names: translated
	seqnoOut               // a seqno the call returns: mapped
	perfmonIn              // a perfmon id the call names (0: none): translated
	perfmonOut             // a perfmon id the call returns: mapped
	allocated              // an mmap offset: the device's choice, not compared
	pointer                // a user pointer: the replay's own copy of the data
	timeout                // a time limit: set by the replay, not compared
)

// callSpec describes one request for the replay: its argument's Go type
// (package uapi's description of the C struct) and the role of each field
// that is not simply compared.
type callSpec struct {
	typ   reflect.Type
	roles map[string]role
}

func spec[T any](roles map[string]role) callSpec {
	return callSpec{typ: reflect.TypeFor[T](), roles: roles}
}

// specs are the calls the replay makes.
var specs = map[uapi.Request]callSpec{
	uapi.IoctlGemClose: spec[uapi.GemClose](map[string]role{"Handle": handleIn}),
	uapi.IoctlGetCap:   spec[uapi.GetCap](nil),
	uapi.IoctlSubmitCL: spec[uapi.SubmitCL](map[string]role{"BinCL": pointer, "ShaderRec": pointer, "Uniforms": pointer,
		"BOHandles": pointer, "PerfmonID": perfmonIn, "Seqno": seqnoOut}),
	uapi.IoctlWaitSeqno:        spec[uapi.WaitSeqno](map[string]role{"Seqno": seqnoIn, "TimeoutNs": timeout}),
	uapi.IoctlWaitBO:           spec[uapi.WaitBO](map[string]role{"Handle": handleIn, "TimeoutNs": timeout}),
	uapi.IoctlCreateBO:         spec[uapi.CreateBO](map[string]role{"Handle": handleOut}),
	uapi.IoctlMmapBO:           spec[uapi.MmapBO](map[string]role{"Handle": handleIn, "Offset": allocated}),
	uapi.IoctlCreateShaderBO:   spec[uapi.CreateShaderBO](map[string]role{"Data": pointer, "Handle": handleOut}),
	uapi.IoctlGetParam:         spec[uapi.GetParam](nil),
	uapi.IoctlSetTiling:        spec[uapi.SetTiling](map[string]role{"Handle": handleIn}),
	uapi.IoctlGetTiling:        spec[uapi.GetTiling](map[string]role{"Handle": handleIn}),
	uapi.IoctlLabelBO:          spec[uapi.LabelBO](map[string]role{"Handle": handleIn, "Name": pointer}),
	uapi.IoctlGemMadvise:       spec[uapi.GemMadvise](map[string]role{"Handle": handleIn}),
	uapi.IoctlPerfmonCreate:    spec[uapi.PerfmonCreate](map[string]role{"ID": perfmonOut}),
	uapi.IoctlPerfmonDestroy:   spec[uapi.PerfmonDestroy](map[string]role{"ID": perfmonIn}),
	uapi.IoctlPerfmonGetValues: spec[uapi.PerfmonGetValues](map[string]role{"ID": perfmonIn, "ValuesPtr": pointer}),
}

// renderCaps are the GET_CAP capabilities of the GPU side; the others are
// the display's.
var renderCaps = map[uint64]bool{uapi.CapPrime: true, uapi.CapTimestampMonotonic: true, uapi.CapSyncobj: true, uapi.CapSyncobjTimeline: true}

// leaf is one scalar field of an argument struct.
type leaf struct {
	name   string
	offset uintptr
	size   uintptr
}

// leaves lists the scalar fields of t (nested structs by dotted names,
// arrays as one field).
func leaves(t reflect.Type, prefix string, base uintptr, out []leaf) []leaf {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Name == "_" {
			continue
		}
		if f.Type.Kind() == reflect.Struct {
			out = leaves(f.Type, prefix+f.Name+".", base+f.Offset, out)
			continue
		}
		out = append(out, leaf{name: prefix + f.Name, offset: base + f.Offset, size: f.Type.Size()})
	}
	return out
}

func (s callSpec) field(name string) leaf {
	f, ok := s.typ.FieldByName(name)
	if !ok {
		panic("replay: " + s.typ.String() + " has no field " + name) // a mistake in specs
	}
	return leaf{name: name, offset: f.Offset, size: f.Type.Size()}
}

func get(b []byte, f leaf) uint64 {
	switch f.size {
	case 1:
		return uint64(b[f.offset])
	case 2:
		return uint64(binary.NativeEndian.Uint16(b[f.offset:]))
	case 4:
		return uint64(binary.NativeEndian.Uint32(b[f.offset:]))
	case 8:
		return binary.NativeEndian.Uint64(b[f.offset:])
	}
	panic(fmt.Sprintf("replay: field %s of %d bytes read as a number", f.name, f.size))
}

func put(b []byte, f leaf, v uint64) {
	switch f.size {
	case 1:
		b[f.offset] = byte(v)
	case 2:
		binary.NativeEndian.PutUint16(b[f.offset:], uint16(v))
	case 4:
		binary.NativeEndian.PutUint32(b[f.offset:], uint32(v))
	case 8:
		binary.NativeEndian.PutUint64(b[f.offset:], v)
	default:
		panic(fmt.Sprintf("replay: field %s of %d bytes written as a number", f.name, f.size))
	}
}

func errnoText(errno int, text string) string {
	if errno == 0 {
		return "0 (success)"
	}
	if text == "" {
		text = syscall.Errno(errno).Error()
	}
	return fmt.Sprintf("%d (%s)", errno, text)
}

func errnoOf(err error) (int, string) {
	var en syscall.Errno
	switch {
	case err == nil:
		return 0, ""
	case errors.As(err, &en):
		return int(en), unix.ErrnoName(en)
	}
	return -1, err.Error()
}

// ioctl replays one recorded ioctl.
func (r *replayer) ioctl(rec *drm.TraceRecord) {
	if rec.Name == uapi.IoctlName(uapi.IoctlVersion) || strings.HasPrefix(rec.Name, "DRM_IOCTL_VERSION") {
		r.version(rec)
		return
	}
	req := uapi.Request(rec.Req)
	s, ok := specs[req]
	if !ok {
		if strings.HasPrefix(rec.Name, "DRM_IOCTL_VC4_") {
			r.skip("vc4 calls the replay does not make (" + rec.Name + ")")
		} else {
			r.skip("display and DRM master calls")
		}
		return
	}
	if len(rec.In) != int(s.typ.Size()) {
		r.skipCall(rec, "arguments of another size than this machine's")
		return
	}
	if req == uapi.IoctlGetCap && !renderCaps[binary.NativeEndian.Uint64(rec.In)] {
		r.skip("display and DRM master calls")
		return
	}
	// The argument, 8-byte aligned, from the recorded bytes.
	words := make([]uint64, (len(rec.In)+7)/8)
	arg := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), len(rec.In))
	copy(arg, rec.In)
	for name, ro := range s.roles {
		f := s.field(name)
		v := get(arg, f)
		switch ro {
		case handleIn:
			h, ok := r.handles[uint32(v)]
			if !ok {
				r.skipCall(rec, "calls on BOs the replay did not make (made by a call it skipped, or before tracing began)")
				return
			}
			put(arg, f, uint64(h))
		case seqnoIn:
			if v == 0 {
				continue
			}
			sq, ok := r.seqnos[v]
			if !ok {
				// A seqno the trace never saw returned: older than
				// the trace, so long finished.
				sq = 0
			}
			put(arg, f, sq)
		case perfmonIn:
			if v == 0 {
				continue
			}
			id, ok := r.perfmons[uint32(v)]
			if !ok {
				r.skipCall(rec, "calls on perfmons the replay did not make")
				return
			}
			put(arg, f, uint64(id))
		case timeout:
			if rec.Errno == 0 {
				put(arg, f, uint64(r.o.Wait.Nanoseconds()))
			}
		}
	}
	defer r.pin.Unpin()
	switch req {
	case uapi.IoctlSubmitCL:
		if !r.prepareSubmit(rec, arg) {
			return
		}
	case uapi.IoctlCreateShaderBO:
		put(arg, s.field("Data"), r.pointerTo(rec.Code))
	case uapi.IoctlLabelBO:
		put(arg, s.field("Name"), r.pointerTo([]byte(rec.Label)))
	case uapi.IoctlPerfmonGetValues:
		n := len(r.events[uint32(get(arg, s.field("ID")))])
		if n == 0 {
			n = uapi.MaxPerfCounters
		}
		vals := make([]uint64, n)
		r.pin.Pin(&vals[0])
		put(arg, s.field("ValuesPtr"), uapi.UserPointer(unsafe.Pointer(&vals[0])))
		defer r.compareValues(rec, vals)
	case uapi.IoctlGemClose:
		h := uint32(get(arg, s.field("Handle")))
		if m, ok := r.maps[h]; ok {
			_ = r.c.Munmap(m)
			delete(r.maps, h)
		}
	}

	err := r.c.Ioctl(req, unsafe.Pointer(&words[0]))
	r.res.Replayed++
	errno, text := errnoOf(err)
	if errno != rec.Errno {
		timedOutBefore := rec.Errno == int(unix.ETIME) && errno == 0
		if !timedOutBefore {
			r.diverge(rec, "errno", errnoText(rec.Errno, rec.Err), errnoText(errno, text), "")
			return
		}
	}
	if err != nil {
		return
	}
	r.compareOut(rec, &s, arg)
	r.afterSuccess(rec, req, &s, arg)
}

// pointerTo pins b and returns its address (0 for an empty slice).
func (r *replayer) pointerTo(b []byte) uint64 {
	if len(b) == 0 {
		return 0
	}
	r.pin.Pin(&b[0])
	return uapi.UserPointer(unsafe.Pointer(&b[0]))
}

// compareOut compares the fields the kernel wrote back, and maps the
// identifiers it returned.
func (r *replayer) compareOut(rec *drm.TraceRecord, s *callSpec, arg []byte) {
	if len(rec.Out) != len(arg) {
		return // the call does not copy out
	}
	for _, f := range leaves(s.typ, "", 0, nil) {
		ro := s.roles[f.name]
		if ro != compared {
			continue
		}
		want, got := rec.Out[f.offset:f.offset+f.size], arg[f.offset:f.offset+f.size]
		if string(want) == string(got) {
			continue
		}
		if f.size <= 8 && f.size&(f.size-1) == 0 {
			r.diverge(rec, "field "+f.name, fmt.Sprintf("%#x", get(rec.Out, f)), fmt.Sprintf("%#x", get(arg, f)), "")
		} else {
			r.diverge(rec, "field "+f.name, drm.Hex(want).String(), drm.Hex(got).String(), "")
		}
	}
}

// afterSuccess maps the identifiers the device returned and checks the
// frames of a finished wait.
func (r *replayer) afterSuccess(rec *drm.TraceRecord, req uapi.Request, s *callSpec, arg []byte) {
	for name, ro := range s.roles {
		f := s.field(name)
		switch ro {
		case handleOut:
			r.handles[uint32(get(rec.Out, f))] = uint32(get(arg, f))
		case seqnoOut:
			r.seqnos[get(rec.Out, f)] = get(arg, f)
		case perfmonOut:
			r.perfmons[uint32(get(rec.Out, f))] = uint32(get(arg, f))
		}
	}
	switch req {
	case uapi.IoctlSubmitCL:
		if len(rec.Out) == len(arg) {
			r.unseen[get(rec.Out, s.field("Seqno"))] = true
			r.jobs++
		}
	case uapi.IoctlCreateBO:
		r.sizes[uint32(get(arg, s.field("Handle")))] = int(get(arg, s.field("Size")))
		r.forgetRecorded(uint32(get(rec.Out, s.field("Handle"))))
	case uapi.IoctlCreateShaderBO:
		r.sizes[uint32(get(arg, s.field("Handle")))] = int(get(arg, s.field("Size")))
		r.forgetRecorded(uint32(get(rec.Out, s.field("Handle"))))
	case uapi.IoctlGemClose:
		recorded := uint32(get(rec.In, s.field("Handle")))
		delete(r.sizes, r.handles[recorded])
		delete(r.handles, recorded)
		r.forgetRecorded(recorded)
	case uapi.IoctlPerfmonCreate:
		var pc uapi.PerfmonCreate
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&pc)), unsafe.Sizeof(pc)), rec.In)
		r.events[uint32(get(rec.Out, s.field("ID")))] = append([]uint8(nil), pc.Events[:min(int(pc.Ncounters), len(pc.Events))]...)
	case uapi.IoctlWaitSeqno, uapi.IoctlWaitBO:
		r.checkFrames(rec)
	}
}

func (r *replayer) forgetRecorded(h uint32) { delete(r.contents, h) }

// prepareSubmit points the submit at the recorded streams, translates its
// handles and writes the recorded BO contents into the device's BOs.
func (r *replayer) prepareSubmit(rec *drm.TraceRecord, arg []byte) bool {
	handles := make([]uint32, len(rec.BOHandles))
	for i, h := range rec.BOHandles {
		nh, ok := r.handles[h]
		if !ok {
			r.skipCall(rec, "calls on BOs the replay did not make (made by a call it skipped, or before tracing began)")
			return false
		}
		handles[i] = nh
	}
	for _, bo := range rec.BOs {
		if bo.Data != nil {
			if crc32.ChecksumIEEE(bo.Data) != bo.CRC || len(bo.Data) != bo.Size {
				r.damaged = fmt.Errorf("record %d: the contents of BO %d do not match their recorded size and checksum: the trace is damaged", rec.Seq, bo.Handle)
				return false
			}
			r.contents[bo.Handle] = bo.Data
		}
		data, ok := r.contents[bo.Handle]
		if !ok {
			r.diverge(rec, "BO contents", fmt.Sprintf("crc32 %#08x", bo.CRC), "unknown",
				fmt.Sprintf("the trace does not hold the contents of BO %d; it was cut or edited", bo.Handle))
			return false
		}
		m, err := r.mapBO(handles[indexOf(rec.BOHandles, bo.Handle)], len(data))
		if err != nil {
			r.diverge(rec, "mapping BO for its contents", "mapped", err.Error(), fmt.Sprintf("BO %d", bo.Handle))
			return false
		}
		copy(m, data)
	}
	s := specs[uapi.IoctlSubmitCL]
	if len(handles) > 0 {
		r.pin.Pin(&handles[0])
		put(arg, s.field("BOHandles"), uapi.UserPointer(unsafe.Pointer(&handles[0])))
	} else {
		put(arg, s.field("BOHandles"), 0)
	}
	put(arg, s.field("BinCL"), r.pointerTo(rec.BinCL))
	put(arg, s.field("ShaderRec"), r.pointerTo(rec.ShaderRec))
	put(arg, s.field("Uniforms"), r.pointerTo(rec.Uniforms))
	return true
}

func indexOf(hs []uint32, h uint32) int {
	for i, x := range hs {
		if x == h {
			return i
		}
	}
	return -1
}

// mapBO maps replayed BO h (once) for reading and writing, at least n
// bytes of it.
func (r *replayer) mapBO(h uint32, n int) ([]byte, error) {
	if m, ok := r.maps[h]; ok && len(m) >= n {
		return m, nil
	} else if ok {
		_ = r.c.Munmap(m)
		delete(r.maps, h)
	}
	size := max(r.sizes[h], n)
	a := uapi.MmapBO{Handle: h}
	if err := r.c.Ioctl(uapi.IoctlMmapBO, unsafe.Pointer(&a)); err != nil {
		return nil, fmt.Errorf("MMAP_BO: %w", err)
	}
	m, err := r.c.Mmap(a.Offset, size, unix.PROT_READ|unix.PROT_WRITE)
	if err != nil {
		return nil, fmt.Errorf("mmap: %w", err)
	}
	r.maps[h] = m
	return m, nil
}

func (r *replayer) unmapAll() {
	for h, m := range r.maps {
		_ = r.c.Munmap(m)
		delete(r.maps, h)
	}
}

// checkFrames compares the checksums of the frames a wait finished, of
// the jobs the replay submitted (a skipped submit's frame is not the
// device's).
func (r *replayer) checkFrames(rec *drm.TraceRecord) {
	for _, f := range rec.Frames {
		if _, submitted := r.seqnos[f.Seqno]; f.Err != "" || !submitted {
			continue
		}
		h, ok := r.handles[f.Handle]
		if !ok {
			continue
		}
		m, err := r.mapBO(h, f.Size)
		if err != nil {
			r.diverge(rec, "frame checksum", fmt.Sprintf("crc32 %#08x", f.CRC), "unreadable: "+err.Error(), "")
			continue
		}
		r.res.Frames++
		delete(r.unseen, f.Seqno)
		got := drm.ChunkSums(m[:f.Size])
		crc := crc32.ChecksumIEEE(m[:f.Size])
		if crc == f.CRC {
			continue
		}
		r.diverge(rec, "frame checksum", fmt.Sprintf("crc32 %#08x", f.CRC), fmt.Sprintf("crc32 %#08x", crc),
			fmt.Sprintf("%s of the job with seqno %d, BO %d: %s", f.Surface, f.Seqno, f.Handle, chunkDiff(f.Chunks, got, f.Size)))
	}
}

// chunkDiff says which TraceChunk-sized pieces of a frame differ.
func chunkDiff(want, got []uint32, size int) string {
	if len(want) != len(got) {
		return fmt.Sprintf("%d bytes", size)
	}
	first, last, n := -1, -1, 0
	for i := range want {
		if want[i] != got[i] {
			if first < 0 {
				first = i
			}
			last = i
			n++
		}
	}
	if first < 0 {
		return "every chunk has the recorded checksum"
	}
	end := min((last+1)*drm.TraceChunk, size) - 1
	return fmt.Sprintf("%d of %d chunks of %d KiB differ, bytes %#x to %#x", n, len(want), drm.TraceChunk>>10, first*drm.TraceChunk, end)
}

// compareValues compares performance counters, those that count work
// only.
func (r *replayer) compareValues(rec *drm.TraceRecord, vals []uint64) {
	if len(r.res.Divergences) > 0 && r.res.Divergences[len(r.res.Divergences)-1].Seq == rec.Seq {
		return // the call itself diverged
	}
	ev := r.events[uint32(get(rec.In, specs[uapi.IoctlPerfmonGetValues].field("ID")))]
	for i, want := range rec.Values {
		if i >= len(vals) || i >= len(ev) || !uapi.PerfcntCountsWork(ev[i]) {
			continue
		}
		if vals[i] != want {
			r.diverge(rec, "counter "+uapi.PerfcntName(ev[i]), fmt.Sprint(want), fmt.Sprint(vals[i]), "")
		}
	}
}

// version replays DRM_IOCTL_VERSION, whose layout depends on the pointer
// size of the recording machine, with buffers of the recorded sizes.
func (r *replayer) version(rec *drm.TraceRecord) {
	// struct drm_version: three ints, then six size_t and char* fields,
	// aligned to their size (C's layout: 36 bytes with 4-byte pointers,
	// 64 with 8-byte ones).
	pb := r.hdr.PointerBytes
	base := (12 + pb - 1) / pb * pb
	if pb != 4 && pb != 8 || len(rec.In) != base+6*pb {
		r.skip("DRM_IOCTL_VERSION of an unknown layout")
		return
	}
	word := func(b []byte, i int) uintptr { // the i-th pointer-sized field after the three ints
		o := base + i*pb
		if pb == 4 {
			return uintptr(binary.NativeEndian.Uint32(b[o:]))
		}
		return uintptr(binary.NativeEndian.Uint64(b[o:]))
	}
	var v uapi.Version
	v.NameLen, v.DateLen, v.DescLen = word(rec.In, 0), word(rec.In, 2), word(rec.In, 4)
	bufs := [3][]byte{make([]byte, v.NameLen+1), make([]byte, v.DateLen+1), make([]byte, v.DescLen+1)}
	defer r.pin.Unpin()
	for i, p := range []*uintptr{&v.Name, &v.Date, &v.Desc} {
		if word(rec.In, 2*i+1) != 0 {
			r.pin.Pin(&bufs[i][0])
			*p = uintptr(unsafe.Pointer(&bufs[i][0]))
		}
	}
	err := r.c.Ioctl(uapi.IoctlVersion, unsafe.Pointer(&v))
	r.res.Replayed++
	errno, text := errnoOf(err)
	if errno != rec.Errno {
		r.diverge(rec, "errno", errnoText(rec.Errno, rec.Err), errnoText(errno, text), "")
		return
	}
	if err != nil || len(rec.Out) != len(rec.In) {
		return
	}
	lens := [3]uintptr{v.NameLen, v.DateLen, v.DescLen}
	for i, name := range []string{"name_len", "date_len", "desc_len"} {
		if want := word(rec.Out, 2*i); want != lens[i] {
			r.diverge(rec, "field "+name, fmt.Sprint(want), fmt.Sprint(lens[i]), "")
		}
	}
	if rv := rec.Version; rv != nil {
		got := [3]string{}
		caps := [3]uintptr{word(rec.In, 0), word(rec.In, 2), word(rec.In, 4)}
		for i := range got {
			got[i] = string(bufs[i][:min(lens[i], caps[i])])
		}
		for i, pair := range [3][2]string{{rv.Name, got[0]}, {rv.Date, got[1]}, {rv.Desc, got[2]}} {
			if pair[0] != pair[1] && word(rec.In, 2*i+1) != 0 {
				r.diverge(rec, "field "+[3]string{"name", "date", "desc"}[i], fmt.Sprintf("%q", pair[0]), fmt.Sprintf("%q", pair[1]), "")
			}
		}
		if rv.Major != v.VersionMajor || rv.Minor != v.VersionMinor || rv.Patchlevel != v.VersionPatchlevel {
			r.diverge(rec, "field version", fmt.Sprintf("%d.%d.%d", rv.Major, rv.Minor, rv.Patchlevel),
				fmt.Sprintf("%d.%d.%d", v.VersionMajor, v.VersionMinor, v.VersionPatchlevel), "")
		}
	}
}
