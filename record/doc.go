// Package record writes an animation of the frames a program renders, so
// that the cube can be shown without a Raspberry Pi: vccube's -record
// out.gif.
//
// The format is GIF89a, which every browser and image viewer plays and
// the standard library decodes (image/gif), so tests read back exactly
// what was written. APNG would keep full colour but nothing in the
// standard library reads it; it is not written.
//
// # Frames and colours
//
// A frame is XRGB8888 bytes with a pitch (the renderer's colour buffer or
// a scanout buffer) or an image.Image. Each frame is quantised to its own
// palette of at most 256 colours by median cut (palette.go), which keeps a
// frame's dominant exact colours — vkcube's 0.2 grey background stays
// exactly (51, 51, 51) — and the rest of the picture within a few levels.
// There is no dithering: dither noise changes from frame to frame, which
// flickers and defeats GIF's compression, while the cube's flat-lit faces
// quantise well without it.
//
// Each frame after the first holds only the rectangle that changed since
// the frame before it, drawn over it ("do not dispose"); a frame with no
// change is one transparent pixel, which keeps the frame count and the
// timing. Options.Scale shrinks frames by a whole factor (box average) to
// keep files small.
//
// # Timing and looping
//
// The animation loops forever (the Netscape 2.0 extension, loop count 0).
// Frame delays follow Options.FPS in whole hundredths of a second: frame
// k starts at round(100·k/FPS), so that 30 fps is 3, 4, 3, 3, 4, 3, … and
// keeps its rate; no delay is below 2, because browsers play delays of 0
// and 1 as 10, so rates above 50 fps play at 50 (60 fps is 20 % slow).
//
// # Streaming and memory
//
// Frames are encoded and written as they are added; nothing is kept of
// earlier frames but the previous one. A GIF holds, for a W×H animation
// (after scaling): the current and previous frames (8·W·H bytes), the
// palette indices of a frame (W·H bytes), a source row when scaling, the
// palette's histogram and tables (about 0.9 MiB), a 64 KiB write buffer
// and LZW's table (about 20 KiB) — about 5.4 MB for 800×600, whatever the
// number of frames. Adding a frame allocates nothing after the first.
//
// Create opens the file at once (a temporary file next to it, renamed by
// Close), so an unwritable path is reported before the first frame is
// rendered, and a run that fails — Discard — leaves nothing behind.
package record
