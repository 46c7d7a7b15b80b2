package sim

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	simdisplay "github.com/vccube/vccube/sim/display"
)

// FaultSpec is what a fault list on a command line asks of a System
// (vc4serve -faults, vccube -sim-faults; doc/testing.md#fault-injection):
// the device's Faults and the monitor's unplugging. ParseFaults reads it;
// Apply puts it into SystemOptions.
type FaultSpec struct {
	// Faults are the device's (GPU hangs, stalls and late jobs, EINTR,
	// CMA exhaustion, DRM master held elsewhere).
	Faults Faults
	// Unplugged starts the system with no monitor on HDMI-A-1
	// (simdisplay.Options.Unplugged).
	Unplugged bool
	// UnplugAfter pulls the monitor out after the UnplugAfter-th picture
	// the display shows (SystemOptions.UnplugAfter); 0 never.
	UnplugAfter int
}

// DefaultLateBy is how much longer a late job takes (late-at=N) when the
// list does not say (late-by=D): two seconds, more than the kernel's two
// hang checks a second apart (kernel.KernelHangcheckPeriod), so that a
// late job shows the hang check leaving a job that makes progress alone,
// and more than a frame a program would think normal.
const DefaultLateBy = 2 * time.Second

// faultKnobs are the knobs of a fault list: name, whether it takes a
// value, and what it does (for the error that lists them).
var faultKnobs = []struct {
	name, arg, what string
}{
	{"hang-at", "N", "job N hangs in the render thread; the kernel resets the GPU and gives the job back undrawn"},
	{"hang-from", "N", "every job from N on hangs so (hang-from=1: every job)"},
	{"stall-bin-at", "N", "the binner stalls at the start of job N's bin list, every time it runs"},
	{"stall-bin-runs", "K", "with stall-bin-at: only the first K runs stall"},
	{"late-at", "N", "job N takes late-by longer, making progress all the while (a slow job, not a hung one)"},
	{"late-by", "D", "with late-at: how much longer, a Go duration such as 500ms (default 2s)"},
	{"eintr", "", "every ioctl and event read fails with EINTR the first time it is made"},
	{"cma-exhausted-at", "N", "the N-th CMA allocation and every later one fail (ENOMEM)"},
	{"master-elsewhere", "", "another program holds DRM master"},
	{"unplugged", "", "no monitor on HDMI-A-1 from the start"},
	{"unplug-after", "N", "the monitor is pulled out after the N-th picture shown (mode sets and page flips)"},
}

// FaultKnobs lists the knobs of a fault list, one a line, for a usage
// message.
func FaultKnobs() string {
	var b strings.Builder
	for _, k := range faultKnobs {
		n := k.name
		if k.arg != "" {
			n += "=" + k.arg
		}
		fmt.Fprintf(&b, "  %-20s %s\n", n, k.what)
	}
	return b.String()
}

// ParseFaults reads a comma-separated fault list such as
// "hang-at=3,eintr" (the knobs are FaultKnobs'); the empty string asks for
// none. Jobs are numbered from 1 in the order the GPU runs them (the
// kernel's seqnos).
func ParseFaults(list string) (FaultSpec, error) {
	var s FaultSpec
	if strings.TrimSpace(list) == "" {
		return s, nil
	}
	seen := map[string]bool{}
	lateBy := time.Duration(0)
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		name, val, hasVal := strings.Cut(item, "=")
		known := -1
		for i, k := range faultKnobs {
			if k.name == name {
				known = i
			}
		}
		if known < 0 {
			return FaultSpec{}, fmt.Errorf("fault %q: no such fault; the faults are:\n%s", item, FaultKnobs())
		}
		k := faultKnobs[known]
		if seen[name] {
			return FaultSpec{}, fmt.Errorf("fault %s is given twice", name)
		}
		seen[name] = true
		if k.arg == "" && hasVal {
			return FaultSpec{}, fmt.Errorf("fault %q: %s takes no value", item, name)
		}
		if k.arg != "" && !hasVal {
			return FaultSpec{}, fmt.Errorf("fault %q: say %s=%s (%s)", item, name, k.arg, k.what)
		}
		var n uint64
		if k.arg == "N" || k.arg == "K" {
			v, err := strconv.ParseUint(val, 10, 31)
			if err != nil || v == 0 {
				return FaultSpec{}, fmt.Errorf("fault %q: %s is a whole number from 1", item, k.arg)
			}
			n = v
		}
		switch name {
		case "hang-at":
			s.Faults.GPU.HangAt = n
		case "hang-from":
			s.Faults.GPU.HangFrom = n
		case "stall-bin-at":
			s.Faults.GPU.StallBinAt = n
		case "stall-bin-runs":
			s.Faults.GPU.StallBinRuns = int(n)
		case "late-at":
			s.Faults.GPU.LateAt = n
		case "late-by":
			d, err := time.ParseDuration(val)
			if err != nil || d <= 0 || d > time.Hour {
				return FaultSpec{}, fmt.Errorf("fault %q: say a duration from 1ns to 1h, such as 500ms or 3s", item)
			}
			lateBy = d
		case "eintr":
			s.Faults.InterruptEachCall = true
		case "cma-exhausted-at":
			s.Faults.CMAExhaustedAt = int(n)
		case "master-elsewhere":
			s.Faults.MasterHeldElsewhere = true
		case "unplugged":
			s.Unplugged = true
		case "unplug-after":
			s.UnplugAfter = int(n)
		}
	}
	switch {
	case seen["stall-bin-runs"] && !seen["stall-bin-at"]:
		return FaultSpec{}, fmt.Errorf("fault stall-bin-runs needs stall-bin-at=N: say which job stalls")
	case seen["late-by"] && !seen["late-at"]:
		return FaultSpec{}, fmt.Errorf("fault late-by needs late-at=N: say which job is late")
	case seen["unplugged"] && seen["unplug-after"]:
		return FaultSpec{}, fmt.Errorf("faults unplugged and unplug-after both unplug the monitor: give one")
	}
	if seen["late-at"] {
		s.Faults.GPU.LateBy = DefaultLateBy
		if lateBy != 0 {
			s.Faults.GPU.LateBy = lateBy
		}
	}
	return s, nil
}

// IsZero says the spec injects nothing.
func (s FaultSpec) IsZero() bool { return s == FaultSpec{} }

// Apply puts the spec into o: the device's faults, and the monitor's
// unplugging.
func (s FaultSpec) Apply(o *SystemOptions) {
	o.Device.Faults = s.Faults
	o.Display.Unplugged = o.Display.Unplugged || s.Unplugged
	o.UnplugAfter = s.UnplugAfter
}

// unplugAfter wraps the display options' OnFlip to pull the monitor out
// of *disp after the n-th picture it shows.
func unplugAfter(o *simdisplay.Options, n int, disp **simdisplay.Display) {
	next := o.OnFlip
	var shown atomic.Int64 // flips may complete on several goroutines
	o.OnFlip = func(f simdisplay.Flip) {
		if next != nil {
			next(f)
		}
		if shown.Add(1) == int64(n) {
			(*disp).Unplug() // OnFlip is called with no lock held
		}
	}
}
