//go:build !amd64 || purego

package qpuexec

// Without the amd64 assembly the fast path's flags and merges are the
// general code's loops.

func nzFlagsVec(r *vec) (n, z uint16) { return nzFlags(r) }

func mergeLanesVec(d, v *vec, lanes uint16, bits uint32) { mergeLanes(d, v, lanes, bits) }

var (
	carryAddVec           = carryAdd
	carrySubVec           = carrySub
	carrySignedGreaterVec = carrySignedGreater
)

// subFlagsVec is the sub kernel of a and b into d with the N, Z and C
// flags of every element (nzFlags, carrySub). d may be a or b.
func subFlagsVec(d, a, b *vec) (n, z, c uint16) {
	for i := range d {
		x, y := a[i], b[i]
		r := x - y
		d[i] = r
		n |= uint16(r>>31) << i
		if r == 0 {
			z |= 1 << i
		}
		if x < y {
			c |= 1 << i
		}
	}
	return n, z, c
}

// faddFlagsVec has no one-pass form here: the caller runs the kernel and
// nzFlagsVec (kern_amd64.go).
func faddFlagsVec(d, a, b *vec, neg uint32) (n, z uint16, ok bool) { return 0, 0, false }

func hasFAddFlags() bool { return false }
