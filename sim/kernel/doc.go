// Package kernel is the simulated Linux vc4 DRM driver of a Raspberry Pi
// 0-3: GEM buffer objects in the simulated CMA pool (sim/mem), the shader
// validator, the bin control list, shader record and uniform validators
// with their relocations, render control list generation, seqnos and the
// job queue that hands validated jobs to the GPU model (sim/hw.GPU).
//
// It is a model of drivers/gpu/drm/vc4 (vc4_bo.c, vc4_gem.c,
// vc4_validate.c, vc4_validate_shaders.c, vc4_render_cl.c, vc4_v3d.c,
// vc4_irq.c, vc4_perfmon.c, vc4_drv.c) and of the parts of the DRM core
// those lean on (drm_gem.c handles, drm_prime.c, drm_dumb_buffers.c). The
// rules, numbers and errnos are the kernel's, taken from those sources
// (doc/kernel.md states them, with what running the kernel's own
// validator settled in doc/kernel.md#observed); each rule names its source
// next to the code. Where
// the real kernel has a bug (it reads past a buffer, or lets a job reach
// memory it should not) the model is stricter and the comment says so.
//
// Package sim puts a Driver behind uapi.Conn: it dispatches each ioctl as
// drm_ioctl() does, copies the argument in and out, checks permissions
// and calls the typed handler of a File here. Handlers return nil or an
// *Error carrying the errno and the kernel's reason.
//
// Differences from the real driver that a caller can observe are listed in
// the Driver and Config documentation.
package kernel
