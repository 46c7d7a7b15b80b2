package drm_test

import (
	"runtime"
	"testing"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/drm/drmtest"
)

// The tests of this file run on amd64 and, through .ci/cross-test, on
// GOARCH=arm GOARM=6 and GOARCH=arm64 under qemu-user.

func TestStructLayoutsMatchC(t *testing.T) {
	drmtest.CheckStructs(t, drmtest.MustLoadLayout(t, "testdata"), map[string]any{
		"drm_version":             drm.Version{},
		"drm_gem_close":           drm.GemClose{},
		"drm_get_cap":             drm.GetCap{},
		"drm_set_client_cap":      drm.SetClientCap{},
		"drm_prime_handle":        drm.PrimeHandle{},
		"drm_mode_card_res":       drm.ModeCardRes{},
		"drm_mode_get_connector":  drm.ModeGetConnector{},
		"drm_mode_get_encoder":    drm.ModeGetEncoder{},
		"drm_mode_modeinfo":       drm.ModeModeInfo{},
		"drm_mode_crtc":           drm.ModeCrtc{},
		"drm_mode_fb_cmd2":        drm.ModeFbCmd2{},
		"drm_mode_crtc_page_flip": drm.ModeCrtcPageFlip{},
		"drm_mode_create_dumb":    drm.ModeCreateDumb{},
		"drm_mode_map_dumb":       drm.ModeMapDumb{},
		"drm_mode_destroy_dumb":   drm.ModeDestroyDumb{},
		"drm_event":               drm.Event{},
		"drm_event_vblank":        drm.EventVblank{},
	})
}

// TestNativeWidthVersion pins the two layouts of struct drm_version that
// the brief and kernel-vc4.md §1.1 name, independently of the table.
func TestNativeWidthVersion(t *testing.T) {
	want := map[string]uint32{"amd64": 64, "arm64": 64, "arm": 36}[runtime.GOARCH]
	if got := drm.IoctlVersion.Size(); got != want {
		t.Errorf("DRM_IOCTL_VERSION carries %d bytes on %s, want %d", got, runtime.GOARCH, want)
	}
}

func TestRequestNumbersMatchC(t *testing.T) {
	drmtest.CheckRequests(t, drmtest.MustLoadLayout(t, "testdata"), map[string]drm.Request{
		"DRM_IOCTL_VERSION":            drm.IoctlVersion,
		"DRM_IOCTL_GEM_CLOSE":          drm.IoctlGemClose,
		"DRM_IOCTL_GET_CAP":            drm.IoctlGetCap,
		"DRM_IOCTL_SET_CLIENT_CAP":     drm.IoctlSetClientCap,
		"DRM_IOCTL_SET_MASTER":         drm.IoctlSetMaster,
		"DRM_IOCTL_DROP_MASTER":        drm.IoctlDropMaster,
		"DRM_IOCTL_PRIME_HANDLE_TO_FD": drm.IoctlPrimeHandleToFD,
		"DRM_IOCTL_PRIME_FD_TO_HANDLE": drm.IoctlPrimeFDToHandle,
		"DRM_IOCTL_MODE_GETRESOURCES":  drm.IoctlModeGetResources,
		"DRM_IOCTL_MODE_GETCRTC":       drm.IoctlModeGetCrtc,
		"DRM_IOCTL_MODE_SETCRTC":       drm.IoctlModeSetCrtc,
		"DRM_IOCTL_MODE_GETENCODER":    drm.IoctlModeGetEncoder,
		"DRM_IOCTL_MODE_GETCONNECTOR":  drm.IoctlModeGetConnector,
		"DRM_IOCTL_MODE_ADDFB2":        drm.IoctlModeAddFB2,
		"DRM_IOCTL_MODE_RMFB":          drm.IoctlModeRmFB,
		"DRM_IOCTL_MODE_PAGE_FLIP":     drm.IoctlModePageFlip,
		"DRM_IOCTL_MODE_CREATE_DUMB":   drm.IoctlModeCreateDumb,
		"DRM_IOCTL_MODE_MAP_DUMB":      drm.IoctlModeMapDumb,
		"DRM_IOCTL_MODE_DESTROY_DUMB":  drm.IoctlModeDestroyDumb,
	}, drm.IoctlName)
}

func TestConstantsMatchC(t *testing.T) {
	l := drmtest.MustLoadLayout(t, "testdata")
	drmtest.CheckConsts(t, l, map[string]uint64{
		"DRM_COMMAND_BASE":                    drm.CommandBase,
		"DRM_CAP_DUMB_BUFFER":                 drm.CapDumbBuffer,
		"DRM_CAP_VBLANK_HIGH_CRTC":            drm.CapVblankHighCrtc,
		"DRM_CAP_DUMB_PREFERRED_DEPTH":        drm.CapDumbPreferredDepth,
		"DRM_CAP_DUMB_PREFER_SHADOW":          drm.CapDumbPreferShadow,
		"DRM_CAP_PRIME":                       drm.CapPrime,
		"DRM_PRIME_CAP_IMPORT":                drm.PrimeCapImport,
		"DRM_PRIME_CAP_EXPORT":                drm.PrimeCapExport,
		"DRM_CAP_TIMESTAMP_MONOTONIC":         drm.CapTimestampMonotonic,
		"DRM_CAP_ASYNC_PAGE_FLIP":             drm.CapAsyncPageFlip,
		"DRM_CAP_CURSOR_WIDTH":                drm.CapCursorWidth,
		"DRM_CAP_CURSOR_HEIGHT":               drm.CapCursorHeight,
		"DRM_CAP_ADDFB2_MODIFIERS":            drm.CapAddFB2Modifiers,
		"DRM_CAP_PAGE_FLIP_TARGET":            drm.CapPageFlipTarget,
		"DRM_CAP_CRTC_IN_VBLANK_EVENT":        drm.CapCrtcInVblankEvent,
		"DRM_CAP_SYNCOBJ":                     drm.CapSyncobj,
		"DRM_CAP_SYNCOBJ_TIMELINE":            drm.CapSyncobjTimeline,
		"DRM_CLIENT_CAP_STEREO_3D":            drm.ClientCapStereo3D,
		"DRM_CLIENT_CAP_UNIVERSAL_PLANES":     drm.ClientCapUniversalPlanes,
		"DRM_CLIENT_CAP_ATOMIC":               drm.ClientCapAtomic,
		"DRM_CLIENT_CAP_ASPECT_RATIO":         drm.ClientCapAspectRatio,
		"DRM_CLIENT_CAP_WRITEBACK_CONNECTORS": drm.ClientCapWritebackConnectors,
		"DRM_CLOEXEC":                         drm.CloExec,
		"DRM_RDWR":                            drm.ReadWrite,
		"DRM_EVENT_VBLANK":                    drm.EventTypeVblank,
		"DRM_EVENT_FLIP_COMPLETE":             drm.EventTypeFlipComplete,
		"DRM_EVENT_CRTC_SEQUENCE":             drm.EventTypeCrtcSequence,
		"DRM_DISPLAY_MODE_LEN":                drm.DisplayModeLen,
		"DRM_MODE_PAGE_FLIP_EVENT":            drm.PageFlipEvent,
		"DRM_MODE_PAGE_FLIP_ASYNC":            drm.PageFlipAsync,
		"DRM_MODE_PAGE_FLIP_TARGET_ABSOLUTE":  drm.PageFlipTargetAbsolute,
		"DRM_MODE_PAGE_FLIP_TARGET_RELATIVE":  drm.PageFlipTargetRelative,
		"DRM_MODE_FB_INTERLACED":              drm.FbInterlaced,
		"DRM_MODE_FB_MODIFIERS":               drm.FbModifiers,
		"DRM_MODE_TYPE_BUILTIN":               drm.ModeTypeBuiltin,
		"DRM_MODE_TYPE_CLOCK_C":               drm.ModeTypeClockC,
		"DRM_MODE_TYPE_CRTC_C":                drm.ModeTypeCrtcC,
		"DRM_MODE_TYPE_PREFERRED":             drm.ModeTypePreferred,
		"DRM_MODE_TYPE_DEFAULT":               drm.ModeTypeDefault,
		"DRM_MODE_TYPE_USERDEF":               drm.ModeTypeUserdef,
		"DRM_MODE_TYPE_DRIVER":                drm.ModeTypeDriver,
		"DRM_MODE_FLAG_PHSYNC":                drm.ModeFlagPHSync,
		"DRM_MODE_FLAG_NHSYNC":                drm.ModeFlagNHSync,
		"DRM_MODE_FLAG_PVSYNC":                drm.ModeFlagPVSync,
		"DRM_MODE_FLAG_NVSYNC":                drm.ModeFlagNVSync,
		"DRM_MODE_FLAG_INTERLACE":             drm.ModeFlagInterlace,
		"DRM_MODE_FLAG_DBLSCAN":               drm.ModeFlagDblScan,
		"DRM_MODE_FLAG_CSYNC":                 drm.ModeFlagCSync,
		"DRM_MODE_FLAG_PCSYNC":                drm.ModeFlagPCSync,
		"DRM_MODE_FLAG_NCSYNC":                drm.ModeFlagNCSync,
		"DRM_MODE_FLAG_HSKEW":                 drm.ModeFlagHSkew,
		"DRM_MODE_FLAG_DBLCLK":                drm.ModeFlagDblClk,
		"DRM_MODE_FLAG_CLKDIV2":               drm.ModeFlagClkDiv2,
		"DRM_MODE_FLAG_3D_MASK":               drm.ModeFlag3DMask,
		"DRM_MODE_FLAG_PIC_AR_MASK":           drm.ModeFlagPicARMask,
		"DRM_MODE_CONNECTOR_Unknown":          uint64(drm.ConnectorUnknown),
		"DRM_MODE_CONNECTOR_VGA":              uint64(drm.ConnectorVGA),
		"DRM_MODE_CONNECTOR_DVII":             uint64(drm.ConnectorDVII),
		"DRM_MODE_CONNECTOR_DVID":             uint64(drm.ConnectorDVID),
		"DRM_MODE_CONNECTOR_DVIA":             uint64(drm.ConnectorDVIA),
		"DRM_MODE_CONNECTOR_Composite":        uint64(drm.ConnectorComposite),
		"DRM_MODE_CONNECTOR_SVIDEO":           uint64(drm.ConnectorSVideo),
		"DRM_MODE_CONNECTOR_LVDS":             uint64(drm.ConnectorLVDS),
		"DRM_MODE_CONNECTOR_Component":        uint64(drm.ConnectorComponent),
		"DRM_MODE_CONNECTOR_9PinDIN":          uint64(drm.Connector9PinDIN),
		"DRM_MODE_CONNECTOR_DisplayPort":      uint64(drm.ConnectorDisplayPort),
		"DRM_MODE_CONNECTOR_HDMIA":            uint64(drm.ConnectorHDMIA),
		"DRM_MODE_CONNECTOR_HDMIB":            uint64(drm.ConnectorHDMIB),
		"DRM_MODE_CONNECTOR_TV":               uint64(drm.ConnectorTV),
		"DRM_MODE_CONNECTOR_eDP":              uint64(drm.ConnectorEDP),
		"DRM_MODE_CONNECTOR_VIRTUAL":          uint64(drm.ConnectorVirtual),
		"DRM_MODE_CONNECTOR_DSI":              uint64(drm.ConnectorDSI),
		"DRM_MODE_CONNECTOR_DPI":              uint64(drm.ConnectorDPI),
		"DRM_MODE_CONNECTOR_WRITEBACK":        uint64(drm.ConnectorWriteback),
		"DRM_MODE_CONNECTOR_SPI":              uint64(drm.ConnectorSPI),
		"DRM_MODE_CONNECTOR_USB":              uint64(drm.ConnectorUSB),
		"DRM_MODE_ENCODER_NONE":               uint64(drm.EncoderNone),
		"DRM_MODE_ENCODER_DAC":                uint64(drm.EncoderDAC),
		"DRM_MODE_ENCODER_TMDS":               uint64(drm.EncoderTMDS),
		"DRM_MODE_ENCODER_LVDS":               uint64(drm.EncoderLVDS),
		"DRM_MODE_ENCODER_TVDAC":              uint64(drm.EncoderTVDAC),
		"DRM_MODE_ENCODER_VIRTUAL":            uint64(drm.EncoderVirtual),
		"DRM_MODE_ENCODER_DSI":                uint64(drm.EncoderDSI),
		"DRM_MODE_ENCODER_DPMST":              uint64(drm.EncoderDPMST),
		"DRM_MODE_ENCODER_DPI":                uint64(drm.EncoderDPI),
		"DRM_FORMAT_XRGB8888":                 uint64(drm.FormatXRGB8888),
		"DRM_FORMAT_ARGB8888":                 uint64(drm.FormatARGB8888),
		"DRM_FORMAT_RGB565":                   uint64(drm.FormatRGB565),
		"DRM_FORMAT_MOD_VENDOR_BROADCOM":      drm.FormatModVendorBroadcom,
		"DRM_FORMAT_MOD_LINEAR":               drm.FormatModLinear,
		"DRM_FORMAT_MOD_NONE":                 drm.FormatModNone,
		"DRM_FORMAT_MOD_INVALID":              drm.FormatModInvalid,
		"DRM_FORMAT_MOD_BROADCOM_VC4_T_TILED": drm.FormatModBroadcomVC4TTiled,
		"DRM_FORMAT_MOD_BROADCOM_SAND64":      drm.FormatModBroadcomSAND64,
		"DRM_FORMAT_MOD_BROADCOM_SAND128":     drm.FormatModBroadcomSAND128,
		"DRM_FORMAT_MOD_BROADCOM_SAND256":     drm.FormatModBroadcomSAND256,
	})
	// fourcc_mod_broadcom_mod(m) clears the parameter bits the table gives.
	shift, bits := l.Consts["__fourcc_mod_broadcom_param_shift"], l.Consts["__fourcc_mod_broadcom_param_bits"]
	if bits == 0 {
		t.Error("__fourcc_mod_broadcom_param_shift/_bits: not in the C table")
	}
	for _, m := range []uint64{drm.FormatModBroadcomSAND128 | 96<<8, drm.FormatModBroadcomSAND64 | 1<<55, drm.FormatModBroadcomVC4TTiled, ^uint64(0)} {
		if got, want := drm.FormatModBroadcomMod(m), m&^((1<<bits-1)<<shift); got != want {
			t.Errorf("FormatModBroadcomMod(%#x) = %#x, fourcc_mod_broadcom_mod gives %#x", m, got, want)
		}
	}
	// Newer than the Linux 6.1 headers the table was compiled from; the
	// values are those of include/uapi/drm/drm.h since Linux 6.8 and 6.6.
	if drm.CapAtomicAsyncPageFlip != 0x15 || drm.ClientCapCursorPlaneHotspot != 6 {
		t.Errorf("DRM_CAP_ATOMIC_ASYNC_PAGE_FLIP = %#x, DRM_CLIENT_CAP_CURSOR_PLANE_HOTSPOT = %d; drm.h has 0x15 and 6",
			drm.CapAtomicAsyncPageFlip, drm.ClientCapCursorPlaneHotspot)
	}
	if got := drm.Fourcc('X', 'R', '2', '4'); uint64(got) != l.Consts["DRM_FORMAT_XRGB8888"] {
		t.Errorf("Fourcc('X','R','2','4') = 0x%08x, C 0x%08x", got, l.Consts["DRM_FORMAT_XRGB8888"])
	}
}
