package simserve_test

import (
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/vccube/vccube/internal/imgcmp"
)

// 32-bit programs on the simulated device: Debian bookworm's armhf
// kmscube, with its armhf Mesa 22.3 (vc4_dri.so, libgbm, libEGL), under
// qemu-arm with the armhf preload, frame for frame against the arm64
// kmscube of TestKmscube on the same simulated vc4. The server meets the
// 32-bit program as a Pi running a 32-bit kernel would (sim/ilp32.go,
// doc/mesa-on-sim.md#32-bit-programs).
//
// It runs with VC4SIM_KMSCUBE=1, the arm64 tools TestKmscube needs, and
// the armhf ones: qemu-arm, arm-linux-gnueabihf-gcc and
// libgl1-mesa-dri:armhf, libegl-mesa0:armhf and libgbm1:armhf, and an
// armhf kmscube. kmscube:armhf and kmscube:arm64 cannot be installed
// together (both are /usr/bin/kmscube), so VC4SIM_KMSCUBE_ARMHF names the
// armhf one (apt-get download kmscube:armhf; dpkg-deb -x it), unless
// /usr/bin/kmscube is the armhf one; without them the test skips.

// findKmscubeArmhfTools finds the armhf kmscube, Mesa, qemu and preload,
// or skips the test saying what is missing.
func findKmscubeArmhfTools(t *testing.T) kmscubeTools {
	t.Helper()
	var k kmscubeTools
	if runtime.GOARCH != "arm" {
		for _, q := range []string{"qemu-arm-static", "qemu-arm"} {
			if p, err := exec.LookPath(q); err == nil {
				k.qemu = []string{p}
				break
			}
		}
		if k.qemu == nil {
			t.Skip("no qemu-arm-static or qemu-arm (apt-get install qemu-user-static)")
		}
	}
	k.kmscube = os.Getenv("VC4SIM_KMSCUBE_ARMHF")
	if k.kmscube == "" {
		k.kmscube = "/usr/bin/kmscube"
	}
	if f, err := elf.Open(k.kmscube); err != nil || f.Class != elf.ELFCLASS32 || f.Machine != elf.EM_ARM {
		if f != nil {
			f.Close()
		}
		t.Skipf("%s is not an armhf kmscube: set VC4SIM_KMSCUBE_ARMHF to one (apt-get download kmscube:armhf; dpkg-deb -x kmscube_*_armhf.deb DIR; DIR/usr/bin/kmscube)", k.kmscube)
	} else {
		f.Close()
	}
	const dri = "/usr/lib/arm-linux-gnueabihf/dri"
	if _, err := os.Stat(filepath.Join(dri, "vc4_dri.so")); err != nil {
		t.Skipf("%v (apt-get install libgl1-mesa-dri:armhf libegl-mesa0:armhf libgbm1:armhf)", err)
	}
	out := t.TempDir()
	if b, err := exec.Command("sh", "preload/build.sh", out).CombinedOutput(); err != nil {
		t.Fatalf("building the preload: %v\n%s", err, b)
	}
	k.preload = filepath.Join(out, "armhf", "vc4sim.so")
	if _, err := os.Stat(k.preload); err != nil {
		t.Skipf("no armhf preload (apt-get install gcc-arm-linux-gnueabihf libc6-dev-armhf-cross): %v", err)
	}
	return k
}

func TestKmscubeArmhf(t *testing.T) {
	if os.Getenv("VC4SIM_KMSCUBE") == "" {
		t.Skip("needs Debian's arm64 and armhf kmscube and Mesa under qemu-user: set VC4SIM_KMSCUBE=1 with them installed")
	}
	armhf := findKmscubeArmhfTools(t)
	arm64 := findKmscubeTools(t)
	artifacts := os.Getenv("VC4SIM_ARTIFACTS")
	if artifacts == "" {
		artifacts = t.TempDir()
	}
	var summary strings.Builder
	fmt.Fprintf(&summary, "| mode | frames | bit-identical to arm64 | worst frame |\n|---|---|---|---|\n")
	for _, m := range kmscubeModes {
		if only := os.Getenv("VC4SIM_KMSCUBE_MODES"); only != "" && !strings.Contains(","+only+",", ","+m.name+",") {
			continue
		}
		t.Run(m.name, func(t *testing.T) {
			scratch := t.TempDir()
			r32 := runKmscube(t, armhf, m.args, onVC4, filepath.Join(scratch, "armhf"))
			r64 := runKmscube(t, arm64, m.args, onVC4, filepath.Join(scratch, "arm64"))
			if !strings.Contains(r32.stdout, fmt.Sprintf("Rendered %d frames", kmscubeFrames-1)) {
				t.Errorf("armhf: kmscube did not report %d frames", kmscubeFrames-1)
			}
			if !strings.Contains(r32.stdout, `renderer: "VC4 V3D 2.1"`) {
				t.Errorf("armhf: the renderer is not VC4 V3D 2.1")
			}
			for ref, n := range r32.refusals {
				if !expectedRefusals[ref] {
					t.Errorf("armhf: the simulated kernel refused %s (%d times): a finding for doc/mesa-on-sim.md", ref, n)
				}
			}
			for _, l := range r32.kernelLog {
				t.Errorf("armhf: the simulated kernel said: %s", l)
			}
			// The same ioctls in the same order, but for addresses: the
			// 32-bit program's requests are the 64-bit one's once
			// translated (the trace shows what the kernel ran).
			if a, b := ioctlNames(r32.trace), ioctlNames(r64.trace); a != b {
				t.Errorf("the armhf and arm64 runs made different ioctl sequences (%d and %d bytes of names)", len(a), len(b))
			}
			// Each frame against the arm64 run's: the same driver and
			// program built for another ABI, on the same model, draw the
			// same pictures but for float rounding on the CPU (the arm64
			// kmscube's matrix code contracts to fused multiply-adds,
			// fmadd; the armhf one's VFP code rounds each product, vmla),
			// which moves a vertex by an ulp now and then and an
			// interpolated colour by a level. A textured mode can move
			// one more: the TMU sees coordinates in fixed point, 1/128
			// of a texel (doc/hardware.md#tmu, coordinate precision), so
			// an ulp can carry a coordinate across a step and move a
			// bilinear weight by 1/128, at most 255/128 = 2 levels at a
			// black-to-white texel edge. So every pixel must be within
			// one level, two in the textured modes (measured: 110 to 113
			// of the 120 frames bit-identical; smooth at most one level
			// apart, rgba two, at one pixel of frame 3); a pixel further
			// off, such as an edge pixel changing sides, is a finding.
			identical := 0
			worst, worstK := imgcmp.Result{}, -1
			for i := 0; i < kmscubeFrames; i++ {
				name := fmt.Sprintf("frame%03d.png", i)
				got := imgcmp.MustReadPNG(t, filepath.Join(r32.frames, name))
				want := imgcmp.MustReadPNG(t, filepath.Join(r64.frames, name))
				r, err := armhfTolerance(m.name).Check(got, want)
				if err != nil {
					t.Errorf("frame %d: armhf against arm64: %v", i, err)
				}
				if r.MaxDiff == 0 {
					identical++
				}
				if worstK < 0 || r.MaxDiff > worst.MaxDiff || r.MaxDiff == worst.MaxDiff && r.PSNR < worst.PSNR {
					worst, worstK = r, i
				}
			}
			if t.Failed() {
				dst := filepath.Join(artifacts, "armhf-"+m.name)
				os.MkdirAll(dst, 0o755)
				for name, text := range map[string]string{"armhf-kmscube.txt": r32.stdout, "armhf-trace.txt": r32.trace, "arm64-trace.txt": r64.trace} {
					os.WriteFile(filepath.Join(dst, name), []byte(text), 0o644)
				}
			}
			line := fmt.Sprintf("| %s | %d | %d | frame %d: %v |\n", m.name, kmscubeFrames, identical, worstK, worst)
			t.Log(line)
			summary.WriteString(line)
		})
	}
	if err := os.WriteFile(filepath.Join(artifacts, "summary-armhf.md"), []byte(summary.String()), 0o644); err != nil {
		t.Error(err)
	}
	t.Logf("armhf against arm64:\n%s", summary.String())
}

// armhfTolerance is the rule of an armhf frame against the arm64 one in
// a kmscube mode: one level, two where kmscube samples a texture (-M
// rgba), as TestKmscubeArmhf explains.
func armhfTolerance(mode string) imgcmp.Tolerance {
	levels := uint8(1)
	if strings.Contains(mode, "rgba") {
		levels = 2
	}
	return imgcmp.Tolerance{Threshold: levels, MinFractionWithin: 1, MinPSNR: 90}
}

// ioctlNames is the sequence of ioctl names of a device trace.
func ioctlNames(trace string) string {
	var b strings.Builder
	for _, line := range strings.Split(trace, "\n") {
		if m := ioctlNameRE.FindStringSubmatch(line); m != nil {
			b.WriteString(m[1])
			b.WriteByte('\n')
		}
	}
	return b.String()
}

var ioctlNameRE = regexp.MustCompile(`^file \d+: (.+?) 0x[0-9a-f]{8} `)
