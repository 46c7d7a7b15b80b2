package qpuexec

import (
	"slices"
	"testing"

	"github.com/vccube/vccube/shaders"
	"github.com/vccube/vccube/shaders/qpu"
)

// TestVaryingPairsMatchReference runs programs with a varying's read,
// an fadd and an fmul in one instruction (varyings.go) on the reference
// path and bound, from random states (NaNs, infinities, denormals, -0,
// the largest finite values, in the registers and in the Env's VP and C),
// with the Env failing at each of its calls in turn, and requires the
// opVaryingFAddFMul each should bind where the CPU has the fused form:
// the cube's fragment shader (one), kmscube smooth's and glmark2
// pulsar's (two each), and programs where the pair reads or writes what
// the other half of the instruction writes, or where a condition, flags,
// an fsub or a second port keeps the micro-operations apart. The
// lockstep (Batch) runs the first three too.
func TestVaryingPairsMatchReference(t *testing.T) {
	d := newDiffRig(t, 71)
	varyings := func(a *qpu.Asm) {
		a.I(qpu.FMul(qpu.R0, qpu.Vary, qpu.RA(15)))
		a.I(qpu.FAdd(qpu.RA(0), qpu.R0, qpu.R5), qpu.FMul(qpu.R1, qpu.Vary, qpu.RA(15)))
		a.I(qpu.FAdd(qpu.R0, qpu.R1, qpu.R5), qpu.FMul(qpu.R2, qpu.Vary, qpu.RA(15)))
		a.I(qpu.FAdd(qpu.R3, qpu.R2, qpu.R5))
	}
	a8, b8, c8, d8 := qpu.PackMul8A, qpu.PackMul8B, qpu.PackMul8C, qpu.PackMul8D
	end := func(a *qpu.Asm) {
		a.I(qpu.SigProgramEnd)
		a.I()
		a.I(qpu.SigScoreboardUnlock)
	}
	cases := []struct {
		name  string
		words []uint64
		pairs int  // the opVaryingFAddFMul it binds, with the fused form
		batch bool // run in lockstep too
	}{
		{"the cube's fragment shader", shaders.FS.Code, 1, true},
		{"kmscube smooth's fragment shader", asm(t, func(a *qpu.Asm) {
			varyings(a)
			a.I(colourMov(qpu.R1, a8, qpu.R3))
			a.I(colourMov(qpu.R1, b8, qpu.R0))
			a.I(colourMov(qpu.R1, c8, qpu.RA(0)))
			a.I(colourMov(qpu.R1, d8, qpu.SmallFloat(1)))
			a.I(qpu.Mov(qpu.TLBColourAll, qpu.R1))
			end(a)
		}), 2, true},
		{"glmark2 pulsar's fragment shader", asm(t, func(a *qpu.Asm) {
			varyings(a)
			a.I(colourMov(qpu.RA(0), a8, qpu.R3))
			a.I(colourMov(qpu.RA(0), b8, qpu.R1))
			a.I(colourMov(qpu.RA(0), c8, qpu.R0))
			a.I(qpu.FMul(qpu.R0, qpu.Vary, qpu.RA(15)))
			a.I(qpu.FAdd(qpu.R0, qpu.R0, qpu.R5))
			a.I(colourMov(qpu.R3, qpu.PackMul8888, qpu.R0))
			a.I(qpu.And(qpu.R2, qpu.R3, qpu.Unif), colourMov(qpu.RA(0), d8, qpu.R0))
			a.I()
			a.I(qpu.Mov(qpu.TLBColourAll, qpu.RA(0)))
			end(a)
		}), 2, true},
		{"the fadd writing what the fmul reads, and the fmul's own product", asm(t, func(a *qpu.Asm) {
			a.I(qpu.FMul(qpu.R0, qpu.Vary, qpu.RA(15)))
			// The fmul reads r1 before the fadd's write (the add's
			// write waits for the mul kernel).
			a.I(qpu.FAdd(qpu.R1, qpu.R0, qpu.R5), qpu.FMul(qpu.R2, qpu.Vary, qpu.R1))
			// The fmul into the fadd's operand.
			a.I(qpu.FAdd(qpu.R3, qpu.R2, qpu.R5), qpu.FMul(qpu.R2, qpu.Vary, qpu.RA(15)))
			// The fmul of r5, the C before this read; the fadd of the
			// new VP.
			a.I(qpu.FAdd(qpu.RA(1), qpu.Vary, qpu.R5), qpu.FMul(qpu.RB(2), qpu.R5, qpu.R3))
			// The fadd into an operand of its own and the fmul's, the
			// fmul into the add latch's register (tmu0_t's: no plain
			// write).
			a.I(qpu.FAdd(qpu.R0, qpu.R0, qpu.R5), qpu.FMul(qpu.TMU0T, qpu.Vary, qpu.R0))
			a.I(qpu.FAdd(qpu.R1, qpu.R5, qpu.R3))
			a.I(qpu.Mov(qpu.TMU0S, qpu.R1))
			a.I(qpu.SigLoadTMU0)
			a.I(qpu.Mov(qpu.TLBColourAll, qpu.R4))
			end(a)
		}), 4, false},
		{"a condition, flags, an fsub, a varying without fmul", asm(t, func(a *qpu.Asm) {
			a.I(qpu.Mov(qpu.R2, qpu.Unif).SetFlags())
			a.I(qpu.FMul(qpu.R0, qpu.Vary, qpu.RA(15)))
			a.I(qpu.FAdd(qpu.R0, qpu.R0, qpu.R5).If(qpu.CondZS), qpu.FMul(qpu.R1, qpu.Vary, qpu.RA(15)))
			a.I(qpu.FAdd(qpu.R1, qpu.R1, qpu.R5), qpu.FMul(qpu.R2, qpu.Vary, qpu.RA(15)).If(qpu.CondNC))
			a.I(qpu.FAdd(qpu.R2, qpu.R2, qpu.R5).SetFlags(), qpu.FMul(qpu.R3, qpu.Vary, qpu.RA(15)))
			a.I(qpu.FSub(qpu.R3, qpu.R3, qpu.R5), qpu.FMul(qpu.R0, qpu.Vary, qpu.RA(15)))
			a.I(qpu.FAdd(qpu.RA(3), qpu.R0, qpu.R5), qpu.MMov(qpu.R1, qpu.Vary))
			a.I(qpu.FAdd(qpu.R0, qpu.R1, qpu.R5))
			a.I(qpu.Mov(qpu.TLBColourAll, qpu.R0))
			end(a)
		}), 0, false},
		{"a jump landing on the pair", asm(t, func(a *qpu.Asm) {
			// The uniform's sign is the same in every element: the
			// branch is taken in about half the runs, past a varying
			// read, so that the pair reads one varying or the other.
			a.I(qpu.Mov(qpu.R2, qpu.Unif).SetFlags())
			a.I(qpu.Branch(qpu.BranchAllNS, "pair"))
			a.I()
			a.I()
			a.I()
			a.I(qpu.FMul(qpu.R0, qpu.Vary, qpu.RA(15)))
			a.Label("pair")
			a.I(qpu.FAdd(qpu.RA(0), qpu.R0, qpu.R5), qpu.FMul(qpu.R1, qpu.Vary, qpu.RA(15)))
			a.I(qpu.FAdd(qpu.R1, qpu.R1, qpu.R5))
			a.I(qpu.Mov(qpu.TLBColourAll, qpu.R1))
			end(a)
		}), 1, false},
	}
	for _, c := range cases {
		p := d.loadFragment(t, c.words, c.name)
		pairs := 0
		for _, u := range d.fst.bound(p).ops {
			if u.op == opVaryingFAddFMul {
				pairs++
			}
		}
		want := c.pairs
		if !hasVaryAddMul() {
			want = 0
		}
		if pairs != want {
			t.Errorf("%s: %d opVaryingFAddFMul bound, want %d\nprogram:\n%s", c.name, pairs, want, listing(p))
		}
		d.compareFailing(t, p, -1, 8, 16, c.name)
		if c.batch {
			d.compareInLockstep(t, p, c.name)
		}
	}
}

// TestVaryingPairsSplitAtLandings: varyingPairs fuses an instruction's
// read, fadd, fmul and r5 only with no jump landing after the read, and
// moves the jumps' indices with the micro-operations.
func TestVaryingPairsSplitAtLandings(t *testing.T) {
	var q QPU
	pair := func(pc int32) []uop {
		return []uop{
			{op: opVarying, d: &q.portA, pc: pc, fix: 3},
			{op: opKernel, k: kFAddGo, n: wideFAdd, d: &q.acc[0], a: &q.acc[0], b: &q.acc[5], pc: pc},
			{op: opKernel, k: kFMulGo, n: wideFMul, d: &q.resMul, a: &q.portA, b: &q.ra[15], w: &q.acc[1], pc: pc},
			{op: opR5, pc: pc},
		}
	}
	for _, c := range []struct {
		name  string
		land  int // the micro-operation of the second pair a jump lands on, or -1
		fused int
		to    int32 // where the jump lands after
	}{
		{"no landing", -1, 2, 0},
		{"a landing on the read", 0, 2, 2},
		{"a landing on the fadd", 1, 1, 3},
		{"a landing on the fmul", 2, 1, 4},
		{"a landing on r5", 3, 1, 5},
	} {
		ops := []uop{{op: opJump, n: 1}}
		ops = append(ops, pair(1)...)
		ops = append(ops, pair(2)...)
		ops = append(ops, uop{op: opDone})
		if c.land >= 0 {
			ops[0].n = int32(5 + c.land)
		} else {
			ops[0].op = opStep
		}
		out := varyingPairs(slices.Clone(ops))
		fused := 0
		for _, u := range out {
			if u.op == opVaryingFAddFMul {
				fused++
				s := varyStepOf(&u)
				if u.d != &q.portA || u.fix != 3 || s.dA != &q.acc[0] || s.bA != &q.acc[5] || s.wA != nil ||
					s.dM != &q.resMul || s.aM != &q.portA || s.wM != &q.acc[1] || s.kA == nil || s.kM == nil {
					t.Errorf("%s: the fused micro-operation lost a field: %+v %+v", c.name, u, *s)
				}
			}
		}
		if fused != c.fused {
			t.Errorf("%s: %d fused, want %d", c.name, fused, c.fused)
		}
		if c.land >= 0 && out[0].n != c.to {
			t.Errorf("%s: the jump lands on micro-operation %d, want %d", c.name, out[0].n, c.to)
		}
	}
}

// TestVaryAddMulMatchesKernels runs runVaryStep, the fused kernels of an
// opVaryingFAddFMul, on random and special operands (denormals, ±Inf,
// NaN, -0, products and sums past the largest finite value), with its
// destinations apart from the operands, on them, and on each other,
// with and without w; it must leave every vector as the fadd's kernel,
// then the fmul's (kern.go's Go loops) leave them. Where the CPU has the
// AVX-512 form, each of its three ends must be taken.
func TestVaryAddMulMatchesKernels(t *testing.T) {
	g := &progGen{r: newDiffRig(t, 73).r}
	var regs [6]vec
	ends := [3]int{}
	for n := range 3000 {
		for i := range regs {
			for e := range regs[i] {
				regs[i][e] = g.word()
				if n%3 == 0 {
					// Sums and products near the ends of the range.
					regs[i][e] = specialWords[g.n(len(specialWords))]
				}
			}
		}
		pick := func() *vec { return &regs[g.n(len(regs))] }
		s := varyStep{dA: pick(), aA: pick(), bA: pick(), dM: pick(), aM: pick(), bM: pick(), kA: kFAddGo, kM: kFMulGo}
		if g.chance(50) {
			s.wA = pick()
		}
		if g.chance(50) {
			s.wM = pick()
		}
		want := regs
		// The micro-operations one by one, on a copy at the same
		// offsets.
		at := func(v *vec) *vec {
			for i := range regs {
				if v == &regs[i] {
					return &want[i]
				}
			}
			return nil
		}
		kFAddGo(at(s.dA), at(s.aA), at(s.bA))
		if s.wA != nil {
			copyVec(at(s.wA), at(s.dA))
		}
		kFMulGo(at(s.dM), at(s.aM), at(s.bM))
		if s.wM != nil {
			copyVec(at(s.wM), at(s.dM))
		}
		before := regs
		left := varyAddMul(&s)
		ends[left]++
		regs = before
		runVaryStep(&s)
		if regs != want {
			t.Fatalf("case %d: the fused kernels leave %#x, want %#x", n, regs, want)
		}
	}
	if hasVaryAddMul() && (ends[0] == 0 || ends[1] == 0 || ends[2] == 0) {
		t.Errorf("the fused kernel's ends taken %v times (both done, fadd left, fmul left): want each", ends)
	}
}
