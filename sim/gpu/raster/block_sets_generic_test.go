//go:build !amd64 || purego

package raster

// blockVersions returns the versions of blockWZ and blockVP this build
// has: the Go loops only.
func blockVersions() []blockVersion { return []blockVersion{{"Go", blockWZGo, blockVP}} }
