package kernel

import (
	"syscall"

	"github.com/vccube/vccube/uapi"
)

// Sync objects (drivers/gpu/drm/drm_syncobj.c): per-file handles to a
// fence, which vc4's SUBMIT_CL waits on (in_sync) and replaces with the
// job's fence (out_sync). Mesa's vc4 driver creates two per GL context
// and names one as out_sync in every submit once DRM_CAP_SYNCOBJ says 1.
//
// Not modelled yet: exporting and importing fences as sync_file fds
// (SYNCOBJ_HANDLE_TO_FD and FD_TO_HANDLE), waits, resets, signals and
// timelines. The only fences are vc4's own jobs and the signalled stub.

// Fence is a dma_fence the simulated device knows: the completion of the
// job with Seqno (vc4's fence context, vc4_fence.c), or, with Seqno 0, an
// already signalled fence (dma_fence_get_stub).
type Fence struct {
	Seqno uint64
}

// syncobj is a struct drm_syncobj: its fence, if it has one.
type syncobj struct {
	hasFence bool
	fence    Fence
}

// syncobjFeature is DRIVER_SYNCOBJ: vc4_drm_driver has it, the Pi 4/5's
// display-only vc5_drm_driver not (drm_syncobj.c answers EOPNOTSUPP
// without it).
func (f *File) syncobjFeature() error {
	if f.d.cfg.DisplayOnly {
		return errf(syscall.EOPNOTSUPP, "the driver has no syncobjs (no DRIVER_SYNCOBJ)")
	}
	return nil
}

// SyncobjCreate is DRM_IOCTL_SYNCOBJ_CREATE (drm_syncobj_create_ioctl):
// a new syncobj, holding a signalled fence with SyncobjCreateSignaled,
// under the lowest free handle from 1 (idr_alloc).
func (f *File) SyncobjCreate(a *uapi.SyncobjCreate) error {
	if err := f.syncobjFeature(); err != nil {
		return err
	}
	if a.Flags&^uapi.SyncobjCreateSignaled != 0 {
		return errf(syscall.EINVAL, "unknown syncobj flags 0x%x", a.Flags&^uapi.SyncobjCreateSignaled)
	}
	s := &syncobj{hasFence: a.Flags&uapi.SyncobjCreateSignaled != 0}
	f.d.mu.Lock()
	defer f.d.mu.Unlock()
	h := 1
	for h < len(f.syncobjs) && f.syncobjs[h] != nil {
		h++
	}
	if h == len(f.syncobjs) {
		f.syncobjs = append(f.syncobjs, nil)
	}
	f.syncobjs[h] = s
	a.Handle = uint32(h)
	return nil
}

// SyncobjDestroy is DRM_IOCTL_SYNCOBJ_DESTROY (drm_syncobj_destroy_ioctl):
// a non-zero pad or an unknown handle is EINVAL.
func (f *File) SyncobjDestroy(a *uapi.SyncobjDestroy) error {
	if err := f.syncobjFeature(); err != nil {
		return err
	}
	if a.Pad != 0 {
		return errf(syscall.EINVAL, "SYNCOBJ_DESTROY pad 0x%x", a.Pad)
	}
	f.d.mu.Lock()
	defer f.d.mu.Unlock()
	if f.syncobj(a.Handle) == nil {
		return errf(syscall.EINVAL, "no syncobj %d", a.Handle)
	}
	f.syncobjs[a.Handle] = nil
	return nil
}

// syncobj finds handle's syncobj (drm_syncobj_find), with d.mu held.
func (f *File) syncobj(handle uint32) *syncobj {
	if f.closed || handle == 0 || uint64(handle) >= uint64(len(f.syncobjs)) {
		return nil
	}
	return f.syncobjs[handle]
}

// SyncobjFence returns the fence a syncobj holds and whether it holds
// one, for tests and for the seams that will export it; an unknown handle
// is ENOENT.
func (f *File) SyncobjFence(handle uint32) (Fence, bool, error) {
	f.d.mu.Lock()
	defer f.d.mu.Unlock()
	s := f.syncobj(handle)
	if s == nil {
		return Fence{}, false, errf(syscall.ENOENT, "no syncobj %d", handle)
	}
	return s.fence, s.hasFence, nil
}
