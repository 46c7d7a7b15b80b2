//go:build !purego

package qpuexec

import (
	"fmt"
	"testing"
	"unsafe"
)

// BenchmarkFloatNLayout times faddAVX512N and fmulAVX512N on four blocks
// whose vectors lie stride bytes apart, from a page boundary plus off: a
// chain (each block's d is its a) as in a shader's run of float
// instructions. It measures what the layout of a Batch (batchQPU) is
// for: a stride that puts block j+1's operand near block j's result
// modulo 4096 slows the calls when the vectors straddle cache lines
// (off 44, the QPU's registers before they came first) and little when
// they do not (off 0) (doc/performance.md, "The QPU's vectors on cache
// lines").
func BenchmarkFloatNLayout(b *testing.B) {
	if !hasFloatN() {
		b.Skip("no batch forms of the float kernels on this CPU")
	}
	buf := make([]byte, 1<<17)
	base := (uintptr(unsafe.Pointer(&buf[0])) + 4095) &^ 4095
	for _, stride := range []int{7488, 8192 - 64, 8192 - 32, 8192, 8192 + 32, 8192 + 64, 9216} {
		for _, off := range []int{0, 44} {
			b.Run(fmt.Sprintf("stride=%d/mod4096=%d/off=%d", stride, stride%4096, off), func(b *testing.B) {
				var d, a, o [MaxBatch]*vec
				for j := range d {
					d[j] = (*vec)(unsafe.Pointer(&buf[int(base-uintptr(unsafe.Pointer(&buf[0])))+off+j*stride]))
					o[j] = (*vec)(unsafe.Pointer(&buf[int(base-uintptr(unsafe.Pointer(&buf[0])))+off+j*stride+1000]))
					a[j] = d[j]
					for k := range d[j] {
						d[j][k], o[j][k] = 0x3f800000, 0x3f000000 // 1, 0.5
					}
				}
				for i := 0; i < b.N; i++ {
					faddAVX512N(&d, &a, &o, MaxBatch, 0)
					fmulAVX512N(&d, &a, &o, MaxBatch)
				}
			})
		}
	}
}
