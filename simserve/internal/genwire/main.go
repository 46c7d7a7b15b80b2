// Command genwire writes simserve/preload/wire.h, the C side of the wire
// protocol, from simserve.WireHeader (go generate ./simserve).
package main

import (
	"flag"
	"log"
	"os"

	"github.com/vccube/vccube/internal/toolflags"
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
	toolflags.Parse(flag.NewFlagSet("genwire", flag.ContinueOnError), usageHead, 0)
	if err := os.WriteFile("preload/wire.h", []byte(simserve.WireHeader()), 0o644); err != nil {
		log.Fatal(err)
	}
}
