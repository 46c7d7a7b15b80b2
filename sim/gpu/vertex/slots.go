package vertex

// Slots maps vertex indices to slots (places in a cache of shaded
// vertices): the binner's window and each tile's vertex cache. It is a
// map[uint32]int32 without the map's hashing, growth checks and clear:
// an open-addressed table whose entries carry the generation that wrote
// them, so that Reset, once a tile or shader state, costs nothing however
// large the table grew. TestSlotsMatchMap holds it to a map.
//
// The zero Slots is empty. It allocates only to grow.
type Slots struct {
	ent   []slotEntry
	gen   uint32
	n     int    // entries of the current generation
	shift uint32 // 32 − log2(len(ent))
}

type slotEntry struct {
	key, gen uint32
	val      int32
}

// Reset empties the table.
func (s *Slots) Reset() {
	s.n = 0
	s.gen++
	if s.gen == 0 {
		// The generation wrapped: entries of every generation would look
		// current again.
		clear(s.ent)
		s.gen = 1
	}
}

// Len is the number of indices held.
func (s *Slots) Len() int { return s.n }

// home is key's first place: Fibonacci hashing, which spreads the runs of
// consecutive indices that draws name.
func (s *Slots) home(key uint32) uint32 { return key * 0x9E3779B1 >> s.shift }

// Get returns the slot of key, and whether it is held.
func (s *Slots) Get(key uint32) (int32, bool) {
	if s.n == 0 {
		return 0, false
	}
	mask := uint32(len(s.ent) - 1)
	for i := s.home(key); ; i = (i + 1) & mask {
		e := &s.ent[i]
		if e.gen != s.gen {
			return 0, false
		}
		if e.key == key {
			return e.val, true
		}
	}
}

// Set sets the slot of key.
func (s *Slots) Set(key uint32, val int32) {
	if 2*(s.n+1) > len(s.ent) {
		s.grow()
	}
	mask := uint32(len(s.ent) - 1)
	for i := s.home(key); ; i = (i + 1) & mask {
		e := &s.ent[i]
		if e.gen != s.gen {
			*e = slotEntry{key: key, gen: s.gen, val: val}
			s.n++
			return
		}
		if e.key == key {
			e.val = val
			return
		}
	}
}

// grow doubles the table (at least 256 entries), keeping the current
// generation's entries.
func (s *Slots) grow() {
	old, gen := s.ent, s.gen
	size := max(256, 2*len(old))
	s.ent = make([]slotEntry, size)
	s.shift = 32
	for 1<<(32-s.shift) < size {
		s.shift--
	}
	s.n, s.gen = 0, 1
	for i := range old {
		if e := &old[i]; e.gen == gen && gen != 0 {
			s.Set(e.key, e.val)
		}
	}
}
