//go:build !amd64 || purego

package convert

// moveSubtile16 is moveSubtile16Go on architectures without the SSE2
// version.
func moveSubtile16(sub, pix []byte, q, step int, toMem bool) {
	moveSubtile16Go(sub, pix, q, step, toMem)
}

// storeFence orders the sub-tile moves' stores; only the amd64 version's
// non-temporal stores need it.
func storeFence() {}
