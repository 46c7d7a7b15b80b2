package conform

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vccube/vccube/conform/piglit"
	"github.com/vccube/vccube/internal/emulated"
)

// fakeDeqp is a shell script standing for a dEQP program: it runs the
// cases of its --deqp-caselist-file in order, printing what dEQP prints,
// each case doing what its last name component says.
const fakeDeqp = `#!/bin/sh
list= log= pbuffer=no
for a; do
	case "$a" in
	--deqp-caselist-file=*) list=${a#*=} ;;
	--deqp-log-filename=*) log=${a#*=} ;;
	--deqp-surface-type=pbuffer) pbuffer=yes ;;
	esac
done
echo "Writing test log into $log"
echo "dEQP Core git-0 (0x0) starting.."
echo "#qpa log" > "$log"
n=$(wc -l < "$list")
while read -r c; do
	case "$c" in
	*.missing*) continue ;;
	*.dies-early) [ -e "$VC4SIM/died" ] || { touch "$VC4SIM/died"; kill -SEGV $$; } ;;
	esac
	printf '\nTest case %s..\n' "'$c'"
	case "$c" in
	*.pass*) echo "  Pass (Pass)" ;;
	*.fail*) echo "Mesa: some driver message"; echo "  Fail (Image comparison failed)" ;;
	*.ns*) echo "  NotSupported (GL_OES_texture_3D is not supported)" ;;
	*.warn*) echo "  Info (a line that is no result)"; echo "  QualityWarning (not so hot)" ;;
	*.crash*) kill -SEGV $$ ;;
	*.hang*) sleep 60 ;;
	*.device*) [ -S "$VC4SIM/socket" ] && [ "$pbuffer" = yes ] && [ "$(pwd)" = "$DEQP_DIR" ] &&
		[ "$LD_PRELOAD" = /nonexistent/vc4sim.so ] && echo "  Pass (Pass)" || echo "  Fail (no device)" ;;
	*.group*) [ "$n" -le 3 ] && echo "  Pass (Pass)" || echo "  Fail ($n cases in one process)" ;;
	*.dies-early) echo "  Pass (Pass)" ;;
	esac
done < "$list"
printf '\nDONE!\n'
`

func TestRunDeqp(t *testing.T) {
	emulated.Skip(t, "the runner starts this binary as its server, which the host cannot run")
	dir := t.TempDir()
	bin := filepath.Join(dir, "deqp-fake")
	if err := os.WriteFile(bin, []byte(fakeDeqp), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []string{
		"d.a.pass1", "d.a.fail1", "d.a.ns1", "d.a.warn1", // group 0
		"d.b.pass2", "d.b.crash1", "d.b.pass3", "d.b.group1", // group 1: the rest of a crash run again
		"d.c.hang1", "d.c.device1", "d.c.missing1", "d.c.pass4", // group 2: after a timeout, a new server
		"d.d.dies-early", // group 3: dies before its first case once, then runs
	}
	logs := t.TempDir()
	var got []Result
	o := DeqpOptions{
		Binary:   bin,
		Args:     []string{"--deqp-surface-type=pbuffer", "--deqp-surface-width=256"},
		PerGroup: 4,
		Workers:  1,
		Timeout:  2 * time.Second,
		Env:      []string{"DEQP_DIR=" + dir},
		Preload:  "/nonexistent/vc4sim.so",
		Server:   []string{os.Args[0]},
		Dir:      t.TempDir(),
		LogDir:   logs,
		OnResult: func(r Result) { got = append(got, r) },
	}
	if err := RunDeqp(context.Background(), o, cases); err != nil {
		t.Fatal(err)
	}
	byName := map[string]Result{}
	for _, r := range got {
		if _, dup := byName[r.Name]; dup {
			t.Errorf("%s has two results", r.Name)
		}
		byName[r.Name] = r
	}
	want := map[string]piglit.Status{
		"d.a.pass1": piglit.Pass, "d.a.fail1": piglit.Fail, "d.a.ns1": piglit.Skip, "d.a.warn1": piglit.Warn,
		"d.b.pass2": piglit.Pass, "d.b.crash1": piglit.Crash, "d.b.pass3": piglit.Pass, "d.b.group1": piglit.Pass,
		"d.c.hang1": piglit.Timeout, "d.c.device1": piglit.Pass, "d.c.missing1": piglit.Skip, "d.c.pass4": piglit.Pass,
		"d.d.dies-early": piglit.Crash,
	}
	for name, s := range want {
		r, ok := byName[name]
		if !ok {
			t.Errorf("%s: no result", name)
			continue
		}
		if r.Status != s {
			t.Errorf("%s: %s, want %s (output %q)", name, r.Status, s, r.Output)
		}
	}
	if len(got) != len(cases) {
		t.Errorf("%d results for %d cases", len(got), len(cases))
	}
	if r := byName["d.a.fail1"]; !strings.Contains(r.Output, "Mesa: some driver message") || !strings.HasSuffix(r.Output, "  Fail (Image comparison failed)\n") {
		t.Errorf("a failing case's output is %q, want its lines up to its status", r.Output)
	}
	if r := byName["d.a.fail1"]; r.Log == "" {
		t.Error("a failing case names no kept log")
	} else if b, err := os.ReadFile(r.Log); err != nil || string(b) != "#qpa log\n" {
		t.Errorf("the kept log %s: %q, %v", r.Log, b, err)
	}
	if r := byName["d.a.pass1"]; r.Log != "" || r.Output != "Test case 'd.a.pass1'..\n  Pass (Pass)\n" {
		t.Errorf("a passing case: log %q, output %q", r.Log, r.Output)
	}
	if r := byName["d.c.missing1"]; r.Skipped == "" {
		t.Error("a case the program does not have is not said to be not run")
	}
	if r := byName["d.c.hang1"]; r.Seconds > 30 || !strings.Contains(r.Output, "stopped by vc4conform") {
		t.Errorf("the hung case ran %.0f s, output %q", r.Seconds, r.Output)
	}
	if !strings.Contains(byName["d.d.dies-early"].Output, "before its first case") {
		t.Errorf("a process that died before its first case: output %q", byName["d.d.dies-early"].Output)
	}
	restarted := 0
	for _, r := range got {
		if r.ServerRestarted != "" {
			restarted++
			if r.Name != "d.c.hang1" {
				t.Errorf("the server was replaced after %s: %s", r.Name, r.ServerRestarted)
			}
		}
	}
	if restarted != 1 {
		t.Errorf("the server was replaced %d times, want once (after the timeout)", restarted)
	}
}

func TestDeqpStatus(t *testing.T) {
	// deqp-runner's mapping (parse_deqp.rs), for each of dEQP's result
	// codes (qpTestLog.c's s_qpTestResultMap).
	want := map[string]piglit.Status{
		"Pass": piglit.Pass, "Fail": piglit.Fail, "QualityWarning": piglit.Warn, "CompatibilityWarning": piglit.Warn,
		"Pending": piglit.Fail, "NotSupported": piglit.Skip, "ResourceError": piglit.Fail, "InternalError": piglit.Fail,
		"Crash": piglit.Crash, "Timeout": piglit.Timeout, "Waiver": piglit.Warn,
	}
	for code, s := range want {
		if got, ok := DeqpStatus(code); !ok || got != s {
			t.Errorf("DeqpStatus(%q) = %s, %v; want %s", code, got, ok, s)
		}
	}
	if _, ok := DeqpStatus("Info"); ok {
		t.Error("Info is taken for a result")
	}
}

func TestGroupsAndCaselist(t *testing.T) {
	g := Groups([]string{"a", "b", "c", "d", "e"}, 2)
	if !reflect.DeepEqual(g, [][]string{{"a", "b"}, {"c", "d"}, {"e"}}) {
		t.Errorf("Groups: %v", g)
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "good.txt")
	os.WriteFile(good, []byte("# comment\ndEQP-GLES2.info.vendor\n\ndEQP-GLES2.info.renderer\n"), 0o644)
	cases, err := ReadCaselist(good)
	if err != nil || !reflect.DeepEqual(cases, []string{"dEQP-GLES2.info.vendor", "dEQP-GLES2.info.renderer"}) {
		t.Errorf("ReadCaselist: %v, %v", cases, err)
	}
	trie := filepath.Join(dir, "trie.txt")
	os.WriteFile(trie, []byte("{dEQP-GLES2{info{vendor}}}\n"), 0o644)
	if _, err := ReadCaselist(trie); err == nil || !strings.Contains(err.Error(), "one name a line") {
		t.Errorf("a trie case list: %v, want an error saying what a case list is", err)
	}
	empty := filepath.Join(dir, "empty.txt")
	os.WriteFile(empty, nil, 0o644)
	if _, err := ReadCaselist(empty); err == nil {
		t.Error("an empty case list is taken")
	}
}
