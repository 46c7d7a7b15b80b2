// Package cubetest renders vccube's own frames through the whole
// simulated stack — the program's renderer (package cuberender), the
// simulated kernel (package sim) and this GPU model — and compares them
// with the golden images of testdata/golden, which internal/refrender made
// independently (testdata/golden/NOTES.md). It also holds the benchmarks
// of whole cube frames.
//
// It lives apart from package gpu so that the GPU model's own tests never
// depend on the kernel model or the renderer. All of it is tests; this
// file only makes the package buildable on its own (go build, as
// .ci/cross-test's per-package fallback runs it, refuses a directory with
// nothing but _test.go files).
package cubetest
