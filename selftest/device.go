package selftest

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"unsafe"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/gem"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/gpu"
	"github.com/vccube/vccube/sim/kernel"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// device is one side of a comparison: a file on a GPU, real or simulated.
type device struct {
	name  string    // as the table's header names it
	conn  uapi.Conn // the file
	info  string    // the V3D's description (gem.V3DInfo)
	real  bool
	close func() error

	// hangs, for a simulated device, holds the reasons of the jobs the
	// GPU model ended hung since the last call of takeHang.
	mu    sync.Mutex
	hangs []string
}

// takeHang returns why the model hung on the jobs since the last call, or
// nil. A real GPU's hang is not visible to an ordinary user (the kernel
// resets it and logs "Resetting GPU"): its output is then what differs.
func (d *device) takeHang() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.hangs) == 0 {
		return nil
	}
	err := fmt.Errorf("the simulated GPU hung: %s", strings.Join(d.hangs, "; "))
	d.hangs = nil
	return err
}

// simCMA is the CMA pool of the self-test's simulated devices: the
// largest probe needs a few hundred KiB besides the kernel's 16 MiB binner
// BO, and two devices must fit a 32-bit Pi's address space.
const simCMA = 48 << 20

// openSim makes a simulated Pi 3 in this process (sim.NewSystem: the GPU
// model of sim/gpu, and a display the probes do not use) rendering with
// the given number of tile workers, and opens a file on it.
func openSim(workers int) (*device, error) {
	d := &device{name: fmt.Sprintf("sim (%d render worker%s)", workers, plural(workers))}
	s, err := sim.NewSystem(sim.SystemOptions{
		Device: sim.Options{CMASize: simCMA, OnJobDone: func(r kernel.JobReport) {
			if r.Result.Hung {
				d.mu.Lock()
				d.hangs = append(d.hangs, fmt.Sprintf("job %d: %v", r.Seqno, r.Result.Reason))
				d.mu.Unlock()
			}
		}},
		GPU: gpu.Options{Workers: workers},
	})
	if err != nil {
		return nil, fmt.Errorf("the simulated device: %w", err)
	}
	f, err := s.Open()
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("the simulated device: %w", err)
	}
	d.conn = f
	d.close = func() error { return errors.Join(f.Close(), s.Close()) }
	if info, err := gem.ProbeV3D(f); err == nil {
		d.info = info.String()
	}
	return d, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// openCard opens a real card and checks it has a VideoCore IV 3D engine.
func openCard(path string) (*device, error) {
	f, err := drm.Open(path)
	if err != nil {
		return nil, err
	}
	info, err := gem.ProbeV3D(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s cannot run the self-test: %w", path, err)
	}
	return &device{conn: f, name: path, info: info.String(), real: true, close: f.Close}, nil
}

// findCard opens the first vc4 card of dir with VideoCore IV 3D; when
// there is none it returns nil and why.
func findCard(dir string) (*device, string, error) {
	c, card, info, err := gem.OpenVC4(dir)
	if err != nil {
		var none *drm.NoCardError
		if errors.As(err, &none) || errors.Is(err, os.ErrNotExist) {
			return nil, strings.ReplaceAll(err.Error(), "\n", " "), nil
		}
		return nil, "", err
	}
	return &device{conn: c, name: card.Path, info: info.String(), real: true, close: c.Close}, "", nil
}

// noClose is a Conn whose Close does nothing: each probe traces the
// device's one file through its own recorder, and closing a probe's traced
// Conn must not close the file.
type noClose struct{ uapi.Conn }

func (noClose) Close() error { return nil }

// system describes the machine for the bundle: the kernel, the board, the
// program and the devices compared.
func system(version string, devs ...*device) string {
	var b strings.Builder
	var u unix.Utsname
	kernel := "unknown"
	if err := unix.Uname(&u); err == nil {
		kernel = unix.ByteSliceToString(u.Sysname[:]) + " " + unix.ByteSliceToString(u.Release[:]) + " " +
			unix.ByteSliceToString(u.Version[:]) + " " + unix.ByteSliceToString(u.Machine[:])
	}
	model := "unknown"
	if m, err := os.ReadFile("/proc/device-tree/model"); err == nil {
		model = strings.TrimRight(string(m), "\x00\n")
	}
	fmt.Fprintf(&b, "vccube: %s\n", version)
	fmt.Fprintf(&b, "kernel (uname -srvm): %s\n", kernel)
	fmt.Fprintf(&b, "board (/proc/device-tree/model): %s\n", model)
	fmt.Fprintf(&b, "built with %s for %s/%s (pointers of %d bytes)\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, unsafe.Sizeof(uintptr(0)))
	for _, d := range devs {
		if d == nil {
			continue
		}
		fmt.Fprintf(&b, "device %s: %s", d.name, d.info)
		if v, err := drm.GetVersion(d.conn); err == nil {
			fmt.Fprintf(&b, "; driver %s %d.%d.%d (%s)", v.Name, v.Major, v.Minor, v.Patchlevel, v.Desc)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// Version returns vccube's version from the build information: the main
// module's version and, when built from a checkout, the commit.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown (no build information)"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v += " " + s.Value
		case "vcs.modified":
			if s.Value == "true" {
				v += " (modified)"
			}
		}
	}
	return v
}
