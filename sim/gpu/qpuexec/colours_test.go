package qpuexec

import (
	"fmt"
	"slices"
	"testing"

	"github.com/vccube/vccube/shaders/qpu"
)

// colourMov is a mov on the mul ALU into dst with colour pack p, as Mesa
// packs a colour channel (nop ; mov r1.8a, r3).
func colourMov(dst qpu.Reg, p qpu.Pack, src qpu.Reg) qpu.Op {
	return qpu.MMov(dst.ColourPack(p), src)
}

// TestColourRunsMatchReference runs programs with runs of colour packs
// (colours.go) on the reference path and bound, on random registers
// (NaNs, infinities, negatives, values above 1), with the Env failing at
// each of its calls in turn, and requires the opColours runs each
// program should bind: kmscube smooth's fragment shader (four packs into
// r1), glmark2 pulsar's (three into ra0, then two more apart), and
// programs where a condition, a pack reading its destination, a second
// destination, a fifth pack or a jump's landing splits a run. The
// lockstep (Batch) runs the first two too.
func TestColourRunsMatchReference(t *testing.T) {
	d := newDiffRig(t, 61)
	a8, b8, c8, d8, all := qpu.PackMul8A, qpu.PackMul8B, qpu.PackMul8C, qpu.PackMul8D, qpu.PackMul8888
	varyings := func(a *qpu.Asm) {
		a.I(qpu.FMul(qpu.R0, qpu.Vary, qpu.RA(15)))
		a.I(qpu.FAdd(qpu.RA(0), qpu.R0, qpu.R5), qpu.FMul(qpu.R1, qpu.Vary, qpu.RA(15)))
		a.I(qpu.FAdd(qpu.R0, qpu.R1, qpu.R5), qpu.FMul(qpu.R2, qpu.Vary, qpu.RA(15)))
		a.I(qpu.FAdd(qpu.R3, qpu.R2, qpu.R5))
	}
	end := func(a *qpu.Asm) {
		a.I(qpu.SigProgramEnd)
		a.I()
		a.I(qpu.SigScoreboardUnlock)
	}
	cases := []struct {
		name  string
		build func(a *qpu.Asm)
		runs  []string // the opColours runs' lengths, in order, "+tlb" for opColoursTLBWrite
		batch bool     // run in lockstep too
	}{
		{"kmscube smooth's fragment shader", func(a *qpu.Asm) {
			varyings(a)
			a.I(colourMov(qpu.R1, a8, qpu.R3))
			a.I(colourMov(qpu.R1, b8, qpu.R0))
			a.I(colourMov(qpu.R1, c8, qpu.RA(0)))
			a.I(colourMov(qpu.R1, d8, qpu.SmallFloat(1)))
			a.I(qpu.Mov(qpu.TLBColourAll, qpu.R1))
			end(a)
		}, []string{"4+tlb"}, true},
		{"glmark2 pulsar's fragment shader", func(a *qpu.Asm) {
			varyings(a)
			a.I(colourMov(qpu.RA(0), a8, qpu.R3))
			a.I(colourMov(qpu.RA(0), b8, qpu.R1))
			a.I(colourMov(qpu.RA(0), c8, qpu.R0))
			a.I(qpu.FMul(qpu.R0, qpu.Vary, qpu.RA(15)))
			a.I(qpu.FAdd(qpu.R0, qpu.R0, qpu.R5))
			a.I(colourMov(qpu.R3, all, qpu.R0))
			a.I(qpu.And(qpu.R2, qpu.R3, qpu.Unif), colourMov(qpu.RA(0), d8, qpu.R0))
			a.I(qpu.Not(qpu.R1, qpu.R3))
			a.I(qpu.And(qpu.R3, qpu.R1, qpu.Unif), qpu.V8Muld(qpu.R2, qpu.RA(0), qpu.R2))
			a.I(qpu.Or(qpu.R1, qpu.R3, qpu.Unif))
			a.I(qpu.SigColourLoad)
			a.I(qpu.Mov(qpu.TLBZ, qpu.RB(15)), qpu.V8Muld(qpu.R0, qpu.R4, qpu.R1))
			a.I(qpu.MV8Adds(qpu.TLBColourAll, qpu.R2, qpu.R0))
			end(a)
		}, []string{"3"}, true},
		{"a conditional pack between", func(a *qpu.Asm) {
			a.I(qpu.Mov(qpu.R2, qpu.Unif).SetFlags())
			a.I(colourMov(qpu.R1, a8, qpu.R3))
			a.I(colourMov(qpu.R1, b8, qpu.R0).If(qpu.CondZC))
			a.I(colourMov(qpu.R1, c8, qpu.RA(0)))
			a.I(colourMov(qpu.R1, d8, qpu.RB(1)))
			a.I(qpu.Mov(qpu.TLBColourAll, qpu.R1))
			end(a)
		}, []string{"2+tlb"}, false},
		{"packs reading their destination", func(a *qpu.Asm) {
			a.I(colourMov(qpu.R1, a8, qpu.R1)) // the first may: d is read before any merge
			a.I(colourMov(qpu.R1, b8, qpu.R3))
			a.I(colourMov(qpu.R1, c8, qpu.R1)) // reads 8a and 8b merged: a run of its own
			a.I(colourMov(qpu.R1, d8, qpu.R0))
			a.I(colourMov(qpu.R1, all, qpu.R1))
			a.I(qpu.Mov(qpu.TLBColourAll, qpu.R1))
			end(a)
		}, []string{"2", "2"}, false},
		{"two destinations, overlapping bytes, five packs", func(a *qpu.Asm) {
			a.I(colourMov(qpu.RA(2), a8, qpu.R3))
			a.I(colourMov(qpu.RA(2), a8, qpu.R0))
			a.I(colourMov(qpu.RB(2), b8, qpu.R0))
			a.I(colourMov(qpu.RB(2), all, qpu.R2))
			a.I(colourMov(qpu.RB(2), c8, qpu.RA(1)))
			a.I(colourMov(qpu.RB(2), d8, qpu.R3))
			a.I(colourMov(qpu.RB(2), b8, qpu.R1))
			a.I(colourMov(qpu.RB(2), a8, qpu.R2))
			a.I()
			a.I(qpu.Mov(qpu.TLBColourAll, qpu.RB(2)))
			end(a)
		}, []string{"2", "4", "2+tlb"}, false},
		{"a jump landing in a run", func(a *qpu.Asm) {
			// The uniform's sign is the same in every element: the
			// branch is taken in about half the runs.
			a.I(qpu.Mov(qpu.R2, qpu.Unif).SetFlags())
			a.I(qpu.Branch(qpu.BranchAllNS, "mid"))
			a.I()
			a.I()
			a.I()
			a.I(colourMov(qpu.R1, a8, qpu.R3))
			a.I(colourMov(qpu.R1, b8, qpu.R0))
			a.Label("mid")
			a.I(colourMov(qpu.R1, c8, qpu.RA(0)))
			a.I(colourMov(qpu.R1, d8, qpu.R2))
			a.I(qpu.Mov(qpu.TLBColourAll, qpu.R1))
			end(a)
		}, []string{"2", "2+tlb"}, false},
	}
	for _, c := range cases {
		p := d.loadFragment(t, asm(t, c.build), c.name)
		var runs []string
		for _, u := range d.fst.bound(p).ops {
			switch u.op {
			case opColours:
				runs = append(runs, fmt.Sprint(u.n))
			case opColoursTLBWrite:
				runs = append(runs, fmt.Sprint(u.n, "+tlb"))
			}
		}
		if !slices.Equal(runs, c.runs) {
			t.Errorf("%s: runs of packs %v bound, want %v\nprogram:\n%s", c.name, runs, c.runs, listing(p))
		}
		d.compareFailing(t, p, -1, 6, 12, c.name)
		if c.batch {
			d.compareInLockstep(t, p, c.name)
		}
	}
}

// TestColourRunsSplitAtLandings: a jump that lands inside a run of packs
// splits it, the second run starting where it lands, and the jump's
// index moves with the micro-operations; the fused runs leave the
// registers, the mul latch and q.packed as the packs one by one.
func TestColourRunsSplitAtLandings(t *testing.T) {
	var q QPU
	pack := func(p qpu.Pack, d, a *vec) uop { return uop{op: opCopyColour, d: d, a: a, n: int32(p)} }
	ops := []uop{
		{op: opJump, n: 3},
		pack(qpu.PackMul8A, &q.acc[1], &q.acc[0]),
		pack(qpu.PackMul8B, &q.acc[1], &q.ra[3]),
		pack(qpu.PackMul8C, &q.acc[1], &q.rb[2]), // the landing
		pack(qpu.PackMul8D, &q.acc[1], &q.acc[3]),
		pack(qpu.PackMul8888, &q.acc[1], &q.acc[2]),
		{op: opDone},
	}
	var b boundProg
	out := b.colourRuns(&q, slices.Clone(ops)) // (colourRuns works in place)
	if len(out) != 4 || out[1].op != opColours || out[1].n != 2 || out[2].op != opColours || out[2].n != 3 {
		t.Fatalf("got %d micro-operations, want the jump, runs of two and three packs and the end", len(out))
	}
	if out[0].n != 2 {
		t.Errorf("the jump lands on micro-operation %d, want 2 (the second run)", out[0].n)
	}
	// The tile-buffer write of the run's register joins it
	// (opColoursTLBWrite), unless a jump lands on it or it writes
	// another register.
	tlb := func(src *vec) uop { return uop{op: opCopyTLBWrite, a: &q.resAdd, b: src, to: 3, pc: 9, fix: 2} }
	for _, c := range []struct {
		name string
		ops  []uop
		want []uint8
	}{
		{"the run's register", []uop{ops[1], ops[2], tlb(&q.acc[1]), {op: opDone}}, []uint8{opColoursTLBWrite, opDone}},
		{"another register", []uop{ops[1], ops[2], tlb(&q.acc[2]), {op: opDone}}, []uint8{opColours, opCopyTLBWrite, opDone}},
		{"a landing", []uop{{op: opJump, n: 3}, ops[1], ops[2], tlb(&q.acc[1]), {op: opDone}}, []uint8{opJump, opColours, opCopyTLBWrite, opDone}},
	} {
		var b boundProg
		out := b.colourRuns(&q, slices.Clone(c.ops))
		var got []uint8
		for _, u := range out {
			got = append(got, u.op)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: micro-operations %v, want %v", c.name, got, c.want)
			continue
		}
		if u := &out[0]; u.op == opColoursTLBWrite && (u.pc != 9 || u.fix != 2 || u.to != 3 || u.a != &q.resAdd || u.b != &q.acc[1] || u.d != &q.acc[1] || len(colourSteps(u)) != 2) {
			t.Errorf("%s: the fused write lost a field: %+v", c.name, *u)
		}
		if c.ops[0].op == opJump && out[0].n != 2 {
			t.Errorf("%s: the jump lands on micro-operation %d, want 2", c.name, out[0].n)
		}
	}

	g := &progGen{r: newDiffRig(t, 5).r}
	for n := range 200 {
		for _, v := range []*vec{&q.acc[0], &q.acc[1], &q.acc[2], &q.acc[3], &q.ra[3], &q.rb[2], &q.resMul, &q.packed} {
			for e := range v {
				v[e] = g.word()
				if n%2 == 0 {
					v[e] = g.r.Uint32() >> 9 // [0, 1) and a little above as floats
					v[e] |= 0x3E000000
				}
			}
		}
		r1, lat, packed := q.acc[1], q.resMul, q.packed
		for _, u := range ops[1:6] {
			copyVec(&lat, u.a)
			colourPackGo(qpu.Pack(u.n), &packed, &lat)
			mergeLanes(&r1, &packed, 0xFFFF, colourPackMask(qpu.Pack(u.n)))
		}
		// Each of the forms colourPacks may take (colourForms).
		r10, lat0, packed0 := q.acc[1], q.resMul, q.packed
		for _, form := range colourForms {
			q.acc[1], q.resMul, q.packed = r10, lat0, packed0
			form.set()
			for _, u := range out[1:3] {
				s := colourSteps(&u)
				colourPacks(u.d, &q.packed, &q.resMul, &s[0], len(s))
			}
			form.reset()
			if q.acc[1] != r1 || q.resMul != lat || q.packed != packed {
				t.Fatalf("case %d, %s: r1 %#x, latch %#x, packed %#x; want %#x, %#x, %#x", n, form.name,
					q.acc[1], q.resMul[:4], q.packed[:4], r1, lat[:4], packed[:4])
			}
		}
	}
}

// colourForm is a way colourPacks goes (kern_sets_*_test.go colourForms):
// set chooses it, reset undoes that.
type colourForm struct {
	name       string
	set, reset func()
}
