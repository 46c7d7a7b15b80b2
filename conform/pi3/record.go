// Package pi3 is the judge of the simulated vc4: what Mesa's CI recorded
// of real Raspberry Pi 3 boards running piglit, dEQP-GLES2 and KHR-GLES2
// with Mesa's vc4 driver. A test that a job ran and that is not in the
// record's fails list, nor matched by its flake or skip patterns, passed
// on a real Pi 3. The files in testdata are Mesa's own, byte for byte
// (testdata/README.md says where each comes from).
package pi3

import (
	"bufio"
	"embed"
	"fmt"
	"regexp"
	"strings"
)

//go:embed testdata/*.txt
var files embed.FS

// The files of the record at Mesa 22.3.0 (src/broadcom/ci/ and
// .gitlab-ci/all-skips.txt at that release), and the older lists of every
// non-passing result (src/broadcom/ci/vc4-rpi3-quick_*.txt, 2021).
const (
	failsFile  = "testdata/mesa-22.3.0__broadcom-rpi3-fails.txt"
	flakesFile = "testdata/mesa-22.3.0__broadcom-rpi3-flakes.txt"
	skipsFile  = "testdata/mesa-22.3.0__broadcom-rpi3-skips.txt"
	allSkips   = "testdata/mesa-22.3.0__all-skips.txt"
	old1       = "testdata/mesa-21.1-devel__vc4-rpi3-quick_gl.txt"
	old2       = "testdata/mesa-21.1-devel__vc4-rpi3-quick_shader.txt"
)

// A pattern is one line of a skips or flakes file: a regular expression
// that deqp-runner matches anywhere in a test's name (its RegexSet, not
// anchored).
type pattern struct {
	re   *regexp.Regexp
	line string
	file string
}

// Record is the Pi 3 record, loaded.
type Record struct {
	fails  map[string]string // test name → "Fail" or "Crash"
	flakes []pattern
	skips  []pattern
	// ran2021 holds the status of each test the 2021 lists name (every
	// non-passing result of quick_gl and quick_shader then), under its
	// name with '/' made '@' (the old lists' group separator).
	ran2021 map[string]string
}

// Load reads the record embedded in the package.
func Load() (*Record, error) {
	r := &Record{fails: map[string]string{}, ran2021: map[string]string{}}
	err := eachLine(failsFile, func(line string) error {
		name, status, ok := strings.Cut(line, ",")
		if !ok || (status != "Fail" && status != "Crash") {
			return fmt.Errorf("%q is not name,Fail or name,Crash", line)
		}
		r.fails[name] = status
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, f := range []struct {
		file string
		into *[]pattern
	}{{flakesFile, &r.flakes}, {skipsFile, &r.skips}, {allSkips, &r.skips}} {
		err := eachLine(f.file, func(line string) error {
			re, err := regexp.Compile(line)
			if err != nil {
				return err
			}
			*f.into = append(*f.into, pattern{re: re, line: line, file: strings.TrimPrefix(f.file, "testdata/")})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	for _, file := range []string{old1, old2} {
		err := eachLine(file, func(line string) error {
			i := strings.LastIndex(line, ": ")
			if i < 0 {
				return fmt.Errorf("%q is not path: status", line)
			}
			r.ran2021[oldName(line[:i])] = line[i+2:]
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return r, nil
}

// oldName writes a name so that the 2021 lists' names ('/' between
// groups) and today's ('@') compare.
func oldName(n string) string { return strings.ReplaceAll(n, "/", "@") }

// eachLine calls fn with each line of file that is not empty and not a
// comment (the files' own rule: "lines that, when non-zero-length and not
// starting with '#'").
func eachLine(file string, fn func(string) error) error {
	data, err := files.ReadFile(file)
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if err := fn(line); err != nil {
			return fmt.Errorf("%s:%d: %w", file, n, err)
		}
	}
	return sc.Err()
}

// Fails returns the number of tests the record lists as failing.
func (r *Record) Fails() int { return len(r.fails) }

// Expectation is what the record says of one test.
type Expectation struct {
	// Status is "Pass" (the test ran on a Pi 3 and passed — if the job
	// ran it), "Fail" or "Crash" (it ran and did not pass), "Skip" (not
	// run on a Pi 3) or "Flake" (its result is ignored).
	Status string
	// Pattern is the skip or flake pattern that matched, with its file.
	Pattern string
}

// Expect says what the record says of the test or subtest name.
func (r *Record) Expect(name string) Expectation {
	for _, p := range r.skips {
		if p.re.MatchString(name) {
			return Expectation{Status: "Skip", Pattern: p.file + ": " + p.line}
		}
	}
	for _, p := range r.flakes {
		if p.re.MatchString(name) {
			return Expectation{Status: "Flake", Pattern: p.file + ": " + p.line}
		}
	}
	if s, ok := r.fails[name]; ok {
		return Expectation{Status: s}
	}
	return Expectation{Status: "Pass"}
}

// Ran2021 returns the status the 2021 lists give the test ("" when they
// do not name it: it passed then, or did not exist yet).
func (r *Record) Ran2021(name string) string { return r.ran2021[oldName(name)] }

// Class is a test's place in the comparison of the model with a Pi 3.
type Class string

const (
	// Agree: both passed, or both did not.
	Agree Class = "agree"
	// ModelFails: fails on the model, passed on a Pi 3.
	ModelFails Class = "model-fails"
	// ModelPasses: passes on the model, failed on a Pi 3.
	ModelPasses Class = "model-passes"
	// NotComparable: the Pi 3's result is unknown or ignored (skipped or
	// flaky there), or the test needs what the simulated device does not
	// serve (GLX and X11: Mesa ran quick_gl under Xorg).
	NotComparable Class = "not-comparable"
)

// Describe says what a class means, for reports.
func (c Class) Describe() string {
	switch c {
	case Agree:
		return "agrees with the Pi 3"
	case ModelFails:
		return "fails on the model, passed on a Pi 3"
	case ModelPasses:
		return "passes on the model, failed on a Pi 3"
	}
	return "not comparable"
}

// Verdict is a test's class and why.
type Verdict struct {
	Class Class
	// Pi3 is what the record says ("Pass", "Fail", "Crash", "Skip",
	// "Flake").
	Pi3 string
	// Why says why a test is not comparable.
	Why string
}

// WindowSystem reports whether the test needs GLX or X11, which Mesa's
// quick_gl job had (Xorg, PIGLIT_PLATFORM=mixed_glx_egl) and the simulated
// device, which serves GBM, does not.
//
// The tests that read a window's front buffer after a swap need it too: a
// GBM window surface has a back buffer only (Mesa's
// src/egl/drivers/dri2/platform_drm.c: dri2_drm_image_get_buffers hands
// the driver the back buffer alone and dri2_drm_flush_front_buffer does
// nothing), so GL_FRONT reads a buffer of Mesa's own that no swap fills:
// read-front sees black, or its own clear with clear-front-first.
func WindowSystem(name string, requirePlatforms []string) bool {
	if strings.HasPrefix(name, "glx@") || strings.Contains(name, "@glx_") || strings.Contains(name, "egl_ext_platform_x11") ||
		strings.Contains(name, "@egl_khr_platform_x11") {
		return true
	}
	for _, t := range frontBufferTests {
		if name == t || strings.HasPrefix(name, t+" ") || strings.HasPrefix(name, t+"@") {
			return true
		}
	}
	for _, p := range requirePlatforms {
		if p == "glx" || p == "x11_egl" || p == "mixed_glx_egl" {
			return true
		}
	}
	return false
}

// frontBufferTests are the tests (with their argument variants, "NAME
// ARGS", and subtests) that draw to the back buffer, swap, and read the
// front buffer back (piglit tests/general/read-front.c,
// tests/spec/gl-1.0/swapbuffers-behavior.c).
var frontBufferTests = []string{
	"spec@!opengl 1.1@read-front",
	"spec@!opengl 1.0@gl-1.0-swapbuffers-behavior",
}

// Classify puts one result of the model in its class: passed is whether
// the test counts as passed on the model (pass, warn or skip, as Mesa's
// runner counts them).
func (r *Record) Classify(name string, passed, windowSystem bool) Verdict {
	e := r.Expect(name)
	v := Verdict{Pi3: e.Status}
	switch {
	case e.Status == "Skip":
		v.Class, v.Why = NotComparable, "not run on a Pi 3 ("+e.Pattern+")"
	case e.Status == "Flake":
		v.Class, v.Why = NotComparable, "flaky on a Pi 3 ("+e.Pattern+")"
	case windowSystem:
		v.Class, v.Why = NotComparable, "needs GLX or X11 (Mesa ran quick_gl under Xorg; the simulated device serves GBM)"
	case passed == (e.Status == "Pass"):
		v.Class = Agree
	case passed:
		v.Class = ModelPasses
	default:
		v.Class = ModelFails
	}
	return v
}
