//go:build !amd64 || purego

package tlb

// putRows and putUtiles are the Go loops on architectures without the
// SSE2 versions.
func putRows(dst []byte, pitch int, src []uint32, w, h int) { putRowsGo(dst, pitch, src, w, h) }

func putUtiles(dst []byte, off []int32, perRow int, src *[Pixels]uint32) {
	putUtilesGo(dst, off, perRow, src)
}
