package sim

import (
	"fmt"
	"syscall"
	"unsafe"

	"github.com/vccube/vccube/sim/kernel"
	"github.com/vccube/vccube/uapi"
)

// The ioctl tables: the DRM core's drm_ioctls[] (drivers/gpu/drm/
// drm_ioctl.c) for the numbers the simulator answers, and vc4's
// vc4_drm_ioctls[] (vc4_drv.c). Each entry carries the kernel's own
// request (its size and direction decide what is copied in and out), the
// permission flags drm_ioctl_permit checks, and the handler.

// Permission flags of struct drm_ioctl_desc (include/drm/drm_ioctl.h).
const (
	permAuth        = 1 << 0 // DRM_AUTH
	permMaster      = 1 << 1 // DRM_MASTER
	permRootOnly    = 1 << 2 // DRM_ROOT_ONLY
	permRenderAllow = 1 << 5 // DRM_RENDER_ALLOW
)

type handler func(f *File, req uapi.Request, arg unsafe.Pointer) error

type ioctlDesc struct {
	name string
	// cmd is the kernel's definition of the request; 0 means the
	// simulator does not know the struct (KMS requests the drm package
	// does not describe), and the caller's size and direction are used.
	cmd   uapi.Request
	flags int
	fn    handler
}

// notModelled answers a core ioctl the real DRM core has but the
// simulator does not model. ENOSYS, which the kernel never returns for
// these, tells a program's author that the simulator, not the program, is
// missing something.
func notModelled(*File, uapi.Request, unsafe.Pointer) error {
	return &kernel.Error{Errno: syscall.ENOSYS, Msg: "not modelled by the simulator"}
}

// display routes a KMS request to the Display, or answers as a driver
// without modesetting (EOPNOTSUPP).
func display(f *File, req uapi.Request, arg unsafe.Pointer) error {
	if f.dev.display == nil {
		return &kernel.Error{Errno: syscall.EOPNOTSUPP, Msg: "no display: the device has no KMS (DRIVER_MODESET)"}
	}
	return f.dev.display.Ioctl(f, req, arg)
}

// typed adapts a typed handler.
func typed[T any](fn func(f *File, a *T) error) handler {
	return func(f *File, _ uapi.Request, arg unsafe.Pointer) error { return fn(f, (*T)(arg)) }
}

// kms is a KMS request drm/ has no struct for: the display answers it
// with the caller's size and direction.
func kms(name string, flags int) *ioctlDesc {
	return &ioctlDesc{name: name, flags: flags, fn: display}
}

func absent(name string, flags int) *ioctlDesc {
	return &ioctlDesc{name: name, flags: flags, fn: notModelled}
}

// coreIoctls is drm_ioctls[] by number. Driver ioctls (0x40-0x9f) are not
// in it.
var coreIoctls = func() [0xD2]*ioctlDesc {
	var t [0xD2]*ioctlDesc
	set := func(nr uint32, d *ioctlDesc) {
		if t[nr] != nil {
			panic(fmt.Sprintf("sim: two entries for DRM ioctl 0x%02x", nr))
		}
		t[nr] = d
	}
	// A request drm/ describes goes where its number says, under its
	// name; the others are written here by number and name.
	known := func(cmd uapi.Request, flags int, fn handler) {
		set(cmd.Nr(), &ioctlDesc{name: uapi.IoctlName(cmd), cmd: cmd, flags: flags, fn: fn})
	}
	known(uapi.IoctlVersion, permRenderAllow, typed(version))
	set(0x01, absent("DRM_IOCTL_GET_UNIQUE", 0))
	set(0x02, absent("DRM_IOCTL_GET_MAGIC", 0))
	set(0x05, absent("DRM_IOCTL_GET_CLIENT", 0))
	set(0x06, absent("DRM_IOCTL_GET_STATS", 0))
	set(0x07, absent("DRM_IOCTL_SET_VERSION", permMaster))
	known(uapi.IoctlGemClose, permRenderAllow,
		typed(func(f *File, a *uapi.GemClose) error { return f.k.GemClose(a) }))
	set(0x0a, absent("DRM_IOCTL_GEM_FLINK", permAuth))
	set(0x0b, absent("DRM_IOCTL_GEM_OPEN", permAuth))
	known(uapi.IoctlGetCap, permRenderAllow, typed(getCap))
	known(uapi.IoctlSetClientCap, 0, typed(setClientCap))
	set(0x11, absent("DRM_IOCTL_AUTH_MAGIC", permMaster))
	known(uapi.IoctlSetMaster, 0, setMaster)
	known(uapi.IoctlDropMaster, 0, dropMaster)
	known(uapi.IoctlPrimeHandleToFD, permRenderAllow,
		typed(func(f *File, a *uapi.PrimeHandle) error { return f.k.PrimeHandleToFD(a) }))
	known(uapi.IoctlPrimeFDToHandle, permRenderAllow,
		typed(func(f *File, a *uapi.PrimeHandle) error { return f.k.PrimeFDToHandle(a) }))
	set(0x3a, kms("DRM_IOCTL_WAIT_VBLANK", 0))
	set(0x3b, kms("DRM_IOCTL_CRTC_GET_SEQUENCE", 0))
	set(0x3c, kms("DRM_IOCTL_CRTC_QUEUE_SEQUENCE", 0))
	known(uapi.IoctlModeGetResources, 0, display)
	known(uapi.IoctlModeGetCrtc, 0, display)
	known(uapi.IoctlModeSetCrtc, permMaster, display)
	set(0xA3, kms("DRM_IOCTL_MODE_CURSOR", permMaster))
	set(0xA4, kms("DRM_IOCTL_MODE_GETGAMMA", 0))
	set(0xA5, kms("DRM_IOCTL_MODE_SETGAMMA", permMaster))
	known(uapi.IoctlModeGetEncoder, 0, display)
	known(uapi.IoctlModeGetConnector, 0, display)
	// ATTACHMODE and DETACHMODE are drm_noop for master.
	noop := func(*File, uapi.Request, unsafe.Pointer) error { return nil }
	set(0xA8, &ioctlDesc{"DRM_IOCTL_MODE_ATTACHMODE", 0, permMaster, noop})
	set(0xA9, &ioctlDesc{"DRM_IOCTL_MODE_DETACHMODE", 0, permMaster, noop})
	known(uapi.IoctlModeGetProperty, 0, display)
	set(0xAB, kms("DRM_IOCTL_MODE_SETPROPERTY", permMaster))
	known(uapi.IoctlModeGetPropBlob, 0, display)
	set(0xAD, kms("DRM_IOCTL_MODE_GETFB", 0))
	set(0xAE, kms("DRM_IOCTL_MODE_ADDFB", 0))
	known(uapi.IoctlModeRmFB, 0, display)
	known(uapi.IoctlModePageFlip, permMaster, display)
	set(0xB1, kms("DRM_IOCTL_MODE_DIRTYFB", permMaster))
	known(uapi.IoctlModeCreateDumb, 0,
		typed(func(f *File, a *uapi.ModeCreateDumb) error { return f.k.CreateDumb(a) }))
	known(uapi.IoctlModeMapDumb, 0,
		typed(func(f *File, a *uapi.ModeMapDumb) error { return f.k.MapDumb(a) }))
	known(uapi.IoctlModeDestroyDumb, 0,
		typed(func(f *File, a *uapi.ModeDestroyDumb) error { return f.k.DestroyDumb(a) }))
	known(uapi.IoctlModeGetPlaneResources, 0, display)
	known(uapi.IoctlModeGetPlane, 0, display)
	set(0xB7, kms("DRM_IOCTL_MODE_SETPLANE", permMaster))
	known(uapi.IoctlModeAddFB2, 0, display)
	known(uapi.IoctlModeObjGetProperties, 0, display)
	known(uapi.IoctlModeObjSetProperty, permMaster, display)
	set(0xBB, kms("DRM_IOCTL_MODE_CURSOR2", permMaster))
	known(uapi.IoctlModeAtomic, permMaster, display)
	known(uapi.IoctlModeCreatePropBlob, 0, display)
	known(uapi.IoctlModeDestroyPropBlob, 0, display)
	known(uapi.IoctlSyncobjCreate, permRenderAllow,
		typed(func(f *File, a *uapi.SyncobjCreate) error { return f.k.SyncobjCreate(a) }))
	known(uapi.IoctlSyncobjDestroy, permRenderAllow,
		typed(func(f *File, a *uapi.SyncobjDestroy) error { return f.k.SyncobjDestroy(a) }))
	known(uapi.IoctlSyncobjHandleToFD, permRenderAllow,
		typed(func(f *File, a *uapi.SyncobjHandle) error { return f.k.SyncobjHandleToFD(a) }))
	known(uapi.IoctlSyncobjFDToHandle, permRenderAllow,
		typed(func(f *File, a *uapi.SyncobjHandle) error { return f.k.SyncobjFDToHandle(a) }))
	for nr, name := range map[uint32]string{
		0xC3: "DRM_IOCTL_SYNCOBJ_WAIT", 0xC4: "DRM_IOCTL_SYNCOBJ_RESET", 0xC5: "DRM_IOCTL_SYNCOBJ_SIGNAL",
		0xCA: "DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT", 0xCB: "DRM_IOCTL_SYNCOBJ_QUERY",
		0xCC: "DRM_IOCTL_SYNCOBJ_TRANSFER", 0xCD: "DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL",
		0xCF: "DRM_IOCTL_SYNCOBJ_EVENTFD",
	} {
		set(nr, absent(name, permRenderAllow))
	}
	set(0xC6, absent("DRM_IOCTL_MODE_CREATE_LEASE", permMaster))
	set(0xC7, absent("DRM_IOCTL_MODE_LIST_LESSEES", permMaster))
	set(0xC8, absent("DRM_IOCTL_MODE_GET_LEASE", permMaster))
	set(0xC9, absent("DRM_IOCTL_MODE_REVOKE_LEASE", permMaster))
	set(0xCE, kms("DRM_IOCTL_MODE_GETFB2", 0))
	set(0xD0, kms("DRM_IOCTL_MODE_CLOSEFB", 0))
	set(0xD1, absent("DRM_IOCTL_SET_CLIENT_NAME", permRenderAllow))
	return t
}()

// vc4Ioctls is vc4_drm_ioctls[] (vc4_drv.c), indexed by number minus
// DRM_COMMAND_BASE: every one DRM_RENDER_ALLOW, GET_HANG_STATE root only.
// Each request's number, size and name come from gem.
var vc4Ioctls = func() []*ioctlDesc {
	var t []*ioctlDesc
	add := func(cmd uapi.Request, flags int, fn handler) {
		i := int(cmd.Nr() - uapi.CommandBase)
		for len(t) <= i {
			t = append(t, nil)
		}
		if t[i] != nil {
			panic(fmt.Sprintf("sim: two entries for vc4 ioctl 0x%02x", cmd.Nr()))
		}
		t[i] = &ioctlDesc{name: uapi.IoctlName(cmd), cmd: cmd, flags: flags, fn: fn}
	}
	add(uapi.IoctlSubmitCL, permRenderAllow,
		typed(func(f *File, a *uapi.SubmitCL) error { return f.k.SubmitCL(a) }))
	add(uapi.IoctlWaitSeqno, permRenderAllow,
		typed(func(f *File, a *uapi.WaitSeqno) error { return f.k.WaitSeqno(a) }))
	add(uapi.IoctlWaitBO, permRenderAllow,
		typed(func(f *File, a *uapi.WaitBO) error { return f.k.WaitBO(a) }))
	add(uapi.IoctlCreateBO, permRenderAllow,
		typed(func(f *File, a *uapi.CreateBO) error { return f.k.CreateBO(a) }))
	add(uapi.IoctlMmapBO, permRenderAllow,
		typed(func(f *File, a *uapi.MmapBO) error { return f.k.MmapBO(a) }))
	add(uapi.IoctlCreateShaderBO, permRenderAllow,
		typed(func(f *File, a *uapi.CreateShaderBO) error { return f.k.CreateShaderBO(a) }))
	add(uapi.IoctlGetHangState, permRootOnly,
		typed(func(f *File, a *uapi.GetHangState) error { return f.k.GetHangState(a) }))
	add(uapi.IoctlGetParam, permRenderAllow,
		typed(func(f *File, a *uapi.GetParam) error { return f.k.GetParam(a) }))
	add(uapi.IoctlSetTiling, permRenderAllow,
		typed(func(f *File, a *uapi.SetTiling) error { return f.k.SetTiling(a) }))
	add(uapi.IoctlGetTiling, permRenderAllow,
		typed(func(f *File, a *uapi.GetTiling) error { return f.k.GetTiling(a) }))
	add(uapi.IoctlLabelBO, permRenderAllow,
		typed(func(f *File, a *uapi.LabelBO) error { return f.k.LabelBO(a) }))
	add(uapi.IoctlGemMadvise, permRenderAllow,
		typed(func(f *File, a *uapi.GemMadvise) error { return f.k.GemMadvise(a) }))
	add(uapi.IoctlPerfmonCreate, permRenderAllow,
		typed(func(f *File, a *uapi.PerfmonCreate) error { return f.k.PerfmonCreate(a) }))
	add(uapi.IoctlPerfmonDestroy, permRenderAllow,
		typed(func(f *File, a *uapi.PerfmonDestroy) error { return f.k.PerfmonDestroy(a) }))
	add(uapi.IoctlPerfmonGetValues, permRenderAllow,
		typed(func(f *File, a *uapi.PerfmonGetValues) error { return f.k.PerfmonGetValues(a) }))
	return t
}()
