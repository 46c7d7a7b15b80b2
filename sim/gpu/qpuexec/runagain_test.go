package qpuexec

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/vccube/vccube/shaders/hazard"
	"github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/sim/gpu/tmu"
	"github.com/vccube/vccube/sim/mem"
)

// TestRunAgainMatchesRun runs random programs of every stage as runs of
// threads, on two QPUs from equal states: one starts every thread with
// Run, the other the first with Run and the rest with RunAgain, each
// thread with new W, Z, X, Y and MSFlags (some with new uniforms and
// REV_FLAG), some with a failing Env call.
// After every thread the two must agree on everything a run can change
// (snapshot), on the fast path and on the reference.
func TestRunAgainMatchesRun(t *testing.T) {
	progs := 300
	if testing.Short() {
		progs = 60
	}
	d := newDiffRig(t, 27)
	again := 0
	for i := 0; i < progs; i++ {
		strict := i%4 != 0
		g := &progGen{r: d.r, strict: strict}
		g.stage = []hazard.Stage{hazard.Fragment, hazard.Fragment, hazard.Vertex, hazard.Coordinate, hazard.General}[d.r.IntN(5)]
		g.threaded = g.stage == hazard.Fragment && d.r.IntN(2) == 0
		g.branches = d.r.IntN(4) == 0
		g.tame = []int{0, 50, 90}[d.r.IntN(3)]
		words := g.program(1 + d.r.IntN(40))
		opts := Options{Stage: g.stage, Threaded: g.threaded, Permissive: !strict}
		copy(d.pool.Bytes(d.code), qpu.Bytes(words))
		p, err := Load(d.view, d.code.Addr, opts)
		if err != nil {
			if strict {
				t.Fatalf("program %d: a strict program the generator kept fails to load: %v", i, err)
			}
			continue
		}
		ref := i%3 == 0
		d.ref.Reference, d.fst.Reference = ref, ref
		d.randomize()
		failAt := 0
		if d.r.IntN(4) == 0 {
			failAt = 1 + d.r.IntN(12)
		}
		seed := d.r.Uint64()
		envs := [2]*diffEnv{{seed: seed, failAt: failAt}, {seed: seed, failAt: failAt}}
		first := d.start(g.stage)
		// Two Starts for each QPU, taken in turn: RunAgain's s need
		// not be the last Run's.
		var starts [2][2]Start
		for j := range 4 {
			// The next thread: the VPM segments the first's, the
			// thread's own inputs new, and now and then its
			// uniforms and REV_FLAG.
			in := d.start(g.stage)
			s := first
			s.W, s.Z, s.X, s.Y, s.MSFlags = in.W, in.Z, in.X, in.Y, in.MSFlags
			if d.r.IntN(3) == 0 {
				s.Uniforms, s.RevFlag = in.Uniforms, in.RevFlag
			}
			var states [2]*qpuState
			for k, q := range []*QPU{d.ref, d.fst} {
				st := &starts[k][j%2]
				*st = s
				if g.stage != hazard.Fragment {
					st.VPM = &d.vpm[k]
				}
				var res Result
				var err error
				func() {
					defer func() {
						if r := recover(); r != nil {
							err = fmt.Errorf("panic: %v", r)
						}
					}()
					if k == 1 && j > 0 {
						res, err = q.RunAgain(st)
					} else {
						res, err = q.Run(p, envs[k], st)
					}
				}()
				states[k] = snapshot(q, envs[k], &d.vpm[k], res, err)
			}
			if j > 0 {
				again++
			}
			if diff := diffFirst(states[0], states[1]); diff != "" {
				t.Fatalf("program %d (%v, threaded %v, strict %v, reference %v), thread %d: RunAgain differs from Run (\"reference\" below): %s\nprogram:\n%s",
					i, g.stage, g.threaded, strict, ref, j, diff, listing(p))
			}
		}
	}
	t.Logf("%d threads started with RunAgain", again)
}

// TestRunAgainTMUUnits runs threads whose TMU accesses go straight to
// Start.TMU's units, with RunAgain and with Run on two QPUs: the
// at-once entries serve a thread only if the units are idle at its
// start, which RunAgain must look at for each thread, not once. A
// thread here finds unit 0's receive FIFO full of results it did not
// request: its lookup must wait behind them (tmu.Unit.Write), not
// take the oldest one's place (WriteAtOnce).
func TestRunAgainTMUUnits(t *testing.T) {
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
		a.I(qpu.Shl(qpu.R1, qpu.ElemNum, qpu.SmallInt(2)))
		a.I(qpu.Add(qpu.R2, qpu.RA(15), qpu.R1))
		a.I(qpu.Mov(qpu.TMU0S, qpu.R2)) // a direct lookup at W + 4·element
		a.I(qpu.SigLoadTMU0)
		a.I(qpu.Mov(qpu.TLBColourAll, qpu.R4))
		ending(a)
	})
	p := r.mustLoad(w, Options{Stage: hazard.Fragment})
	if !p.tmuAtOnce {
		t.Fatal("the test's program does not take the TMU's at-once entries: it tests nothing")
	}
	var units [2][2]*tmu.Unit
	var qs [2]*QPU
	var envs [2]*fakeEnv
	for k := range qs {
		units[k] = [2]*tmu.Unit{tmu.New(r.view), tmu.New(r.view)}
		qs[k] = NewQPU(0, r.view)
		envs[k] = &fakeEnv{}
	}
	var starts [2]Start
	for j := range 4 {
		for k, q := range qs {
			if j == 2 {
				// Results wait in unit 0 that no thread of the
				// program asked for: the thread's ldtmu0 pops the
				// oldest (the FIFO's order), not its own lookup's.
				for n := range tmu.ReceiveSlots {
					var v [16]uint32
					for e := range v {
						v[e] = data.Addr + 2048 + uint32(64*n+4*e)
					}
					if err := units[k][0].Write(int(TMUS), &v, 0xFFFF, 0, true); err != nil {
						t.Fatal(err)
					}
				}
			}
			starts[k] = Start{TMU: units[k], InOrder: true, MSFlags: splat(0xF)}
			starts[k].W = splat(data.Addr + uint32(64*j))
			var err error
			if k == 1 && j > 0 {
				_, err = q.RunAgain(&starts[k])
			} else {
				_, err = q.Run(p, envs[k], &starts[k])
			}
			if err != nil {
				t.Fatalf("thread %d, QPU %d: %v", j, k, err)
			}
		}
		a, b := envs[0].tlbWrites, envs[1].tlbWrites
		if len(a) != len(b) || len(a) != j+1 {
			t.Fatalf("thread %d: %d TLB writes with Run, %d with RunAgain (want %d)", j, len(a), len(b), j+1)
		}
		if a[j] != b[j] {
			t.Errorf("thread %d: colour %x with RunAgain, %x with Run", j, b[j].v, a[j].v)
		}
		if j == 2 && a[j].v[0] != binary.LittleEndian.Uint32(b2048(r, data)) {
			t.Errorf("thread 2: colour[0] = %#x with Run, want the waiting result's %#x", a[j].v[0], binary.LittleEndian.Uint32(b2048(r, data)))
		}
		for u := range 2 {
			if units[0][u].Received != units[1][u].Received || units[0][u].Outstanding() != units[1][u].Outstanding() {
				t.Errorf("thread %d, unit %d: received %d, outstanding %d with RunAgain; %d and %d with Run", j, u,
					units[1][u].Received, units[1][u].Outstanding(), units[0][u].Received, units[0][u].Outstanding())
			}
		}
	}
}

// b2048 is the texture data's bytes from offset 2048: the waiting
// result's element 0.
func b2048(r *rig, data mem.Region) []byte { return r.pool.Bytes(data)[2048:] }

// TestRunAgainFirst: RunAgain before any Run is an error, not a panic.
func TestRunAgainFirst(t *testing.T) {
	q := NewQPU(0, nil)
	if _, err := q.RunAgain(&Start{}); err == nil {
		t.Error("RunAgain before any Run succeeded")
	}
}
