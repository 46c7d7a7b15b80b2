package readme

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vccube/vccube/internal/emulated"
)

// The README's code blocks follow one convention, which this test relies
// on: every block starts with a command line "$ COMMAND" (a trailing
// "# comment" is not part of it), and the lines after a command up to the
// next "$ " line are that command's sample output, where a line "..."
// stands for any number of lines. A command is plain words: no quotes,
// pipes or redirections, since no shell runs it.

// notRun lists the commands the README shows that this test does not run,
// and why. Every other command runs, and must succeed (or end with the
// status wantStatus gives) and print its sample.
var notRun = map[string]string{
	"go test ./...": "the whole test suite, this test included",
	"go install github.com/vccube/vccube/cmd/vccube@latest":             "needs the network; the build below is the same program",
	"go install github.com/vccube/vccube/cmd/vc4serve@latest":           "needs the network; go build ./... builds it",
	"GOOS=linux GOARCH=arm GOARM=6 CGO_ENABLED=0 go build ./cmd/vccube": "writes a vccube binary into the clone; .ci/cross-test builds and tests both Pi targets",
	"GOOS=linux GOARCH=arm64 CGO_ENABLED=0 go build ./cmd/vccube":       "writes a vccube binary into the clone; .ci/cross-test builds and tests both Pi targets",
	"vccube -device sim -display /dev/dri/card0":                        "needs a KMS card and a text console (.ci/vkms-test runs it on a real kernel's VKMS)",
	"./vccube -benchmark -frames 600":                                   "a Pi's figure, 10 s of frames here; the -benchmark -frames 120 sample shows its shape",
}

// wantStatus is the exit status of the commands meant to fail.
var wantStatus = map[string]int{
	"vccube -device foo": 2,
}

// command is one "$ " line of a code block and the sample output under it.
type command struct {
	line   int // in the README, from 1
	text   string
	sample []string
}

// block is one indented code block.
type block struct {
	line int
	cmds []command
}

// parse finds the README's indented code blocks (four spaces, after a
// blank line) and splits each into commands and their samples.
func parse(readme string) ([]block, error) {
	lines := strings.Split(readme, "\n")
	var blocks []block
	var errs []error
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "    ") || (i > 0 && strings.TrimSpace(lines[i-1]) != "") {
			continue
		}
		// A code block: indented lines, and blank lines between them.
		j := i
		for j < len(lines) && (strings.HasPrefix(lines[j], "    ") || strings.TrimSpace(lines[j]) == "") {
			j++
		}
		for j > i && strings.TrimSpace(lines[j-1]) == "" {
			j--
		}
		b := block{line: i + 1}
		for k := i; k < j; k++ {
			l := strings.TrimPrefix(lines[k], "    ")
			if !strings.HasPrefix(l, "$ ") {
				if len(b.cmds) == 0 {
					errs = append(errs, fmt.Errorf("README.md:%d: a code block that does not start with a \"$ \" command line: "+
						"write the command that makes a sample above it, or show commands as \"$ COMMAND\"", k+1))
					break
				}
				c := &b.cmds[len(b.cmds)-1]
				c.sample = append(c.sample, l)
				continue
			}
			text := strings.TrimPrefix(l, "$ ")
			for strings.HasSuffix(text, "\\") && k+1 < j {
				k++
				text = strings.TrimSuffix(text, "\\") + " " + strings.TrimSpace(lines[k])
			}
			if h := strings.Index(text, " #"); h >= 0 {
				text = text[:h]
			}
			b.cmds = append(b.cmds, command{line: k + 1, text: strings.Join(strings.Fields(text), " ")})
		}
		blocks = append(blocks, b)
		i = j
	}
	return blocks, errors.Join(errs...)
}

// argv turns a README command into the program and arguments to run, with
// bin for vccube, or says why it cannot.
func argv(cmd, bin string) ([]string, error) {
	if strings.ContainsAny(cmd, "|<>;&'\"`$*") {
		return nil, fmt.Errorf("%q: the README's commands are plain words (this test runs no shell)", cmd)
	}
	f := strings.Fields(cmd)
	switch {
	case len(f) >= 3 && f[0] == "go" && f[1] == "run" && f[2] == "./cmd/vccube":
		return append([]string{bin}, f[3:]...), nil
	case f[0] == "vccube" || f[0] == "./vccube":
		return append([]string{bin}, f[1:]...), nil
	}
	return nil, fmt.Errorf("%q: this test runs only vccube (go run ./cmd/vccube, vccube, ./vccube); "+
		"list any other command in notRun with the reason", cmd)
}

var (
	digits = regexp.MustCompile(`[0-9]+`)
	spaces = regexp.MustCompile(`\s+`)
	// What depends on the machine's load rather than on the program: the
	// split of missed vblanks, which appears only when there were any, and
	// frames that took a second or more (counted as possible hangs).
	missedSplit = regexp.MustCompile(` \([0-9]+ with the frame not ready, [0-9]+ after the flip was queued\)`)
	slowFrames  = regexp.MustCompile(`(?m)^GPU hangs: 0 of [0-9]+ frames lost[^\n]*\n  [0-9]+ frames took a second or more[^\n]*\n`)
)

// shape reduces output to what a sample must match: every run of digits
// becomes "#", runs of white space one space, the load-dependent parts
// above are dropped, and a line repeated (kmscube's "Rendered" line, which
// -benchmark prints every 2 s) counts once.
func shape(lines []string) []string {
	text := strings.Join(lines, "\n") + "\n"
	text = slowFrames.ReplaceAllString(text, "GPU hangs: none\n")
	text = missedSplit.ReplaceAllString(text, "")
	var out []string
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		l = spaces.ReplaceAllString(digits.ReplaceAllString(strings.TrimRight(l, " \t"), "#"), " ")
		if len(out) > 0 && out[len(out)-1] == l && l != "..." {
			continue
		}
		out = append(out, l)
	}
	return out
}

// matches reports whether got has the shape of sample, where a sample
// line "..." stands for any number of lines.
func matches(sample, got []string) bool {
	if len(sample) == 0 {
		return len(got) == 0
	}
	if sample[0] == "..." {
		for k := 0; k <= len(got); k++ {
			if matches(sample[1:], got[k:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && sample[0] == got[0] && matches(sample[1:], got[1:])
}

func TestParse(t *testing.T) {
	blocks, err := parse("text\n\n    $ vccube -frames 2 \\\n        -view=false  # a comment\n    out 1\n\n    ...\n    $ go test ./...\n\n" +
		"text\n    not a block: a paragraph's line\n\n    no command\n")
	if err == nil || !strings.Contains(err.Error(), "README.md:13: a code block that does not start") {
		t.Errorf("a block without a command: error %v", err)
	}
	if len(blocks) != 2 || len(blocks[0].cmds) != 2 {
		t.Fatalf("blocks %+v", blocks)
	}
	c := blocks[0].cmds[0]
	if c.line != 4 || c.text != "vccube -frames 2 -view=false" || strings.Join(c.sample, "|") != "out 1||..." {
		t.Errorf("command %+v", c)
	}
}

func TestShape(t *testing.T) {
	got := shape([]string{
		"Rendered 93 frames in 2.003226 sec (46.425120 fps)",
		"Rendered 599 frames in 11.608078 sec (51.601994 fps)",
		"page flips: 9 queued, 9 completed, 3 missed vblanks (3 with the frame not ready, 0 after the flip was queued); interval mean 19.361 ms",
		"GPU hangs: 0 of 9 frames lost; kernel hang states: not read",
		"  2 frames took a second or more, as long as the kernel takes",
		"  A    1",
	})
	sample := shape([]string{
		"Rendered 119 frames in 1.970325 sec (60.396137 fps)",
		"page flips: 119 queued, 119 completed, 0 missed vblanks; interval mean 16.683 ms",
		"GPU hangs: none",
		"...",
	})
	if !matches(sample, got) {
		t.Errorf("sample\n%s\ndoes not match\n%s", strings.Join(sample, "\n"), strings.Join(got, "\n"))
	}
	if matches(sample, got[:2]) || matches(shape([]string{"GPU hangs: none"}), shape([]string{"GPU hangs: 1 of 9 frames lost"})) {
		t.Error("a different shape matched")
	}
}

// TestREADME runs the README's commands and holds their output to its
// samples.
func TestREADME(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the README's commands (about 15 s)")
	}
	// The samples are the same program's output on every architecture;
	// under .ci/cross-test (qemu-user) the runs would be emulated, whole
	// seconds of simulated GPU each, to learn nothing more.
	emulated.Skip(t, "the README's commands run on the host's own build")
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := parse(string(readme))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "vccube")
	build := exec.Command("go", "build", "-o", bin, "github.com/vccube/vccube/cmd/vccube")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	seen := map[string]bool{}
	for _, b := range blocks {
		for _, c := range b.cmds {
			seen[c.text] = true
		}
	}
	for cmd := range notRun {
		if !seen[cmd] {
			t.Errorf("notRun lists %q, which the README does not show: remove it", cmd)
		}
	}
	for _, b := range blocks {
		t.Run(fmt.Sprintf("line%d", b.line), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir() // the commands of one block share their files
			for _, c := range b.cmds {
				if why, ok := notRun[c.text]; ok {
					if len(c.sample) > 0 {
						t.Errorf("README.md:%d: %q has a sample but is not run (%s)", c.line, c.text, why)
					}
					continue
				}
				args, err := argv(c.text, bin)
				if err != nil {
					t.Errorf("README.md:%d: %v", c.line, err)
					continue
				}
				run(t, dir, c, args)
			}
		})
	}
}

// run runs one command in dir, stdout and stderr into one stream as a
// terminal shows them, and checks its status and sample.
func run(t *testing.T, dir string, c command, args []string) {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	status := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		status = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("README.md:%d: %s: %v", c.line, c.text, err)
	}
	got := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if status != wantStatus[c.text] {
		t.Errorf("README.md:%d: %s ended with status %d, want %d:\n%s", c.line, c.text, status, wantStatus[c.text], out.String())
	}
	if len(c.sample) == 0 {
		return
	}
	if !matches(shape(c.sample), shape(got)) {
		t.Errorf("README.md:%d: the sample under %q no longer has the shape of the program's output "+
			"(numbers aside; a line \"...\" stands for any lines): update the README from this output:\n%s\n"+
			"sample, reduced to its shape:\n%s\noutput, reduced:\n%s",
			c.line, c.text, out.String(), strings.Join(shape(c.sample), "\n"), strings.Join(shape(got), "\n"))
	}
}
