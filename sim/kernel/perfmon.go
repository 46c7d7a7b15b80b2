package kernel

import (
	"syscall"

	"github.com/vccube/vccube/sim/hw"
	"github.com/vccube/vccube/uapi"
)

// perfmon is a performance monitor (struct vc4_perfmon in vc4_drv.h): up
// to 16 hardware counters, each counting one event, accumulated over the
// jobs submitted with it. The kernel's reference count is the garbage
// collector's here: a job keeps its perfmon after PERFMON_DESTROY.
type perfmon struct {
	events   []uint8
	counters [uapi.MaxPerfCounters]uint64
}

// add accumulates a job's event counts into the counters (what
// vc4_perfmon_stop reads from V3D_PCTR(i) when it captures).
func (p *perfmon) add(c *hw.Counters) {
	for i, e := range p.events {
		if int(e) < len(c) {
			p.counters[i] += c[e]
		}
	}
}

// PerfmonCreate is DRM_IOCTL_VC4_PERFMON_CREATE (vc4_perfmon.c
// vc4_perfmon_create_ioctl): 1 to 16 counters, each an event below
// VC4_PERFCNT_NUM_EVENTS; the id is the lowest free one from 1.
func (f *File) PerfmonCreate(a *uapi.PerfmonCreate) error {
	if f.d.cfg.NoV3D {
		return errf(syscall.ENODEV, "Creating perfmon no VC4 V3D probed")
	}
	if a.Ncounters == 0 || a.Ncounters > uapi.MaxPerfCounters {
		return errf(syscall.EINVAL, "%d perfmon counters", a.Ncounters)
	}
	for i := uint32(0); i < a.Ncounters; i++ {
		if a.Events[i] >= uapi.PerfcntNumEvents {
			return errf(syscall.EINVAL, "perfmon event %d", a.Events[i])
		}
	}
	d := f.d
	d.mu.Lock()
	defer d.mu.Unlock()
	p := &perfmon{events: append([]uint8(nil), a.Events[:a.Ncounters]...)}
	id := 0
	for i := 1; i < len(f.perfmons); i++ {
		if f.perfmons[i] == nil {
			id = i
			break
		}
	}
	if id == 0 {
		f.perfmons = append(f.perfmons, nil)
		id = len(f.perfmons) - 1
	}
	f.perfmons[id] = p
	a.ID = uint32(id)
	return nil
}

// perfmonFind is vc4_perfmon_find without the reference: nil for an
// unknown id.
func (f *File) perfmonFind(id uint32) *perfmon {
	if f.closed || id == 0 || uint64(id) >= uint64(len(f.perfmons)) {
		return nil
	}
	return f.perfmons[id]
}

// PerfmonDestroy is DRM_IOCTL_VC4_PERFMON_DESTROY: an unknown id is EINVAL.
// Jobs still using the perfmon keep it alive.
func (f *File) PerfmonDestroy(a *uapi.PerfmonDestroy) error {
	if f.d.cfg.NoV3D {
		return errf(syscall.ENODEV, "Destroying perfmon no VC4 V3D probed")
	}
	d := f.d
	d.mu.Lock()
	defer d.mu.Unlock()
	p := f.perfmonFind(a.ID)
	if p == nil {
		return errf(syscall.EINVAL, "no perfmon %d", a.ID)
	}
	f.perfmons[a.ID] = nil
	return nil
}

// PerfmonGetValues is DRM_IOCTL_VC4_PERFMON_GET_VALUES: the counters, one
// u64 per event, copied to ValuesPtr (EFAULT if it is bad); an unknown id
// is EINVAL.
func (f *File) PerfmonGetValues(a *uapi.PerfmonGetValues) error {
	if f.d.cfg.NoV3D {
		return errf(syscall.ENODEV, "Getting perfmon no VC4 V3D probed")
	}
	d := f.d
	d.mu.Lock()
	p := f.perfmonFind(a.ID)
	if p == nil {
		d.mu.Unlock()
		return errf(syscall.EINVAL, "no perfmon %d", a.ID)
	}
	var buf [8 * uapi.MaxPerfCounters]byte
	n := len(p.events)
	putU64s(buf[:], p.counters[:n])
	d.mu.Unlock()
	if err := f.user.CopyToUser(a.ValuesPtr, buf[:8*n]); err != nil {
		return errf(syscall.EFAULT, "perfmon values pointer %#x", a.ValuesPtr)
	}
	return nil
}
