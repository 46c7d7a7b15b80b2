package sim

import (
	"math/bits"
	"syscall"
	"unsafe"

	"github.com/vccube/vccube/sim/kernel"
	"github.com/vccube/vccube/uapi"
)

// A 32-bit program (OpenOptions.ILP32) meets the device as on a Pi 3
// running a 32-bit kernel (Raspberry Pi OS 32-bit's kernel7.img; Mesa's
// CI booted its Pi 3 boards from armhf boot files): the kernel is built
// with the program's own layouts, so drm_version and drm_wait_vblank are
// the 32-bit structs and their requests the 32-bit numbers, and a user
// pointer the uAPI carries as __u64 keeps its low 32 bits. The simulated
// kernel is the host's width; on a 64-bit host this file is the one place
// that stands between it and such a program, in the way a 64-bit kernel's
// drm_ioc32.c stands between itself and a compat task: the structs whose
// layouts differ (uapi.Version32, uapi.WaitVblank32; uapi/ilp32.go says
// why the others need nothing) are widened, run, and narrowed back.

// ilp32Translated reports whether the file's program is 32-bit while the
// simulated kernel is 64-bit: its differing structs are translated.
func (f *File) ilp32Translated() bool { return f.ilp32 && bits.UintSize == 64 }

// ioctl32 runs a 32-bit program's request whose struct the 64-bit model
// lays out differently; ok is false for every other request, which runs
// as it is.
func (f *File) ioctl32(req uapi.Request, arg unsafe.Pointer) (bool, error) {
	switch req {
	case uapi.IoctlVersion32:
		return true, f.version32(arg)
	case uapi.IoctlWaitVblank32:
		return true, f.waitVblank32(arg)
	}
	return false, nil
}

// version32 is DRM_IOCTL_VERSION with the 32-bit struct: its lengths and
// buffer addresses widened into a drm_version, and the version numbers and
// the lengths the kernel wrote narrowed back. As drm_ioctl does, the
// argument is copied back whatever the result.
func (f *File) version32(arg unsafe.Pointer) error {
	var v32 uapi.Version32
	b32 := unsafe.Slice((*byte)(unsafe.Pointer(&v32)), unsafe.Sizeof(v32))
	if kernel.CopyFromArg(b32, arg) != nil {
		return syscall.EFAULT
	}
	v := uapi.Version{
		VersionMajor: v32.VersionMajor, VersionMinor: v32.VersionMinor, VersionPatchlevel: v32.VersionPatchlevel,
		NameLen: uintptr(v32.NameLen), Name: uintptr(v32.Name),
		DateLen: uintptr(v32.DateLen), Date: uintptr(v32.Date),
		DescLen: uintptr(v32.DescLen), Desc: uintptr(v32.Desc),
	}
	err := f.Ioctl(uapi.IoctlVersion, unsafe.Pointer(&v))
	v32.VersionMajor, v32.VersionMinor, v32.VersionPatchlevel = v.VersionMajor, v.VersionMinor, v.VersionPatchlevel
	// The lengths are those of the driver's strings, which fit.
	v32.NameLen, v32.DateLen, v32.DescLen = uint32(v.NameLen), uint32(v.DateLen), uint32(v.DescLen)
	if kernel.CopyToArg(arg, b32) != nil {
		return syscall.EFAULT
	}
	return err
}

// waitVblank32 is DRM_IOCTL_WAIT_VBLANK with the 32-bit union: signal
// widened on the way in (an unsigned long: zero-extended), the reply's
// tval_sec and tval_usec narrowed on the way out.
func (f *File) waitVblank32(arg unsafe.Pointer) error {
	var w32 uapi.WaitVblank32
	b32 := unsafe.Slice((*byte)(unsafe.Pointer(&w32)), unsafe.Sizeof(w32))
	if kernel.CopyFromArg(b32, arg) != nil {
		return syscall.EFAULT
	}
	w := uapi.WaitVblank{Type: w32.Type, Sequence: w32.Sequence, TvalSec: int(uint32(w32.TvalSec))}
	err := f.Ioctl(uapi.IoctlWaitVblank, unsafe.Pointer(&w))
	w32.Type, w32.Sequence = w.Type, w.Sequence
	w32.TvalSec, w32.TvalUsec = int32(w.TvalSec), int32(w.TvalUsec)
	if kernel.CopyToArg(arg, b32) != nil {
		return syscall.EFAULT
	}
	return err
}

// user32 is a 32-bit program's memory as a 32-bit kernel reaches it: a
// __u64 user pointer becomes a pointer through u64_to_user_ptr (a cast
// through uintptr_t, include/linux/kernel.h), which keeps its low 32 bits,
// and a range that runs past the end of the 32-bit address space fails
// access_ok (EFAULT).
type user32 struct{ m kernel.UserMemory }

func (u user32) CopyFromUser(dst []byte, addr uint64) error {
	addr = uint64(uint32(addr))
	if addr+uint64(len(dst)) > 1<<32 {
		return syscall.EFAULT
	}
	return u.m.CopyFromUser(dst, addr)
}

func (u user32) CopyToUser(addr uint64, src []byte) error {
	addr = uint64(uint32(addr))
	if addr+uint64(len(src)) > 1<<32 {
		return syscall.EFAULT
	}
	return u.m.CopyToUser(addr, src)
}
