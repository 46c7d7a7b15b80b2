package qpuexec

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/sim/gpu/tmu"
	"github.com/vccube/vccube/sim/mem"
)

// unitEnv serves TMUWrite and TMULoad from two units, as the fragment
// stage's Env does (sim/gpu/render: all 16 lanes written whatever the
// condition), and everything else from fakeEnv.
type unitEnv struct {
	fakeEnv
	u [2]*tmu.Unit
}

func (e *unitEnv) TMUWrite(unit int, reg TMUReg, v *[16]uint32, mask uint16, param uint32, direct bool) error {
	return e.u[unit&1].Write(int(reg), v, 0xFFFF, param, direct)
}

func (e *unitEnv) TMULoad(unit int, r4 *[16]uint32) error { return e.u[unit&1].Receive(r4) }

// TestStartTMUMatchesEnv holds the QPU's direct calls into the units of
// Start.TMU to the same accesses through Env.TMUWrite and TMULoad: the
// same registers afterwards, the same results received from each unit,
// and no TMU call reaching the Env, on QPU 0 and on QPU 2 (which sees the
// units swapped, AG §4), with and without TMU_NOSWAP, and with a write
// whose condition passes in some elements only; QPU 3 on the general
// interpreter.
func TestStartTMUMatchesEnv(t *testing.T) {
	for _, tc := range []struct {
		num    int
		noSwap bool
	}{{0, false}, {2, false}, {2, true}, {3, false}} {
		r := newRig(t)
		data, err := r.pool.Alloc(4<<10, 0)
		if err != nil {
			t.Fatal(err)
		}
		b := r.pool.Bytes(data)
		for i := 0; i < len(b); i += 4 {
			binary.LittleEndian.PutUint32(b[i:], uint32(i)*0x9E3779B1)
		}
		r.view.Add(data, mem.Read, "texture")
		w := asm(t, func(a *qpu.Asm) {
			if tc.noSwap {
				a.I(qpu.LoadImm(qpu.TMUNoSwap, 1))
			}
			a.I(qpu.Shl(qpu.R1, qpu.ElemNum, qpu.SmallInt(2)))
			a.I(qpu.LoadImm(qpu.R0, data.Addr))
			a.I(qpu.Add(qpu.R2, qpu.R0, qpu.R1))
			a.I(qpu.Mov(qpu.TMU0S, qpu.R2)) // direct lookups, no uniform
			a.I(qpu.LoadImm(qpu.R0, data.Addr+1024))
			a.I(qpu.Add(qpu.R3, qpu.R0, qpu.R1))
			a.I(qpu.Mov(qpu.TMU1S, qpu.R3))
			// Some elements' condition fails: the unit gets all 16.
			a.I(qpu.Sub(qpu.R0, qpu.ElemNum, qpu.SmallInt(5)).SetFlags())
			a.I(qpu.Mov(qpu.TMU0S, qpu.R3).If(qpu.CondNS))
			a.I(qpu.SigLoadTMU0)
			a.I(qpu.Mov(qpu.R1, qpu.R4), qpu.SigLoadTMU1)
			a.I(qpu.Mov(qpu.R2, qpu.R4), qpu.SigLoadTMU0)
			a.I(qpu.Mov(qpu.R3, qpu.R4))
			ending(a)
		})
		p := r.mustLoad(w, permissiveGeneral) // the conditional S write is a broken restriction

		// Through the Env.
		viaEnv := &unitEnv{u: [2]*tmu.Unit{tmu.New(r.view), tmu.New(r.view)}}
		q1 := NewQPU(tc.num, r.view)
		q1.Reference = tc.num == 3 // and on the general interpreter
		if _, err := q1.Run(p, viaEnv, &Start{}); err != nil {
			t.Fatalf("QPU %d through the Env: %v", tc.num, err)
		}
		// Straight to the units.
		units := [2]*tmu.Unit{tmu.New(r.view), tmu.New(r.view)}
		env := &fakeEnv{}
		q2 := NewQPU(tc.num, r.view)
		q2.Reference = tc.num == 3
		if _, err := q2.Run(p, env, &Start{TMU: units}); err != nil {
			t.Fatalf("QPU %d with Start.TMU: %v", tc.num, err)
		}
		if len(env.tmuWrites) != 0 || len(env.log) != 0 {
			t.Errorf("QPU %d with Start.TMU: the Env saw %v", tc.num, env.log)
		}
		for k := 1; k <= 3; k++ {
			if *q1.Acc(k) != *q2.Acc(k) {
				t.Errorf("QPU %d (noswap %v): r%d = %x with Start.TMU, %x through the Env", tc.num, tc.noSwap, k, *q2.Acc(k), *q1.Acc(k))
			}
		}
		for u := range units {
			if got, want := units[u].Received, viaEnv.u[u].Received; got != want || want == 0 {
				t.Errorf("QPU %d (noswap %v): unit %d received %d results with Start.TMU, %d through the Env (want equal, not 0)", tc.num, tc.noSwap, u, got, want)
			}
		}
		// The first lookup read the data's first 16 words.
		if got, want := q2.Acc(1)[3], binary.LittleEndian.Uint32(b[12:]); got != want {
			t.Errorf("QPU %d: r1[3] = %#x, want the word at +12, %#x", tc.num, got, want)
		}
	}
}

// TestStartWZInRegs: with Start.WZInRegs the thread starts from the W
// and Z the caller wrote into ra15 and rb15, not from Start.W and Z;
// without it, from Start's.
func TestStartWZInRegs(t *testing.T) {
	prog := func(a *qpu.Asm) {
		a.I(qpu.Mov(qpu.R0, qpu.RA(15)), qpu.MMov(qpu.R1, qpu.RB(15)))
		ending(a)
	}
	for _, inRegs := range []bool{false, true} {
		r := newRig(t)
		w := asm(t, prog)
		inW, inZ := seq(func(i int) uint32 { return 100 + uint32(i) }), seq(func(i int) uint32 { return 200 + uint32(i) })
		s := &Start{W: splat(1), Z: splat(2), WZInRegs: inRegs}
		*r.q.RA(15), *r.q.RB(15) = inW, inZ
		r.run(w, strictFragment, s)
		wantW, wantZ := vec(s.W), vec(s.Z)
		if inRegs {
			wantW, wantZ = inW, inZ
		}
		if *r.q.Acc(0) != wantW || *r.q.Acc(1) != wantZ {
			t.Errorf("WZInRegs %v: ra15 %v rb15 %v, want %v %v", inRegs, *r.q.Acc(0), *r.q.Acc(1), wantW, wantZ)
		}
	}
}

// TestStartInOrder: with Start.InOrder the scoreboard's implicit wait
// and its unlock make no Env call, and the TLB accesses still reach the
// Env; without it, both reach Env.Scoreboard.
func TestStartInOrder(t *testing.T) {
	prog := func(a *qpu.Asm) {
		a.I()
		a.I()
		a.I(qpu.Mov(qpu.TLBZ, qpu.RB(15)))
		a.I(qpu.LoadImm(qpu.TLBColourAll, 0xFF00FF00))
		a.I(qpu.SigScoreboardUnlock)
		ending(a)
	}
	for _, inOrder := range []bool{false, true} {
		r := newRig(t)
		r.run(asm(t, prog), strictFragment, &Start{InOrder: inOrder})
		want := []string{"sbwait", "tlb_z", "tlb_colour_all", "sbdone"}
		if inOrder {
			want = []string{"tlb_z", "tlb_colour_all"}
		}
		if fmt.Sprint(r.env.log) != fmt.Sprint(want) {
			t.Errorf("InOrder %v: Env calls %v, want %v", inOrder, r.env.log, want)
		}
	}
}

// TestStartMSUnseen: with Start.MSUnseen the thread's TLB writes are
// given the MS_FLAGS the QPU held before, not Start.MSFlags, which the
// thread's start leaves unread; without it, Start's.
func TestStartMSUnseen(t *testing.T) {
	prog := func(a *qpu.Asm) {
		a.I()
		a.I()
		a.I(qpu.LoadImm(qpu.TLBColourAll, 0xFF00FF00))
		ending(a)
	}
	for _, unseen := range []bool{false, true} {
		for _, ref := range []bool{false, true} {
			r := newRig(t)
			r.q.Reference = ref
			before := seq(func(i int) uint32 { return uint32(i) & 3 })
			r.run(asm(t, prog), strictFragment, &Start{MSFlags: before})
			r.env.tlbWrites = nil
			s := &Start{MSFlags: splat(0xF), MSUnseen: unseen}
			r.run(asm(t, prog), strictFragment, s)
			want := vec(s.MSFlags)
			if unseen {
				want = before
			}
			if len(r.env.tlbWrites) != 1 || r.env.tlbWrites[0].ms != want {
				t.Errorf("MSUnseen %v, reference %v: the TLB write saw MS_FLAGS %+v, want %v", unseen, ref, r.env.tlbWrites, want)
			}
		}
	}
}
