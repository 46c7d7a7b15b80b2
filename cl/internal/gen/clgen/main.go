// Command clgen writes cl/packets_gen.go from the description in cl/spec.
// Run it through go generate in package cl.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/vccube/vccube/cl/internal/gen"
)

func main() {
	out := flag.String("o", "packets_gen.go", "output file")
	flag.Parse()
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
