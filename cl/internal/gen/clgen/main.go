// Command clgen writes cl/packets_gen.go from the description in cl/spec.
// Run it through go generate in package cl.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/vccube/vccube/cl/internal/gen"
	"github.com/vccube/vccube/internal/toolflags"
)

// usageHead is the start of -h, before the flags.
const usageHead = `clgen writes the typed control-list packets of package cl (packets_gen.go)
from their description in cl/spec. Run it through go generate ./cl.

Usage: clgen [-o FILE]

Flags:
`

func main() {
	fs := flag.NewFlagSet("clgen", flag.ContinueOnError)
	out := fs.String("o", "packets_gen.go", "output `file`")
	toolflags.Parse(fs, usageHead, 0)
	src, err := gen.Generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "clgen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "clgen:", err)
		os.Exit(1)
	}
}
