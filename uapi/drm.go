package uapi

import (
	"time"
	"unsafe"
)

// This file is the single Go description of the DRM core and KMS uAPI that
// vccube and its simulated device use: the structs are laid out byte for byte as the C structs of
// include/uapi/drm/drm.h and include/uapi/drm/drm_mode.h, and each request
// number is built from the Go struct's size, so the number follows the
// struct. testdata/uapi-layouts and testdata/abi hold the C layouts on
// amd64, armhf and arm64 that layout_test.go checks every field against.
//
// Go aligns uint64 to 4 bytes on 32-bit ARM where the ARM EABI aligns it to
// 8, so a uint64 after an odd number of 32-bit words needs an explicit
// `_ uint32` (see ModeFbCmd2). Fields named Pad exist in C; fields named _
// exist only to reproduce C's implicit padding.

// Version mirrors struct drm_version, the argument of DRM_IOCTL_VERSION
// (include/uapi/drm/drm.h). The lengths are __kernel_size_t and the buffers
// char*, so they are uintptr here: the struct is 64 bytes on 64-bit targets
// and 36 on 32-bit ARM, as the kernel of each expects.
type Version struct {
	VersionMajor      int32
	VersionMinor      int32
	VersionPatchlevel int32
	NameLen           uintptr // name_len: in, buffer capacity; out, length of the name
	Name              uintptr // name: user pointer to a buffer of NameLen bytes
	DateLen           uintptr // date_len
	Date              uintptr // date
	DescLen           uintptr // desc_len
	Desc              uintptr // desc
}

// GemClose mirrors struct drm_gem_close (drm.h), the argument of
// DRM_IOCTL_GEM_CLOSE.
type GemClose struct {
	Handle uint32
	Pad    uint32
}

// GetCap mirrors struct drm_get_cap (drm.h), the argument of
// DRM_IOCTL_GET_CAP.
type GetCap struct {
	Capability uint64
	Value      uint64 // out
}

// SetClientCap mirrors struct drm_set_client_cap (drm.h), the argument of
// DRM_IOCTL_SET_CLIENT_CAP.
type SetClientCap struct {
	Capability uint64
	Value      uint64
}

// PrimeHandle mirrors struct drm_prime_handle (drm.h), the argument of
// DRM_IOCTL_PRIME_HANDLE_TO_FD and DRM_IOCTL_PRIME_FD_TO_HANDLE.
type PrimeHandle struct {
	Handle uint32
	Flags  uint32 // CloExec and/or ReadWrite, for handle to fd only
	Fd     int32
}

// ModeCardRes mirrors struct drm_mode_card_res (drm_mode.h), the argument
// of DRM_IOCTL_MODE_GETRESOURCES. The *Ptr fields are user pointers to
// arrays of uint32 object ids; the kernel fills at most Count* entries and
// always writes back the real counts (drm_mode_config.c:
// drm_mode_getresources).
type ModeCardRes struct {
	FbIDPtr         uint64 // fb_id_ptr
	CrtcIDPtr       uint64 // crtc_id_ptr
	ConnectorIDPtr  uint64 // connector_id_ptr
	EncoderIDPtr    uint64 // encoder_id_ptr
	CountFbs        uint32
	CountCrtcs      uint32
	CountConnectors uint32
	CountEncoders   uint32
	MinWidth        uint32
	MaxWidth        uint32
	MinHeight       uint32
	MaxHeight       uint32
}

// ModeGetConnector mirrors struct drm_mode_get_connector (drm_mode.h), the
// argument of DRM_IOCTL_MODE_GETCONNECTOR. The kernel fills an array only
// when its Count* is at least the real count, and always writes back the
// real counts; CountModes == 0 from the DRM master forces a probe of the
// connector (drm_connector.c: drm_mode_getconnector).
type ModeGetConnector struct {
	EncodersPtr     uint64 // encoders_ptr: []uint32 encoder ids
	ModesPtr        uint64 // modes_ptr: []ModeModeInfo
	PropsPtr        uint64 // props_ptr: []uint32 property ids
	PropValuesPtr   uint64 // prop_values_ptr: []uint64 property values
	CountModes      uint32
	CountProps      uint32
	CountEncoders   uint32
	EncoderID       uint32 // encoder_id: the encoder currently driving it, or 0
	ConnectorID     uint32 // connector_id: in
	ConnectorType   uint32 // connector_type: a ConnectorType
	ConnectorTypeID uint32 // connector_type_id: the N in "HDMI-A-N"
	Connection      uint32 // a ConnectorStatus
	MmWidth         uint32 // mm_width
	MmHeight        uint32 // mm_height
	Subpixel        uint32
	Pad             uint32
}

// ModeGetEncoder mirrors struct drm_mode_get_encoder (drm_mode.h), the
// argument of DRM_IOCTL_MODE_GETENCODER.
type ModeGetEncoder struct {
	EncoderID      uint32
	EncoderType    uint32 // an EncoderType
	CrtcID         uint32 // the CRTC it is attached to, or 0
	PossibleCrtcs  uint32 // bit i = the i-th CRTC of GETRESOURCES
	PossibleClones uint32
}

// ModeModeInfo mirrors struct drm_mode_modeinfo (drm_mode.h): one display
// mode, as GETCONNECTOR lists them and SETCRTC takes them. Times are in
// pixels (h*) and lines (v*), Clock in kHz.
type ModeModeInfo struct {
	Clock      uint32
	Hdisplay   uint16
	HsyncStart uint16
	HsyncEnd   uint16
	Htotal     uint16
	Hskew      uint16
	Vdisplay   uint16
	VsyncStart uint16
	VsyncEnd   uint16
	Vtotal     uint16
	Vscan      uint16
	Vrefresh   uint32 // Hz, rounded (drm_modes.c: drm_mode_vrefresh)
	Flags      uint32 // ModeFlag* bits
	Type       uint32 // ModeType* bits
	Name       [DisplayModeLen]byte
}

// ModeCrtc mirrors struct drm_mode_crtc (drm_mode.h), the argument of
// DRM_IOCTL_MODE_GETCRTC and DRM_IOCTL_MODE_SETCRTC.
type ModeCrtc struct {
	SetConnectorsPtr uint64 // set_connectors_ptr: []uint32 connector ids (SETCRTC)
	CountConnectors  uint32
	CrtcID           uint32
	FbID             uint32
	X                uint32
	Y                uint32
	GammaSize        uint32
	ModeValid        uint32
	Mode             ModeModeInfo
}

// ModeFbCmd2 mirrors struct drm_mode_fb_cmd2 (drm_mode.h), the argument of
// DRM_IOCTL_MODE_ADDFB2. C puts Modifier at offset 72 on every target; Go
// on 32-bit ARM would put it at 68, hence the explicit padding word.
type ModeFbCmd2 struct {
	FbID        uint32 // out
	Width       uint32
	Height      uint32
	PixelFormat uint32 // a fourcc, e.g. FormatXRGB8888
	Flags       uint32 // FbInterlaced, FbModifiers
	Handles     [4]uint32
	Pitches     [4]uint32
	Offsets     [4]uint32
	_           uint32 // C's implicit padding before the 8-aligned modifier
	Modifier    [4]uint64
}

// ModeCrtcPageFlip mirrors struct drm_mode_crtc_page_flip (drm_mode.h),
// the argument of DRM_IOCTL_MODE_PAGE_FLIP.
type ModeCrtcPageFlip struct {
	CrtcID   uint32
	FbID     uint32
	Flags    uint32 // PageFlipEvent, PageFlipAsync
	Reserved uint32
	UserData uint64 // returned in the flip-complete event
}

// ModeCreateDumb mirrors struct drm_mode_create_dumb (drm_mode.h), the
// argument of DRM_IOCTL_MODE_CREATE_DUMB.
type ModeCreateDumb struct {
	Height uint32
	Width  uint32
	Bpp    uint32
	Flags  uint32
	Handle uint32 // out
	Pitch  uint32 // out
	Size   uint64 // out
}

// ModeMapDumb mirrors struct drm_mode_map_dumb (drm_mode.h), the argument
// of DRM_IOCTL_MODE_MAP_DUMB.
type ModeMapDumb struct {
	Handle uint32
	Pad    uint32
	Offset uint64 // out: the fake offset to pass to Conn.Mmap
}

// ModeDestroyDumb mirrors struct drm_mode_destroy_dumb (drm_mode.h), the
// argument of DRM_IOCTL_MODE_DESTROY_DUMB.
type ModeDestroyDumb struct {
	Handle uint32
}

// SyncobjCreate mirrors struct drm_syncobj_create (drm.h), the argument of
// DRM_IOCTL_SYNCOBJ_CREATE: Flags in, the new syncobj's Handle out.
type SyncobjCreate struct {
	Handle uint32
	Flags  uint32 // SyncobjCreateSignaled
}

// SyncobjDestroy mirrors struct drm_syncobj_destroy (drm.h).
type SyncobjDestroy struct {
	Handle uint32
	Pad    uint32
}

// SyncobjCreateSignaled is DRM_SYNCOBJ_CREATE_SIGNALED (drm.h): the new
// syncobj holds an already signalled fence.
const SyncobjCreateSignaled = 1 << 0

// Event mirrors struct drm_event (drm.h): the header of every record that
// read(2) returns on a DRM fd. Length counts the header.
type Event struct {
	Type   uint32 // EventTypeVblank, EventTypeFlipComplete, ...
	Length uint32
}

// EventVblank mirrors struct drm_event_vblank (drm.h), the record of both
// EventTypeVblank and EventTypeFlipComplete events.
type EventVblank struct {
	Base     Event
	UserData uint64 // the user data of the ioctl that asked for the event
	TvSec    uint32 // tv_sec: time of the vblank (CLOCK_MONOTONIC when CapTimestampMonotonic is 1)
	TvUsec   uint32 // tv_usec
	Sequence uint32 // vblank counter of the CRTC
	CrtcID   uint32 // crtc_id: 0 on kernels without CapCrtcInVblankEvent
}

// IsFlipComplete reports whether the event completes a page flip (else it
// is a vblank event from DRM_IOCTL_WAIT_VBLANK).
func (e *EventVblank) IsFlipComplete() bool { return e.Base.Type == EventTypeFlipComplete }

// Timestamp returns the event's time (tv_sec, tv_usec) as a duration since
// the clock's epoch: CLOCK_MONOTONIC when CapTimestampMonotonic is 1.
func (e *EventVblank) Timestamp() time.Duration {
	return time.Duration(e.TvSec)*time.Second + time.Duration(e.TvUsec)*time.Microsecond
}

// CommandBase is DRM_COMMAND_BASE (drm.h): driver ioctls (such as vc4's)
// are numbered from here.
const CommandBase = 0x40

// Request numbers of the DRM core and KMS ioctls, as the DRM_IOCTL_* macros
// of drm.h build them.
var (
	// IoctlVersion is DRM_IOCTL_VERSION: DRM_IOWR(0x00, struct drm_version).
	IoctlVersion = IOWR(0x00, unsafe.Sizeof(Version{}))
	// IoctlGemClose is DRM_IOCTL_GEM_CLOSE: DRM_IOW(0x09, struct drm_gem_close).
	IoctlGemClose = IOW(0x09, unsafe.Sizeof(GemClose{}))
	// IoctlGetCap is DRM_IOCTL_GET_CAP: DRM_IOWR(0x0c, struct drm_get_cap).
	IoctlGetCap = IOWR(0x0c, unsafe.Sizeof(GetCap{}))
	// IoctlSetClientCap is DRM_IOCTL_SET_CLIENT_CAP: DRM_IOW(0x0d, struct drm_set_client_cap).
	IoctlSetClientCap = IOW(0x0d, unsafe.Sizeof(SetClientCap{}))
	// IoctlSetMaster is DRM_IOCTL_SET_MASTER: DRM_IO(0x1e).
	IoctlSetMaster = IO(0x1e)
	// IoctlDropMaster is DRM_IOCTL_DROP_MASTER: DRM_IO(0x1f).
	IoctlDropMaster = IO(0x1f)
	// IoctlPrimeHandleToFD is DRM_IOCTL_PRIME_HANDLE_TO_FD: DRM_IOWR(0x2d, struct drm_prime_handle).
	IoctlPrimeHandleToFD = IOWR(0x2d, unsafe.Sizeof(PrimeHandle{}))
	// IoctlPrimeFDToHandle is DRM_IOCTL_PRIME_FD_TO_HANDLE: DRM_IOWR(0x2e, struct drm_prime_handle).
	IoctlPrimeFDToHandle = IOWR(0x2e, unsafe.Sizeof(PrimeHandle{}))
	// IoctlModeGetResources is DRM_IOCTL_MODE_GETRESOURCES: DRM_IOWR(0xA0, struct drm_mode_card_res).
	IoctlModeGetResources = IOWR(0xA0, unsafe.Sizeof(ModeCardRes{}))
	// IoctlModeGetCrtc is DRM_IOCTL_MODE_GETCRTC: DRM_IOWR(0xA1, struct drm_mode_crtc).
	IoctlModeGetCrtc = IOWR(0xA1, unsafe.Sizeof(ModeCrtc{}))
	// IoctlModeSetCrtc is DRM_IOCTL_MODE_SETCRTC: DRM_IOWR(0xA2, struct drm_mode_crtc).
	IoctlModeSetCrtc = IOWR(0xA2, unsafe.Sizeof(ModeCrtc{}))
	// IoctlModeGetEncoder is DRM_IOCTL_MODE_GETENCODER: DRM_IOWR(0xA6, struct drm_mode_get_encoder).
	IoctlModeGetEncoder = IOWR(0xA6, unsafe.Sizeof(ModeGetEncoder{}))
	// IoctlModeGetConnector is DRM_IOCTL_MODE_GETCONNECTOR: DRM_IOWR(0xA7, struct drm_mode_get_connector).
	IoctlModeGetConnector = IOWR(0xA7, unsafe.Sizeof(ModeGetConnector{}))
	// IoctlModeRmFB is DRM_IOCTL_MODE_RMFB: DRM_IOWR(0xAF, unsigned int).
	IoctlModeRmFB = IOWR(0xAF, unsafe.Sizeof(uint32(0)))
	// IoctlModePageFlip is DRM_IOCTL_MODE_PAGE_FLIP: DRM_IOWR(0xB0, struct drm_mode_crtc_page_flip).
	IoctlModePageFlip = IOWR(0xB0, unsafe.Sizeof(ModeCrtcPageFlip{}))
	// IoctlModeCreateDumb is DRM_IOCTL_MODE_CREATE_DUMB: DRM_IOWR(0xB2, struct drm_mode_create_dumb).
	IoctlModeCreateDumb = IOWR(0xB2, unsafe.Sizeof(ModeCreateDumb{}))
	// IoctlModeMapDumb is DRM_IOCTL_MODE_MAP_DUMB: DRM_IOWR(0xB3, struct drm_mode_map_dumb).
	IoctlModeMapDumb = IOWR(0xB3, unsafe.Sizeof(ModeMapDumb{}))
	// IoctlModeDestroyDumb is DRM_IOCTL_MODE_DESTROY_DUMB: DRM_IOWR(0xB4, struct drm_mode_destroy_dumb).
	IoctlModeDestroyDumb = IOWR(0xB4, unsafe.Sizeof(ModeDestroyDumb{}))
	// IoctlModeAddFB2 is DRM_IOCTL_MODE_ADDFB2: DRM_IOWR(0xB8, struct drm_mode_fb_cmd2).
	IoctlModeAddFB2 = IOWR(0xB8, unsafe.Sizeof(ModeFbCmd2{}))
	// IoctlSyncobjCreate is DRM_IOCTL_SYNCOBJ_CREATE: DRM_IOWR(0xBF, struct drm_syncobj_create).
	IoctlSyncobjCreate = IOWR(0xBF, unsafe.Sizeof(SyncobjCreate{}))
	// IoctlSyncobjDestroy is DRM_IOCTL_SYNCOBJ_DESTROY: DRM_IOWR(0xC0, struct drm_syncobj_destroy).
	IoctlSyncobjDestroy = IOWR(0xC0, unsafe.Sizeof(SyncobjDestroy{}))
)

// Capabilities for GetCap (DRM_CAP_* in drm.h).
const (
	CapDumbBuffer                = 0x1
	CapVblankHighCrtc            = 0x2
	CapDumbPreferredDepth        = 0x3
	CapDumbPreferShadow          = 0x4
	CapPrime                     = 0x5 // bits PrimeCapImport, PrimeCapExport
	CapTimestampMonotonic        = 0x6
	CapAsyncPageFlip             = 0x7
	CapCursorWidth               = 0x8
	CapCursorHeight              = 0x9
	CapAddFB2Modifiers           = 0x10
	CapPageFlipTarget            = 0x11
	CapCrtcInVblankEvent         = 0x12
	CapSyncobj                   = 0x13
	CapSyncobjTimeline           = 0x14
	CapAtomicAsyncPageFlip       = 0x15 // since Linux 6.8; not in the 6.1 headers of testdata
	PrimeCapImport               = 0x1  // DRM_PRIME_CAP_IMPORT
	PrimeCapExport               = 0x2  // DRM_PRIME_CAP_EXPORT
	ClientCapStereo3D            = 1    // DRM_CLIENT_CAP_STEREO_3D
	ClientCapUniversalPlanes     = 2    // DRM_CLIENT_CAP_UNIVERSAL_PLANES
	ClientCapAtomic              = 3    // DRM_CLIENT_CAP_ATOMIC
	ClientCapAspectRatio         = 4    // DRM_CLIENT_CAP_ASPECT_RATIO
	ClientCapWritebackConnectors = 5    // DRM_CLIENT_CAP_WRITEBACK_CONNECTORS
	ClientCapCursorPlaneHotspot  = 6    // DRM_CLIENT_CAP_CURSOR_PLANE_HOTSPOT, since Linux 6.6
)

// Flags of PrimeHandle.Flags: DRM_CLOEXEC and DRM_RDWR (drm.h), which are
// the open(2) flags O_CLOEXEC and O_RDWR of Linux (the same on every
// architecture vccube targets).
const (
	CloExec   = 0o2000000
	ReadWrite = 0o2
)

// Page-flip flags (DRM_MODE_PAGE_FLIP_* in drm_mode.h).
const (
	PageFlipEvent          = 0x01 // send an EventTypeFlipComplete event when the flip is done
	PageFlipAsync          = 0x02 // flip now, without waiting for vblank (needs CapAsyncPageFlip)
	PageFlipTargetAbsolute = 0x04
	PageFlipTargetRelative = 0x08
)

// Event types (DRM_EVENT_* in drm.h). Types from 0x80000000 up are
// driver-specific.
const (
	EventTypeVblank       = 0x01
	EventTypeFlipComplete = 0x02
	EventTypeCrtcSequence = 0x03
)

// Framebuffer flags for ModeFbCmd2.Flags (drm_mode.h).
const (
	FbInterlaced = 1 << 0 // DRM_MODE_FB_INTERLACED
	FbModifiers  = 1 << 1 // DRM_MODE_FB_MODIFIERS: Modifier[] is meaningful
)

// Mode type bits of ModeModeInfo.Type (DRM_MODE_TYPE_* in drm_mode.h).
const (
	ModeTypeBuiltin   = 1 << 0                 // deprecated
	ModeTypeClockC    = 1<<1 | ModeTypeBuiltin // deprecated
	ModeTypeCrtcC     = 1<<2 | ModeTypeBuiltin // deprecated
	ModeTypePreferred = 1 << 3
	ModeTypeDefault   = 1 << 4 // deprecated
	ModeTypeUserdef   = 1 << 5
	ModeTypeDriver    = 1 << 6
)

// Mode flag bits of ModeModeInfo.Flags (DRM_MODE_FLAG_* in drm_mode.h).
const (
	ModeFlagPHSync    = 1 << 0
	ModeFlagNHSync    = 1 << 1
	ModeFlagPVSync    = 1 << 2
	ModeFlagNVSync    = 1 << 3
	ModeFlagInterlace = 1 << 4
	ModeFlagDblScan   = 1 << 5
	ModeFlagCSync     = 1 << 6
	ModeFlagPCSync    = 1 << 7
	ModeFlagNCSync    = 1 << 8
	ModeFlagHSkew     = 1 << 9
	ModeFlagDblClk    = 1 << 12
	ModeFlagClkDiv2   = 1 << 13
	ModeFlag3DMask    = 0x1f << 14
	ModeFlagPicARMask = 0x0f << 19
)

// DisplayModeLen is DRM_DISPLAY_MODE_LEN (drm_mode.h), the size of
// ModeModeInfo.Name.
const DisplayModeLen = 32

// Pixel formats: fourcc codes of include/uapi/drm/drm_fourcc.h, built by
// Fourcc as the fourcc_code macro does.
const (
	FormatXRGB8888 = uint32('X') | uint32('R')<<8 | uint32('2')<<16 | uint32('4')<<24 // DRM_FORMAT_XRGB8888: [31:0] x:R:G:B 8:8:8:8 little endian
	FormatARGB8888 = uint32('A') | uint32('R')<<8 | uint32('2')<<16 | uint32('4')<<24 // DRM_FORMAT_ARGB8888: [31:0] A:R:G:B 8:8:8:8 little endian
	FormatRGB565   = uint32('R') | uint32('G')<<8 | uint32('1')<<16 | uint32('6')<<24 // DRM_FORMAT_RGB565: [15:0] R:G:B 5:6:5 little endian
)

// Fourcc builds a pixel-format code from its four characters, as the
// fourcc_code macro of drm_fourcc.h does.
func Fourcc(a, b, c, d byte) uint32 {
	return uint32(a) | uint32(b)<<8 | uint32(c)<<16 | uint32(d)<<24
}

// Format modifiers (drm_fourcc.h): bits 63:56 are the vendor, the rest the
// vendor's code (fourcc_mod_code).
const (
	FormatModVendorBroadcom = 0x07
	// FormatModLinear is DRM_FORMAT_MOD_LINEAR: plain row-major pixels.
	FormatModLinear = 0
	// FormatModNone is DRM_FORMAT_MOD_NONE, the deprecated name of FormatModLinear.
	FormatModNone = 0
	// FormatModInvalid is DRM_FORMAT_MOD_INVALID: vendor 0, code 2^56-1.
	FormatModInvalid = 1<<56 - 1
	// FormatModBroadcomVC4TTiled is DRM_FORMAT_MOD_BROADCOM_VC4_T_TILED:
	// the VideoCore IV T-format of 4 KiB tiles (fourcc_mod_code(BROADCOM, 1)).
	FormatModBroadcomVC4TTiled = FormatModVendorBroadcom<<56 | 1
	// FormatModBroadcomSAND64, FormatModBroadcomSAND128 and
	// FormatModBroadcomSAND256 are DRM_FORMAT_MOD_BROADCOM_SANDn, the
	// column layouts of the Pi's video decoder output
	// (fourcc_mod_broadcom_code(3, 0) to (5, 0)); a column height goes in
	// the parameter bits, which FormatModBroadcomMod clears.
	FormatModBroadcomSAND64  = FormatModVendorBroadcom<<56 | 3
	FormatModBroadcomSAND128 = FormatModVendorBroadcom<<56 | 4
	FormatModBroadcomSAND256 = FormatModVendorBroadcom<<56 | 5
)

// A Broadcom modifier's parameter is bits 55:8 (drm_fourcc.h:
// __fourcc_mod_broadcom_param_shift 8, __fourcc_mod_broadcom_param_bits 48).
const (
	formatModBroadcomParamShift = 8
	formatModBroadcomParamBits  = 48
)

// FormatModBroadcomMod returns a Broadcom modifier without its parameter,
// as drm_fourcc.h's fourcc_mod_broadcom_mod does: a SAND128 modifier with
// any column height gives FormatModBroadcomSAND128. Drivers compare
// modifiers this way (vc4_plane.c vc4_format_mod_supported).
func FormatModBroadcomMod(m uint64) uint64 {
	return m &^ ((1<<formatModBroadcomParamBits - 1) << formatModBroadcomParamShift)
}
