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
// -only-mode makes -mode the monitor's only mode, for programs that take
// the largest (glmark2); -exit-when-idle ends the server when its last
// client has gone, for scripts.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/display"
	"github.com/vccube/vccube/sim/gpu"
	"github.com/vccube/vccube/sim/hw"
	"github.com/vccube/vccube/sim/hw/jobfile"
	"github.com/vccube/vccube/simserve"
	"github.com/vccube/vccube/uapi"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "vc4serve:", err)
		os.Exit(1)
	}
}

func run(args []string) error { return runServing(args, nil) }

// runServing is run, calling serving (if not nil) once the server's
// socket accepts clients.
func runServing(args []string, serving func()) error {
	fs := flag.NewFlagSet("vc4serve", flag.ContinueOnError)
	dir := fs.String("dir", "", "the server's directory: its socket and device files go there; clients get it as VC4SIM (required)")
	mode := fs.String("mode", "", "the monitor's preferred mode, WxH (one of its standard modes: 640x480, 800x600, 1024x768, 1280x720, 1280x1024, 1920x1080); default 1920x1080")
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
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" || fs.NArg() != 0 {
		return errors.New("usage: vc4serve -dir DIR [-mode WxH [-only-mode]] [-capture-frames LIST -capture PATTERN [-modeset-frame]] [-record-jobs LIST -record PATTERN] [-clock virtual|real] [-trace FILE] [-stats FILE] [-exit-when-idle]")
	}

	dopts := display.Options{}
	switch *clock {
	case "virtual":
		dopts.Clock = display.VirtualClock
	case "real":
		dopts.Clock = display.RealClock
	default:
		return fmt.Errorf("-clock %q: say virtual or real", *clock)
	}
	if *mode != "" {
		mon, err := monitorPreferring(*mode)
		if err != nil {
			return err
		}
		if *only {
			mon.Modes = mon.Modes[:1]
		}
		dopts.Monitor = &mon
	} else if *only {
		return errors.New("-only-mode needs -mode WxH")
	}
	var capture *simserve.Capture
	if *frames != "" {
		want, err := numberedFiles(*frames, *pattern, "-capture-frames", "-capture", "frame", 0)
		if err != nil {
			return err
		}
		capture = simserve.NewCapture(want)
		capture.ModesetIsFrame = *modesetFrame
	}
	sopts := sim.Options{}
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
	var recorder *jobfile.Recorder
	var wantJobs map[int]string
	recordErr := make(chan error, 1) // the first failure to record
	if *jobs != "" {
		path := func(n int) string { return wantJobs[n] }
		if *jobs == "all" {
			if strings.Count(*jobPattern, "%") != 1 {
				return fmt.Errorf("-record %q needs one %%d (or %%03d) for the job number", *jobPattern)
			}
			path = func(n int) string { return fmt.Sprintf(*jobPattern, n) }
		} else {
			var err error
			if wantJobs, err = numberedFiles(*jobs, *jobPattern, "-record-jobs", "-record", "job", 1); err != nil {
				return err
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

// monitorPreferring is the default monitor with the standard mode of size
// wxh as its preferred mode (kmscube and most KMS programs take the
// preferred mode).
func monitorPreferring(wh string) (display.Monitor, error) {
	var w, h uint16
	if _, err := fmt.Sscanf(wh, "%dx%d", &w, &h); err != nil {
		return display.Monitor{}, fmt.Errorf("-mode %q: say WxH, e.g. 640x480", wh)
	}
	mon := display.DefaultMonitor()
	found := -1
	for i := range mon.Modes {
		m := &mon.Modes[i]
		m.Type &^= uapi.ModeTypePreferred
		if found < 0 && m.Hdisplay == w && m.Vdisplay == h {
			m.Type |= uapi.ModeTypePreferred
			found = i
		}
	}
	if found < 0 {
		return display.Monitor{}, fmt.Errorf("-mode %s: the monitor has no such mode (640x480, 800x600, 1024x768, 1280x720, 1280x1024, 1920x1080)", wh)
	}
	// The preferred mode first, as an EDID's first detailed timing.
	mon.Modes[0], mon.Modes[found] = mon.Modes[found], mon.Modes[0]
	return mon, nil
}
