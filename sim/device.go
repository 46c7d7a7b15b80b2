// Package sim is the simulated vc4 device behind uapi.Conn: the DRM core's
// ioctl dispatch and permissions (drivers/gpu/drm/drm_ioctl.c, drm_auth.c,
// drm_file.c), the vc4 kernel driver (sim/kernel), the GPU model (a
// sim/hw.GPU) and, when one is plugged in, the KMS display (a Display).
//
// A program talks to it exactly as to /dev/dri/card0: the same request
// numbers, the same struct bytes, the same user pointers, the same errnos.
//
//	g := gpu.New(gpu.Options{})      // the GPU model; g.Close() stops its workers
//	dev, err := sim.New(sim.Options{GPU: g, Display: display.New(display.Options{})})
//	conn, err := dev.Open()          // a uapi.Conn
//	defer conn.Close()
//	bo, err := gem.NewBO(conn, 4096)
//
// Options.Trace records every ioctl, with its argument's bytes and result,
// so that a failing run can be read back.
package sim

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"syscall"
	"time"

	"github.com/vccube/vccube/sim/hw"
	"github.com/vccube/vccube/sim/kernel"
	"github.com/vccube/vccube/sim/mem"
	"github.com/vccube/vccube/uapi"
)

// Board selects the Raspberry Pi the device behaves like.
type Board int

const (
	// BoardPi3 is a Pi 0, 1, 2 or 3 (BCM2835/6/7): vc4 with its V3D, the
	// VideoCore IV 3D engine vccube drives. The default.
	BoardPi3 Board = iota
	// BoardPi3NoV3D is a Pi 0-3 whose device tree leaves the V3D disabled:
	// the 3D ioctls answer ENODEV (doc/kernel.md#probing-the-device).
	BoardPi3NoV3D
	// BoardPi4 is a Pi 4 (BCM2711): its vc4 is display-only
	// (vc5_drm_driver), with no vc4 ioctls (EINVAL) and no render node.
	BoardPi4
	// BoardPi5 is a Pi 5 (BCM2712), display-only like the Pi 4.
	BoardPi5
)

// String names the board, e.g. "Raspberry Pi 4 (display-only vc4)".
func (b Board) String() string {
	switch b {
	case BoardPi3:
		return "Raspberry Pi 0-3 (vc4 with V3D)"
	case BoardPi3NoV3D:
		return "Raspberry Pi 0-3 with V3D disabled"
	case BoardPi4:
		return "Raspberry Pi 4 (display-only vc4)"
	case BoardPi5:
		return "Raspberry Pi 5 (display-only vc4)"
	}
	return fmt.Sprintf("Board(%d)", int(b))
}

// Options configure a Device.
type Options struct {
	// Board is the Pi to behave like; BoardPi3 by default.
	Board Board
	// CMASize is the size of the CMA pool every buffer comes from; 0 means
	// mem.DefaultSize (256 MiB, the usual dtoverlay=vc4-kms-v3d pool).
	CMASize int
	// GPU runs the submitted jobs: the GPU model (sim/gpu) or, for tests
	// of the kernel side only, cleargpu. Required for BoardPi3.
	GPU hw.GPU
	// Display is the KMS half (sim/display). Without one, mode-setting
	// requests fail as on a driver without KMS (EOPNOTSUPP).
	Display Display
	// Trace, if set, receives one line per ioctl (and per mmap, munmap and
	// close): the request's name and number, the argument's bytes going in
	// and coming out, and the result with the kernel's reason.
	Trace io.Writer
	// Faults injects failures the program's error paths need.
	Faults Faults
	// Now is the clock of the kernel's BO cache; time.Now if nil.
	Now func() time.Time
	// OnJobDone is kernel.Config.OnJobDone: a hook for tests and
	// benchmarks.
	OnJobDone func(kernel.JobReport)
	// HangcheckPeriod is kernel.Config.HangcheckPeriod: the time between
	// the kernel's hang checks, which reset a hung job at the second
	// check after the GPU stopped (kernel.KernelHangcheckPeriod on a Pi);
	// 0 resets it at once.
	HangcheckPeriod time.Duration
	// BinHangRestarts is kernel.Config.BinHangRestarts: how often a job
	// whose binning hung is started again after a reset; negative, as the
	// kernel does, without limit.
	BinHangRestarts int
	// CountEvents is kernel.Config.CountEvents: every job's performance
	// counters reach OnJobDone.
	CountEvents bool
	// OnIoctl, if set, is called after every ioctl of every file with the
	// request, the argument's bytes as they came in (a copy the hook may
	// keep) and the result, for a benchmark's accounting (what Trace
	// writes as text).
	OnIoctl func(f *File, req uapi.Request, in []byte, err error)
}

// KernelHangs returns o with the kernel's hang handling: hang checks a
// second apart, and a job whose binning hung restarted after every reset
// (sim/kernel hang.go). Programs that want to see what a Pi does after a
// hang run on it (the model's default resets a hung job at once and
// restarts none, so that a job the model cannot run does not hold the
// device).
func (o Options) KernelHangs() Options {
	o.HangcheckPeriod = kernel.KernelHangcheckPeriod
	o.BinHangRestarts = -1
	return o
}

// Faults are failures to inject.
type Faults struct {
	// CMAExhaustedAt makes the Nth CMA allocation and every later one fail
	// (see kernel.Config.CMAExhaustedAt); 0 never.
	CMAExhaustedAt int
	// MasterHeldElsewhere makes another program (an X server, a Wayland
	// compositor) hold DRM master: no file of the simulator becomes
	// master when opened, and SET_MASTER fails (EBUSY for root, EACCES
	// otherwise).
	MasterHeldElsewhere bool
	// InterruptEachCall makes every ioctl and every event read of a file
	// fail with EINTR the first time it is made, as when a signal arrives
	// while the kernel waits for a lock, a job or an event (drm_ioctl's
	// handlers return -EINTR or -ERESTARTSYS from their interruptible
	// locks and waits; drm_read from mutex_lock_interruptible and
	// wait_event_interruptible): the call fails before it does anything,
	// and the same call made again goes through, as libdrm's drmIoctl
	// makes it. A file cannot tell a retry from a new call, so it fails
	// every other call.
	InterruptEachCall bool
	// GPU makes the GPU hang, stall or run late on chosen jobs
	// (kernel.GPUFaults).
	GPU kernel.GPUFaults
}

// Device is one simulated vc4 device.
type Device struct {
	opts    Options
	pool    *mem.Pool
	k       *kernel.Driver
	display Display

	mu         sync.Mutex
	master     *File // the current DRM master, if one of ours
	masterElse bool  // another program is master (Faults.MasterHeldElsewhere)
	nextID     uint64
	traceMu    sync.Mutex
	closed     bool

	log kernelLog // the tail of what the kernel printed (KernelLog)
}

// New creates a device.
func New(opts Options) (*Device, error) {
	size := opts.CMASize
	if size == 0 {
		size = mem.DefaultSize
	}
	pool, err := mem.NewPool(mem.DefaultBase, size)
	if err != nil {
		return nil, err
	}
	displayOnly := opts.Board == BoardPi4 || opts.Board == BoardPi5
	if opts.Board == BoardPi3 && opts.GPU == nil {
		pool.Close()
		return nil, errors.New("sim: Options.GPU is nil: pass the GPU model (sim/gpu) or, to test the kernel side only, cleargpu.New()")
	}
	d := &Device{opts: opts, pool: pool, display: opts.Display, masterElse: opts.Faults.MasterHeldElsewhere, nextID: 1}
	d.k, err = kernel.New(kernel.Config{
		Pool:            pool,
		GPU:             opts.GPU,
		NoV3D:           opts.Board == BoardPi3NoV3D,
		DisplayOnly:     displayOnly,
		Now:             opts.Now,
		CMAExhaustedAt:  opts.Faults.CMAExhaustedAt,
		Log:             d.kernelLog,
		OnJobDone:       opts.OnJobDone,
		HangcheckPeriod: opts.HangcheckPeriod,
		BinHangRestarts: opts.BinHangRestarts,
		GPUFaults:       opts.Faults.GPU,
		CountEvents:     opts.CountEvents,
	})
	if err != nil {
		pool.Close()
		return nil, err
	}
	return d, nil
}

// Kernel returns the simulated vc4 driver, for inspection (BO statistics).
func (d *Device) Kernel() *kernel.Driver { return d.k }

// Pool returns the CMA pool.
func (d *Device) Pool() *mem.Pool { return d.pool }

// Board returns the board the device behaves like.
func (d *Device) Board() Board { return d.opts.Board }

// Close shuts the device down: queued jobs finish, the BO cache is freed,
// and the CMA pool's own mapping is released (a 256 MiB pool is a large
// part of a 32-bit process's address space). Files still open keep the
// mappings they made of their BOs (separate mappings of the pool's pages);
// their ioctls fail with ENODEV (drm_dev_is_unplugged).
func (d *Device) Close() error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	d.closed = true
	d.mu.Unlock()
	err := d.k.Close()
	if perr := d.pool.Close(); err == nil {
		err = perr
	}
	return err
}

// OpenOptions say how a file is opened.
type OpenOptions struct {
	// Render opens the render node (/dev/dri/renderD128) instead of the
	// primary node: never master, and only DRM_RENDER_ALLOW ioctls.
	Render bool
	// Root opens as root (CAP_SYS_ADMIN): GET_HANG_STATE, SET_MASTER over
	// another master's head (EBUSY instead of EACCES).
	Root bool
	// Nonblock makes Read answer EAGAIN instead of waiting for an event
	// (O_NONBLOCK).
	Nonblock bool
	// User is the memory of the process the file belongs to, which the
	// user pointers inside ioctl arguments point into. nil is this
	// process (kernel.LocalMemory); a server giving the device to another
	// process passes an accessor that asks that process (simserve).
	User kernel.UserMemory
	// Files is the descriptor table of that process, where PRIME exports
	// put their dma-bufs and where imports find them; nil is this
	// process's (kernel.LocalFiles).
	Files kernel.UserFiles
	// ILP32 opens the file for a 32-bit program (armhf), which meets the
	// device as on a Pi running a 32-bit kernel (sim/ilp32.go): its
	// drm_version and drm_wait_vblank are the 32-bit structs, and its
	// user pointers are 32-bit addresses.
	ILP32 bool
}

// Open opens the primary node as an ordinary user, as drm.Open of
// /dev/dri/card0 does. The first file opened while no one is DRM master
// becomes master (drm_master_open).
func (d *Device) Open() (*File, error) { return d.OpenWith(OpenOptions{}) }

// OpenWith opens the device as o says.
func (d *Device) OpenWith(o OpenOptions) (*File, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, syscall.ENODEV
	}
	if o.Render && (d.opts.Board == BoardPi4 || d.opts.Board == BoardPi5) {
		// vc5_drm_driver lacks DRIVER_RENDER: there is no render node.
		return nil, syscall.ENOENT
	}
	f, err := newFile(d, o)
	if err != nil {
		return nil, err
	}
	d.nextID++
	if !o.Render && d.master == nil && !d.masterElse {
		d.master = f
		f.wasMaster = true
	}
	d.trace("%s opened (%s%s%s%s)", f, map[bool]string{true: "render node", false: "primary node"}[o.Render],
		map[bool]string{true: ", root", false: ""}[o.Root], map[bool]string{true: ", master", false: ""}[d.master == f],
		map[bool]string{true: ", a 32-bit program", false: ""}[o.ILP32])
	return f, nil
}

func (d *Device) kernelLog(line string) {
	d.log.add(logLine{text: line})
	d.trace("kernel: %s", line)
}
