package simserve_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vccube/vccube/internal/imgcmp"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/display"
	"github.com/vccube/vccube/sim/gpu"
	"github.com/vccube/vccube/simserve"
	"github.com/vccube/vccube/uapi"
)

// Mesa's vc4 driver on the simulated device, frame for frame against
// Mesa's software rasteriser: Debian bookworm's arm64 kmscube (and Mesa
// 22.3's vc4_dri.so, libgbm, libEGL) runs under qemu-aarch64 with the
// preload library, once on the simulated vc4 and once with llvmpipe
// (kms_swrast on dumb buffers of the same simulated display), and the
// frames the simulated monitor showed are compared. doc/mesa-on-sim.md
// says what runs and why the tolerances are what they are.
//
// It needs the arm64 packages, qemu-user and aarch64-linux-gnu-gcc, which
// .ci/mesa-test installs, and runs only with VC4SIM_KMSCUBE=1 (set by
// .ci/mesa-test); VC4SIM_ARTIFACTS names a directory for the frames,
// diffs and summary (a temporary one otherwise).

// kmscubeFrames is how many frames each run draws; all are compared.
const kmscubeFrames = 120

// The modes and their tolerances (doc/mesa-on-sim.md#tolerances).
//
// refArgs are the arguments of the llvmpipe run, when they differ:
// Mesa 22.3's llvmpipe has no native fence descriptors, so its EGL lacks
// EGL_ANDROID_native_fence_sync and kmscube -A refuses to run on it ("no
// eglDupNativeFenceFDANDROID"; doc/mesa-on-sim.md#findings). The atomic
// runs on vc4 are held against llvmpipe's legacy run of the same mode:
// frame K is draw(K) in both, whatever put it on screen.
type kmscubeMode struct {
	name    string
	args    []string
	refArgs []string
	tol     imgcmp.Tolerance
	// exact: run vc4 a second time on the GPU model's general code
	// (gpu.Options.Reference) and require every frame to be the same,
	// bit for bit: the model's fast paths on Mesa's shaders and lists.
	exact bool
}

var kmscubeModes = []kmscubeMode{
	// Per-vertex colours: the two renderers differ on silhouette pixels
	// (sub-pixel precision: the VideoCore IV snaps vertices to 1/16
	// pixel, llvmpipe to 1/256) and by a level of colour rounding.
	{"smooth", nil, nil, imgcmp.Tolerance{Threshold: 1, MinFractionWithin: 0.999, MinPSNR: 43}, true},
	// A 512x512 texture, bilinear, minified about 4 times: besides the
	// edges, texel-boundary and noise-patch pixels move with the
	// sub-pixel differences.
	{"rgba", []string{"-M", "rgba"}, nil, imgcmp.Tolerance{Threshold: 8, MinFractionWithin: 0.99, MinPSNR: 38}, true},
	// Atomic modesetting with in- and out-fences (kmscube -A): the same
	// pictures, the same rules. Frame K is still draw(K): the first
	// commit sets the mode and shows draw(0) (Capture.ModesetIsFrame).
	{"smooth-atomic", []string{"-A"}, []string{}, imgcmp.Tolerance{Threshold: 1, MinFractionWithin: 0.999, MinPSNR: 43}, false},
	{"rgba-atomic", []string{"-A", "-M", "rgba"}, []string{"-M", "rgba"}, imgcmp.Tolerance{Threshold: 8, MinFractionWithin: 0.99, MinPSNR: 38}, false},
}

// expectedRefusals are the errors the simulated kernel gives Mesa and
// kmscube in a good run, each one the real kernel gives too
// (doc/mesa-on-sim.md#findings); any other is a finding.
var expectedRefusals = map[string]bool{
	// vc4_resource_screen_init probes with handle 0 and wants ENOENT.
	"DRM_IOCTL_VC4_GET_TILING ENOENT": true,
	// kmscube asks for DRM_FORMAT_MOD_INVALID with kms_swrast's dumb
	// buffers, which vc4's planes refuse; it falls back to ADDFB2
	// without modifiers.
	"DRM_IOCTL_MODE_ADDFB2 EINVAL": true,
}

type kmscubeTools struct {
	qemu    []string // the command that runs an arm64 program
	kmscube string
	preload string
	swDir   string // a driver directory with kms_swrast only
}

func findKmscubeTools(t *testing.T) kmscubeTools {
	t.Helper()
	var k kmscubeTools
	if runtime.GOARCH != "arm64" {
		for _, q := range []string{"qemu-aarch64-static", "qemu-aarch64"} {
			if p, err := exec.LookPath(q); err == nil {
				k.qemu = []string{p}
				break
			}
		}
		if k.qemu == nil {
			t.Fatal("no qemu-aarch64-static or qemu-aarch64 (apt-get install qemu-user-static)")
		}
	}
	k.kmscube = "/usr/bin/kmscube"
	if _, err := os.Stat(k.kmscube); err != nil {
		t.Fatalf("%v (.ci/mesa-test installs kmscube:arm64)", err)
	}
	const dri = "/usr/lib/aarch64-linux-gnu/dri"
	for _, f := range []string{"vc4_dri.so", "kms_swrast_dri.so"} {
		if _, err := os.Stat(filepath.Join(dri, f)); err != nil {
			t.Fatalf("%v (.ci/mesa-test installs libgl1-mesa-dri:arm64)", err)
		}
	}
	// GBM_ALWAYS_SOFTWARE makes libgbm try "zink" before "kms_swrast",
	// and Mesa 22.3's zink entry point, handed a DRM fd, loads the fd's
	// own driver (vc4 here). A driver directory holding only kms_swrast
	// leaves llvmpipe.
	k.swDir = t.TempDir()
	if err := os.Symlink(filepath.Join(dri, "kms_swrast_dri.so"), filepath.Join(k.swDir, "kms_swrast_dri.so")); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	build := exec.Command("sh", "preload/build.sh", out)
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the preload: %v\n%s", err, b)
	}
	k.preload = filepath.Join(out, "arm64", "vc4sim.so")
	if _, err := os.Stat(k.preload); err != nil {
		t.Fatalf("no arm64 preload (apt-get install gcc-aarch64-linux-gnu): %v", err)
	}
	return k
}

// kmscubeRun is one run of kmscube on a fresh simulated device.
type kmscubeRun struct {
	frames    string // the directory of its frameNNN.png
	stdout    string
	trace     string         // every ioctl, with its bytes and result
	refusals  map[string]int // "NAME ERRNO" → count
	kernelLog []string       // the simulated kernel's messages (GPU resets)
}

// syncBuffer is a trace writer the device's goroutines share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

var refusalRE = regexp.MustCompile(`: (DRM_IOCTL_[A-Z0-9_]+|[a-zA-Z ]*ioctl 0x[0-9a-f]+[^)]*\)) 0x[0-9a-f]+ in \[[^]]*\] -> (E[A-Z0-9]+)`)

// kmscubeRenderer says what draws kmscube's frames.
type kmscubeRenderer int

const (
	onVC4      kmscubeRenderer = iota // Mesa's vc4 driver on the GPU model
	onVC4Ref                          // the same, the model's general code only (gpu.Options.Reference)
	onLlvmpipe                        // Mesa's software rasteriser into dumb buffers
)

func runKmscube(t *testing.T, k kmscubeTools, args []string, renderer kmscubeRenderer, frames string) kmscubeRun {
	t.Helper()
	if err := os.MkdirAll(frames, 0o755); err != nil {
		t.Fatal(err)
	}
	want := map[int]string{}
	for i := 0; i < kmscubeFrames; i++ {
		want[i] = filepath.Join(frames, fmt.Sprintf("frame%03d.png", i))
	}
	capture := simserve.NewCapture(want)
	for _, a := range args {
		capture.ModesetIsFrame = capture.ModesetIsFrame || a == "-A"
	}
	g := gpu.New(gpu.Options{Reference: renderer == onVC4Ref})
	defer g.Close()
	// 640x480: kmscube takes the monitor's preferred mode.
	mon := display.DefaultMonitor()
	for i := range mon.Modes {
		mon.Modes[i].Type &^= uapi.ModeTypePreferred
		if mon.Modes[i].Hdisplay == 640 && mon.Modes[i].Vdisplay == 480 {
			mon.Modes[i].Type |= uapi.ModeTypePreferred
		}
	}
	disp := display.New(display.Options{Monitor: &mon, OnFlip: capture.OnFlip})
	defer disp.Close()
	capture.Attach(disp)
	trace := &syncBuffer{}
	dev, err := sim.New(sim.Options{GPU: g, Display: disp, Trace: trace})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	dir, err := os.MkdirTemp("", "vc4sim")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	srv, err := simserve.New(simserve.Options{Device: dev, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve() }()

	env := map[string]string{
		"VC4SIM": dir, "LD_PRELOAD": k.preload,
		// kmscube links GStreamer; keep its plugin scanner quiet.
		"GST_REGISTRY_FORK": "no", "GST_PLUGIN_SYSTEM_PATH_1_0": "",
	}
	if renderer == onLlvmpipe {
		env["GBM_ALWAYS_SOFTWARE"] = "1"
		env["LIBGL_DRIVERS_PATH"] = k.swDir
	}
	argv := append([]string(nil), k.qemu...)
	var extraEnv []string
	keys := make([]string, 0, len(env))
	for key := range env {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	for _, key := range keys {
		v := env[key]
		if k.qemu != nil {
			argv = append(argv, "-E", key+"="+v)
		} else {
			extraEnv = append(extraEnv, key+"="+v)
		}
	}
	argv = append(argv, k.kmscube, "-D", "/dev/dri/card0", "-c", fmt.Sprint(kmscubeFrames))
	argv = append(argv, args...)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), extraEnv...)
	// kmscube quits as soon as stdin is readable: give it a pipe nobody
	// writes.
	stdin, hold, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Close()
	cmd.Stdin = stdin
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err = cmd.Run()
	stdin.Close()
	srv.Close()
	<-served
	tail := out.String()
	if len(tail) > 4000 {
		tail = tail[len(tail)-4000:]
	}
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, tail)
	}
	t.Logf("%s: %v", strings.Join(argv[len(k.qemu):], " "), time.Since(start).Round(time.Millisecond))
	if err := capture.Err(); err != nil {
		t.Fatalf("capture: %v\nkmscube said:\n%s", err, tail)
	}
	r := kmscubeRun{frames: frames, stdout: out.String(), trace: trace.b.String(), refusals: map[string]int{}}
	for _, line := range strings.Split(trace.b.String(), "\n") {
		if m := refusalRE.FindStringSubmatch(line); m != nil {
			r.refusals[m[1]+" "+m[2]]++
		}
		if _, msg, ok := strings.Cut(line, "kernel: "); ok {
			r.kernelLog = append(r.kernelLog, msg)
		}
	}
	return r
}

func TestKmscube(t *testing.T) {
	if os.Getenv("VC4SIM_KMSCUBE") == "" {
		t.Skip("needs Debian's arm64 kmscube and Mesa under qemu-user: run .ci/mesa-test (or set VC4SIM_KMSCUBE=1 with them installed)")
	}
	k := findKmscubeTools(t)
	artifacts := os.Getenv("VC4SIM_ARTIFACTS")
	if artifacts == "" {
		artifacts = t.TempDir()
	}
	// The llvmpipe runs by their arguments: the atomic modes reuse the
	// legacy modes' reference run.
	refRuns := map[string]kmscubeRun{}
	refDir := t.TempDir()
	var summary strings.Builder
	fmt.Fprintf(&summary, "| mode | frames compared | metric | worst frame |\n|---|---|---|---|\n")
	for _, m := range kmscubeModes {
		if only := os.Getenv("VC4SIM_KMSCUBE_MODES"); only != "" && !strings.Contains(","+only+",", ","+m.name+",") {
			continue
		}
		t.Run(m.name, func(t *testing.T) { compareKmscube(t, k, m, refRuns, refDir, artifacts, &summary) })
	}
	if err := os.WriteFile(filepath.Join(artifacts, "summary.md"), []byte(summary.String()), 0o644); err != nil {
		t.Error(err)
	}
	t.Logf("frames and diffs in %s\n%s", artifacts, summary.String())
}

// compareKmscube runs kmscube in mode m on the simulated vc4 (and, for an
// exact mode, again on the model's general code) and with llvmpipe,
// reusing refRuns' llvmpipe run of the same arguments, and holds every
// frame to m's tolerance. It adds the mode's line to summary and keeps
// frames and diffs under artifacts.
func compareKmscube(t *testing.T, k kmscubeTools, m kmscubeMode, refRuns map[string]kmscubeRun, refDir, artifacts string, summary *strings.Builder) {
	scratch := t.TempDir()
	vc4 := runKmscube(t, k, m.args, onVC4, filepath.Join(scratch, "vc4"))
	if m.exact {
		ref := runKmscube(t, k, m.args, onVC4Ref, filepath.Join(scratch, "vc4-reference"))
		same := 0
		for i := 0; i < kmscubeFrames; i++ {
			name := fmt.Sprintf("frame%03d.png", i)
			r, err := imgcmp.Compare(imgcmp.MustReadPNG(t, filepath.Join(vc4.frames, name)), imgcmp.MustReadPNG(t, filepath.Join(ref.frames, name)), 0)
			if err != nil || r.Over != 0 {
				t.Errorf("frame %d: the fast paths and the general code differ: %v %v", i, r, err)
				continue
			}
			same++
		}
		t.Logf("fast paths against the general code (gpu.Options.Reference): %d of %d frames the same, bit for bit", same, kmscubeFrames)
	}
	refArgs := m.args
	if m.refArgs != nil {
		refArgs = m.refArgs
	}
	key := strings.Join(refArgs, " ")
	sw, ok := refRuns[key]
	if !ok {
		sw = runKmscube(t, k, refArgs, onLlvmpipe, filepath.Join(refDir, fmt.Sprint(len(refRuns))))
		refRuns[key] = sw
	}
	for _, run := range []struct {
		name string
		r    kmscubeRun
	}{{"vc4", vc4}, {"llvmpipe", sw}} {
		if !strings.Contains(run.r.stdout, fmt.Sprintf("Rendered %d frames", kmscubeFrames-1)) {
			t.Errorf("%s: kmscube did not report %d frames", run.name, kmscubeFrames-1)
		}
		for ref, n := range run.r.refusals {
			if !expectedRefusals[ref] {
				t.Errorf("%s: the simulated kernel refused %s (%d times): a finding for doc/mesa-on-sim.md", run.name, ref, n)
			}
		}
		for _, l := range run.r.kernelLog {
			t.Errorf("%s: the simulated kernel said: %s", run.name, l)
		}
	}
	defer func() {
		// On failure, keep what each run said and did.
		if !t.Failed() {
			return
		}
		dst := filepath.Join(artifacts, m.name)
		os.MkdirAll(dst, 0o755)
		for name, text := range map[string]string{"vc4-kmscube.txt": vc4.stdout, "vc4-trace.txt": vc4.trace,
			"llvmpipe-kmscube.txt": sw.stdout, "llvmpipe-trace.txt": sw.trace} {
			if err := os.WriteFile(filepath.Join(dst, name), []byte(text), 0o644); err != nil {
				t.Error(err)
			}
		}
	}()
	if len(m.args) > 0 && m.args[0] == "-A" {
		// The atomic path ran: a commit per frame, each with the
		// GPU's fence exported and the display's out-fence
		// imported back (drm-atomic.c, doc/mesa-on-sim.md).
		for _, want := range []string{"DRM_IOCTL_MODE_ATOMIC", "DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD", "DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE"} {
			n := strings.Count(vc4.trace, ": "+want+" ")
			t.Logf("vc4 run: %d × %s", n, want)
			if n < kmscubeFrames-1 {
				t.Errorf("the vc4 run made %d %s calls, want one per frame", n, want)
			}
		}
	}
	if !strings.Contains(vc4.stdout, `renderer: "VC4 V3D 2.1"`) {
		t.Errorf("the vc4 run's renderer is not VC4 V3D 2.1")
	}
	if !strings.Contains(sw.stdout, `renderer: "llvmpipe`) {
		t.Errorf("the reference run's renderer is not llvmpipe")
	}

	type res struct {
		k int
		r imgcmp.Result
	}
	var all []res
	var bad []int
	for i := 0; i < kmscubeFrames; i++ {
		name := fmt.Sprintf("frame%03d.png", i)
		got := imgcmp.MustReadPNG(t, filepath.Join(vc4.frames, name))
		want := imgcmp.MustReadPNG(t, filepath.Join(sw.frames, name))
		r, err := m.tol.Check(got, want)
		all = append(all, res{i, r})
		if err != nil {
			bad = append(bad, i)
			t.Errorf("frame %d: %v", i, err)
		}
	}
	// Keep frames 0, 1, 30 and 119, the worst, and every failing one.
	sort.Slice(all, func(a, b int) bool { return all[a].r.Over > all[b].r.Over })
	worst := all[0]
	keep := map[int]bool{0: true, 1: true, 30: true, kmscubeFrames - 1: true, worst.k: true}
	for _, b := range bad {
		keep[b] = true
	}
	dst := filepath.Join(artifacts, m.name)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range keep {
		name := fmt.Sprintf("frame%03d.png", i)
		got := imgcmp.MustReadPNG(t, filepath.Join(vc4.frames, name))
		want := imgcmp.MustReadPNG(t, filepath.Join(sw.frames, name))
		if err := imgcmp.WriteDiff(filepath.Join(dst, fmt.Sprintf("frame%03d-vc4-llvmpipe-diff.png", i)), got, want, m.tol.Threshold); err != nil {
			t.Error(err)
		}
	}
	minPSNR := all[0].r.PSNR
	for _, a := range all {
		minPSNR = min(minPSNR, a.r.PSNR)
	}
	line := fmt.Sprintf("| %s | all %d (0-%d) | %v | frame %d: %v; lowest PSNR %.2f dB |\n",
		m.name, kmscubeFrames, kmscubeFrames-1, m.tol, worst.k, worst.r, minPSNR)
	t.Log(line)
	summary.WriteString(line)
}
