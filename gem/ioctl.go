package gem

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"time"
	"unsafe"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// Hints for vc4 failures whose cause the kernel's behaviour tells.
const (
	// hintDisplayOnly: the vc5/vc6 driver of a Pi 4/5 has no ioctl table,
	// so drm_ioctl answers EINVAL to every vc4 ioctl (vc4_drv.c:
	// vc5_drm_driver; doc/kernel.md#probing-the-device).
	hintDisplayOnly = "If every vc4 ioctl fails with EINVAL, this vc4 device is display-only: a Raspberry Pi 4 or 5, " +
		"whose 3D engine (VideoCore VI/VII) is the separate v3d driver; vccube needs the VideoCore IV of a Pi 0-3"
	// hintNoV3D: vc4 ioctls answer ENODEV when no V3D is bound
	// (vc4_gem.c, vc4_bo.c, vc4_drv.c: the !vc4->v3d checks).
	hintNoV3D = "This vc4 device has no V3D 3D engine bound: on a Pi 0-3 enable it with dtoverlay=vc4-kms-v3d in config.txt; " +
		"a Pi 4 on an older kernel shows the same (its 3D engine is v3d)"
	// hintValidator: SUBMIT_CL and CREATE_SHADER_BO answer EINVAL when
	// vc4_validate.c or vc4_validate_shaders.c refuses; they say why with
	// DRM_DEBUG, which the kernel prints only when drm.debug asks.
	hintValidator = "The kernel's validator refused it; to read its reason run " +
		"'echo 0x1 | sudo tee /sys/module/drm/parameters/debug' and look in dmesg"
	hintTimeout = "The GPU did not finish within the timeout; if the job never finishes it hung, " +
		"and the kernel resets the GPU and keeps a hang state (GetHangState, as root)"
)

// hint returns the likely cause of a vc4 ioctl failure, or "".
func hint(req uapi.Request, errno unix.Errno) string {
	switch errno {
	case unix.ENOMEM:
		switch req {
		case uapi.IoctlCreateBO, uapi.IoctlCreateShaderBO, uapi.IoctlSubmitCL:
			// CREATE_BO and CREATE_SHADER_BO allocate the BO and on first
			// use the 16 MiB binner BO; SUBMIT_CL allocates the exec BO.
			return drm.HintCMAExhausted
		}
	case unix.ENODEV:
		return hintNoV3D
	case unix.EINVAL:
		switch req {
		case uapi.IoctlSubmitCL:
			return hintValidator
		case uapi.IoctlCreateShaderBO:
			return "The size must be a non-zero multiple of 8. " + hintValidator
		case uapi.IoctlGetParam, uapi.IoctlCreateBO, uapi.IoctlMmapBO:
			return hintDisplayOnly
		}
	case unix.ETIME:
		if req == uapi.IoctlWaitSeqno || req == uapi.IoctlWaitBO {
			return hintTimeout
		}
	case unix.EACCES, unix.EPERM:
		if req == uapi.IoctlGetHangState {
			return "GET_HANG_STATE is for root only (DRM_ROOT_ONLY) and not on a render node"
		}
	case unix.ENOENT:
		switch req {
		case uapi.IoctlGetHangState:
			return "No GPU hang has been recorded since the last GetHangState"
		case uapi.IoctlSubmitCL:
			return "A BO handle or the perfmon id of the job is unknown to this file"
		case uapi.IoctlGemMadvise:
			return "The BO handle is unknown to this file"
		}
	}
	return ""
}

// ioctlError wraps a failed vc4 ioctl; it runs on failure paths only.
func ioctlError(req uapi.Request, err error, detail string) error {
	e := &drm.Error{Op: uapi.IoctlName(req), Req: req, Err: err, Detail: detail}
	e.Hint = hint(req, e.Errno())
	return e
}

// inputError is bad input refused before any ioctl, worded like a failed
// ioctl so that callers see one kind of message.
func inputError(req uapi.Request, detail string) error {
	return &drm.Error{Op: uapi.IoctlName(req), Req: req, Err: unix.EINVAL, Detail: detail}
}

// Submit queues the job s describes (DRM_IOCTL_VC4_SUBMIT_CL) and leaves
// its seqno in s.Seqno for WaitForSeqno.
//
// s is the caller's, assembled in memory it reuses every frame, and the
// buffers its pointer fields name are pinned by the caller (see SubmitCL):
// the call then does not allocate.
func Submit(c uapi.Conn, s *uapi.SubmitCL) error {
	if err := c.Ioctl(uapi.IoctlSubmitCL, unsafe.Pointer(s)); err != nil {
		return ioctlError(uapi.IoctlSubmitCL, err, fmt.Sprintf(
			"bin CL %d bytes, %d shader records in %d bytes, uniforms %d bytes, %d BOs, %dx%d, tiles %d,%d-%d,%d, flags 0x%x",
			s.BinCLSize, s.ShaderRecCount, s.ShaderRecSize, s.UniformsSize, s.BOHandleCount, s.Width, s.Height,
			s.MinXTile, s.MinYTile, s.MaxXTile, s.MaxYTile, s.Flags))
	}
	return nil
}

// Timeout converts a duration to the nanoseconds of WaitSeqno.TimeoutNs
// and WaitBO.TimeoutNs: a negative duration waits forever (^0, which
// vc4_wait_for_seqno treats as no timeout), 0 only polls.
func Timeout(d time.Duration) uint64 {
	if d < 0 {
		return math.MaxUint64
	}
	return uint64(d)
}

// WaitForSeqno waits until the job with seqno w.Seqno is done, for at most
// w.TimeoutNs (DRM_IOCTL_VC4_WAIT_SEQNO); a timeout fails with ETIME. w is
// the caller's and is written back (the kernel lowers TimeoutNs when a
// signal interrupts the wait); with a reused w the call does not allocate.
func WaitForSeqno(c uapi.Conn, w *uapi.WaitSeqno) error {
	if err := c.Ioctl(uapi.IoctlWaitSeqno, unsafe.Pointer(w)); err != nil {
		return ioctlError(uapi.IoctlWaitSeqno, err, fmt.Sprintf("seqno %d, timeout %v", w.Seqno, time.Duration(w.TimeoutNs)))
	}
	return nil
}

// WaitForBO waits until the last job using BO w.Handle is done, for at
// most w.TimeoutNs (DRM_IOCTL_VC4_WAIT_BO); see WaitForSeqno.
func WaitForBO(c uapi.Conn, w *uapi.WaitBO) error {
	if err := c.Ioctl(uapi.IoctlWaitBO, unsafe.Pointer(w)); err != nil {
		return ioctlError(uapi.IoctlWaitBO, err, fmt.Sprintf("handle %d, timeout %v", w.Handle, time.Duration(w.TimeoutNs)))
	}
	return nil
}

// AllocBO allocates a zeroed, physically contiguous BO of size bytes
// (rounded up to pages by the kernel) and returns its GEM handle
// (DRM_IOCTL_VC4_CREATE_BO). Prefer NewBO, which also frees it.
func AllocBO(c uapi.Conn, size uint32) (uint32, error) {
	if size == 0 {
		return 0, inputError(uapi.IoctlCreateBO, "size 0: a BO needs at least one byte")
	}
	arg := uapi.CreateBO{Size: size}
	if err := c.Ioctl(uapi.IoctlCreateBO, unsafe.Pointer(&arg)); err != nil {
		return 0, ioctlError(uapi.IoctlCreateBO, err, fmt.Sprintf("size %d", size))
	}
	return arg.Handle, nil
}

// MapOffset returns the fake offset at which uapi.Conn.Mmap maps BO handle
// (DRM_IOCTL_VC4_MMAP_BO).
func MapOffset(c uapi.Conn, handle uint32) (uint64, error) {
	arg := uapi.MmapBO{Handle: handle}
	if err := c.Ioctl(uapi.IoctlMmapBO, unsafe.Pointer(&arg)); err != nil {
		return 0, ioctlError(uapi.IoctlMmapBO, err, fmt.Sprintf("handle %d", handle))
	}
	return arg.Offset, nil
}

// AllocShaderBO hands QPU code to the kernel, which validates it and keeps
// it in a read-only BO (DRM_IOCTL_VC4_CREATE_SHADER_BO); it returns the
// BO's handle. The code is a whole number of 64-bit instructions, in the
// machine's byte order. Prefer NewShaderBO, which also frees it.
func AllocShaderBO(c uapi.Conn, code []byte) (uint32, error) {
	if len(code) == 0 || len(code)%8 != 0 || uint64(len(code)) > math.MaxUint32 {
		return 0, inputError(uapi.IoctlCreateShaderBO,
			fmt.Sprintf("%d bytes of code: QPU code is a non-empty whole number of 8-byte instructions", len(code)))
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	pin.Pin(&code[0])
	arg := uapi.CreateShaderBO{Size: uint32(len(code)), Data: uapi.UserPointer(unsafe.Pointer(&code[0]))}
	if err := c.Ioctl(uapi.IoctlCreateShaderBO, unsafe.Pointer(&arg)); err != nil {
		return 0, ioctlError(uapi.IoctlCreateShaderBO, err, fmt.Sprintf("%d bytes (%d instructions)", len(code), len(code)/8))
	}
	return arg.Handle, nil
}

// HangReport is a GPU hang as the kernel recorded it.
type HangReport struct {
	State uapi.GetHangState     // the registers (State.BO and State.BOCount describe BOs)
	BOs   []uapi.GetHangStateBO // the BOs of the hung jobs; each Handle is new in this file: close it
}

// GetHangStateReport fetches and clears the kernel's record of the last
// GPU hang (DRM_IOCTL_VC4_GET_HANG_STATE, root only; ENOENT when none).
// The kernel returns only the BO count while the caller's array is too
// small (vc4_gem.c: vc4_get_hang_state_ioctl), so this asks again with
// room for them.
func GetHangStateReport(c uapi.Conn) (*HangReport, error) {
	var bos []uapi.GetHangStateBO
	for try := 0; try < 8; try++ {
		var pin runtime.Pinner
		arg := uapi.GetHangState{BOCount: uint32(len(bos))}
		if len(bos) > 0 {
			pin.Pin(&bos[0])
			arg.BO = uapi.UserPointer(unsafe.Pointer(&bos[0]))
		}
		err := c.Ioctl(uapi.IoctlGetHangState, unsafe.Pointer(&arg))
		pin.Unpin()
		if err != nil {
			return nil, ioctlError(uapi.IoctlGetHangState, err, "")
		}
		if int(arg.BOCount) <= len(bos) {
			return &HangReport{State: arg, BOs: bos[:arg.BOCount]}, nil
		}
		if arg.BOCount > 1<<16 {
			return nil, inputError(uapi.IoctlGetHangState, fmt.Sprintf("the kernel reports an implausible %d BOs", arg.BOCount))
		}
		bos = make([]uapi.GetHangStateBO, arg.BOCount)
	}
	return nil, inputError(uapi.IoctlGetHangState, "the BO count kept growing")
}

// Param returns a GetParam parameter (Param*); an unknown parameter, as on
// an older kernel, fails with EINVAL (vc4_drv.c: vc4_get_param_ioctl).
func Param(c uapi.Conn, param uint32) (uint64, error) {
	arg := uapi.GetParam{Param: param}
	if err := c.Ioctl(uapi.IoctlGetParam, unsafe.Pointer(&arg)); err != nil {
		return 0, ioctlError(uapi.IoctlGetParam, err, fmt.Sprintf("param %d", param))
	}
	return arg.Value, nil
}

// SetBOTiling records how BO handle's pixels are laid out for KMS:
// uapi.FormatModLinear or uapi.FormatModBroadcomVC4TTiled
// (DRM_IOCTL_VC4_SET_TILING).
func SetBOTiling(c uapi.Conn, handle uint32, modifier uint64) error {
	arg := uapi.SetTiling{Handle: handle, Modifier: modifier}
	if err := c.Ioctl(uapi.IoctlSetTiling, unsafe.Pointer(&arg)); err != nil {
		return ioctlError(uapi.IoctlSetTiling, err, fmt.Sprintf("handle %d, modifier 0x%x", handle, modifier))
	}
	return nil
}

// BOTiling returns the layout recorded for BO handle
// (DRM_IOCTL_VC4_GET_TILING).
func BOTiling(c uapi.Conn, handle uint32) (uint64, error) {
	arg := uapi.GetTiling{Handle: handle}
	if err := c.Ioctl(uapi.IoctlGetTiling, unsafe.Pointer(&arg)); err != nil {
		return 0, ioctlError(uapi.IoctlGetTiling, err, fmt.Sprintf("handle %d", handle))
	}
	return arg.Modifier, nil
}

// Label names BO handle in the kernel's BO statistics
// (DRM_IOCTL_VC4_LABEL_BO; /sys/kernel/debug/dri/N/bo_stats).
func Label(c uapi.Conn, handle uint32, name string) error {
	if name == "" || uint64(len(name)) > math.MaxUint32 {
		return inputError(uapi.IoctlLabelBO, "an empty label: the kernel refuses length 0")
	}
	// The kernel copies the name with strndup_user(name, len + 1), which
	// fails with EINVAL unless a NUL ends it within len + 1 bytes
	// (vc4_bo.c vc4_label_bo_ioctl): pass the terminator too.
	b := make([]byte, len(name)+1)
	copy(b, name)
	var pin runtime.Pinner
	defer pin.Unpin()
	pin.Pin(&b[0])
	arg := uapi.LabelBO{Handle: handle, Len: uint32(len(name)), Name: uapi.UserPointer(unsafe.Pointer(&b[0]))}
	if err := c.Ioctl(uapi.IoctlLabelBO, unsafe.Pointer(&arg)); err != nil {
		return ioctlError(uapi.IoctlLabelBO, err, fmt.Sprintf("handle %d, label %q", handle, name))
	}
	return nil
}

// Madvise tells the kernel whether BO handle's memory may be purged under
// memory pressure (MadvDontNeed) or is needed again (MadvWillNeed); it
// reports whether the memory was retained (DRM_IOCTL_VC4_GEM_MADVISE). A
// DONTNEED BO cannot be submitted or mapped.
func Madvise(c uapi.Conn, handle, madv uint32) (retained bool, err error) {
	arg := uapi.GemMadvise{Handle: handle, Madv: madv}
	if err := c.Ioctl(uapi.IoctlGemMadvise, unsafe.Pointer(&arg)); err != nil {
		return false, ioctlError(uapi.IoctlGemMadvise, err, fmt.Sprintf("handle %d, madv %d", handle, madv))
	}
	return arg.Retained != 0, nil
}

// CreatePerfmon creates a performance monitor counting the given events
// (Perfcnt*, at most MaxPerfCounters) and returns its id for
// SubmitCL.PerfmonID (DRM_IOCTL_VC4_PERFMON_CREATE).
func CreatePerfmon(c uapi.Conn, events []uint8) (uint32, error) {
	if len(events) == 0 || len(events) > uapi.MaxPerfCounters {
		return 0, inputError(uapi.IoctlPerfmonCreate, fmt.Sprintf("%d events: a perfmon counts 1 to %d", len(events), uapi.MaxPerfCounters))
	}
	arg := uapi.PerfmonCreate{Ncounters: uint32(len(events))}
	for i, e := range events {
		if e >= uapi.PerfcntNumEvents {
			return 0, inputError(uapi.IoctlPerfmonCreate, fmt.Sprintf("event %d: event ids are below %d", e, uapi.PerfcntNumEvents))
		}
		arg.Events[i] = e
	}
	if err := c.Ioctl(uapi.IoctlPerfmonCreate, unsafe.Pointer(&arg)); err != nil {
		return 0, ioctlError(uapi.IoctlPerfmonCreate, err, fmt.Sprintf("events %v", events))
	}
	return arg.ID, nil
}

// DestroyPerfmon destroys perfmon id (DRM_IOCTL_VC4_PERFMON_DESTROY).
func DestroyPerfmon(c uapi.Conn, id uint32) error {
	arg := uapi.PerfmonDestroy{ID: id}
	if err := c.Ioctl(uapi.IoctlPerfmonDestroy, unsafe.Pointer(&arg)); err != nil {
		return ioctlError(uapi.IoctlPerfmonDestroy, err, fmt.Sprintf("perfmon %d", id))
	}
	return nil
}

// perfmonValues reads perfmon id's counters into values
// (DRM_IOCTL_VC4_PERFMON_GET_VALUES). The kernel writes one uint64 per
// event the perfmon was created with (vc4_perfmon.c:
// vc4_perfmon_get_values_ioctl) and cannot know the slice's length, so a
// shorter slice would be written past its end. That is why this is not
// exported: Perfmon.Values calls it with exactly the perfmon's count.
func perfmonValues(c uapi.Conn, id uint32, values []uint64) error {
	if len(values) == 0 {
		return inputError(uapi.IoctlPerfmonGetValues, "no room for values")
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	pin.Pin(&values[0])
	arg := uapi.PerfmonGetValues{ID: id, ValuesPtr: uapi.UserPointer(unsafe.Pointer(&values[0]))}
	if err := c.Ioctl(uapi.IoctlPerfmonGetValues, unsafe.Pointer(&arg)); err != nil {
		return ioctlError(uapi.IoctlPerfmonGetValues, err, fmt.Sprintf("perfmon %d", id))
	}
	return nil
}

// Perfmon is a performance monitor that remembers its events, so reading
// its values is safe (DRM_IOCTL_VC4_PERFMON_GET_VALUES has no length: the
// kernel writes one value per event into the caller's memory).
type Perfmon struct {
	c      uapi.Conn
	id     uint32
	events []uint8
	closed bool
}

// NewPerfmon creates a perfmon counting events (see CreatePerfmon).
func NewPerfmon(c uapi.Conn, events ...uint8) (*Perfmon, error) {
	id, err := CreatePerfmon(c, events)
	if err != nil {
		return nil, err
	}
	return &Perfmon{c: c, id: id, events: append([]uint8(nil), events...)}, nil
}

// ID is the perfmon's id, for SubmitCL.PerfmonID.
func (p *Perfmon) ID() uint32 { return p.id }

// Values returns the counters, one per event, in the order of the events.
func (p *Perfmon) Values() ([]uint64, error) {
	if p.closed {
		return nil, inputError(uapi.IoctlPerfmonGetValues, "the perfmon is closed")
	}
	v := make([]uint64, len(p.events))
	if err := perfmonValues(p.c, p.id, v); err != nil {
		return nil, err
	}
	return v, nil
}

// Close destroys the perfmon; later calls do nothing.
func (p *Perfmon) Close() error {
	if p == nil || p.closed {
		return nil
	}
	p.closed = true
	return DestroyPerfmon(p.c, p.id)
}

// errClosed is returned by a BO's methods after Close.
var errClosed = errors.New("gem: BO is closed")
