// Command kmsprobe runs and judges the real-kernel test of vccube's
// presentation: the .ci/vkms-test rig runs vccube itself (the simulated
// GPU rendering, VKMS scanning out) and kmsprobe's own presenter test in a
// QEMU guest under kmsprobe's supervisor, and judges the reports on the
// host.
//
//	kmsprobe present [-device /dev/dri/card0] [-flips 300] [-mode WxH[@Hz]] [-connector NAME]
//	kmsprobe supervise [-device ...] [-term-after 1s] [-timeout 2m] [-attach FILE] -- COMMAND ARGS...
//	kmsprobe judge [-min-flips 300] [-max-missed 0] [-min-frames 300] [-max-missed-queued 0]
//	               [-tolerance 0.001] [-reference PNG] [-save-capture PNG] [LOG]
//
// present sets the mode and page-flips dumb buffers filled through the
// copy path (package present alone, without a renderer), reading each
// scanned-out frame back, and prints a JSON report on stdout. supervise
// runs a command while holding the card and checks the CRTCs are as
// before once it ends, optionally sending SIGTERM mid-run; it prints one
// report line starting with "@@kmsprobe " that carries the command's own
// report (kmsprobe present's, or vccube's -json report, whose schema is
// package report) and, with -attach, a file such as a captured
// frame. judge reads those lines from a console log and decides.
//
// It is a test program of the project, not the product.
package main

import (
	"flag"
	"fmt"
	"os"
)

// usageHead is -h's text.
const usageHead = `kmsprobe runs and judges the real-kernel test of vccube's presentation
(.ci/vkms-test): in a QEMU guest it presents frames through package present
(present) and runs a command while holding the card, checking the CRTCs are
put back (supervise); on the host it judges their reports (judge).

Usage:
	kmsprobe present [flags]
	kmsprobe supervise [flags] -- COMMAND ARGS...
	kmsprobe judge [flags] [LOG]

kmsprobe COMMAND -h lists the flags of each.
`

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var code int
	switch os.Args[1] {
	case "-h", "-help", "--help":
		fmt.Print(usageHead)
	case "present":
		code = runPresent(os.Args[2:])
	case "supervise":
		code = runSupervise(os.Args[2:])
	case "judge":
		code = runJudge(os.Args[2:])
	default:
		usage()
	}
	os.Exit(code)
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: kmsprobe present|supervise|judge [flags] (see go doc ./internal/cmd/kmsprobe)")
	os.Exit(2)
}

// subcommand sets fs's usage (-h, or after a mistake) to start with what
// the subcommand is for.
func subcommand(fs *flag.FlagSet, what string) {
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "kmsprobe %s %s\n\nFlags:\n", fs.Name(), what)
		fs.PrintDefaults()
	}
}
