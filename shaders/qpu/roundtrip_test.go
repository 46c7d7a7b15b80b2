package qpu

import (
	"math/rand"
	"testing"
)

func checkRoundTrip(t *testing.T, w uint64) {
	t.Helper()
	in := Decode(w)
	if got := in.Encode(); got != w {
		t.Fatalf("Encode(Decode(%#016x)) = %#016x\n%+v", w, got, in)
	}
	if again := Decode(in.Encode()); again != in {
		t.Fatalf("Decode(Encode(Decode(%#016x))) changed\n%+v\n%+v", w, in, again)
	}
	if s := in.String(); s == "" {
		t.Fatalf("empty listing for %#016x", w)
	}
}

// Every signal with every bit pattern of a few random words, plus walking
// single bits, round-trips.
func TestRoundTripSweep(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 200000; i++ {
		checkRoundTrip(t, r.Uint64())
	}
	for sig := uint64(0); sig < 16; sig++ {
		for bit := 0; bit < 60; bit++ {
			checkRoundTrip(t, sig<<60|1<<bit)
			checkRoundTrip(t, sig<<60|(1<<60-1)&^(1<<bit))
		}
		for mode := uint64(0); mode < 8; mode++ {
			checkRoundTrip(t, sig<<60|mode<<57|r.Uint64()&(1<<57-1))
		}
	}
	for _, k := range knownWords {
		checkRoundTrip(t, word(k.lo, k.hi))
	}
}

// Decode never fails and Encode inverts it, on any word.
func FuzzRoundTrip(f *testing.F) {
	for _, k := range knownWords {
		f.Add(word(k.lo, k.hi))
	}
	f.Add(uint64(0))
	f.Add(^uint64(0))
	f.Fuzz(func(t *testing.T, w uint64) { checkRoundTrip(t, w) })
}

// Disassembling a whole program allocates only its result; decoding and
// encoding allocate nothing.
func TestDecodeEncodeNoAlloc(t *testing.T) {
	w := word(0x213E3177, 0x11024821)
	n := testing.AllocsPerRun(100, func() {
		in := Decode(w)
		if in.Encode() != w {
			panic("round trip")
		}
	})
	if n != 0 {
		t.Errorf("Decode+Encode allocate %v times", n)
	}
}

func BenchmarkDecode(b *testing.B) {
	words := make([]uint64, 1024)
	r := rand.New(rand.NewSource(2))
	for i := range words {
		words[i] = r.Uint64()
	}
	b.ReportAllocs()
	var sink Inst
	for i := 0; i < b.N; i++ {
		sink = Decode(words[i&1023])
	}
	_ = sink
}
