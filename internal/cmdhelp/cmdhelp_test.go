package cmdhelp

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vccube/vccube/internal/emulated"
)

// moduleRoot is the module's root from this package's directory.
const moduleRoot = "../.."

// mains lists the module's main packages.
func mains(t *testing.T) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", `{{if eq .Name "main"}}{{.ImportPath}}{{end}}`, "./...")
	cmd.Dir = moduleRoot
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := strings.Fields(string(out))
	if len(pkgs) < 2 {
		t.Fatalf("go list found the main packages %q", pkgs)
	}
	return pkgs
}

// runIn runs bin with args in dir and returns its exit status and output.
func runIn(t *testing.T, dir, bin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &out, &errb
	cmd.Stdin = nil // /dev/null: no command may wait for input here
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatalf("%s %q: %v", bin, args, err)
	}
	return code, out.String(), errb.String()
}

// Every command's -h starts with what the command is for (a sentence
// whose subject is its name), lists its flags (or says it has none) and
// exits 0, without writing anything; a flag it does not have exits 2 and
// names the flag. kmsprobe's subcommands have their own flags.
func TestEveryCommandHelps(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every command of the module")
	}
	emulated.Skip(t, "the commands it builds are that architecture's; the host runs them in the native test")
	pkgs := mains(t)
	bin := t.TempDir()
	build := exec.Command("go", append([]string{"build", "-o", bin + string(filepath.Separator)}, pkgs...)...)
	build.Dir = moduleRoot
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	type cmdline struct {
		name string
		args []string
	}
	var cmds []cmdline
	for _, p := range pkgs {
		cmds = append(cmds, cmdline{path.Base(p), nil})
	}
	for _, sub := range []string{"present", "supervise", "judge"} {
		cmds = append(cmds, cmdline{"kmsprobe", []string{sub}})
	}
	for _, c := range cmds {
		title := strings.Join(append([]string{c.name}, c.args...), " ")
		t.Run(title, func(t *testing.T) {
			exe := filepath.Join(bin, c.name)
			work := t.TempDir()
			code, stdout, stderr := runIn(t, work, exe, append(c.args, "-h")...)
			help := stdout
			if len(c.args) > 0 {
				help = stderr // a subcommand's usage goes where its errors go
			}
			if code != 0 {
				t.Errorf("-h: exit %d, want 0; stderr %q", code, stderr)
			}
			if !strings.HasPrefix(help, title+" ") {
				t.Errorf("-h does not start with %q, what the command is for:\n%s", title+" ", help)
			}
			if !strings.Contains(help, "\n  -") && !strings.Contains(help, "no flags") && !strings.Contains(help, "-h lists the flags of each") {
				t.Errorf("-h lists no flags:\n%s", help)
			}
			code, _, stderr = runIn(t, work, exe, append(c.args, "-no-such-flag")...)
			if code != 2 || !strings.Contains(stderr, "no-such-flag") && c.name != "kmsprobe" {
				t.Errorf("-no-such-flag: exit %d, want 2; stderr %q", code, stderr)
			}
			if left, _ := os.ReadDir(work); len(left) != 0 {
				t.Errorf("left behind in the working directory: %v", left)
			}
		})
	}
}
