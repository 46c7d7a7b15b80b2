package uapi_test

import (
	"reflect"
	"runtime"
	"testing"
	"unsafe"

	"github.com/vccube/vccube/uapi"
	"github.com/vccube/vccube/uapi/internal/ctable"
)

// The tests of this file run on amd64 and, through .ci/cross-test, on
// GOARCH=arm GOARM=6 and GOARCH=arm64 under qemu-user.

func TestStructLayoutsMatchC(t *testing.T) {
	ctable.CheckStructs(t, ctable.MustLoadLayout(t, "testdata"), map[string]any{
		"drm_version":                 uapi.Version{},
		"drm_gem_close":               uapi.GemClose{},
		"drm_get_cap":                 uapi.GetCap{},
		"drm_set_client_cap":          uapi.SetClientCap{},
		"drm_prime_handle":            uapi.PrimeHandle{},
		"drm_mode_card_res":           uapi.ModeCardRes{},
		"drm_mode_get_connector":      uapi.ModeGetConnector{},
		"drm_mode_get_encoder":        uapi.ModeGetEncoder{},
		"drm_mode_modeinfo":           uapi.ModeModeInfo{},
		"drm_mode_crtc":               uapi.ModeCrtc{},
		"drm_mode_fb_cmd2":            uapi.ModeFbCmd2{},
		"drm_mode_crtc_page_flip":     uapi.ModeCrtcPageFlip{},
		"drm_mode_create_dumb":        uapi.ModeCreateDumb{},
		"drm_mode_map_dumb":           uapi.ModeMapDumb{},
		"drm_mode_destroy_dumb":       uapi.ModeDestroyDumb{},
		"drm_event":                   uapi.Event{},
		"drm_event_vblank":            uapi.EventVblank{},
		"drm_syncobj_create":          uapi.SyncobjCreate{},
		"drm_syncobj_destroy":         uapi.SyncobjDestroy{},
		"drm_syncobj_handle":          uapi.SyncobjHandle{},
		"drm_mode_get_plane_res":      uapi.ModeGetPlaneRes{},
		"drm_mode_get_plane":          uapi.ModeGetPlane{},
		"drm_mode_obj_get_properties": uapi.ModeObjGetProperties{},
		"drm_mode_obj_set_property":   uapi.ModeObjSetProperty{},
		"drm_mode_get_property":       uapi.ModeGetProperty{},
		"drm_mode_property_enum":      uapi.ModePropertyEnum{},
		"drm_mode_get_blob":           uapi.ModeGetBlob{},
		"drm_mode_create_blob":        uapi.ModeCreateBlob{},
		"drm_mode_destroy_blob":       uapi.ModeDestroyBlob{},
		"drm_mode_atomic":             uapi.ModeAtomic{},
		"drm_format_modifier_blob":    uapi.FormatModifierBlob{},
		"drm_format_modifier":         uapi.FormatModifier{},
		"sync_merge_data":             uapi.SyncMergeData{},
		"sync_file_info":              uapi.SyncFileInfo{},
		"sync_fence_info":             uapi.SyncFenceInfo{},
	})
}

// TestNativeWidthVersion pins the two layouts of struct drm_version that
// doc/kernel.md#struct-layouts names (size_t and pointer fields: 36 bytes
// on 32-bit ARM, 64 on 64-bit), independently of the table.
func TestNativeWidthVersion(t *testing.T) {
	want := map[string]uint32{"amd64": 64, "arm64": 64, "arm": 36}[runtime.GOARCH]
	if got := uapi.IoctlVersion.Size(); got != want {
		t.Errorf("DRM_IOCTL_VERSION carries %d bytes on %s, want %d", got, runtime.GOARCH, want)
	}
}

// TestILP32LayoutsMatchArmhf checks the 32-bit program's layouts
// (Version32, IoctlVersion32, IoctlWaitVblank32), whatever the GOARCH,
// against the armhf C tables, and that every other struct of that table
// is laid out as on arm64: the structs a 32-bit program on the simulated
// device needs no translation for.
func TestILP32LayoutsMatchArmhf(t *testing.T) {
	armhf, err := ctable.LoadLayout("testdata/uapi-layouts/armhf.txt", "testdata/abi/armhf.txt")
	if err != nil {
		t.Fatal(err)
	}
	arm64, err := ctable.LoadLayout("testdata/uapi-layouts/arm64.txt", "testdata/abi/arm64.txt")
	if err != nil {
		t.Fatal(err)
	}
	ctable.CheckStruct(t, armhf, "drm_version", reflect.TypeOf(uapi.Version32{}))
	names := map[uapi.Request]string{uapi.IoctlVersion32: "DRM_IOCTL_VERSION", uapi.IoctlWaitVblank32: "DRM_IOCTL_WAIT_VBLANK"}
	ctable.CheckRequests(t, armhf, map[string]uapi.Request{
		"DRM_IOCTL_VERSION":     uapi.IoctlVersion32,
		"DRM_IOCTL_WAIT_VBLANK": uapi.IoctlWaitVblank32,
	}, func(r uapi.Request) string { return names[r] })
	if got := unsafe.Sizeof(uapi.WaitVblank32{}); got != 16 {
		t.Errorf("WaitVblank32 is %d bytes, want 16 (DRM_IOCTL_WAIT_VBLANK 0xc010643a)", got)
	}
	translated := map[string]bool{"drm_version": true, "DRM_IOCTL_VERSION": true, "DRM_IOCTL_WAIT_VBLANK": true}
	for name, c := range armhf.Structs {
		if translated[name] {
			continue
		}
		if d := arm64.Structs[name]; d == nil || !reflect.DeepEqual(c, d) {
			t.Errorf("%s differs between armhf and arm64, and nothing translates it for a 32-bit program", name)
		}
	}
	for name, v := range armhf.Ioctls {
		if !translated[name] && arm64.Ioctls[name] != v {
			t.Errorf("%s is 0x%08x on armhf, 0x%08x on arm64, and nothing translates it", name, v, arm64.Ioctls[name])
		}
	}
}

func TestRequestNumbersMatchC(t *testing.T) {
	ctable.CheckRequests(t, ctable.MustLoadLayout(t, "testdata"), map[string]uapi.Request{
		"DRM_IOCTL_VERSION":                uapi.IoctlVersion,
		"DRM_IOCTL_WAIT_VBLANK":            uapi.IoctlWaitVblank,
		"DRM_IOCTL_GEM_CLOSE":              uapi.IoctlGemClose,
		"DRM_IOCTL_GET_CAP":                uapi.IoctlGetCap,
		"DRM_IOCTL_SET_CLIENT_CAP":         uapi.IoctlSetClientCap,
		"DRM_IOCTL_SET_MASTER":             uapi.IoctlSetMaster,
		"DRM_IOCTL_DROP_MASTER":            uapi.IoctlDropMaster,
		"DRM_IOCTL_PRIME_HANDLE_TO_FD":     uapi.IoctlPrimeHandleToFD,
		"DRM_IOCTL_PRIME_FD_TO_HANDLE":     uapi.IoctlPrimeFDToHandle,
		"DRM_IOCTL_MODE_GETRESOURCES":      uapi.IoctlModeGetResources,
		"DRM_IOCTL_MODE_GETCRTC":           uapi.IoctlModeGetCrtc,
		"DRM_IOCTL_MODE_SETCRTC":           uapi.IoctlModeSetCrtc,
		"DRM_IOCTL_MODE_GETENCODER":        uapi.IoctlModeGetEncoder,
		"DRM_IOCTL_MODE_GETCONNECTOR":      uapi.IoctlModeGetConnector,
		"DRM_IOCTL_MODE_ADDFB2":            uapi.IoctlModeAddFB2,
		"DRM_IOCTL_MODE_RMFB":              uapi.IoctlModeRmFB,
		"DRM_IOCTL_MODE_PAGE_FLIP":         uapi.IoctlModePageFlip,
		"DRM_IOCTL_MODE_CREATE_DUMB":       uapi.IoctlModeCreateDumb,
		"DRM_IOCTL_MODE_MAP_DUMB":          uapi.IoctlModeMapDumb,
		"DRM_IOCTL_MODE_DESTROY_DUMB":      uapi.IoctlModeDestroyDumb,
		"DRM_IOCTL_SYNCOBJ_CREATE":         uapi.IoctlSyncobjCreate,
		"DRM_IOCTL_SYNCOBJ_DESTROY":        uapi.IoctlSyncobjDestroy,
		"DRM_IOCTL_MODE_GETPROPERTY":       uapi.IoctlModeGetProperty,
		"DRM_IOCTL_MODE_GETPROPBLOB":       uapi.IoctlModeGetPropBlob,
		"DRM_IOCTL_MODE_GETPLANERESOURCES": uapi.IoctlModeGetPlaneResources,
		"DRM_IOCTL_MODE_GETPLANE":          uapi.IoctlModeGetPlane,
		"DRM_IOCTL_MODE_OBJ_GETPROPERTIES": uapi.IoctlModeObjGetProperties,
		"DRM_IOCTL_MODE_OBJ_SETPROPERTY":   uapi.IoctlModeObjSetProperty,
		"DRM_IOCTL_MODE_ATOMIC":            uapi.IoctlModeAtomic,
		"DRM_IOCTL_MODE_CREATEPROPBLOB":    uapi.IoctlModeCreatePropBlob,
		"DRM_IOCTL_MODE_DESTROYPROPBLOB":   uapi.IoctlModeDestroyPropBlob,
		"DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD":   uapi.IoctlSyncobjHandleToFD,
		"DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE":   uapi.IoctlSyncobjFDToHandle,
		"SYNC_IOC_MERGE":                   uapi.IoctlSyncMerge,
		"SYNC_IOC_FILE_INFO":               uapi.IoctlSyncFileInfo,
	}, uapi.IoctlName)
}

func TestConstantsMatchC(t *testing.T) {
	l := ctable.MustLoadLayout(t, "testdata")
	ctable.CheckConsts(t, l, map[string]uint64{
		"DRM_COMMAND_BASE":                                uapi.CommandBase,
		"DRM_CAP_DUMB_BUFFER":                             uapi.CapDumbBuffer,
		"DRM_CAP_VBLANK_HIGH_CRTC":                        uapi.CapVblankHighCrtc,
		"DRM_CAP_DUMB_PREFERRED_DEPTH":                    uapi.CapDumbPreferredDepth,
		"DRM_CAP_DUMB_PREFER_SHADOW":                      uapi.CapDumbPreferShadow,
		"DRM_CAP_PRIME":                                   uapi.CapPrime,
		"DRM_PRIME_CAP_IMPORT":                            uapi.PrimeCapImport,
		"DRM_PRIME_CAP_EXPORT":                            uapi.PrimeCapExport,
		"DRM_CAP_TIMESTAMP_MONOTONIC":                     uapi.CapTimestampMonotonic,
		"DRM_CAP_ASYNC_PAGE_FLIP":                         uapi.CapAsyncPageFlip,
		"DRM_CAP_CURSOR_WIDTH":                            uapi.CapCursorWidth,
		"DRM_CAP_CURSOR_HEIGHT":                           uapi.CapCursorHeight,
		"DRM_CAP_ADDFB2_MODIFIERS":                        uapi.CapAddFB2Modifiers,
		"DRM_CAP_PAGE_FLIP_TARGET":                        uapi.CapPageFlipTarget,
		"DRM_CAP_CRTC_IN_VBLANK_EVENT":                    uapi.CapCrtcInVblankEvent,
		"DRM_CAP_SYNCOBJ":                                 uapi.CapSyncobj,
		"DRM_SYNCOBJ_CREATE_SIGNALED":                     uapi.SyncobjCreateSignaled,
		"DRM_CAP_SYNCOBJ_TIMELINE":                        uapi.CapSyncobjTimeline,
		"DRM_CLIENT_CAP_STEREO_3D":                        uapi.ClientCapStereo3D,
		"DRM_CLIENT_CAP_UNIVERSAL_PLANES":                 uapi.ClientCapUniversalPlanes,
		"DRM_CLIENT_CAP_ATOMIC":                           uapi.ClientCapAtomic,
		"DRM_CLIENT_CAP_ASPECT_RATIO":                     uapi.ClientCapAspectRatio,
		"DRM_CLIENT_CAP_WRITEBACK_CONNECTORS":             uapi.ClientCapWritebackConnectors,
		"DRM_CLOEXEC":                                     uapi.CloExec,
		"DRM_RDWR":                                        uapi.ReadWrite,
		"DRM_EVENT_VBLANK":                                uapi.EventTypeVblank,
		"DRM_EVENT_FLIP_COMPLETE":                         uapi.EventTypeFlipComplete,
		"DRM_EVENT_CRTC_SEQUENCE":                         uapi.EventTypeCrtcSequence,
		"DRM_DISPLAY_MODE_LEN":                            uapi.DisplayModeLen,
		"DRM_MODE_PAGE_FLIP_EVENT":                        uapi.PageFlipEvent,
		"DRM_MODE_PAGE_FLIP_ASYNC":                        uapi.PageFlipAsync,
		"DRM_MODE_PAGE_FLIP_TARGET_ABSOLUTE":              uapi.PageFlipTargetAbsolute,
		"DRM_MODE_PAGE_FLIP_TARGET_RELATIVE":              uapi.PageFlipTargetRelative,
		"DRM_MODE_FB_INTERLACED":                          uapi.FbInterlaced,
		"DRM_MODE_FB_MODIFIERS":                           uapi.FbModifiers,
		"DRM_MODE_TYPE_BUILTIN":                           uapi.ModeTypeBuiltin,
		"DRM_MODE_TYPE_CLOCK_C":                           uapi.ModeTypeClockC,
		"DRM_MODE_TYPE_CRTC_C":                            uapi.ModeTypeCrtcC,
		"DRM_MODE_TYPE_PREFERRED":                         uapi.ModeTypePreferred,
		"DRM_MODE_TYPE_DEFAULT":                           uapi.ModeTypeDefault,
		"DRM_MODE_TYPE_USERDEF":                           uapi.ModeTypeUserdef,
		"DRM_MODE_TYPE_DRIVER":                            uapi.ModeTypeDriver,
		"DRM_MODE_FLAG_PHSYNC":                            uapi.ModeFlagPHSync,
		"DRM_MODE_FLAG_NHSYNC":                            uapi.ModeFlagNHSync,
		"DRM_MODE_FLAG_PVSYNC":                            uapi.ModeFlagPVSync,
		"DRM_MODE_FLAG_NVSYNC":                            uapi.ModeFlagNVSync,
		"DRM_MODE_FLAG_INTERLACE":                         uapi.ModeFlagInterlace,
		"DRM_MODE_FLAG_DBLSCAN":                           uapi.ModeFlagDblScan,
		"DRM_MODE_FLAG_CSYNC":                             uapi.ModeFlagCSync,
		"DRM_MODE_FLAG_PCSYNC":                            uapi.ModeFlagPCSync,
		"DRM_MODE_FLAG_NCSYNC":                            uapi.ModeFlagNCSync,
		"DRM_MODE_FLAG_HSKEW":                             uapi.ModeFlagHSkew,
		"DRM_MODE_FLAG_DBLCLK":                            uapi.ModeFlagDblClk,
		"DRM_MODE_FLAG_CLKDIV2":                           uapi.ModeFlagClkDiv2,
		"DRM_MODE_FLAG_3D_MASK":                           uapi.ModeFlag3DMask,
		"DRM_MODE_FLAG_PIC_AR_MASK":                       uapi.ModeFlagPicARMask,
		"DRM_MODE_CONNECTOR_Unknown":                      uint64(uapi.ConnectorUnknown),
		"DRM_MODE_CONNECTOR_VGA":                          uint64(uapi.ConnectorVGA),
		"DRM_MODE_CONNECTOR_DVII":                         uint64(uapi.ConnectorDVII),
		"DRM_MODE_CONNECTOR_DVID":                         uint64(uapi.ConnectorDVID),
		"DRM_MODE_CONNECTOR_DVIA":                         uint64(uapi.ConnectorDVIA),
		"DRM_MODE_CONNECTOR_Composite":                    uint64(uapi.ConnectorComposite),
		"DRM_MODE_CONNECTOR_SVIDEO":                       uint64(uapi.ConnectorSVideo),
		"DRM_MODE_CONNECTOR_LVDS":                         uint64(uapi.ConnectorLVDS),
		"DRM_MODE_CONNECTOR_Component":                    uint64(uapi.ConnectorComponent),
		"DRM_MODE_CONNECTOR_9PinDIN":                      uint64(uapi.Connector9PinDIN),
		"DRM_MODE_CONNECTOR_DisplayPort":                  uint64(uapi.ConnectorDisplayPort),
		"DRM_MODE_CONNECTOR_HDMIA":                        uint64(uapi.ConnectorHDMIA),
		"DRM_MODE_CONNECTOR_HDMIB":                        uint64(uapi.ConnectorHDMIB),
		"DRM_MODE_CONNECTOR_TV":                           uint64(uapi.ConnectorTV),
		"DRM_MODE_CONNECTOR_eDP":                          uint64(uapi.ConnectorEDP),
		"DRM_MODE_CONNECTOR_VIRTUAL":                      uint64(uapi.ConnectorVirtual),
		"DRM_MODE_CONNECTOR_DSI":                          uint64(uapi.ConnectorDSI),
		"DRM_MODE_CONNECTOR_DPI":                          uint64(uapi.ConnectorDPI),
		"DRM_MODE_CONNECTOR_WRITEBACK":                    uint64(uapi.ConnectorWriteback),
		"DRM_MODE_CONNECTOR_SPI":                          uint64(uapi.ConnectorSPI),
		"DRM_MODE_CONNECTOR_USB":                          uint64(uapi.ConnectorUSB),
		"DRM_MODE_ENCODER_NONE":                           uint64(uapi.EncoderNone),
		"DRM_MODE_ENCODER_DAC":                            uint64(uapi.EncoderDAC),
		"DRM_MODE_ENCODER_TMDS":                           uint64(uapi.EncoderTMDS),
		"DRM_MODE_ENCODER_LVDS":                           uint64(uapi.EncoderLVDS),
		"DRM_MODE_ENCODER_TVDAC":                          uint64(uapi.EncoderTVDAC),
		"DRM_MODE_ENCODER_VIRTUAL":                        uint64(uapi.EncoderVirtual),
		"DRM_MODE_ENCODER_DSI":                            uint64(uapi.EncoderDSI),
		"DRM_MODE_ENCODER_DPMST":                          uint64(uapi.EncoderDPMST),
		"DRM_MODE_ENCODER_DPI":                            uint64(uapi.EncoderDPI),
		"DRM_FORMAT_XRGB8888":                             uint64(uapi.FormatXRGB8888),
		"DRM_FORMAT_ARGB8888":                             uint64(uapi.FormatARGB8888),
		"DRM_FORMAT_RGB565":                               uint64(uapi.FormatRGB565),
		"DRM_FORMAT_MOD_VENDOR_BROADCOM":                  uapi.FormatModVendorBroadcom,
		"DRM_FORMAT_MOD_LINEAR":                           uapi.FormatModLinear,
		"DRM_FORMAT_MOD_NONE":                             uapi.FormatModNone,
		"DRM_FORMAT_MOD_INVALID":                          uapi.FormatModInvalid,
		"DRM_FORMAT_MOD_BROADCOM_VC4_T_TILED":             uapi.FormatModBroadcomVC4TTiled,
		"DRM_FORMAT_MOD_BROADCOM_SAND64":                  uapi.FormatModBroadcomSAND64,
		"DRM_FORMAT_MOD_BROADCOM_SAND128":                 uapi.FormatModBroadcomSAND128,
		"DRM_FORMAT_MOD_BROADCOM_SAND256":                 uapi.FormatModBroadcomSAND256,
		"DRM_PROP_NAME_LEN":                               uapi.PropNameLen,
		"DRM_MODE_ATOMIC_TEST_ONLY":                       uapi.AtomicTestOnly,
		"DRM_MODE_ATOMIC_NONBLOCK":                        uapi.AtomicNonblock,
		"DRM_MODE_ATOMIC_ALLOW_MODESET":                   uapi.AtomicAllowModeset,
		"DRM_MODE_ATOMIC_FLAGS":                           uapi.AtomicFlags,
		"DRM_MODE_PROP_PENDING":                           uapi.PropPending,
		"DRM_MODE_PROP_RANGE":                             uapi.PropRange,
		"DRM_MODE_PROP_IMMUTABLE":                         uapi.PropImmutable,
		"DRM_MODE_PROP_ENUM":                              uapi.PropEnum,
		"DRM_MODE_PROP_BLOB":                              uapi.PropBlob,
		"DRM_MODE_PROP_BITMASK":                           uapi.PropBitmask,
		"DRM_MODE_PROP_LEGACY_TYPE":                       uapi.PropLegacyType,
		"DRM_MODE_PROP_EXTENDED_TYPE":                     uapi.PropExtendedType,
		"DRM_MODE_PROP_OBJECT":                            uapi.PropObject,
		"DRM_MODE_PROP_SIGNED_RANGE":                      uapi.PropSignedRange,
		"DRM_MODE_PROP_ATOMIC":                            uapi.PropAtomic,
		"DRM_MODE_OBJECT_CRTC":                            uapi.ObjectCrtc,
		"DRM_MODE_OBJECT_CONNECTOR":                       uapi.ObjectConnector,
		"DRM_MODE_OBJECT_ENCODER":                         uapi.ObjectEncoder,
		"DRM_MODE_OBJECT_MODE":                            uapi.ObjectMode,
		"DRM_MODE_OBJECT_PROPERTY":                        uapi.ObjectProperty,
		"DRM_MODE_OBJECT_FB":                              uapi.ObjectFB,
		"DRM_MODE_OBJECT_BLOB":                            uapi.ObjectBlob,
		"DRM_MODE_OBJECT_PLANE":                           uapi.ObjectPlane,
		"DRM_MODE_OBJECT_ANY":                             uapi.ObjectAny,
		"DRM_MODE_ROTATE_0":                               uapi.Rotate0,
		"DRM_MODE_ROTATE_90":                              uapi.Rotate90,
		"DRM_MODE_ROTATE_180":                             uapi.Rotate180,
		"DRM_MODE_ROTATE_270":                             uapi.Rotate270,
		"DRM_MODE_ROTATE_MASK":                            uapi.RotateMask,
		"DRM_MODE_REFLECT_X":                              uapi.ReflectX,
		"DRM_MODE_REFLECT_Y":                              uapi.ReflectY,
		"DRM_MODE_DPMS_ON":                                uapi.DPMSOn,
		"DRM_MODE_DPMS_STANDBY":                           uapi.DPMSStandby,
		"DRM_MODE_DPMS_SUSPEND":                           uapi.DPMSSuspend,
		"DRM_MODE_DPMS_OFF":                               uapi.DPMSOff,
		"DRM_MODE_LINK_STATUS_GOOD":                       uapi.LinkStatusGood,
		"DRM_MODE_LINK_STATUS_BAD":                        uapi.LinkStatusBad,
		"FORMAT_BLOB_CURRENT":                             uapi.FormatBlobCurrent,
		"DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE": uapi.SyncobjFdToHandleImportSyncFile,
		"DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE": uapi.SyncobjHandleToFdExportSyncFile,
	})
	// fourcc_mod_broadcom_mod(m) clears the parameter bits the table gives.
	shift, bits := l.Consts["__fourcc_mod_broadcom_param_shift"], l.Consts["__fourcc_mod_broadcom_param_bits"]
	if bits == 0 {
		t.Error("__fourcc_mod_broadcom_param_shift/_bits: not in the C table")
	}
	for _, m := range []uint64{uapi.FormatModBroadcomSAND128 | 96<<8, uapi.FormatModBroadcomSAND64 | 1<<55, uapi.FormatModBroadcomVC4TTiled, ^uint64(0)} {
		if got, want := uapi.FormatModBroadcomMod(m), m&^((1<<bits-1)<<shift); got != want {
			t.Errorf("FormatModBroadcomMod(%#x) = %#x, fourcc_mod_broadcom_mod gives %#x", m, got, want)
		}
	}
	// Newer than the Linux 6.1 headers the table was compiled from; the
	// values are those of include/uapi/drm/drm.h since Linux 6.8 and 6.6.
	if uapi.CapAtomicAsyncPageFlip != 0x15 || uapi.ClientCapCursorPlaneHotspot != 6 {
		t.Errorf("DRM_CAP_ATOMIC_ASYNC_PAGE_FLIP = %#x, DRM_CLIENT_CAP_CURSOR_PLANE_HOTSPOT = %d; drm.h has 0x15 and 6",
			uapi.CapAtomicAsyncPageFlip, uapi.ClientCapCursorPlaneHotspot)
	}
	if got := uapi.Fourcc('X', 'R', '2', '4'); uint64(got) != l.Consts["DRM_FORMAT_XRGB8888"] {
		t.Errorf("Fourcc('X','R','2','4') = 0x%08x, C 0x%08x", got, l.Consts["DRM_FORMAT_XRGB8888"])
	}
}

func TestVC4StructLayoutsMatchC(t *testing.T) {
	ctable.CheckStructs(t, ctable.MustLoadLayout(t, "testdata"), map[string]any{
		"drm_vc4_submit_rcl_surface": uapi.SubmitRCLSurface{},
		"drm_vc4_submit_cl":          uapi.SubmitCL{},
		"drm_vc4_wait_seqno":         uapi.WaitSeqno{},
		"drm_vc4_wait_bo":            uapi.WaitBO{},
		"drm_vc4_create_bo":          uapi.CreateBO{},
		"drm_vc4_mmap_bo":            uapi.MmapBO{},
		"drm_vc4_create_shader_bo":   uapi.CreateShaderBO{},
		"drm_vc4_get_hang_state_bo":  uapi.GetHangStateBO{},
		"drm_vc4_get_hang_state":     uapi.GetHangState{},
		"drm_vc4_get_param":          uapi.GetParam{},
		"drm_vc4_set_tiling":         uapi.SetTiling{},
		"drm_vc4_get_tiling":         uapi.GetTiling{},
		"drm_vc4_label_bo":           uapi.LabelBO{},
		"drm_vc4_gem_madvise":        uapi.GemMadvise{},
		"drm_vc4_perfmon_create":     uapi.PerfmonCreate{},
		"drm_vc4_perfmon_destroy":    uapi.PerfmonDestroy{},
		"drm_vc4_perfmon_get_values": uapi.PerfmonGetValues{},
	})
}

// TestSubmitCLFacts pins the facts doc/kernel.md#struct-layouts states
// about drm_vc4_submit_cl (from include/uapi/drm/vc4_drm.h), independently
// of the tables.
func TestSubmitCLFacts(t *testing.T) {
	var s uapi.SubmitCL
	if sz := reflect.TypeOf(s).Size(); sz != 176 {
		t.Errorf("SubmitCL is %d bytes, want 176", sz)
	}
	if f, _ := reflect.TypeOf(s).FieldByName("Seqno"); f.Offset != 152 {
		t.Errorf("Seqno at %d, want 152", f.Offset)
	}
	if f, _ := reflect.TypeOf(s).FieldByName("Pad"); f.Offset != 145 || f.Type.Size() != 3 {
		t.Errorf("pad:24 at %d, %d bytes; want bytes 145..147", f.Offset, f.Type.Size())
	}
	if uint32(uapi.IoctlSubmitCL) != 0xC0B06440 {
		t.Errorf("DRM_IOCTL_VC4_SUBMIT_CL = 0x%08x, want 0xC0B06440", uint32(uapi.IoctlSubmitCL))
	}
}

func TestVC4RequestNumbersMatchC(t *testing.T) {
	ctable.CheckRequests(t, ctable.MustLoadLayout(t, "testdata"), map[string]uapi.Request{
		"DRM_IOCTL_VC4_SUBMIT_CL":          uapi.IoctlSubmitCL,
		"DRM_IOCTL_VC4_WAIT_SEQNO":         uapi.IoctlWaitSeqno,
		"DRM_IOCTL_VC4_WAIT_BO":            uapi.IoctlWaitBO,
		"DRM_IOCTL_VC4_CREATE_BO":          uapi.IoctlCreateBO,
		"DRM_IOCTL_VC4_MMAP_BO":            uapi.IoctlMmapBO,
		"DRM_IOCTL_VC4_CREATE_SHADER_BO":   uapi.IoctlCreateShaderBO,
		"DRM_IOCTL_VC4_GET_HANG_STATE":     uapi.IoctlGetHangState,
		"DRM_IOCTL_VC4_GET_PARAM":          uapi.IoctlGetParam,
		"DRM_IOCTL_VC4_SET_TILING":         uapi.IoctlSetTiling,
		"DRM_IOCTL_VC4_GET_TILING":         uapi.IoctlGetTiling,
		"DRM_IOCTL_VC4_LABEL_BO":           uapi.IoctlLabelBO,
		"DRM_IOCTL_VC4_GEM_MADVISE":        uapi.IoctlGemMadvise,
		"DRM_IOCTL_VC4_PERFMON_CREATE":     uapi.IoctlPerfmonCreate,
		"DRM_IOCTL_VC4_PERFMON_DESTROY":    uapi.IoctlPerfmonDestroy,
		"DRM_IOCTL_VC4_PERFMON_GET_VALUES": uapi.IoctlPerfmonGetValues,
	}, uapi.IoctlName)
	if uapi.IoctlName(uapi.IoctlGemClose) != "DRM_IOCTL_GEM_CLOSE" {
		t.Error("uapi.IoctlName should fall back to drm's names")
	}
}

func TestVC4ConstantsMatchC(t *testing.T) {
	ctable.CheckConsts(t, ctable.MustLoadLayout(t, "testdata"), map[string]uint64{
		"VC4_SUBMIT_RCL_SURFACE_READ_IS_FULL_RES":               uapi.SurfaceReadIsFullRes,
		"VC4_SUBMIT_CL_USE_CLEAR_COLOR":                         uapi.SubmitUseClearColor,
		"VC4_SUBMIT_CL_FIXED_RCL_ORDER":                         uapi.SubmitFixedRCLOrder,
		"VC4_SUBMIT_CL_RCL_ORDER_INCREASING_X":                  uapi.SubmitRCLOrderIncreasingX,
		"VC4_SUBMIT_CL_RCL_ORDER_INCREASING_Y":                  uapi.SubmitRCLOrderIncreasingY,
		"DRM_VC4_PARAM_V3D_IDENT0":                              uapi.ParamV3DIdent0,
		"DRM_VC4_PARAM_V3D_IDENT1":                              uapi.ParamV3DIdent1,
		"DRM_VC4_PARAM_V3D_IDENT2":                              uapi.ParamV3DIdent2,
		"DRM_VC4_PARAM_SUPPORTS_BRANCHES":                       uapi.ParamSupportsBranches,
		"DRM_VC4_PARAM_SUPPORTS_ETC1":                           uapi.ParamSupportsETC1,
		"DRM_VC4_PARAM_SUPPORTS_THREADED_FS":                    uapi.ParamSupportsThreadedFS,
		"DRM_VC4_PARAM_SUPPORTS_FIXED_RCL_ORDER":                uapi.ParamSupportsFixedRCLOrder,
		"DRM_VC4_PARAM_SUPPORTS_MADVISE":                        uapi.ParamSupportsMadvise,
		"DRM_VC4_PARAM_SUPPORTS_PERFMON":                        uapi.ParamSupportsPerfmon,
		"VC4_MADV_WILLNEED":                                     uapi.MadvWillNeed,
		"VC4_MADV_DONTNEED":                                     uapi.MadvDontNeed,
		"__VC4_MADV_PURGED":                                     uapi.MadvPurged,
		"__VC4_MADV_NOTSUPP":                                    uapi.MadvNotSupp,
		"DRM_VC4_MAX_PERF_COUNTERS":                             uapi.MaxPerfCounters,
		"VC4_PERFCNT_FEP_VALID_PRIMS_NO_RENDER":                 uapi.PerfcntFEPValidPrimsNoRender,
		"VC4_PERFCNT_FEP_VALID_PRIMS_RENDER":                    uapi.PerfcntFEPValidPrimsRender,
		"VC4_PERFCNT_FEP_CLIPPED_QUADS":                         uapi.PerfcntFEPClippedQuads,
		"VC4_PERFCNT_FEP_VALID_QUADS":                           uapi.PerfcntFEPValidQuads,
		"VC4_PERFCNT_TLB_QUADS_NOT_PASSING_STENCIL":             uapi.PerfcntTLBQuadsNotPassingStencil,
		"VC4_PERFCNT_TLB_QUADS_NOT_PASSING_Z_AND_STENCIL":       uapi.PerfcntTLBQuadsNotPassingZAndStencil,
		"VC4_PERFCNT_TLB_QUADS_PASSING_Z_AND_STENCIL":           uapi.PerfcntTLBQuadsPassingZAndStencil,
		"VC4_PERFCNT_TLB_QUADS_ZERO_COVERAGE":                   uapi.PerfcntTLBQuadsZeroCoverage,
		"VC4_PERFCNT_TLB_QUADS_NON_ZERO_COVERAGE":               uapi.PerfcntTLBQuadsNonZeroCoverage,
		"VC4_PERFCNT_TLB_QUADS_WRITTEN_TO_COLOR_BUF":            uapi.PerfcntTLBQuadsWrittenToColorBuf,
		"VC4_PERFCNT_PLB_PRIMS_OUTSIDE_VIEWPORT":                uapi.PerfcntPLBPrimsOutsideViewport,
		"VC4_PERFCNT_PLB_PRIMS_NEED_CLIPPING":                   uapi.PerfcntPLBPrimsNeedClipping,
		"VC4_PERFCNT_PSE_PRIMS_REVERSED":                        uapi.PerfcntPSEPrimsReversed,
		"VC4_PERFCNT_QPU_TOTAL_IDLE_CYCLES":                     uapi.PerfcntQPUTotalIdleCycles,
		"VC4_PERFCNT_QPU_TOTAL_CLK_CYCLES_VERTEX_COORD_SHADING": uapi.PerfcntQPUTotalClkCyclesVertexCoordShading,
		"VC4_PERFCNT_QPU_TOTAL_CLK_CYCLES_FRAGMENT_SHADING":     uapi.PerfcntQPUTotalClkCyclesFragmentShading,
		"VC4_PERFCNT_QPU_TOTAL_CLK_CYCLES_EXEC_VALID_INST":      uapi.PerfcntQPUTotalClkCyclesExecValidInst,
		"VC4_PERFCNT_QPU_TOTAL_CLK_CYCLES_WAITING_TMUS":         uapi.PerfcntQPUTotalClkCyclesWaitingTMUs,
		"VC4_PERFCNT_QPU_TOTAL_CLK_CYCLES_WAITING_SCOREBOARD":   uapi.PerfcntQPUTotalClkCyclesWaitingScoreboard,
		"VC4_PERFCNT_QPU_TOTAL_CLK_CYCLES_WAITING_VARYINGS":     uapi.PerfcntQPUTotalClkCyclesWaitingVaryings,
		"VC4_PERFCNT_QPU_TOTAL_INST_CACHE_HIT":                  uapi.PerfcntQPUTotalInstCacheHit,
		"VC4_PERFCNT_QPU_TOTAL_INST_CACHE_MISS":                 uapi.PerfcntQPUTotalInstCacheMiss,
		"VC4_PERFCNT_QPU_TOTAL_UNIFORM_CACHE_HIT":               uapi.PerfcntQPUTotalUniformCacheHit,
		"VC4_PERFCNT_QPU_TOTAL_UNIFORM_CACHE_MISS":              uapi.PerfcntQPUTotalUniformCacheMiss,
		"VC4_PERFCNT_TMU_TOTAL_TEXT_QUADS_PROCESSED":            uapi.PerfcntTMUTotalTextQuadsProcessed,
		"VC4_PERFCNT_TMU_TOTAL_TEXT_CACHE_MISS":                 uapi.PerfcntTMUTotalTextCacheMiss,
		"VC4_PERFCNT_VPM_TOTAL_CLK_CYCLES_VDW_STALLED":          uapi.PerfcntVPMTotalClkCyclesVDWStalled,
		"VC4_PERFCNT_VPM_TOTAL_CLK_CYCLES_VCD_STALLED":          uapi.PerfcntVPMTotalClkCyclesVCDStalled,
		"VC4_PERFCNT_L2C_TOTAL_L2_CACHE_HIT":                    uapi.PerfcntL2CTotalL2CacheHit,
		"VC4_PERFCNT_L2C_TOTAL_L2_CACHE_MISS":                   uapi.PerfcntL2CTotalL2CacheMiss,
		"VC4_PERFCNT_NUM_EVENTS":                                uapi.PerfcntNumEvents,
	})
	// V3D_EXPECTED_IDENT0 lives in the kernel's vc4_regs.h, not in the
	// uAPI: 'V' | '3'<<8 | 'D'<<16 | 2<<24.
	if uapi.V3DExpectedIdent0 != 0x02443356 {
		t.Errorf("V3DExpectedIdent0 = 0x%08x, want 0x02443356", uapi.V3DExpectedIdent0)
	}
}
