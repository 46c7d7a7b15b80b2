package simserve_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vccube/vccube/internal/imgcmp"
)

// kmscubeMSAA is kmscube -s 4: an EGL config with 4 samples, so Mesa
// renders into a multisampled buffer in 32×32-pixel tiles with 4×
// rasteriser oversampling and resolves it into the scanout buffer with
// the frame buffer store (vc4_job.c vc4_job_submit, vc4_emit.c). llvmpipe
// runs the same arguments, with 4 samples of its own. The pictures agree
// but for silhouette pixels, where the two renderers' sample positions
// differ (the model's are UNCERTAIN, doc/hardware.md#multisampling) as
// well as their sub-pixel precision, and a level of colour rounding; the
// fast paths decline multisampled jobs, so the general-code run is the
// same code and must match bit for bit (doc/mesa-on-sim.md#tolerances).
var kmscubeMSAA = kmscubeMode{"smooth-msaa", []string{"-s", "4"}, nil,
	imgcmp.Tolerance{Threshold: 1, MinFractionWithin: 0.995, MinPSNR: 44}, true}

// kmscube -s 4 on the simulated vc4 against llvmpipe, frame for frame, as
// TestKmscube compares the other modes (doc/mesa-on-sim.md).
func TestKmscubeMSAA(t *testing.T) {
	if os.Getenv("VC4SIM_KMSCUBE") == "" {
		t.Skip("needs Debian's arm64 kmscube and Mesa under qemu-user: run .ci/mesa-test (or set VC4SIM_KMSCUBE=1 with them installed)")
	}
	k := findKmscubeTools(t)
	artifacts := os.Getenv("VC4SIM_ARTIFACTS")
	if artifacts == "" {
		artifacts = t.TempDir()
	}
	var summary strings.Builder
	compareKmscube(t, k, kmscubeMSAA, map[string]kmscubeRun{}, t.TempDir(), artifacts, &summary)
	if err := os.WriteFile(filepath.Join(artifacts, "summary-msaa.md"), []byte(summary.String()), 0o644); err != nil {
		t.Error(err)
	}
}
