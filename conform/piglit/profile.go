// Package piglit reads piglit's test profiles and the results its test
// programs print, as piglit's own framework does (framework/profile.py,
// framework/test/piglit_test.py, framework/test/shader_test.py in
// piglit's tree; Debian's piglit package installs that framework with
// the test lists under /usr/lib/<triplet>/piglit).
package piglit

import (
	"compress/gzip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// A Test is one entry of a profile: a program and its arguments.
type Test struct {
	// Name is piglit's name, groups separated by '@' (spec@glsl-1.10@…).
	Name string
	// Type is the test class: "gl", "gl_builtin", "shader", ...
	Type string
	// Command is the program (a name in the piglit's bin directory) and
	// its arguments, without -auto and -fbo (Args adds them).
	Command []string
	// Concurrent is piglit's run_concurrent: a test that may run beside
	// others also gets -fbo (PiglitGLTest.command).
	Concurrent bool
	// RequirePlatforms and ExcludePlatforms are piglit's platform rules
	// (PiglitGLTest.is_skip): a test runs on a platform in the first list,
	// or not in the second.
	RequirePlatforms, ExcludePlatforms []string
}

// Args returns the command line Mesa's CI runner gives t (deqp-runner's
// parse_piglit.rs, parse_piglit_command), to be run in the piglit's root
// directory: the program from root's bin directory, its arguments (a
// gl_builtin test's data file under tests/), -auto, and -fbo when the
// test may run beside others (as PiglitGLTest.command does).
func (t Test) Args(root string) []string {
	args := []string{filepath.Join(root, "bin", t.Command[0])}
	for _, a := range t.Command[1:] {
		if t.Type == "gl_builtin" {
			a = "tests/" + a
		}
		args = append(args, a)
	}
	if t.Type == "glsl_parser" {
		return args
	}
	args = append(args, "-auto")
	if t.Concurrent {
		args = append(args, "-fbo")
	}
	return args
}

// SkipOn says why piglit itself would not run t on platform ("" when it
// would).
func (t Test) SkipOn(platform string) string {
	if len(t.RequirePlatforms) > 0 && !contains(t.RequirePlatforms, platform) {
		return fmt.Sprintf("requires platform %s", strings.Join(t.RequirePlatforms, " or "))
	}
	if contains(t.ExcludePlatforms, platform) {
		return fmt.Sprintf("excluded on platform %s", platform)
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// The XML form of a profile: framework/profile.py writes
// <PiglitTestList count= name=> with one <Test type= name=> per test and
// its constructor's keyword arguments as <option name= value=>, values
// in Python's repr.
type xmlList struct {
	Name  string    `xml:"name,attr"`
	Count int       `xml:"count,attr"`
	Tests []xmlTest `xml:"Test"`
}

type xmlTest struct {
	Type    string      `xml:"type,attr"`
	Name    string      `xml:"name,attr"`
	Options []xmlOption `xml:"option"`
}

type xmlOption struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// LoadProfile reads profile name (quick_gl, quick_shader, ...) from the
// piglit installed at root (tests/NAME.xml.gz).
func LoadProfile(root, name string) ([]Test, error) {
	path := filepath.Join(root, "tests", name+".xml.gz")
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("piglit profile %s: %w (is piglit installed at %s?)", name, err, root)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("piglit profile %s: %w", path, err)
	}
	tests, err := ReadProfile(z)
	if err != nil {
		return nil, fmt.Errorf("piglit profile %s: %w", path, err)
	}
	return tests, nil
}

// ReadProfile parses a profile's XML.
func ReadProfile(r io.Reader) ([]Test, error) {
	var l xmlList
	if err := xml.NewDecoder(r).Decode(&l); err != nil {
		return nil, err
	}
	if l.Count != len(l.Tests) {
		return nil, fmt.Errorf("the list says %d tests and holds %d", l.Count, len(l.Tests))
	}
	tests := make([]Test, 0, len(l.Tests))
	for _, x := range l.Tests {
		// Mesa's runner names a test with its commas made dashes, for its
		// CSV files (piglit_sanitize_test_name); the record uses them.
		t := Test{Name: SanitizeName(x.Name), Type: x.Type, Concurrent: true}
		for _, o := range x.Options {
			var err error
			switch o.Name {
			case "command":
				t.Command, err = pyStrings(o.Value)
			case "run_concurrent":
				t.Concurrent = o.Value == "True"
			case "require_platforms":
				t.RequirePlatforms, err = pyStrings(o.Value)
			case "exclude_platforms":
				t.ExcludePlatforms, err = pyStrings(o.Value)
			}
			if err != nil {
				return nil, fmt.Errorf("test %s: option %s: %w", x.Name, o.Name, err)
			}
		}
		if len(t.Command) == 0 {
			return nil, fmt.Errorf("test %s has no command", x.Name)
		}
		tests = append(tests, t)
	}
	return tests, nil
}

// pyStrings parses the repr of a Python list of strings: ['a', "b'c"].
func pyStrings(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
		return nil, fmt.Errorf("%q is not a list", s)
	}
	s = strings.TrimSpace(s[1 : len(s)-1])
	var out []string
	for s != "" {
		q := s[0]
		if q != '\'' && q != '"' {
			return nil, fmt.Errorf("expected a quoted string at %q", s)
		}
		var b strings.Builder
		i := 1
		for ; i < len(s) && s[i] != q; i++ {
			if s[i] == '\\' && i+1 < len(s) {
				i++
				switch s[i] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				default:
					b.WriteByte(s[i])
				}
				continue
			}
			b.WriteByte(s[i])
		}
		if i == len(s) {
			return nil, errors.New("unterminated string")
		}
		out = append(out, b.String())
		s = strings.TrimSpace(s[i+1:])
		if s != "" {
			if s[0] != ',' {
				return nil, fmt.Errorf("expected a comma at %q", s)
			}
			s = strings.TrimSpace(s[1:])
		}
	}
	return out, nil
}

// SanitizeName writes a test's or subtest's name as Mesa's CI runner
// records it: commas become dashes (deqp-runner's
// piglit_sanitize_test_name), so that a name fits a CSV field.
func SanitizeName(name string) string { return strings.ReplaceAll(name, ",", "-") }
