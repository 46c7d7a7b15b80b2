package piglit

import (
	"reflect"
	"strings"
	"testing"
)

// The profile format as piglit's framework/profile.py writes it, with the
// shapes Debian's quick_gl and quick_shader hold.
const sampleProfile = `<?xml version='1.0' encoding='utf-8'?>
<PiglitTestList count="4" name="sample">` +
	`<Test type="gl" name="spec@!opengl 1.1@texwrap 2d"><option name="command" value="['texwrap', 'GL_RGBA8']" /><option name="run_concurrent" value="True" /></Test>` +
	`<Test type="gl" name="security@initialized-fbo"><option name="command" value="['initialized-fbo']" /><option name="run_concurrent" value="False" /></Test>` +
	`<Test type="gl_builtin" name="spec@glsl-es-1.00@built-in constants"><option name="command" value="['built-in-constants_gles2', 'spec/glsl-es-1.00/minimum-maximums.txt']" /><option name="run_concurrent" value="True" /></Test>` +
	`<Test type="gl" name="glx@glx-make-current, with comma"><option name="command" value="['glx-make-current', &quot;it's&quot;]" /><option name="run_concurrent" value="True" /><option name="require_platforms" value="['glx', 'mixed_glx_egl']" /></Test>` +
	`</PiglitTestList>`

func TestReadProfile(t *testing.T) {
	tests, err := ReadProfile(strings.NewReader(sampleProfile))
	if err != nil {
		t.Fatal(err)
	}
	root := "/p"
	want := []struct {
		name string
		args []string
	}{
		{"spec@!opengl 1.1@texwrap 2d", []string{"/p/bin/texwrap", "GL_RGBA8", "-auto", "-fbo"}},
		// Not concurrent: no -fbo (parse_piglit_command).
		{"security@initialized-fbo", []string{"/p/bin/initialized-fbo", "-auto"}},
		// gl_builtin: the data file is under tests/.
		{"spec@glsl-es-1.00@built-in constants", []string{"/p/bin/built-in-constants_gles2", "tests/spec/glsl-es-1.00/minimum-maximums.txt", "-auto", "-fbo"}},
		// The comma becomes a dash, as in Mesa's runner.
		{"glx@glx-make-current- with comma", []string{"/p/bin/glx-make-current", "it's", "-auto", "-fbo"}},
	}
	if len(tests) != len(want) {
		t.Fatalf("%d tests, want %d", len(tests), len(want))
	}
	for i, w := range want {
		if tests[i].Name != w.name || !reflect.DeepEqual(tests[i].Args(root), w.args) {
			t.Errorf("test %d: %q %q, want %q %q", i, tests[i].Name, tests[i].Args(root), w.name, w.args)
		}
	}
	if why := tests[3].SkipOn("gbm"); why == "" {
		t.Error("a glx test is not skipped on gbm")
	}
	if why := tests[0].SkipOn("gbm"); why != "" {
		t.Errorf("texwrap skipped on gbm: %s", why)
	}
}

func TestReadProfileRefusesBadInput(t *testing.T) {
	for _, bad := range []string{
		`<PiglitTestList count="2" name="x"><Test type="gl" name="a"><option name="command" value="['a']" /></Test></PiglitTestList>`,
		`<PiglitTestList count="1" name="x"><Test type="gl" name="a"><option name="command" value="['a" /></Test></PiglitTestList>`,
		`<PiglitTestList count="1" name="x"><Test type="gl" name="a"></Test></PiglitTestList>`,
		`not xml`,
	} {
		if _, err := ReadProfile(strings.NewReader(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		out  string
		want Status
		subs map[string]Status
	}{
		{`PIGLIT: {"result": "pass" }`, Pass, nil},
		{"Probe at (0,0)\n  Expected: 0 255 0 255\n  Observed: 0 0 0 0\nPIGLIT: {\"result\": \"fail\" }", Fail, nil},
		{`PIGLIT: {"result": "skip" }`, Skip, nil},
		{`PIGLIT: {"result": "warn" }`, Warn, nil},
		// No result line: a crash, as deqp-runner has it.
		{"Segmentation fault", Crash, nil},
		// Two result lines: a crash.
		{"PIGLIT: {\"result\": \"pass\" }\nPIGLIT: {\"result\": \"pass\" }", Crash, nil},
		{"PIGLIT: {\"enumerate subtests\": [\"a\", \"b\"]}\nPIGLIT: {\"subtest\": {\"a\" : \"pass\"}}\nPIGLIT: {\"subtest\": {\"b, c\" : \"fail\"}}\nPIGLIT: {\"result\": \"fail\" }",
			Fail, map[string]Status{"a": Pass, "b, c": Fail}},
		// A subtest reported twice counts as failed.
		{"PIGLIT: {\"subtest\": {\"a\" : \"pass\"}}\nPIGLIT: {\"subtest\": {\"a\" : \"pass\"}}\nPIGLIT: {\"result\": \"pass\" }",
			Pass, map[string]Status{"a": Fail}},
		{`PIGLIT: {"result": "dmesg-warn" }`, Crash, nil},
	} {
		r := Parse([]byte(c.out))
		if r.Status != c.want {
			t.Errorf("%q: %s, want %s", c.out, r.Status, c.want)
		}
		if c.subs != nil && !reflect.DeepEqual(r.Subtests, c.subs) {
			t.Errorf("%q: subtests %v, want %v", c.out, r.Subtests, c.subs)
		}
	}
	for s, passed := range map[Status]bool{Pass: true, Warn: true, Skip: true, Fail: false, Crash: false, Timeout: false} {
		if s.Passed() != passed {
			t.Errorf("%s.Passed() = %v", s, !passed)
		}
	}
}
