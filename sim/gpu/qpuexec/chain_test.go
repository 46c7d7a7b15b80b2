package qpuexec

import (
	"fmt"
	"slices"
	"testing"

	"github.com/vccube/vccube/shaders"
	"github.com/vccube/vccube/shaders/qpu"
)

// TestChainsMatchReference runs random runs of the chained kernels
// (chain.go: v8muld, v8adds, v8subs, v8min, v8max, and, or, xor, add,
// sub, in both ALUs, each reading what the ones before wrote), the
// cube's fragment shader, and a run that a jump lands in the middle of,
// on the reference path and bound, and requires chains where the
// kernel set has them.
func TestChainsMatchReference(t *testing.T) {
	d := newDiffRig(t, 57)
	accs := []qpu.Reg{qpu.R0, qpu.R1, qpu.R2, qpu.R3}
	add := []func(dst, a, b qpu.Reg) qpu.Op{qpu.V8Adds, qpu.V8Subs, qpu.And, qpu.Or, qpu.Xor, qpu.Add, qpu.Sub}
	mul := []func(dst, a, b qpu.Reg) qpu.Op{qpu.V8Muld, qpu.V8Min, qpu.V8Max, qpu.MV8Adds}
	var ra, rb int // the instruction's regfile A and B addresses
	src := func() qpu.Reg {
		switch n := d.r.IntN(6); n {
		case 4:
			return qpu.RA(ra)
		case 5:
			return qpu.RB(rb)
		default:
			return accs[n]
		}
	}
	type prog struct {
		name  string
		words []uint64
	}
	progs := []prog{{"the cube's fragment shader", shaders.FS.Code}}
	for n := range 40 {
		words := asm(t, func(a *qpu.Asm) {
			a.I(qpu.Mov(qpu.R0, qpu.Unif))
			for range 2 + d.r.IntN(8) {
				ra, rb = d.r.IntN(8), d.r.IntN(8)
				da := d.r.IntN(4)
				dm := (da + 1 + d.r.IntN(3)) % 4
				var ops []qpu.Item
				if d.r.IntN(4) != 0 {
					ops = append(ops, add[d.r.IntN(len(add))](accs[da], src(), src()))
					if d.r.IntN(2) == 0 {
						ops[0] = add[d.r.IntN(len(add))](accs[da], src(), src())
					}
				}
				if len(ops) == 0 || d.r.IntN(3) != 0 {
					ops = append(ops, mul[d.r.IntN(len(mul))](accs[dm], src(), src()))
				}
				a.I(ops...)
			}
			a.I(qpu.Mov(qpu.TLBColourAll, qpu.R0))
			ending(a)
		})
		progs = append(progs, prog{fmt.Sprintf("random chain %d", n), words})
	}
	chains := 0
	for _, c := range progs {
		p := d.loadFragment(t, c.words, c.name)
		for _, u := range d.fst.bound(p).ops {
			if u.op == opKernel && kernels.chain != nil && funcPC(u.k) == funcPC(kernels.chain) {
				chains++
			}
		}
		d.compareFailing(t, p, -1, 4, 4, c.name)
	}
	t.Logf("%d chains bound with the %s kernels", chains, kernels.name)
	if kernels.chain != nil && chains < 20 {
		t.Errorf("%d chains bound with the %s kernels, want at least 20", chains, kernels.name)
	}
}

// TestChainsSplitAtLandings: a jump that lands inside a run of kernels
// splits it into two chains, the second starting where it lands, and
// the jump's index moves with the micro-operations. (A program's kernels
// after a landing keep their latch copies, directWrites, so the bound
// programs of the test above do not make this case.)
func TestChainsSplitAtLandings(t *testing.T) {
	if kernels.chain == nil {
		t.Skipf("the %s kernels have no chain", kernels.name)
	}
	var q QPU
	k := func(f kernel, d, a, b *vec) uop { return uop{op: opKernel, k: f, d: d, a: a, b: b} }
	ops := []uop{
		{op: opJump, n: 4},
		k(kernels.v8adds, &q.acc[0], &q.acc[1], &q.acc[2]),
		k(kernels.xor, &q.acc[1], &q.acc[0], &q.acc[2]),
		k(kernels.v8muld, &q.acc[2], &q.acc[1], &q.acc[0]),
		k(kernels.sub, &q.acc[3], &q.acc[2], &q.acc[1]), // the landing
		k(kernels.v8max, &q.acc[0], &q.acc[3], &q.acc[1]),
		k(kernels.fadd, &q.acc[1], &q.acc[0], &q.acc[3]), // not chained
		{op: opDone},
	}
	var b boundProg
	out := b.chains(&q, kernels, slices.Clone(ops)) // (chains works in place)
	chain := funcPC(kernels.chain)
	if len(out) != 5 || funcPC(out[1].k) != chain || funcPC(out[2].k) != chain || funcPC(out[3].k) == chain {
		t.Fatalf("got %d micro-operations, want the jump, two chains, fadd and the end", len(out))
	}
	if out[0].n != 2 {
		t.Errorf("the jump lands on micro-operation %d, want 2 (the second chain)", out[0].n)
	}
	if !out[0].kNext || !out[1].kNext || !out[2].kNext || out[3].kNext {
		t.Error("kNext does not say which micro-operation is a kernel")
	}
	// Run both ways from the same registers.
	for i := range q.acc {
		q.acc[i] = seq(func(e int) uint32 { return 0x9e3779b9 * uint32(4*i+e+1) })
	}
	start := q.acc
	for _, u := range ops[1:7] {
		u.k(u.d, u.a, u.b)
	}
	want := q.acc
	q.acc = start
	for _, u := range out[1:4] {
		u.k(u.d, u.a, u.b)
	}
	if q.acc != want {
		t.Errorf("the chains leave %x, the kernels one by one %x", q.acc, want)
	}
}
