// Command genwire writes simserve/preload/wire.h, the C side of the wire
// protocol, from simserve.WireHeader (go generate ./simserve).
package main

import (
	"log"
	"os"

	"github.com/vccube/vccube/simserve"
)

func main() {
	if err := os.WriteFile("preload/wire.h", []byte(simserve.WireHeader()), 0o644); err != nil {
		log.Fatal(err)
	}
}
