//go:build !amd64 || purego

package lanes

// Fill stores x in every element of d.
func Fill(d *[16]uint32, x uint32) { FillGo(d, x) }
