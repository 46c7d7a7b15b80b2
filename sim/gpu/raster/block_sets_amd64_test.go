//go:build !purego

package raster

import "golang.org/x/sys/cpu"

// blockVersions returns the assembly versions of blockWZ and blockVP this
// machine can run, each named: SSE2 always, AVX2 when the CPU has it.
func blockVersions() []blockVersion {
	v := []blockVersion{{"SSE2",
		func(qx, qy, zx, zy *[4]float64, depth float64, par int, w, z *[16]uint32) {
			blockWZSSE2(qx, qy, zx, zy, depth, &laneColOff[par], &laneRowOff[par], w, z)
		},
		func(ax, by *[4]float32, par int, out *[16]uint32) {
			blockVPSSE2(ax, by, &laneColOff4[par], &laneRowOff4[par], out)
		}}}
	if cpu.X86.HasAVX2 {
		v = append(v, blockVersion{"AVX2",
			func(qx, qy, zx, zy *[4]float64, depth float64, par int, w, z *[16]uint32) {
				blockWZAVX2(qx, qy, zx, zy, depth, &laneColIdx2[par], &laneRowIdx2[par], w, z)
			},
			func(ax, by *[4]float32, par int, out *[16]uint32) {
				blockVPAVX2(ax, by, &laneColIdx[par], &laneRowIdx[par], out)
			}})
	}
	return v
}
