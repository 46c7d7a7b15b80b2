package qpu

import "strconv"

// RAddr is a read address, raddr_a or raddr_b (AG Table 14 "QPU Register
// Address Map", read columns). 0-31 are the physical registers of the file;
// 32-63 are I/O locations whose meaning can differ between file A and B.
type RAddr uint8

// Read addresses of AG Table 14 (Linux vc4_qpu_defines.h enum qpu_raddr).
// Where files A and B differ the constant names both.
const (
	RUniform      RAddr = 32 // UNIFORM_READ: pop the next uniform (both files)
	RVarying      RAddr = 35 // VARYING_READ: partial varying; its C goes to r5 (both files)
	RElementQPU   RAddr = 38 // A: ELEMENT_NUMBER, B: QPU_NUMBER
	RNop          RAddr = 39 // no read
	RPixelCoord   RAddr = 41 // A: X_PIXEL_COORD, B: Y_PIXEL_COORD
	RMSFlagsRev   RAddr = 42 // A: MS_FLAGS, B: REV_FLAG
	RVPM          RAddr = 48 // VPM_READ (both files)
	RVPMBusy      RAddr = 49 // A: VPM_LD_BUSY, B: VPM_ST_BUSY
	RVPMWait      RAddr = 50 // A: VPM_LD_WAIT, B: VPM_ST_WAIT
	RMutexAcquire RAddr = 51 // MUTEX_ACQUIRE (both files)
)

// Read-side names, file A then file B. Mesa's vc4_qpu_disasm.c
// (special_read_a/b) and vc4asm use similar spellings.
var readNames = [2][32]string{
	{0: "unif", 3: "vary", 6: "elem_num", 7: "nop", 9: "x_coord", 10: "ms_flags",
		16: "vpm", 17: "vpm_ld_busy", 18: "vpm_ld_wait", 19: "mutex"},
	{0: "unif", 3: "vary", 6: "qpu_num", 7: "nop", 9: "y_coord", 10: "rev_flag",
		16: "vpm", 17: "vpm_st_busy", 18: "vpm_st_wait", 19: "mutex"},
}

// Name returns the name of the location read from file f: ra0..ra31,
// rb0..rb31, an I/O name such as unif or vary, or "ra_io33"-style for the
// unmapped I/O addresses (which read the element or QPU number, AG §3
// "Inter-Processor Mutex").
func (r RAddr) Name(f RegFile) string {
	r &= 63
	if r < 32 {
		return "r" + f.String() + strconv.Itoa(int(r))
	}
	if n := readNames[f&1][r-32]; n != "" {
		return n
	}
	return "r" + f.String() + "_io" + strconv.Itoa(int(r))
}

// WAddr is a write address, waddr_add or waddr_mul (AG Table 14, write
// columns). Which file a 0-31 write goes to depends on ws (AG Table 1).
type WAddr uint8

// Write addresses of AG Table 14 (Linux vc4_qpu_defines.h enum qpu_waddr).
const (
	WAcc0            WAddr = 32 // r0
	WAcc1            WAddr = 33 // r1
	WAcc2            WAddr = 34 // r2
	WAcc3            WAddr = 35 // r3
	WTMUNoSwap       WAddr = 36 // TMU_NOSWAP
	WAcc5            WAddr = 37 // r5: A replicates element 0 of each quad, B element 0 to all (vc4asm addendum; doc/hardware.md#machine)
	WHostInt         WAddr = 38 // HOST_INT
	WNop             WAddr = 39 // no write
	WUniformsAddress WAddr = 40 // UNIFORMS_ADDRESS
	WQuadXY          WAddr = 41 // A: QUAD_X, B: QUAD_Y
	WMSFlagsRev      WAddr = 42 // A: MS_FLAGS, B: REV_FLAG
	WTLBStencilSetup WAddr = 43
	WTLBZ            WAddr = 44
	WTLBColourMS     WAddr = 45
	WTLBColourAll    WAddr = 46
	WTLBAlphaMask    WAddr = 47
	WVPM             WAddr = 48 // VPM_WRITE
	WVPMVCDSetup     WAddr = 49 // A: VPMVCD_RD_SETUP (vr_setup), B: VPMVCD_WR_SETUP (vw_setup)
	WVPMAddr         WAddr = 50 // A: VPM_LD_ADDR, B: VPM_ST_ADDR (DMA)
	WMutexRelease    WAddr = 51
	WSFURecip        WAddr = 52
	WSFURecipSqrt    WAddr = 53
	WSFUExp          WAddr = 54
	WSFULog          WAddr = 55
	WTMU0S           WAddr = 56 // S coordinate; the S write submits the request
	WTMU0T           WAddr = 57
	WTMU0R           WAddr = 58
	WTMU0B           WAddr = 59
	WTMU1S           WAddr = 60
	WTMU1T           WAddr = 61
	WTMU1R           WAddr = 62
	WTMU1B           WAddr = 63
)

// Write-side names for addresses 32-63, file A then file B. Mesa's
// special_write spellings, with the guide's "colour" and vc4asm's r5quad
// and r5rep for the two meanings of address 37.
var writeNames = [2][32]string{
	{"r0", "r1", "r2", "r3", "tmu_noswap", "r5quad", "host_int", "nop",
		"unif_addr", "quad_x", "ms_flags", "tlb_stencil_setup", "tlb_z", "tlb_colour_ms", "tlb_colour_all", "tlb_alpha_mask",
		"vpm", "vr_setup", "vr_addr", "mutex_release", "sfu_recip", "sfu_recipsqrt", "sfu_exp", "sfu_log",
		"tmu0_s", "tmu0_t", "tmu0_r", "tmu0_b", "tmu1_s", "tmu1_t", "tmu1_r", "tmu1_b"},
	{"r0", "r1", "r2", "r3", "tmu_noswap", "r5rep", "host_int", "nop",
		"unif_addr", "quad_y", "rev_flag", "tlb_stencil_setup", "tlb_z", "tlb_colour_ms", "tlb_colour_all", "tlb_alpha_mask",
		"vpm", "vw_setup", "vw_addr", "mutex_release", "sfu_recip", "sfu_recipsqrt", "sfu_exp", "sfu_log",
		"tmu0_s", "tmu0_t", "tmu0_r", "tmu0_b", "tmu1_s", "tmu1_t", "tmu1_r", "tmu1_b"},
}

// Name returns the name of the location written through file f: ra0..ra31,
// rb0..rb31 or an I/O name (r0, tlb_z, vw_setup, ...).
func (w WAddr) Name(f RegFile) string {
	w &= 63
	if w < 32 {
		return "r" + f.String() + strconv.Itoa(int(w))
	}
	return writeNames[f&1][w-32]
}

// IsPhysical reports whether the address is a physical register (0-31).
func (w WAddr) IsPhysical() bool { return w < 32 }

// IsTMU reports whether the address is a TMU parameter register (56-63).
func (w WAddr) IsTMU() bool { return w >= WTMU0S && w <= WTMU1B }

// IsTMUSubmit reports whether the address is TMU0_S or TMU1_S, whose write
// submits a texture request (AG §4 "TMU Setup").
func (w WAddr) IsTMUSubmit() bool { return w == WTMU0S || w == WTMU1S }

// IsSFU reports whether the address is one of the SFU registers (52-55).
func (w WAddr) IsSFU() bool { return w >= WSFURecip && w <= WSFULog }

// IsTLB reports whether the address writes the tile buffer: Z, colour (MS
// or all) or alpha mask (AG §5 "QPU Registers for Tile Buffer Access").
// TLB_STENCIL_SETUP only sets up the stencil test and is not included, as
// in Mesa's qpu_waddr_is_tlb.
func (w WAddr) IsTLB() bool { return w >= WTLBZ && w <= WTLBAlphaMask }

// IsAccumulator reports whether the address is r0-r3 or r5, returning the
// accumulator's number.
func (w WAddr) IsAccumulator() (n int, ok bool) {
	switch {
	case w >= WAcc0 && w <= WAcc3:
		return int(w - WAcc0), true
	case w == WAcc5:
		return 5, true
	}
	return 0, false
}
