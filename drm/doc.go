// Package drm is vccube's user-space side of the Linux DRM subsystem: the
// Conn of a real /dev/dri/cardN (File, Open), typed DRM core and KMS
// ioctls over any uapi.Conn, DRM event parsing, device discovery, and
// errors a person can act on.
//
// The structs, request numbers and constants it passes are described once
// in package uapi, which the simulated device in package sim reads too;
// everything above uapi.Conn is the same code on a Raspberry Pi and in a
// test, because the simulator receives the very same request numbers and
// struct bytes the kernel would.
package drm
