//go:build !amd64 || purego

package lanes

// Fill stores x in every element of d (fillWords; inlined where it is
// called).
func Fill(d *[16]uint32, x uint32) { fillWords(d, x) }
