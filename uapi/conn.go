package uapi

import "unsafe"

// Conn is the ioctl boundary: a real DRM file descriptor or the simulator.
//
// The contract is the kernel's: Ioctl passes a pointer to a struct laid out
// exactly as the C uAPI struct for req (Request.Size bytes), whose u64
// "pointer" fields hold addresses in this process that the callee may read
// or write during the call only. Callers keep the pointed-to memory alive
// and pinned for the duration of the call (runtime.Pinner; UserPointer
// makes the u64). An implementation in this process reaches that memory
// with UserBytes and UserSlice, as the kernel does with copy_from_user.
//
// The typed functions of packages drm and gem are the usual way to call a
// Conn; they wrap failures in *drm.Error.
type Conn interface {
	// Ioctl issues req with arg and returns nil or the bare errno
	// (a syscall.Errno, so errors.Is(err, unix.EINVAL) works). Typed
	// wrappers add the ioctl's name and a hint (see drm.Error).
	Ioctl(req Request, arg unsafe.Pointer) error
	// Mmap maps length bytes at the fake offset a MAP ioctl returned
	// (VC4_MMAP_BO, MODE_MAP_DUMB). prot is unix.PROT_READ|PROT_WRITE or a
	// subset; the mapping is shared.
	Mmap(offset uint64, length int, prot int) ([]byte, error)
	// Munmap undoes Mmap.
	Munmap(b []byte) error
	// Read reads whole DRM events (struct drm_event records) into p, as
	// read(2) on a DRM fd does. It blocks until at least one event is
	// pending unless the Conn was opened non-blocking, in which case it
	// returns unix.EAGAIN.
	Read(p []byte) (int, error)
	// Fd is a descriptor that poll(2) reports readable while events are
	// pending (the DRM fd itself, or the simulator's eventfd).
	Fd() int
	// Close releases the descriptor; the kernel (and the simulator)
	// then frees every object the file still owned.
	Close() error
}
