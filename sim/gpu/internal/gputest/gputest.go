// Package gputest helps the GPU model's tests build jobs by hand: a pool
// and a View, buffers in it, and NV-mode vertex data. It encodes nothing
// itself: control lists come from package cl's encoders, QPU code from
// shaders/qpu's assembler.
package gputest

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/sim/gpu/cle"
	"github.com/vccube/vccube/sim/mem"
)

// Mem is a job's memory.
type Mem struct {
	Pool *mem.Pool
	View *mem.View
}

// NewMem returns a pool of size bytes (at least 1 MiB) and an empty view.
func NewMem(t testing.TB, size int) *Mem {
	t.Helper()
	p, err := mem.NewPool(mem.DefaultBase, max(size, 1<<20))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return &Mem{Pool: p, View: mem.NewView(p)}
}

// Buf is a buffer the job may access.
type Buf struct {
	Addr uint32
	B    []byte
}

// Alloc allocates size bytes, grants the job access and returns them.
func (m *Mem) Alloc(t testing.TB, size int, access mem.Access, name string) Buf {
	t.Helper()
	r, err := m.Pool.Alloc(size, 0)
	if err != nil {
		t.Fatal(err)
	}
	m.View.Add(r, access, name)
	b, err := m.View.Read(r.Addr, r.Size, "test setup")
	if err != nil {
		t.Fatal(err)
	}
	return Buf{Addr: r.Addr, B: b}
}

// Put copies b into the buffer at offset off and returns the bus address.
func (b Buf) Put(off int, data []byte) uint32 {
	copy(b.B[off:], data)
	return b.Addr + uint32(off)
}

// U32 reads the little-endian word at offset off.
func (b Buf) U32(off int) uint32 { return binary.LittleEndian.Uint32(b.B[off:]) }

// NVVertex is one pre-shaded vertex of NV mode with the clip header and
// no point size ([AG] Figure 12).
type NVVertex struct {
	Clip [4]float32
	X, Y float64 // screen position relative to the viewport centre, pixels
	Z    float32
	InvW float32
	Vary []float32
}

// AppendNV appends v in the NV format with the clip header, laid out by
// qpu.ShadedFormat.
func AppendNV(b []byte, v NVVertex) []byte {
	f := qpu.ShadedFormat{ClipHeader: true, Varyings: len(v.Vary)}
	at := len(b)
	b = append(b, make([]byte, 4*f.Words())...)
	put := func(i int, x uint32) { binary.LittleEndian.PutUint32(b[at+4*i:], x) }
	for k, c := range v.Clip {
		put(f.ClipAt(k), math.Float32bits(c))
	}
	put(f.XsYsAt(), qpu.PackXsYs(int16(math.Round(v.X*16)), int16(math.Round(v.Y*16))))
	put(f.ZsAt(), math.Float32bits(v.Z))
	put(f.InvWcAt(), math.Float32bits(v.InvW))
	for j, x := range v.Vary {
		put(f.VaryingsAt()+j, math.Float32bits(x))
	}
	return b
}

// FuzzLimits are control-list limits small enough for fuzzing: a runaway
// list ends in milliseconds.
var FuzzLimits = cle.Limits{Packets: 1 << 14, IdleFlow: 1 << 10, Vertices: 1 << 16}
