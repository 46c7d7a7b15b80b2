package vertex

import (
	"math/rand"
	"testing"
)

// TestSlotsMatchMap runs Slots and a map through the same random
// sequences of sets, gets and resets: runs of consecutive indices as
// array draws name them, and scattered ones as index lists do, across
// the table's growth and its generation's wrap.
func TestSlotsMatchMap(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var s Slots
	m := map[uint32]int32{}
	check := func(step int, key uint32) {
		t.Helper()
		got, ok := s.Get(key)
		want, wok := m[key]
		if ok != wok || got != want {
			t.Fatalf("step %d: Get(%d) = %d, %v; the map holds %d, %v", step, key, got, ok, want, wok)
		}
	}
	for step := 0; step < 200000; step++ {
		if step == 100000 {
			// Near the generation's wrap: the entries written before it
			// must not come back.
			s.gen = ^uint32(0) - 3
			s.Reset()
			clear(m)
		}
		var key uint32
		switch r := rng.Intn(100); {
		case r < 2:
			s.Reset()
			clear(m)
			continue
		case r < 50:
			key = uint32(rng.Intn(2000)) // dense: collisions and runs
		case r < 60:
			key = rng.Uint32()
		default:
			key = uint32(step % 5000)
		}
		if rng.Intn(2) == 0 {
			v := int32(rng.Intn(1 << 20))
			s.Set(key, v)
			m[key] = v
		}
		check(step, key)
		check(step, key+1)
		if s.Len() != len(m) {
			t.Fatalf("step %d: Len %d, the map holds %d", step, s.Len(), len(m))
		}
	}
}

// TestSlotsGenerationWrap: entries of the generation the counter wraps
// back to are not held after the wrap.
func TestSlotsGenerationWrap(t *testing.T) {
	var s Slots
	s.Set(7, 1) // generation 1 of a new table
	s.gen = ^uint32(0)
	s.Reset()
	s.Set(8, 2)
	if v, ok := s.Get(7); ok {
		t.Fatalf("after the wrap Get(7) = %d, true; want nothing", v)
	}
	if v, ok := s.Get(8); !ok || v != 2 || s.Len() != 1 {
		t.Fatalf("Get(8) = %d, %v, Len %d; want 2, true, 1", v, ok, s.Len())
	}
}

// TestSlotsResetAllocatesNothing: a tile's reset and refill of a table
// that has grown does not allocate.
func TestSlotsResetAllocatesNothing(t *testing.T) {
	var s Slots
	for i := uint32(0); i < 3000; i++ {
		s.Set(i, int32(i))
	}
	if n := testing.AllocsPerRun(100, func() {
		s.Reset()
		for i := uint32(0); i < 3000; i++ {
			s.Set(i*7, int32(i))
		}
	}); n != 0 {
		t.Errorf("%v allocations a reset and refill", n)
	}
}
