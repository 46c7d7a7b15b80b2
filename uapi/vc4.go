package uapi

import (
	"strconv"
	"unsafe"
)

// This file is the single Go description of the vc4 uAPI. Every struct is
// laid out byte for byte as its C struct in vc4_drm.h (checked field by
// field against the C layouts of amd64, armhf and arm64 in
// testdata by layout_test.go), and every request number is built
// from the Go struct's size.

// SubmitRCLSurface mirrors struct drm_vc4_submit_rcl_surface: one render
// target or source of a SubmitCL, which the kernel turns into render
// control-list loads and stores (vc4_render_cl.c: vc4_rcl_surface_setup).
type SubmitRCLSurface struct {
	HIndex uint32 // hindex: index into SubmitCL.BOHandles, or SurfaceAbsent
	Offset uint32 // byte offset of the surface in that BO
	// Bits are TILE_RENDERING_MODE_CONFIG bits for ColorWrite and
	// LOAD/STORE_TILE_BUFFER_GENERAL bits for the others; 0 for MSAA
	// surfaces.
	Bits  uint16
	Flags uint16 // SurfaceReadIsFullRes
}

// SurfaceAbsent is the HIndex of an unused surface ("~0 if not present",
// vc4_drm.h). A zeroed surface means BO index 0, not "absent".
const SurfaceAbsent = 0xFFFFFFFF

// SubmitCL mirrors struct drm_vc4_submit_cl (176 bytes), the argument of
// DRM_IOCTL_VC4_SUBMIT_CL: one bin control list with its shader records,
// uniforms and BOs, plus what the kernel needs to build the render list.
//
// The four pointer fields hold addresses of memory in this process; the
// caller keeps that memory alive and unmoved (runtime.Pinner) during
// SubmitCLIoctl.
type SubmitCL struct {
	BinCL          uint64 // bin_cl: pointer to the bin control list
	ShaderRec      uint64 // shader_rec: pointer to the shader records, each preceded by its BO indices
	Uniforms       uint64 // uniforms: pointer to the uniform streams with texture BO indices
	BOHandles      uint64 // bo_handles: pointer to BOHandleCount uint32 GEM handles
	BinCLSize      uint32 // bin_cl_size: bytes; 0 for a render-only job
	ShaderRecSize  uint32 // shader_rec_size: bytes
	ShaderRecCount uint32 // shader_rec_count: upper bound of GL_SHADER_STATE packets
	UniformsSize   uint32 // uniforms_size: bytes
	BOHandleCount  uint32 // bo_handle_count: must be > 0
	Width          uint16 // frame width in pixels
	Height         uint16 // frame height in pixels
	MinXTile       uint8  // min_x_tile
	MinYTile       uint8  // min_y_tile
	MaxXTile       uint8  // max_x_tile, inclusive
	MaxYTile       uint8  // max_y_tile, inclusive
	ColorRead      SubmitRCLSurface
	ColorWrite     SubmitRCLSurface
	ZSRead         SubmitRCLSurface // zs_read
	ZSWrite        SubmitRCLSurface // zs_write
	MSAAColorWrite SubmitRCLSurface // msaa_color_write
	MSAAZSWrite    SubmitRCLSurface // msaa_zs_write
	ClearColor     [2]uint32        // clear_color: packed colour, the same word twice (Mesa vc4_job.c)
	ClearZ         uint32           // clear_z: 24-bit depth in the low bits
	ClearS         uint8            // clear_s: stencil
	Pad            [3]uint8         // pad: the C bitfield "__u32 pad:24" (bytes 145..147)
	Flags          uint32           // Submit* flags
	Seqno          uint64           // out: the job's seqno, for WaitSeqno
	PerfmonID      uint32           // perfmonid: 0 or a perfmon from PerfmonCreate
	InSync         uint32           // in_sync: syncobj to wait on, or 0
	OutSync        uint32           // out_sync: syncobj to signal, or 0
	Pad2           uint32           // pad2: must be 0
}

// GLShaderRecRelocs is the number of bo_handles indices in front of each
// GL shader record in SubmitCL.ShaderRec, for a record with nrAttributes
// attribute arrays: one u32 each for the FS, VS and CS shader BOs, then one
// per attribute array. vc4_drm.h, on shader_rec: the record's reference
// "has enough information to determine how many pointers are necessary
// (fixed number for shaders/uniforms, and an attribute count), so those BO
// indices into bo_handles are just stored as __u32s before each shader
// record passed in"; vc4_validate.c validate_gl_shader_rec: nr_relocs is
// the three shader relocations plus nr_attributes.
func GLShaderRecRelocs(nrAttributes int) int { return 3 + nrAttributes }

// Flags of SubmitCL.Flags (vc4_drm.h); any other bit is refused with
// EINVAL (vc4_gem.c: vc4_submit_cl_ioctl).
const (
	SubmitUseClearColor       = 1 << 0 // VC4_SUBMIT_CL_USE_CLEAR_COLOR
	SubmitFixedRCLOrder       = 1 << 1 // VC4_SUBMIT_CL_FIXED_RCL_ORDER
	SubmitRCLOrderIncreasingX = 1 << 2 // VC4_SUBMIT_CL_RCL_ORDER_INCREASING_X
	SubmitRCLOrderIncreasingY = 1 << 3 // VC4_SUBMIT_CL_RCL_ORDER_INCREASING_Y
)

// SurfaceReadIsFullRes is VC4_SUBMIT_RCL_SURFACE_READ_IS_FULL_RES, the only
// SubmitRCLSurface flag (color_read and zs_read only).
const SurfaceReadIsFullRes = 1 << 0

// WaitSeqno mirrors struct drm_vc4_wait_seqno, the argument of
// DRM_IOCTL_VC4_WAIT_SEQNO. The kernel lowers TimeoutNs by the time spent
// when a signal interrupts the wait, so a retried call waits no longer in
// total (vc4_gem.c: vc4_wait_for_seqno_ioctl_helper).
type WaitSeqno struct {
	Seqno     uint64
	TimeoutNs uint64 // timeout_ns; ^0 waits forever, 0 only polls
}

// WaitBO mirrors struct drm_vc4_wait_bo, the argument of
// DRM_IOCTL_VC4_WAIT_BO: wait until the last job using the BO is done.
type WaitBO struct {
	Handle    uint32
	Pad       uint32 // must be 0
	TimeoutNs uint64 // timeout_ns
}

// CreateBO mirrors struct drm_vc4_create_bo, the argument of
// DRM_IOCTL_VC4_CREATE_BO.
type CreateBO struct {
	Size   uint32 // bytes; the kernel rounds up to pages and zeroes it
	Flags  uint32 // unused by the kernel; pass 0
	Handle uint32 // out
	Pad    uint32
}

// MmapBO mirrors struct drm_vc4_mmap_bo, the argument of
// DRM_IOCTL_VC4_MMAP_BO.
type MmapBO struct {
	Handle uint32
	Flags  uint32 // ignored by the kernel
	Offset uint64 // out: the fake offset to pass to Conn.Mmap
}

// CreateShaderBO mirrors struct drm_vc4_create_shader_bo, the argument of
// DRM_IOCTL_VC4_CREATE_SHADER_BO: the kernel copies Size bytes of QPU code
// from Data, validates them and returns a read-only BO.
type CreateShaderBO struct {
	Size   uint32 // bytes, a non-zero multiple of 8
	Flags  uint32 // must be 0
	Data   uint64 // pointer to the code
	Handle uint32 // out
	Pad    uint32 // must be 0
}

// GetHangStateBO mirrors struct drm_vc4_get_hang_state_bo: one BO of a
// recorded GPU hang.
type GetHangStateBO struct {
	Handle uint32 // a new GEM handle in this file; close it when done
	Paddr  uint32 // bus address
	Size   uint32
	Pad    uint32
}

// GetHangState mirrors struct drm_vc4_get_hang_state, the argument of
// DRM_IOCTL_VC4_GET_HANG_STATE (root only): the V3D registers and BOs the
// kernel saved when it last reset a hung GPU (vc4_gem.c:
// vc4_save_hang_state).
type GetHangState struct {
	BO          uint64 // bo: pointer to BOCount GetHangStateBO
	BOCount     uint32 // bo_count: in, capacity; out, the number of BOs
	StartBin    uint32 // start_bin: CT0CA of the bin job at submit
	StartRender uint32 // start_render: CT1CA of the render job at submit
	Ct0ca       uint32 // the control-list executor registers at the hang
	Ct0ea       uint32
	Ct1ca       uint32
	Ct1ea       uint32
	Ct0cs       uint32
	Ct1cs       uint32
	Ct0ra0      uint32
	Ct1ra0      uint32
	Bpca        uint32 // binner pool registers
	Bpcs        uint32
	Bpoa        uint32
	Bpos        uint32
	Vpmbase     uint32
	Dbge        uint32 // debug and error registers
	Fdbgo       uint32
	Fdbgb       uint32
	Fdbgr       uint32
	Fdbgs       uint32
	Errstat     uint32
	Pad         [16]uint32
}

// GetParam mirrors struct drm_vc4_get_param, the argument of
// DRM_IOCTL_VC4_GET_PARAM.
type GetParam struct {
	Param uint32 // a Param* id
	Pad   uint32 // must be 0
	Value uint64 // out
}

// Parameters for GetParam (DRM_VC4_PARAM_* in vc4_drm.h). A kernel older
// than a parameter answers EINVAL.
const (
	ParamV3DIdent0             = 0 // raw V3D IDENT0 register; V3DExpectedIdent0 on a VideoCore IV
	ParamV3DIdent1             = 1 // raw IDENT1: VPM size, semaphores, TMUs, QPUs, slices, revision
	ParamV3DIdent2             = 2 // raw IDENT2
	ParamSupportsBranches      = 3
	ParamSupportsETC1          = 4
	ParamSupportsThreadedFS    = 5
	ParamSupportsFixedRCLOrder = 6
	ParamSupportsMadvise       = 7
	ParamSupportsPerfmon       = 8
)

// V3DExpectedIdent0 is the IDENT0 value of a VideoCore IV V3D: 'V', '3',
// 'D' in bytes 0-2 and technology version 2 in byte 3
// (vc4_regs.h: V3D_EXPECTED_IDENT0; vc4_v3d.c refuses to bind otherwise).
const V3DExpectedIdent0 = 2<<24 | 'D'<<16 | '3'<<8 | 'V'

// SetTiling mirrors struct drm_vc4_set_tiling, the argument of
// DRM_IOCTL_VC4_SET_TILING: KMS metadata saying how a BO's pixels are laid
// out.
type SetTiling struct {
	Handle   uint32
	Flags    uint32 // must be 0
	Modifier uint64 // FormatModLinear or FormatModBroadcomVC4TTiled
}

// GetTiling mirrors struct drm_vc4_get_tiling, the argument of
// DRM_IOCTL_VC4_GET_TILING; C declares it with the same fields as
// drm_vc4_set_tiling.
type GetTiling SetTiling

// LabelBO mirrors struct drm_vc4_label_bo, the argument of
// DRM_IOCTL_VC4_LABEL_BO: a name for the kernel's BO statistics.
type LabelBO struct {
	Handle uint32
	Len    uint32 // bytes of Name; must not be 0
	Name   uint64 // pointer to the name (no NUL needed)
}

// GemMadvise mirrors struct drm_vc4_gem_madvise, the argument of
// DRM_IOCTL_VC4_GEM_MADVISE.
type GemMadvise struct {
	Handle   uint32
	Madv     uint32 // MadvWillNeed or MadvDontNeed
	Retained uint32 // out: 0 when the BO's memory was already purged
	Pad      uint32 // must be 0
}

// Madvise values (VC4_MADV_* in vc4_drm.h). MadvPurged and MadvNotSupp are
// the kernel's own states (__VC4_MADV_*); user space never passes them.
const (
	MadvWillNeed = 0
	MadvDontNeed = 1
	MadvPurged   = 2
	MadvNotSupp  = 3
)

// MaxPerfCounters is DRM_VC4_MAX_PERF_COUNTERS: at most this many events
// per perfmon.
const MaxPerfCounters = 16

// PerfmonCreate mirrors struct drm_vc4_perfmon_create, the argument of
// DRM_IOCTL_VC4_PERFMON_CREATE.
type PerfmonCreate struct {
	ID        uint32 // out
	Ncounters uint32 // 1..MaxPerfCounters
	Events    [MaxPerfCounters]uint8
}

// PerfmonDestroy mirrors struct drm_vc4_perfmon_destroy, the argument of
// DRM_IOCTL_VC4_PERFMON_DESTROY.
type PerfmonDestroy struct {
	ID uint32
}

// PerfmonGetValues mirrors struct drm_vc4_perfmon_get_values, the argument
// of DRM_IOCTL_VC4_PERFMON_GET_VALUES. C pads 4 bytes after ID to align
// the pointer to 8; Go on 32-bit ARM would not, hence the explicit word.
type PerfmonGetValues struct {
	ID        uint32
	_         uint32 // C's implicit padding
	ValuesPtr uint64 // values_ptr: pointer to Ncounters uint64, written by the kernel
}

// Performance counter events for PerfmonCreate.Events (the anonymous enum
// VC4_PERFCNT_* of vc4_drm.h, in order).
const (
	PerfcntFEPValidPrimsNoRender = iota
	PerfcntFEPValidPrimsRender
	PerfcntFEPClippedQuads
	PerfcntFEPValidQuads
	PerfcntTLBQuadsNotPassingStencil
	PerfcntTLBQuadsNotPassingZAndStencil
	PerfcntTLBQuadsPassingZAndStencil
	PerfcntTLBQuadsZeroCoverage
	PerfcntTLBQuadsNonZeroCoverage
	PerfcntTLBQuadsWrittenToColorBuf
	PerfcntPLBPrimsOutsideViewport
	PerfcntPLBPrimsNeedClipping
	PerfcntPSEPrimsReversed
	PerfcntQPUTotalIdleCycles
	PerfcntQPUTotalClkCyclesVertexCoordShading
	PerfcntQPUTotalClkCyclesFragmentShading
	PerfcntQPUTotalClkCyclesExecValidInst
	PerfcntQPUTotalClkCyclesWaitingTMUs
	PerfcntQPUTotalClkCyclesWaitingScoreboard
	PerfcntQPUTotalClkCyclesWaitingVaryings
	PerfcntQPUTotalInstCacheHit
	PerfcntQPUTotalInstCacheMiss
	PerfcntQPUTotalUniformCacheHit
	PerfcntQPUTotalUniformCacheMiss
	PerfcntTMUTotalTextQuadsProcessed
	PerfcntTMUTotalTextCacheMiss
	PerfcntVPMTotalClkCyclesVDWStalled
	PerfcntVPMTotalClkCyclesVCDStalled
	PerfcntL2CTotalL2CacheHit
	PerfcntL2CTotalL2CacheMiss
	// PerfcntNumEvents is VC4_PERFCNT_NUM_EVENTS: event ids are below it.
	PerfcntNumEvents
)

// perfcntNames are the events' names as Mesa's vc4 driver exposes them
// through GL_AMD_performance_monitor (src/gallium/drivers/vc4/vc4_query.c,
// v3d_counter_names, in event order), which is how people who profile with
// apitrace or kmscube -p know them.
var perfcntNames = [PerfcntNumEvents]string{
	"FEP-valid-primitives-no-rendered-pixels",
	"FEP-valid-primitives-rendered-pixels",
	"FEP-clipped-quads",
	"FEP-valid-quads",
	"TLB-quads-not-passing-stencil-test",
	"TLB-quads-not-passing-z-and-stencil-test",
	"TLB-quads-passing-z-and-stencil-test",
	"TLB-quads-with-zero-coverage",
	"TLB-quads-with-non-zero-coverage",
	"TLB-quads-written-to-color-buffer",
	"PTB-primitives-discarded-outside-viewport",
	"PTB-primitives-need-clipping",
	"PTB-primitives-discarded-reversed",
	"QPU-total-idle-clk-cycles",
	"QPU-total-clk-cycles-vertex-coord-shading",
	"QPU-total-clk-cycles-fragment-shading",
	"QPU-total-clk-cycles-executing-valid-instr",
	"QPU-total-clk-cycles-waiting-TMU",
	"QPU-total-clk-cycles-waiting-scoreboard",
	"QPU-total-clk-cycles-waiting-varyings",
	"QPU-total-instr-cache-hit",
	"QPU-total-instr-cache-miss",
	"QPU-total-uniform-cache-hit",
	"QPU-total-uniform-cache-miss",
	"TMU-total-text-quads-processed",
	"TMU-total-text-cache-miss",
	"VPM-total-clk-cycles-VDW-stalled",
	"VPM-total-clk-cycles-VCD-stalled",
	"L2C-total-cache-hit",
	"L2C-total-cache-miss",
}

// PerfcntName returns the name of performance counter event e, or
// "event N" for a number past VC4_PERFCNT_NUM_EVENTS.
func PerfcntName(e uint8) string {
	if int(e) < len(perfcntNames) {
		return perfcntNames[e]
	}
	return "event " + strconv.Itoa(int(e))
}

// PerfcntCountsWork reports whether event e counts pieces of work —
// primitives or quads that reached a stage or passed a test (the FEP, TLB,
// PLB and PSE events and TMU-total-text-quads-processed) — which are the
// same for the same job on every VideoCore IV, rather than clock cycles or
// cache hits and misses, which depend on timing and on what ran before
// (the names of the events say which is which: vc4_query.c). A model of
// the GPU can be held to the first kind exactly.
func PerfcntCountsWork(e uint8) bool {
	return e <= PerfcntPSEPrimsReversed || e == PerfcntTMUTotalTextQuadsProcessed
}

// vc4 ioctl numbers (DRM_VC4_* in vc4_drm.h), relative to CommandBase.
const (
	nrSubmitCL         = 0x00
	nrWaitSeqno        = 0x01
	nrWaitBO           = 0x02
	nrCreateBO         = 0x03
	nrMmapBO           = 0x04
	nrCreateShaderBO   = 0x05
	nrGetHangState     = 0x06
	nrGetParam         = 0x07
	nrSetTiling        = 0x08
	nrGetTiling        = 0x09
	nrLabelBO          = 0x0a
	nrGemMadvise       = 0x0b
	nrPerfmonCreate    = 0x0c
	nrPerfmonDestroy   = 0x0d
	nrPerfmonGetValues = 0x0e
)

// Request numbers of the vc4 ioctls: every one is
// DRM_IOWR(DRM_COMMAND_BASE + DRM_VC4_*, struct) in vc4_drm.h.
var (
	// IoctlSubmitCL is DRM_IOCTL_VC4_SUBMIT_CL.
	IoctlSubmitCL = IOWR(CommandBase+nrSubmitCL, unsafe.Sizeof(SubmitCL{}))
	// IoctlWaitSeqno is DRM_IOCTL_VC4_WAIT_SEQNO.
	IoctlWaitSeqno = IOWR(CommandBase+nrWaitSeqno, unsafe.Sizeof(WaitSeqno{}))
	// IoctlWaitBO is DRM_IOCTL_VC4_WAIT_BO.
	IoctlWaitBO = IOWR(CommandBase+nrWaitBO, unsafe.Sizeof(WaitBO{}))
	// IoctlCreateBO is DRM_IOCTL_VC4_CREATE_BO.
	IoctlCreateBO = IOWR(CommandBase+nrCreateBO, unsafe.Sizeof(CreateBO{}))
	// IoctlMmapBO is DRM_IOCTL_VC4_MMAP_BO.
	IoctlMmapBO = IOWR(CommandBase+nrMmapBO, unsafe.Sizeof(MmapBO{}))
	// IoctlCreateShaderBO is DRM_IOCTL_VC4_CREATE_SHADER_BO.
	IoctlCreateShaderBO = IOWR(CommandBase+nrCreateShaderBO, unsafe.Sizeof(CreateShaderBO{}))
	// IoctlGetHangState is DRM_IOCTL_VC4_GET_HANG_STATE.
	IoctlGetHangState = IOWR(CommandBase+nrGetHangState, unsafe.Sizeof(GetHangState{}))
	// IoctlGetParam is DRM_IOCTL_VC4_GET_PARAM.
	IoctlGetParam = IOWR(CommandBase+nrGetParam, unsafe.Sizeof(GetParam{}))
	// IoctlSetTiling is DRM_IOCTL_VC4_SET_TILING.
	IoctlSetTiling = IOWR(CommandBase+nrSetTiling, unsafe.Sizeof(SetTiling{}))
	// IoctlGetTiling is DRM_IOCTL_VC4_GET_TILING.
	IoctlGetTiling = IOWR(CommandBase+nrGetTiling, unsafe.Sizeof(GetTiling{}))
	// IoctlLabelBO is DRM_IOCTL_VC4_LABEL_BO.
	IoctlLabelBO = IOWR(CommandBase+nrLabelBO, unsafe.Sizeof(LabelBO{}))
	// IoctlGemMadvise is DRM_IOCTL_VC4_GEM_MADVISE.
	IoctlGemMadvise = IOWR(CommandBase+nrGemMadvise, unsafe.Sizeof(GemMadvise{}))
	// IoctlPerfmonCreate is DRM_IOCTL_VC4_PERFMON_CREATE.
	IoctlPerfmonCreate = IOWR(CommandBase+nrPerfmonCreate, unsafe.Sizeof(PerfmonCreate{}))
	// IoctlPerfmonDestroy is DRM_IOCTL_VC4_PERFMON_DESTROY.
	IoctlPerfmonDestroy = IOWR(CommandBase+nrPerfmonDestroy, unsafe.Sizeof(PerfmonDestroy{}))
	// IoctlPerfmonGetValues is DRM_IOCTL_VC4_PERFMON_GET_VALUES.
	IoctlPerfmonGetValues = IOWR(CommandBase+nrPerfmonGetValues, unsafe.Sizeof(PerfmonGetValues{}))
)
