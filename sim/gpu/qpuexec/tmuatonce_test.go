package qpuexec

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/vccube/vccube/shaders"
	"github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/sim/gpu/tmu"
	"github.com/vccube/vccube/sim/mem"
)

func decodeWords(words []uint64) []qpu.Inst {
	in := make([]qpu.Inst, len(words))
	for i, w := range words {
		in[i] = qpu.Decode(w)
	}
	return in
}

// TestTMUAtOnce holds the load-time analysis to the programs it must
// take (no request waiting in a request FIFO, whatever the path through
// them) and to those it must refuse (which can make a request wait,
// overfill or underflow a FIFO, or whose TMU accesses the walk cannot
// follow).
func TestTMUAtOnce(t *testing.T) {
	r0, r1 := qpu.R0, qpu.R1
	for _, tc := range []struct {
		name string
		take bool
		prog func(a *qpu.Asm)
	}{
		{"no TMU access", true, func(a *qpu.Asm) { a.I(qpu.Mov(r0, r1)) }},
		{"direct S, ldtmu", true, func(a *qpu.Asm) {
			a.I(qpu.Mov(qpu.TMU0S, r0))
			a.I(qpu.SigLoadTMU0)
		}},
		{"T, S, ldtmu twice over", true, func(a *qpu.Asm) {
			for range 2 {
				a.I(qpu.Mov(qpu.TMU0T, r0))
				a.I(qpu.Mov(qpu.TMU0S, r1))
				a.I(qpu.SigLoadTMU0)
			}
		}},
		{"both units interleaved", true, func(a *qpu.Asm) {
			a.I(qpu.Mov(qpu.TMU0S, r0))
			a.I(qpu.Mov(qpu.TMU1T, r0))
			a.I(qpu.Mov(qpu.TMU1S, r1))
			a.I(qpu.SigLoadTMU1)
			a.I(qpu.SigLoadTMU0)
		}},
		{"T, R, B, S", true, func(a *qpu.Asm) {
			a.I(qpu.Mov(qpu.TMU0T, r0))
			a.I(qpu.Mov(qpu.TMU0R, r0))
			a.I(qpu.Mov(qpu.TMU0B, r0))
			a.I(qpu.Mov(qpu.TMU0S, r1))
			a.I(qpu.SigLoadTMU0)
		}},
		{"next T while a result waits", true, func(a *qpu.Asm) {
			a.I(qpu.Mov(qpu.TMU0S, r0))
			a.I(qpu.Mov(qpu.TMU0T, r0))
			a.I(qpu.SigLoadTMU0)
			a.I(qpu.Mov(qpu.TMU0S, r1))
			a.I(qpu.SigLoadTMU0)
		}},
		{"a result never read", true, func(a *qpu.Asm) { a.I(qpu.Mov(qpu.TMU1S, r0)) }},

		{"two in flight, as Mesa's effect2d", true, func(a *qpu.Asm) {
			a.I(qpu.Mov(qpu.TMU0T, r0))
			a.I(qpu.Mov(qpu.TMU0S, r1))
			a.I(qpu.Mov(qpu.TMU0T, r0))
			a.I(qpu.Mov(qpu.TMU0S, r1))
			a.I(qpu.SigLoadTMU0)
			a.I(qpu.SigLoadTMU0)
		}},
		{"eight in flight", true, func(a *qpu.Asm) {
			for range 8 {
				a.I(qpu.Mov(qpu.TMU1S, r0))
			}
			for range 8 {
				a.I(qpu.SigLoadTMU1)
			}
		}},
		{"nine in flight", false, func(a *qpu.Asm) {
			for range 9 {
				a.I(qpu.Mov(qpu.TMU1S, r0))
			}
			for range 9 {
				a.I(qpu.SigLoadTMU1)
			}
		}},
		{"a ninth read", false, func(a *qpu.Asm) {
			for range 8 {
				a.I(qpu.Mov(qpu.TMU1S, r0))
			}
			for range 9 {
				a.I(qpu.SigLoadTMU1)
			}
		}},
		{"ldtmu with nothing asked", false, func(a *qpu.Asm) { a.I(qpu.SigLoadTMU0) }},
		{"ldtmu of the other unit", false, func(a *qpu.Asm) {
			a.I(qpu.Mov(qpu.TMU0S, r0))
			a.I(qpu.SigLoadTMU1)
		}},
		{"four parameters before S", false, func(a *qpu.Asm) {
			for range 4 {
				a.I(qpu.Mov(qpu.TMU0T, r0))
			}
			a.I(qpu.Mov(qpu.TMU0S, r1))
			a.I(qpu.SigLoadTMU0)
		}},
		{"conditional S", false, func(a *qpu.Asm) {
			a.I(qpu.Mov(qpu.TMU0S, r0).If(qpu.CondZS))
			a.I(qpu.SigLoadTMU0)
		}},
		{"conditional T by load immediate", false, func(a *qpu.Asm) {
			a.I(qpu.LoadImm(qpu.TMU0T, 1).If(qpu.CondZS))
		}},
		{"TMU_NOSWAP", false, func(a *qpu.Asm) { a.I(qpu.LoadImm(qpu.TMUNoSwap, 1)) }},
		{"S and ldtmu in one instruction", false, func(a *qpu.Asm) {
			a.I(qpu.Mov(qpu.TMU1S, r0))
			a.I(qpu.Mov(qpu.TMU0S, r0), qpu.SigLoadTMU1)
			a.I(qpu.SigLoadTMU0)
		}},
		{"two TMU writes in one instruction", false, func(a *qpu.Asm) {
			a.I(qpu.Mov(qpu.TMU0T, r0), qpu.MMov(qpu.TMU1S, r1))
			a.I(qpu.Mov(qpu.TMU0S, r0))
			a.I(qpu.SigLoadTMU0)
			a.I(qpu.SigLoadTMU1)
		}},
		{"a branch", false, func(a *qpu.Asm) {
			a.I(qpu.Branch(qpu.BranchAlways, "end"))
			a.I()
			a.I()
			a.I()
			a.Label("end")
		}},
	} {
		words := asm(t, func(a *qpu.Asm) { tc.prog(a); ending(a) })
		if got := tmuAtOnce(decodeWords(words)); got != tc.take {
			t.Errorf("%s: tmuAtOnce = %v, want %v", tc.name, got, tc.take)
		}
	}
	// The cube's fragment shader is one of the programs it is for.
	if !tmuAtOnce(decodeWords(shaders.FS.Code)) {
		t.Error("the cube's fragment shader is refused")
	}
}

// TestTMUAtOnceRuns runs programs the analysis takes with Start.TMU's
// units, where the QPU calls tmu.Unit.WriteAtOnce and ReceiveAtOnce, and
// through the Env, where the units' general Write and Receive serve them:
// the same registers, the same counts, the same results outstanding, the
// same TMU parameter counts and uniform stream, and
// for a lookup that faults, the same error and the same state after it.
// A program that overfills the FIFO is refused and still deadlocks.
func TestTMUAtOnceRuns(t *testing.T) {
	r := newRig(t)
	data, err := r.pool.Alloc(4<<10, 0)
	if err != nil {
		t.Fatal(err)
	}
	b := r.pool.Bytes(data)
	for i := 0; i < len(b); i += 4 {
		binary.LittleEndian.PutUint32(b[i:], uint32(i)*0x9E3779B1+7)
	}
	r.view.Add(data, mem.Read, "data")
	// n lookups on each TMU, each read (when read) after the next one
	// is asked for, as Mesa's effect2d does.
	lookups := func(base uint32, n int, read bool) func(a *qpu.Asm) {
		return func(a *qpu.Asm) {
			a.I(qpu.Shl(qpu.R1, qpu.ElemNum, qpu.SmallInt(2)))
			for k := range n {
				a.I(qpu.LoadImm(qpu.R0, base+uint32(64*k)))
				a.I(qpu.Add(qpu.R2, qpu.R0, qpu.R1))
				a.I(qpu.Mov(qpu.TMU0S, qpu.R2))
				a.I(qpu.LoadImm(qpu.R0, base+uint32(64*k+2048)))
				a.I(qpu.Add(qpu.R2, qpu.R0, qpu.R1))
				a.I(qpu.Mov(qpu.TMU1S, qpu.R2))
				if read && k > 0 {
					a.I(qpu.SigLoadTMU0)
					a.I(qpu.Add(qpu.R3, qpu.R3, qpu.R4), qpu.SigLoadTMU1)
					a.I(qpu.Xor(qpu.R3, qpu.R3, qpu.R4))
				}
			}
			if read {
				a.I(qpu.SigLoadTMU0)
				a.I(qpu.Add(qpu.R3, qpu.R3, qpu.R4), qpu.SigLoadTMU1)
				a.I(qpu.Xor(qpu.R3, qpu.R3, qpu.R4))
			}
			ending(a)
		}
	}
	for _, tc := range []struct {
		name   string
		prog   func(a *qpu.Asm)
		take   bool
		failAs func(error) bool // nil: the run succeeds
	}{
		{"lookups", lookups(data.Addr, 5, true), true, nil},
		{"a lookup that faults", lookups(data.Addr+3<<10, 2, true), true, func(err error) bool {
			var f *mem.Fault
			return errors.As(err, &f)
		}},
		{"overfilled", lookups(data.Addr, 17, false), false, func(err error) bool { return errors.Is(err, tmu.ErrDeadlock) }},
		{"writes in a row", inARow(data.Addr), true, nil},
		{"writes in a row, the second faulting", inARow(data.Addr + 3<<10), true, func(err error) bool {
			var f *mem.Fault
			return errors.As(err, &f)
		}},
	} {
		p := r.mustLoad(asm(t, tc.prog), strictGeneral)
		if p.tmuAtOnce != tc.take {
			t.Fatalf("%s: Program.tmuAtOnce = %v, want %v", tc.name, p.tmuAtOnce, tc.take)
		}
		for _, num := range []int{0, 2} {
			viaEnv := &unitEnv{u: [2]*tmu.Unit{tmu.New(r.view), tmu.New(r.view)}}
			q1 := NewQPU(num, r.view)
			_, err1 := q1.Run(p, viaEnv, &Start{})
			units := [2]*tmu.Unit{tmu.New(r.view), tmu.New(r.view)}
			q2 := NewQPU(num, r.view)
			_, err2 := q2.Run(p, &fakeEnv{}, &Start{TMU: units})
			if q2.tmuAtOnce != tc.take {
				t.Errorf("%s QPU %d: the thread's tmuAtOnce = %v, want %v", tc.name, num, q2.tmuAtOnce, tc.take)
			}
			if tc.failAs == nil && (err1 != nil || err2 != nil) {
				t.Fatalf("%s QPU %d: %v through the Env, %v with Start.TMU", tc.name, num, err1, err2)
			}
			if tc.failAs != nil && (!tc.failAs(err2) || err1 == nil || err1.Error() != err2.Error()) {
				t.Errorf("%s QPU %d: error %v with Start.TMU, %v through the Env; want the same, of its kind", tc.name, num, err2, err1)
			}
			if strings.HasPrefix(tc.name, "writes in a row") && !tmuWritesInARow(q2) {
				t.Errorf("%s QPU %d: no two opTMUWrite bound one after the other", tc.name, num)
			}
			if q1.tmuParams != q2.tmuParams || q1.unifAddr != q2.unifAddr {
				t.Errorf("%s QPU %d: parameters written %v, uniforms at %#x with Start.TMU; %v, %#x through the Env", tc.name, num, q2.tmuParams, q2.unifAddr, q1.tmuParams, q1.unifAddr)
			}
			if *q1.Acc(3) != *q2.Acc(3) || *q1.Acc(4) != *q2.Acc(4) {
				t.Errorf("%s QPU %d: r3, r4 = %x, %x with Start.TMU; %x, %x through the Env", tc.name, num, *q2.Acc(3), *q2.Acc(4), *q1.Acc(3), *q1.Acc(4))
			}
			for u := range units {
				g, w := units[u], viaEnv.u[u]
				if g.Lookups != w.Lookups || g.Received != w.Received || g.Outstanding() != w.Outstanding() || g.Idle() != w.Idle() {
					t.Errorf("%s QPU %d unit %d: lookups %d received %d outstanding %d with Start.TMU; %d %d %d through the Env",
						tc.name, num, u, g.Lookups, g.Received, g.Outstanding(), w.Lookups, w.Received, w.Outstanding())
				}
			}
		}
	}
}

// inARow is a program whose TMU writes bind to opTMUWrite after
// opTMUWrite, which runBound runs without a dispatch between: an add
// into TMU0_S, then movs into TMU1_S and TMU0_S, whose copies
// directWrites leaves out (the cube's fragment shader's fadd into TMU0_T
// and mov into TMU0_S). With base 3 KiB into the 4 KiB buffer, the
// first lookup (base) reads inside it and the second (base+2 KiB)
// faults.
func inARow(base uint32) func(a *qpu.Asm) {
	return func(a *qpu.Asm) {
		a.I(qpu.Shl(qpu.R1, qpu.ElemNum, qpu.SmallInt(2)))
		a.I(qpu.LoadImm(qpu.R0, base))
		a.I(qpu.LoadImm(qpu.R2, base+2048))
		a.I(qpu.Add(qpu.R2, qpu.R2, qpu.R1))
		a.I(qpu.Add(qpu.TMU0S, qpu.R0, qpu.R1))
		a.I(qpu.Mov(qpu.TMU1S, qpu.R2))
		a.I(qpu.Mov(qpu.TMU0S, qpu.R2))
		a.I(qpu.SigLoadTMU0)
		a.I(qpu.Add(qpu.R3, qpu.R3, qpu.R4), qpu.SigLoadTMU1)
		a.I(qpu.Xor(qpu.R3, qpu.R3, qpu.R4), qpu.SigLoadTMU0)
		a.I(qpu.Add(qpu.R3, qpu.R3, qpu.R4))
		ending(a)
	}
}

// tmuWritesInARow reports whether q's last bound program has two
// opTMUWrite one after the other.
func tmuWritesInARow(q *QPU) bool {
	b := q.bndLast
	if b == nil {
		return false
	}
	for i := 1; i < len(b.ops); i++ {
		if b.ops[i-1].op == opTMUWrite && b.ops[i].op == opTMUWrite {
			return true
		}
	}
	return false
}
