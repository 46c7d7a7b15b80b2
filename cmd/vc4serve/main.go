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
// socket accepts clients.
func runServing(args []string, serving func()) error {
	fs := flag.NewFlagSet("vc4serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // the flag package's own message and usage: the error says it
	fs.Usage = func() {}
	dir := fs.String("dir", "", "the server's directory: its socket and device files go there; clients get it as VC4SIM (required)")
	mode := fs.String("mode", "", "the monitor's preferred mode, WxH or WxH@Hz: any size up to 2048x2048 whose pixel clock fits the Pi's 162 MHz (a standard mode, 640x480 to 1920x1080, or a CVT reduced-blanking timing made for it; 60 Hz unless @Hz says otherwise); default 1920x1080")
	frames := fs.String("capture-frames", "", "comma-separated frame numbers to capture (frame K: the picture after the K-th page flip since the mode set)")
	pattern := fs.String("capture", "frame%03d.png", "the PNG file of each captured frame, with %d for the frame number")
	modesetFrame := fs.Bool("modeset-frame", false, "count the mode set's picture as frame 0 (for atomic programs such as kmscube -A, whose first commit shows their first frame)")
	only := fs.Bool("only-mode", false, "the monitor offers -mode alone (programs that take the largest mode, such as glmark2, then use it)")
	clock := fs.String("clock", "virtual", "the display's clock: virtual (deterministic: a flip completes at its vblank at once) or real (60 Hz in real time)")
	trace := fs.String("trace", "", "write every ioctl, mmap and close of the clients to this file")
	statsFile := fs.String("stats", "", "write, per frame (numbered as -capture-frames), the ioctls, the bytes submitted, the GPU's performance counters and the client's CPU time to this file as JSON lines, when the server exits")
	idle := fs.Bool("exit-when-idle", false, "exit once the last client has gone (after the first)")
	quiet := fs.Bool("quiet", false, "do not log connections")
	jobs := fs.String("record-jobs", "", "comma-separated job numbers to record (job N: the N-th job the GPU ran, from 1), or all, to run again without the program (sim/hw/jobfile)")
	jobPattern := fs.String("record", "job%03d.vc4job", "the file of each recorded job, with %d for the job number")
	reference := fs.Bool("reference", false, "run the GPU model's general code instead of its fast paths (same pictures, slower; to check that)")
	faults := fs.String("faults", "", "inject faults into the simulated device, a comma-separated LIST such as hang-at=3,eintr (doc/testing.md#fault-injection):\n"+strings.TrimSuffix(sim.FaultKnobs(), "\n"))
	kernelHangs := fs.Bool("kernel-hangs", false, "handle GPU hangs as Linux does: hang checks a second apart, so a hung job is reset one to two seconds after the GPU stopped, and a job whose binning hung restarted after each reset (default: reset at once, restart none)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(os.Stdout, usageHead)
			fs.SetOutput(os.Stdout)
			fs.PrintDefaults()
			return err
		}
		return usageError{err}
	}
	if fs.NArg() != 0 {
		return usagef("unexpected argument %q (flags start with -)", fs.Arg(0))
	}
	if *dir == "" {
		return usagef("-dir is required: give the directory for the server's socket and device files (clients get it as VC4SIM)")
	}
	spec, err := sim.ParseFaults(*faults)
	if err != nil {
		return usagef("-faults: %v", err)
	}

	dopts := display.Options{}
	switch *clock {
	case "virtual":
		dopts.Clock = display.VirtualClock
	case "real":
		dopts.Clock = display.RealClock
	default:
		return usagef("-clock %q: say virtual or real", *clock)
	}
	if *mode != "" {
		mon, err := monitorPreferring(*mode)
		if err != nil {
			return usageError{err}
		}
		if *only {
			mon.Modes = mon.Modes[:1]
		}
		dopts.Monitor = &mon
	} else if *only {
		return usagef("-only-mode needs -mode WxH")
	}
	var capture *simserve.Capture
	if *frames != "" {
		want, err := numberedFiles(*frames, *pattern, "-capture-frames", "-capture", "frame", 0)
		if err != nil {
			return usageError{err}
		}
		capture = simserve.NewCapture(want)
		capture.ModesetIsFrame = *modesetFrame
	}
	sopts := sim.Options{}
	if *kernelHangs {
		sopts = sopts.KernelHangs()
	}
	var stats *simserve.FrameStats
	if *statsFile != "" {
		stats = simserve.NewFrameStats()
		stats.ModesetIsFrame = *modesetFrame
		stats.DeviceOptions(&sopts)
	}
	dopts.OnFlip = func(f display.Flip) {
		if capture != nil {
			capture.OnFlip(f)
		}
		if stats != nil {
			stats.OnFlip(f)
		}
	}
	if *trace != "" {
		f, err := os.Create(*trace)
		if err != nil {
			return fmt.Errorf("-trace: %w", err)
		}
		defer f.Close()
		sopts.Trace = f
	}

	sysOpts := sim.SystemOptions{Device: sopts, Display: dopts, GPU: gpu.Options{Reference: *reference}}
	spec.Apply(&sysOpts)
	var recorder *jobfile.Recorder
	var wantJobs map[int]string
	recordErr := make(chan error, 1) // the first failure to record
	if *jobs != "" {
		path := func(n int) string { return wantJobs[n] }
		if *jobs == "all" {
			if strings.Count(*jobPattern, "%") != 1 {
				return usagef("-record %q needs one %%d (or %%03d) for the job number", *jobPattern)
			}
			path = func(n int) string { return fmt.Sprintf(*jobPattern, n) }
		} else {
			var err error
			if wantJobs, err = numberedFiles(*jobs, *jobPattern, "-record-jobs", "-record", "job", 1); err != nil {
				return usageError{err}
			}
		}
		recorder = &jobfile.Recorder{Path: path,
			OnError: func(n int, err error) {
				select {
				case recordErr <- fmt.Errorf("-record-jobs: job %d: %w", n, err):
				default:
				}
			}}
		sysOpts.WrapGPU = func(g hw.GPU) hw.GPU { recorder.GPU = g; return recorder }
	}
	s, err := sim.NewSystem(sysOpts)
	if err != nil {
		return err
	}
	defer s.Close()
	if onSystem != nil {
		onSystem(s)
	}
	if capture != nil {
		capture.Attach(s.Display)
	}

	done := make(chan struct{}, 1)
	opts := simserve.Options{Device: s.Device, Dir: *dir}
	if stats != nil {
		// The last program to open the device is the one measured.
		opts.OnOpen = func(pid int, node string) { stats.SetClient(pid) }
	}
	if !*quiet {
		opts.Log = os.Stderr
	}
	if *idle {
		opts.OnIdle = func() {
			select {
			case done <- struct{}{}:
			default:
			}
		}
	}
	srv, err := simserve.New(opts)
	if err != nil {
		return err
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve() }()
	if serving != nil {
		serving()
	}
	if !*quiet {
		fmt.Fprintf(os.Stderr, "vc4serve: serving a simulated Raspberry Pi 3 vc4 at %s (VC4SIM=%s)\n", srv.Dir(), srv.Dir())
	}
	select {
	case <-sig:
	case <-done:
	case err = <-serveErr:
	}
	if cerr := srv.Close(); err == nil {
		err = cerr
	}
	if capture != nil {
		if cerr := capture.Err(); err == nil && cerr != nil {
			err = fmt.Errorf("capture: %w", cerr)
		}
	}
	if recorder != nil && err == nil {
		select {
		case err = <-recordErr:
		default:
			for n := range wantJobs {
				if n > recorder.Jobs() {
					err = fmt.Errorf("-record-jobs: job %d never ran (the GPU ran %d jobs)", n, recorder.Jobs())
					break
				}
			}
		}
	}
	if stats != nil {
		if serr := writeStats(*statsFile, stats); err == nil && serr != nil {
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
