// Command genwire writes simserve/preload/wire.h, the C side of the wire
// protocol, from simserve.WireHeader (go generate ./simserve).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/vccube/vccube/simserve"
)

// usageHead is the start of -h.
const usageHead = `genwire writes simserve/preload/wire.h, the C side of the simulated device's
wire protocol, from simserve.WireHeader. Run it through go generate ./simserve
(it writes preload/wire.h below the current directory).

Usage: genwire

It takes no flags.
`

func main() {
	parseFlags(flag.NewFlagSet("genwire", flag.ContinueOnError), usageHead, 0)
	if err := os.WriteFile("preload/wire.h", []byte(simserve.WireHeader()), 0o644); err != nil {
		log.Fatal(err)
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
