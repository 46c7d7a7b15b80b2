// Package gem is vccube's user-space binding of the vc4 DRM driver: a
// typed function for every vc4 ioctl over a uapi.Conn, the BO type that
// owns a buffer object's handle and mapping, and the probe that tells a
// VideoCore IV (Raspberry Pi 0-3) from a display-only vc4 (Pi 4/5). The
// vc4 uAPI itself (include/uapi/drm/vc4_drm.h: structs, request numbers,
// constants) is described in package uapi.
package gem
