package present

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/vccube/vccube/uapi"
)

// Unplugging the display.
//
// When the monitor is pulled out, vc4 does not turn the CRTC off: its
// HDMI connector's detection (the hot-plug interrupt, or the connector
// poll every 10 s, drm_probe_helper.c output_poll_execute, on a Pi 0-3)
// changes the connector's status to disconnected and sends a hotplug
// uevent (drm_kms_helper_hotplug_event), and the pixel valve keeps
// scanning out and completing page flips at its vblanks. A program that
// only flips never notices. The kernel's status is what GETCONNECTOR
// answers when it is not asked to probe the connector again: a mode
// count other than 0 (drm_connector.c drm_mode_getconnector probes only
// for count_modes == 0, and only for the DRM master), which costs no
// EDID read.

// ErrDisconnected is wrapped by the error of a run whose display was
// unplugged.
var ErrDisconnected = errors.New("the display was unplugged")

// statusScratch is the argument of Connected's GETCONNECTOR, kept so that
// a check allocates nothing: the kernel copies at most one mode into mode
// (all of them when there is just one) and none when there are more.
type statusScratch struct {
	arg  uapi.ModeGetConnector
	mode [1]uapi.ModeModeInfo
}

// Connected reports whether the kernel still sees a display on the
// connector, from its last detection, without probing the connector
// again. After the first call it allocates nothing. It reports true once
// the display was restored (the program is ending).
func (d *Display) Connected() (bool, error) {
	d.mu.Lock()
	restored := d.restored
	if d.status == nil {
		d.status = new(statusScratch)
	}
	st := d.status
	d.mu.Unlock()
	if restored {
		return true, nil
	}
	st.arg = uapi.ModeGetConnector{
		ConnectorID: d.connector.ID,
		CountModes:  1,
		ModesPtr:    uapi.UserPointer(unsafe.Pointer(&st.mode[0])),
	}
	if err := d.conn.Ioctl(uapi.IoctlModeGetConnector, unsafe.Pointer(&st.arg)); err != nil {
		return false, fmt.Errorf("present: reading the status of %s: %w", d.connector.Name(), err)
	}
	return st.arg.Connection != uint32(uapi.StatusDisconnected), nil
}

// Release gives back a buffer from Acquire that is not presented (its
// frame was lost): it is free again and the next Acquire returns it.
func (s *Swapchain) Release(b *Buffer) error {
	i := s.index(b)
	if i < 0 || b.state != stateAcquired {
		return errors.New("present: Release needs a buffer from this swapchain's Acquire that was not presented")
	}
	s.release(i)
	return nil
}
