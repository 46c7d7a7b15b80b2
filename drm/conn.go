// Package drm is vccube's ioctl boundary with the Linux DRM subsystem: the
// Conn transport, the DRM core and KMS ioctls, and DRM event parsing.
//
// Everything above Conn is the same code on a Raspberry Pi and in a test:
// a Conn is either an opened /dev/dri/cardN (see Open) or the simulated vc4
// device in package sim, which receives the very same request numbers and
// struct bytes the kernel would.
package drm

import "unsafe"

// Request is an ioctl request number as the kernel's _IOC macro builds it
// (include/uapi/asm-generic/ioctl.h): direction in bits 31:30, argument size
// in bits 29:16, type in bits 15:8, number in bits 7:0. The size and
// direction are part of the number, so a struct of the wrong size is a
// different request.
type Request uint32

// Directions of _IOC, as seen from user space.
const (
	iocNone  = 0
	iocWrite = 1 // user space writes the argument (kernel reads it)
	iocRead  = 2 // kernel writes the argument back
)

// drmIoctlType is DRM_IOCTL_BASE, 'd' (include/uapi/drm/drm.h).
const drmIoctlType = 'd'

func ioc(dir, nr, size uint32) Request {
	return Request(dir<<30 | size<<16 | drmIoctlType<<8 | nr)
}

// IO mirrors DRM_IO (include/uapi/drm/drm.h): request nr of type 'd' with
// no argument.
func IO(nr uint32) Request { return ioc(iocNone, nr, 0) }

// IOW mirrors DRM_IOW: request nr whose size-byte argument the kernel reads.
func IOW(nr, size uintptr) Request { return ioc(iocWrite, uint32(nr), uint32(size)) }

// IOR mirrors DRM_IOR: request nr whose size-byte argument the kernel writes.
func IOR(nr, size uintptr) Request { return ioc(iocRead, uint32(nr), uint32(size)) }

// IOWR mirrors DRM_IOWR: request nr whose size-byte argument the kernel
// reads and writes back.
func IOWR(nr, size uintptr) Request { return ioc(iocWrite|iocRead, uint32(nr), uint32(size)) }

// Nr is the request's number (bits 7:0); driver ioctls start at CommandBase.
func (r Request) Nr() uint32 { return uint32(r) & 0xff }

// Type is the request's type byte (bits 15:8), 'd' for DRM.
func (r Request) Type() uint32 { return uint32(r) >> 8 & 0xff }

// Size is the size of the request's argument in bytes (bits 29:16).
func (r Request) Size() uint32 { return uint32(r) >> 16 & 0x3fff }

// Dir is the request's direction (bits 31:30): 0 none, 1 write, 2 read,
// 3 both, seen from user space.
func (r Request) Dir() uint32 { return uint32(r) >> 30 }

// CopiesIn reports whether the kernel reads the argument.
func (r Request) CopiesIn() bool { return r.Dir()&iocWrite != 0 }

// CopiesOut reports whether the kernel writes the argument back.
func (r Request) CopiesOut() bool { return r.Dir()&iocRead != 0 }

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
// The typed functions of this package and of package gem are the usual
// way to call a Conn; they wrap failures in *Error.
type Conn interface {
	// Ioctl issues req with arg and returns nil or the bare errno
	// (a syscall.Errno, so errors.Is(err, unix.EINVAL) works). Typed
	// wrappers add the ioctl's name and a hint (see Error).
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
