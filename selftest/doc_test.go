package selftest

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the probe list in doc/selftest.md")

const (
	docPath  = "../doc/selftest.md"
	docBegin = "<!-- probes: written by selftest.Describe; refresh with go test ./selftest -run TestProbeDoc -update -->\n"
	docEnd   = "<!-- end of probes -->\n"
)

// doc/selftest.md lists the probes as Describe writes them: the list lives
// in the code, the document shows it.
func TestProbeDoc(t *testing.T) {
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	s := string(doc)
	i, j := strings.Index(s, docBegin), strings.Index(s, docEnd)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the markers around the probe list", docPath)
	}
	var b bytes.Buffer
	if err := Describe(&b); err != nil {
		t.Fatal(err)
	}
	want := s[:i+len(docBegin)] + "\n" + b.String() + s[j:]
	if want == s {
		return
	}
	if *update {
		if err := os.WriteFile(docPath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's probe list is out of date: go test ./selftest -run TestProbeDoc -update", docPath)
}
