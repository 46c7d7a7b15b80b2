// Command kmsprobe tests vccube's presentation (package present) on a real
// kernel's KMS device: the .ci/vkms-test rig runs it in a QEMU guest on
// VKMS and judges its reports on the host.
//
//	kmsprobe present [-device /dev/dri/card0] [-flips 300] [-mode WxH[@Hz]] [-connector NAME]
//	kmsprobe supervise [-device ...] [-term-after 1s] [-timeout 2m] -- COMMAND ARGS...
//	kmsprobe judge [-min-flips 300] [-max-missed 0] [-tolerance 0.001] [-sigterm=true] [LOG]
//
// present sets the mode and page-flips dumb buffers filled through the
// copy path, reading each scanned-out frame back; supervise runs a command
// while holding the card and checks the CRTCs are as before once it ends,
// optionally sending SIGTERM mid-run; both print one JSON report line
// starting with "@@kmsprobe ". judge reads those lines from a console log
// and decides.
//
// It is a test program of the project, not the product: cmd/vccube will
// take its place as the guest command.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var code int
	switch os.Args[1] {
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
	fmt.Fprintln(os.Stderr, "usage: kmsprobe present|supervise|judge [flags] (see go doc ./internal/kmsprobe)")
	os.Exit(2)
}
