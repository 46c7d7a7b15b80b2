// Package mesajobs runs jobs that Mesa's vc4 driver made — recorded with
// vc4serve -record-jobs while Debian's arm64 kmscube ran on the simulated
// device (testdata/README.md says how) — on the GPU model again, without
// qemu or Mesa: a differential test (the model's fast paths against its
// general code, bit for bit, on shaders and control lists we did not
// write) and benchmarks of the model on Mesa's streams, beside
// cubetest's of vccube's own frames.
//
// All of it is tests; this file only makes the package buildable on its
// own (go build, as .ci/cross-test's per-package fallback runs it, refuses
// a directory with nothing but _test.go files).
package mesajobs
