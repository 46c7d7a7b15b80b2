package qpuexec

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/vccube/vccube/shaders"
	"github.com/vccube/vccube/shaders/hazard"
	"github.com/vccube/vccube/shaders/qpu"
)

// prologue returns instructions that write whole every location
// selfContained follows (batch_plan.go): load immediates into the
// registers (0-15 in a threaded program), r0-r3, r5 and the SFU (r4),
// then an instruction whose two ops fill the latches and set the flags.
// With skip, each register write is left out one time in eight, so
// that some programs read or write in part what they did not write
// whole, which selfContained must refuse.
func (g *progGen) prologue(skip bool) []qpu.Inst {
	regs := 32
	if g.threaded {
		regs = 16
	}
	var out []qpu.Inst
	li := func(a, m qpu.WAddr) {
		if skip && g.chance(12) {
			a = qpu.WNop
		}
		if skip && g.chance(12) {
			m = qpu.WNop
		}
		out = append(out, qpu.Inst{Sig: qpu.SigLoadImm, LoadMode: qpu.LoadImm32, Imm: g.word(),
			CondAdd: qpu.CondAlways, CondMul: qpu.CondAlways,
			WaddrAdd: a, WaddrMul: m, RaddrA: qpu.RNop, RaddrB: qpu.RNop})
	}
	for r := range regs {
		if r != 15 { // W and Z, which the run starts with
			li(qpu.WAddr(r), qpu.WAddr(r)) // file A by the add, file B by the mul
		}
	}
	li(qpu.WAcc0, qpu.WAcc1)
	li(qpu.WAcc2, qpu.WAcc3)
	li(qpu.WAcc5, qpu.WSFURecip) // r5 (file A: per quad); r4 two instructions on
	// The flags from W (ra15): batchCase gives each block's W one sign,
	// so that branches on them part the blocks.
	out = append(out, qpu.Inst{Sig: qpu.SigNone, OpAdd: qpu.AddOr, OpMul: qpu.MulFMul, SF: true,
		CondAdd: qpu.CondAlways, CondMul: qpu.CondAlways,
		AddA: 6, AddB: 6, MulA: 2, MulB: 3, WaddrAdd: qpu.WNop, WaddrMul: qpu.WNop,
		RaddrA: 15, RaddrB: qpu.RNop}, nopInst())
	return out
}

// blockOut is what one block's run shows outside its QPU.
type blockOut struct {
	Calls  []envCall
	Result Result
	Err    string
}

// regState is what a run leaves for the next in a QPU.
type regState struct {
	RA, RB         [32]vec
	Acc            [6]vec
	N, Z, C        uint16
	ResAdd, ResMul vec
}

func regsOf(q *QPU) regState {
	q.landBanks() // as RA and RB would
	return regState{q.ra, q.rb, q.acc, q.n, q.z, q.c, q.resAdd, q.resMul}
}

func setRegs(q *QPU, s regState) {
	q.landBanks() // no poison due to land on the registers set here
	q.ra, q.rb, q.acc, q.n, q.z, q.c, q.resAdd, q.resMul = s.RA, s.RB, s.Acc, s.N, s.Z, s.C, s.ResAdd, s.ResMul
}

// randomRegs returns a random regState.
func randomRegs(g *progGen) (s regState) {
	for i := range s.RA {
		for e := range 16 {
			s.RA[i][e], s.RB[i][e] = g.word(), g.word()
		}
	}
	for i := range s.Acc {
		for e := range 16 {
			s.Acc[i][e] = g.word()
		}
	}
	for e := range 16 {
		s.ResAdd[e], s.ResMul[e] = g.word(), g.word()
	}
	s.N, s.Z, s.C = uint16(g.r.Uint32()), uint16(g.r.Uint32()), uint16(g.r.Uint32())
	return s
}

// batchCase runs p on n blocks one at a time on one QPU and as a Batch
// (whose other QPUs hold other random states) from the same inputs, and
// reports the first difference: the Env calls, results and errors of the
// blocks that count, and, when none failed, the state left for the next
// run.
func (d *diffRig) batchCase(p *Program, n int, failAt [MaxBatch]int) (string, *Batch) {
	g := &progGen{r: d.r}
	num := d.r.IntN(16)
	s0 := randomRegs(g)
	var starts [MaxBatch]Start
	var seeds [MaxBatch]uint64
	for j := range n {
		starts[j], seeds[j] = d.start(hazard.Fragment), d.r.Uint64()
		sign := uint32(d.r.IntN(2)) << 31
		for e := range starts[j].W {
			starts[j].W[e] = starts[j].W[e]&^(1<<31) | sign
		}
	}

	one := NewQPU(num, d.view)
	setRegs(one, s0)
	var want []blockOut
	for j := range n {
		env := &diffEnv{seed: seeds[j], failAt: failAt[j]}
		res, err := one.Run(p, env, &starts[j])
		o := blockOut{Calls: env.calls, Result: res}
		if err != nil {
			o.Err = err.Error()
		}
		want = append(want, o)
		if err != nil {
			break
		}
	}

	b := NewBatch(num, d.view)
	b.always = true
	b.last = d.r.IntN(MaxBatch)
	for i := range b.qs {
		setRegs(&b.qs[i].QPU, randomRegs(g))
	}
	setRegs(&b.qs[b.last].QPU, s0)
	var envs [MaxBatch]*diffEnv
	var ifaces [MaxBatch]Env
	var sp [MaxBatch]*Start
	for j := range n {
		envs[j] = &diffEnv{seed: seeds[j], failAt: failAt[j]}
		ifaces[j], sp[j] = envs[j], &starts[j]
	}
	var res [MaxBatch]Result
	k, err := b.Run(p, ifaces[:n], sp[:n], res[:n])
	if k != len(want) {
		return fmt.Sprintf("%d blocks count, one at a time %d", k, len(want)), b
	}
	for j := range k {
		got := blockOut{Calls: envs[j].calls, Result: res[j]}
		if j == k-1 && err != nil {
			got.Err = err.Error()
		}
		if !reflect.DeepEqual(got, want[j]) {
			if !reflect.DeepEqual(got.Calls, want[j].Calls) {
				for c := 0; c < len(got.Calls) && c < len(want[j].Calls); c++ {
					if !reflect.DeepEqual(got.Calls[c], want[j].Calls[c]) {
						return fmt.Sprintf("block %d of %d, Env call %d: batched %+v, one at a time %+v", j, n, c, got.Calls[c], want[j].Calls[c]), b
					}
				}
			}
			return fmt.Sprintf("block %d of %d: batched %d calls, %+v, %q; one at a time %d calls, %+v, %q", j, n,
				len(got.Calls), got.Result, got.Err, len(want[j].Calls), want[j].Result, want[j].Err), b
		}
	}
	if err == nil {
		if got, want := regsOf(b.QPU()), regsOf(one); got != want {
			return "the state left for the next run differs: " + regsDiff(&got, &want), b
		}
	}
	return "", b
}

// TestBatchMatchesOneAtATime runs random strict fragment shaders (with a
// prologue that makes many of them self-contained, and forward branches
// in half of them, which split batches where the blocks' flags differ)
// and the cube's fragment shader on batches of 2 to 4 blocks, and on the
// same blocks one at a time on one QPU, from random states and inputs,
// some with an Env call failing; it requires the same Env calls (in
// order, with their arguments) per block, results, errors, and the same
// state left for the next run.
func TestBatchMatchesOneAtATime(t *testing.T) {
	progs, inputs := 800, 5
	if testing.Short() {
		progs = 200
	}
	d := newDiffRig(t, 27)
	cube := d.loadFragment(t, shaders.FS.Code, "the cube's fragment shader")
	if !cube.Batched() {
		t.Fatal("the cube's fragment shader is not batched")
	}
	runCase := func(p *Program, what string) (split bool) {
		for range inputs {
			n := 2 + d.r.IntN(MaxBatch-1)
			var failAt [MaxBatch]int
			if d.r.IntN(4) == 0 {
				failAt[d.r.IntN(n)] = 1 + d.r.IntN(12)
			}
			diff, b := d.batchCase(p, n, failAt)
			if diff != "" {
				t.Fatalf("%s: %s\nprogram:\n%s", what, diff, listing(p))
			}
			split = split || b.splits > 0
		}
		return split
	}
	runCase(cube, "the cube's fragment shader")
	// A branch on W's sign: the blocks of a batch part there.
	{
		g := &progGen{r: d.r}
		nop := nopInst()
		li := func(w qpu.WAddr, x uint32) qpu.Inst {
			return qpu.Inst{Sig: qpu.SigLoadImm, LoadMode: qpu.LoadImm32, Imm: x, CondAdd: qpu.CondAlways, CondMul: qpu.CondAlways,
				WaddrAdd: w, WaddrMul: qpu.WNop, RaddrA: qpu.RNop, RaddrB: qpu.RNop}
		}
		br := qpu.Inst{Sig: qpu.SigBranch, CondBr: qpu.BranchAllNS, Rel: true, Imm: 16, RaddrB: qpu.RNop, WaddrAdd: qpu.WNop, WaddrMul: qpu.WNop}
		tlb := qpu.Inst{Sig: qpu.SigNone, OpAdd: qpu.AddOr, AddA: 0, AddB: 0, CondAdd: qpu.CondAlways, WaddrAdd: qpu.WTLBColourAll, WaddrMul: qpu.WNop, RaddrA: qpu.RNop, RaddrB: qpu.RNop}
		end := nop
		end.Sig = qpu.SigProgramEnd
		var words []uint64
		double := qpu.Inst{Sig: qpu.SigNone, OpAdd: qpu.AddAdd, AddA: 0, AddB: 0, CondAdd: qpu.CondAlways, WaddrAdd: qpu.WAcc0, WaddrMul: qpu.WNop, RaddrA: qpu.RNop, RaddrB: qpu.RNop}
		for _, in := range append(g.prologue(false), br, nop, nop, nop, li(qpu.WAcc0, 0x11), double, tlb, end, nop, nop) {
			words = append(words, in.Encode())
		}
		p := d.loadFragment(t, words, "the branching program")
		if !p.Batched() || !runCase(p, "the branching program") {
			t.Fatalf("the branching program is not batched (%v) or never splits a batch", p.Batched())
		}
	}
	// Conditional writes and flags of the add ALU alone (bound_bind.go
	// fuse's forms), the flags from W, whose sign batchCase makes each
	// block's own.
	{
		g := &progGen{r: d.r}
		var words []uint64
		for _, in := range g.prologue(false) {
			words = append(words, in.Encode())
		}
		words = append(words, asm(t, func(a *qpu.Asm) {
			a.I(qpu.Mov(qpu.R0, qpu.RA(15)).SetFlags())
			a.I(qpu.Mov(qpu.RA(7), qpu.RB(8)).If(qpu.CondNC))
			a.I(qpu.Add(qpu.RA(9), qpu.RA(9), qpu.RB(9)).If(qpu.CondNS))
			a.I(qpu.Sub(qpu.Null, qpu.RA(15), qpu.RB(10)).SetFlags())
			a.I(qpu.Mov(qpu.RA(12), qpu.RB(12)).If(qpu.CondCS))
			a.I(qpu.FAdd(qpu.RA(13), qpu.RA(13), qpu.RB(13)).If(qpu.CondCC))
			// A sub's flags under a condition (opSubFlagsIf), an add's
			// (opKernelFlags), then an or's N and Z (opKernelNZ).
			a.I(qpu.Sub(qpu.Null, qpu.RA(15), qpu.RB(11)).SetFlags().If(qpu.CondNC))
			a.I(qpu.Mov(qpu.RA(5), qpu.RB(5)).If(qpu.CondCS))
			a.I(qpu.Mov(qpu.RA(6), qpu.RB(6)).If(qpu.CondZC))
			a.I(qpu.Add(qpu.R2, qpu.RA(15), qpu.RB(2)).SetFlags())
			a.I(qpu.Mov(qpu.RA(3), qpu.RB(3)).If(qpu.CondCS))
			a.I(qpu.Or(qpu.R1, qpu.RA(15), qpu.RB(3)).SetFlags())
			a.I(qpu.Mov(qpu.RA(4), qpu.RB(4)).If(qpu.CondNS))
			a.I(qpu.Mov(qpu.TLBColourAll, qpu.R0))
			ending(a)
		})...)
		p := d.loadFragment(t, words, "the conditions program")
		if !p.Batched() {
			t.Fatal("the conditions program is not batched")
		}
		forms := map[string]int{}
		boundForms(d.fst, p, forms)
		for _, f := range []string{"fused flags", "flags of N and Z", "sub with flags under a condition"} {
			if forms[f] == 0 {
				t.Errorf("the conditions program has no %s micro-operation: %v", f, forms)
			}
		}
		runCase(p, "the conditions program")
	}
	batched, splitting, other, jumping := 0, 0, 0, 0
	for i := range progs {
		g := &progGen{r: d.r, strict: true, stage: hazard.Fragment}
		g.threaded = d.r.IntN(2) == 0
		g.branches = d.r.IntN(2) == 0
		g.tame = []int{50, 90}[d.r.IntN(2)]
		var words []uint64
		for _, in := range g.prologue(d.r.IntN(2) == 0) {
			words = append(words, in.Encode())
		}
		words = append(words, g.program(1+d.r.IntN(30))...)
		copy(d.pool.Bytes(d.code), qpu.Bytes(words))
		p, err := Load(d.view, d.code.Addr, Options{Stage: hazard.Fragment, Threaded: g.threaded})
		if err != nil || !p.Batched() {
			other++
			continue
		}
		batched++
		if len(p.jumpPts) > 0 {
			jumping++
		}
		if runCase(p, fmt.Sprintf("program %d", i)) {
			splitting++
		}
	}
	t.Logf("%d programs batched (%d with branches, %d split a batch at one), %d not", batched, jumping, splitting, other)
	if batched < progs/5 || jumping < progs/200 {
		t.Errorf("too few programs batched (%d) or with branches (%d) to test the batch", batched, jumping)
	}
}

// TestSelfContained checks the analysis on small programs: what it must
// refuse and what it must take.
func TestSelfContained(t *testing.T) {
	r := newRig(t)
	nop := nopInst()
	li := func(w qpu.WAddr, cond qpu.Cond) qpu.Inst {
		return qpu.Inst{Sig: qpu.SigLoadImm, LoadMode: qpu.LoadImm32, Imm: 7, WaddrAdd: w, CondAdd: cond, CondMul: qpu.CondAlways, WaddrMul: qpu.WNop, RaddrA: qpu.RNop, RaddrB: qpu.RNop}
	}
	setf := qpu.Inst{Sig: qpu.SigNone, OpAdd: qpu.AddOr, AddA: 6, AddB: 6, CondAdd: qpu.CondAlways, SF: true, WaddrAdd: qpu.WNop, WaddrMul: qpu.WNop, RaddrA: 15, RaddrB: qpu.RNop}
	orR0 := qpu.Inst{Sig: qpu.SigNone, OpAdd: qpu.AddOr, AddA: 0, AddB: 0, CondAdd: qpu.CondAlways, WaddrAdd: qpu.WTLBColourAll, WaddrMul: qpu.WNop, RaddrA: qpu.RNop, RaddrB: qpu.RNop}
	latch := qpu.Inst{Sig: qpu.SigNone, OpAdd: qpu.AddNop, CondAdd: qpu.CondAlways, WaddrAdd: qpu.WTLBColourAll, WaddrMul: qpu.WNop, RaddrA: qpu.RNop, RaddrB: qpu.RNop}
	end := nop
	end.Sig = qpu.SigProgramEnd
	for _, c := range []struct {
		name string
		body []qpu.Inst
		want bool
	}{
		{"reads r0 unwritten", []qpu.Inst{orR0}, false},
		{"writes r0, then reads it", []qpu.Inst{li(qpu.WAcc0, qpu.CondAlways), nop, orR0}, true},
		{"writes r0 under a condition", []qpu.Inst{li(qpu.WAcc0, qpu.CondZS), nop, orR0}, false},
		{"writes ra3 on some runs only", []qpu.Inst{li(qpu.WAddr(3), qpu.CondZS)}, false},
		{"sets the flags, writes r0 under a condition, reads it", []qpu.Inst{setf, li(qpu.WAcc0, qpu.CondZS), nop, orR0}, false},
		{"sets the flags, writes ra3 under a condition", []qpu.Inst{setf, li(qpu.WAddr(3), qpu.CondZS)}, false},
		{"sets the flags, writes r0, then under a condition", []qpu.Inst{setf, li(qpu.WAcc0, qpu.CondAlways), li(qpu.WAcc0, qpu.CondZS), nop, orR0}, true},
		{"reads the add latch through a NOP op", []qpu.Inst{latch}, false},
	} {
		var words []uint64
		for _, in := range append(append([]qpu.Inst{nop, nop}, c.body...), end, nop, nop) {
			words = append(words, in.Encode())
		}
		p, err := r.load(words, strictFragment)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := p.Batched(); got != c.want {
			t.Errorf("%s: batched %v, want %v\n%s", c.name, got, c.want, listing(p))
		}
	}
}

// regsDiff names the first location where two states differ.
func regsDiff(a, b *regState) string {
	va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	for i := range va.NumField() {
		x, y := va.Field(i), vb.Field(i)
		if x.Kind() == reflect.Array && x.Type().Elem() == reflect.TypeOf(vec{}) {
			for k := range x.Len() {
				if x.Index(k).Interface() != y.Index(k).Interface() {
					return fmt.Sprintf("%s[%d]: batched %#x, one at a time %#x", va.Type().Field(i).Name, k, x.Index(k).Interface(), y.Index(k).Interface())
				}
			}
		} else if x.Interface() != y.Interface() {
			return fmt.Sprintf("%s: batched %#x, one at a time %#x", va.Type().Field(i).Name, x.Interface(), y.Interface())
		}
	}
	return ""
}
