package cl

import (
	"strconv"
	"testing"

	"github.com/vccube/vccube/cl/spec"
)

// Bytes agrees with the sizes AG Table 38 id 112 lists, written out by
// hand, and with the names cl/spec gives the values (which the dumper
// prints).
func TestBlockSizeBytes(t *testing.T) {
	want := map[BlockSize]uint32{BlockSize32: 32, BlockSize64: 64, BlockSize128: 128, BlockSize256: 256}
	for v, n := range want {
		if got := v.Bytes(); got != n {
			t.Errorf("%v.Bytes() = %d, want %d", v, got, n)
		}
	}
	for _, ev := range spec.BlockSize.Values {
		n, err := strconv.Atoi(ev.Name)
		if err != nil {
			t.Fatalf("spec.BlockSize value %d is named %q, not a byte count", ev.Value, ev.Name)
		}
		if got := BlockSize(ev.Value).Bytes(); got != uint32(n) {
			t.Errorf("BlockSize(%d).Bytes() = %d, cl/spec names it %q", ev.Value, got, ev.Name)
		}
	}
}

// Index sizes from AG Table 38 id 32 (8- and 16-bit indices), by hand.
func TestIndexTypeBytes(t *testing.T) {
	for v, want := range map[IndexType]int{IndexType8Bit: 1, IndexType16Bit: 2, 2: 0, 15: 0} {
		if got := v.Bytes(); got != want {
			t.Errorf("IndexType(%d).Bytes() = %d, want %d", v, got, want)
		}
	}
}
