// Command vccube spins vkcube's textured, lit cube on a Raspberry Pi 0–3
// through the Linux vc4 DRM driver, without Mesa: it renders with the
// VideoCore IV's own control lists and QPU shaders (package cuberender) and
// shows the frames with KMS page flips on vblank (package present). On a
// machine without a VideoCore IV it runs the same code on the simulated
// device (package sim).
//
// It also measures (kmscube's "Rendered N frames in S sec (F fps)" line,
// frame-time percentiles, missed vblanks, the GPU's performance counters),
// captures frames to PNG, and prints the first frame's control lists.
// Run it with -help for the flags; README.md explains them.
package main

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/vccube/vccube/cmd/vccube/internal/keys"
	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/selftest"
	"github.com/vccube/vccube/uapi"
)

// env is what run needs from the outside world, so tests can run the
// program's own code path on the simulated device.
type env struct {
	stdin          *os.File // keys, when it is a terminal
	stdout, stderr io.Writer
	// driDir is where -device auto looks for cards (drm.DefaultDir).
	driDir string
	// openSim opens the simulated device.
	openSim simOpener
	// openCard opens a card node: -device auto's candidates in driDir,
	// -device PATH and -display PATH; nil means drm.Open.
	openCard func(path string) (uapi.Conn, error)
	// keys, if not nil, replaces the terminal as the source of keys.
	keys <-chan keys.Key
	// afterFrame, if not nil, is called after each frame is shown (or
	// rendered, without vsync) with its number.
	afterFrame func(frame uint64)
	// selftest, if not nil, adjusts -selftest's configuration (tests
	// perturb the model with it).
	selftest func(*selftest.Config)
	// waitTimeout, if not 0, replaces cuberender.DefaultWaitTimeout (tests
	// of a GPU that stays hung need not wait five seconds).
	waitTimeout time.Duration
	// flipTimeout, if not 0, replaces present.DefaultFlipTimeout (tests
	// of a display that never flips need not wait ten seconds).
	flipTimeout time.Duration
}

func main() {
	e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, driDir: drm.DefaultDir, openSim: defaultSim}
	os.Exit(run(context.Background(), os.Args[1:], e))
}
