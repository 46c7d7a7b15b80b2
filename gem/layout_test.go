package gem_test

import (
	"reflect"
	"testing"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/drm/drmtest"
	"github.com/vccube/vccube/gem"
)

// The C tables live with package drm; see drm/testdata/abi/README.md.
const testdata = "../drm/testdata"

func TestStructLayoutsMatchC(t *testing.T) {
	drmtest.CheckStructs(t, drmtest.MustLoadLayout(t, testdata), map[string]any{
		"drm_vc4_submit_rcl_surface": gem.SubmitRCLSurface{},
		"drm_vc4_submit_cl":          gem.SubmitCL{},
		"drm_vc4_wait_seqno":         gem.WaitSeqno{},
		"drm_vc4_wait_bo":            gem.WaitBO{},
		"drm_vc4_create_bo":          gem.CreateBO{},
		"drm_vc4_mmap_bo":            gem.MmapBO{},
		"drm_vc4_create_shader_bo":   gem.CreateShaderBO{},
		"drm_vc4_get_hang_state_bo":  gem.GetHangStateBO{},
		"drm_vc4_get_hang_state":     gem.GetHangState{},
		"drm_vc4_get_param":          gem.GetParam{},
		"drm_vc4_set_tiling":         gem.SetTiling{},
		"drm_vc4_get_tiling":         gem.GetTiling{},
		"drm_vc4_label_bo":           gem.LabelBO{},
		"drm_vc4_gem_madvise":        gem.GemMadvise{},
		"drm_vc4_perfmon_create":     gem.PerfmonCreate{},
		"drm_vc4_perfmon_destroy":    gem.PerfmonDestroy{},
		"drm_vc4_perfmon_get_values": gem.PerfmonGetValues{},
	})
}

// TestSubmitCLFacts pins the facts kernel-vc4.md §1.3 and audit.md 7.1
// state about drm_vc4_submit_cl, independently of the tables.
func TestSubmitCLFacts(t *testing.T) {
	var s gem.SubmitCL
	if sz := reflect.TypeOf(s).Size(); sz != 176 {
		t.Errorf("SubmitCL is %d bytes, want 176", sz)
	}
	if f, _ := reflect.TypeOf(s).FieldByName("Seqno"); f.Offset != 152 {
		t.Errorf("Seqno at %d, want 152", f.Offset)
	}
	if f, _ := reflect.TypeOf(s).FieldByName("Pad"); f.Offset != 145 || f.Type.Size() != 3 {
		t.Errorf("pad:24 at %d, %d bytes; want bytes 145..147", f.Offset, f.Type.Size())
	}
	if uint32(gem.IoctlSubmitCL) != 0xC0B06440 {
		t.Errorf("DRM_IOCTL_VC4_SUBMIT_CL = 0x%08x, want 0xC0B06440", uint32(gem.IoctlSubmitCL))
	}
}

func TestRequestNumbersMatchC(t *testing.T) {
	drmtest.CheckRequests(t, drmtest.MustLoadLayout(t, testdata), map[string]drm.Request{
		"DRM_IOCTL_VC4_SUBMIT_CL":          gem.IoctlSubmitCL,
		"DRM_IOCTL_VC4_WAIT_SEQNO":         gem.IoctlWaitSeqno,
		"DRM_IOCTL_VC4_WAIT_BO":            gem.IoctlWaitBO,
		"DRM_IOCTL_VC4_CREATE_BO":          gem.IoctlCreateBO,
		"DRM_IOCTL_VC4_MMAP_BO":            gem.IoctlMmapBO,
		"DRM_IOCTL_VC4_CREATE_SHADER_BO":   gem.IoctlCreateShaderBO,
		"DRM_IOCTL_VC4_GET_HANG_STATE":     gem.IoctlGetHangState,
		"DRM_IOCTL_VC4_GET_PARAM":          gem.IoctlGetParam,
		"DRM_IOCTL_VC4_SET_TILING":         gem.IoctlSetTiling,
		"DRM_IOCTL_VC4_GET_TILING":         gem.IoctlGetTiling,
		"DRM_IOCTL_VC4_LABEL_BO":           gem.IoctlLabelBO,
		"DRM_IOCTL_VC4_GEM_MADVISE":        gem.IoctlGemMadvise,
		"DRM_IOCTL_VC4_PERFMON_CREATE":     gem.IoctlPerfmonCreate,
		"DRM_IOCTL_VC4_PERFMON_DESTROY":    gem.IoctlPerfmonDestroy,
		"DRM_IOCTL_VC4_PERFMON_GET_VALUES": gem.IoctlPerfmonGetValues,
	}, gem.IoctlName)
	if gem.IoctlName(drm.IoctlGemClose) != "DRM_IOCTL_GEM_CLOSE" {
		t.Error("gem.IoctlName should fall back to drm's names")
	}
}

func TestConstantsMatchC(t *testing.T) {
	drmtest.CheckConsts(t, drmtest.MustLoadLayout(t, testdata), map[string]uint64{
		"VC4_SUBMIT_RCL_SURFACE_READ_IS_FULL_RES":               gem.SurfaceReadIsFullRes,
		"VC4_SUBMIT_CL_USE_CLEAR_COLOR":                         gem.SubmitUseClearColor,
		"VC4_SUBMIT_CL_FIXED_RCL_ORDER":                         gem.SubmitFixedRCLOrder,
		"VC4_SUBMIT_CL_RCL_ORDER_INCREASING_X":                  gem.SubmitRCLOrderIncreasingX,
		"VC4_SUBMIT_CL_RCL_ORDER_INCREASING_Y":                  gem.SubmitRCLOrderIncreasingY,
		"DRM_VC4_PARAM_V3D_IDENT0":                              gem.ParamV3DIdent0,
		"DRM_VC4_PARAM_V3D_IDENT1":                              gem.ParamV3DIdent1,
		"DRM_VC4_PARAM_V3D_IDENT2":                              gem.ParamV3DIdent2,
		"DRM_VC4_PARAM_SUPPORTS_BRANCHES":                       gem.ParamSupportsBranches,
		"DRM_VC4_PARAM_SUPPORTS_ETC1":                           gem.ParamSupportsETC1,
		"DRM_VC4_PARAM_SUPPORTS_THREADED_FS":                    gem.ParamSupportsThreadedFS,
		"DRM_VC4_PARAM_SUPPORTS_FIXED_RCL_ORDER":                gem.ParamSupportsFixedRCLOrder,
		"DRM_VC4_PARAM_SUPPORTS_MADVISE":                        gem.ParamSupportsMadvise,
		"DRM_VC4_PARAM_SUPPORTS_PERFMON":                        gem.ParamSupportsPerfmon,
		"VC4_MADV_WILLNEED":                                     gem.MadvWillNeed,
		"VC4_MADV_DONTNEED":                                     gem.MadvDontNeed,
		"__VC4_MADV_PURGED":                                     gem.MadvPurged,
		"__VC4_MADV_NOTSUPP":                                    gem.MadvNotSupp,
		"DRM_VC4_MAX_PERF_COUNTERS":                             gem.MaxPerfCounters,
		"VC4_PERFCNT_FEP_VALID_PRIMS_NO_RENDER":                 gem.PerfcntFEPValidPrimsNoRender,
		"VC4_PERFCNT_FEP_VALID_PRIMS_RENDER":                    gem.PerfcntFEPValidPrimsRender,
		"VC4_PERFCNT_FEP_CLIPPED_QUADS":                         gem.PerfcntFEPClippedQuads,
		"VC4_PERFCNT_FEP_VALID_QUADS":                           gem.PerfcntFEPValidQuads,
		"VC4_PERFCNT_TLB_QUADS_NOT_PASSING_STENCIL":             gem.PerfcntTLBQuadsNotPassingStencil,
		"VC4_PERFCNT_TLB_QUADS_NOT_PASSING_Z_AND_STENCIL":       gem.PerfcntTLBQuadsNotPassingZAndStencil,
		"VC4_PERFCNT_TLB_QUADS_PASSING_Z_AND_STENCIL":           gem.PerfcntTLBQuadsPassingZAndStencil,
		"VC4_PERFCNT_TLB_QUADS_ZERO_COVERAGE":                   gem.PerfcntTLBQuadsZeroCoverage,
		"VC4_PERFCNT_TLB_QUADS_NON_ZERO_COVERAGE":               gem.PerfcntTLBQuadsNonZeroCoverage,
		"VC4_PERFCNT_TLB_QUADS_WRITTEN_TO_COLOR_BUF":            gem.PerfcntTLBQuadsWrittenToColorBuf,
		"VC4_PERFCNT_PLB_PRIMS_OUTSIDE_VIEWPORT":                gem.PerfcntPLBPrimsOutsideViewport,
		"VC4_PERFCNT_PLB_PRIMS_NEED_CLIPPING":                   gem.PerfcntPLBPrimsNeedClipping,
		"VC4_PERFCNT_PSE_PRIMS_REVERSED":                        gem.PerfcntPSEPrimsReversed,
		"VC4_PERFCNT_QPU_TOTAL_IDLE_CYCLES":                     gem.PerfcntQPUTotalIdleCycles,
		"VC4_PERFCNT_QPU_TOTAL_CLK_CYCLES_VERTEX_COORD_SHADING": gem.PerfcntQPUTotalClkCyclesVertexCoordShading,
		"VC4_PERFCNT_QPU_TOTAL_CLK_CYCLES_FRAGMENT_SHADING":     gem.PerfcntQPUTotalClkCyclesFragmentShading,
		"VC4_PERFCNT_QPU_TOTAL_CLK_CYCLES_EXEC_VALID_INST":      gem.PerfcntQPUTotalClkCyclesExecValidInst,
		"VC4_PERFCNT_QPU_TOTAL_CLK_CYCLES_WAITING_TMUS":         gem.PerfcntQPUTotalClkCyclesWaitingTMUs,
		"VC4_PERFCNT_QPU_TOTAL_CLK_CYCLES_WAITING_SCOREBOARD":   gem.PerfcntQPUTotalClkCyclesWaitingScoreboard,
		"VC4_PERFCNT_QPU_TOTAL_CLK_CYCLES_WAITING_VARYINGS":     gem.PerfcntQPUTotalClkCyclesWaitingVaryings,
		"VC4_PERFCNT_QPU_TOTAL_INST_CACHE_HIT":                  gem.PerfcntQPUTotalInstCacheHit,
		"VC4_PERFCNT_QPU_TOTAL_INST_CACHE_MISS":                 gem.PerfcntQPUTotalInstCacheMiss,
		"VC4_PERFCNT_QPU_TOTAL_UNIFORM_CACHE_HIT":               gem.PerfcntQPUTotalUniformCacheHit,
		"VC4_PERFCNT_QPU_TOTAL_UNIFORM_CACHE_MISS":              gem.PerfcntQPUTotalUniformCacheMiss,
		"VC4_PERFCNT_TMU_TOTAL_TEXT_QUADS_PROCESSED":            gem.PerfcntTMUTotalTextQuadsProcessed,
		"VC4_PERFCNT_TMU_TOTAL_TEXT_CACHE_MISS":                 gem.PerfcntTMUTotalTextCacheMiss,
		"VC4_PERFCNT_VPM_TOTAL_CLK_CYCLES_VDW_STALLED":          gem.PerfcntVPMTotalClkCyclesVDWStalled,
		"VC4_PERFCNT_VPM_TOTAL_CLK_CYCLES_VCD_STALLED":          gem.PerfcntVPMTotalClkCyclesVCDStalled,
		"VC4_PERFCNT_L2C_TOTAL_L2_CACHE_HIT":                    gem.PerfcntL2CTotalL2CacheHit,
		"VC4_PERFCNT_L2C_TOTAL_L2_CACHE_MISS":                   gem.PerfcntL2CTotalL2CacheMiss,
		"VC4_PERFCNT_NUM_EVENTS":                                gem.PerfcntNumEvents,
	})
	// V3D_EXPECTED_IDENT0 lives in the kernel's vc4_regs.h, not in the
	// uAPI: 'V' | '3'<<8 | 'D'<<16 | 2<<24.
	if gem.V3DExpectedIdent0 != 0x02443356 {
		t.Errorf("V3DExpectedIdent0 = 0x%08x, want 0x02443356", gem.V3DExpectedIdent0)
	}
}
