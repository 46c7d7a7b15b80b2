// Package present shows rendered frames on a KMS display: it chooses the
// connector, mode and CRTC, saves the CRTC's state and restores it on every
// way out, registers scanout framebuffers, and presents frames with page
// flips paced by the display's vblank.
//
// # Choosing what to drive
//
// Open follows kmscube (drm-common.c): the first connected connector (or
// one named like "HDMI-A-1"), the mode the display prefers (else the
// largest, or one the user names as "WxH" or "WxH@Hz"), and the CRTC the
// connector's encoder drives now (else the first CRTC its encoders can
// use, preferring one that is idle). Each refusal is an error that says
// what to do: connect a display, pick one of the listed modes, run from a
// text console while another program holds DRM master.
//
// # GPU and display are separate choices
//
// On a Raspberry Pi the vc4 card renders and scans out, so framebuffers are
// made straight from the renderer's GEM handles (AddGEMBuffer; linear or
// VideoCore IV T-tiled). When the display is another card (VKMS, i915,
// virtio-gpu, or a real display driven by the simulated GPU) the scanout
// buffers are dumb buffers of the display card (NewDumbBuffer) and each
// finished frame is copied into the back buffer (Buffer.CopyFrom) before
// it is flipped.
//
// # Presenting
//
// A Swapchain owns two or more buffers and keeps the two rules of double
// buffering: never draw into the buffer being scanned out (Acquire hands
// out only buffers that are neither on screen nor waiting to be), and
// never flip a buffer before its rendering finished (Present's caller
// passes a buffer whose render it has waited for). The first Present sets
// the mode (SETCRTC); every later one is a PAGE_FLIP with
// DRM_MODE_PAGE_FLIP_EVENT, and at most one flip is pending at a time:
// Present and Acquire wait for the pending flip's completion event
// (poll(2) on Conn.Fd with a timeout, then drm.EventReader) before they
// need it. Every completion is recorded with its vblank sequence and
// timestamp; sequence jumps above one count as missed vblanks. The frame
// loop allocates nothing.
//
// # Leaving the screen as it was
//
// Open saves the CRTC (its framebuffer, mode, position and the connectors
// it drove). Display.Restore puts that state back and removes every
// framebuffer the Display added; it is idempotent and safe from any
// goroutine. Display.Close restores and then frees the dumb buffers.
//
// The program wires signals with RestoreOnSignal. The contract: when
// SIGINT or SIGTERM arrives, the helper restores the display at once, from
// its own goroutine (so the screen comes back even if the frame loop is
// stuck waiting for the GPU), then cancels the returned context with an
// *Interrupted cause. From then on Present returns ErrRestored. The frame
// loop notices either, returns through its deferred cleanup (closing the
// Display, the buffer objects, the device) and the program exits with
// Interrupted.ExitCode (128 + the signal number, as a shell reports it).
// The helper never calls os.Exit itself, so nothing is leaked. A second
// signal after the restore takes the default action and ends the program.
package present
