package qpuexec

import (
	"errors"

	"github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/sim/mem"
)

// Loading a program without a Cache, for the tests: the GPU model loads
// every shader through a Cache (Cache.Load).

// Load fetches the program at bus address addr through v, decodes it and
// checks it (see Options). Use a Cache to decode each shader once.
func Load(v *mem.View, addr uint32, opts Options) (*Program, error) {
	b, err := fetch(v, addr)
	if err != nil {
		return nil, &LoadError{Addr: addr, Err: err}
	}
	return decodeBytes(addr, b, opts)
}

// Decode builds a program from instruction words placed at bus address
// addr (the words must end with a program end and two delay slots).
func Decode(addr uint32, words []uint64, opts Options) (*Program, error) {
	b := qpu.Bytes(words)
	n := len(words)
	end := -1
	for i, w := range words {
		if qpu.Signal(w >> 60).EndsProgram() {
			end = i
			break
		}
	}
	if end < 0 || end+2 >= n {
		return nil, &LoadError{Addr: addr, Err: errors.New("no program end followed by two delay slots")}
	}
	return decodeBytes(addr, b[:8*(end+3)], opts)
}
