package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/gem"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/simserve"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// gpuDevice is the opened GPU: a uapi.Conn, what it is, and how to close it.
type gpuDevice struct {
	conn uapi.Conn
	name string      // "sim" or the node's path, for reports
	info gem.V3DInfo // the 3D engine
	sim  bool
	// served is set for the simulated device of a vc4serve (-device
	// vc4serve:DIR).
	served bool
	// kernelLog, on the simulated device, returns what its kernel
	// printed (sim.Device.KernelLog); nil elsewhere.
	kernelLog func() []string
	// displayCard is the vc4 card that shows the simulated device's
	// frames when -device auto found one that only displays (a Pi 4 or
	// 5): the program uses it as -display.
	displayCard string
}

// kernelLogger is the simulated device's file as the program opens it
// (simConn): it can say what the simulated kernel printed.
type kernelLogger interface{ KernelLog() []string }

// openGPU opens the device -device names (doc/kernel.md#probing-the-device
// for the probe): "auto" takes the first vc4 card of e.driDir with VideoCore IV 3D
// and falls back to the simulated device with a one-line notice, which
// says where to see the cube (in this terminal when viewed is set); "sim"
// opens the simulated device; a path opens that card and insists on
// VideoCore IV 3D, saying why it is not (Pi 4/5, V3D not enabled, not a
// vc4 at all).
//
// With wantDisplay (the run shows its frames and no -display names a
// card), "auto" without a VideoCore IV looks for a vc4 card that only
// displays — a Raspberry Pi 4 or 5, whose vc4 has no 3D engine — and, when
// there is one, renders on the simulated device and shows the frames on
// that card (gpuDevice.displayCard, the -display path), saying so in one
// line.
//
// faults (-sim-faults) go to the simulated device; a run that opens a real
// card with them is refused.
func openGPU(e *env, device string, faults sim.FaultSpec, viewed, wantDisplay bool) (*gpuDevice, error) {
	if dir, ok := strings.CutPrefix(device, "vc4serve:"); ok {
		return openServed(dir)
	}
	switch device {
	case "sim":
		return openSim(e, faults)
	case "auto", "":
		c, card, info, err := gem.OpenVC4With(e.driDir, e.cardOpener())
		if err == nil {
			if !faults.IsZero() {
				c.Close()
				return nil, fmt.Errorf("-sim-faults injects faults into the simulated device only, and -device auto found %s, a VideoCore IV: add -device sim", card.Path)
			}
			return &gpuDevice{conn: c, name: card.Path, info: info}, nil
		}
		var none *drm.NoCardError
		if !errors.As(err, &none) && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		if wantDisplay && none != nil {
			if card, why, ok := displayOnlyCard(none); ok {
				d, err := openSim(e, faults)
				if err != nil {
					return nil, err
				}
				d.displayCard = card
				fmt.Fprintf(e.stderr, "vccube: %s cannot render the cube (%s); rendering on the simulated VideoCore IV instead "+
					"and showing the frames on %s's display, as -display %s does\n", card, why, card, card)
				return d, nil
			}
		}
		where := "whose display is not visible (-capture FILE.png saves a frame, -record FILE.gif an animation, -benchmark shows the rate)"
		if viewed {
			where = "whose display is shown in this terminal"
		}
		fmt.Fprintf(e.stderr, "vccube: no VideoCore IV 3D here (%v); running on the simulated device, %s\n", oneLine(err), where)
		return openSim(e, faults)
	}
	f, err := e.cardOpener()(device)
	if err != nil {
		return nil, err
	}
	info, err := gem.ProbeV3D(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s cannot render the cube: %w", device, err)
	}
	return &gpuDevice{conn: f, name: device, info: info}, nil
}

// openSim opens the simulated device (see sim.go) and probes it like a
// real card, so that a simulated Pi 4 is refused the same way.
func openSim(e *env, faults sim.FaultSpec) (*gpuDevice, error) {
	c, err := e.openSim(faults)
	if err != nil {
		return nil, fmt.Errorf("opening the simulated device: %w", err)
	}
	kl, _ := c.(kernelLogger)
	// Calls a signal interrupts are made again, as drm.File does for a
	// real card (and libdrm's drmIoctl); the trace, above, records each
	// call once.
	c = drm.Restarting(c)
	info, err := gem.ProbeV3D(c)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("the simulated device cannot render the cube: %w", err)
	}
	d := &gpuDevice{conn: c, name: "sim", info: info, sim: true}
	if kl != nil {
		d.kernelLog = kl.KernelLog
	}
	return d, nil
}

// displayOnlyCard finds, among the cards -device auto passed over, the
// first vc4 that can display but not render: a Pi 4 or 5's (EINVAL to the
// vc4 ioctls), or a vc4 whose V3D is not bound (ENODEV). It returns its
// path and why it cannot render.
func displayOnlyCard(none *drm.NoCardError) (path, why string, ok bool) {
	for _, c := range none.Cards {
		var pe *gem.ProbeError
		if c.Err == nil && errors.As(c.Rejected, &pe) && pe.Driver == "vc4" &&
			(errors.Is(pe, unix.EINVAL) || errors.Is(pe, unix.ENODEV)) {
			return c.Path, pe.Reason, true
		}
	}
	return "", "", false
}

// cardOpener returns how the program opens card nodes: e.openCard, or
// drm.Open. Either way the calls a signal interrupts are made again
// (drm.Restarting; drm.File does it itself).
func (e *env) cardOpener() func(path string) (uapi.Conn, error) {
	if e.openCard != nil {
		return func(path string) (uapi.Conn, error) {
			c, err := e.openCard(path)
			if err != nil {
				return nil, err
			}
			return drm.Restarting(c), nil
		}
	}
	return func(path string) (uapi.Conn, error) { return drm.Open(path) }
}

// openServed opens the simulated device a vc4serve process serves from
// dir (cmd/vc4serve, package simserve), as kmscube under the preload
// library reaches it: the GPU and the display are the server's, so two
// programs can be held against each other on one simulated device
// (vc4serve -stats), and this process's CPU time is the client's alone.
func openServed(dir string) (*gpuDevice, error) {
	c, err := simserve.Dial(dir, simserve.PrimaryMinor)
	if err != nil {
		return nil, fmt.Errorf("-device vc4serve:%s: %w (start vc4serve -dir %s first)", dir, err, dir)
	}
	info, err := gem.ProbeV3D(c)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("the served device cannot render the cube: %w", err)
	}
	return &gpuDevice{conn: c, name: "vc4serve:" + dir, info: info, served: true}, nil
}

// openDisplay opens the card -display names, for KMS only.
func openDisplay(e *env, path string) (uapi.Conn, error) {
	c, err := e.cardOpener()(path)
	if err != nil {
		return nil, fmt.Errorf("-display: %w", err)
	}
	return c, nil
}

// oneLine squeezes an error onto one line for a notice.
func oneLine(err error) string {
	s := []rune(err.Error())
	for i, r := range s {
		if r == '\n' {
			s[i] = ' '
		}
	}
	return string(s)
}

// explain replaces the advice to read dmesg, which a refused ioctl of a
// real kernel carries (gem's hint for the validators), with what the
// simulated kernel logged for that ioctl when the run is on the simulated
// device: there is no dmesg to read there, and the reason is at hand.
// Other errors pass unchanged.
func (p *program) explain(err error) error {
	var de *drm.Error
	if err == nil || p.gpu == nil || p.gpu.kernelLog == nil || !errors.As(err, &de) || !strings.Contains(de.Hint, "dmesg") {
		return err
	}
	log := p.gpu.kernelLog()
	for i := len(log) - 1; i >= 0; i-- {
		if reason, ok := strings.CutPrefix(log[i], de.Op+": "); ok {
			de.Hint = fmt.Sprintf("The simulated kernel refused it and logged %q", reason)
			return err
		}
	}
	return err
}
