package kernel

import (
	"encoding/binary"
	"math"
	"syscall"

	"github.com/vccube/vccube/sim/mem"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// The GEM ioctls: buffer objects and their handles, mappings, labels,
// tiling metadata and madvise (vc4_bo.c, vc4_gem.c vc4_gem_madvise_ioctl,
// drm_gem.c, drm_dumb_buffers.c).

// CreateBO is DRM_IOCTL_VC4_CREATE_BO (vc4_create_bo_ioctl): a zeroed BO
// of a.Size bytes rounded up to pages. The file's first BO also takes the
// shared binner BO. flags and pad are not checked by current kernels.
func (f *File) CreateBO(a *uapi.CreateBO) error {
	d := f.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := f.grabBinBO(); err != nil {
		return err
	}
	// Never an unzeroed BO from the cache: that would leak another
	// process's data ("We can't allocate from the BO cache, because the
	// BOs don't get zeroed").
	bo, err := d.boCreate(uint64(a.Size), false, boV3D)
	if err != nil {
		return err
	}
	bo.madv = uapi.MadvWillNeed
	a.Handle = f.newHandle(bo)
	d.unref(bo)
	return nil
}

// MmapBO is DRM_IOCTL_VC4_MMAP_BO (vc4_mmap_bo_ioctl): the fake offset to
// mmap the BO at. flags is ignored; an unknown handle is EINVAL.
func (f *File) MmapBO(a *uapi.MmapBO) error {
	d := f.d
	d.mu.Lock()
	defer d.mu.Unlock()
	bo := f.lookup(a.Handle)
	if bo == nil {
		return errf(syscall.EINVAL, "Failed to look up GEM BO %d", a.Handle)
	}
	a.Offset = bo.mmapOffset
	return nil
}

// CreateShaderBO is DRM_IOCTL_VC4_CREATE_SHADER_BO
// (vc4_create_shader_bo_ioctl): it copies a.Size bytes of QPU code from
// user memory into a new BO, zeroes the rest of the page and validates it
// (ValidateShader). The handle exists only if validation passes; a
// failure frees the BO.
func (f *File) CreateShaderBO(a *uapi.CreateShaderBO) error {
	d := f.d
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case a.Size == 0:
		return errf(syscall.EINVAL, "shader BO of size 0")
	case a.Size%8 != 0:
		return errf(syscall.EINVAL, "shader BO size %d is not a multiple of 8", a.Size)
	case a.Flags != 0:
		return errf(syscall.EINVAL, "Unknown flags set: 0x%08x", a.Flags)
	case a.Pad != 0:
		return errf(syscall.EINVAL, "Pad set: 0x%08x", a.Pad)
	}
	if err := f.grabBinBO(); err != nil {
		return err
	}
	bo, err := d.boCreate(uint64(a.Size), true, boV3DShader)
	if err != nil {
		return err
	}
	bo.madv = uapi.MadvWillNeed
	mem := d.pool.Bytes(bo.region)
	if err := f.user.CopyFromUser(mem[:a.Size], a.Data); err != nil {
		d.unref(bo)
		return errf(syscall.EFAULT, "shader code at %#x is not readable", a.Data)
	}
	clear(mem[a.Size:])
	sh, err := ValidateShader(mem)
	if err != nil {
		d.unref(bo)
		return err
	}
	bo.shader = sh
	a.Handle = f.newHandle(bo)
	d.unref(bo)
	return nil
}

// LabelBO is DRM_IOCTL_VC4_LABEL_BO (vc4_label_bo_ioctl): a name for the
// BO statistics. The name is read as strndup_user(name, len + 1) does, so
// it must be NUL-terminated within len + 1 bytes (EINVAL otherwise); a bad
// pointer is EFAULT, checked before the handle (ENOENT). len + 1 is u32
// arithmetic, as in vc4_label_bo_ioctl: a len of 0xFFFFFFFF makes a count
// of 0, which is EFAULT.
func (f *File) LabelBO(a *uapi.LabelBO) error {
	if a.Len == 0 {
		return errf(syscall.EINVAL, "label of length 0")
	}
	name, err := StrndupUser(f.user, a.Name, a.Len+1)
	if err != nil {
		return errf(Errno(err), "label name at %#x (%d bytes): %v", a.Name, a.Len, err)
	}
	d := f.d
	d.mu.Lock()
	defer d.mu.Unlock()
	bo := f.lookup(a.Handle)
	if bo == nil {
		return errf(syscall.ENOENT, "Failed to look up GEM BO %d", a.Handle)
	}
	d.setLabel(bo, d.userLabel(name))
	return nil
}

// SetTiling is DRM_IOCTL_VC4_SET_TILING (vc4_set_tiling_ioctl).
func (f *File) SetTiling(a *uapi.SetTiling) error {
	if a.Flags != 0 {
		return errf(syscall.EINVAL, "SET_TILING flags 0x%x", a.Flags)
	}
	var t bool
	switch a.Modifier {
	case uapi.FormatModNone:
	case uapi.FormatModBroadcomVC4TTiled:
		t = true
	default:
		return errf(syscall.EINVAL, "unknown modifier 0x%x", a.Modifier)
	}
	d := f.d
	d.mu.Lock()
	defer d.mu.Unlock()
	bo := f.lookup(a.Handle)
	if bo == nil {
		return errf(syscall.ENOENT, "Failed to look up GEM BO %d", a.Handle)
	}
	bo.tFormat = t
	return nil
}

// GetTiling is DRM_IOCTL_VC4_GET_TILING (vc4_get_tiling_ioctl).
func (f *File) GetTiling(a *uapi.GetTiling) error {
	if a.Flags != 0 || a.Modifier != 0 {
		return errf(syscall.EINVAL, "GET_TILING flags 0x%x modifier 0x%x must be 0", a.Flags, a.Modifier)
	}
	d := f.d
	d.mu.Lock()
	defer d.mu.Unlock()
	bo := f.lookup(a.Handle)
	if bo == nil {
		return errf(syscall.ENOENT, "Failed to look up GEM BO %d", a.Handle)
	}
	a.Modifier = uapi.FormatModNone
	if bo.tFormat {
		a.Modifier = uapi.FormatModBroadcomVC4TTiled
	}
	return nil
}

// GemMadvise is DRM_IOCTL_VC4_GEM_MADVISE (vc4_gem_madvise_ioctl): a BO
// marked DONTNEED may be purged under memory pressure; Retained reports
// whether it still had its memory.
func (f *File) GemMadvise(a *uapi.GemMadvise) error {
	if a.Madv != uapi.MadvDontNeed && a.Madv != uapi.MadvWillNeed {
		return errf(syscall.EINVAL, "madv %d", a.Madv)
	}
	if a.Pad != 0 {
		return errf(syscall.EINVAL, "madvise pad 0x%x", a.Pad)
	}
	d := f.d
	d.mu.Lock()
	defer d.mu.Unlock()
	bo := f.lookup(a.Handle)
	if bo == nil {
		return errf(syscall.ENOENT, "Failed to look up GEM BO %d", a.Handle)
	}
	// Only BOs given to user space can be purged.
	if bo.madv == uapi.MadvNotSupp {
		return errf(syscall.EINVAL, "madvise not supported on this BO")
	}
	if bo.imported {
		return errf(syscall.EINVAL, "madvise not supported on imported BOs")
	}
	switch {
	case a.Madv == uapi.MadvDontNeed && bo.madv == uapi.MadvWillNeed && bo.usecnt == 0:
		d.addPurgeable(bo)
	case a.Madv == uapi.MadvWillNeed && bo.madv == uapi.MadvDontNeed && bo.usecnt == 0:
		d.removePurgeable(bo)
	}
	a.Retained = 0
	if bo.madv != uapi.MadvPurged {
		a.Retained = 1
		bo.madv = a.Madv
	}
	return nil
}

// GemClose is DRM_IOCTL_GEM_CLOSE (drm_gem.c drm_gem_close_ioctl,
// drm_gem_handle_delete): an unknown handle is EINVAL.
func (f *File) GemClose(a *uapi.GemClose) error {
	d := f.d
	d.mu.Lock()
	defer d.mu.Unlock()
	bo := f.lookup(a.Handle)
	if bo == nil {
		return errf(syscall.EINVAL, "GEM_CLOSE of unknown handle %d", a.Handle)
	}
	f.handles[a.Handle] = nil
	d.unref(bo)
	return nil
}

// CreateDumb is DRM_IOCTL_MODE_CREATE_DUMB: the DRM core's checks
// (drm_dumb_buffers.c drm_mode_create_dumb), then vc4's, which makes a
// plain BO (vc4_bo_dumb_create, vc4_dumb_fixup_args; vc5_dumb_create on a
// Pi 4). Dumb buffers need no V3D.
func (f *File) CreateDumb(a *uapi.ModeCreateDumb) error {
	if a.Width == 0 || a.Height == 0 || a.Bpp == 0 {
		return errf(syscall.EINVAL, "dumb buffer %dx%d at %d bpp", a.Width, a.Height, a.Bpp)
	}
	// The core's 32-bit overflow checks.
	if a.Bpp > math.MaxUint32-8 {
		return errf(syscall.EINVAL, "dumb buffer bpp %d", a.Bpp)
	}
	cpp := (a.Bpp + 7) / 8
	if cpp > math.MaxUint32/a.Width {
		return errf(syscall.EINVAL, "dumb buffer width %d overflows", a.Width)
	}
	stride := cpp * a.Width
	if a.Height > math.MaxUint32/stride {
		return errf(syscall.EINVAL, "dumb buffer height %d overflows", a.Height)
	}
	if size := a.Height * stride; size > math.MaxUint32-mem.PageSize+1 {
		return errf(syscall.EINVAL, "dumb buffer of %d bytes wraps when page-aligned", size)
	}
	a.Handle, a.Pitch, a.Size = 0, 0, 0
	// vc4_dumb_fixup_args: pitch = ceil(width * bpp / 8), computed in 32
	// bits as the kernel does; size = pitch * height.
	minPitch := (a.Width*a.Bpp + 7) / 8
	if a.Pitch < minPitch {
		a.Pitch = minPitch
	}
	if a.Size < uint64(a.Pitch)*uint64(a.Height) {
		a.Size = uint64(a.Pitch) * uint64(a.Height)
	}
	d := f.d
	d.mu.Lock()
	defer d.mu.Unlock()
	bo, err := d.boCreate(a.Size, false, boDumb)
	if err != nil {
		return err
	}
	bo.madv = uapi.MadvWillNeed
	a.Handle = f.newHandle(bo)
	d.unref(bo)
	return nil
}

// MapDumb is DRM_IOCTL_MODE_MAP_DUMB (drm_gem_dumb_map_offset): the fake
// offset of any BO of this file; an unknown handle is ENOENT, an imported
// BO EINVAL.
func (f *File) MapDumb(a *uapi.ModeMapDumb) error {
	d := f.d
	d.mu.Lock()
	defer d.mu.Unlock()
	bo := f.lookup(a.Handle)
	if bo == nil {
		return errf(syscall.ENOENT, "MAP_DUMB of unknown handle %d", a.Handle)
	}
	if bo.imported {
		return errf(syscall.EINVAL, "MAP_DUMB of an imported BO")
	}
	a.Offset = bo.mmapOffset
	return nil
}

// DestroyDumb is DRM_IOCTL_MODE_DESTROY_DUMB (drm_mode_destroy_dumb):
// GEM_CLOSE by another name.
func (f *File) DestroyDumb(a *uapi.ModeDestroyDumb) error {
	return f.GemClose(&uapi.GemClose{Handle: a.Handle})
}

// Mmap maps a BO at the fake offset MMAP_BO or MAP_DUMB returned, as
// mmap(2) on the DRM fd does (drm_gem.c drm_gem_mmap, vc4_gem_object_mmap):
// the offset must be a BO's exactly and the length no more than its size
// (EINVAL), the file must hold a handle to it (EACCES), a shader BO maps
// only read-only and a purgeable or purged BO not at all (EINVAL). The
// mapping holds a reference, so it outlives GEM_CLOSE.
func (f *File) Mmap(offset uint64, length int, prot int) ([]byte, error) {
	d := f.d
	d.mu.Lock()
	defer d.mu.Unlock()
	bo, n, err := f.mmapLookup(offset, length, prot)
	if err != nil {
		return nil, err
	}
	b, err := d.pool.MapUser(mem.Region{Addr: bo.region.Addr, Size: uint32(n)}, prot)
	if err != nil {
		return nil, err
	}
	b = b[:length]
	bo.refs++
	bo.userMaps = append(bo.userMaps, b)
	d.userMaps[&b[0]] = bo
	return b, nil
}

// mmapLookup is the checks of drm_gem_mmap and vc4_gem_object_mmap: the
// BO at the fake offset and the page-rounded length to map.
func (f *File) mmapLookup(offset uint64, length int, prot int) (*BO, uint64, error) {
	d := f.d
	if length <= 0 || offset%mem.PageSize != 0 {
		return nil, 0, syscall.EINVAL
	}
	n := (uint64(length) + mem.PageSize - 1) / mem.PageSize * mem.PageSize
	bo := d.byOffset[offset]
	if bo == nil || bo.refs == 0 || n > uint64(bo.size) {
		return nil, 0, syscall.EINVAL
	}
	if !f.hasHandleTo(bo) {
		return nil, 0, syscall.EACCES
	}
	if bo.shader != nil && prot&unix.PROT_WRITE != 0 {
		return nil, 0, errf(syscall.EINVAL, "mmapping of shader BOs for writing not allowed")
	}
	if bo.madv != uapi.MadvWillNeed {
		return nil, 0, errf(syscall.EINVAL, "mmapping of purgeable or purged BO not allowed")
	}
	return bo, n, nil
}

// SharedMap is a mapping of a BO that another process made itself from
// the CMA pool's memfd (mem.Pool.Fd), at the range Mmap would have mapped:
// the device served over a socket (simserve) hands the range to its
// client instead of mapping it here. Like Mmap's mappings it holds a
// reference on the BO until Unmap, so the memory is neither freed nor
// reused while the other process may still touch it. Such a BO is never
// purged either: the kernel could not take its pages away from the
// other process (vc4_bo_purge unmaps them), so it keeps them.
type SharedMap struct {
	bo     *BO
	offset int64 // in the pool's memfd
	size   int
}

// PoolOffset is where the mapping starts in the pool's memfd.
func (m *SharedMap) PoolOffset() int64 { return m.offset }

// Size is the mapping's page-rounded length.
func (m *SharedMap) Size() int { return m.size }

// MmapShared checks an mmap(2) of the file at the fake offset as Mmap
// does, with the same errnos, and returns the range of the pool's memfd
// the caller maps instead, holding a reference on the BO until Unmap.
func (f *File) MmapShared(offset uint64, length int, prot int) (*SharedMap, error) {
	d := f.d
	d.mu.Lock()
	defer d.mu.Unlock()
	bo, n, err := f.mmapLookup(offset, length, prot)
	if err != nil {
		return nil, err
	}
	bo.refs++
	bo.sharedMaps++
	return &SharedMap{bo: bo, offset: int64(bo.region.Addr - d.pool.Base()), size: int(n)}, nil
}

// Unmap ends a shared mapping (drm_gem_vm_close); a second Unmap of the
// same mapping does nothing.
func (m *SharedMap) Unmap() {
	if m.bo == nil {
		return
	}
	d := m.bo.d
	d.mu.Lock()
	defer d.mu.Unlock()
	m.bo.sharedMaps--
	d.unref(m.bo)
	m.bo = nil
}

// Munmap undoes Mmap (drm_gem_vm_close drops the mapping's reference).
func (d *Driver) Munmap(b []byte) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(b) == 0 {
		return syscall.EINVAL
	}
	bo := d.userMaps[&b[0]]
	if bo == nil {
		return syscall.EINVAL
	}
	delete(d.userMaps, &b[0])
	for i, m := range bo.userMaps {
		if &m[0] == &b[0] {
			bo.userMaps = append(bo.userMaps[:i], bo.userMaps[i+1:]...)
			break
		}
	}
	err := d.pool.UnmapUser(b[:cap(b)])
	d.unref(bo)
	return err
}

// V3D identification registers of the BCM2835/6/7 V3D, worked out from
// the reference guide (VideoCore IV 3D Architecture Reference Guide,
// Tables 79-81, V3D_IDENT0..2, whose reset values are the reference
// configuration the Pi's V3D has). The fields are gem's (DecodeIdent, the
// one description of the IDENT layout):
//
//	IDENT0: technology version 2 and "V3D"      = uapi.V3DExpectedIdent0
//	IDENT1: VPM 12 KiB, HDR render targets 1, 16 semaphores, 2 TMUs and
//	        4 QPUs per slice, 3 slices, revision 1 = 0xC1102431
//	IDENT2: TLB double-buffer 1, TLB size 2 (full), VRI memory size 1
//	                                             = 0x00000121
//
// IDENT0 is also the value vc4_v3d_bind insists on (V3D_EXPECTED_IDENT0 in
// vc4_regs.h); IDENT1 0xc1102431 and IDENT2 0x121 are what Pi 2/3 hardware
// reports in published V3D bring-up logs.
const (
	V3DIdent0 = uapi.V3DExpectedIdent0
	V3DIdent1 = 0xC1102431
	V3DIdent2 = 0x00000121
)

// GetParam is DRM_IOCTL_VC4_GET_PARAM (vc4_drv.c vc4_get_param_ioctl):
// pad first (EINVAL), then the V3D (ENODEV), then the parameter (EINVAL
// for an unknown one).
func (f *File) GetParam(a *uapi.GetParam) error {
	if a.Pad != 0 {
		return errf(syscall.EINVAL, "GET_PARAM pad 0x%x", a.Pad)
	}
	if f.d.cfg.NoV3D {
		return errf(syscall.ENODEV, "no VC4 V3D probed")
	}
	switch a.Param {
	case uapi.ParamV3DIdent0:
		a.Value = V3DIdent0
	case uapi.ParamV3DIdent1:
		a.Value = V3DIdent1
	case uapi.ParamV3DIdent2:
		a.Value = V3DIdent2
	case uapi.ParamSupportsBranches, uapi.ParamSupportsETC1, uapi.ParamSupportsThreadedFS,
		uapi.ParamSupportsFixedRCLOrder, uapi.ParamSupportsMadvise, uapi.ParamSupportsPerfmon:
		a.Value = 1
	default:
		return errf(syscall.EINVAL, "Unknown parameter %d", a.Param)
	}
	return nil
}

// putU64s writes v as little-endian u64s (the kernel's layout of a
// perfmon's counters for copy_to_user).
func putU64s(dst []byte, v []uint64) {
	for i, x := range v {
		binary.LittleEndian.PutUint64(dst[8*i:], x)
	}
}
