//go:build !amd64 || purego

package tmu

// bilinearT32Versions returns the names of bilinearT32's versions: here
// only Go.
func bilinearT32Versions() []string { return []string{"Go"} }

// useBilinearT32 makes bilinearT32 the version named; there is only Go.
func useBilinearT32(string) (restore func()) { return func() {} }

// nearestClampT32Versions returns the names of nearestClampT32's
// versions: here only Go.
func nearestClampT32Versions() []string { return []string{"Go"} }

// useNearestClampT32 makes nearestClampT32 the version named; there is
// only Go.
func useNearestClampT32(string) (restore func()) { return func() {} }
