// Package citecheck finds citations that a person who clones the
// repository cannot follow: paths outside the repository, the names of
// research notes that were never part of it, "seed N" and "issue N"
// references, section signs (§) that name no document, Markdown links to
// missing files and doc/*.md#anchor citations of missing sections.
//
// The rule it enforces is HACKING.md's: code and docs cite primary sources
// (a kernel or Mesa file and function, the reference guide's section or
// table, a VC4C or vc4asm file, a public page by title) or the project's
// own pages under doc/ (doc/testing.md#citations). Its test runs it over
// every tracked text file of the module.
//
// The patterns are spelt so that this package's own source does not match
// them: the forbidden names are assembled from pieces at run time.
package citecheck

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

// Finding is one citation a clone cannot follow.
type Finding struct {
	File   string // slash-separated, relative to the repository root
	Line   int    // 1-based
	Reason string // what is wrong and what to cite instead
	Text   string // the offending line, trimmed
}

func (f Finding) String() string {
	return fmt.Sprintf("%s:%d: %s\n\t%s", f.File, f.Line, f.Reason, f.Text)
}

// rule is a pattern that must not occur in any line.
type rule struct {
	hints  []string // lower-case substrings one of which every match contains, to skip most lines cheaply
	re     *regexp.Regexp
	reason string
}

// sec is the section sign, written as an escape so that the patterns
// below do not contain it literally.
const sec = "\u00a7"

var (
	// Names of research notes that lived outside the repository. Assembled
	// from pieces so that this file does not cite them itself.
	noteNames = []string{
		"hw" + "-vc4", "kernel" + "-vc4", "mesa" + "-vc4-client",
		"audit" + "\\.md", "peers" + "\\.md", "rigs" + "\\.md", "design" + "\\.md",
	}

	lineRules = []rule{
		{[]string{"vc4", ".md"}, regexp.MustCompile(`(?i)\b(` + strings.Join(noteNames, "|") + `)`),
			"cites a research note that is not in the repository: cite the primary source or a section of doc/"},
		{[]string{"shared/"}, regexp.MustCompile(`(?i)\b` + "shared" + `/(reference|seeds)\b`),
			"cites a path outside the repository: cite the primary source or a section of doc/"},
		{[]string{"/" + "work/"}, regexp.MustCompile(`(^|[^A-Za-z0-9_.~-])/` + "work" + `/`),
			"cites an absolute path of a workspace outside the repository"},
		{[]string{"seed"}, regexp.MustCompile(`(?i)seeds?[ _-]?0\d\d`),
			"cites a seed document by number: cite the public write-up by title and date (doc/hardware.md#public-write-ups) and the primary fact"},
		{[]string{"seed"}, regexp.MustCompile(`(?i)\bthe seeds?('s\b|'|\b ?\()`),
			"cites \"the seed\": cite the public write-up by title (doc/hardware.md#public-write-ups)"},
		{[]string{"issue", "pr", "pull"}, regexp.MustCompile(`(?i)\b(issue|pr|pull request)\s*#?\d+`),
			"cites an issue or pull-request number: say what the thing is, or give the full public URL"},
		{[]string{sec}, regexp.MustCompile(`\bhw ` + sec),
			"cites a research note's section: cite the primary source or a section of doc/"},
	}

	// A section sign is fine after the name of the document it numbers.
	sectionRe = regexp.MustCompile(sec + `\s*\d`)
	docNameRe = regexp.MustCompile(`\bAG\b|(?i:reference guide|VideoCoreIV-AG100-R|GIF89a|OpenGL|Vulkan|POSIX|\bC99\b|\bC11\b|\bRFC ?\d+|IEEE)`)

	// ../ sequences followed by a name: a relative path.
	relPathRe = regexp.MustCompile(`(^|[^A-Za-z0-9_./-])((\.\./)+)[A-Za-z0-9_]`)

	// Markdown links [text](target), and citations of a page of doc/ with
	// an optional #anchor.
	mdLinkRe  = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	docCiteRe = regexp.MustCompile(`\bdoc/([A-Za-z0-9_-]+\.md)(#[A-Za-z0-9_-]+)?`)
	// A bare Markdown file name cited by section sign, item or anchor (a
	// name ending in .md followed by "item 4" or "#anchor"); it must be in
	// the repository.
	// A public repository's file named without a section ("Traces1.md in
	// hermanhermitage/videocoreiv-qpu") is a fine citation.
	mdNameRe = regexp.MustCompile(`(^|[^A-Za-z0-9_./-])([A-Za-z0-9_.-]+\.md)(\s*` + sec + `|\s+(item|section|key finding)\b|#)`)
)

// Checker checks files of one repository.
type Checker struct {
	root    string
	files   map[string]bool            // every tracked path
	base    map[string]bool            // base names of tracked .md files
	anchors map[string]map[string]bool // Markdown file → heading anchors
}

// New returns a Checker for the repository at root whose files are the
// given slash-separated paths (relative to root).
func New(root string, files []string) *Checker {
	c := &Checker{root: root, files: map[string]bool{}, base: map[string]bool{}, anchors: map[string]map[string]bool{}}
	for _, f := range files {
		c.files[f] = true
		for d := path.Dir(f); d != "."; d = path.Dir(d) {
			c.files[d] = true // directories exist too
		}
		if strings.HasSuffix(f, ".md") {
			c.base[path.Base(f)] = true
		}
	}
	return c
}

// Files lists the repository's tracked files (git ls-files), or, without
// git, every regular file under root outside .git.
func Files(root string) ([]string, error) {
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = root
	if out, err := cmd.Output(); err == nil {
		var files []string
		for _, f := range strings.Split(string(out), "\x00") {
			if f != "" {
				if _, err := os.Stat(filepath.Join(root, f)); err == nil { // deleted but not staged
					files = append(files, f)
				}
			}
		}
		return files, nil
	}
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	return files, err
}

// Root finds the module root: the nearest directory at or above dir that
// holds go.mod.
func Root(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("citecheck: no go.mod at or above the working directory")
		}
		dir = parent
	}
}

// verbatim names the files that are other projects' text kept byte for
// byte, which citations of ours cannot change: Mesa CI's record of the Pi 3
// (conform/pi3/testdata/README.md says where each file comes from).
var verbatim = []string{"conform/pi3/testdata/mesa-"}

// CheckAll checks every file the Checker knows but the verbatim copies,
// in path order.
func (c *Checker) CheckAll() ([]Finding, error) {
	var names []string
	for f := range c.files {
		if !hasAnyPrefix(f, verbatim) {
			names = append(names, f)
		}
	}
	sort.Strings(names)
	var all []Finding
	for _, f := range names {
		st, err := os.Stat(filepath.Join(c.root, f))
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(c.root, f))
		if err != nil {
			return nil, err
		}
		all = append(all, c.Check(f, data)...)
	}
	return all, nil
}

// Check checks one file's contents; name is its slash-separated path
// relative to the repository root. Binary files are skipped.
func (c *Checker) Check(name string, data []byte) []Finding {
	if isBinary(data) {
		return nil
	}
	var out []Finding
	add := func(line int, text, reason string) {
		for i := len(out) - 1; i >= 0 && out[i].Line == line; i-- {
			if out[i].Reason == reason {
				return // two patterns saw the same fault
			}
		}
		out = append(out, Finding{File: name, Line: line, Reason: reason, Text: strings.TrimSpace(text)})
	}
	isMD := strings.HasSuffix(name, ".md")
	depth := strings.Count(name, "/") // directories between the root and the file
	prev := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		low := strings.ToLower(line)
		for _, r := range lineRules {
			if containsAny(low, r.hints) && r.re.MatchString(line) {
				add(n, line, r.reason)
			}
		}
		if !containsAny(line, cheap) {
			prev = line
			continue
		}
		for _, m := range sectionRe.FindAllStringIndex(line, -1) {
			if !docNameRe.MatchString(prev + "\n" + line[:m[0]]) {
				add(n, line, "a section sign with no document named before it: name the document (AG, GIF89a, OpenGL ES 2.0, ...) or cite a doc/ section by its anchor")
				break
			}
		}
		for _, m := range relPathRe.FindAllStringSubmatch(line, -1) {
			if ups := strings.Count(m[2], "../"); ups > depth {
				add(n, line, fmt.Sprintf("a relative path that leaves the repository (%d levels up from %s)", ups, path.Dir(name)))
				break
			}
		}
		for _, m := range docCiteRe.FindAllStringSubmatch(line, -1) {
			if why := c.target("doc/"+m[1], m[2]); why != "" {
				add(n, line, why)
			}
		}
		if isMD {
			for _, m := range mdLinkRe.FindAllStringSubmatch(line, -1) {
				if why := c.link(name, m[1]); why != "" {
					add(n, line, why)
				}
			}
		}
		for _, m := range mdNameRe.FindAllStringSubmatch(line, -1) {
			if !c.base[m[2]] && !c.files[path.Join(path.Dir(name), m[2])] {
				add(n, line, fmt.Sprintf("names %s, which is not in the repository", m[2]))
			}
		}
		prev = line
	}
	return out
}

// link checks a Markdown link target written in file name.
func (c *Checker) link(name, target string) string {
	if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return ""
	}
	file, frag, _ := strings.Cut(target, "#")
	if file == "" { // a link inside the same page
		file = name
	} else {
		file = path.Clean(path.Join(path.Dir(name), file))
	}
	if frag != "" {
		frag = "#" + frag
	}
	return c.target(file, frag)
}

// target checks that file exists in the repository and, for a Markdown
// file, that frag ("" or "#anchor") names one of its headings.
func (c *Checker) target(file, frag string) string {
	if strings.HasPrefix(file, "../") || !c.files[file] {
		return fmt.Sprintf("links to %s, which is not in the repository", file)
	}
	if frag == "" || !strings.HasSuffix(file, ".md") {
		return ""
	}
	a, err := c.headings(file)
	if err != nil {
		return fmt.Sprintf("cannot read %s: %v", file, err)
	}
	if !a[frag[1:]] {
		return fmt.Sprintf("links to %s%s, but %s has no such section", file, frag, file)
	}
	return ""
}

// headings returns the anchors of a Markdown file's headings, made as
// GitHub makes them.
func (c *Checker) headings(file string) (map[string]bool, error) {
	if a, ok := c.anchors[file]; ok {
		return a, nil
	}
	data, err := os.ReadFile(filepath.Join(c.root, file))
	if err != nil {
		return nil, err
	}
	a := Anchors(data)
	c.anchors[file] = a
	return a, nil
}

// Anchors returns the anchors GitHub gives the headings of a Markdown
// document: lower case, punctuation other than hyphens and underscores
// dropped, spaces turned into hyphens, and "-1", "-2", ... appended to
// repeats. Headings inside fenced code blocks do not count.
func Anchors(md []byte) map[string]bool {
	a := map[string]bool{}
	fenced := false
	for _, line := range strings.Split(string(md), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimLeft(line, "#")
		if len(line)-len(title) > 6 || (title != "" && title[0] != ' ') {
			continue
		}
		slug := Slug(title)
		s := slug
		for i := 1; a[s]; i++ {
			s = fmt.Sprintf("%s-%d", slug, i)
		}
		a[s] = true
	}
	return a
}

// Slug is GitHub's anchor for a heading's text.
func Slug(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(title)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// cheap lists what a line must contain for any of the structural checks
// (section signs, relative paths, doc/ citations, Markdown links and names)
// to apply.
var cheap = []string{sec, "../", "doc/", "](", ".md"}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// isBinary reports whether data looks like a binary file: a NUL byte in
// its first 8000 bytes, as git decides.
func isBinary(data []byte) bool {
	if len(data) > 8000 {
		data = data[:8000]
	}
	return bytes.IndexByte(data, 0) >= 0
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
