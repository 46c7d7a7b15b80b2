package present_test

import (
	"errors"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/display"
	"github.com/vccube/vccube/sim/kernel/cleargpu"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// The tests run present on the simulated device: package sim's DRM core
// with sim/display's KMS, which answer as Linux and vc4 do (the rules and
// their sources are there), and the clear-only stand-in GPU, since nothing
// here renders. What the model cannot produce is injected by probe, each
// case with the reason, and the choices among several connectors and
// CRTCs, which a Pi's simulated display does not have, run on topology
// (topology_test.go).

// tinyMode is a 100x50 mode at exactly 50 Hz (360 kHz over 120x60 pixels),
// so that buffers are small and vblanks exactly tinyPeriod apart.
var tinyMode = uapi.ModeModeInfo{Clock: 360, Hdisplay: 100, HsyncStart: 102, HsyncEnd: 104, Htotal: 120,
	Vdisplay: 50, VsyncStart: 52, VsyncEnd: 54, Vtotal: 60, Type: uapi.ModeTypePreferred}

const tinyPeriod = 20 * time.Millisecond

// tinyMonitor offers only tinyMode.
func tinyMonitor() *display.Monitor {
	return &display.Monitor{WidthMM: 100, HeightMM: 50, Modes: []uapi.ModeModeInfo{tinyMode}}
}

// rigOptions say what device and display the program starts on.
type rigOptions struct {
	monitor   *display.Monitor // nil: display.DefaultMonitor, 1920x1080@60 preferred
	clock     display.ClockMode
	unplugged bool
	noKMS     bool // a device without a display: mode-setting is EOPNOTSUPP
	// console has another program (a text console) show a framebuffer of
	// its own on HDMI-A-1 in the preferred mode, then drop DRM master,
	// before the program opens the device.
	console bool
	faults  sim.Faults
	root    bool // the program runs as root
	onFlip  func(display.Flip)
}

// rig is a simulated Pi 0-3 with its display and the program's file.
type rig struct {
	t    testing.TB
	dev  *sim.Device
	disp *display.Display

	console     *sim.File
	consoleFB   uint32
	consoleMode drm.ModeInfo

	file *sim.File // the program's file
	conn *probe    // the file as present sees it
}

func newRig(t testing.TB, o rigOptions) *rig {
	t.Helper()
	r := &rig{t: t}
	opts := sim.Options{GPU: cleargpu.New(), CMASize: 64 << 20, Faults: o.faults}
	if !o.noKMS {
		r.disp = display.New(display.Options{Clock: o.clock, Monitor: o.monitor, Unplugged: o.unplugged, OnFlip: o.onFlip})
		opts.Display = r.disp
	}
	dev, err := sim.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	r.dev = dev
	t.Cleanup(func() {
		if r.disp != nil {
			r.disp.Close()
		}
		dev.Close()
	})
	if o.console {
		r.showConsole()
	}
	r.file, err = dev.OpenWith(sim.OpenOptions{Root: o.root})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.file.Close() })
	r.conn = &probe{Conn: r.file, calls: map[uapi.Request]int{}, fail: map[uapi.Request]syscall.Errno{}}
	return r
}

// showConsole is the console: it becomes master by opening the device
// first, shows a dumb buffer of its own in the preferred mode, and drops
// master as a console does when a program takes the display over.
func (r *rig) showConsole() {
	t := r.t
	t.Helper()
	c, err := r.dev.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	cn, err := drm.GetConnector(c, display.ConnectorID)
	if err != nil {
		t.Fatal(err)
	}
	m, ok := cn.PreferredMode()
	if !ok {
		t.Fatal("the console finds no mode")
	}
	db, err := drm.CreateDumb(c, uint32(m.Hdisplay), uint32(m.Vdisplay), 32)
	if err != nil {
		t.Fatal(err)
	}
	fb, err := drm.AddFramebuffer(c, uint32(m.Hdisplay), uint32(m.Vdisplay), uapi.FormatXRGB8888, db.Handle, db.Pitch, uapi.FormatModLinear)
	if err != nil {
		t.Fatal(err)
	}
	if err := drm.SetCrtc(c, display.CrtcID, fb, 0, 0, []uint32{display.ConnectorID}, &m); err != nil {
		t.Fatal(err)
	}
	if err := drm.DropMaster(c); err != nil {
		t.Fatal(err)
	}
	r.console, r.consoleFB, r.consoleMode = c, fb, m
}

// crtc returns the CRTC's state as any file sees it.
func (r *rig) crtc() drm.Crtc {
	r.t.Helper()
	c, err := drm.GetCrtc(r.file, display.CrtcID)
	if err != nil {
		r.t.Fatal(err)
	}
	return c
}

// dumbBOs counts the device's live dumb buffers (the kernel's BO
// statistics; a buffer still mapped stays live).
func (r *rig) dumbBOs() int {
	for _, l := range r.dev.Kernel().Stats() {
		if l.Name == "dumb" {
			return l.Count
		}
	}
	return 0
}

// programFBs counts the framebuffers of the program's file (GETRESOURCES
// lists the caller's own).
func (r *rig) programFBs() int {
	r.t.Helper()
	res, err := drm.GetResources(r.file)
	if err != nil {
		r.t.Fatal(err)
	}
	return len(res.FBs)
}

// checkRestored asserts that the display shows what the console showed
// before the program ran (its framebuffer in its mode, driving HDMI-A-1)
// and that nothing of the program's is left: no framebuffer, no dumb
// buffer, no mapping (which would keep its buffer alive).
func (r *rig) checkRestored() {
	t := r.t
	t.Helper()
	if c := r.crtc(); !c.ModeValid || c.FbID != r.consoleFB || c.Mode.ModeModeInfo != r.consoleMode.ModeModeInfo {
		t.Errorf("the CRTC shows fb %d (on %v, %dx%d); want the console's fb %d in %v", c.FbID, c.ModeValid,
			c.Mode.Hdisplay, c.Mode.Vdisplay, r.consoleFB, r.consoleMode)
	}
	cn, err := drm.GetConnector(r.file, display.ConnectorID)
	if err != nil {
		t.Fatal(err)
	}
	if e, err := drm.GetEncoder(r.file, display.EncoderID); cn.EncoderID != display.EncoderID || err != nil || e.CrtcID != display.CrtcID {
		t.Errorf("HDMI-A-1 is on encoder %d, CRTC %d (%v); want it driven by the CRTC again", cn.EncoderID, e.CrtcID, err)
	}
	if n := r.programFBs(); n != 0 {
		t.Errorf("%d framebuffers of the program left", n)
	}
	if n := r.dumbBOs(); n != 1 {
		t.Errorf("%d dumb buffers live; want only the console's", n)
	}
}

// probe is the program's file as present sees it: it counts the ioctls
// present issues, and injects what the model cannot produce:
//
//   - Fail makes a request fail with an errno before it reaches the
//     device. The tests use it for the refusals no state of a Pi's display
//     leads to for present's well-formed requests: a PAGE_FLIP or ADDFB2
//     that a driver refuses (EINVAL) for reasons of its own, and the
//     ADDFB2 of a modifier by a display driver without modifier support
//     (vc4 has it).
//   - Inject queues an event ahead of the device's: a DRM_EVENT_VBLANK,
//     which another part of a program could request on the same file with
//     DRM_IOCTL_WAIT_VBLANK (the simulated display does not model that
//     ioctl: ENOSYS).
//   - With step set (a display on display.SteppedClock), the display's
//     next vblank comes exactly when the program waits for an event: a
//     read that finds none advances the display to its next vblank and
//     reads again, and Fd is -1 so that present reads instead of polling.
//     Flips then stay pending until present waits for them, so a second
//     PAGE_FLIP that did not wait gets the model's EBUSY, and no test
//     depends on time passing.
type probe struct {
	uapi.Conn
	step *display.Display

	mu     sync.Mutex
	calls  map[uapi.Request]int
	fail   map[uapi.Request]syscall.Errno
	events [][]byte
}

// Ioctl counts the request and fails it if told to.
func (p *probe) Ioctl(req uapi.Request, arg unsafe.Pointer) error {
	p.mu.Lock()
	p.calls[req]++
	errno, fail := p.fail[req]
	p.mu.Unlock()
	if fail {
		return errno
	}
	return p.Conn.Ioctl(req, arg)
}

// Calls returns how many times req was issued.
func (p *probe) Calls(req uapi.Request) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls[req]
}

// Fail makes every later req fail with errno.
func (p *probe) Fail(req uapi.Request, errno syscall.Errno) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fail[req] = errno
}

// Unfail lets req through again.
func (p *probe) Unfail(req uapi.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.fail, req)
}

// Inject queues an event record to be read before the device's events.
func (p *probe) Inject(ev []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.events = append(p.events, ev)
}

// Fd is the device's, or -1 under step.
func (p *probe) Fd() int {
	if p.step != nil {
		return -1
	}
	return p.Conn.Fd()
}

// SetNonblock passes present's request on to the simulated file.
func (p *probe) SetNonblock(nonblocking bool) error {
	return p.Conn.(interface{ SetNonblock(bool) error }).SetNonblock(nonblocking)
}

// Read hands out the injected events first, then the device's; under
// step, a read that finds no event advances the display to its next
// vblank first.
func (p *probe) Read(b []byte) (int, error) {
	p.mu.Lock()
	if len(p.events) > 0 && len(p.events[0]) <= len(b) {
		n := copy(b, p.events[0])
		p.events = p.events[1:]
		p.mu.Unlock()
		return n, nil
	}
	p.mu.Unlock()
	n, err := p.Conn.Read(b)
	if errors.Is(err, unix.EAGAIN) && p.step != nil {
		if _, aerr := p.step.AdvanceToVblank(); aerr == nil {
			n, err = p.Conn.Read(b)
		}
	}
	return n, err
}

var _ uapi.Conn = (*probe)(nil)
