package uapi

import "unsafe"

// The layouts of a 32-bit (ILP32: armhf, Raspberry Pi OS 32-bit) program.
//
// Every vc4 and KMS struct has one C layout on 32- and 64-bit ARM: their
// fields are fixed-width and user pointers are __u64 (uapi/testdata's
// armhf and arm64 tables agree on them). Two structs of the DRM core
// that a vc4 program meets hold long, size_t or pointer fields and so
// differ: struct drm_version and union drm_wait_vblank. A 32-bit kernel
// compiles them, and their request numbers, at the 32-bit sizes; a 64-bit
// kernel translates them for a 32-bit program in drm_ioc32.c
// (compat_drm_version, compat_drm_wait_vblank). The types here are those
// 32-bit layouts, whatever the GOARCH this is built for: on GOARCH=arm
// they equal the native ones (Version, WaitVblank).
//
// The other DRM core structs drm_ioc32.c translates on ARM (drm_unique,
// drm_client, drm_stats and the legacy drivers' maps, buffers, contexts,
// DMA, AGP and scatter-gather) belong to ioctls the simulated device does
// not model; drm_mode_fb_cmd2 is translated on x86 only, where a __u64's
// alignment differs between the two ABIs, which ARM's EABI does not.

// Version32 mirrors struct drm_version (drm.h) as a 32-bit program lays
// it out: size_t and pointers are 4 bytes, 36 bytes in all
// (uapi/testdata/uapi-layouts/armhf.txt).
type Version32 struct {
	VersionMajor      int32
	VersionMinor      int32
	VersionPatchlevel int32
	NameLen           uint32
	Name              uint32
	DateLen           uint32
	Date              uint32
	DescLen           uint32
	Desc              uint32
}

// WaitVblank mirrors union drm_wait_vblank (drm.h) on this GOARCH. The
// request's fields are type, sequence and the unsigned long signal; the
// reply's are type, sequence and the longs tval_sec and tval_usec, the
// first over signal. The union is as long as the reply: 24 bytes on
// 64-bit, 16 on 32-bit.
type WaitVblank struct {
	Type     uint32
	Sequence uint32
	TvalSec  int // request.signal (unsigned long), reply.tval_sec (long)
	TvalUsec int // reply.tval_usec (long)
}

// WaitVblank32 is union drm_wait_vblank as a 32-bit program lays it out.
type WaitVblank32 struct {
	Type     uint32
	Sequence uint32
	TvalSec  int32 // request.signal, reply.tval_sec
	TvalUsec int32
}

var (
	// IoctlWaitVblank is DRM_IOCTL_WAIT_VBLANK: DRM_IOWR(0x3a, union
	// drm_wait_vblank).
	IoctlWaitVblank = IOWR(0x3a, unsafe.Sizeof(WaitVblank{}))
	// IoctlVersion32 is DRM_IOCTL_VERSION as a 32-bit program builds it
	// (0xc0246400).
	IoctlVersion32 = IOWR(0x00, unsafe.Sizeof(Version32{}))
	// IoctlWaitVblank32 is DRM_IOCTL_WAIT_VBLANK as a 32-bit program
	// builds it (0xc010643a).
	IoctlWaitVblank32 = IOWR(0x3a, unsafe.Sizeof(WaitVblank32{}))
)
