package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/vccube/vccube/math/scene"
	"github.com/vccube/vccube/present"
	"github.com/vccube/vccube/record"
	"github.com/vccube/vccube/sim"
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
	view         bool   // show the simulated display in the terminal
	record       string // "" or the GIF -record writes
	recordScale  int
	buffers      int           // scanout buffers in the swap chain
	atomic       bool          // present with atomic commits (kmscube -A)
	trace        string        // "" or the file -trace writes every ioctl to
	cpuProfile   string        // "" or the file -cpuprofile writes
	memProfile   string        // "" or the file -memprofile writes
	replay       string        // "" or the trace -replay plays back (tools.go)
	selftest     bool          // -selftest (tools.go)
	bundle       string        // where -selftest writes its bundle on a difference
	simFaults    sim.FaultSpec // -sim-faults: faults for the simulated device
	simFaultList string
	version      bool // -version: print the version and exit
	// given holds the flags the command line set, by name.
	given map[string]bool
}

// recordFrames is the length of a -record run when -frames is not given:
// one full turn at the default 4° per frame (scene.SpinDegreesPerFrame),
// so the animation loops without a jump.
const recordFrames = fullTurn / defaultSpin

// viewMode is the mode the simulated device's own monitor is driven at
// when -mode does not say otherwise: the smallest it offers (VESA DMT
// 640x480@60). A terminal shows a few hundred pixels across at most, and
// rendering 1920x1080 for it would only make the simulated GPU miss
// vblanks; it is the same when the terminal does not show it (-json,
// -dump, -view=false, stdout not a terminal), so that where stdout goes
// does not change the frames.
var viewMode = present.ModeSpec{Width: 640, Height: 480}

// renderOnlySize is the frame size of a -vsync=false run without -mode:
// the size of the mode a typical HDMI monitor prefers. A render-only run
// does not touch the display (as kmscube's -O), so it cannot ask it.
const renderOnlyWidth, renderOnlyHeight = 1920, 1080

const usageHead = `vccube spins vkcube's textured, lit cube on a Raspberry Pi 0-3 through the
Linux vc4 driver (no Mesa): it drives the VideoCore IV GPU with DRM ioctls and
shows frames with KMS page flips. Without a VideoCore IV it runs the same code
on a simulated device.

Usage: vccube [flags]

On the simulated device, with no -display, the cube is shown live in the
terminal when stdout is one (-view=false turns that off). When nothing shows
the frames (stdout is not a terminal, -view=false, or -vsync=false) and no
flag says what the run is for (-frames, -record, -capture, -benchmark, -json,
-dump, -trace), vccube renders one full turn (90 frames), prints the report
and says how to see the cube.

Keys (from a text console or the terminal view): left/right arrow
slower/faster (reverse past zero), space pause, q or Esc quit. Ctrl-C or
SIGTERM end the program and put the display and the terminal back as they
were.

Flags:
`

// parseArgs reads the command line. -help returns flag.ErrHelp after
// printing the usage to help; any other mistake is returned as an error
// that says what is wrong, without the usage, so that the message is the
// last thing on the screen rather than scrolled away above the flag list.
func parseArgs(args []string, help io.Writer) (*config, error) {
	c := &config{}
	fs := flag.NewFlagSet("vccube", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // the flag package's own message and usage; the error says it
	fs.Usage = func() {}
	fs.StringVar(&c.device, "device", "auto", "the `GPU`: auto (the first vc4 card with VideoCore IV 3D, else the simulated device), sim, vc4serve:DIR (the simulated device a vc4serve -dir DIR serves), or a card such as /dev/dri/card0")
	fs.StringVar(&c.simFaultList, "sim-faults", "", "inject faults into the simulated device, a comma-separated `LIST` such as hang-at=3,eintr (doc/testing.md#fault-injection):\n"+strings.TrimSuffix(sim.FaultKnobs(), "\n"))
	fs.StringVar(&c.display, "display", "", "show frames on another KMS `card` such as /dev/dri/card1 (frames are copied into its dumb buffers); default: the GPU's own display")
	fs.StringVar(&c.connector, "connector", "", "connector `NAME` such as HDMI-A-1; default: the first connected")
	fs.StringVar(&c.modeText, "mode", "", "display mode `WxH[@Hz]` such as 1280x720 or 1280x720@60, at most 4095x4095; default: the display's preferred mode, 640x480 on the simulated device's own display, 1920x1080 with -vsync=false")
	fs.Var(countFlag{&c.frames, "a number of frames, 0 or more (0 runs until stopped)"}, "frames", "stop after `N` frames; 0 runs until stopped (the default, except that a run nothing shows renders one full turn: see above)")
	fs.BoolVar(&c.benchmark, "benchmark", false, "print kmscube's \"Rendered N frames in S sec (F fps)\" line every 2 s, then frame-time percentiles, page flips and GPU performance counters")
	fs.BoolVar(&c.vsync, "vsync", true, "show frames with page flips on vblank; -vsync=false only renders (submit and wait, no display), measuring the GPU path alone")
	fs.BoolVar(&c.json, "json", false, "print the end-of-run report as one JSON object on stdout (implies the -benchmark numbers)")
	fs.StringVar(&c.capture, "capture", "", "write a rendered frame to `FILE.png` (RGB)")
	c.captureFrame = -1
	fs.Var(frameFlag{&c.captureFrame}, "capture-frame", "the frame number `K` -capture writes (frame 0 is the cube unturned); default: the last frame rendered")
	fs.StringVar(&c.texture, "texture", "", "texture `FILE` (PNG, JPEG, GIF or binary PPM, up to 2048x2048); default: the built-in test texture")
	fs.BoolVar(&c.flipY, "flipy", true, "let the GPU flip the texture (FLIPY); -flipy=false flips its rows on the CPU instead (same picture)")
	fs.BoolVar(&c.dump, "dump", false, "print the first frame's control list, shader records, uniforms and the shaders' disassembly, and end the run after that frame (unless -frames, -capture-frame or -record asks for more)")
	fs.StringVar(&c.pipeline, "pipeline", "gl", "`gl` (vertex and coordinate shaders on the QPUs) or nv (CPU-shaded vertices, which the Linux vc4 driver refuses; shows why)")
	fs.BoolVar(&c.view, "view", true, "on the simulated device's display, show the cube live in the terminal (24-bit colour, two pixels per character) when stdout is a terminal")
	fs.StringVar(&c.record, "record", "", "write the frames as an animated `FILE.gif` (90 frames, one full turn that loops, unless -frames says otherwise)")
	c.recordScale = 1
	fs.Var(intFlag{&c.recordScale, fmt.Sprintf("a whole factor from 1 to %d", record.MaxScale)}, "record-scale", fmt.Sprintf("shrink the -record frames by this whole `factor` (1 to %d), averaging each block of pixels", record.MaxScale))
	fs.StringVar(&c.trace, "trace", "", "write every ioctl vccube makes to `FILE` (JSON lines; FILE.gz is compressed): the request, the argument's bytes before and after, the result, and what a replay needs (control lists, BO contents at each submit, a checksum of each frame); it is FILE.partial until the run ends, and none is kept if it cannot be written whole; -replay FILE plays it back")
	fs.StringVar(&c.replay, "replay", "", "play the GPU calls of a -trace `FILE` back on -device (the simulated device when there is no VideoCore IV) and report the first calls answered differently: errno, returned fields, rendered frames")
	fs.BoolVar(&c.selftest, "selftest", false, "run small probe jobs on the GPU and on the simulated device in this process, compare their pixels and counters, print a table, and write a bundle for a bug report on any difference")
	fs.StringVar(&c.bundle, "selftest-bundle", "vccube-selftest.tar.gz", "the `FILE.tar.gz` -selftest writes when a probe differs: the probes' jobs, images and ioctl traces, and the kernel and board, for a bug report")
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run to `FILE` (runtime/pprof; read it with go tool pprof), to see where a slow frame goes")
	fs.StringVar(&c.memProfile, "memprofile", "", "write a memory profile to `FILE` at the end of the run: every allocation since the start, by the code that made it (go tool pprof -sample_index=alloc_space)")
	fs.BoolVar(&c.atomic, "atomic", false, "show frames with atomic modesetting, as kmscube -A: a test-only commit first, then one commit per frame with the flip event and an out-fence; default: legacy SETCRTC and PAGE_FLIP")
	fs.BoolVar(&c.version, "version", false, "print vccube's version (the module version and, for a build in a git checkout, its revision) and exit")
	c.buffers = 2
	fs.Var(intFlag{&c.buffers, "2 (double buffering) or 3 (triple buffering)"}, "buffers", "scanout `buffers` in the swap chain: 2 (double buffering) or 3 (triple: the next frame is drawn while the last one waits for its vblank, so a frame now and then slower than a refresh period does not cost a vblank; one frame more latency)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(help, usageHead)
			fs.SetOutput(help)
			fs.PrintDefaults()
			return nil, err
		}
		return nil, fmt.Errorf("%w (vccube -help lists the flags)", err)
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	c.given = given
	if c.version {
		if len(given) > 1 || fs.NArg() > 0 {
			return nil, errors.New("-version prints the version and exits: give it alone")
		}
		return c, nil
	}
	switch {
	case c.device == "auto" || c.device == "sim" || strings.Contains(c.device, "/"):
	default:
		return nil, fmt.Errorf("-device %q: give auto, sim or a DRM card such as /dev/dri/card0", c.device)
	}
	var err error
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q (flags start with -; see -help)", fs.Arg(0))
	}
	if err := c.checkTools(given); err != nil {
		return nil, err
	}
	if c.simFaults, err = sim.ParseFaults(c.simFaultList); err != nil {
		return nil, fmt.Errorf("-sim-faults: %w", err)
	}
	if !c.simFaults.IsZero() {
		if dir, ok := strings.CutPrefix(c.device, "vc4serve:"); ok {
			return nil, fmt.Errorf("-sim-faults: the device is vc4serve's; give the faults to it instead: vc4serve -dir %s -faults %s", dir, c.simFaultList)
		}
		if c.device != "sim" && c.device != "auto" {
			return nil, fmt.Errorf("-sim-faults injects faults into the simulated device only, not %s: use -device sim", c.device)
		}
	}
	if err := checkFrameSize(c.modeText); err != nil {
		return nil, err
	}
	if c.mode, err = present.ParseModeSpec(c.modeText); err != nil {
		return nil, fmt.Errorf("-mode %q: %w", c.modeText, err) // the error shows the form to write
	}
	switch c.pipeline {
	case "gl", "nv":
	default:
		return nil, fmt.Errorf("-pipeline %q: want gl or nv", c.pipeline)
	}
	if c.record != "" {
		if !strings.HasSuffix(strings.ToLower(c.record), ".gif") {
			return nil, fmt.Errorf("-record %q: the animation is a GIF file; name it FILE.gif", c.record)
		}
		if !given["frames"] {
			c.frames = recordFrames
		}
	}
	if c.recordScale < 1 || c.recordScale > record.MaxScale {
		return nil, fmt.Errorf("-record-scale %d: give a whole factor from 1 to %d", c.recordScale, record.MaxScale)
	}
	if c.recordScale != 1 && c.record == "" {
		return nil, errors.New("-record-scale needs -record FILE.gif")
	}
	if c.captureFrame >= 0 && c.capture == "" {
		return nil, errors.New("-capture-frame needs -capture FILE.png")
	}
	if c.dump && !given["frames"] && c.record == "" {
		// A dump run ends after what it dumps, the first frame, or
		// after the frame -capture-frame asks for; without this it
		// would run until stopped, unseen when stdout is a pipe.
		c.frames = 1
		if c.captureFrame >= 0 {
			c.frames = uint64(c.captureFrame) + 1
		}
	}
	if c.frames > 0 && c.captureFrame >= int64(c.frames) {
		return nil, fmt.Errorf("-capture-frame %d is never rendered with -frames %d (frames 0 to %d)", c.captureFrame, c.frames, c.frames-1)
	}
	if c.capture != "" && !strings.HasSuffix(strings.ToLower(c.capture), ".png") {
		return nil, fmt.Errorf("-capture %q: the capture is a PNG file; name it FILE.png", c.capture)
	}
	if c.buffers < 2 || c.buffers > 3 {
		return nil, fmt.Errorf("-buffers %d: give 2 (double buffering) or 3 (triple buffering)", c.buffers)
	}
	if !c.vsync {
		for _, name := range []string{"display", "connector", "buffers", "atomic"} {
			if given[name] {
				return nil, fmt.Errorf("-%s says how frames are shown, and -vsync=false shows none (it only renders); drop one of the two", name)
			}
		}
	}
	if c.dump && c.json {
		return nil, errors.New("-dump and -json both write to stdout, which -json keeps for one JSON object; use one at a time")
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

// recordFPS is the rate the -record animation plays at: the refresh rate
// -mode asks for, else 60 Hz (record.DefaultFPS), the rate vkcube turns the
// cube at on a common monitor. It is decided before any device is opened,
// since record.Create takes it and must run first; GIF cannot show more
// than 50 frames a second anyway (see package record), so the exact
// refresh of a 59.94 or 60 Hz mode makes no difference.
func (c *config) recordFPS() float64 {
	if c.mode.RefreshMilliHz != 0 {
		return float64(c.mode.RefreshMilliHz) / 1000
	}
	return record.DefaultFPS
}

// checkFrameSize refuses a -mode whose width or height is larger than
// any frame the renderer draws (scene.MaxViewportSize), whatever else
// is wrong with it, so that a too-large mode meets one limit, said in
// the user's terms, rather than the mode syntax's or the renderer's
// (the viewport's fixed-point range) depending on its size.
func checkFrameSize(mode string) error {
	size, _, _ := strings.Cut(strings.ToLower(mode), "@")
	w, h, ok := strings.Cut(size, "x")
	if !ok {
		return nil // ParseModeSpec says what is wrong
	}
	for _, v := range []string{w, strings.TrimSuffix(h, "i")} {
		if n, err := strconv.ParseUint(v, 10, 64); err == nil && n > scene.MaxViewportSize ||
			errors.Is(err, strconv.ErrRange) {
			return fmt.Errorf("-mode %s: vccube draws frames of at most %dx%d pixels; give a smaller -mode", mode,
				scene.MaxViewportSize, scene.MaxViewportSize)
		}
	}
	return nil
}

// countFlag is a flag of a count that is 0 or more; want says what to
// give, for the message of a value that is not one.
type countFlag struct {
	p    *uint64
	want string
}

func (f countFlag) String() string {
	if f.p == nil {
		return "0"
	}
	return strconv.FormatUint(*f.p, 10)
}

func (f countFlag) Set(s string) error {
	n, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		return fmt.Errorf("give %s", f.want)
	}
	*f.p = n
	return nil
}

// intFlag is a whole-number flag whose message says what to give.
type intFlag struct {
	p    *int
	want string
}

func (f intFlag) String() string {
	if f.p == nil {
		return "0"
	}
	return strconv.Itoa(*f.p)
}

func (f intFlag) Set(s string) error {
	n, err := strconv.ParseInt(s, 0, 32)
	if err != nil {
		return fmt.Errorf("give %s", f.want)
	}
	*f.p = int(n)
	return nil
}

// frameFlag is -capture-frame: a frame number, 0 or more; its default
// (-1, the last frame) is not shown as a number.
type frameFlag struct{ p *int64 }

func (f frameFlag) String() string {
	if f.p == nil || *f.p < 0 {
		return ""
	}
	return strconv.FormatInt(*f.p, 10)
}

func (f frameFlag) Set(s string) error {
	n, err := strconv.ParseInt(s, 0, 64)
	if err != nil || n < 0 {
		// -1 is the default's inner value (the last frame), not a
		// frame number: leaving the flag out asks for the last frame.
		return errors.New("give a frame number, 0 or more (frame 0 is the cube unturned; without -capture-frame, -capture writes the last frame)")
	}
	*f.p = n
	return nil
}
