// Package simtest holds what the simulated device's tests share across
// its packages: waiting on the model's own state instead of on time, raw
// requests on the uAPI and their errnos, a GPU unit's memory. It imports
// only what the model may (HACKING.md's layers), so that any test of
// sim/ can use it.
package simtest

import (
	"runtime"
	"testing"
	"time"

	"github.com/vccube/vccube/sim/mem"
)

// Reached waits until cond says that a call the test started on another
// goroutine has reached its wait, and fails if the call returns first
// (its result on done). The deadline only stops a broken test from
// hanging.
func Reached[T any](t testing.TB, what string, cond func() bool, done <-chan T) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		select {
		case v := <-done:
			t.Fatalf("%s returned (%v) without waiting", what, v)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not reach its wait in a minute", what)
		}
		runtime.Gosched()
	}
}

// Memory gives a test of a GPU unit a pool (of at least 4 MiB) holding
// one region of size bytes that the returned view grants the job access
// to (named name in its faults), and the region's bytes for the test to
// fill. access must include mem.Read.
func Memory(t testing.TB, size int, access mem.Access, name string) (*mem.View, mem.Region, []byte) {
	t.Helper()
	p, err := mem.NewPool(mem.DefaultBase, max(4<<20, size+4096))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	r, err := p.Alloc(size, 0)
	if err != nil {
		t.Fatal(err)
	}
	v := mem.NewView(p)
	v.Add(r, access, name)
	b, err := v.Read(r.Addr, r.Size, "test setup")
	if err != nil {
		t.Fatal(err)
	}
	return v, r, b
}
