package simserve_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// msaaFrames is how many frames kmscube -s 4 draws.
const msaaFrames = 8

// kmscube with 4× multisampling (-s 4: an EGL config with 4 samples, so
// Mesa renders into a multisampled buffer with 32×32-pixel tiles and
// resolves it into the scanout buffer, vc4_job.c vc4_job_submit). The
// simulated kernel accepts every submit, as the real one does (MS_MODE_4X
// and DECIMATE_MODE_4X are within the render-config mask, the full-res
// surfaces pass vc4_full_res_bounds_check: vc4_render_cl.c), and the GPU
// model does not model multisampling: it must fail each multisampled job
// with a clear "not modelled", never render something else or refuse
// anything else (doc/mesa-on-sim.md#findings). When the model learns
// multisampling, this test becomes a frame comparison against llvmpipe.
func TestKmscubeMSAA(t *testing.T) {
	if os.Getenv("VC4SIM_KMSCUBE") == "" {
		t.Skip("needs Debian's arm64 kmscube and Mesa under qemu-user: run .ci/mesa-test (or set VC4SIM_KMSCUBE=1 with them installed)")
	}
	k := findKmscubeTools(t)
	r := runServed(t, k, onlyMode(t, 640, 480), nil,
		[]string{"GST_REGISTRY_FORK=no", "GST_PLUGIN_SYSTEM_PATH_1_0="},
		[]string{k.kmscube, "-D", "/dev/dri/card0", "-c", fmt.Sprint(msaaFrames), "-s", "4"}, 10*time.Minute)
	if r.err != nil {
		t.Fatalf("kmscube -s 4: %v\n%s", r.err, tailOf(r.out))
	}
	if !strings.Contains(r.out, fmt.Sprintf("Rendered %d frames", msaaFrames-1)) {
		t.Errorf("kmscube -s 4 did not report %d frames:\n%s", msaaFrames-1, tailOf(r.out))
	}
	for ref, n := range r.refusals {
		if !expectedRefusals[ref] {
			t.Errorf("the simulated kernel refused %s (%d times): a finding for doc/mesa-on-sim.md", ref, n)
		}
	}
	resets := 0
	for _, l := range r.kernelLog {
		if strings.HasPrefix(l, "Resetting GPU.") && strings.Contains(l, "not modelled: 4x multisample") {
			resets++
			continue
		}
		t.Errorf("the simulated kernel said: %s", l)
	}
	if resets == 0 {
		t.Error("no multisampled job failed with \"not modelled: 4x multisample\": does the model render MSAA now? Then compare the frames with llvmpipe")
	}
	if len(r.kernelLog) > 0 {
		t.Logf("kmscube -s 4: %d jobs failed as not modelled, e.g. %s", resets, r.kernelLog[0])
	}
}
