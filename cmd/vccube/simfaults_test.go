package main

import (
	"bytes"
	"context"
	"os"
	"testing"
)

// ifNotRoot returns wants when the test does not run as root, else none.
func ifNotRoot(wants ...string) []string {
	if os.Geteuid() == 0 {
		return nil
	}
	return wants
}

// -sim-faults reaches the simulated device vccube opens itself
// (defaultSim, with the kernel's hang handling and a real-time display):
// each fault shows as the run meets it.
func TestSimFaults(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		code  int
		wants []string
	}{
		{[]string{"-sim-faults", "hang-at=2", "-frames", "4", "-vsync=false"}, exitError,
			[]string{"frame 1 (seqno 2) was lost", "1 of 4 frames were lost to GPU hangs", "injected fault (GPUFaults.HangAt, HangFrom)", "the fault -sim-faults injected"}},
		// The kernel restarts a job whose binning hung: whole, but late.
		{[]string{"-sim-faults", "stall-bin-at=2,stall-bin-runs=1", "-frames", "3", "-vsync=false"}, exitOK,
			[]string{"frame 1 (seqno 2) came out whole, but the", "reset the GPU while it was drawn"}},
		// Without root a late frame is said to be slow; as root the
		// program reads that no hang state was recorded and says nothing
		// (hangWatch.whole), so the run only has to end well.
		{[]string{"-sim-faults", "late-at=2,late-by=1200ms", "-frames", "3", "-vsync=false"}, exitOK,
			ifNotRoot("frame 1 (seqno 2) took")},
		{[]string{"-sim-faults", "unplugged", "-frames", "3", "-view=false"}, exitError,
			[]string{"no display is connected"}},
		// vccube looks at the connector about once a second.
		{[]string{"-sim-faults", "unplug-after=3", "-frames", "600", "-view=false"}, exitError,
			[]string{"the display was unplugged"}},
		{[]string{"-sim-faults", "cma-exhausted-at=1", "-frames", "3", "-vsync=false"}, exitError,
			[]string{"ENOMEM", "pool that every vc4 buffer comes from is exhausted"}},
		{[]string{"-sim-faults", "master-elsewhere", "-frames", "3", "-view=false"}, exitError,
			// drm_setmaster_ioctl: EACCES for a file without
			// CAP_SYS_ADMIN (drm_master_check_perm), EBUSY for root's
			// while another file is master.
			[]string{"cannot take DRM master", map[bool]string{true: "EBUSY", false: "EACCES"}[os.Geteuid() == 0]}},
	} {
		var out, errb bytes.Buffer
		e := &env{stdout: &out, stderr: &errb, driDir: t.TempDir(), openSim: defaultSim}
		args := append([]string{"-device", "sim"}, tc.args...)
		code := run(context.Background(), args, e)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d: %s", args, code, tc.code, errb.String())
		}
		wantAll(t, "the output of "+args[3], out.String()+errb.String(), tc.wants...)
	}
}
