// Package selftest is vccube -selftest: small probe jobs, each settling
// one fact the GPU model (package sim) took from reasoning rather than
// from a measurement, run with identical bytes on the GPU under test and
// on a simulated device in the same process, and compared pixel for pixel
// and counter for counter; the geometry probes are also compared with an
// independent reference rasteriser (internal/refrender). Without a
// VideoCore IV the device under test is a second simulated device, and
// the two must agree exactly.
//
// The probes are client code, like package cuberender: they are built with
// the project's encoders (cl/bincl, cl/shaderrec, cl/uniforms, cl/submit,
// the shaders/qpu assembler, texture/convert) and reach the devices only
// through uapi.Conn. Probes lists them; each says which fact it settles,
// what the model believes and where that choice is written, and which
// outputs answer it (doc/selftest.md shows the list, written by Describe).
//
// Run prints a table and, when a probe differs, writes a tar.gz bundle
// for a bug report: each differing probe's job (as -dump prints one), both
// sides' outputs as PNG and raw words, their ioctl traces (drm.Recorder,
// which vccube -replay reads), the kernel's version and the board.
package selftest
