package uapi

import "fmt"

// ioctlNames names the requests of drm.go and vc4.go, as their DRM_IOCTL_*
// macros are spelled in drm.h and vc4_drm.h, for error messages and traces.
var ioctlNames = map[Request]string{
	// DRM core and KMS (drm.h)
	IoctlVersion:               "DRM_IOCTL_VERSION",
	IoctlWaitVblank:            "DRM_IOCTL_WAIT_VBLANK",
	IoctlGemClose:              "DRM_IOCTL_GEM_CLOSE",
	IoctlGetCap:                "DRM_IOCTL_GET_CAP",
	IoctlSetClientCap:          "DRM_IOCTL_SET_CLIENT_CAP",
	IoctlSetMaster:             "DRM_IOCTL_SET_MASTER",
	IoctlDropMaster:            "DRM_IOCTL_DROP_MASTER",
	IoctlPrimeHandleToFD:       "DRM_IOCTL_PRIME_HANDLE_TO_FD",
	IoctlPrimeFDToHandle:       "DRM_IOCTL_PRIME_FD_TO_HANDLE",
	IoctlModeGetResources:      "DRM_IOCTL_MODE_GETRESOURCES",
	IoctlModeGetCrtc:           "DRM_IOCTL_MODE_GETCRTC",
	IoctlModeSetCrtc:           "DRM_IOCTL_MODE_SETCRTC",
	IoctlModeGetEncoder:        "DRM_IOCTL_MODE_GETENCODER",
	IoctlModeGetConnector:      "DRM_IOCTL_MODE_GETCONNECTOR",
	IoctlModeRmFB:              "DRM_IOCTL_MODE_RMFB",
	IoctlModePageFlip:          "DRM_IOCTL_MODE_PAGE_FLIP",
	IoctlModeCreateDumb:        "DRM_IOCTL_MODE_CREATE_DUMB",
	IoctlModeMapDumb:           "DRM_IOCTL_MODE_MAP_DUMB",
	IoctlModeDestroyDumb:       "DRM_IOCTL_MODE_DESTROY_DUMB",
	IoctlModeAddFB2:            "DRM_IOCTL_MODE_ADDFB2",
	IoctlSyncobjCreate:         "DRM_IOCTL_SYNCOBJ_CREATE",
	IoctlSyncobjDestroy:        "DRM_IOCTL_SYNCOBJ_DESTROY",
	IoctlModeGetProperty:       "DRM_IOCTL_MODE_GETPROPERTY",
	IoctlModeGetPropBlob:       "DRM_IOCTL_MODE_GETPROPBLOB",
	IoctlModeGetPlaneResources: "DRM_IOCTL_MODE_GETPLANERESOURCES",
	IoctlModeGetPlane:          "DRM_IOCTL_MODE_GETPLANE",
	IoctlModeObjGetProperties:  "DRM_IOCTL_MODE_OBJ_GETPROPERTIES",
	IoctlModeObjSetProperty:    "DRM_IOCTL_MODE_OBJ_SETPROPERTY",
	IoctlModeAtomic:            "DRM_IOCTL_MODE_ATOMIC",
	IoctlModeCreatePropBlob:    "DRM_IOCTL_MODE_CREATEPROPBLOB",
	IoctlModeDestroyPropBlob:   "DRM_IOCTL_MODE_DESTROYPROPBLOB",
	IoctlSyncobjHandleToFD:     "DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD",
	IoctlSyncobjFDToHandle:     "DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE",

	// sync_file (linux/sync_file.h)
	IoctlSyncMerge:    "SYNC_IOC_MERGE",
	IoctlSyncFileInfo: "SYNC_IOC_FILE_INFO",

	// vc4 (vc4_drm.h)
	IoctlSubmitCL:         "DRM_IOCTL_VC4_SUBMIT_CL",
	IoctlWaitSeqno:        "DRM_IOCTL_VC4_WAIT_SEQNO",
	IoctlWaitBO:           "DRM_IOCTL_VC4_WAIT_BO",
	IoctlCreateBO:         "DRM_IOCTL_VC4_CREATE_BO",
	IoctlMmapBO:           "DRM_IOCTL_VC4_MMAP_BO",
	IoctlCreateShaderBO:   "DRM_IOCTL_VC4_CREATE_SHADER_BO",
	IoctlGetHangState:     "DRM_IOCTL_VC4_GET_HANG_STATE",
	IoctlGetParam:         "DRM_IOCTL_VC4_GET_PARAM",
	IoctlSetTiling:        "DRM_IOCTL_VC4_SET_TILING",
	IoctlGetTiling:        "DRM_IOCTL_VC4_GET_TILING",
	IoctlLabelBO:          "DRM_IOCTL_VC4_LABEL_BO",
	IoctlGemMadvise:       "DRM_IOCTL_VC4_GEM_MADVISE",
	IoctlPerfmonCreate:    "DRM_IOCTL_VC4_PERFMON_CREATE",
	IoctlPerfmonDestroy:   "DRM_IOCTL_VC4_PERFMON_DESTROY",
	IoctlPerfmonGetValues: "DRM_IOCTL_VC4_PERFMON_GET_VALUES",
}

// IoctlName returns the C name of a DRM core, KMS or vc4 request, such as
// "DRM_IOCTL_MODE_PAGE_FLIP" or "DRM_IOCTL_VC4_SUBMIT_CL", or a
// description of a request it does not know.
func IoctlName(r Request) string {
	if n, ok := ioctlNames[r]; ok {
		return n
	}
	kind := "DRM ioctl"
	if r.Type() != drmIoctlType {
		kind = "non-DRM ioctl"
	} else if r.Nr() >= CommandBase && r.Nr() < commandEnd {
		kind = "driver ioctl"
	}
	return fmt.Sprintf("%s 0x%08x (nr 0x%02x)", kind, uint32(r), r.Nr())
}

// commandEnd is DRM_COMMAND_END (drm.h): driver ioctls are numbered in
// [CommandBase, commandEnd).
const commandEnd = 0xA0
