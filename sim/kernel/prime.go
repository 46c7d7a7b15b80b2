package kernel

import (
	"sync"
	"syscall"

	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// PRIME: sharing a BO as a dma-buf file descriptor (drm_prime.c,
// vc4_bo.c vc4_prime_export).
//
// The simulator's dma-buf is a memfd standing for the exported BO: a real
// descriptor the program can pass around and close, as long as the BO
// (lseek(fd, 0, SEEK_END) gives the BO's size, as on a dma-buf: Mesa's
// vc4 and kms_swrast read the size of an import so). What the model does
// not have: the memfd does not carry the BO's pages (mmap it through the
// DRM file instead), poll(2) on it does not wait for rendering, a dma-buf
// of another device (or another simulated device) cannot be imported, and
// since the simulator cannot see the descriptor being closed, an exported
// BO stays allocated until the driver is closed.

// dmabuf is an exported BO (struct dma_buf).
type dmabuf struct {
	d   *Driver
	bo  *BO
	fd  int // the memfd kept open for new exports of the same BO
	dev uint64
	ino uint64
}

var (
	dmabufsMu sync.Mutex
	dmabufs   = map[[2]uint64]*dmabuf{} // (st_dev, st_ino) of the memfd
)

func fdIdentity(fd int) ([2]uint64, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return [2]uint64{}, err
	}
	return [2]uint64{uint64(st.Dev), st.Ino}, nil
}

// PrimeHandleToFD is DRM_IOCTL_PRIME_HANDLE_TO_FD
// (drm_prime_handle_to_fd_ioctl): flags other than DRM_CLOEXEC and
// DRM_RDWR are EINVAL, an unknown handle ENOENT; a shader BO cannot be
// exported (EINVAL), and an exported BO can no longer be purged.
func (f *File) PrimeHandleToFD(a *uapi.PrimeHandle) error {
	if a.Flags&^(uapi.CloExec|uapi.ReadWrite) != 0 {
		return errf(syscall.EINVAL, "PRIME_HANDLE_TO_FD flags 0x%x", a.Flags)
	}
	d := f.d
	d.mu.Lock()
	defer d.mu.Unlock()
	bo := f.lookup(a.Handle)
	if bo == nil {
		return errf(syscall.ENOENT, "PRIME export of unknown handle %d", a.Handle)
	}
	if bo.shader != nil {
		return errf(syscall.EINVAL, "Attempting to export shader BO")
	}
	db := d.exported[bo]
	if db == nil {
		if err := d.incUsecnt(bo); err != nil {
			return errf(syscall.EINVAL, "Failed to increment BO usecnt: %s", reason(err))
		}
		fd, err := unix.MemfdCreate("vc4-sim-dmabuf", unix.MFD_CLOEXEC)
		if err != nil {
			d.decUsecnt(bo)
			return err
		}
		// Sparse: the size costs no memory.
		if err := unix.Ftruncate(fd, int64(bo.size)); err != nil {
			unix.Close(fd)
			d.decUsecnt(bo)
			return err
		}
		id, err := fdIdentity(fd)
		if err != nil {
			unix.Close(fd)
			d.decUsecnt(bo)
			return err
		}
		bo.refs++
		db = &dmabuf{d: d, bo: bo, fd: fd, dev: id[0], ino: id[1]}
		d.exported[bo] = db
		dmabufsMu.Lock()
		dmabufs[id] = db
		dmabufsMu.Unlock()
	}
	fd, err := unix.FcntlInt(uintptr(db.fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return err
	}
	n, err := f.files.InstallFd(fd, a.Flags&uapi.CloExec != 0)
	if err != nil {
		return errf(syscall.EMFILE, "installing the dma-buf descriptor: %v", err)
	}
	a.Fd = n
	return nil
}

// PrimeFDToHandle is DRM_IOCTL_PRIME_FD_TO_HANDLE
// (drm_prime_fd_to_handle_ioctl): a dma-buf this device exported comes
// back as the same BO, with the handle the file already has for it if
// any. A bad descriptor is EBADF, one that is not a dma-buf EINVAL.
func (f *File) PrimeFDToHandle(a *uapi.PrimeHandle) error {
	fd, release, err := f.files.GetFd(a.Fd)
	if err != nil {
		return errf(syscall.EBADF, "fd %d: %v", a.Fd, err)
	}
	id, err := fdIdentity(fd)
	release()
	if err != nil {
		return errf(syscall.EBADF, "fd %d: %v", a.Fd, err)
	}
	dmabufsMu.Lock()
	db := dmabufs[id]
	dmabufsMu.Unlock()
	if db == nil {
		return errf(syscall.EINVAL, "fd %d is not a dma-buf of a simulated vc4", a.Fd)
	}
	if db.d != f.d {
		return errf(syscall.EINVAL, "importing a dma-buf of another simulated device is not modelled")
	}
	d := f.d
	d.mu.Lock()
	defer d.mu.Unlock()
	for h, b := range f.handles {
		if b == db.bo {
			a.Handle = uint32(h)
			return nil
		}
	}
	a.Handle = f.newHandle(db.bo)
	return nil
}

// releaseExports forgets every dma-buf of the driver (at Close).
func (d *Driver) releaseExports() {
	dmabufsMu.Lock()
	for id, db := range dmabufs {
		if db.d == d {
			delete(dmabufs, id)
		}
	}
	dmabufsMu.Unlock()
	for bo, db := range d.exported {
		unix.Close(db.fd)
		d.decUsecnt(bo)
		d.unref(bo)
	}
	clear(d.exported)
}
