package simserve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/display"
	"github.com/vccube/vccube/sim/hw"
	"github.com/vccube/vccube/sim/kernel"
	"github.com/vccube/vccube/uapi"
)

// frameNumbers numbers page flips as frames: frame K is the picture the
// K-th page flip (from 0) put on screen since the latest mode set that lit
// the CRTC, or with modesetIsFrame the mode set's picture is frame 0 and
// the K-th flip frame K+1 (see Capture). Its zero value is before any
// mode set.
type frameNumbers struct {
	next           int // the next flip's frame
	lit            bool
	modesetIsFrame bool
}

// flip advances the numbering for f and returns the frame it showed, or
// false for a picture that is not a frame (a mode set, unless
// modesetIsFrame, or a flip before any mode set).
func (n *frameNumbers) flip(f display.Flip) (int, bool) {
	if f.Modeset {
		n.lit = f.FbID != 0
		n.next = 0
		if !n.modesetIsFrame || !n.lit {
			return 0, false
		}
		n.next = 1
		return 0, true
	}
	if !n.lit {
		return 0, false
	}
	k := n.next
	n.next++
	return k, true
}

// FrameRecord is what one frame cost: everything the clients asked of the
// device and everything the GPU did from the previous frame's flip (or,
// for frame 0, from the mode set) to this frame's.
type FrameRecord struct {
	// Frame is the frame's number (see Capture).
	Frame int `json:"frame"`
	// Ioctls counts every ioctl of every file of the device, the page
	// flip's included.
	Ioctls int `json:"ioctls"`
	// Submits counts DRM_IOCTL_VC4_SUBMIT_CL calls, and the three byte
	// counts add up their bin_cl_size, shader_rec_size and uniforms_size:
	// what user space wrote for the kernel to validate.
	Submits        int    `json:"submits"`
	BinCLBytes     uint64 `json:"bin_cl_bytes"`
	ShaderRecBytes uint64 `json:"shader_rec_bytes"`
	UniformsBytes  uint64 `json:"uniforms_bytes"`
	// Jobs counts the jobs the GPU finished, and Counters adds up their
	// performance counters (uapi.Perfcnt* events; the GPU model's counts,
	// sim/gpu).
	Jobs     int         `json:"jobs"`
	Counters hw.Counters `json:"-"`
	// ClientCPU is the CPU time the client process used in the frame, on
	// this machine (Linux's per-thread run time, /proc/PID/task/*/schedstat;
	// for a program run by qemu-user, the emulator's time); 0 when no
	// client is known or the kernel does not say. A thread that is running
	// when the flip lands is counted up to its last scheduler tick; a
	// client blocked in PAGE_FLIP, as kmscube and vccube are, is counted
	// exactly.
	ClientCPU time.Duration `json:"client_cpu_ns"`
	// ServerCPU is the CPU time the serving process used in the frame, all
	// its threads (the same schedstat reading): the simulated kernel's
	// validation, the GPU model running the frame's jobs, the display and
	// the server's socket work. It measures the model's speed on the
	// client's streams; for a server run inside a larger program (a
	// test, internal/cmd/sidebyside) that program's other threads count
	// too.
	ServerCPU time.Duration `json:"server_cpu_ns"`
}

// MarshalJSON writes the record with its counters by name.
func (r FrameRecord) MarshalJSON() ([]byte, error) {
	type plain FrameRecord
	counters := map[string]uint64{}
	for e, v := range r.Counters {
		if v != 0 {
			counters[uapi.PerfcntName(uint8(e))] = v
		}
	}
	return json.Marshal(struct {
		plain
		Counters map[string]uint64 `json:"gpu_counters"`
	}{plain(r), counters})
}

// FrameStats counts, per frame, the ioctls and the bytes the clients
// submitted and the GPU's performance counters, for benchmarks that hold
// two programs against each other on the same simulated device. Wire it to
// the device with Options (sim.Options: OnIoctl, OnJobDone, CountEvents)
// and to the display with OnFlip; tell it the client's process with
// SetClient.
type FrameStats struct {
	// ModesetIsFrame makes a mode set's picture frame 0, as
	// Capture.ModesetIsFrame does (atomic programs).
	ModesetIsFrame bool

	mu      sync.Mutex
	numbers frameNumbers
	cur     FrameRecord
	frames  []FrameRecord
	pid     int
	cpuAt   time.Duration // the client's CPU time at the last flip
	selfAt  time.Duration // the server's CPU time at the last flip
}

// NewFrameStats returns an empty FrameStats.
func NewFrameStats() *FrameStats { return &FrameStats{selfAt: processCPU(os.Getpid())} }

// DeviceOptions sets the hooks of opts that feed s.
func (s *FrameStats) DeviceOptions(opts *sim.Options) {
	opts.OnIoctl = s.OnIoctl
	opts.OnJobDone = s.OnJobDone
	opts.CountEvents = true
}

// SetClient names the process whose CPU time each frame reports.
func (s *FrameStats) SetClient(pid int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pid = pid
	s.cpuAt = processCPU(pid)
}

// OnIoctl is the device's hook (sim.Options.OnIoctl).
func (s *FrameStats) OnIoctl(f *sim.File, req uapi.Request, in []byte, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cur.Ioctls++
	if req != uapi.IoctlSubmitCL || len(in) < int(unsafe.Sizeof(uapi.SubmitCL{})) {
		return
	}
	var a uapi.SubmitCL
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&a)), unsafe.Sizeof(a)), in)
	s.cur.Submits++
	s.cur.BinCLBytes += uint64(a.BinCLSize)
	s.cur.ShaderRecBytes += uint64(a.ShaderRecSize)
	s.cur.UniformsBytes += uint64(a.UniformsSize)
}

// OnJobDone is the device's hook (sim.Options.OnJobDone).
func (s *FrameStats) OnJobDone(r kernel.JobReport) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cur.Jobs++
	if c := r.Job.Counters; c != nil {
		for e := range c {
			s.cur.Counters[e] += c[e]
		}
	}
}

// OnFlip is the display's hook (display.Options.OnFlip): a flip closes
// the frame it showed. What came before the mode set is dropped.
func (s *FrameStats) OnFlip(f display.Flip) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cpu := processCPU(s.pid)
	self := processCPU(os.Getpid())
	s.numbers.modesetIsFrame = s.ModesetIsFrame
	k, ok := s.numbers.flip(f)
	if ok {
		s.cur.Frame = k
		if s.pid != 0 && cpu >= s.cpuAt {
			s.cur.ClientCPU = cpu - s.cpuAt
		}
		if self >= s.selfAt {
			s.cur.ServerCPU = self - s.selfAt
		}
		s.frames = append(s.frames, s.cur)
	}
	s.cur = FrameRecord{}
	s.cpuAt = cpu
	s.selfAt = self
}

// Frames returns the frames recorded so far.
func (s *FrameStats) Frames() []FrameRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]FrameRecord(nil), s.frames...)
}

// WriteJSON writes the frames as JSON lines, one frame a line.
func (s *FrameStats) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	for _, r := range s.Frames() {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}

// processCPU is the CPU time all threads of process pid have run, from
// the first field of each /proc/PID/task/TID/schedstat (nanoseconds on
// the CPU); 0 for pid 0 or when the files cannot be read.
func processCPU(pid int) time.Duration {
	if pid <= 0 {
		return 0
	}
	dir := filepath.Join("/proc", strconv.Itoa(pid), "task")
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	var sum time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(filepath.Join(dir, t.Name(), "schedstat"))
		if err != nil {
			continue
		}
		f, _, _ := bytes.Cut(b, []byte(" "))
		ns, err := strconv.ParseInt(strings.TrimSpace(string(f)), 10, 64)
		if err == nil {
			sum += time.Duration(ns)
		}
	}
	return sum
}

// String is a one-line summary of r.
func (r FrameRecord) String() string {
	return fmt.Sprintf("frame %d: %d ioctls, %d submits (%d+%d+%d bytes), %d jobs, client CPU %v, server CPU %v",
		r.Frame, r.Ioctls, r.Submits, r.BinCLBytes, r.ShaderRecBytes, r.UniformsBytes, r.Jobs, r.ClientCPU, r.ServerCPU)
}
