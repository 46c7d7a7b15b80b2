package drm

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/vccube/vccube/uapi"
)

// maxReplyCount bounds the element counts a device may report before a
// second pass allocates buffers for them. Real devices report a handful;
// a larger count is a broken reply, refused with an error instead of an
// allocation that could exhaust memory.
const maxReplyCount = 1 << 16

// DriverVersion is what DRM_IOCTL_VERSION tells about a device's driver.
type DriverVersion struct {
	Major, Minor, Patchlevel int
	Name                     string // the driver, e.g. "vc4", "v3d", "vkms"
	Date                     string // e.g. "20140616"
	Desc                     string // e.g. "Broadcom VC4 graphics"
}

// String formats the version as "vc4 0.0.0 (20140616, Broadcom VC4 graphics)".
func (v DriverVersion) String() string {
	return fmt.Sprintf("%s %d.%d.%d (%s, %s)", v.Name, v.Major, v.Minor, v.Patchlevel, v.Date, v.Desc)
}

// GetVersion asks the driver's name, date and description. It uses the
// kernel's two passes (drm_ioctl.c: drm_version and drm_copy_field): the
// first learns the string lengths, the second fills buffers of that size.
// A string that grew in between is cut to the buffer, as the kernel does.
func GetVersion(c uapi.Conn) (DriverVersion, error) {
	var v uapi.Version
	if err := c.Ioctl(uapi.IoctlVersion, unsafe.Pointer(&v)); err != nil {
		return DriverVersion{}, ioctlError(uapi.IoctlVersion, err, "")
	}
	if v.NameLen > maxReplyCount || v.DateLen > maxReplyCount || v.DescLen > maxReplyCount {
		return DriverVersion{}, &Error{Op: uapi.IoctlName(uapi.IoctlVersion), Req: uapi.IoctlVersion,
			Err: errBadReply, Detail: fmt.Sprintf("string lengths %d, %d, %d", v.NameLen, v.DateLen, v.DescLen)}
	}
	name := make([]byte, v.NameLen)
	date := make([]byte, v.DateLen)
	desc := make([]byte, v.DescLen)
	var pin runtime.Pinner
	defer pin.Unpin()
	v.Name = uintptr(pinned(&pin, name))
	v.Date = uintptr(pinned(&pin, date))
	v.Desc = uintptr(pinned(&pin, desc))
	if err := c.Ioctl(uapi.IoctlVersion, unsafe.Pointer(&v)); err != nil {
		return DriverVersion{}, ioctlError(uapi.IoctlVersion, err, "second pass")
	}
	return DriverVersion{
		Major:      int(v.VersionMajor),
		Minor:      int(v.VersionMinor),
		Patchlevel: int(v.VersionPatchlevel),
		Name:       string(name[:min(uintptr(len(name)), v.NameLen)]),
		Date:       string(date[:min(uintptr(len(date)), v.DateLen)]),
		Desc:       string(desc[:min(uintptr(len(desc)), v.DescLen)]),
	}, nil
}

// pinned pins the backing array of s and returns its address for a uAPI
// pointer field, or 0 for an empty slice.
func pinned[T any](pin *runtime.Pinner, s []T) uint64 {
	if len(s) == 0 {
		return 0
	}
	pin.Pin(&s[0])
	return uapi.UserPointer(unsafe.Pointer(&s[0]))
}

// errBadReply stands for a reply no kernel gives (an implausible count).
var errBadReply = fmt.Errorf("the device's reply is implausible")

// GetCapability returns the value of a device capability (Cap*), e.g.
// whether it has dumb buffers or monotonic event timestamps
// (DRM_IOCTL_GET_CAP).
func GetCapability(c uapi.Conn, capability uint64) (uint64, error) {
	arg := uapi.GetCap{Capability: capability}
	if err := c.Ioctl(uapi.IoctlGetCap, unsafe.Pointer(&arg)); err != nil {
		return 0, ioctlError(uapi.IoctlGetCap, err, fmt.Sprintf("capability 0x%x", capability))
	}
	return arg.Value, nil
}

// SetClientCapability tells the device that this client understands a
// feature (ClientCap*; DRM_IOCTL_SET_CLIENT_CAP).
func SetClientCapability(c uapi.Conn, capability, value uint64) error {
	arg := uapi.SetClientCap{Capability: capability, Value: value}
	if err := c.Ioctl(uapi.IoctlSetClientCap, unsafe.Pointer(&arg)); err != nil {
		return ioctlError(uapi.IoctlSetClientCap, err, fmt.Sprintf("capability 0x%x = %d", capability, value))
	}
	return nil
}

// CloseHandle frees a GEM handle of this file (a BO from CREATE_BO,
// CREATE_DUMB or a PRIME import) with DRM_IOCTL_GEM_CLOSE. The memory
// lives on while a queued job or a framebuffer still uses it.
func CloseHandle(c uapi.Conn, handle uint32) error {
	arg := uapi.GemClose{Handle: handle}
	if err := c.Ioctl(uapi.IoctlGemClose, unsafe.Pointer(&arg)); err != nil {
		return ioctlError(uapi.IoctlGemClose, err, fmt.Sprintf("handle %d", handle))
	}
	return nil
}

// SetMaster makes this file the DRM master of the device, which modesetting
// and page flips require. Opening a primary node while nobody is master
// already makes the opener master (drm_auth.c).
func SetMaster(c uapi.Conn) error {
	if err := c.Ioctl(uapi.IoctlSetMaster, nil); err != nil {
		return ioctlError(uapi.IoctlSetMaster, err, "")
	}
	return nil
}

// DropMaster gives DRM master up, so that another program (a console, a
// compositor) can take it.
func DropMaster(c uapi.Conn) error {
	if err := c.Ioctl(uapi.IoctlDropMaster, nil); err != nil {
		return ioctlError(uapi.IoctlDropMaster, err, "")
	}
	return nil
}

// PrimeHandleToFD exports a GEM handle as a dma-buf file descriptor; flags
// are CloExec and/or ReadWrite. The caller owns the descriptor.
func PrimeHandleToFD(c uapi.Conn, handle, flags uint32) (int, error) {
	arg := uapi.PrimeHandle{Handle: handle, Flags: flags, Fd: -1}
	if err := c.Ioctl(uapi.IoctlPrimeHandleToFD, unsafe.Pointer(&arg)); err != nil {
		return -1, ioctlError(uapi.IoctlPrimeHandleToFD, err, fmt.Sprintf("handle %d", handle))
	}
	return int(arg.Fd), nil
}

// PrimeFDToHandle imports a dma-buf file descriptor as a GEM handle of this
// file. The descriptor stays the caller's.
func PrimeFDToHandle(c uapi.Conn, fd int) (uint32, error) {
	arg := uapi.PrimeHandle{Fd: int32(fd)}
	if err := c.Ioctl(uapi.IoctlPrimeFDToHandle, unsafe.Pointer(&arg)); err != nil {
		return 0, ioctlError(uapi.IoctlPrimeFDToHandle, err, fmt.Sprintf("fd %d", fd))
	}
	return arg.Handle, nil
}
