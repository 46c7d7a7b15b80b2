// Package termview shows frames live in a terminal, so that the cube can
// be watched without a Raspberry Pi: on the simulated device, in the
// terminal that started the program.
//
// # Picture
//
// Each character cell shows two pixels, one above the other: the upper
// half block "▀" in the top pixel's colour (foreground) over the bottom
// pixel's colour (background), a space when both are the same. Colours are
// 24-bit (SGR 38;2 and 48;2) when COLORTERM says the terminal has them,
// else the nearest of xterm's 256 colours (DetectColour, ColourMode).
//
// The frame is scaled to the largest size that fits the window with its
// own aspect ratio (half a cell is taken to be square unless the terminal
// reports its size in pixels) and centred; the letterbox is left in the
// terminal's own background colour. Scaling is an area average (box
// filter) in integers, exact and deterministic; frames smaller than the
// window are enlarged the same way. The picture follows the window's size
// (SIGWINCH) and is drawn again at once when it changes.
//
// # Speed
//
// ShowXRGB copies the frame and returns; a writer goroutine scales it,
// encodes it and writes it. A frame that arrives while the previous one
// still waits for the terminal replaces it: the renderer never waits for a
// slow terminal, and the terminal shows the newest frame it can take
// (Stats counts frames drawn and dropped). Only what changed is sent:
// colours only when they differ from the previous cell's, and cells only
// when they differ from the frame drawn before (the cursor jumps over the
// rest). Nothing is allocated per frame once the sizes are known; a view
// holds three copies of a frame (5.8 MB at 800×600) and two cell grids.
//
// # The terminal's state
//
// Open switches to the alternate screen and hides the cursor; Close (or
// Restore) resets the attributes, shows the cursor and leaves the
// alternate screen, so the user's screen comes back as it was. The view
// never reads the terminal: keys are the program's business (in vccube,
// cmd/vccube/internal/keys, whose raw mode keeps ISIG so Ctrl-C still
// sends SIGINT). While the view is open nothing else may write to the
// terminal; after such a write, Redraw puts the picture back.
//
// Signals: the view does not catch SIGINT or SIGTERM. A program must catch
// them and return through its deferred Close, or call Restore from its
// handler (View has the present.Restorer method set). SIGKILL cannot be
// caught; `reset` repairs the terminal by hand.
//
// The half blocks are "ambiguous width" characters in Unicode: a terminal
// set to draw those two cells wide (some CJK setups) will not show the
// picture right.
package termview
