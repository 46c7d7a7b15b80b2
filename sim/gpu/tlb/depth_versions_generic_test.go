//go:build !amd64 || purego

package tlb

// zBlockVersions returns the names of zBlock's versions: here only Go.
func zBlockVersions() []string { return []string{"Go"} }

// useZBlock makes zBlock the version named; there is only Go.
func useZBlock(string) (restore func()) { return func() {} }
