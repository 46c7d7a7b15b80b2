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
	// IsMaster reports whether the file is the DRM master now.
	IsMaster() bool
	// ReserveEvent takes n bytes of the file's event space for an event
	// that QueueEvent will deliver later, as the ioctl that asks for the
	// event does (drm_event_reserve_init). It fails with ENOMEM when the
	// file's 4 KiB of event space, which holds both the events not yet
	// read and those reserved, has not n bytes left.
	ReserveEvent(n int) error
	// CancelEvent gives back a reservation whose event will not come
	// (drm_event_cancel_free).
	CancelEvent(n int)
	// QueueEvent appends a reserved DRM event (a struct drm_event record)
	// to the file's read queue and makes its Fd readable (drm_send_event).
	QueueEvent(ev []byte)
	// User is the memory of the process the file belongs to, which the
	// user pointers of its ioctls point into (copy_to_user, get_user).
	User() UserMemory
	// Files is the descriptor table of that process, where the kernel
	// installs the sync files it makes (an atomic commit's out-fence) and
	// finds the ones the file names (a plane's IN_FENCE_FD).
	Files() UserFiles
}
