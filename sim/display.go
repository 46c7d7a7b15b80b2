package sim

import (
	"unsafe"

	"github.com/vccube/vccube/sim/kernel"
	"github.com/vccube/vccube/uapi"
)

// Display is the KMS half of the device (sim/display implements it):
// connectors, modes, CRTCs, framebuffers and page flips. The DRM core here
// dispatches to it every mode-setting request (the MODE_* ioctls other
// than the dumb-buffer ones, WAIT_VBLANK and the CRTC sequence ioctls),
// the KMS capabilities of GET_CAP and SET_CLIENT_CAP, after it has copied
// the argument in and checked the permissions of drm_ioctl.c (DRM_MASTER
// for SETCRTC, PAGE_FLIP and the other state-changing ones; no render
// nodes).
//
// Without a Display the device answers those requests as a DRM driver
// without DRIVER_MODESET does: EOPNOTSUPP (drm_mode_*.c, drm_getcap,
// drm_setclientcap, drm_wait_vblank_ioctl).
type Display interface {
	// Ioctl handles request req, the kernel's own definition of the
	// ioctl (its size and direction; for a request the drm package does
	// not define, the caller's). arg points at a copy of the argument of
	// at least req.Size() bytes, zero-filled past what the caller passed,
	// which the core copies back to the caller afterwards, as drm_ioctl
	// does. The result is nil or the errno (a syscall.Errno or a
	// *kernel.Error).
	Ioctl(c Client, req uapi.Request, arg unsafe.Pointer) error
	// Cap answers GET_CAP for the capabilities only a KMS driver has
	// (everything but TIMESTAMP_MONOTONIC, PRIME and the syncobj ones):
	// the value, or an errno (EINVAL for one it does not know).
	Cap(capability uint64) (uint64, error)
	// SetClientCap handles SET_CLIENT_CAP (drm_setclientcap).
	SetClientCap(c Client, capability, value uint64) error
	// Release is called when a file is closed, after it lost DRM master
	// and before its GEM handles are released: drop its framebuffers and
	// pending events (drm_fb_release, drm_events_release).
	Release(c Client)
}

// Client is one open file as the display sees it; *File implements it.
// It is declared once, in sim/kernel, which both this package and the
// display import: a display whose methods take a kernel.Client (or an
// alias of it) implements Display as it is, with no adapter.
type Client = kernel.Client
