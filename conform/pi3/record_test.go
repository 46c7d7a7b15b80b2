package pi3

import "testing"

func TestLoad(t *testing.T) {
	r, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	// The fails file's own count (its README): 1,173 tests and subtests.
	if n := r.Fails(); n != 1173 {
		t.Errorf("%d failures, want 1173", n)
	}
	for _, c := range []struct{ name, status string }{
		{"spec@!opengl 1.1@max-texture-size", "Crash"},
		{"spec@!opengl 1.1@clipflat", "Fail"},
		{"dEQP-GLES2.functional.clipping.line.wide_line_clip_viewport_center", "Fail"},
		// KHR-GLES2, glcts's cases (the fails file has 3, the skips 2).
		{"KHR-GLES2.core.internalformat.texture2d.depth_component_unsigned_int_depth_component16", "Fail"},
		{"KHR-GLES2.core.internalformat.texture2d.depth_component_unsigned_short_depth_component", "Pass"},
		{"KHR-GLES2.texture_3d.filtering.sizes.3x7x5_linear_mipmap_linear", "Skip"},
		{"shaders@glsl-fs-flat-color", "Pass"},
		// skips: "spec@glsl-1.30.*", matched anywhere as deqp-runner does.
		{"spec@glsl-1.30@execution@fs-texture-sampler2dshadow-01", "Skip"},
		{"wgl@wgl-sanity", "Skip"},
		// flakes
		{"shaders@glsl-vs-loop", "Flake"},
	} {
		if got := r.Expect(c.name).Status; got != c.status {
			t.Errorf("%s: %s, want %s", c.name, got, c.status)
		}
	}
	if s := r.Ran2021("glx@glx-make-current"); s != "fail" {
		t.Errorf("2021 status of glx-make-current: %q, want fail", s)
	}
}

func TestClassify(t *testing.T) {
	r, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name       string
		passed, ws bool
		want       Class
	}{
		{"shaders@glsl-fs-flat-color", true, false, Agree},
		{"shaders@glsl-fs-flat-color", false, false, ModelFails},
		{"spec@!opengl 1.1@clipflat", false, false, Agree},
		{"spec@!opengl 1.1@clipflat", true, false, ModelPasses},
		{"spec@glsl-1.30@execution@x", false, false, NotComparable},
		{"shaders@glsl-vs-loop", false, false, NotComparable},
		{"glx@glx-make-current", true, true, NotComparable},
	} {
		if got := r.Classify(c.name, c.passed, c.ws).Class; got != c.want {
			t.Errorf("%s passed=%v: %s, want %s", c.name, c.passed, got, c.want)
		}
	}
	if !WindowSystem("glx@glx-make-current", nil) || !WindowSystem("spec@x", []string{"glx"}) || WindowSystem("spec@y", []string{"gbm"}) {
		t.Error("WindowSystem")
	}
	for _, name := range []string{"spec@!opengl 1.1@read-front", "spec@!opengl 1.1@read-front clear-front-first samples=4",
		"spec@!opengl 1.0@gl-1.0-swapbuffers-behavior"} {
		if !WindowSystem(name, nil) {
			t.Errorf("WindowSystem(%q) = false: a GBM window has no front buffer to read", name)
		}
	}
	if WindowSystem("spec@!opengl 1.1@read-frontier", nil) {
		t.Error("WindowSystem matches a name that merely starts like read-front")
	}
}
