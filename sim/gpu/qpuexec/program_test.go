package qpuexec

import (
	"errors"
	"strings"
	"testing"

	"github.com/vccube/vccube/shaders/hazard"
	"github.com/vccube/vccube/shaders/qpu"
)

func TestStrictLoadNamesRuleAndInstruction(t *testing.T) {
	r := newRig(t)
	// Rule 8: r4 read the instruction after an SFU write.
	w := asm(t, func(a *qpu.Asm) {
		a.I(qpu.LoadImmFloat(qpu.R0, 2))
		a.I(qpu.Mov(qpu.SFURecip, qpu.R0))
		a.I(qpu.Mov(qpu.R1, qpu.R4))
		ending(a)
	})
	_, err := r.load(w, strictGeneral)
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("strict load: %v, want a LoadError", err)
	}
	if len(le.Violations) == 0 || le.Violations[0].Index != 2 || le.Violations[0].Rule != "rule 8" {
		t.Fatalf("violations %v, want rule 8 at instruction 2", le.Violations)
	}
	if msg := err.Error(); !strings.Contains(msg, "instruction 2 (mov r1, r4") || !strings.Contains(msg, "rule 8") {
		t.Errorf("error text does not name the instruction and rule:\n%s", msg)
	}
	// Permissive: loads, keeps the warning, and the run shows the hardware's
	// behaviour (the old r4).
	p := r.mustLoad(w, permissiveGeneral)
	if len(p.Warnings) == 0 || p.Warnings[0].Rule != "rule 8" {
		t.Errorf("permissive warnings %v", p.Warnings)
	}
}

func TestReservedEncodingsAreRefused(t *testing.T) {
	r := newRig(t)
	bad := nopInst()
	bad.OpAdd = 9 // reserved (AG Table 12)
	bad.CondAdd = qpu.CondAlways
	end := nopInst()
	end.Sig = qpu.SigProgramEnd
	w := []uint64{encode(bad), encode(end), encode(nopInst()), encode(nopInst())}
	_, err := r.load(w, permissiveGeneral)
	if err == nil || !strings.Contains(err.Error(), "reserved") {
		t.Errorf("reserved add opcode: %v", err)
	}
	if _, err := r.load(w, Options{}); err == nil || !strings.Contains(err.Error(), "Stage") {
		t.Errorf("zero Options: %v, want a complaint about the stage", err)
	}
}

// The mul ALU's single-byte colour packs may write accumulators and
// registers but not I/O registers (vc4asm addendum, "MUL ALU pack modes
// and I/O register targets"); the full 8888 pack and r5 are allowed.
func TestBytePackToIORegister(t *testing.T) {
	r := newRig(t)
	for _, c := range []struct {
		waddr qpu.WAddr
		pack  qpu.Pack
		bad   bool
	}{
		{qpu.WTMU0S, qpu.PackMul8A, true},
		{qpu.WHostInt, qpu.PackMul8D, true},
		{qpu.WAcc1, qpu.PackMul8B, false},
		{qpu.WAcc5, qpu.PackMul8C, false},
		{5, qpu.PackMul8A, false}, // physical register
		{qpu.WTMU0S, qpu.PackMul8888, false},
	} {
		in := nopInst()
		in.PM, in.Pack = true, c.pack
		in.OpMul, in.WaddrMul, in.CondMul = qpu.MulFMul, c.waddr, qpu.CondAlways
		end := nopInst()
		end.Sig = qpu.SigProgramEnd
		w := []uint64{encode(in), encode(end), encode(nopInst()), encode(nopInst())}
		p, err := r.load(w, permissiveGeneral)
		if err != nil {
			t.Fatalf("waddr %d pack %d: %v", c.waddr, c.pack, err)
		}
		found := false
		for _, v := range p.Warnings {
			found = found || v.Rule == "byte pack to I/O"
		}
		if found != c.bad {
			t.Errorf("waddr %d pack %d: byte-pack warning %v, want %v (%v)", c.waddr, c.pack, found, c.bad, p.Warnings)
		}
	}
}

func TestCacheDecodesOnce(t *testing.T) {
	r := newRig(t)
	w := asm(t, func(a *qpu.Asm) {
		a.I(qpu.LoadImm(qpu.R0, 1))
		ending(a)
	})
	copy(r.pool.Bytes(r.code), qpu.Bytes(w))
	c := NewCache()
	p1, err := c.Load(r.view, r.code.Addr, strictGeneral)
	if err != nil {
		t.Fatal(err)
	}
	p2, _ := c.Load(r.view, r.code.Addr, strictGeneral)
	if p1 != p2 || c.Len() != 1 {
		t.Errorf("second load decoded again (%p %p, %d programs)", p1, p2, c.Len())
	}
	allocs := testing.AllocsPerRun(50, func() {
		if _, err := c.Load(r.view, r.code.Addr, strictGeneral); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("a cache hit allocates %v times", allocs)
	}
	// New bytes at the same address (a new BO reusing the memory) are a new
	// program; so are other options.
	w2 := asm(t, func(a *qpu.Asm) {
		a.I(qpu.LoadImm(qpu.R0, 2))
		ending(a)
	})
	copy(r.pool.Bytes(r.code), qpu.Bytes(w2))
	p3, _ := c.Load(r.view, r.code.Addr, strictGeneral)
	p4, _ := c.Load(r.view, r.code.Addr, Options{Stage: hazard.Vertex})
	if p3 == p1 || p4 == p3 || c.Len() != 3 {
		t.Errorf("cache returned a stale program (%d programs)", c.Len())
	}
	if _, err := r.q.Run(p3, nil, &Start{}); err != nil || r.q.Acc(0)[0] != 2 {
		t.Errorf("ran %v: r0 = %d, want the new program's 2", err, r.q.Acc(0)[0])
	}
}

// A client that keeps writing new code at the same address (a freed
// shader BO's memory reused) does not grow the cache without bound.
func TestCacheIsBounded(t *testing.T) {
	r := newRig(t)
	c := NewCache()
	for i := 0; i <= MaxCached; i++ {
		w := asm(t, func(a *qpu.Asm) {
			a.I(qpu.LoadImm(qpu.R0, uint32(i)))
			ending(a)
		})
		copy(r.pool.Bytes(r.code), qpu.Bytes(w))
		p, err := c.Load(r.view, r.code.Addr, strictGeneral)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.q.Run(p, nil, &Start{}); err != nil || r.q.Acc(0)[0] != uint32(i) {
			t.Fatalf("program %d: %v, r0 = %d", i, err, r.q.Acc(0)[0])
		}
	}
	if n := c.Len(); n < 1 || n > MaxCached {
		t.Errorf("%d programs cached after %d distinct loads, want 1..%d", n, MaxCached+1, MaxCached)
	}
}

func TestDecodeNeedsProgramEnd(t *testing.T) {
	if _, err := Decode(0, []uint64{encode(nopInst())}, strictGeneral); err == nil {
		t.Error("Decode accepted a program without program end")
	}
	end := nopInst()
	end.Sig = qpu.SigProgramEnd
	p, err := Decode(0x1000, []uint64{encode(end), encode(nopInst()), encode(nopInst()), encode(nopInst())}, strictGeneral)
	if err != nil {
		t.Fatal(err)
	}
	if p.Len() != 3 {
		t.Errorf("program has %d instructions, want 3 (the fetch stops after the delay slots)", p.Len())
	}
}

func TestSemaphores(t *testing.T) {
	r := newRig(t)
	w := asm(t, func(a *qpu.Asm) {
		a.I(qpu.SemaphoreAcquire(3))
		a.I(qpu.SemaphoreRelease(3))
		ending(a)
	})
	r.run(w, strictGeneral, nil)
	if got := strings.Join(r.env.semaphores, " "); got != "sem3- sem3+" {
		t.Errorf("semaphores: %s", got)
	}
}

// TestProgramSharedAcrossGoroutines runs one Program on QPUs in several
// goroutines at once (as tile workers do); run with -race.
func TestProgramSharedAcrossGoroutines(t *testing.T) {
	r := newRig(t)
	w := asm(t, func(a *qpu.Asm) {
		a.I(qpu.Mov(qpu.R0, qpu.Unif))
		a.I(qpu.Add(qpu.R1, qpu.R0, qpu.ElemNum))
		ending(a)
	})
	c := NewCache()
	copy(r.pool.Bytes(r.code), qpu.Bytes(w))
	addr := r.uniforms(40)
	done := make(chan error)
	for g := 0; g < 4; g++ {
		go func() {
			q := NewQPU(g, r.view)
			q.Reference = rigReference
			var err error
			for i := 0; i < 200 && err == nil; i++ {
				var p *Program
				if p, err = c.Load(r.view, r.code.Addr, strictGeneral); err == nil {
					_, err = q.Run(p, nil, &Start{Uniforms: addr})
				}
				if err == nil && q.Acc(1)[3] != 43 {
					err = errors.New("wrong result")
				}
			}
			done <- err
		}()
	}
	for g := 0; g < 4; g++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
