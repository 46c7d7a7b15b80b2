package qpuexec

import "github.com/vccube/vccube/shaders/qpu"

// Which programs a Batch runs in lockstep (batch.go). A QPU keeps its
// registers from one run to the next, so a block run after another on
// the same QPU starts from what the other left. In a batch each block
// runs on a QPU of its own. That gives the same results only when no run
// of the program reads anything it did not write itself first: then what
// a QPU held before the run cannot matter.
//
// selfContained proves this for a bound program, over its instructions
// and the jumps between them (a forward data-flow analysis: a location is
// written on entry to an instruction when it is written on every path
// there). The state it follows is every location a run can read and a
// run before it can have left: the 64 physical registers, r0-r5, the two
// ALU result latches and the flags. It counts as a write only what
// certainly writes every element (a plain, unconditional write; a TMU or
// tile buffer load into r4; an SFU result landing; a varying's C reaching
// r5); as a read, every operand a mux selects, a condition, a partial
// write (under a condition, with a pack), and an ALU with a NOP op and a
// destination (it writes its latch's last result).
//
// The blocks run in order on one QPU would also leave it as the last
// block's run leaves it from the state the others left. The Batch runs
// the last block on the QPU the block before the batch ran on, so what no
// run writes stays as it was. That is the same state when every location
// some run can write (wholly or in part) is written whole on every path
// to the end: then none depends on which blocks wrote it on the way. A
// thread switch (the accumulators and registers 16-31 poisoned, loop.go
// threadSwitch) and the program end (locations 14 poisoned) count as
// whole writes.

// locSet is a set of locations, one bit each.
type locSet [2]uint64

// The locations: file A's registers at 0-31, file B's at 32-63, then
// these.
const (
	locAcc    = 64 // r0-r5 at 64-69
	locResAdd = 70
	locResMul = 71
	locFlags  = 72
)

func (s *locSet) add(l int)          { s[l>>6] |= 1 << (l & 63) }
func (s locSet) has(l int) bool      { return s[l>>6]>>(l&63)&1 != 0 }
func (s locSet) and(t locSet) locSet { return locSet{s[0] & t[0], s[1] & t[1]} }
func (s locSet) or(t locSet) locSet  { return locSet{s[0] | t[0], s[1] | t[1]} }
func (s locSet) covers(t locSet) bool {
	return t[0]&^s[0] == 0 && t[1]&^s[1] == 0
}

// regLoc returns the location a write target names, or -1 for one that
// is not a register.
func regLoc(t wtarget) int {
	switch t.kind {
	case wPhysA:
		return int(t.n & 31)
	case wPhysB:
		return 32 + int(t.n&31)
	case wAcc:
		return locAcc + int(t.n&3)
	case wR5Quad, wR5Rep:
		return locAcc + 5
	}
	return -1
}

// instLocs returns what instruction i reads of the previous state and
// what it writes whole, for selfContained. ok is false for an
// instruction the analysis does not follow.
func (p *Program) instLocs(i int) (reads, writes, partial locSet, ok bool) {
	c := &p.code[i]
	// An ALU's write to a register: whole when unconditional and
	// unpacked; partial (it keeps the other elements or bits: a read)
	// under a condition or a pack; none under the never condition.
	write := func(t wtarget, cond qpu.Cond, pack uint8) {
		l := regLoc(t)
		if cond != qpu.CondAlways && cond != qpu.CondNever {
			reads.add(locFlags)
		}
		if l < 0 || cond == qpu.CondNever {
			return
		}
		if cond == qpu.CondAlways && pack == packNone {
			writes.add(l)
		} else {
			reads.add(l)
			partial.add(l)
		}
	}
	flags := func(cond qpu.Cond) {
		switch cond {
		case qpu.CondAlways:
			writes.add(locFlags)
		case qpu.CondNever:
		default:
			reads.add(locFlags)
			partial.add(locFlags)
		}
	}
	switch c.kind {
	case kALU:
		port := func(rd, reg uint8, b bool) {
			if rd == rdPhys {
				if b {
					reads.add(32 + int(reg&31))
				} else {
					reads.add(int(reg & 31))
				}
			}
		}
		port(c.rdA, c.regA, false)
		port(c.rdB, c.regB, true)
		mux := func(m uint8) {
			if m < 6 {
				reads.add(locAcc + int(m))
			}
		}
		if c.opAdd != qpu.AddNop {
			mux(c.addA)
			mux(c.addB)
		} else if c.wAdd.kind != wNone {
			reads.add(locResAdd)
		}
		if c.opMul != qpu.MulNop {
			mux(c.mulA)
			mux(c.mulB)
			if c.rot == rotByR5 {
				reads.add(locAcc + 5)
			}
		} else if c.wMul.kind != wNone {
			reads.add(locResMul)
		}
		write(c.wAdd, c.condAdd, c.packAdd)
		write(c.wMul, c.condMul, c.packMul)
		if c.sf {
			if c.flagsMul {
				flags(c.condMul)
			} else {
				flags(c.condAdd)
			}
		}
		// The latches: every op computes all 16 elements.
		if c.opAdd != qpu.AddNop {
			writes.add(locResAdd)
		}
		if c.opMul != qpu.MulNop {
			writes.add(locResMul)
		}
	case kLoadImm:
		write(c.wAdd, c.condAdd, c.packAdd)
		write(c.wMul, c.condMul, c.packMul)
		if c.sf {
			// Flags from the loaded value where the add condition passes
			// (ref_exec.go execLoadImm): counted as partial.
			reads.add(locFlags)
			partial.add(locFlags)
		}
	case kBranch:
		if c.brReg || c.brSF {
			return reads, writes, partial, false
		}
		if c.brCond != qpu.BranchAlways {
			reads.add(locFlags)
		}
		// The link address, to each ALU's target (unconditional).
		write(c.wAdd, qpu.CondAlways, packNone)
		write(c.wMul, qpu.CondAlways, packNone)
	default:
		return reads, writes, partial, false
	}
	return reads, writes, partial, true
}

// selfContained reports whether no run of the bound program p reads a
// location (see above) it has not written itself first, and every run
// leaves the same locations written.
func (p *Program) selfContained() bool {
	n := len(p.code)
	reads := make([]locSet, n)
	defs := make([]locSet, n)
	var touched locSet // every location some instruction writes, wholly or in part
	// A timed write (an SFU result, a thread switch's poison) lands two
	// instructions after its cause only if the run came through the
	// cause: not where a jump lands in between. There it may or may not
	// land, which the analysis counts as touched but not written.
	landing := make([]bool, n+1)
	for _, j := range p.jumpPts {
		landing[j.to] = true
	}
	timed := func(i int, l ...int) {
		for _, x := range l {
			if i+2 < n && !landing[i+1] && !landing[i+2] {
				defs[i+2].add(x)
			} else {
				touched.add(x)
			}
		}
	}
	for i := range p.code {
		r, w, part, ok := p.instLocs(i)
		if !ok {
			return false
		}
		reads[i], defs[i] = r, defs[i].or(w) // defs[i] may have a timed write already
		touched = touched.or(part)
		c := &p.code[i]
		if c.wAdd.kind == wSFU || c.wMul.kind == wSFU {
			timed(i, locAcc+4)
		}
		if c.kind != kALU {
			continue
		}
		// What lands at the end of the instruction: a TMU or tile buffer
		// load into r4, a varying's C into r5.
		switch c.sig {
		case qpu.SigLoadTMU0, qpu.SigLoadTMU1, qpu.SigColourLoad, qpu.SigColourLoadProgramEnd, qpu.SigCoverageLoad, qpu.SigAlphaMaskLoad:
			defs[i].add(locAcc + 4)
		}
		if c.rdA == rdVarying || c.rdB == rdVarying {
			defs[i].add(locAcc + 5)
		}
		if c.sig == qpu.SigThreadSwitch || c.sig == qpu.SigLastThreadSwitch {
			for l := range 6 {
				timed(i, locAcc+l)
			}
			for r := 16; r < 32; r++ {
				timed(i, r, 32+r)
			}
		}
	}
	// The program end's poison, after the instruction that follows it
	// (bound_bind.go opRetire).
	defs[n-2].add(14)
	defs[n-2].add(32 + 14)
	for i := range defs {
		touched = touched.or(defs[i])
	}
	// in[i]: written on every path to i. The entry has W and Z (ra15,
	// rb15); every other instruction starts from all and shrinks.
	all := locSet{^uint64(0), ^uint64(0)}
	in := make([]locSet, n)
	for i := range in {
		in[i] = all
	}
	var entry locSet
	entry.add(15)
	entry.add(32 + 15)
	in[0] = entry
	jumpTo := make([]int, n)
	for i := range jumpTo {
		jumpTo[i] = -1
	}
	for _, j := range p.jumpPts {
		jumpTo[j.at] = j.to
	}
	for changed := true; changed; {
		changed = false
		for i := 0; i < n; i++ {
			out := in[i].or(defs[i])
			succ := [2]int{i + 1, jumpTo[i]}
			for _, s := range succ {
				if s < 0 || s >= n {
					continue
				}
				if m := in[s].and(out); m != in[s] {
					in[s] = m
					changed = true
				}
			}
		}
	}
	for i := range p.code {
		if !in[i].covers(reads[i]) {
			return false
		}
	}
	return in[n-1].or(defs[n-1]).covers(touched)
}
