package kernel

// Client is one open file of the device as the KMS half of the driver (the
// simulated display, sim/display) sees it: what drm_file gives vc4's KMS
// code. The device's files (sim.File) implement it. It is declared here,
// below both the device (package sim) and the display, so that the two
// share one description and neither imports the other.
type Client interface {
	// ID identifies the file (stable while it is open).
	ID() uint64
	// LookupBO resolves one of the file's GEM handles to its BO, taking a
	// reference the display drops with BO.Put when the framebuffer goes
	// away (drm_gem_object_lookup). An unknown handle is ENOENT.
	LookupBO(handle uint32) (*BO, error)
	// IsMaster reports whether the file is the device's DRM master now.
	IsMaster() bool
	// QueueEvent appends a DRM event (a struct drm_event record) to the
	// file's read queue and makes its Fd readable. It fails with ENOMEM
	// when the file's 4 KiB of event space is used up (drm_event_reserve_init).
	QueueEvent(ev []byte) error
}
