// Command vc4serve serves the simulated vc4 device (a Raspberry Pi 0-3's
// vc4 DRM driver, GPU and HDMI display) to unmodified Linux programs,
// such as kmscube on Mesa's vc4 driver, through the preload library of
// package simserve:
//
//	vc4serve -dir /tmp/vc4 &
//	VC4SIM=/tmp/vc4 LD_PRELOAD=$PWD/simserve/preload/out/amd64/vc4sim.so prog
//	qemu-aarch64-static -E VC4SIM=/tmp/vc4 -E LD_PRELOAD=.../arm64/vc4sim.so /usr/bin/kmscube -D /dev/dri/card0
//
// The program's /dev/dri/card0 (and renderD128) is then this device.
// -capture-frames and -capture write what the simulated monitor showed
// after chosen page flips as PNG files (see simserve.Capture for the
// numbering); -stats writes what each frame cost (ioctls, submitted
// bytes, the GPU's counters, the client's CPU time: simserve.FrameStats);
// -record-jobs and -record save chosen jobs as the GPU saw them (package
// sim/hw/jobfile), to run again on the GPU model without the program;
// -faults injects GPU hangs, stalls and late jobs, EINTR, a full CMA pool,
// DRM master held elsewhere or an unplugged monitor, and -kernel-hangs
// handles the hangs as Linux does (doc/testing.md#fault-injection);
// -mode WxH[@Hz] makes any size up to 2048x2048 the monitor's preferred
// mode (doc/mesa-on-sim.md#modes); -only-mode makes it the monitor's only
// mode, for programs that take the largest (glmark2); -exit-when-idle ends the server when its last
// client has gone, for scripts.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/vccube/vccube/present"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/display"
	"github.com/vccube/vccube/sim/gpu"
	"github.com/vccube/vccube/sim/hw"
	"github.com/vccube/vccube/sim/hw/jobfile"
	"github.com/vccube/vccube/simserve"
)

func main() {
	err := run(os.Args[1:])
	var bad usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
	case errors.As(err, &bad):
		fmt.Fprintf(os.Stderr, "vc4serve: %v (vc4serve -h lists the flags)\n", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "vc4serve:", err)
		os.Exit(1)
	}
}

// usageHead is the start of -h, before the flags.
const usageHead = `vc4serve serves the simulated vc4 device (a Raspberry Pi 0-3's vc4 DRM
driver, VideoCore IV GPU and HDMI display) to unmodified Linux programs, such
as kmscube on Mesa's vc4 driver, through the preload library of package
simserve (doc/mesa-on-sim.md): the program's /dev/dri/card0 is this device.

Usage: vc4serve -dir DIR [flags]

	vc4serve -dir /tmp/vc4 &
	VC4SIM=/tmp/vc4 LD_PRELOAD=$PWD/simserve/preload/out/amd64/vc4sim.so PROGRAM

It serves until SIGINT or SIGTERM (or, with -exit-when-idle, until its last
client has gone).

Flags:
`

// usageError is a mistake on the command line: the exit status is 2.
type usageError struct{ error }

// usagef makes a usageError.
func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// run is the server. -h prints the usage on stdout and returns
// flag.ErrHelp; a mistake on the command line is a usageError.
func run(args []string) error { return runServing(args, nil) }

// runServing is run, calling serving (if not nil) once the server's
// socket accepts clients. Its stages, in order: the command line, the
// display's options, the frames to capture, the device's options and the
// per-frame statistics, the trace file, the whole system's options (the
// faults and the jobs to record), the system, the server, serving until a
// signal, idleness or a failure, and the end, which gathers what went
// wrong after the serving (capture, recording, -stats). Every mistake on
// the command line is found before the system is made.
func runServing(args []string, serving func()) error {
	cfg, err := parseFlags(args)
	if err != nil {
		return err
	}
	v := &server{cfg: cfg, recordErr: make(chan error, 1)}
	if err := v.displayOptions(); err != nil {
		return err
	}
	if err := v.captureFrames(); err != nil {
		return err
	}
	v.deviceOptions()
	if cfg.trace != "" {
		f, err := os.Create(cfg.trace)
		if err != nil {
			return fmt.Errorf("-trace: %w", err)
		}
		defer f.Close()
		v.sopts.Trace = f
	}
	sysOpts, err := v.systemOptions()
	if err != nil {
		return err
	}
	s, err := sim.NewSystem(sysOpts)
	if err != nil {
		return err
	}
	defer s.Close()
	if onSystem != nil {
		onSystem(s)
	}
	if v.capture != nil {
		v.capture.Attach(s.Display)
	}
	srv, err := simserve.New(v.serverOptions(s))
	if err != nil {
		return err
	}
	return v.end(v.serve(srv, serving))
}

// config is vc4serve's command line.
type config struct {
	dir          string
	mode         string
	frames       string // -capture-frames
	pattern      string // -capture
	modesetFrame bool
	only         bool // -only-mode
	clock        string
	trace        string
	statsFile    string // -stats
	idle         bool   // -exit-when-idle
	quiet        bool
	jobs         string // -record-jobs
	jobPattern   string // -record
	reference    bool
	faults       sim.FaultSpec
	kernelHangs  bool
}

// parseFlags reads the command line. -h prints the usage on stdout and
// returns flag.ErrHelp; a mistake is a usageError.
func parseFlags(args []string) (*config, error) {
	var c config
	fs := flag.NewFlagSet("vc4serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // the flag package's own message and usage: the error says it
	fs.Usage = func() {}
	fs.StringVar(&c.dir, "dir", "", "the server's directory: its socket and device files go there; clients get it as VC4SIM (required)")
	fs.StringVar(&c.mode, "mode", "", "the monitor's preferred mode, WxH or WxH@Hz: any size up to 2048x2048 whose pixel clock fits the Pi's 162 MHz (a standard mode, 640x480 to 1920x1080, or a CVT reduced-blanking timing made for it; 60 Hz unless @Hz says otherwise); default 1920x1080")
	fs.StringVar(&c.frames, "capture-frames", "", "comma-separated frame numbers to capture (frame K: the picture after the K-th page flip since the mode set)")
	fs.StringVar(&c.pattern, "capture", "frame%03d.png", "the PNG file of each captured frame, with %d for the frame number")
	fs.BoolVar(&c.modesetFrame, "modeset-frame", false, "count the mode set's picture as frame 0 (for atomic programs such as kmscube -A, whose first commit shows their first frame)")
	fs.BoolVar(&c.only, "only-mode", false, "the monitor offers -mode alone (programs that take the largest mode, such as glmark2, then use it)")
	fs.StringVar(&c.clock, "clock", "virtual", "the display's clock: virtual (deterministic: a flip completes at its vblank at once) or real (60 Hz in real time)")
	fs.StringVar(&c.trace, "trace", "", "write every ioctl, mmap and close of the clients to this file")
	fs.StringVar(&c.statsFile, "stats", "", "write, per frame (numbered as -capture-frames), the ioctls, the bytes submitted, the GPU's performance counters and the client's CPU time to this file as JSON lines, when the server exits")
	fs.BoolVar(&c.idle, "exit-when-idle", false, "exit once the last client has gone (after the first)")
	fs.BoolVar(&c.quiet, "quiet", false, "do not log connections")
	fs.StringVar(&c.jobs, "record-jobs", "", "comma-separated job numbers to record (job N: the N-th job the GPU ran, from 1), or all, to run again without the program (sim/hw/jobfile)")
	fs.StringVar(&c.jobPattern, "record", "job%03d.vc4job", "the file of each recorded job, with %d for the job number")
	fs.BoolVar(&c.reference, "reference", false, "run the GPU model's general code instead of its fast paths (same pictures, slower; to check that)")
	faults := fs.String("faults", "", "inject faults into the simulated device, a comma-separated LIST such as hang-at=3,eintr (doc/testing.md#fault-injection):\n"+strings.TrimSuffix(sim.FaultKnobs(), "\n"))
	fs.BoolVar(&c.kernelHangs, "kernel-hangs", false, "handle GPU hangs as Linux does: hang checks a second apart, so a hung job is reset one to two seconds after the GPU stopped, and a job whose binning hung restarted after each reset (default: reset at once, restart none)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(os.Stdout, usageHead)
			fs.SetOutput(os.Stdout)
			fs.PrintDefaults()
			return nil, err
		}
		return nil, usageError{err}
	}
	if fs.NArg() != 0 {
		return nil, usagef("unexpected argument %q (flags start with -)", fs.Arg(0))
	}
	if c.dir == "" {
		return nil, usagef("-dir is required: give the directory for the server's socket and device files (clients get it as VC4SIM)")
	}
	var err error
	if c.faults, err = sim.ParseFaults(*faults); err != nil {
		return nil, usagef("-faults: %v", err)
	}
	return &c, nil
}

// server is one run of vc4serve: what its stages make and hand on.
type server struct {
	cfg      *config
	dopts    display.Options
	sopts    sim.Options
	capture  *simserve.Capture    // nil without -capture-frames
	stats    *simserve.FrameStats // nil without -stats
	recorder *jobfile.Recorder    // nil without -record-jobs
	// wantJobs are -record-jobs' jobs and their files (nil for all).
	wantJobs  map[int]string
	recordErr chan error // the first failure to record
	done      chan struct{}
}

// displayOptions sets the display's clock and monitor from -clock, -mode
// and -only-mode.
func (v *server) displayOptions() error {
	cfg := v.cfg
	switch cfg.clock {
	case "virtual":
		v.dopts.Clock = display.VirtualClock
	case "real":
		v.dopts.Clock = display.RealClock
	default:
		return usagef("-clock %q: say virtual or real", cfg.clock)
	}
	if cfg.mode != "" {
		mon, err := monitorPreferring(cfg.mode)
		if err != nil {
			return usageError{err}
		}
		if cfg.only {
			mon.Modes = mon.Modes[:1]
		}
		v.dopts.Monitor = &mon
	} else if cfg.only {
		return usagef("-only-mode needs -mode WxH")
	}
	return nil
}

// captureFrames makes the capture of -capture-frames' frames.
func (v *server) captureFrames() error {
	if v.cfg.frames == "" {
		return nil
	}
	want, err := numberedFiles(v.cfg.frames, v.cfg.pattern, "-capture-frames", "-capture", "frame", 0)
	if err != nil {
		return usageError{err}
	}
	v.capture = simserve.NewCapture(want)
	v.capture.ModesetIsFrame = v.cfg.modesetFrame
	return nil
}

// deviceOptions sets the kernel's hang handling and -stats' accounting,
// and hands each page flip to the capture and the accounting.
func (v *server) deviceOptions() {
	if v.cfg.kernelHangs {
		v.sopts = v.sopts.KernelHangs()
	}
	if v.cfg.statsFile != "" {
		v.stats = simserve.NewFrameStats()
		v.stats.ModesetIsFrame = v.cfg.modesetFrame
		v.stats.DeviceOptions(&v.sopts)
	}
	capture, stats := v.capture, v.stats
	v.dopts.OnFlip = func(f display.Flip) {
		if capture != nil {
			capture.OnFlip(f)
		}
		if stats != nil {
			stats.OnFlip(f)
		}
	}
}

// systemOptions are the whole system's options: the device's, the
// display's, the GPU model's, the faults, and the recorder of
// -record-jobs wrapping the GPU.
func (v *server) systemOptions() (sim.SystemOptions, error) {
	cfg := v.cfg
	sysOpts := sim.SystemOptions{Device: v.sopts, Display: v.dopts, GPU: gpu.Options{Reference: cfg.reference}}
	cfg.faults.Apply(&sysOpts)
	if cfg.jobs == "" {
		return sysOpts, nil
	}
	path := func(n int) string { return v.wantJobs[n] }
	if cfg.jobs == "all" {
		if strings.Count(cfg.jobPattern, "%") != 1 {
			return sysOpts, usagef("-record %q needs one %%d (or %%03d) for the job number", cfg.jobPattern)
		}
		path = func(n int) string { return fmt.Sprintf(cfg.jobPattern, n) }
	} else {
		var err error
		if v.wantJobs, err = numberedFiles(cfg.jobs, cfg.jobPattern, "-record-jobs", "-record", "job", 1); err != nil {
			return sysOpts, usageError{err}
		}
	}
	recordErr := v.recordErr
	v.recorder = &jobfile.Recorder{Path: path,
		OnError: func(n int, err error) {
			select {
			case recordErr <- fmt.Errorf("-record-jobs: job %d: %w", n, err):
			default:
			}
		}}
	recorder := v.recorder
	sysOpts.WrapGPU = func(g hw.GPU) hw.GPU { recorder.GPU = g; return recorder }
	return sysOpts, nil
}

// serverOptions serve s's device in -dir: -stats measures the last
// program to open it, -quiet keeps connections out of the log, and
// -exit-when-idle signals done when the last client has gone.
func (v *server) serverOptions(s *sim.System) simserve.Options {
	v.done = make(chan struct{}, 1)
	opts := simserve.Options{Device: s.Device, Dir: v.cfg.dir}
	if stats := v.stats; stats != nil {
		// The last program to open the device is the one measured.
		opts.OnOpen = func(pid int, node string) { stats.SetClient(pid) }
	}
	if !v.cfg.quiet {
		opts.Log = os.Stderr
	}
	if v.cfg.idle {
		done := v.done
		opts.OnIdle = func() {
			select {
			case done <- struct{}{}:
			default:
			}
		}
	}
	return opts
}

// serve serves until SIGINT or SIGTERM, idleness (-exit-when-idle) or
// the server's failure, then closes the server and returns the first
// error.
func (v *server) serve(srv *simserve.Server, serving func()) (err error) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve() }()
	if serving != nil {
		serving()
	}
	if !v.cfg.quiet {
		fmt.Fprintf(os.Stderr, "vc4serve: serving a simulated Raspberry Pi 3 vc4 at %s (VC4SIM=%s)\n", srv.Dir(), srv.Dir())
	}
	select {
	case <-sig:
	case <-v.done:
	case err = <-serveErr:
	}
	if cerr := srv.Close(); err == nil {
		err = cerr
	}
	return err
}

// end returns err, or else the first of what went wrong after the
// serving: a frame not captured, a job not recorded or never run, the
// -stats file not written (which it writes whatever err is).
func (v *server) end(err error) error {
	if v.capture != nil {
		if cerr := v.capture.Err(); err == nil && cerr != nil {
			err = fmt.Errorf("capture: %w", cerr)
		}
	}
	if v.recorder != nil && err == nil {
		select {
		case err = <-v.recordErr:
		default:
			for n := range v.wantJobs {
				if n > v.recorder.Jobs() {
					err = fmt.Errorf("-record-jobs: job %d never ran (the GPU ran %d jobs)", n, v.recorder.Jobs())
					break
				}
			}
		}
	}
	if v.stats != nil {
		if serr := writeStats(v.cfg.statsFile, v.stats); err == nil && serr != nil {
			err = fmt.Errorf("-stats: %w", serr)
		}
	}
	return err
}

// onSystem, if set, is given the simulated system once it is made: tests
// look inside it (its kernel log).
var onSystem func(*sim.System)

// numberedFiles reads a flag's comma-separated numbers (each at least
// min) and names each one's file by the other flag's pattern, which has
// one %d, or none when the list has one number.
func numberedFiles(list, pattern, listFlag, patternFlag, what string, min int) (map[int]string, error) {
	nums := strings.Split(list, ",")
	if n := strings.Count(pattern, "%"); n > 1 || n == 0 && len(nums) > 1 {
		return nil, fmt.Errorf("%s %q needs one %%d (or %%03d) for the %s number", patternFlag, pattern, what)
	}
	want := map[int]string{}
	for _, f := range nums {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < min {
			return nil, fmt.Errorf("%s: %q is not a %s number (%d or more)", listFlag, f, what, min)
		}
		want[k] = pattern
		if strings.Contains(pattern, "%") {
			want[k] = fmt.Sprintf(pattern, k)
		}
	}
	return want, nil
}

// writeStats writes the frames' records to path.
func writeStats(path string, s *simserve.FrameStats) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = s.WriteJSON(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// monitorPreferring is the default monitor with the mode spec (WxH or
// WxH@Hz) as its preferred mode (kmscube and most KMS programs take the
// preferred mode): a standard mode of that size, or one made for it
// (display.MonitorPreferring).
func monitorPreferring(spec string) (display.Monitor, error) {
	m, err := present.ParseModeSpec(spec)
	if err != nil {
		return display.Monitor{}, fmt.Errorf("-mode: %w", err)
	}
	if m.Interlaced {
		return display.Monitor{}, fmt.Errorf("-mode %s: interlaced modes are not offered by the simulated monitor: say WxH or WxH@Hz", spec)
	}
	mon, err := display.MonitorPreferring(int(m.Width), int(m.Height), m.RefreshMilliHz)
	if err != nil {
		return display.Monitor{}, fmt.Errorf("-mode %s: %w", spec, err)
	}
	return mon, nil
}
