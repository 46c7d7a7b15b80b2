package gem

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// PeekHangState reports whether the kernel holds the state of a GPU hang
// (DRM_IOCTL_VC4_GET_HANG_STATE, root only) without reading it: asked
// with room for no BO, the kernel only says how many BOs the state has
// and keeps it (vc4_gem.c vc4_get_hang_state_ioctl); ENOENT means there
// is none, which is not an error here. Any other failure is returned as
// the bare errno — EACCES for a caller that is not root (DRM_ROOT_ONLY) —
// so that the caller can tell why. scratch is the argument, which the
// caller keeps so that a peek per frame allocates nothing.
func PeekHangState(c uapi.Conn, scratch *uapi.GetHangState) (bool, error) {
	*scratch = uapi.GetHangState{}
	err := c.Ioctl(uapi.IoctlGetHangState, unsafe.Pointer(scratch))
	switch {
	case errors.Is(err, unix.ENOENT):
		return false, nil
	case err != nil:
		return false, err
	}
	return scratch.BOCount > 0, nil
}

// CloseBOs closes the handles GetHangStateReport made in c for the hung
// jobs' BOs, which keep the BOs alive until they are closed. It returns
// the first error.
func (h *HangReport) CloseBOs(c uapi.Conn) error {
	var first error
	for _, bo := range h.BOs {
		if err := drm.CloseHandle(c, bo.Handle); err != nil && first == nil {
			first = err
		}
	}
	h.BOs = nil
	return first
}

// The fields of the registers a hang state holds: the reference guide's
// register tables (VideoCore IV 3D Architecture Reference Guide, Table 49
// V3D_CTnCS, Table 87 V3D_ERRSTAT, Table 88 V3D_DBGE, Table 89 V3D_FDBGO;
// the CTnCS bits as vc4_regs.h names them). The kernel saves no QPU or TMU
// register (vc4_gem.c vc4_save_hang_state): what a hang state tells is
// where the two control lists stood, the binner's memory, and these error
// and FIFO status bits.
const (
	ctSEMA  = 12     // bits 14:12, the thread's counting semaphore
	ctRTSD  = 8      // bits 9:8, return stack depth (list nesting)
	ctRUN   = 1 << 5 // the thread runs
	ctSUBS  = 1 << 4 // running: stalled, waiting for the other thread; stopped: at halt
	ctERR   = 1 << 3 // stopped with an error
	errMask = 0xffff
)

// errstatBits are V3D_ERRSTAT's bits (Table 87). VCDI (bit 12) is "VCD
// idle", a state, not an error.
var errstatBits = [16]string{
	0: "VPM allocator: allocating base while busy (VPAEABB)", 1: "VPM allocator: request too big (VPAERGS)",
	2: "VPM allocator: binner request greater than limit (VPAEBRGL)", 3: "VPM allocator: renderer request greater than limit (VPAERRGL)",
	4: "VPM: write range (VPMEWR)", 5: "VPM: read range (VPMERR)", 6: "VPM: read non-allocated (VPMERNA)",
	7: "VPM: write non-allocated (VPMEWNA)", 8: "VPM: free non-allocated (VPMEFNA)", 9: "VPM: allocated size (VPMEAS)",
	10: "VDW: address overflows (VDWE)", 11: "VCD: FIFO pointers out of sync (VCDE)", 12: "",
	13: "VCM, renderer (VCMRE)", 14: "VCM, binner (VCMBE)", 15: "L2C AXI receive FIFO overrun (L2CARE)",
}

// dbgeBits are V3D_DBGE's bits (Table 88, "PSE error signals").
var dbgeBits = map[uint]string{
	1: "error a reading VPM (VR1_A)", 2: "error b reading VPM (VR1_B)",
	16: "MULIP0", 17: "MULIP1", 18: "MULIP2", 19: "IPD2_VALID", 20: "IPD2_FPDUSED",
}

// fdbgoBits are V3D_FDBGO's overrun bits (Table 89, "FEP overrun error
// signals"); bits 1, 2 and 11 are FIFO-full flags the guide marks "not an
// error" and are left out.
var fdbgoBits = map[uint]string{
	3: "QBFR_FIFO_ORUN", 4: "QBSZ_FIFO_ORUN", 5: "XYFO_FIFO_ORUN", 6: "FIXZ_ORUN", 7: "XYRELO_FIFO_ORUN",
	10: "XYRELW_FIFO_ORUN", 12: "REFXY_FIFO_ORUN", 13: "DEPTHO_FIFO_ORUN", 14: "DEPTHO_ORUN",
	15: "EZVAL_FIFO_ORUN", 17: "EZREQ_FIFO_ORUN",
}

// Summary describes the hang state for a person, one line per subject:
// where the binning and the rendering control lists stood, the binner's
// memory, the error bits set, the FEP status words, and how many BOs the
// hung jobs had.
func (h *HangReport) Summary() []string {
	s := &h.State
	lines := []string{
		"binning (thread 0): " + listState(s.StartBin, s.Ct0ca, s.Ct0ea, s.Ct0cs),
		"rendering (thread 1): " + listState(s.StartRender, s.Ct1ca, s.Ct1ea, s.Ct1cs),
	}
	mem := fmt.Sprintf("binner memory: pool at 0x%08x with %d bytes left, overflow block at 0x%08x with %d bytes", s.Bpca, s.Bpcs, s.Bpoa, s.Bpos)
	// A binner that was given a pool (BPCA set) and has no byte left in
	// it nor in an overflow block stalls until the kernel gives it one
	// (vc4_irq.c vc4_overflow_mem_work).
	if s.Bpca != 0 && s.Bpcs == 0 && s.Bpos == 0 && s.StartBin != 0 && s.Ct0ca != s.Ct0ea {
		mem += " (the binner ran out of memory: the kernel had no 512 KiB slot left to give it)"
	}
	lines = append(lines, mem)
	var errs []string
	for i, name := range errstatBits {
		if name != "" && s.Errstat&(1<<i) != 0 {
			errs = append(errs, name)
		}
	}
	errs = appendBits(errs, "PSE ", s.Dbge, dbgeBits)
	errs = appendBits(errs, "FEP overrun ", s.Fdbgo, fdbgoBits)
	if len(errs) == 0 {
		lines = append(lines, "error bits: none (ERRSTAT, DBGE, FDBGO)")
	} else {
		lines = append(lines, "error bits: "+strings.Join(errs, ", "))
	}
	lines = append(lines, fmt.Sprintf("FEP status: FDBGB 0x%08x, FDBGR 0x%08x, FDBGS 0x%08x; VPMBASE 0x%08x", s.Fdbgb, s.Fdbgr, s.Fdbgs, s.Vpmbase))
	lines = append(lines, fmt.Sprintf("%d BOs of the hung jobs (the kernel keeps them for this read; no QPU or TMU registers are saved)", s.BOCount))
	return lines
}

// listState describes one control-list thread: how far it got from its
// start, and its status register (CTnCS, Table 49).
func listState(start, ca, ea, cs uint32) string {
	if start == 0 {
		return "no job"
	}
	var where string
	switch {
	case ca == ea:
		where = fmt.Sprintf("list 0x%08x-0x%08x finished", start, ea)
	case ca >= start && ea > start && ca < ea:
		where = fmt.Sprintf("stopped at 0x%08x, byte %d of the %d-byte list at 0x%08x (%d%%)",
			ca, ca-start, ea-start, start, uint64(ca-start)*100/uint64(ea-start))
	default:
		where = fmt.Sprintf("at 0x%08x, outside its list 0x%08x-0x%08x (in a sub-list; return address in CTnRA0)", ca, start, ea)
	}
	var state string
	switch {
	case cs&ctRUN != 0 && cs&ctSUBS != 0:
		state = "running, stalled waiting for the other thread"
	case cs&ctRUN != 0:
		state = "running"
	case cs&ctSUBS != 0:
		state = "stopped at a halt"
	default:
		state = "stopped"
	}
	if cs&ctERR != 0 {
		state += ", with an error"
	}
	return fmt.Sprintf("%s; CTnCS 0x%04x: %s, semaphore %d, list nesting %d", where, cs&errMask, state, cs>>ctSEMA&7, cs>>ctRTSD&3)
}

// appendBits appends the names of the bits of v that names knows.
func appendBits(out []string, prefix string, v uint32, names map[uint]string) []string {
	for i := uint(0); i < 32; i++ {
		if v&(1<<i) != 0 {
			if n, ok := names[i]; ok {
				out = append(out, prefix+n)
			}
		}
	}
	return out
}
