package drm

import (
	"bytes"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// Atomic modesetting: planes, properties by name, property blobs, atomic
// commits with their out-fences, and sync files.

// Plane describes a plane (DRM_IOCTL_MODE_GETPLANE).
type Plane struct {
	ID            uint32
	CrtcID        uint32 // the CRTC it shows on now, or 0
	FbID          uint32 // the framebuffer it shows now, or 0
	PossibleCrtcs uint32 // bit i = the i-th CRTC of GetResources
	Formats       []uint32
}

// GetPlaneResources lists the planes (DRM_IOCTL_MODE_GETPLANERESOURCES):
// only the overlays unless the file set ClientCapUniversalPlanes (or
// ClientCapAtomic, which implies it).
func GetPlaneResources(c uapi.Conn) ([]uint32, error) {
	var arg uapi.ModeGetPlaneRes
	if err := c.Ioctl(uapi.IoctlModeGetPlaneResources, unsafe.Pointer(&arg)); err != nil {
		return nil, ioctlError(uapi.IoctlModeGetPlaneResources, err, "")
	}
	for try := 0; try < maxCountRetries; try++ {
		if arg.CountPlanes > maxReplyCount {
			return nil, &Error{Op: uapi.IoctlName(uapi.IoctlModeGetPlaneResources), Req: uapi.IoctlModeGetPlaneResources,
				Err: errBadReply, Detail: fmt.Sprintf("%d planes", arg.CountPlanes)}
		}
		ids := make([]uint32, arg.CountPlanes)
		var pin runtime.Pinner
		arg.PlaneIDPtr = pinned(&pin, ids)
		err := c.Ioctl(uapi.IoctlModeGetPlaneResources, unsafe.Pointer(&arg))
		pin.Unpin()
		if err != nil {
			return nil, ioctlError(uapi.IoctlModeGetPlaneResources, err, "second pass")
		}
		if int(arg.CountPlanes) <= len(ids) {
			return ids[:arg.CountPlanes], nil
		}
	}
	return nil, &Error{Op: uapi.IoctlName(uapi.IoctlModeGetPlaneResources), Req: uapi.IoctlModeGetPlaneResources, Err: errCountsUnstable}
}

// GetPlane describes plane id with its formats.
func GetPlane(c uapi.Conn, id uint32) (*Plane, error) {
	arg := uapi.ModeGetPlane{PlaneID: id}
	detail := fmt.Sprintf("plane %d", id)
	if err := c.Ioctl(uapi.IoctlModeGetPlane, unsafe.Pointer(&arg)); err != nil {
		return nil, ioctlError(uapi.IoctlModeGetPlane, err, detail)
	}
	if arg.CountFormatTypes > maxReplyCount {
		return nil, &Error{Op: uapi.IoctlName(uapi.IoctlModeGetPlane), Req: uapi.IoctlModeGetPlane, Err: errBadReply, Detail: detail}
	}
	formats := make([]uint32, arg.CountFormatTypes)
	var pin runtime.Pinner
	arg.FormatTypePtr = pinned(&pin, formats)
	err := c.Ioctl(uapi.IoctlModeGetPlane, unsafe.Pointer(&arg))
	pin.Unpin()
	if err != nil {
		return nil, ioctlError(uapi.IoctlModeGetPlane, err, detail)
	}
	return &Plane{ID: id, CrtcID: arg.CrtcID, FbID: arg.FbID, PossibleCrtcs: arg.PossibleCrtcs,
		Formats: formats[:min(int(arg.CountFormatTypes), len(formats))]}, nil
}

// Property describes a property (DRM_IOCTL_MODE_GETPROPERTY).
type Property struct {
	ID     uint32
	Name   string
	Flags  uint32            // uapi.PropRange, ..., uapi.PropAtomic
	Values []uint64          // a range's bounds, an object property's type, an enum's values
	Enums  map[string]uint64 // an enum's or bitmask's names (a bitmask's values are bit numbers)
}

// GetProperty describes property id.
func GetProperty(c uapi.Conn, id uint32) (*Property, error) {
	arg := uapi.ModeGetProperty{PropID: id}
	detail := fmt.Sprintf("property %d", id)
	if err := c.Ioctl(uapi.IoctlModeGetProperty, unsafe.Pointer(&arg)); err != nil {
		return nil, ioctlError(uapi.IoctlModeGetProperty, err, detail)
	}
	if arg.CountValues > maxReplyCount || arg.CountEnumBlobs > maxReplyCount {
		return nil, &Error{Op: uapi.IoctlName(uapi.IoctlModeGetProperty), Req: uapi.IoctlModeGetProperty, Err: errBadReply, Detail: detail}
	}
	values := make([]uint64, arg.CountValues)
	enums := make([]uapi.ModePropertyEnum, arg.CountEnumBlobs)
	var pin runtime.Pinner
	arg.ValuesPtr, arg.EnumBlobPtr = pinned(&pin, values), pinned(&pin, enums)
	err := c.Ioctl(uapi.IoctlModeGetProperty, unsafe.Pointer(&arg))
	pin.Unpin()
	if err != nil {
		return nil, ioctlError(uapi.IoctlModeGetProperty, err, detail)
	}
	p := &Property{ID: id, Name: cString(arg.Name[:]), Flags: arg.Flags,
		Values: values[:min(int(arg.CountValues), len(values))]}
	if len(enums) > 0 {
		p.Enums = map[string]uint64{}
		for _, e := range enums[:min(int(arg.CountEnumBlobs), len(enums))] {
			p.Enums[cString(e.Name[:])] = e.Value
		}
	}
	return p, nil
}

func cString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// ObjectProperties are an object's properties by name: each one's id and
// current value.
type ObjectProperties struct {
	ObjID, ObjType uint32
	IDs            map[string]uint32
	Values         map[string]uint64
}

// ID returns the id of property name, or an error that names the object
// and the property (a driver without it).
func (p *ObjectProperties) ID(name string) (uint32, error) {
	if id, ok := p.IDs[name]; ok {
		return id, nil
	}
	return 0, fmt.Errorf("drm: object %d has no property %q", p.ObjID, name)
}

// GetObjectProperties reads the properties of object id of type objType
// (uapi.ObjectPlane, ObjectCrtc, ObjectConnector) with their names
// (DRM_IOCTL_MODE_OBJ_GETPROPERTIES, then GETPROPERTY for each, as
// libdrm's drmModeObjectGetProperties and kmscube do). Atomic-only
// properties are listed only after ClientCapAtomic.
func GetObjectProperties(c uapi.Conn, id, objType uint32) (*ObjectProperties, error) {
	arg := uapi.ModeObjGetProperties{ObjID: id, ObjType: objType}
	detail := fmt.Sprintf("object %d", id)
	if err := c.Ioctl(uapi.IoctlModeObjGetProperties, unsafe.Pointer(&arg)); err != nil {
		return nil, ioctlError(uapi.IoctlModeObjGetProperties, err, detail)
	}
	for try := 0; try < maxCountRetries; try++ {
		if arg.CountProps > maxReplyCount {
			return nil, &Error{Op: uapi.IoctlName(uapi.IoctlModeObjGetProperties), Req: uapi.IoctlModeObjGetProperties, Err: errBadReply, Detail: detail}
		}
		ids := make([]uint32, arg.CountProps)
		values := make([]uint64, arg.CountProps)
		var pin runtime.Pinner
		arg.PropsPtr, arg.PropValuesPtr = pinned(&pin, ids), pinned(&pin, values)
		err := c.Ioctl(uapi.IoctlModeObjGetProperties, unsafe.Pointer(&arg))
		pin.Unpin()
		if err != nil {
			return nil, ioctlError(uapi.IoctlModeObjGetProperties, err, detail)
		}
		if int(arg.CountProps) > len(ids) {
			continue
		}
		op := &ObjectProperties{ObjID: id, ObjType: objType, IDs: map[string]uint32{}, Values: map[string]uint64{}}
		for i, pid := range ids[:arg.CountProps] {
			p, err := GetProperty(c, pid)
			if err != nil {
				return nil, err
			}
			op.IDs[p.Name], op.Values[p.Name] = pid, values[i]
		}
		return op, nil
	}
	return nil, &Error{Op: uapi.IoctlName(uapi.IoctlModeObjGetProperties), Req: uapi.IoctlModeObjGetProperties, Err: errCountsUnstable}
}

// SetObjectProperty sets one property of an object in a commit of its own
// (DRM_IOCTL_MODE_OBJ_SETPROPERTY). Needs DRM master.
func SetObjectProperty(c uapi.Conn, id, objType, prop uint32, value uint64) error {
	arg := uapi.ModeObjSetProperty{ObjID: id, ObjType: objType, PropID: prop, Value: value}
	if err := c.Ioctl(uapi.IoctlModeObjSetProperty, unsafe.Pointer(&arg)); err != nil {
		return ioctlError(uapi.IoctlModeObjSetProperty, err, fmt.Sprintf("object %d property %d", id, prop))
	}
	return nil
}

// CreatePropertyBlob stores data as a property blob of this file
// (DRM_IOCTL_MODE_CREATEPROPBLOB), e.g. a mode for a CRTC's MODE_ID.
func CreatePropertyBlob(c uapi.Conn, data []byte) (uint32, error) {
	if len(data) == 0 {
		return 0, fmt.Errorf("drm: a property blob needs at least one byte")
	}
	var pin runtime.Pinner
	arg := uapi.ModeCreateBlob{Data: pinned(&pin, data), Length: uint32(len(data))}
	err := c.Ioctl(uapi.IoctlModeCreatePropBlob, unsafe.Pointer(&arg))
	pin.Unpin()
	if err != nil {
		return 0, ioctlError(uapi.IoctlModeCreatePropBlob, err, fmt.Sprintf("%d bytes", len(data)))
	}
	return arg.BlobID, nil
}

// CreateModeBlob stores a mode as a blob for a CRTC's MODE_ID.
func CreateModeBlob(c uapi.Conn, m *ModeInfo) (uint32, error) {
	b := unsafe.Slice((*byte)(unsafe.Pointer(&m.ModeModeInfo)), unsafe.Sizeof(m.ModeModeInfo))
	return CreatePropertyBlob(c, append([]byte(nil), b...))
}

// DestroyPropertyBlob gives up a blob of this file
// (DRM_IOCTL_MODE_DESTROYPROPBLOB); states using it keep it.
func DestroyPropertyBlob(c uapi.Conn, id uint32) error {
	arg := uapi.ModeDestroyBlob{BlobID: id}
	if err := c.Ioctl(uapi.IoctlModeDestroyPropBlob, unsafe.Pointer(&arg)); err != nil {
		return ioctlError(uapi.IoctlModeDestroyPropBlob, err, fmt.Sprintf("blob %d", id))
	}
	return nil
}

// GetPropertyBlob reads a blob's bytes (DRM_IOCTL_MODE_GETPROPBLOB).
func GetPropertyBlob(c uapi.Conn, id uint32) ([]byte, error) {
	arg := uapi.ModeGetBlob{BlobID: id}
	detail := fmt.Sprintf("blob %d", id)
	if err := c.Ioctl(uapi.IoctlModeGetPropBlob, unsafe.Pointer(&arg)); err != nil {
		return nil, ioctlError(uapi.IoctlModeGetPropBlob, err, detail)
	}
	if arg.Length > 1<<24 {
		return nil, &Error{Op: uapi.IoctlName(uapi.IoctlModeGetPropBlob), Req: uapi.IoctlModeGetPropBlob, Err: errBadReply, Detail: detail}
	}
	data := make([]byte, arg.Length)
	var pin runtime.Pinner
	arg.Data = pinned(&pin, data)
	err := c.Ioctl(uapi.IoctlModeGetPropBlob, unsafe.Pointer(&arg))
	pin.Unpin()
	if err != nil {
		return nil, ioctlError(uapi.IoctlModeGetPropBlob, err, detail)
	}
	return data[:min(int(arg.Length), len(data))], nil
}

// AtomicRequest is an atomic commit being built: properties to set on
// objects, in the order added. It is reused frame after frame (Reset):
// once its arrays have grown, building and committing allocate nothing.
// Its zero value is ready to use; it must not be copied after first use
// (the out-fence is written into it).
type AtomicRequest struct {
	objs   []uint32
	counts []uint32
	props  []uint32
	values []uint64
	arg    uapi.ModeAtomic
	// outFence receives the out-fence's descriptor (OUT_FENCE_PTR).
	outFence int32
}

// Reset empties the request, keeping its arrays.
func (r *AtomicRequest) Reset() {
	r.objs, r.counts, r.props, r.values = r.objs[:0], r.counts[:0], r.props[:0], r.values[:0]
	r.outFence = -1
}

// Add sets property prop of object obj to value. Consecutive properties
// of one object are sent together.
func (r *AtomicRequest) Add(obj, prop uint32, value uint64) {
	if n := len(r.objs); n > 0 && r.objs[n-1] == obj {
		r.counts[n-1]++
	} else {
		r.objs = append(r.objs, obj)
		r.counts = append(r.counts, 1)
	}
	r.props = append(r.props, prop)
	r.values = append(r.values, value)
}

// AddOutFence asks for the CRTC's out-fence: prop is the CRTC's
// OUT_FENCE_PTR. After a successful Commit, OutFence returns the new sync
// file's descriptor, which the caller owns (close it).
func (r *AtomicRequest) AddOutFence(crtc, prop uint32) {
	r.Add(crtc, prop, uapi.UserPointer(unsafe.Pointer(&r.outFence)))
}

// OutFence returns the descriptor the last commit wrote for its
// out-fence, or -1.
func (r *AtomicRequest) OutFence() int { return int(r.outFence) }

// Commit runs the request (DRM_IOCTL_MODE_ATOMIC) with flags
// (uapi.AtomicTestOnly, AtomicNonblock, AtomicAllowModeset,
// PageFlipEvent) and the flip events' user data. Needs DRM master and
// ClientCapAtomic.
func (r *AtomicRequest) Commit(c uapi.Conn, flags uint32, userData uint64) error {
	var pin runtime.Pinner
	r.arg = uapi.ModeAtomic{Flags: flags, CountObjs: uint32(len(r.objs)), UserData: userData,
		ObjsPtr: pinned(&pin, r.objs), CountPropsPtr: pinned(&pin, r.counts),
		PropsPtr: pinned(&pin, r.props), PropValuesPtr: pinned(&pin, r.values)}
	pin.Pin(r)
	err := c.Ioctl(uapi.IoctlModeAtomic, unsafe.Pointer(&r.arg))
	pin.Unpin()
	if err != nil {
		return ioctlError(uapi.IoctlModeAtomic, err, fmt.Sprintf("%d objects, %d properties, flags 0x%x", len(r.objs), len(r.props), flags))
	}
	return nil
}

// fdIoctl runs req on descriptor fd: through the Conn when its device
// answers for the descriptors it made (the simulated device), else with
// ioctl(2).
func fdIoctl(c uapi.Conn, fd int, req uapi.Request, arg unsafe.Pointer) error {
	if fc, ok := c.(uapi.FdIoctler); ok {
		return fc.FdIoctl(fd, req, arg)
	}
	for {
		_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg))
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			return errno
		}
		return nil
	}
}

// SyncFileStatus is what SYNC_IOC_FILE_INFO says of a sync file.
type SyncFileStatus struct {
	Name   string
	Status int32 // 1 signalled, 0 active, negative an error
	Fences []uapi.SyncFenceInfo
}

// SyncFileInfo describes sync file fd of device c (SYNC_IOC_FILE_INFO).
func SyncFileInfo(c uapi.Conn, fd int) (*SyncFileStatus, error) {
	var info uapi.SyncFileInfo
	if err := fdIoctl(c, fd, uapi.IoctlSyncFileInfo, unsafe.Pointer(&info)); err != nil {
		return nil, ioctlError(uapi.IoctlSyncFileInfo, err, fmt.Sprintf("fd %d", fd))
	}
	n := info.NumFences
	if n > maxReplyCount {
		return nil, &Error{Op: uapi.IoctlName(uapi.IoctlSyncFileInfo), Req: uapi.IoctlSyncFileInfo, Err: errBadReply}
	}
	fences := make([]uapi.SyncFenceInfo, n)
	if n > 0 {
		var pin runtime.Pinner
		info = uapi.SyncFileInfo{NumFences: n, SyncFenceInfo: pinned(&pin, fences)}
		err := fdIoctl(c, fd, uapi.IoctlSyncFileInfo, unsafe.Pointer(&info))
		pin.Unpin()
		if err != nil {
			return nil, ioctlError(uapi.IoctlSyncFileInfo, err, fmt.Sprintf("fd %d", fd))
		}
	}
	return &SyncFileStatus{Name: cString(info.Name[:]), Status: info.Status, Fences: fences[:min(int(info.NumFences), len(fences))]}, nil
}

// SyncFileMerge makes a new sync file that signals when both fd1 and fd2
// have (SYNC_IOC_MERGE) and returns its descriptor.
func SyncFileMerge(c uapi.Conn, name string, fd1, fd2 int) (int, error) {
	arg := uapi.SyncMergeData{Fd2: int32(fd2)}
	copy(arg.Name[:len(arg.Name)-1], name)
	if err := fdIoctl(c, fd1, uapi.IoctlSyncMerge, unsafe.Pointer(&arg)); err != nil {
		return -1, ioctlError(uapi.IoctlSyncMerge, err, fmt.Sprintf("fds %d and %d", fd1, fd2))
	}
	return int(arg.Fence), nil
}
