package simserve_test

import (
	"debug/elf"
	"fmt"
	"image"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vccube/vccube/internal/imgcmp"
	"github.com/vccube/vccube/simserve"
)

// glmark2 frame for frame: Debian bookworm's amd64 glmark2-es2-drm runs
// natively, once on Mesa 22.3.6's vc4 driver (built for this machine by
// conform/build-mesa.sh) on the simulated vc4 and once on Debian's own
// llvmpipe (kms_swrast on dumb buffers of the same simulated display), with
// the preload's frozen clock (VC4SIM_FROZEN_CLOCK) so that both draw the
// same frames of the same animation, and every frame of every default scene
// is compared. doc/mesa-on-sim.md#glmark2-frame-for-frame says what
// differs and why; the tolerances below say it per scene.
//
// It runs only with VC4SIM_GLMARK2_FRAMES=1, and skips, saying what is
// missing, without the amd64 glmark2-es2-drm (apt-get install
// glmark2-es2-drm), Debian's amd64 llvmpipe (libgl1-mesa-dri) or the vc4
// build: VC4SIM_MESA names its install directory, by default
// ${VCCUBE_CACHE:-$HOME/.cache/vccube}/mesa/build/install, where
// conform/build-mesa.sh puts it. VC4SIM_ARTIFACTS names a directory for
// the frames, diffs and summary (a temporary one otherwise).

// glmark2FramesPerScene is how many frames each scene draws (nframes).
const glmark2FramesPerScene = 3

// glmark2ClockStep is the frozen clock's step per reading, in nanoseconds:
// glmark2 reads its clock about once a frame, so scenes move at about
// 60 frames a second of their own time.
const glmark2ClockStep = 16666667

// glmark2Check is how one scene's frames are judged.
type glmark2Check struct {
	// tol holds the vc4 frame to llvmpipe's.
	tol imgcmp.Tolerance
	// fragCoord, for the scenes that shade by gl_FragCoord, replaces tol:
	// vc4's pixels are held to glmark2's shader evaluated at Mesa vc4's
	// gl_FragCoord (see fragCoordShade), and the drawn pixels of the two
	// renderers to each other.
	fragCoord *fragCoordShader
}

// fragCoordShader is glmark2's conditionals, function and loop fragment
// shader (data/shaders/conditionals.frag, function.frag, loop.frag):
// d = fract(x·y·0.0001) of gl_FragCoord, then steps steps of
// d = fract(3d), or with conditional, d = fract(2d) when d ≥ 0.5
// (conditionals-step-conditional.all); the colour is (d, d, d). The
// function scene's "medium" step, fract(3d)·fract(3d) then fract(sqrt(d)),
// is the same function.
type fragCoordShader struct {
	steps       int
	conditional bool
}

func fract32(v float32) float32 { return v - float32(math.Floor(float64(v))) }

// shade returns d at gl_FragCoord (x, y), in float32 as GLSL's highp, each
// operation rounded (no fused multiply-add).
func (s fragCoordShader) shade(x, y float32) float32 {
	d := fract32(float32(float32(x*y) * float32(0.0001)))
	for range s.steps {
		if s.conditional && d >= 0.5 {
			d = fract32(float32(2 * d))
		} else {
			d = fract32(float32(3 * d))
		}
	}
	return d
}

// The scenes' checks. Tolerances are the worst frame measured (doc) with a
// margin; threshold 8 levels throughout.
var glmark2Checks = map[string]glmark2Check{
	// Edges move with sub-pixel precision (the VideoCore IV snaps
	// vertices to 1/16 pixel, llvmpipe to 1/256), as kmscube's do.
	"build:use-vbo=false":                            {tol: tol8(0.999, 40)},
	"build:use-vbo=true":                             {tol: tol8(0.999, 40)},
	"texture:texture-filter=nearest":                 {tol: tol8(0.99, 42)}, // nearest texels flip with sub-pixel differences
	"texture:texture-filter=linear":                  {tol: tol8(0.999, 50)},
	"texture:texture-filter=mipmap":                  {tol: tol8(0.999, 50)},
	"shading:shading=gouraud":                        {tol: tol8(0.999, 44)},
	"shading:shading=blinn-phong-inf":                {tol: tol8(0.998, 44)},
	"shading:shading=phong":                          {tol: tol8(0.995, 42)},
	"shading:shading=cel":                            {tol: tol8(0.998, 37)}, // cel bands: a pixel on a band edge jumps a band
	"bump:bump-render=high-poly":                     {tol: tol8(0.999, 42)},
	"bump:bump-render=normals":                       {tol: tol8(0.997, 40)},
	"bump:bump-render=height":                        {tol: tol8(0.99, 40)},
	"effect2d:kernel=0,1,0;1,-4,1;0,1,0;":            {tol: tol8(0.995, 45)},
	"effect2d:kernel=1,1,1,1,1;1,1,1,1,1;1,1,1,1,1;": {tol: tol8(0.99, 42)},
	"pulsar:quads=5:texture=false:light=false":       {tol: tol8(0.999, 50)},
	// Window edges of the blurred and shadowed windows.
	"desktop:windows=4:effect=blur:blur-radius=5:passes=1:separable=true": {tol: tol8(0.99, 30)},
	"desktop:windows=4:effect=shadow":                                     {tol: tol8(0.99, 30)},
	// A wireframe of 1-pixel anti-aliased lines over a dense mesh: a line's
	// pixels change with any sub-pixel difference. Not explained further
	// (doc): a fence, not a claim.
	"buffer:update-fraction=0.5:update-dispersion=0.9:columns=200:update-method=map:interleave=false":     {tol: tol8(0.95, 34)},
	"buffer:update-fraction=0.5:update-dispersion=0.9:columns=200:update-method=subdata:interleave=false": {tol: tol8(0.95, 34)},
	"buffer:update-fraction=0.5:update-dispersion=0.9:columns=200:update-method=map:interleave=true":      {tol: tol8(0.95, 34)},
	"ideas:speed=duration": {tol: tol8(0.999, 50)},
	"jellyfish":            {tol: tol8(0.99, 36)},
	// The hills differ in shape (the whole picture moves): not explained
	// (doc), not the SFU's precision; a fence, not a claim.
	"terrain": {tol: tol8(0.25, 19)},
	"shadow":  {tol: tol8(0.999, 40)},
	// Speckle over the model, a refracted look-up into a detailed
	// picture: not explained (doc), not the SFU's precision; a fence, not
	// a claim.
	"refract": {tol: tol8(0.96, 33)},
	"conditionals:vertex-steps=0:fragment-steps=0":                {fragCoord: &fragCoordShader{0, true}},
	"conditionals:vertex-steps=0:fragment-steps=5":                {fragCoord: &fragCoordShader{5, true}},
	"conditionals:vertex-steps=5:fragment-steps=0":                {fragCoord: &fragCoordShader{0, true}},
	"function:fragment-steps=5:fragment-complexity=low":           {fragCoord: &fragCoordShader{5, false}},
	"function:fragment-steps=5:fragment-complexity=medium":        {fragCoord: &fragCoordShader{5, false}},
	"loop:vertex-steps=5:fragment-steps=5:fragment-loop=false":    {fragCoord: &fragCoordShader{5, false}},
	"loop:vertex-steps=5:fragment-steps=5:fragment-uniform=false": {fragCoord: &fragCoordShader{5, false}},
	"loop:vertex-steps=5:fragment-steps=5:fragment-uniform=true":  {fragCoord: &fragCoordShader{5, false}},
}

func tol8(within, psnr float64) imgcmp.Tolerance {
	return imgcmp.Tolerance{Threshold: 8, MinFractionWithin: within, MinPSNR: psnr}
}

// The gl_FragCoord scenes' rules: of the pixels vc4 drew (not black),
// this fraction within fragCoordLevels of the shader at Mesa vc4's
// gl_FragCoord; of all pixels, this fraction black in both renderers or in
// neither. Black is the background, but also a drawn pixel whose d rounds
// to 0, and those lie elsewhere in the two pictures (d at other
// gl_FragCoords); the mesh's folds seen edge-on are slivers that move with
// sub-pixel precision. Measured: 99.04 % at worst.
const (
	fragCoordLevels     = 2
	fragCoordMinMatch   = 0.995
	fragCoordMinCovered = 0.985
)

// vc4FragCoord is gl_FragCoord.xy on Mesa 22.3's vc4 for the pixel in
// column c, row r (row 0 on top) of an h-row window: the QPU's integer
// X_COORD and Y_COORD registers as floats, without OpenGL's half-pixel
// centre (vc4_program.c emit_fragcoord_input: itof of FRAG_X and FRAG_Y,
// while vc4_screen.c claims PIPE_CAP_FS_COORD_PIXEL_CENTER_HALF_INTEGER, so
// Mesa adds no 0.5), y counted from the bottom.
func vc4FragCoord(c, r, h int) (float32, float32) { return float32(c), float32(h - r) }

// glFragCoord is OpenGL's: the pixel's centre (OpenGL ES 2.0 §3.8.2).
func glFragCoord(c, r, h int) (float32, float32) {
	return float32(c) + 0.5, float32(h-r) - 0.5
}

// fragCoordMatch returns the fraction of img's drawn pixels whose red is
// within fragCoordLevels of the shader at the given gl_FragCoord, and how
// many pixels were drawn.
func fragCoordMatch(img image.Image, s fragCoordShader, coord func(c, r, h int) (float32, float32)) (float64, int) {
	b := img.Bounds()
	drawn, ok := 0, 0
	for r := 0; r < b.Dy(); r++ {
		for c := 0; c < b.Dx(); c++ {
			cr, cg, cb, _ := img.At(b.Min.X+c, b.Min.Y+r).RGBA()
			if cr|cg|cb == 0 {
				continue
			}
			drawn++
			x, y := coord(c, r, b.Dy())
			want := int(math.Round(float64(s.shade(x, y)) * 255))
			if d := int(cr>>8) - want; d >= -fragCoordLevels && d <= fragCoordLevels {
				ok++
			}
		}
	}
	if drawn == 0 {
		return 0, 0
	}
	return float64(ok) / float64(drawn), drawn
}

// coverageAgreement returns the fraction of pixels black in both images or
// in neither.
func coverageAgreement(a, b image.Image) float64 {
	ab, bb := a.Bounds(), b.Bounds()
	same := 0
	for r := 0; r < ab.Dy(); r++ {
		for c := 0; c < ab.Dx(); c++ {
			r1, g1, b1, _ := a.At(ab.Min.X+c, ab.Min.Y+r).RGBA()
			r2, g2, b2, _ := b.At(bb.Min.X+c, bb.Min.Y+r).RGBA()
			if (r1|g1|b1 == 0) == (r2|g2|b2 == 0) {
				same++
			}
		}
	}
	return float64(same) / float64(ab.Dx()*ab.Dy())
}

// nativeGlmark2 finds what TestGlmark2Frames needs, or skips saying what
// is missing.
type nativeGlmark2 struct {
	bin, mesa, preload, swDir string
}

func findNativeGlmark2(t *testing.T) nativeGlmark2 {
	t.Helper()
	var g nativeGlmark2
	// VC4SIM_GLMARK2_BIN names an amd64 glmark2-es2-drm elsewhere (the
	// arm64 package, which .ci/mesa-test installs, takes /usr/bin's place;
	// .ci/conform-test unpacks the amd64 one beside it).
	g.bin = os.Getenv("VC4SIM_GLMARK2_BIN")
	if g.bin == "" {
		g.bin = "/usr/bin/glmark2-es2-drm"
	}
	f, err := elf.Open(g.bin)
	if err != nil {
		t.Skipf("no native glmark2-es2-drm (apt-get install glmark2-es2-drm): %v", err)
	}
	machine := f.Machine
	f.Close()
	if machine != elf.EM_X86_64 {
		t.Skipf("%s is built for %v, not amd64 (this test runs Debian's amd64 glmark2-es2-drm natively; TestGlmark2 runs the arm64 one)", g.bin, machine)
	}
	g.mesa = os.Getenv("VC4SIM_MESA")
	if g.mesa == "" {
		cache := os.Getenv("VCCUBE_CACHE")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, ".cache", "vccube")
		}
		g.mesa = filepath.Join(cache, "mesa", "build", "install")
	}
	if _, err := os.Stat(filepath.Join(g.mesa, "lib", "dri", "vc4_dri.so")); err != nil {
		t.Skipf("no Mesa vc4 build for this machine (run conform/build-mesa.sh, or set VC4SIM_MESA to its install directory): %v", err)
	}
	const sw = "/usr/lib/x86_64-linux-gnu/dri/kms_swrast_dri.so"
	if _, err := os.Stat(sw); err != nil {
		t.Skipf("no Debian amd64 llvmpipe (apt-get install libgl1-mesa-dri): %v", err)
	}
	// As in findKmscubeTools: a driver directory with kms_swrast alone
	// keeps libgbm from trying zink, which loads the fd's own driver.
	g.swDir = t.TempDir()
	if err := os.Symlink(sw, filepath.Join(g.swDir, "kms_swrast_dri.so")); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if b, err := exec.Command("sh", "preload/build.sh", out).CombinedOutput(); err != nil {
		t.Fatalf("building the preload: %v\n%s", err, b)
	}
	g.preload = filepath.Join(out, "amd64", "vc4sim.so")
	if _, err := os.Stat(g.preload); err != nil {
		t.Skipf("no amd64 preload (gcc on an amd64 machine): %v", err)
	}
	return g
}

// TestGlmark2Frames compares every frame of glmark2's default scenes on
// the simulated vc4 with llvmpipe's, scene by scene (glmark2Checks), at
// 640x480, glmark2FramesPerScene frames each, the clock frozen.
func TestGlmark2Frames(t *testing.T) {
	if os.Getenv("VC4SIM_GLMARK2_FRAMES") == "" {
		t.Skip("needs Debian's amd64 glmark2-es2-drm, llvmpipe and Mesa's vc4 built by conform/build-mesa.sh: set VC4SIM_GLMARK2_FRAMES=1 with them installed")
	}
	g := findNativeGlmark2(t)
	artifacts := os.Getenv("VC4SIM_ARTIFACTS")
	if artifacts == "" {
		artifacts = t.TempDir()
	}
	dst := filepath.Join(artifacts, "glmark2-frames")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, s := range glmark2Scenes {
		if _, ok := glmark2Checks[s]; !ok {
			t.Fatalf("scene %q has no check", s)
		}
	}

	// Scene i's frame j is picture i·N + j − 1 (TestGlmark2): scene 0's
	// frame 0 is never shown, and the last picture is glmark2's clear.
	const n = glmark2FramesPerScene
	last := len(glmark2Scenes)*n - 2
	argv := []string{g.bin, "--winsys-options=drm-device=/dev/dri/card0", "--swap-mode", "fifo",
		"-b", fmt.Sprintf(":nframes=%d:duration=100000", n)}
	for _, s := range glmark2Scenes {
		argv = append(argv, "-b", s)
	}
	k := kmscubeTools{preload: g.preload}
	run := func(name string, env []string, renderer string) string {
		dir := filepath.Join(t.TempDir(), name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		want := map[int]string{}
		for i := 0; i <= last; i++ {
			want[i] = filepath.Join(dir, fmt.Sprintf("frame%03d.png", i))
		}
		capture := simserve.NewCapture(want)
		env = append(env, fmt.Sprintf("VC4SIM_FROZEN_CLOCK=%d", glmark2ClockStep))
		r := runServed(t, k, onlyMode(t, 640, 480), capture, env, argv, 10*time.Minute)
		os.WriteFile(filepath.Join(dst, name+".txt"), []byte(r.out), 0o644)
		if r.err != nil {
			t.Fatalf("%s: %s: %v\n%s", name, strings.Join(argv, " "), r.err, tailOf(r.out))
		}
		if !strings.Contains(r.out, "GL_RENDERER:    "+renderer) {
			t.Fatalf("%s: the renderer is not %s:\n%s", name, renderer, tailOf(r.out))
		}
		if err := capture.Err(); err != nil {
			t.Fatalf("%s: capture: %v\n%s", name, err, tailOf(r.out))
		}
		t.Logf("%s: %v", name, r.elapsed.Round(time.Second))
		return dir
	}
	vc4 := run("vc4", []string{
		"LD_LIBRARY_PATH=" + filepath.Join(g.mesa, "lib"),
		"LIBGL_DRIVERS_PATH=" + filepath.Join(g.mesa, "lib", "dri"),
		"__EGL_VENDOR_LIBRARY_FILENAMES=" + filepath.Join(g.mesa, "share", "glvnd", "egl_vendor.d", "50_mesa.json"),
	}, "VC4 V3D 2.1")
	sw := run("llvmpipe", []string{"GBM_ALWAYS_SOFTWARE=1", "LIBGL_DRIVERS_PATH=" + g.swDir}, "llvmpipe")

	var summary strings.Builder
	fmt.Fprintf(&summary, "| # | glmark2 scene | rule | worst frame |\n|---|---|---|---|\n")
	for i, scene := range glmark2Scenes {
		check := glmark2Checks[scene]
		worst, rule := "", ""
		worstScore := math.Inf(1)
		for j := 0; j < n; j++ {
			f := i*n + j - 1
			if f < 0 {
				continue
			}
			name := fmt.Sprintf("frame%03d.png", f)
			got := imgcmp.MustReadPNG(t, filepath.Join(vc4, name))
			want := imgcmp.MustReadPNG(t, filepath.Join(sw, name))
			keep := false
			if s := check.fragCoord; s != nil {
				rule = fmt.Sprintf("drawn pixels ≥ %g%% within %d levels of the shader at vc4's gl_FragCoord; ≥ %g%% of pixels drawn or not in both", 100*fragCoordMinMatch, fragCoordLevels, 100*fragCoordMinCovered)
				match, drawn := fragCoordMatch(got, *s, vc4FragCoord)
				cover := coverageAgreement(got, want)
				score := min(match, cover)
				if score < worstScore {
					worstScore = score
					worst = fmt.Sprintf("frame %d: %.4f%% of %d drawn pixels match; %.2f%% of pixels drawn or not in both", j, 100*match, drawn, 100*cover)
				}
				if match < fragCoordMinMatch || cover < fragCoordMinCovered || drawn == 0 {
					t.Errorf("%s, frame %d: %.4f%% of %d drawn pixels within %d levels of the shader at vc4's gl_FragCoord; %.2f%% of pixels drawn or not in both renderers",
						scene, j, 100*match, drawn, fragCoordLevels, 100*cover)
					keep = true
				}
				if s.steps == 0 {
					// No step amplifies rounding: llvmpipe must be exactly
					// the shader at OpenGL's pixel centres, which shows the
					// half pixel is the whole difference.
					if m, _ := fragCoordMatch(want, *s, glFragCoord); m < fragCoordMinMatch {
						t.Errorf("%s, frame %d: llvmpipe: %.4f%% of drawn pixels match the shader at OpenGL's gl_FragCoord", scene, j, 100*m)
						keep = true
					}
				}
			} else {
				rule = check.tol.String()
				r, err := check.tol.Check(got, want)
				score := min(r.FractionWithin(), r.PSNR/100)
				if score < worstScore {
					worstScore = score
					worst = fmt.Sprintf("frame %d: %v", j, r)
				}
				if err != nil {
					t.Errorf("%s, frame %d: %v", scene, j, err)
					keep = true
				}
			}
			if keep || j == n-1 {
				base := fmt.Sprintf("scene%02d-frame%d", i, j)
				for _, c := range []struct {
					from, to string
				}{{filepath.Join(vc4, name), base + "-vc4.png"}, {filepath.Join(sw, name), base + "-llvmpipe.png"}} {
					if b, err := os.ReadFile(c.from); err == nil {
						os.WriteFile(filepath.Join(dst, c.to), b, 0o644)
					}
				}
				if err := imgcmp.WriteDiff(filepath.Join(dst, base+"-diff.png"), got, want, 8); err != nil {
					t.Error(err)
				}
			}
		}
		fmt.Fprintf(&summary, "| %d | `%s` | %s | %s |\n", i, scene, rule, worst)
	}
	if err := os.WriteFile(filepath.Join(dst, "summary.md"), []byte(summary.String()), 0o644); err != nil {
		t.Error(err)
	}
	t.Logf("frames and diffs in %s\n%s", dst, summary.String())
}
