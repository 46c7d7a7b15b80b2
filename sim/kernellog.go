package sim

import (
	"sync"

	"github.com/vccube/vccube/sim/kernel"
)

// kernelLogLines is how many of the simulated kernel's last lines a
// Device keeps for KernelLog: enough for the few lines a failure prints
// (a refusal, or an allocation failure with the BO statistics), as the
// tail of dmesg.
const kernelLogLines = 32

// kernelLog is the tail of what the simulated kernel printed: its own log
// lines (drm_err, DRM_INFO: kernel.Config.Log) and the reason of each
// ioctl it refused, which the real driver prints with DRM_DEBUG (seen in
// dmesg once drm.debug=0x1). A refusal is kept as the ioctl's name and
// the *kernel.Error, and formatted only when read, so that recording one
// costs no allocation beyond the error the kernel already made.
type kernelLog struct {
	mu    sync.Mutex
	lines [kernelLogLines]logLine
	next  uint64 // lines recorded so far; the newest is lines[(next-1)%len]
}

type logLine struct {
	text  string        // a line the kernel printed, or
	ioctl string        // the name of the ioctl that
	err   *kernel.Error // was refused for this reason
}

func (l *kernelLog) add(line logLine) {
	l.mu.Lock()
	l.lines[l.next%kernelLogLines] = line
	l.next++
	l.mu.Unlock()
}

// tail returns the lines kept, oldest first.
func (l *kernelLog) tail() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for i := l.next - min(l.next, kernelLogLines); i < l.next; i++ {
		ln := l.lines[i%kernelLogLines]
		if ln.err != nil {
			out = append(out, ln.ioctl+": "+ln.err.Error())
		} else {
			out = append(out, ln.text)
		}
	}
	return out
}

// KernelLog returns the last lines the simulated kernel printed, oldest
// first: what `dmesg` shows on a Pi with drm.debug=0x1 — the driver's own
// messages (such as "Resetting GPU." or a failed CMA allocation) and, for
// each ioctl it refused with a reason, the ioctl's name, errno and reason
// ("DRM_IOCTL_VC4_SUBMIT_CL: EINVAL: 0x00000036: packet 65 invalid").
// It keeps the last 32.
func (d *Device) KernelLog() []string { return d.log.tail() }

// logRefusal records the reason of a refused ioctl, if the kernel gave
// one (a *kernel.Error; a bare errno prints nothing).
func (d *Device) logRefusal(name string, err error) {
	if ke, ok := err.(*kernel.Error); ok {
		d.log.add(logLine{ioctl: name, err: ke})
	}
}
