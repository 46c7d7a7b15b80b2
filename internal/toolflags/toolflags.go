// Package toolflags reads the command line of the repository's small
// tools (generators, the benchmark checker, the demo) the way every
// command of the project answers it (internal/cmdhelp checks them): -h
// prints what the tool is for and its flags on stdout and exits 0; a
// mistake exits 2 with one line on stderr saying what is wrong.
package toolflags

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// Parse reads os.Args into fs: -h prints head and the flags on stdout and
// exits 0; a mistake, or more than maxArgs arguments after the flags,
// exits 2, saying what is wrong.
func Parse(fs *flag.FlagSet, head string, maxArgs int) {
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
