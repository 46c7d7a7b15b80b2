// Package display is the simulated KMS half of a Raspberry Pi 0-3's vc4
// DRM driver: the HDMI-A-1 connector with a monitor's modes, its TMDS
// encoder, one CRTC with its primary plane (and the overlay and cursor
// planes vc4 lists), framebuffers over vc4 and dumb BOs, the planes',
// CRTC's and connector's properties and property blobs, atomic commits
// with in- and out-fences (atomic.go, props.go), and page flips that
// complete on a vblank clock running at the mode's refresh rate, in
// virtual time for tests or in real time for interactive runs. The legacy
// ioctls and atomic commits change one state, as the kernel implements
// the former with the latter. It also reads back what the CRTC scans out, for tests,
// the terminal viewer and capture, and calls a hook on every flip.
//
// The simulated device (package sim) routes the mode-setting ioctls to a
// Display after it has copied the argument in and checked the DRM core's
// permissions (DRM_MASTER for SETCRTC and PAGE_FLIP, which is what makes a
// second opener's flips EACCES); the display answers as the kernel's KMS
// core and vc4's KMS code do, with the same checks in the same order and
// the same errnos, and resolves GEM handles through the file (Client).
//
//	disp := display.New(display.Options{Clock: display.RealClock})
//	dev, err := sim.New(sim.Options{GPU: gpu.New(gpu.Options{}), Display: disp})
//
// (sim.Client and this package's Client are both the kernel model's
// Client, so a *Display plugs in as it is.)
//
// Under VirtualClock a test can run a program's whole frame loop without
// waiting: every flip completes at its vblank before PAGE_FLIP returns.
// ReadScanout copies the picture on screen; Options.OnFlip is called at
// every change of picture.
//
// # Sources
//
// The rules come from Linux drivers/gpu/drm: drm_mode_config.c
// (GETRESOURCES), drm_connector.c (GETCONNECTOR), drm_encoder.c,
// drm_crtc.c (GETCRTC, SETCRTC), drm_modes.c (mode checks, refresh,
// names, ordering), drm_framebuffer.c and drm_gem_framebuffer_helper.c
// (ADDFB2, RMFB), drm_plane.c (PAGE_FLIP), drm_atomic_helper.c (commits,
// EBUSY), drm_vblank.c (event contents, frame durations), drm_ioctl.c
// (GET_CAP, SET_CLIENT_CAP), drm_file.c (close, the event space),
// drm_edid.c (the CEA and DMT timings); and vc4_kms.c, vc4_crtc.c,
// vc4_plane.c and vc4_hdmi.c for what a Pi 0-3 adds: the 2048x2048
// limit, the formats and modifiers its planes scan out (T-tiled
// included), the SET_TILING default modifier, the 162 MHz HDMI clock
// limit, async flips, and the use count a framebuffer on screen holds on
// its BO (vc4_prepare_fb, so that a BO marked DONTNEED is not purged while
// shown and cannot be put on screen). Each rule names its function next
// to the code. No code was copied.
//
// # Time
//
// See ClockMode. Under VirtualClock and SteppedClock the timestamps in
// events count from Options.Start; under RealClock they are
// CLOCK_MONOTONIC, as the kernel's are (DRM_CAP_TIMESTAMP_MONOTONIC).
//
// # Not modelled
//
//   - SETPLANE, the legacy cursor and gamma ioctls, the legacy connector
//     SETPROPERTY, ADDFB (legacy), GETFB, GETFB2, CLOSEFB, DIRTYFB,
//     WAIT_VBLANK and the CRTC sequence ioctls answer ENOSYS.
//     GETCONNECTOR lists no properties (OBJ_GETPROPERTIES does).
//   - Only one CRTC and one connector (a Pi 0-3 also has the DSI, DPI and
//     composite outputs and three pixelvalves), no hotplug after
//     creation, no EDID (the EDID property is 0). The overlay and cursor
//     planes are listed with their properties, but a commit that would
//     show one answers ENOSYS, as does a primary plane that is scaled,
//     does not cover the CRTC, is rotated or translucent, a GAMMA_LUT, and
//     an ASYNC atomic flip. A nonblocking atomic modeset is done in the
//     ioctl, as a blocking one.
//   - Every flip and mode set waits for the job rendering into the
//     framebuffer (its exclusive fence, kernel.BO.WaitWrites; an ASYNC
//     flip for the BO's last seqno, as vc4_async_page_flip does) and for
//     an atomic commit's in-fence. An ASYNC flip waits in the ioctl.
//     Under RealClock a vsynced PAGE_FLIP and a nonblocking atomic page
//     flip return at once and the commit waits on its own, as the
//     kernel's commit work does; under the virtual clocks, and for
//     blocking commits and mode sets, the wait is in the ioctl. The flip
//     lands at the same vblank either way.
//   - The vc4 load tracker (ENOSPC above the memory-bus budget) and the
//     HVS display-list space are not modelled: one full-HD plane never
//     reaches them.
package display
