package drm

import (
	"errors"
	"fmt"
	"math"
	"os"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/vccube/vccube/uapi"
)

// File is a Conn over an opened DRM device node such as /dev/dri/card0:
// the real kernel behind the ioctl boundary.
type File struct {
	path string

	mu sync.RWMutex // guards fd against Close during a call
	fd int
}

// Open opens a DRM device node read-write and close-on-exec, as libdrm's
// drmOpen does. Reads block until an event is pending; see SetNonblock.
//
// A failure names the path and, where the errno tells it, what to do:
// EACCES means the user may not use the GPU, ENOENT that there is no such
// node (the vc4 KMS driver is not loaded).
func Open(path string) (*File, error) {
	for {
		fd, err := unix.Open(path, unix.O_RDWR|unix.O_CLOEXEC, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, openError(path, err)
		}
		return &File{path: path, fd: fd}, nil
	}
}

// openError explains a failed open of a DRM node.
func openError(path string, err error) error {
	pe := &os.PathError{Op: "open", Path: path, Err: err}
	switch {
	case errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM):
		return fmt.Errorf("%w: add your user to the 'video' group (sudo usermod -aG video $USER, then log in again) or run as root", pe)
	case errors.Is(err, unix.ENOENT), errors.Is(err, unix.ENXIO), errors.Is(err, unix.ENODEV):
		return fmt.Errorf("%w: no such DRM device; on a Raspberry Pi enable the KMS driver with dtoverlay=vc4-kms-v3d in config.txt and reboot", pe)
	}
	return pe
}

// Path returns the path the File was opened with.
func (f *File) Path() string { return f.path }

// SetNonblock makes Read return unix.EAGAIN instead of blocking when no
// event is pending (for use with poll(2) on Fd).
func (f *File) SetNonblock(nonblocking bool) error {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if f.fd < 0 {
		return os.ErrClosed
	}
	return unix.SetNonblock(f.fd, nonblocking)
}

// Ioctl implements Conn. Like libdrm's drmIoctl it restarts the call while
// it fails with EINTR (a signal arrived) or EAGAIN.
// FdIoctl implements uapi.FdIoctler: ioctl(2) on descriptor fd (a sync
// file the device gave), retried on EINTR.
func (f *File) FdIoctl(fd int, req uapi.Request, arg unsafe.Pointer) error {
	for {
		_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg))
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			return errno
		}
		return nil
	}
}

func (f *File) Ioctl(req uapi.Request, arg unsafe.Pointer) error {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if f.fd < 0 {
		return unix.EBADF
	}
	for {
		// The conversion of arg to uintptr inside the Syscall call keeps
		// the argument alive and in place for the call (rule 4 of
		// unsafe.Pointer); memory it points to is pinned by the caller.
		_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(f.fd), uintptr(req), uintptr(arg))
		switch errno {
		case 0:
			return nil
		case unix.EINTR, unix.EAGAIN:
			continue
		}
		return errno
	}
}

// Mmap implements Conn: a shared mapping of the device at a fake offset
// from VC4_MMAP_BO or MODE_MAP_DUMB.
func (f *File) Mmap(offset uint64, length int, prot int) ([]byte, error) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if f.fd < 0 {
		return nil, unix.EBADF
	}
	if offset > math.MaxInt64 || length <= 0 {
		return nil, unix.EINVAL
	}
	return unix.Mmap(f.fd, int64(offset), length, prot, unix.MAP_SHARED)
}

// Munmap implements Conn.
func (f *File) Munmap(b []byte) error { return unix.Munmap(b) }

// Read implements Conn: it reads whole struct drm_event records, restarting
// after EINTR.
func (f *File) Read(p []byte) (int, error) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if f.fd < 0 {
		return 0, unix.EBADF
	}
	for {
		n, err := unix.Read(f.fd, p)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		return n, nil
	}
}

// Fd implements Conn: the descriptor to poll for events, -1 once closed.
func (f *File) Fd() int {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.fd
}

// Close implements Conn. The kernel then frees every GEM handle,
// framebuffer and perfmon the file still owned and drops DRM master.
// Closing twice returns os.ErrClosed.
func (f *File) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fd < 0 {
		return os.ErrClosed
	}
	err := unix.Close(f.fd)
	f.fd = -1
	if err != nil {
		return &os.PathError{Op: "close", Path: f.path, Err: err}
	}
	return nil
}

var _ uapi.Conn = (*File)(nil)
