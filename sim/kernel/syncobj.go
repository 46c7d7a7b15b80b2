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
// Their fences can leave as sync files (SYNCOBJ_HANDLE_TO_FD with
// EXPORT_SYNC_FILE) and come in from one (FD_TO_HANDLE with
// IMPORT_SYNC_FILE), which is how EGL's native fences reach Mesa's vc4
// driver (kmscube -A).
//
// Not modelled yet: a syncobj itself as a file descriptor (HANDLE_TO_FD
// and FD_TO_HANDLE without flags: ENOSYS), waits, resets, signals and
// timelines.

// syncobj is a struct drm_syncobj: its fence, if it has one (a reference).
type syncobj struct {
	fence *Fence
}

// replace puts fence (whose reference it takes over) in the syncobj
// (drm_syncobj_replace_fence).
func (s *syncobj) replace(fence *Fence) {
	old := s.fence
	s.fence = fence
	if old != nil {
		old.Put()
	}
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
	s := &syncobj{}
	if a.Flags&uapi.SyncobjCreateSignaled != 0 {
		s.fence = StubFence()
	}
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
	s := f.syncobj(a.Handle)
	if s == nil {
		return errf(syscall.EINVAL, "no syncobj %d", a.Handle)
	}
	f.syncobjs[a.Handle] = nil
	s.replace(nil)
	return nil
}

// syncobj finds handle's syncobj (drm_syncobj_find), with d.mu held.
func (f *File) syncobj(handle uint32) *syncobj {
	if f.closed || handle == 0 || uint64(handle) >= uint64(len(f.syncobjs)) {
		return nil
	}
	return f.syncobjs[handle]
}

// SyncobjFence returns the fence a syncobj holds (with a reference the
// caller drops with Put) or nil, for tests; an unknown handle is ENOENT.
func (f *File) SyncobjFence(handle uint32) (*Fence, error) {
	f.d.mu.Lock()
	defer f.d.mu.Unlock()
	s := f.syncobj(handle)
	if s == nil {
		return nil, errf(syscall.ENOENT, "no syncobj %d", handle)
	}
	if s.fence == nil {
		return nil, nil
	}
	return s.fence.Get(), nil
}

// SyncobjHandleToFD is DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD
// (drm_syncobj_handle_to_fd_ioctl): with EXPORT_SYNC_FILE, a new sync file
// of the syncobj's fence (drm_syncobj_export_sync_file: ENOENT for an
// unknown handle, EINVAL for a syncobj without a fence).
func (f *File) SyncobjHandleToFD(a *uapi.SyncobjHandle) error {
	if err := f.syncobjFeature(); err != nil {
		return err
	}
	if a.Pad != 0 {
		return errf(syscall.EINVAL, "SYNCOBJ_HANDLE_TO_FD pad 0x%x", a.Pad)
	}
	if a.Flags != 0 && a.Flags != uapi.SyncobjHandleToFdExportSyncFile {
		return errf(syscall.EINVAL, "SYNCOBJ_HANDLE_TO_FD flags 0x%x", a.Flags)
	}
	if a.Flags == 0 {
		return errf(syscall.ENOSYS, "exporting a syncobj itself as a file is not modelled (only its fence, with EXPORT_SYNC_FILE)")
	}
	f.d.mu.Lock()
	s := f.syncobj(a.Handle)
	var fence *Fence
	if s != nil && s.fence != nil {
		fence = s.fence.Get()
	}
	f.d.mu.Unlock()
	if s == nil {
		return errf(syscall.ENOENT, "no syncobj %d", a.Handle)
	}
	if fence == nil {
		return errf(syscall.EINVAL, "syncobj %d has no fence to export", a.Handle)
	}
	fd, err := NewSyncFile(f.files, fence)
	fence.Put()
	if err != nil {
		return err
	}
	a.Fd = fd
	return nil
}

// SyncobjFDToHandle is DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE
// (drm_syncobj_fd_to_handle_ioctl): with IMPORT_SYNC_FILE, the fence of
// sync file Fd replaces syncobj Handle's (drm_syncobj_import_sync_file_fence:
// EINVAL for a descriptor that is not a sync file, ENOENT for an unknown
// handle).
func (f *File) SyncobjFDToHandle(a *uapi.SyncobjHandle) error {
	if err := f.syncobjFeature(); err != nil {
		return err
	}
	if a.Pad != 0 {
		return errf(syscall.EINVAL, "SYNCOBJ_FD_TO_HANDLE pad 0x%x", a.Pad)
	}
	if a.Flags != 0 && a.Flags != uapi.SyncobjFdToHandleImportSyncFile {
		return errf(syscall.EINVAL, "SYNCOBJ_FD_TO_HANDLE flags 0x%x", a.Flags)
	}
	if a.Flags == 0 {
		return errf(syscall.ENOSYS, "importing a syncobj file is not modelled (only a sync file's fence, with IMPORT_SYNC_FILE)")
	}
	fence, err := SyncFileFence(f.files, a.Fd)
	if err != nil {
		return err
	}
	f.d.mu.Lock()
	defer f.d.mu.Unlock()
	s := f.syncobj(a.Handle)
	if s == nil {
		fence.Put()
		return errf(syscall.ENOENT, "no syncobj %d", a.Handle)
	}
	s.replace(fence)
	return nil
}
