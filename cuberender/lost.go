package cuberender

import (
	"encoding/binary"
	"fmt"
)

// Lost frames: how the renderer tells a frame the GPU finished from one
// the kernel gave up on.
//
// When the VideoCore IV stops making progress, the kernel's hang check
// resets it and completes the job in the render thread as if it had
// finished (vc4_gem.c vc4_hangcheck_elapsed, vc4_reset; vc4_irq.c
// vc4_irq_reset): WAIT_SEQNO returns 0 for it and no ioctl says anything
// went wrong. What a program without root can see is its own memory.
//
// The signal this file uses is authoritative for what it says — whether
// the GPU wrote the frame's last tile: before each submit the CPU writes
// unfinishedMark into the last pixel of the colour buffer (the last row's
// last pixel, in the tile the render list stores last: the kernel emits
// the tiles in increasing x, then increasing y, unless the submit asks
// for another order with VC4_SUBMIT_CL_FIXED_RCL_ORDER, which the
// renderer does not — vc4_render_cl.c vc4_create_rcl_bo). Every frame
// that completes stores that tile, and the pixel is the clear colour with
// alpha 255 there: the cube never reaches it (its bounding sphere, radius
// √3 at √34 from the eye, spans 17.3° of the 22.5° half-height of the
// field of view, scene.FovYDegrees, so the top and bottom rows of any
// frame at least 5 rows high show the clear colour). A job reset before
// its last tile was stored leaves the mark in place. The CPU's write
// reaches memory before the job starts (the kernel's MMIO write that
// starts the job orders it: writel's barrier) and the GPU's store before
// the wait returns.
//
// Other signals, and why they are not used here:
//   - GET_HANG_STATE (root only, vc4_get_hang_state_ioctl) says that the
//     kernel reset the GPU and where the control lists stood; the
//     program reads it when it can (package gem HangReport), but it
//     holds only the first hang until someone reads it and cannot say
//     which process's job it was;
//   - the time WAIT_SEQNO took is a heuristic: a reset comes one to two
//     seconds after the GPU stopped, but a slow job that keeps moving is
//     never reset and can take as long;
//   - performance counters of the job (PERFMON) are kept for a job reset
//     in the render thread (vc4_irq_finish_render_job stops the perfmon
//     with capture) and count the work done before the hang, so they do
//     not tell a partial frame from a whole one.

// unfinishedMark is what the last pixel holds until the GPU stores the
// frame's last tile: the clear colour with alpha 0, which the TLB never
// stores there (it stores the clear colour with alpha 255).
var unfinishedMark = clearWord() &^ 0xff000000

// markOffset is the byte offset of the colour buffer's last pixel.
func (r *Renderer) markOffset() int {
	return (r.opt.Height-1)*r.colourLayout.Stride() + (r.opt.Width-1)*4
}

// markUnfinished writes unfinishedMark into colour buffer buf before its
// frame is submitted.
func (r *Renderer) markUnfinished(buf int) error {
	mem, err := r.Pixels(buf)
	if err != nil {
		return err
	}
	binary.LittleEndian.PutUint32(mem[r.markOffset():], unfinishedMark)
	return nil
}

// checkFinished checks, once per frame, the frames that job seqno drew:
// a buffer whose mark the GPU did not overwrite holds a lost frame.
func (r *Renderer) checkFinished(seqno uint64) error {
	for buf, s := range r.seqno {
		if s != seqno || !r.marked[buf] {
			continue
		}
		r.marked[buf] = false
		mem, err := r.Pixels(buf)
		if err != nil {
			return err
		}
		if binary.LittleEndian.Uint32(mem[r.markOffset():]) == unfinishedMark {
			return &LostFrameError{Seqno: seqno, Buffer: buf}
		}
	}
	return nil
}

// LostFrameError is a frame whose job ended without the GPU having drawn
// it: the kernel reset a hung GPU and completed the job anyway. The colour
// buffer holds whatever the GPU wrote before it stopped; the next frame
// can be drawn as usual (the reset left the GPU ready).
type LostFrameError struct {
	Seqno  uint64 // the frame's job, as SUBMIT_CL returned it
	Buffer int    // the colour buffer it was drawn into
}

// Error says what happened.
func (e *LostFrameError) Error() string {
	return fmt.Sprintf("render: the GPU did not finish frame seqno %d, though its job ended: "+
		"the kernel reset a hung GPU and completed the job (see dmesg for \"Resetting GPU.\")", e.Seqno)
}
