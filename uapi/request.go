// Package uapi is the one Go description of the Linux uAPI that vccube and
// its simulated device meet at: the ioctl request encoding, the Conn
// boundary, the DRM core and KMS structs and constants
// (include/uapi/drm/drm.h, drm_mode.h, drm_fourcc.h) and the vc4 ones
// (include/uapi/drm/vc4_drm.h), the ioctl names, and the user-memory
// helpers an in-process implementation of Conn needs.
//
// It holds no client code. User space (packages drm and gem) and the
// simulated kernel (package sim) both read it, as Mesa and the kernel both
// compile against the same headers; neither reaches the other's code
// through it.
package uapi

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
