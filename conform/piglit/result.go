package piglit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"sort"
	"strings"
)

// Status is a test's or subtest's verdict, as piglit names them
// (framework/status.py), plus "timeout" for a test the runner stopped.
type Status string

const (
	Pass    Status = "pass"
	Fail    Status = "fail"
	Skip    Status = "skip"
	Warn    Status = "warn"
	Crash   Status = "crash"
	Timeout Status = "timeout"
)

// Passed reports whether s counts as a pass in Mesa's CI runner
// (deqp-runner maps piglit's warn to CompatibilityWarning and skip to
// NotSupported, which it counts as passes): fail, crash and timeout do
// not.
func (s Status) Passed() bool { return s == Pass || s == Warn || s == Skip }

// A Result is what a test program said: its status and its subtests'.
type Result struct {
	Status   Status
	Subtests map[string]Status
}

// SubtestNames returns the subtests' names, sorted.
func (r Result) SubtestNames() []string {
	names := make([]string, 0, len(r.Subtests))
	for n := range r.Subtests {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Parse reads a test program's output as Mesa's CI runner does
// (deqp-runner's parse_piglit.rs, parse_piglit_results): the status is
// the "PIGLIT: {"result": ...}" line (piglit-util.c piglit_report_result);
// none, or a second one, is a crash. Subtests are the "PIGLIT:
// {"subtest": {...}}" lines (piglit_report_subtest_result); a subtest
// reported twice counts as failed. The exit status plays no part, as in
// that runner.
func Parse(out []byte) Result {
	r := Result{Subtests: map[string]Status{}}
	results := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for sc.Scan() {
		line := sc.Text()
		i := strings.Index(line, "PIGLIT: ")
		if i < 0 {
			continue
		}
		var msg struct {
			Result  Status            `json:"result"`
			Subtest map[string]Status `json:"subtest"`
		}
		if json.Unmarshal([]byte(line[i+len("PIGLIT: "):]), &msg) != nil {
			continue
		}
		for n, s := range msg.Subtest {
			if _, dup := r.Subtests[n]; dup {
				s = Fail
			}
			r.Subtests[n] = known(s)
		}
		if msg.Result != "" {
			results++
			r.Status = known(msg.Result)
		}
	}
	if results != 1 {
		r.Status = Crash
	}
	return r
}

// known maps a word the runner does not know to a crash, as
// DeqpStatus::from_piglit_str's callers do.
func known(s Status) Status {
	switch s {
	case Pass, Fail, Skip, Warn, Crash, Timeout:
		return s
	}
	return Crash
}
