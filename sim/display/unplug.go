package display

// Unplug pulls the monitor out of HDMI-A-1 in the middle of a run, as the
// kernel sees it once it has noticed: GETCONNECTOR reports the connector
// disconnected, and nothing else changes. vc4 leaves the CRTC on — the
// pixel valve keeps scanning out the framebuffer and page flips keep
// completing at its vblanks — and a mode set on the connector is still
// accepted (the atomic check does not look at the connector's status).
//
// On a Pi 0-3 the kernel notices within 10 s (the connector is polled,
// drm_probe_helper.c output_poll_execute, unless an HPD interrupt says so
// at once) and sends a hotplug uevent (drm_kms_helper_hotplug_event),
// which is not modelled. The kernel also drops the connector's modes at
// the next probe (drm_helper_probe_single_connector_modes on a
// disconnected connector); here the modes of the last probe stay listed.
func (d *Display) Unplug() {
	d.mu.Lock()
	d.unplugged = true
	d.mu.Unlock()
}
