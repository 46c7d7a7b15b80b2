// Command clgen writes cl/packets_gen.go from the description in cl/spec.
// Run it through go generate in package cl.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/vccube/vccube/cl/internal/gen"
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
	parseFlags(fs, usageHead, 0)
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

// parseFlags reads the command line into fs: -h prints head and the flags
// on stdout and exits 0; a mistake, or more than maxArgs arguments after
// the flags, exits 2, saying what is wrong.
func parseFlags(fs *flag.FlagSet, head string, maxArgs int) {
	fs.SetOutput(io.Discard) // the flag package's own message and usage: the error says it
	fs.Usage = func() {}
	err := fs.Parse(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		fmt.Print(head)
		fs.SetOutput(os.Stdout)
		fs.PrintDefaults()
		os.Exit(0)
	}
	if err == nil && fs.NArg() > maxArgs {
		err = fmt.Errorf("unexpected argument %q (flags start with -)", fs.Arg(maxArgs))
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v (%s -h lists the flags)\n", fs.Name(), err, fs.Name())
		os.Exit(2)
	}
}
