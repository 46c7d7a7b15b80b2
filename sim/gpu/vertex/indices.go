package vertex

import (
	"encoding/binary"
	"fmt"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/sim/mem"
)

// Indices is a draw's list of vertex indices, read as it is used: an
// array draw's first … first+N−1, or an index buffer's entries clamped to
// the draw's maximum index.
type Indices struct {
	// N is the number of vertices the draw names.
	N     int
	first uint32
	data  []byte
	size  int
	max   uint32
}

// ArrayIndices are the indices of GL_ARRAY_PRIMITIVE. The length must fit
// an int: check it first (cle.Limits.CountVertices does).
func ArrayIndices(q *cl.GLArrayPrimitive) Indices {
	return Indices{N: int(q.Length), first: q.First}
}

// IndexList reads the index buffer of GL_INDEXED_PRIMITIVE through v. The
// length must fit an int, as for ArrayIndices.
// The declared maximum index bounds the indices: the kernel trusts it
// because "the hardware clamps to it" (doc/kernel.md#primitives, Linux
// vc4_validate.c validate_indexed_prim_list); [AG] Table 38 calls a larger
// index an error without saying what happens. We clamp.
func IndexList(v *mem.View, q *cl.GLIndexedPrimitive) (Indices, error) {
	x := Indices{N: int(q.Length), size: q.IndexType.Bytes(), max: q.MaxIndex}
	if x.size == 0 {
		return Indices{}, fmt.Errorf("reserved index type %d", q.IndexType)
	}
	n := uint64(q.Length) * uint64(x.size)
	if n == 0 {
		return x, nil
	}
	if n > 1<<32-1 {
		return Indices{}, fmt.Errorf("an index list of %d entries is larger than the 32-bit address space", q.Length)
	}
	b, err := v.Read(q.IndexAddress, uint32(n), "VCD index list fetch")
	if err != nil {
		return Indices{}, err
	}
	x.data = b
	return x, nil
}

// At returns the index at position p (0 ≤ p < N).
func (x *Indices) At(p int) uint32 {
	if x.data == nil {
		return x.first + uint32(p)
	}
	var v uint32
	if x.size == 1 {
		v = uint32(x.data[p])
	} else {
		v = uint32(binary.LittleEndian.Uint16(x.data[2*p:]))
	}
	return min(v, x.max)
}
