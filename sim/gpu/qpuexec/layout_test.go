package qpuexec

import (
	"reflect"
	"runtime"
	"testing"
	"unsafe"
)

// vecFields returns the offsets in t of its vectors (vec, or arrays of
// them), through its embedded and nested structs, with their names.
func vecFields(t reflect.Type, base uintptr, name string, out map[string]uintptr) {
	vt := reflect.TypeOf(vec{})
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		ft, off, n := f.Type, base+f.Offset, name+"."+f.Name
		for ft.Kind() == reflect.Array && ft.Elem() != vt && ft.Elem().Kind() == reflect.Struct && ft.Len() > 0 {
			ft = ft.Elem() // the first element stands for the rest
		}
		switch {
		case ft == vt || ft.Kind() == reflect.Array && ft.Elem() == vt:
			out[n] = off
		case ft.Kind() == reflect.Struct:
			vecFields(ft, off, n, out)
		}
	}
}

// TestQPULayout checks that every vector of a QPU lies at a multiple of
// 64 bytes from its start, and that NewQPU and NewBatch give QPUs that
// start at a multiple of 64: then no vector straddles two cache lines,
// which the kernels' unaligned loads and stores make slow (batch.go
// batchQPU; doc/performance.md, "The QPU's vectors on cache lines").
func TestQPULayout(t *testing.T) {
	offs := map[string]uintptr{}
	vecFields(reflect.TypeOf(QPU{}), 0, "QPU", offs)
	for _, must := range []string{"QPU.ra", "QPU.rb", "QPU.acc", "QPU.resAdd", "QPU.unpA", "QPU.varyC"} {
		if _, ok := offs[must]; !ok {
			t.Errorf("%s not found among the QPU's vectors %v", must, offs)
		}
	}
	for n, off := range offs {
		if n == "QPU.pend.v" {
			continue // a pending write's value, which no kernel takes
		}
		if off%64 != 0 {
			t.Errorf("%s is at offset %d of the QPU, %d past a multiple of 64: put the vectors first in QPU, one after another", n, off, off%64)
		}
	}
	if q := NewQPU(0, nil); uintptr(unsafe.Pointer(q))%64 != 0 {
		t.Errorf("NewQPU's QPU at %p: not a multiple of 64", q)
	}
	g := NewBatch(0, nil)
	for i := range g.qs {
		if a := uintptr(unsafe.Pointer(&g.qs[i].QPU)); a%64 != 0 {
			t.Errorf("the Batch's QPU %d at %#x: not a multiple of 64", i, a)
		}
	}
}

// TestBatchLayout checks the distance between a Batch's QPUs: a
// multiple of 64, and on amd64 (where the float kernels have their
// batch forms) k times it, for k from 1 to MaxBatch-1, at least
// batchMargin bytes from a multiple of 4096, so that the same register
// of two blocks never shares the low 12 bits of its address
// (batch.go batchQPU). A field added to the QPU can break it; the
// message says what batchFar to set.
func TestBatchLayout(t *testing.T) {
	var g Batch
	stride := uintptr(unsafe.Pointer(&g.qs[1])) - uintptr(unsafe.Pointer(&g.qs[0]))
	if stride != batchStride || stride%64 != 0 || stride <= unsafe.Sizeof(QPU{}) {
		t.Fatalf("the Batch's QPUs are %d bytes apart, QPU is %d, batchStride %d: want batchStride, a multiple of 64 above the QPU's size",
			stride, unsafe.Sizeof(QPU{}), batchStride)
	}
	if runtime.GOARCH != "amd64" {
		t.Skipf("the stride modulo 4096 matters to the batch kernels of amd64 only (here %s)", runtime.GOARCH)
	}
	if d := nearest4K(stride); d < batchMargin {
		base := stride - 64*batchFar
		want := -1
		for f := uintptr(0); f < 64; f++ {
			if nearest4K(base+64*f) >= batchMargin {
				want = int(f)
				break
			}
		}
		t.Errorf("k times the Batch's stride %d (the QPU's %d bytes, padded, batchFar %d) falls %d bytes from a multiple of 4096, under batchMargin %d: set batchFar to %d",
			stride, unsafe.Sizeof(QPU{}), batchFar, d, batchMargin, want)
	}
}

// nearest4K returns the least distance of k*s from a multiple of 4096
// for k from 1 to MaxBatch-1.
func nearest4K(s uintptr) uintptr {
	least := uintptr(4096)
	for k := uintptr(1); k < MaxBatch; k++ {
		r := k * s % 4096
		least = min(least, r, 4096-r)
	}
	return least
}
