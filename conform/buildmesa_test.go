package conform

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepo makes a git repository in a temporary directory with the given
// files committed, and returns it and its commit.
func gitRepo(t *testing.T, files map[string]string) (dir, commit string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir = t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t",
			"-c", "commit.gpgsign=false"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("add", ".")
	git("commit", "-q", "-m", "files")
	return dir, git("rev-parse", "HEAD")
}

// buildMesa runs conform/build-mesa.sh with a cache of its own and returns
// its exit status and output.
func buildMesa(t *testing.T, cache string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{"build-mesa.sh", "-cache", cache}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		}
		t.Fatalf("build-mesa.sh: %v", err)
	}
	return 0, string(out)
}

// The -git and -commit options stop before building anything, with a
// message and exit status 1, on what cannot be a Mesa commit, and leave
// no exported tree behind.
func TestBuildMesaGitRefusals(t *testing.T) {
	notMesa, notMesaCommit := gitRepo(t, map[string]string{"README": "not Mesa\n"})
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"git without commit", []string{"-git", notMesa}, "-git and -commit go together"},
		{"commit without git", []string{"-commit", notMesaCommit}, "-git and -commit go together"},
		{"src and git", []string{"-src", notMesa, "-git", notMesa, "-commit", notMesaCommit}, "give one"},
		{"unknown commit", []string{"-git", notMesa, "-commit", "no-such-commit"}, "no commit no-such-commit in " + notMesa},
		{"not a Mesa tree", []string{"-git", notMesa, "-commit", notMesaCommit}, "is not a Mesa tree with vc4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache := t.TempDir()
			code, out := buildMesa(t, cache, tc.args...)
			if code != 1 || !strings.Contains(out, tc.want) {
				t.Errorf("exit %d, output %q; want exit 1 and %q", code, out, tc.want)
			}
			left, err := filepath.Glob(filepath.Join(cache, "git", "*"))
			if err != nil {
				t.Fatal(err)
			}
			if len(left) != 0 {
				t.Errorf("left in the cache: %v", left)
			}
		})
	}
}
