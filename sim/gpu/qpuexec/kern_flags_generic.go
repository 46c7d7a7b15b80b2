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
