package uapi

import "unsafe"

// Planes, properties, property blobs and atomic commits (drm_mode.h), the
// syncobj sync-file ioctls (drm.h) and the sync_file ioctls
// (include/uapi/linux/sync_file.h).

// ModeGetPlaneRes mirrors struct drm_mode_get_plane_res, the argument of
// DRM_IOCTL_MODE_GETPLANERESOURCES: the plane ids.
type ModeGetPlaneRes struct {
	PlaneIDPtr  uint64
	CountPlanes uint32
	_           uint32
}

// ModeGetPlane mirrors struct drm_mode_get_plane, the argument of
// DRM_IOCTL_MODE_GETPLANE.
type ModeGetPlane struct {
	PlaneID          uint32
	CrtcID           uint32
	FbID             uint32
	PossibleCrtcs    uint32 // bit i = the i-th CRTC of GETRESOURCES
	GammaSize        uint32
	CountFormatTypes uint32
	FormatTypePtr    uint64 // __u32 fourccs
}

// ModeObjGetProperties mirrors struct drm_mode_obj_get_properties, the
// argument of DRM_IOCTL_MODE_OBJ_GETPROPERTIES.
type ModeObjGetProperties struct {
	PropsPtr      uint64 // __u32 property ids
	PropValuesPtr uint64 // __u64 values
	CountProps    uint32
	ObjID         uint32
	ObjType       uint32 // ObjectCrtc, ... or ObjectAny
	_             uint32
}

// ModeObjSetProperty mirrors struct drm_mode_obj_set_property, the
// argument of DRM_IOCTL_MODE_OBJ_SETPROPERTY.
type ModeObjSetProperty struct {
	Value   uint64
	PropID  uint32
	ObjID   uint32
	ObjType uint32
	_       uint32
}

// ModeGetProperty mirrors struct drm_mode_get_property, the argument of
// DRM_IOCTL_MODE_GETPROPERTY: a property's name, flags, values (a range's
// bounds, an object property's object type, an enum's values) and, for
// enum and bitmask properties, its ModePropertyEnum entries.
type ModeGetProperty struct {
	ValuesPtr      uint64 // __u64 values
	EnumBlobPtr    uint64 // struct drm_mode_property_enum entries
	PropID         uint32
	Flags          uint32 // PropRange, ..., PropAtomic
	Name           [PropNameLen]byte
	CountValues    uint32
	CountEnumBlobs uint32
}

// ModePropertyEnum mirrors struct drm_mode_property_enum: one named value
// of an enum or bitmask property (for a bitmask, Value is a bit number).
type ModePropertyEnum struct {
	Value uint64
	Name  [PropNameLen]byte
}

// ModeGetBlob mirrors struct drm_mode_get_blob, the argument of
// DRM_IOCTL_MODE_GETPROPBLOB.
type ModeGetBlob struct {
	BlobID uint32
	Length uint32
	Data   uint64
}

// ModeCreateBlob mirrors struct drm_mode_create_blob, the argument of
// DRM_IOCTL_MODE_CREATEPROPBLOB.
type ModeCreateBlob struct {
	Data   uint64
	Length uint32
	BlobID uint32
}

// ModeDestroyBlob mirrors struct drm_mode_destroy_blob, the argument of
// DRM_IOCTL_MODE_DESTROYPROPBLOB.
type ModeDestroyBlob struct {
	BlobID uint32
}

// ModeAtomic mirrors struct drm_mode_atomic, the argument of
// DRM_IOCTL_MODE_ATOMIC: CountObjs objects (ObjsPtr, __u32 ids), each
// with its number of properties (CountPropsPtr, __u32), then all the
// property ids (PropsPtr, __u32) and values (PropValuesPtr, __u64) in
// the same order.
type ModeAtomic struct {
	Flags         uint32 // PageFlipEvent, PageFlipAsync, AtomicTestOnly, AtomicNonblock, AtomicAllowModeset
	CountObjs     uint32
	ObjsPtr       uint64
	CountPropsPtr uint64
	PropsPtr      uint64
	PropValuesPtr uint64
	Reserved      uint64
	UserData      uint64 // the flip-complete events' user data
}

// FormatModifierBlob mirrors struct drm_format_modifier_blob, the header
// of a plane's IN_FORMATS blob: CountFormats __u32 fourccs at
// FormatsOffset and CountModifiers FormatModifier entries at
// ModifiersOffset, both from the blob's start.
type FormatModifierBlob struct {
	Version         uint32 // FormatBlobCurrent
	Flags           uint32
	CountFormats    uint32
	FormatsOffset   uint32
	CountModifiers  uint32
	ModifiersOffset uint32
}

// FormatModifier mirrors struct drm_format_modifier: bit i of Formats says
// that format Offset+i of the blob supports Modifier.
type FormatModifier struct {
	Formats  uint64
	Offset   uint32
	Pad      uint32
	Modifier uint64
}

// SyncobjHandle mirrors struct drm_syncobj_handle (drm.h, as of Linux
// 6.1: the later timeline "point" field is not in it, and the kernel
// zero-fills what a shorter caller leaves out), the argument of
// DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD and FD_TO_HANDLE.
type SyncobjHandle struct {
	Handle uint32
	Flags  uint32 // SyncobjHandleToFdExportSyncFile or SyncobjFdToHandleImportSyncFile
	Fd     int32
	Pad    uint32
}

// SyncMergeData mirrors struct sync_merge_data (linux/sync_file.h), the
// argument of SYNC_IOC_MERGE: the merged file's Name and the other file
// Fd2 in, the new file's descriptor Fence out.
type SyncMergeData struct {
	Name  [32]byte
	Fd2   int32
	Fence int32
	Flags uint32
	Pad   uint32
}

// SyncFileInfo mirrors struct sync_file_info (linux/sync_file.h), the
// argument of SYNC_IOC_FILE_INFO: with NumFences 0 the kernel only counts
// the fences; otherwise it writes that many SyncFenceInfo records at
// SyncFenceInfo.
type SyncFileInfo struct {
	Name          [32]byte
	Status        int32 // 1 signalled, 0 active, negative an error
	Flags         uint32
	NumFences     uint32
	Pad           uint32
	SyncFenceInfo uint64
}

// SyncFenceInfo mirrors struct sync_fence_info (linux/sync_file.h): one
// fence of a sync file.
type SyncFenceInfo struct {
	ObjName     [32]byte // the fence's timeline
	DriverName  [32]byte
	Status      int32
	Flags       uint32
	TimestampNs uint64 // when it signalled (CLOCK_MONOTONIC), 0 while active
}

// PropNameLen is DRM_PROP_NAME_LEN (drm_mode.h).
const PropNameLen = 32

// Atomic commit flags (drm_mode.h), besides PageFlipEvent and
// PageFlipAsync.
const (
	AtomicTestOnly     = 0x0100 // DRM_MODE_ATOMIC_TEST_ONLY: check, change nothing
	AtomicNonblock     = 0x0200 // DRM_MODE_ATOMIC_NONBLOCK: return before the commit lands
	AtomicAllowModeset = 0x0400 // DRM_MODE_ATOMIC_ALLOW_MODESET
	// AtomicFlags is DRM_MODE_ATOMIC_FLAGS: every flag ATOMIC knows.
	AtomicFlags = PageFlipEvent | PageFlipAsync | AtomicTestOnly | AtomicNonblock | AtomicAllowModeset
)

// Property flags (DRM_MODE_PROP_* in drm_mode.h). The type is one of the
// legacy bits (Range, Enum, Blob, Bitmask) or an extended type in bits
// 6-15 (Object, SignedRange).
const (
	PropPending      = 1 << 0 // deprecated, never set
	PropRange        = 1 << 1
	PropImmutable    = 1 << 2
	PropEnum         = 1 << 3 // the value is one of the enum values
	PropBlob         = 1 << 4
	PropBitmask      = 1 << 5 // the value is a mask of the enum bits
	PropLegacyType   = PropRange | PropEnum | PropBlob | PropBitmask
	PropExtendedType = 0x0000ffc0
	PropObject       = 1 << 6 // DRM_MODE_PROP_TYPE(1): the value is an object id
	PropSignedRange  = 2 << 6 // DRM_MODE_PROP_TYPE(2)
	PropAtomic       = 0x80000000
)

// Object types (DRM_MODE_OBJECT_* in drm_mode.h).
const (
	ObjectCrtc      = 0xcccccccc
	ObjectConnector = 0xc0c0c0c0
	ObjectEncoder   = 0xe0e0e0e0
	ObjectMode      = 0xdededede
	ObjectProperty  = 0xb0b0b0b0
	ObjectFB        = 0xfbfbfbfb
	ObjectBlob      = 0xbbbbbbbb
	ObjectPlane     = 0xeeeeeeee
	ObjectAny       = 0
)

// Plane types, the values of a plane's "type" property (libdrm's
// xf86drmMode.h DRM_PLANE_TYPE_*, the kernel's enum drm_plane_type).
const (
	PlaneTypeOverlay = 0
	PlaneTypePrimary = 1
	PlaneTypeCursor  = 2
)

// Rotation bits of the "rotation" property (DRM_MODE_ROTATE_* and
// DRM_MODE_REFLECT_* in drm_mode.h).
const (
	Rotate0    = 1 << 0
	Rotate90   = 1 << 1
	Rotate180  = 1 << 2
	Rotate270  = 1 << 3
	RotateMask = Rotate0 | Rotate90 | Rotate180 | Rotate270
	ReflectX   = 1 << 4
	ReflectY   = 1 << 5
)

// DPMS states, the values of a connector's "DPMS" property
// (DRM_MODE_DPMS_* in drm_mode.h).
const (
	DPMSOn      = 0
	DPMSStandby = 1
	DPMSSuspend = 2
	DPMSOff     = 3
)

// Link states, the values of a connector's "link-status" property
// (DRM_MODE_LINK_STATUS_* in drm_mode.h).
const (
	LinkStatusGood = 0
	LinkStatusBad  = 1
)

// FormatBlobCurrent is FORMAT_BLOB_CURRENT (drm_mode.h), the version of
// an IN_FORMATS blob.
const FormatBlobCurrent = 1

// Syncobj sync-file flags (drm.h).
const (
	// SyncobjFdToHandleImportSyncFile is
	// DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE: FD_TO_HANDLE puts
	// the fence of sync file Fd into syncobj Handle.
	SyncobjFdToHandleImportSyncFile = 1 << 0
	// SyncobjHandleToFdExportSyncFile is
	// DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE: HANDLE_TO_FD makes
	// a sync file of the syncobj's fence.
	SyncobjHandleToFdExportSyncFile = 1 << 0
)

// syncIoctlType is SYNC_IOC_MAGIC, '>' (linux/sync_file.h).
const syncIoctlType = '>'

// Request numbers of the atomic, plane, property and syncobj sync-file
// ioctls (drm.h), and of the sync_file ioctls (linux/sync_file.h).
var (
	// IoctlModeGetProperty is DRM_IOCTL_MODE_GETPROPERTY: DRM_IOWR(0xAA, struct drm_mode_get_property).
	IoctlModeGetProperty = IOWR(0xAA, unsafe.Sizeof(ModeGetProperty{}))
	// IoctlModeGetPropBlob is DRM_IOCTL_MODE_GETPROPBLOB: DRM_IOWR(0xAC, struct drm_mode_get_blob).
	IoctlModeGetPropBlob = IOWR(0xAC, unsafe.Sizeof(ModeGetBlob{}))
	// IoctlModeGetPlaneResources is DRM_IOCTL_MODE_GETPLANERESOURCES: DRM_IOWR(0xB5, struct drm_mode_get_plane_res).
	IoctlModeGetPlaneResources = IOWR(0xB5, unsafe.Sizeof(ModeGetPlaneRes{}))
	// IoctlModeGetPlane is DRM_IOCTL_MODE_GETPLANE: DRM_IOWR(0xB6, struct drm_mode_get_plane).
	IoctlModeGetPlane = IOWR(0xB6, unsafe.Sizeof(ModeGetPlane{}))
	// IoctlModeObjGetProperties is DRM_IOCTL_MODE_OBJ_GETPROPERTIES: DRM_IOWR(0xB9, struct drm_mode_obj_get_properties).
	IoctlModeObjGetProperties = IOWR(0xB9, unsafe.Sizeof(ModeObjGetProperties{}))
	// IoctlModeObjSetProperty is DRM_IOCTL_MODE_OBJ_SETPROPERTY: DRM_IOWR(0xBA, struct drm_mode_obj_set_property).
	IoctlModeObjSetProperty = IOWR(0xBA, unsafe.Sizeof(ModeObjSetProperty{}))
	// IoctlModeAtomic is DRM_IOCTL_MODE_ATOMIC: DRM_IOWR(0xBC, struct drm_mode_atomic).
	IoctlModeAtomic = IOWR(0xBC, unsafe.Sizeof(ModeAtomic{}))
	// IoctlModeCreatePropBlob is DRM_IOCTL_MODE_CREATEPROPBLOB: DRM_IOWR(0xBD, struct drm_mode_create_blob).
	IoctlModeCreatePropBlob = IOWR(0xBD, unsafe.Sizeof(ModeCreateBlob{}))
	// IoctlModeDestroyPropBlob is DRM_IOCTL_MODE_DESTROYPROPBLOB: DRM_IOWR(0xBE, struct drm_mode_destroy_blob).
	IoctlModeDestroyPropBlob = IOWR(0xBE, unsafe.Sizeof(ModeDestroyBlob{}))
	// IoctlSyncobjHandleToFD is DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD: DRM_IOWR(0xC1, struct drm_syncobj_handle).
	IoctlSyncobjHandleToFD = IOWR(0xC1, unsafe.Sizeof(SyncobjHandle{}))
	// IoctlSyncobjFDToHandle is DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE: DRM_IOWR(0xC2, struct drm_syncobj_handle).
	IoctlSyncobjFDToHandle = IOWR(0xC2, unsafe.Sizeof(SyncobjHandle{}))

	// IoctlSyncMerge is SYNC_IOC_MERGE: _IOWR('>', 3, struct sync_merge_data).
	IoctlSyncMerge = Request(uint32(iocWrite|iocRead)<<30 | uint32(unsafe.Sizeof(SyncMergeData{}))<<16 | syncIoctlType<<8 | 3)
	// IoctlSyncFileInfo is SYNC_IOC_FILE_INFO: _IOWR('>', 4, struct sync_file_info).
	IoctlSyncFileInfo = Request(uint32(iocWrite|iocRead)<<30 | uint32(unsafe.Sizeof(SyncFileInfo{}))<<16 | syncIoctlType<<8 | 4)
)

// FdIoctler is implemented by a Conn whose device hands the program other
// descriptors than its own (sync files: an atomic commit's out-fence, a
// syncobj's exported fence) and answers ioctls on them itself, as the
// simulated device does for the sync files it makes. A Conn on a real
// device file (drm.File) runs them with ioctl(2) on the descriptor.
type FdIoctler interface {
	// FdIoctl runs request req with argument arg (laid out as req's
	// struct, pinned by the caller as for Conn.Ioctl) on descriptor fd of
	// this process.
	FdIoctl(fd int, req Request, arg unsafe.Pointer) error
}
