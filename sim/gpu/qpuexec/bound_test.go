package qpuexec

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vccube/vccube/shaders"
	"github.com/vccube/vccube/shaders/hazard"
	"github.com/vccube/vccube/shaders/qpu"
)

// TestDirectWriteLatchOnFailure: a kernel that computes straight into its
// destination (bound_bind.go directWrites) leaves its result latch stale until
// the same ALU's next kernel; a failure in between must show the latch the
// reference table would have. In the first program the mul latch of the
// first fmul is left to r0 and the tile-buffer write (an Env call) can
// fail before the second overwrites it; in the others the destination is
// overwritten first (by the latch copy of a mov, by a mul kernel's own
// write), so the first kernel must keep its latch (restoring the
// destination there would be wrong). Each run fails at each Env call in turn.
func TestDirectWriteLatchOnFailure(t *testing.T) {
	d := newDiffRig(t, 17)
	for _, c := range []struct {
		name   string
		direct []int32 // the instructions whose kernels compute into their destination
		body   func(a *qpu.Asm)
	}{
		{"latch left to r0", []int32{2, 4}, func(a *qpu.Asm) {
			a.I(qpu.FMul(qpu.R0, qpu.RA(3), qpu.RB(3)))
			a.I(qpu.Mov(qpu.TLBColourAll, qpu.RA(4)))
			a.I(qpu.FMul(qpu.R2, qpu.RA(5), qpu.RB(5)))
		}},
		{"r0 overwritten by a copy before the latch", []int32{5}, func(a *qpu.Asm) {
			a.I(qpu.FMul(qpu.R0, qpu.RA(3), qpu.RB(3)))
			a.I(qpu.Mov(qpu.R0, qpu.RA(4)))
			a.I(qpu.Mov(qpu.TLBColourAll, qpu.RA(6)))
			a.I(qpu.FMul(qpu.R2, qpu.RA(5), qpu.RB(5)))
		}},
		{"a load immediate's mul latch left out", []int32{2, 4}, func(a *qpu.Asm) {
			a.I(qpu.LoadImm(qpu.R0, 0x3F800001))
			a.I(qpu.Mov(qpu.TLBColourAll, qpu.RA(4)))
			a.I(qpu.FMul(qpu.R2, qpu.RA(5), qpu.RB(5)))
		}},
		{"r1 overwritten by a kernel before the latch", []int32{3, 5}, func(a *qpu.Asm) {
			a.I(qpu.FAdd(qpu.R1, qpu.RA(3), qpu.RB(3)))
			a.I(qpu.MMov(qpu.R1, qpu.RA(4)))
			a.I(qpu.MMov(qpu.TLBColourAll, qpu.RA(6)))
			a.I(qpu.FAdd(qpu.R2, qpu.RA(5), qpu.RB(5)))
		}},
	} {
		words := asm(t, func(a *qpu.Asm) {
			a.I() // no tile-buffer access in a fragment shader's first two instructions
			a.I()
			c.body(a)
			a.I(qpu.Mov(qpu.R1, qpu.RA(7))) // the add latch's last kernel keeps it
			a.I(qpu.MMov(qpu.R3, qpu.RA(8)))
			a.I(qpu.SigProgramEnd)
			a.I()
			a.I()
		})
		p := d.loadFragment(t, words, c.name)
		if !p.straight {
			t.Fatalf("%s: the program does not run bound", c.name)
		}
		d.compareFailing(t, p, 0, 3, 1, c.name)
		var direct []int32
		latch := func(v *vec) bool { return v == &d.fst.resAdd || v == &d.fst.resMul }
		for _, u := range d.fst.bound(p).ops {
			if (u.op == opKernel && !latch(u.d)) || (u.op == opCopy && !latch(u.a)) {
				direct = append(direct, u.pc)
			}
		}
		if strings.HasPrefix(c.name, "a load immediate") {
			for _, u := range d.fst.bound(p).ops {
				if u.pc == 2 && u.d == &d.fst.resMul {
					t.Errorf("%s: the load immediate still copies into the mul latch", c.name)
				}
			}
		}
		if !slices.Equal(direct, c.direct) {
			t.Errorf("%s: the kernels of instructions %v compute into their destinations, want %v", c.name, direct, c.direct)
		}
	}
}

// TestBoundLoops runs programs with loops and data-dependent branches,
// which run bound (bound_bind.go bindable), on the fast path and the general
// code from equal random states, every Env call failing in turn: a loop
// of five turns with an SFU write and a texture fetch in its body and the
// counter's flags deciding the jump; an if/else on the sign of random
// data; a loop whose first instruction a jump lands on (bound_bind.go
// latchUnseen); and a loop that never ends, with the run limit lowered so
// both paths reach it (the bound run hands its last turns to the step
// loop).
func TestBoundLoops(t *testing.T) {
	d := newDiffRig(t, 23)
	countdown := func(a *qpu.Asm) {
		a.I(qpu.LoadImm(qpu.RA(1), 5))
		a.Label("loop")
		a.I(qpu.FAdd(qpu.R0, qpu.R0, qpu.RA(2)), qpu.FMul(qpu.R1, qpu.R1, qpu.RB(2)))
		a.I(qpu.Mov(qpu.SFURecip, qpu.R1))
		a.I(qpu.Mov(qpu.TMU0S, qpu.R0))
		a.I(qpu.FAdd(qpu.R3, qpu.R3, qpu.RA(3)))
		a.I(qpu.FAdd(qpu.R2, qpu.R4, qpu.R2), qpu.SigLoadTMU0)
		a.I(qpu.Sub(qpu.RA(1), qpu.RA(1), qpu.SmallInt(1)).SetFlags(), qpu.FMul(qpu.R1, qpu.R4, qpu.R0))
		a.I(qpu.Branch(qpu.BranchAnyZC, "loop"))
		a.I(qpu.FAdd(qpu.R3, qpu.R3, qpu.R2)) // the three delay slots run every turn
		a.I()
		a.I(qpu.Mov(qpu.R2, qpu.R1))
		a.I(qpu.Mov(qpu.TLBColourAll, qpu.R3))
	}
	ifElse := func(a *qpu.Asm) {
		a.I(qpu.Mov(qpu.R0, qpu.RA(4)).SetFlags())
		a.I(qpu.Branch(qpu.BranchAllNC, "else"))
		a.I()
		a.I()
		a.I()
		a.I(qpu.FMul(qpu.R1, qpu.R0, qpu.RB(5)))
		a.I(qpu.Branch(qpu.BranchAlways, "join"))
		a.I()
		a.I()
		a.I()
		a.Label("else")
		a.I(qpu.FAdd(qpu.R1, qpu.R0, qpu.RB(6)))
		a.Label("join")
		a.I(qpu.Mov(qpu.TLBColourAll, qpu.R1))
	}
	forever := func(a *qpu.Asm) {
		a.Label("spin")
		a.I(qpu.FAdd(qpu.R0, qpu.R0, qpu.RA(2)))
		a.I(qpu.Branch(qpu.BranchAlways, "spin"))
		a.I(qpu.Mov(qpu.R1, qpu.R0))
		a.I()
		a.I()
	}
	// The fmul before the loop could compute into r0 alone if the loop
	// were only entered from above; a jump enters it with the branch's
	// link address in the latches, which a failing tile-buffer write
	// must leave there.
	enteredByJump := func(a *qpu.Asm) {
		a.I(qpu.LoadImm(qpu.RA(1), 2))
		a.I(qpu.FMul(qpu.R0, qpu.RA(2), qpu.RB(2)))
		a.Label("loop")
		a.I(qpu.Mov(qpu.TLBColourAll, qpu.R1))
		a.I(qpu.FMul(qpu.R2, qpu.RA(3), qpu.RB(3)))
		a.I(qpu.Sub(qpu.RA(1), qpu.RA(1), qpu.SmallInt(1)).SetFlags())
		a.I(qpu.Branch(qpu.BranchAnyZC, "loop"))
		a.I()
		a.I()
		a.I()
	}
	// A jump into the delay slots of another branch, empty of
	// micro-operations: it must reach that branch's jump check without
	// running the branch (fuse keeps the two apart there).
	intoDelaySlots := func(a *qpu.Asm) {
		a.I(qpu.Mov(qpu.R0, qpu.RA(4)).SetFlags())
		a.I(qpu.Branch(qpu.BranchAnyZC, "slot"))
		a.I()
		a.I()
		a.I()
		a.I(qpu.FAdd(qpu.R1, qpu.R0, qpu.RB(5)))
		a.I(qpu.Branch(qpu.BranchAnyNC, "out"))
		a.I()
		a.Label("slot")
		a.I()
		a.I()
		a.I(qpu.FAdd(qpu.R1, qpu.R1, qpu.RB(6)))
		a.Label("out")
		a.I(qpu.Mov(qpu.TLBColourAll, qpu.R1))
	}
	defer func(n int) { runLimit = n }(runLimit)
	for _, c := range []struct {
		name  string
		body  func(a *qpu.Asm)
		limit int
	}{
		{"countdown", countdown, MaxInstructions},
		{"if/else", ifElse, MaxInstructions},
		{"a jump into another branch's delay slots", intoDelaySlots, MaxInstructions},
		{"a loop entered below a direct write", enteredByJump, MaxInstructions},
		{"forever", forever, 1000},
		{"countdown stopped by the limit", countdown, 30},
	} {
		runLimit = c.limit
		words := asm(t, func(a *qpu.Asm) {
			a.I() // no tile-buffer access in a fragment shader's first two instructions
			a.I()
			c.body(a)
			ending(a)
		})
		p := d.loadFragment(t, words, c.name)
		if !p.straight || len(p.jumpPts) == 0 {
			t.Fatalf("%s: the program does not run bound with its jumps (%d jump points)", c.name, len(p.jumpPts))
		}
		d.compareFailing(t, p, -1, 12, 3, c.name)
	}
}

// TestNotBound: programs whose jumps the binder cannot place run on the
// step loop, and agree with the general code there: an SFU result that
// arrives after a jump, a branch in another's delay slots, a jump into
// the program end's delay slots.
func TestNotBound(t *testing.T) {
	d := newDiffRig(t, 29)
	for _, c := range []struct {
		name string
		body func(a *qpu.Asm)
	}{
		{"SFU result across the jump", func(a *qpu.Asm) {
			a.I(qpu.LoadImm(qpu.RA(1), 3))
			a.Label("loop")
			a.I(qpu.FAdd(qpu.R2, qpu.R4, qpu.R2))
			a.I(qpu.Sub(qpu.RA(1), qpu.RA(1), qpu.SmallInt(1)).SetFlags())
			a.I(qpu.Branch(qpu.BranchAnyZC, "loop"))
			a.I()
			a.I(qpu.Mov(qpu.SFURecip, qpu.R2))
			a.I()
			a.I(qpu.Mov(qpu.TLBColourAll, qpu.R2))
		}},
		{"a branch in another's delay slots", func(a *qpu.Asm) {
			a.I(qpu.Mov(qpu.R0, qpu.RA(4)).SetFlags())
			a.I(qpu.Branch(qpu.BranchAllNC, "there"))
			a.I()
			a.I()
			a.I(qpu.Branch(qpu.BranchAlways, "there")) // the first one's third delay slot
			a.I()
			a.I()
			a.I(qpu.FMul(qpu.R1, qpu.R0, qpu.RB(5)))
			a.Label("there")
			a.I(qpu.Mov(qpu.TLBColourAll, qpu.R1))
		}},
	} {
		words := asm(t, func(a *qpu.Asm) {
			a.I()
			a.I()
			c.body(a)
			ending(a)
		})
		p := d.loadFragment(t, words, c.name)
		if p.straight {
			t.Errorf("%s: the program runs bound", c.name)
		}
		d.compareFailing(t, p, -1, -1, 5, c.name)
	}
}

// Each run starts with REV_FLAG from its Start in every element, even
// after a run whose program wrote REV_FLAG (begin fills it only when it
// may have changed). The program sends REV_FLAG to the tile buffer, then
// writes it with W, whose element 0 is the next run's flag.
func TestRevFlagStartsEachRun(t *testing.T) {
	r := newRig(t)
	words := asm(t, func(a *qpu.Asm) {
		a.I(qpu.Mov(qpu.TLBColourAll, qpu.RevFlag))
		a.I(qpu.Mov(qpu.RevFlag, qpu.RA(15)))
		ending(a)
	})
	for n, flag := range []uint32{1, 1, 0, 0, 1} {
		s := &Start{RevFlag: flag, W: seq(func(i int) uint32 { return uint32(1 + i%2) })}
		s.W[0] = flag
		r.env.tlbWrites = nil
		r.run(words, permissiveFrag, s)
		if len(r.env.tlbWrites) != 1 || r.env.tlbWrites[0].v != splat(flag) {
			t.Fatalf("run %d with REV_FLAG %d: TLB writes %+v", n, flag, r.env.tlbWrites)
		}
	}
}

// TestBoundBranchesMatchReference runs random strict fragment shaders
// whose branches are a compiler's (an immediate target, no write, no
// flags: the branches a bound program runs as opBranch) on both paths,
// from random states, some with a failing Env call. The random flags
// make the all and any conditions pass in some runs and fail in others.
func TestBoundBranchesMatchReference(t *testing.T) {
	d := newDiffRig(t, 31)
	progs := 1500
	if testing.Short() {
		progs /= 4
	}
	q := NewQPU(0, d.view)
	branches, jumping := 0, 0
	for i := 0; i < progs; i++ {
		g := &progGen{r: d.r, strict: true, stage: hazard.Fragment, branches: true, plainBranches: true}
		g.threaded = d.r.IntN(2) == 0
		g.tame = []int{0, 50, 90}[d.r.IntN(3)]
		words := g.program(8 + d.r.IntN(40))
		opts := Options{Stage: hazard.Fragment, Threaded: g.threaded}
		copy(d.pool.Bytes(d.code), qpu.Bytes(words))
		p, err := Load(d.view, d.code.Addr, opts)
		if err != nil {
			t.Fatalf("program %d: a strict program the generator kept fails to load: %v", i, err)
		}
		if !p.straight || len(p.jumpPts) == 0 {
			continue
		}
		jumping++
		for _, u := range q.bound(p).ops {
			if u.op == opBranch || u.op == opBranchJump {
				branches++
			}
		}
		for j := 0; j < 6; j++ {
			d.randomize()
			failAt := 0
			if d.r.IntN(4) == 0 {
				failAt = 1 + d.r.IntN(6)
			}
			if !d.compare(t, p, d.start(hazard.Fragment), d.r.Uint64(), failAt, fmt.Sprintf("program %d (threaded %v), input %d", i, g.threaded, j)) {
				t.FailNow()
			}
		}
	}
	if branches == 0 {
		t.Fatal("no bound program had an opBranch")
	}
	t.Logf("%d programs, %d bound with jumps, %d opBranch micro-operations", progs, jumping, branches)
}

// TestConditionsAllNoneSome: conditional writes of a bound program whose
// condition holds in every element, in none, and in some (condCopy's
// three cases), on both ALUs, with flags set from a constant and from a
// random register, against the reference.
func TestConditionsAllNoneSome(t *testing.T) {
	d := newDiffRig(t, 37)
	words := asm(t, func(a *qpu.Asm) {
		a.I()
		a.I()
		// Z and not N in every element: zs and nc write all, zc and ns none.
		a.I(qpu.Mov(qpu.R0, qpu.SmallInt(0)).SetFlags())
		a.I(qpu.Mov(qpu.RA(1), qpu.RB(2)).If(qpu.CondZS), qpu.MMov(qpu.RB(3), qpu.RA(4)).If(qpu.CondZC))
		a.I(qpu.FAdd(qpu.RA(5), qpu.RA(6), qpu.RB(7)).If(qpu.CondNC), qpu.FMul(qpu.RB(8), qpu.RA(6), qpu.R1).If(qpu.CondNS))
		a.I(qpu.Sub(qpu.R3, qpu.R0, qpu.SmallInt(1)).If(qpu.CondZC))
		// Flags from a random register: some elements each.
		a.I(qpu.Mov(qpu.R1, qpu.RA(11)).SetFlags())
		a.I(qpu.Mov(qpu.RA(12), qpu.RB(13)).If(qpu.CondZC), qpu.MMov(qpu.RB(14), qpu.RA(15)).If(qpu.CondNS))
		a.I(qpu.Mov(qpu.R2, qpu.RB(2)).If(qpu.CondCS))
		// The add ALU alone (fuse's forms): a copy and a kernel under a
		// condition, flags from a copy and from a kernel with a carry.
		a.I(qpu.Mov(qpu.RA(7), qpu.RB(8)).If(qpu.CondZC))
		a.I(qpu.Add(qpu.RA(9), qpu.RA(9), qpu.RB(9)).If(qpu.CondNS))
		a.I(qpu.Mov(qpu.R0, qpu.RA(11)).SetFlags())
		a.I(qpu.Sub(qpu.Null, qpu.RA(10), qpu.RB(10)).SetFlags())
		a.I(qpu.Mov(qpu.RA(12), qpu.RB(12)).If(qpu.CondCS))
		a.I(qpu.Mov(qpu.R0, qpu.SmallInt(0)).SetFlags())
		a.I(qpu.Mov(qpu.RA(13), qpu.RB(13)).If(qpu.CondZS))
		a.I(qpu.Add(qpu.RA(6), qpu.RA(6), qpu.RB(6)).If(qpu.CondZC))
		// Flags from an add (its own C rule), from a float kernel (C
		// where > 0: opFloatNZ), and a sub's flags under a condition
		// (opSubFlagsIf): some elements each.
		a.I(qpu.Add(qpu.R0, qpu.RA(3), qpu.RB(4)).SetFlags())
		a.I(qpu.Mov(qpu.RA(2), qpu.RB(5)).If(qpu.CondCC))
		a.I(qpu.FSub(qpu.R1, qpu.RA(4), qpu.RB(6)).SetFlags())
		a.I(qpu.Mov(qpu.RA(8), qpu.RB(11)).If(qpu.CondCS))
		a.I(qpu.Sub(qpu.Null, qpu.RA(0), qpu.RB(1)).SetFlags().If(qpu.CondNC))
		a.I(qpu.Mov(qpu.RA(13), qpu.RB(15)).If(qpu.CondCS))
		a.I(qpu.Mov(qpu.RA(10), qpu.RB(0)).If(qpu.CondZS))
		a.I(qpu.Mov(qpu.RA(1), qpu.RB(9)).If(qpu.CondNS))
		// A copy's flags clear C (opCopyNZ).
		a.I(qpu.Mov(qpu.R0, qpu.RA(11)).SetFlags())
		a.I(qpu.Mov(qpu.RA(3), qpu.RB(3)).If(qpu.CondCC))
		a.I(qpu.Mov(qpu.TLBColourAll, qpu.R2))
		ending(a)
	})
	p := d.loadFragment(t, words, "conditions")
	if !p.straight {
		t.Fatal("the program does not run bound")
	}
	forms := map[string]int{}
	boundForms(d.fst, p, forms)
	for _, f := range []string{"fused conditional write", "fused flags", "sub with flags", "condition",
		"flags of N and Z", "float flags of N and Z", "sub with flags under a condition"} {
		if forms[f] == 0 && (f != "float flags of N and Z" || hasFAddFlags()) {
			t.Errorf("no %s micro-operation: %v", f, forms)
		}
	}
	d.compareFailing(t, p, -1, 2, 6, "conditions in all, none and some elements")
}

// TestUniformsAddressMoves: a bound program that moves its uniform
// stream (a write to unif_addr) to addresses inside the span it reads
// from (moveUniforms keeps to the span: back to its start, forward, its
// last word, unaligned) and outside it (before it, just past its end,
// where the next read faults), twice in a run, against the reference.
func TestUniformsAddressMoves(t *testing.T) {
	d := newDiffRig(t, 41)
	base, size := d.unif.Addr, d.unif.Size
	for _, c := range []struct {
		name   string
		first  uint32
		second uint32
	}{
		{"back to the start, then forward", base, base + 4000},
		{"forward, then back", base + 1000, base + 4},
		{"to the last word", base + 40, base + size - 4},
		{"unaligned", base + 2, base + 4097},
		{"before the span", base + 8, base - 8},
		{"just past the span", base + 12, base + size},
	} {
		words := asm(t, func(a *qpu.Asm) {
			a.I()
			a.I()
			for k, addr := range []uint32{c.first, c.second} {
				a.I(qpu.LoadImm(qpu.R0, addr))
				// Each element's own address: the write takes element 0's.
				a.I(qpu.Add(qpu.R0, qpu.R0, qpu.ElemNum))
				a.I(qpu.Mov(qpu.UnifAddr, qpu.R0))
				a.I()
				a.I()
				a.I()
				a.I(qpu.Mov(qpu.RA(1+k), qpu.Unif))
				a.I(qpu.Mov(qpu.RB(1+k), qpu.Unif))
				a.I(qpu.FAdd(qpu.R1, qpu.RA(1+k), qpu.Unif))
			}
			a.I(qpu.Mov(qpu.TLBColourAll, qpu.R1))
			ending(a)
		})
		p := d.loadFragment(t, words, c.name)
		if !p.straight {
			t.Fatalf("%s: the program does not run bound", c.name)
		}
		forms := map[string]int{}
		boundForms(d.fst, p, forms)
		if forms["uniforms address write"] != 2 {
			t.Fatalf("%s: %d opUnifAddr micro-operations, want 2: %v", c.name, forms["uniforms address write"], forms)
		}
		d.compareFailing(t, p, -1, 1, 4, c.name)
	}
}

// TestFusedIOMatchesReference: the fused reads and the I/O forms of
// fuse (a uniform into a register or a kernel, a varying into a kernel,
// TMU and tile-buffer writes with the mov before them or without, a mov
// and its colour pack, ldtmu, sbdone and the program end) in the cube's fragment
// shader and a program of Mesa's shapes, on both paths, from random
// states, with the Env failing at each call in turn, the scoreboard's
// calls made (Start.InOrder off) and not.
func TestFusedIOMatchesReference(t *testing.T) {
	d := newDiffRig(t, 41)
	mesa := asm(t, func(a *qpu.Asm) {
		a.I(qpu.FMul(qpu.R0, qpu.RA(15), qpu.Vary))
		a.I(qpu.FAdd(qpu.R0, qpu.R0, qpu.R5), qpu.FMul(qpu.R1, qpu.RA(15), qpu.Vary))
		a.I(qpu.FAdd(qpu.RA(3), qpu.R1, qpu.R5))
		a.I(qpu.Mov(qpu.R2, qpu.Unif))
		a.I(qpu.Mov(qpu.RA(4), qpu.Unif))
		a.I(qpu.FAdd(qpu.R3, qpu.R2, qpu.Unif))
		a.I(qpu.Mov(qpu.TMU0T, qpu.RA(3)))
		a.I(qpu.Mov(qpu.TMU0S, qpu.R0))
		a.I(qpu.Mov(qpu.RB(5), qpu.Unif), qpu.SigLoadTMU0)
		a.I(qpu.FMul(qpu.R1, qpu.R4, qpu.RA(4)))
		a.I(qpu.Mov(qpu.TMU1S, qpu.R1))
		a.I(qpu.FMul(qpu.R1, qpu.R1, qpu.R2), qpu.SigLoadTMU1)
		a.I(qpu.FAdd(qpu.R1, qpu.R1, qpu.R4))
		a.I(qpu.Mov(qpu.TLBZ, qpu.RB(15)), qpu.FMul(qpu.R0, qpu.R1, qpu.R3))
		a.I(qpu.FAdd(qpu.R0, qpu.R0, qpu.RB(5)))
		a.I(qpu.Mov(qpu.TMU0S, qpu.RB(5)))
		a.I(qpu.V8Min(qpu.RA(6).ColourPack(qpu.PackMul8A), qpu.R0, qpu.R0), qpu.SigLoadTMU0)
		a.I(qpu.V8Min(qpu.RA(6).ColourPack(qpu.PackMul8B), qpu.R4, qpu.R4))
		a.I(qpu.FAdd(qpu.R2, qpu.R2, qpu.R1))
		a.I(qpu.Mov(qpu.TLBColourAll, qpu.RA(6)), qpu.SigProgramEnd)
		a.I()
		a.I(qpu.SigScoreboardUnlock)
	})
	// A mov into a TMU register whose source changes before the next
	// kernel into the latch, with an Env call between (ldtmu0): the
	// latch must get the mov's copy (directWrites, ioAfterCopy).
	changed := asm(t, func(a *qpu.Asm) {
		a.I(qpu.Mov(qpu.TMU0S, qpu.R0))
		a.I(qpu.FMul(qpu.R0, qpu.R1, qpu.R1))
		a.I(qpu.SigLoadTMU0)
		a.I(qpu.FAdd(qpu.R3, qpu.R0, qpu.R4))
		ending(a)
	})
	// Movs into TMU and tile-buffer registers with a mul into a
	// register, its operand once: the mul runs after the write
	// (mulAfterIO), and the write's failure computes the mul latch;
	// but not where the run's end sees the latch.
	mulAfter := asm(t, func(a *qpu.Asm) {
		a.I(qpu.Mov(qpu.TMU0S, qpu.R0), qpu.FMul(qpu.R1, qpu.R1, qpu.R2))
		a.I(qpu.SigLoadTMU0)
		a.I(qpu.Mov(qpu.TLBZ, qpu.RB(15)), qpu.V8Muld(qpu.R2, qpu.R4, qpu.R1))
		a.I(qpu.FMul(qpu.R3, qpu.R2, qpu.R1))
		a.I(qpu.Mov(qpu.TMU1S, qpu.R1), qpu.FMul(qpu.R0, qpu.R3, qpu.R3)) // the latch is seen at the end
		a.I(qpu.SigLoadTMU1)
		ending(a)
	})
	// A varying's read with one kernel after it (opVaryingKernel): an
	// add of the new VP and the C before it, with no fmul beside it (an
	// fadd with an fmul is opVaryingFAddFMul, varyings.go).
	varyKernel := asm(t, func(a *qpu.Asm) {
		a.I(qpu.FMul(qpu.R0, qpu.RA(15), qpu.Vary))
		a.I(qpu.Add(qpu.R1, qpu.Vary, qpu.R5))
		a.I(qpu.FAdd(qpu.R2, qpu.R1, qpu.R0))
		ending(a)
	})
	forms := map[uint8]int{}
	fromReg := 0    // TMU and tile-buffer writes that read a mov's source
	mulAfterIO := 0 // fixes that compute the mul latch
	for _, c := range []struct {
		name  string
		words []uint64
	}{
		{"the cube's fragment shader", shaders.FS.Code},
		{"a program of Mesa's shapes", mesa},
		{"a mov into tmu0_s whose source changes", changed},
		{"movs into TMU and tile-buffer registers beside a mul", mulAfter},
		{"a varying read with an fadd alone", varyKernel},
	} {
		p := d.loadFragment(t, c.words, c.name)
		for _, u := range d.fst.bound(p).ops {
			forms[u.op]++
			if (u.op == opTMUWrite || u.op == opTLBWrite) && u.a != &d.fst.resAdd && u.a != &d.fst.resMul {
				fromReg++
			}
		}
		for _, f := range d.fst.bound(p).fixes {
			if f.mulK != nil {
				mulAfterIO++
			}
		}
		for failAt := -1; failAt <= 14; failAt++ {
			for k := range 4 {
				d.randomize()
				s := d.start(hazard.Fragment)
				s.InOrder = k%2 == 1
				if !d.compare(t, p, s, d.r.Uint64(), failAt, fmt.Sprintf("%s, InOrder %v, Env failing at call %d", c.name, s.InOrder, failAt)) {
					t.FailNow()
				}
			}
		}
	}
	want := []uint8{opUniformCopy, opUniformKernel, opVaryingR5Kernel, opVaryingKernel, opTMUWrite,
		opCopyTMUWrite, opTLBWrite, opCopyTLBWrite, opLoadTMU, opUnlockDone, opEndRetire, opCopyColour}
	if hasVaryAddMul() {
		want = append(want, opVaryingFAddFMul)
	}
	for _, op := range want {
		if forms[op] == 0 {
			t.Errorf("no program has a micro-operation %d", op)
		}
	}
	if fromReg == 0 {
		t.Error("no TMU or tile-buffer write reads a mov's source")
	}
	if mulAfterIO < 3 {
		t.Errorf("%d fixes compute the mul latch, want 3 (the cube's and two of the program beside a mul)", mulAfterIO)
	}
}

// TestThreadSwitchPoisonLands runs a threaded program with a thread
// switch and then, on the same QPU, a general program that copies ra16
// and rb16 into ra1 and rb1: it reads what the other thread left there
// (AG §3 Thread Control: the other thread owns registers 16-31), the
// poison, which the bound path puts off until a program that may read
// them starts (deferBanks). RA and RB show it too, after another
// threaded run.
func TestThreadSwitchPoisonLands(t *testing.T) {
	threaded := func(a *qpu.Asm) {
		a.I(qpu.SigLastThreadSwitch)
		a.I()
		a.I()
		ending(a)
	}
	read := func(a *qpu.Asm) {
		a.I(qpu.Mov(qpu.RA(1), qpu.RA(16)))
		a.I(qpu.Mov(qpu.RB(1), qpu.RB(16)))
		ending(a)
	}
	for _, ref := range []bool{false, true} {
		r := newRig(t)
		r.q.Reference = ref
		fill(r.q.RA(16), 1)
		fill(r.q.RB(16), 2)
		r.run(asm(t, threaded), Options{Stage: strictFragment.Stage, Threaded: true}, nil)
		r.run(asm(t, read), strictGeneral, nil)
		for i := range 16 {
			if a, b := r.q.RA(1)[i], r.q.RB(1)[i]; a != poison || b != poison {
				t.Fatalf("reference %v: element %d of ra16, rb16 after a threaded run = %#x, %#x, want the poison %#x", ref, i, a, b, uint32(poison))
			}
		}
		fill(r.q.RA(17), 3)
		fill(r.q.RB(17), 4)
		r.run(asm(t, threaded), Options{Stage: strictFragment.Stage, Threaded: true}, nil)
		if a := r.q.RA(17)[5]; a != poison {
			t.Fatalf("reference %v: RA(17) after a threaded run = %#x, want the poison %#x", ref, a, uint32(poison))
		}
		fill(r.q.RB(18), 5)
		r.run(asm(t, threaded), Options{Stage: strictFragment.Stage, Threaded: true}, nil)
		if b := r.q.RB(18)[5]; b != poison {
			t.Fatalf("reference %v: RB(18) after a threaded run = %#x, want the poison %#x", ref, b, uint32(poison))
		}
	}
}

// TestEndPoisonLeftInPlace runs programs one after another on both
// paths, from the same random state, with no state set between runs: a
// program end puts its poison in location 14 of each file (loop.go
// programEnd), and the bound path leaves it unwritten when it is there
// already (landEnd, poison14). It must write it again after a program
// that writes location 14 (before its end, or in its end's last delay
// slot, after the poison, which only a permissive program can) and after
// a write through RA(14) or RB(14).
func TestEndPoisonLeftInPlace(t *testing.T) {
	d := newDiffRig(t, 43)
	cube := d.loadFragment(t, shaders.FS.Code, "the cube's fragment shader")
	before := d.loadFragment(t, asm(t, func(a *qpu.Asm) {
		a.I(qpu.Mov(qpu.RA(14), qpu.Unif))
		a.I(qpu.Mov(qpu.RB(14), qpu.Unif))
		ending(a)
	}), "a program writing ra14 and rb14")
	// (Permissive: a strict load refuses it, AG §3 "Summary of
	// Instruction Restrictions".)
	copy(d.pool.Bytes(d.code), qpu.Bytes(asm(t, func(a *qpu.Asm) {
		a.I(qpu.Mov(qpu.R1, qpu.Unif))
		a.I(qpu.SigProgramEnd)
		a.I()
		a.I(qpu.Mov(qpu.RA(14), qpu.R1))
	})))
	after, err := Load(d.view, d.code.Addr, permissiveFrag)
	if err != nil {
		t.Fatal(err)
	}
	reading := d.loadFragment(t, asm(t, func(a *qpu.Asm) {
		a.I(qpu.Mov(qpu.R0, qpu.RA(14)))
		a.I(qpu.Mov(qpu.R1, qpu.RB(14)))
		ending(a)
	}), "a program reading ra14 and rb14")
	if cube.names14 || !before.names14 || !after.names14 || !reading.names14 {
		t.Fatalf("names14: the cube's %v, writing %v, %v, reading %v; want false, true, true, true",
			cube.names14, before.names14, after.names14, reading.names14)
	}
	run := func(p *Program, failAt int, what string) {
		t.Helper()
		s := d.start(hazard.Fragment)
		s.Uniforms = d.unif.Addr // never off the buffer
		if !d.compare(t, p, s, d.r.Uint64(), failAt, what) {
			t.FailNow()
		}
	}
	for round := range 4 {
		d.randomize()
		run(cube, -1, "the cube's shader")
		run(cube, round, "the cube's shader again, failing")
		run(cube, -1, "the cube's shader a third time")
		run(before, -1, "the program writing ra14 and rb14")
		run(cube, -1, "the cube's shader after it")
		run(after, -1, "the program writing ra14 in a delay slot")
		run(cube, -1, "the cube's shader after that")
		run(reading, -1, "the program reading ra14 and rb14")
		for i, reg := range []func(*QPU, int) *[16]uint32{(*QPU).RA, (*QPU).RB} {
			run(cube, -1, "the cube's shader before a write through RA or RB")
			for _, q := range []*QPU{d.ref, d.fst} {
				fill(reg(q, 14), uint32(round+i+1))
			}
			run(cube, -1, fmt.Sprintf("the cube's shader after a write through %s", []string{"RA", "RB"}[i]))
		}
	}
}
