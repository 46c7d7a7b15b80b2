package main

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// version says which vccube this is, from the build information the go
// command writes into the binary (runtime/debug.ReadBuildInfo): the
// module's version — v1.2.0 for `go install …/cmd/vccube@v1.2.0`,
// "(devel)" for a build in a checkout — and, for a build in a checkout,
// the VCS revision, its commit time and whether the tree had changes;
// then the Go release and the platform. -version prints it, and the
// -json report carries it (report.Report.Version).
func version() string {
	bi, ok := debug.ReadBuildInfo()
	return versionOf(bi, ok)
}

// versionOf is version for the given build information.
func versionOf(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil {
		return "vccube (no build information: built without module support)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(unknown version)"
	}
	var rev, at, modified, goos, goarch string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", with uncommitted changes"
			}
		case "GOOS":
			goos = s.Value
		case "GOARCH":
			goarch = s.Value
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "vccube %s", v)
	if bi.Main.Path != "" {
		fmt.Fprintf(&b, " (module %s)", bi.Main.Path)
	}
	if rev != "" {
		fmt.Fprintf(&b, ", revision %s", rev)
		if at != "" {
			fmt.Fprintf(&b, " of %s", at)
		}
		b.WriteString(modified)
	} else if v == "(devel)" {
		// A build in a checkout records its revision unless told not
		// to (go build -buildvcs=false, or GOFLAGS with it).
		b.WriteString(", no revision recorded (built with -buildvcs=false or outside a git checkout)")
	}
	fmt.Fprintf(&b, ", built with %s", bi.GoVersion)
	if goos != "" && goarch != "" {
		fmt.Fprintf(&b, " for %s/%s", goos, goarch)
	}
	return b.String()
}
