package report

import (
	"io"
)

// MaxHangEvents bounds GPUHangs.Events: a GPU that hangs on every frame
// is described by its first hangs and counted after that.
const MaxHangEvents = 16

// GPUHangs is what a run saw of GPU hangs. The kernel resets a hung
// VideoCore IV and completes its job as if it had finished (vc4_gem.c
// vc4_hangcheck_elapsed, vc4_reset), so no ioctl fails: vccube finds a
// lost frame by a mark the GPU overwrites when it stores the frame's last
// tile (package cuberender, lost.go), and, when it runs as root, reads the
// kernel's record of the hang (GET_HANG_STATE).
type GPUHangs struct {
	// Frames counts the frames the run submitted, frame 0 included.
	Frames uint64 `json:"frames"`
	// LostFrames counts the frames whose job ended without the GPU
	// having drawn them; they were not shown.
	LostFrames uint64 `json:"lost_frames"`
	// Stuck is set when a frame never finished within the wait's
	// timeout, which ended the run.
	Stuck bool `json:"stuck"`
	// SlowFrames counts, when the hang states could not be read, the
	// frames whose job took a second or more — as long as the kernel's
	// hang check takes to reset a hung GPU — and still came out whole: a
	// heuristic, since such a frame is either one the GPU drew slowly or
	// one whose binning hung and was done again after a reset.
	SlowFrames uint64 `json:"slow_frames"`
	// SlowFramesWhere says, for the text report, where to learn which
	// of the slow frames the kernel reset; empty on a real kernel, whose
	// log (dmesg) says it.
	SlowFramesWhere string `json:"-"`
	// HangStates counts the hang states read from the kernel during the
	// run (root only); HangStateNote says why none could be read.
	HangStates    uint64 `json:"hang_states"`
	HangStateNote string `json:"hang_state_note,omitempty"`
	// Events are the first MaxHangEvents hangs, in order.
	Events []HangEvent `json:"events,omitempty"`
}

// What a HangEvent is.
const (
	HangLost   = "lost"   // the frame's job was reset and completed undrawn
	HangStuck  = "stuck"  // the frame never finished: the run stopped
	HangReset  = "reset"  // the kernel recorded a hang while the frame was drawn, yet the frame came out whole (a job restarted after its binning hung, or another program's job)
	HangBefore = "before" // a hang the kernel recorded before the run started (Frame and Seqno are 0)
)

// HangEvent is one hang.
type HangEvent struct {
	Frame uint64 `json:"frame"` // the frame's number in the run
	Seqno uint64 `json:"seqno"` // its job's seqno
	What  string `json:"what"`  // HangLost, HangStuck, HangReset or HangBefore
	// State is the kernel's record of the hang, when it could be read.
	State *HangState `json:"hang_state,omitempty"`
}

// HangState is struct drm_vc4_get_hang_state as the kernel filled it
// (vc4_gem.c vc4_save_hang_state), with a summary for a person.
type HangState struct {
	StartBin    uint32   `json:"start_bin"`
	StartRender uint32   `json:"start_render"`
	Ct0ca       uint32   `json:"ct0ca"`
	Ct0ea       uint32   `json:"ct0ea"`
	Ct1ca       uint32   `json:"ct1ca"`
	Ct1ea       uint32   `json:"ct1ea"`
	Ct0cs       uint32   `json:"ct0cs"`
	Ct1cs       uint32   `json:"ct1cs"`
	Ct0ra0      uint32   `json:"ct0ra0"`
	Ct1ra0      uint32   `json:"ct1ra0"`
	Bpca        uint32   `json:"bpca"`
	Bpcs        uint32   `json:"bpcs"`
	Bpoa        uint32   `json:"bpoa"`
	Bpos        uint32   `json:"bpos"`
	Vpmbase     uint32   `json:"vpmbase"`
	Dbge        uint32   `json:"dbge"`
	Fdbgo       uint32   `json:"fdbgo"`
	Fdbgb       uint32   `json:"fdbgb"`
	Fdbgr       uint32   `json:"fdbgr"`
	Fdbgs       uint32   `json:"fdbgs"`
	Errstat     uint32   `json:"errstat"`
	BOs         uint32   `json:"bo_count"`
	Summary     []string `json:"summary"`
}

// Any reports whether the run saw a hang.
func (h *GPUHangs) Any() bool {
	return h.LostFrames > 0 || h.Stuck || h.SlowFrames > 0 || h.HangStates > 0 || len(h.Events) > 0
}

// Text writes the hang lines of the report: a line with the counts and,
// below it, each event with its hang state. With always false nothing is
// written when there was no hang.
func (h *GPUHangs) Text(w io.Writer, always bool) error {
	ew := &errWriter{w: w}
	if !h.Any() {
		if always {
			ew.printf("GPU hangs: none\n")
		}
		return ew.err
	}
	ew.printf("GPU hangs: %d of %d frames lost", h.LostFrames, h.Frames)
	if h.Stuck {
		ew.printf(", and the next never finished (the GPU stayed hung)")
	}
	switch {
	case h.HangStateNote != "":
		ew.printf("; kernel hang states: %s", h.HangStateNote)
	default:
		ew.printf("; %d kernel hang states read", h.HangStates)
	}
	ew.printf("\n")
	if h.SlowFrames > 0 {
		where := h.SlowFramesWhere
		if where == "" {
			where = "check dmesg for \"Resetting GPU.\""
		}
		ew.printf("  %d frames took a second or more, as long as the kernel takes to reset a hung GPU: drawn slowly, "+
			"or reset and drawn again (%s)\n", h.SlowFrames, where)
	}
	for _, e := range h.Events {
		switch e.What {
		case HangBefore:
			ew.printf("  before this run: the kernel held a hang state\n")
		case HangLost:
			ew.printf("  frame %d (seqno %d): lost: the GPU hung, the kernel reset it and completed the job undrawn\n", e.Frame, e.Seqno)
		case HangStuck:
			ew.printf("  frame %d (seqno %d): never finished: the GPU stayed hung\n", e.Frame, e.Seqno)
		case HangReset:
			ew.printf("  frame %d (seqno %d): whole, but the kernel reset the GPU while it was drawn\n", e.Frame, e.Seqno)
		default:
			ew.printf("  frame %d (seqno %d): %s\n", e.Frame, e.Seqno, e.What)
		}
		if e.State != nil {
			for _, l := range e.State.Summary {
				ew.printf("    %s\n", l)
			}
		}
	}
	if n := h.LostFrames; n > uint64(len(h.Events)) && len(h.Events) == MaxHangEvents {
		ew.printf("  (the first %d hangs are listed)\n", MaxHangEvents)
	}
	return ew.err
}

// Add records an event; after MaxHangEvents it only counts in the
// totals.
func (h *GPUHangs) Add(e HangEvent) {
	if len(h.Events) < MaxHangEvents {
		h.Events = append(h.Events, e)
	}
}
