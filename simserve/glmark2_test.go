package simserve_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/vccube/vccube/simserve"
)

// glmark2's default scenes (glmark2 2023.01 src/default-benchmarks.h), in
// the order it runs them: every one must run on the simulated vc4 without
// a refused ioctl or a GPU reset (doc/mesa-on-sim.md#glmark2).
var glmark2Scenes = []string{
	"build:use-vbo=false",
	"build:use-vbo=true",
	"texture:texture-filter=nearest",
	"texture:texture-filter=linear",
	"texture:texture-filter=mipmap",
	"shading:shading=gouraud",
	"shading:shading=blinn-phong-inf",
	"shading:shading=phong",
	"shading:shading=cel",
	"bump:bump-render=high-poly",
	"bump:bump-render=normals",
	"bump:bump-render=height",
	"effect2d:kernel=0,1,0;1,-4,1;0,1,0;",
	"effect2d:kernel=1,1,1,1,1;1,1,1,1,1;1,1,1,1,1;",
	"pulsar:quads=5:texture=false:light=false",
	"desktop:windows=4:effect=blur:blur-radius=5:passes=1:separable=true",
	"desktop:windows=4:effect=shadow",
	"buffer:update-fraction=0.5:update-dispersion=0.9:columns=200:update-method=map:interleave=false",
	"buffer:update-fraction=0.5:update-dispersion=0.9:columns=200:update-method=subdata:interleave=false",
	"buffer:update-fraction=0.5:update-dispersion=0.9:columns=200:update-method=map:interleave=true",
	"ideas:speed=duration",
	"jellyfish",
	"terrain",
	"shadow",
	"refract",
	"conditionals:vertex-steps=0:fragment-steps=0",
	"conditionals:vertex-steps=0:fragment-steps=5",
	"conditionals:vertex-steps=5:fragment-steps=0",
	"function:fragment-steps=5:fragment-complexity=low",
	"function:fragment-steps=5:fragment-complexity=medium",
	"loop:vertex-steps=5:fragment-steps=5:fragment-loop=false",
	"loop:vertex-steps=5:fragment-steps=5:fragment-uniform=false",
	"loop:vertex-steps=5:fragment-steps=5:fragment-uniform=true",
}

// glmark2Frames is how many frames each scene draws (glmark2's nframes
// option, given to every scene); its frames are timed, not numbered, so
// they are looked at, not compared.
const glmark2Frames = 2

// glmark2Refusals are the errors the simulated kernel gives glmark2 in a
// good run, each one the real kernel gives too (doc/mesa-on-sim.md#findings).
var glmark2Refusals = map[string]bool{
	// vc4_resource_screen_init probes with handle 0 and wants ENOENT.
	"DRM_IOCTL_VC4_GET_TILING ENOENT": true,
	// glmark2 asks for the CRTC its encoder drives, to restore it at the
	// end; no CRTC is lit before it runs, so the encoder's crtc_id is 0,
	// and drm_mode_getcrtc answers ENOENT for it (drm_crtc.c:
	// drm_crtc_find of id 0 fails).
	"DRM_IOCTL_MODE_GETCRTC ENOENT": true,
}

var glmark2Line = regexp.MustCompile(`^\[([a-z0-9]+)\] (.*): FPS: (\d+) FrameTime: ([0-9.]+) ms$`)

// TestGlmark2 runs glmark2-es2-drm (Debian bookworm's arm64 glmark2 2023.01
// on Mesa 22.3's vc4 driver) on the simulated vc4 under qemu-aarch64:
// every default scene for glmark2Frames frames at 640x480 (the only mode
// the monitor offers: glmark2 takes the largest), FIFO swaps so that every
// frame is shown. A refused ioctl or a GPU reset fails the test, naming
// the scene that was drawing. The last frame of each scene is kept in
// VC4SIM_ARTIFACTS/glmark2.
func TestGlmark2(t *testing.T) {
	if os.Getenv("VC4SIM_GLMARK2") == "" {
		t.Skip("needs Debian's arm64 glmark2-es2-drm and Mesa under qemu-user: run .ci/mesa-test (or set VC4SIM_GLMARK2=1 with them installed)")
	}
	k := findKmscubeTools(t)
	const bin = "/usr/bin/glmark2-es2-drm"
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%v (.ci/mesa-test installs glmark2-es2-drm:arm64)", err)
	}
	artifacts := os.Getenv("VC4SIM_ARTIFACTS")
	if artifacts == "" {
		artifacts = t.TempDir()
	}
	shots := filepath.Join(artifacts, "glmark2")
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}

	// The mode set shows scene 0's first frame, each later swap is a
	// flip, and glmark2 shows a cleared buffer when it ends: scene i's
	// frame j is flip i·N + j − 1, its last frame flip (i+1)·N − 2.
	want := map[int]string{}
	for i := range glmark2Scenes {
		want[(i+1)*glmark2Frames-2] = filepath.Join(shots, fmt.Sprintf("scene%02d.png", i))
	}
	capture := simserve.NewCapture(want)
	argv := []string{bin, "--winsys-options=drm-device=/dev/dri/card0", "--swap-mode", "fifo",
		"-b", fmt.Sprintf(":nframes=%d:duration=100000", glmark2Frames)}
	for _, s := range glmark2Scenes {
		argv = append(argv, "-b", s)
	}
	r := runServed(t, k, onlyMode(t, 640, 480), capture, nil, argv, 20*time.Minute)
	os.WriteFile(filepath.Join(artifacts, "glmark2.txt"), []byte(r.out), 0o644)
	if r.err != nil {
		os.WriteFile(filepath.Join(artifacts, "glmark2-trace.txt"), []byte(r.trace), 0o644)
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), r.err, tailOf(r.out))
	}
	elapsed := r.elapsed
	t.Logf("glmark2, %d scenes of %d frames: %v", len(glmark2Scenes), glmark2Frames, elapsed.Round(time.Second))
	if !strings.Contains(r.out, "GL_RENDERER:    VC4 V3D 2.1") {
		t.Errorf("glmark2's renderer is not VC4 V3D 2.1:\n%s", tailOf(r.out))
	}

	// What glmark2 said of each scene, in order.
	var ran, frameTimes []string
	for _, l := range strings.Split(r.out, "\n") {
		if m := glmark2Line.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			ran = append(ran, m[1])
			frameTimes = append(frameTimes, m[4])
		}
	}
	if len(ran) != len(glmark2Scenes) {
		t.Errorf("glmark2 reported %d scenes, want %d:\n%s", len(ran), len(glmark2Scenes), tailOf(r.out))
	}
	for i := range min(len(ran), len(glmark2Scenes)) {
		if name, _, _ := strings.Cut(glmark2Scenes[i], ":"); ran[i] != name {
			t.Errorf("scene %d: glmark2 ran %q, want %q", i, ran[i], name)
		}
	}

	// Every refusal and kernel message, with the scene drawing then: the
	// mode set is swap 0, each page flip one more, scene i draws swaps
	// i·N to i·N + N − 1.
	swaps := -1
	found := map[int][]string{} // scene (-1 before the first frame) → findings
	for _, line := range strings.Split(r.trace, "\n") {
		if swaps < 0 && strings.Contains(line, "DRM_IOCTL_MODE_SETCRTC") && resultOf(line) == "0" {
			swaps = 0
		}
		if strings.Contains(line, "DRM_IOCTL_MODE_PAGE_FLIP") && resultOf(line) == "0" {
			swaps++
		}
		scene := -1
		if swaps >= 0 {
			scene = min(swaps/glmark2Frames, len(glmark2Scenes))
		}
		if m := refusalRE.FindStringSubmatch(line); m != nil && !glmark2Refusals[m[1]+" "+m[2]] {
			found[scene] = append(found[scene], "refused "+m[1]+" "+m[2])
		}
		if _, msg, ok := strings.Cut(line, "kernel: "); ok {
			found[scene] = append(found[scene], msg)
		}
	}
	sceneName := func(i int) string {
		switch {
		case i < 0:
			return "before the first frame"
		case i >= len(glmark2Scenes):
			return "after the last scene"
		}
		return glmark2Scenes[i]
	}
	var table strings.Builder
	fmt.Fprintf(&table, "| # | glmark2 scene | frame time (ms, %d frames, emulated client) | outcome |\n|---|---|---|---|\n", glmark2Frames)
	for i := -1; i <= len(glmark2Scenes); i++ {
		for _, f := range found[i] {
			t.Errorf("%s: %s: a finding for doc/mesa-on-sim.md", sceneName(i), f)
		}
		if i < 0 || i >= len(glmark2Scenes) {
			continue
		}
		outcome := "ran clean"
		if len(found[i]) > 0 {
			outcome = strings.Join(found[i], "; ")
		}
		ft := "?"
		if i < len(frameTimes) {
			ft = frameTimes[i]
		}
		fmt.Fprintf(&table, "| %d | `%s` | %s | %s |\n", i, glmark2Scenes[i], ft, outcome)
	}
	os.WriteFile(filepath.Join(artifacts, "glmark2-scenes.md"), []byte(table.String()), 0o644)
	if len(found) > 0 {
		os.WriteFile(filepath.Join(artifacts, "glmark2-trace.txt"), []byte(r.trace), 0o644)
	}
	if err := capture.Err(); err != nil {
		t.Errorf("capture: %v", err)
	}
	t.Logf("scenes:\n%s", table.String())
}

// resultOf returns what a trace line's ioctl returned: "0" or an errno's
// name.
func resultOf(line string) string {
	_, after, ok := strings.Cut(line, "] -> ")
	if !ok {
		return ""
	}
	res, _, _ := strings.Cut(after, " ")
	return res
}

func tailOf(s string) string {
	if len(s) > 4000 {
		return s[len(s)-4000:]
	}
	return s
}
