package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/vccube/vccube/present"
)

// config is what the command line asks for.
type config struct {
	device       string // auto, sim or a /dev/dri/cardN path
	display      string // "" (the GPU's own display) or a /dev/dri/cardN path
	connector    string
	mode         present.ModeSpec
	modeText     string
	frames       uint64 // 0: until stopped
	benchmark    bool
	vsync        bool
	json         bool
	capture      string
	captureFrame int64 // -1: the last frame rendered
	texture      string
	flipY        bool
	dump         bool
	pipeline     string // gl or nv
}

// renderOnlySize is the frame size of a -vsync=false run without -mode:
// the size of the mode a typical HDMI monitor prefers. A render-only run
// does not touch the display (as kmscube's -O), so it cannot ask it.
const renderOnlyWidth, renderOnlyHeight = 1920, 1080

const usageHead = `vccube spins vkcube's textured, lit cube on a Raspberry Pi 0-3 through the
Linux vc4 driver (no Mesa): it drives the VideoCore IV GPU with DRM ioctls and
shows frames with KMS page flips. Without a VideoCore IV it runs the same code
on a simulated device.

Usage: vccube [flags]

Keys (from a text console): left/right arrow slower/faster (reverse past
zero), space pause, q or Esc quit. Ctrl-C or SIGTERM end the program and put
the display back as it was.

Flags:
`

// parseArgs reads the command line. A usage error is returned as it is;
// -help returns flag.ErrHelp after printing the usage to w.
func parseArgs(args []string, w io.Writer) (*config, error) {
	c := &config{}
	fs := flag.NewFlagSet("vccube", flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprint(w, usageHead)
		fs.PrintDefaults()
	}
	fs.StringVar(&c.device, "device", "auto", "GPU: `auto` (the first vc4 card with VideoCore IV 3D, else the simulated device), sim, or a card such as /dev/dri/card0")
	fs.StringVar(&c.display, "display", "", "show frames on another KMS card such as /dev/dri/card1 (frames are copied into its dumb buffers); default: the GPU's own display")
	fs.StringVar(&c.connector, "connector", "", "connector `NAME` such as HDMI-A-1; default: the first connected")
	fs.StringVar(&c.modeText, "mode", "", "display mode `WxH[@Hz]` such as 1280x720 or 1280x720@60; default: the display's preferred mode (1920x1080 with -vsync=false)")
	fs.Uint64Var(&c.frames, "frames", 0, "stop after `N` frames; 0 runs until stopped")
	fs.BoolVar(&c.benchmark, "benchmark", false, "print kmscube's \"Rendered N frames in S sec (F fps)\" line every 2 s, then frame-time percentiles, page flips and GPU performance counters")
	fs.BoolVar(&c.vsync, "vsync", true, "show frames with page flips on vblank; -vsync=false only renders (submit and wait, no display), measuring the GPU path alone")
	fs.BoolVar(&c.json, "json", false, "print the end-of-run report as one JSON object on stdout (implies the -benchmark numbers)")
	fs.StringVar(&c.capture, "capture", "", "write a rendered frame to `FILE.png` (RGB)")
	fs.Int64Var(&c.captureFrame, "capture-frame", -1, "the frame number `K` -capture writes (frame 0 is the cube unturned); default: the last frame rendered")
	fs.StringVar(&c.texture, "texture", "", "texture `FILE` (PNG, JPEG, GIF or binary PPM, up to 2048x2048); default: the built-in test texture")
	fs.BoolVar(&c.flipY, "flipy", true, "let the GPU flip the texture (FLIPY); -flipy=false flips its rows on the CPU instead (same picture)")
	fs.BoolVar(&c.dump, "dump", false, "print the first frame's control list, shader records, uniforms and the shaders' disassembly")
	fs.StringVar(&c.pipeline, "pipeline", "gl", "`gl` (vertex and coordinate shaders on the QPUs) or nv (CPU-shaded vertices, which the Linux vc4 driver refuses; shows why)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q (flags start with -; see -help)", fs.Arg(0))
	}
	var err error
	if c.mode, err = present.ParseModeSpec(c.modeText); err != nil {
		return nil, fmt.Errorf("-mode %q: %w (write it as 1280x720 or 1280x720@60)", c.modeText, err)
	}
	switch c.pipeline {
	case "gl", "nv":
	default:
		return nil, fmt.Errorf("-pipeline %q: want gl or nv", c.pipeline)
	}
	if c.captureFrame < -1 {
		return nil, fmt.Errorf("-capture-frame %d: frame numbers start at 0", c.captureFrame)
	}
	if c.captureFrame >= 0 && c.capture == "" {
		return nil, errors.New("-capture-frame needs -capture FILE.png")
	}
	if c.frames > 0 && c.captureFrame >= int64(c.frames) {
		return nil, fmt.Errorf("-capture-frame %d is never rendered with -frames %d (frames 0 to %d)", c.captureFrame, c.frames, c.frames-1)
	}
	if c.capture != "" && !strings.HasSuffix(strings.ToLower(c.capture), ".png") {
		return nil, fmt.Errorf("-capture %q: the capture is a PNG file; name it FILE.png", c.capture)
	}
	if c.json {
		c.benchmark = true
	}
	return c, nil
}

// size is the frame size of a run without a display.
func (c *config) renderOnlySize() (int, int) {
	if c.mode.Width != 0 && c.mode.Height != 0 {
		return int(c.mode.Width), int(c.mode.Height)
	}
	return renderOnlyWidth, renderOnlyHeight
}
