package drm

import (
	"errors"
	"fmt"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/vccube/vccube/uapi"
)

// Error is a failed ioctl told so that a person can act on it: which ioctl,
// with what argument sizes, the errno, and where the kernel's behaviour
// tells it, the likely cause and what to do.
//
// Error unwraps to the errno, so errors.Is(err, unix.EBUSY) works.
type Error struct {
	Op     string       // the ioctl's C name, e.g. "DRM_IOCTL_MODE_PAGE_FLIP"
	Req    uapi.Request // the request number that was issued
	Err    error        // the errno as Conn.Ioctl returned it (a syscall.Errno)
	Detail string       // the arguments that matter, e.g. "crtc 41, fb 52"
	Hint   string       // the likely cause and the remedy; empty when the errno says nothing more
}

// Error formats the failure as one line, e.g.
//
//	DRM_IOCTL_MODE_PAGE_FLIP (24-byte argument; crtc 41, fb 52): EBUSY (device or resource busy). <hint>
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Op)
	fmt.Fprintf(&b, " (%d-byte argument", e.Req.Size())
	if e.Detail != "" {
		b.WriteString("; ")
		b.WriteString(e.Detail)
	}
	b.WriteString("): ")
	b.WriteString(describeErr(e.Err))
	if e.Hint != "" {
		b.WriteString(". ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

// Unwrap returns the errno.
func (e *Error) Unwrap() error { return e.Err }

// Errno returns the errno, or 0 when the failure was not an errno.
func (e *Error) Errno() syscall.Errno {
	var en syscall.Errno
	if errors.As(e.Err, &en) {
		return en
	}
	return 0
}

// describeErr names an errno the way the kernel headers do, with the C
// library's text: "EBUSY (device or resource busy)".
func describeErr(err error) string {
	var en syscall.Errno
	if errors.As(err, &en) {
		if name := unix.ErrnoName(en); name != "" {
			return name + " (" + en.Error() + ")"
		}
		return fmt.Sprintf("errno %d (%v)", uintptr(en), en)
	}
	if err == nil {
		return "no error"
	}
	return err.Error()
}

// Hints shared by the packages that wrap ioctls.
const (
	// HintNotMaster explains EACCES/EPERM/EBUSY from the ioctls that need
	// DRM master: drm_ioctl.c (drm_ioctl_permit) refuses DRM_MASTER ioctls
	// with EACCES, and drm_auth.c (drm_setmaster_ioctl) refuses SET_MASTER
	// with EBUSY while another file is master and EPERM without
	// CAP_SYS_ADMIN.
	HintNotMaster = "Another program (an X server or a Wayland compositor) holds DRM master on this card, " +
		"so vccube may not set modes or flip pages: run it from a text console (Ctrl+Alt+F2) " +
		"or stop the display manager first (sudo systemctl stop display-manager)"
	// HintCMAExhausted explains ENOMEM from the ioctls that allocate
	// buffers: vc4 buffers are physically contiguous CMA memory (vc4_bo.c:
	// vc4_bo_create fails with ENOMEM once the pool is spent).
	HintCMAExhausted = "The contiguous memory (CMA) pool that every vc4 buffer comes from is exhausted: " +
		"close programs that use the GPU, or enlarge the pool with dtoverlay=vc4-kms-v3d,cma-256 " +
		"(or cma-size=<bytes>) in config.txt and reboot"
)

// kmsHint returns the likely cause of a DRM core or KMS ioctl failure, or
// "" when the errno alone says as much as we know.
func kmsHint(req uapi.Request, errno syscall.Errno) string {
	switch req {
	case uapi.IoctlModeSetCrtc, uapi.IoctlSetMaster:
		switch errno {
		case unix.EACCES, unix.EPERM, unix.EBUSY:
			return HintNotMaster
		}
	case uapi.IoctlModePageFlip:
		switch errno {
		case unix.EACCES, unix.EPERM:
			return HintNotMaster
		case unix.EBUSY:
			// drm_plane.c (drm_mode_page_flip_ioctl, and the atomic
			// helpers behind it) answers EBUSY while a flip is still
			// queued, and also when the CRTC scans out no framebuffer.
			return "A page flip is already pending on this CRTC (wait for its flip-complete event before the next flip), " +
				"or the CRTC shows no framebuffer yet (set one with SetCrtc first)"
		case unix.ENOSPC:
			return "The framebuffer is smaller than the CRTC's mode (drm_crtc_check_viewport)"
		case unix.EINVAL:
			return "A page flip cannot change the pixel format; also check the flags (PageFlipAsync needs CapAsyncPageFlip)"
		}
	case uapi.IoctlModeCreateDumb:
		if errno == unix.ENOMEM {
			return HintCMAExhausted
		}
	case uapi.IoctlModeGetResources, uapi.IoctlModeGetConnector, uapi.IoctlModeGetCrtc, uapi.IoctlModeGetEncoder:
		if errno == unix.EOPNOTSUPP {
			return "This DRM device does no modesetting (a render-only device such as v3d); use the card whose driver is vc4"
		}
	}
	if errno == unix.ENOTTY {
		return "The file is not a DRM device"
	}
	return ""
}

// ioctlError wraps a failed DRM core or KMS ioctl. It runs only on the
// failure path, so building the detail string costs nothing per frame.
func ioctlError(req uapi.Request, err error, detail string) error {
	e := &Error{Op: uapi.IoctlName(req), Req: req, Err: err, Detail: detail}
	e.Hint = kmsHint(req, e.Errno())
	return e
}
