package qpuexec

import (
	"errors"
	"strings"
	"testing"

	"github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/sim/mem"
)

func TestBothALUsEveryInstruction(t *testing.T) {
	r := newRig(t)
	w := asm(t, func(a *qpu.Asm) {
		a.I(qpu.LoadImmFloat(qpu.R0, 3))
		a.I(qpu.LoadImmFloat(qpu.R1, 0.5))
		a.I(qpu.FAdd(qpu.R2, qpu.R0, qpu.R1), qpu.FMul(qpu.R3, qpu.R0, qpu.R1))
		// Both ALUs read r2/r3 written by the previous instruction:
		// accumulators have no read-after-write delay (AG §3).
		a.I(qpu.Sub(qpu.RA(0), qpu.R2, qpu.R3), qpu.MV8Adds(qpu.RB(0), qpu.R2, qpu.R3))
		ending(a)
	})
	r.run(w, strictGeneral, nil)
	if got := r.q.Acc(2)[7]; got != fbits(3.5) {
		t.Errorf("fadd: r2 = %#x, want 3.5", got)
	}
	if got := r.q.Acc(3)[7]; got != fbits(1.5) {
		t.Errorf("fmul: r3 = %#x, want 1.5", got)
	}
	// 3.5 = 0x40600000, 1.5 = 0x3fc00000: integer difference 0x00a00000;
	// per-byte saturating sums 0x40+0x3f=0x7f, 0x60+0xc0=0xff (sat), 0, 0.
	if got := r.q.RA(0)[0]; got != 0x40600000-0x3fc00000 {
		t.Errorf("sub: ra0 = %#x", got)
	}
	if got := r.q.RB(0)[15]; got != 0x7fff0000 {
		t.Errorf("v8adds: rb0 = %#x, want 0x7fff0000", got)
	}
}

func TestConditionsAndFlags(t *testing.T) {
	r := newRig(t)
	w := asm(t, func(a *qpu.Asm) {
		// r0 = element number - 8: N set in elements 0-7, Z in 8.
		a.I(qpu.LoadImm(qpu.R1, 8))
		a.I(qpu.Sub(qpu.R0, qpu.ElemNum, qpu.R1).SetFlags())
		a.I(qpu.LoadImm(qpu.R2, 0))
		a.I(qpu.LoadImm(qpu.R3, 2))
		a.I(qpu.Mov(qpu.R2, qpu.SmallInt(1)).If(qpu.CondNS), qpu.MMov(qpu.R3, qpu.ElemNum).If(qpu.CondZS))
		ending(a)
	})
	r.run(w, strictGeneral, nil)
	n, z, c := r.q.Flags()
	if n != 0x00FF || z != 0x0100 {
		t.Errorf("flags N=%#04x Z=%#04x, want 0x00ff 0x0100", n, z)
	}
	// sub's C is the unsigned borrow: elements 0-7 (i < 8).
	if c != 0x00FF {
		t.Errorf("C=%#04x, want 0x00ff", c)
	}
	for i := 0; i < 16; i++ {
		want := uint32(0)
		if i < 8 {
			want = 1
		}
		if got := r.q.Acc(2)[i]; got != want {
			t.Errorf("element %d: cond ns wrote r2=%d, want %d", i, got, want)
		}
	}
	for i := 0; i < 16; i++ {
		want := uint32(2)
		if i == 8 {
			want = 8
		}
		if got := r.q.Acc(3)[i]; got != want {
			t.Errorf("element %d: cond zs on the mul ALU left r3=%d, want %d", i, got, want)
		}
	}
}

// TestFlagsFromMulOnlyWhenAddIsNop checks the set-flags source rules: the
// add result, unless op_add is NOP; the addendum says cond_add never does
// not switch the source, and flags change only where the condition passes.
func TestFlagsFromMulOnlyWhenAddIsNop(t *testing.T) {
	r := newRig(t)
	w := asm(t, func(a *qpu.Asm) {
		a.I(qpu.LoadImm(qpu.R0, 0))
		a.I(qpu.Mov(qpu.Null, qpu.R0).SetFlags()) // Z everywhere
		// Add op present with cond never: flags come from the add, and no
		// element passes, so they do not change (Z stays set).
		a.I(qpu.Mov(qpu.Null, qpu.SmallInt(1)).If(qpu.CondNever).SetFlags(), qpu.MMov(qpu.R1, qpu.SmallInt(1)))
		ending(a)
	})
	r.run(w, permissiveGeneral, nil)
	if _, z, _ := r.q.Flags(); z != 0xFFFF {
		t.Errorf("after a cond-never add with sf: Z = %#04x, want unchanged 0xffff", z)
	}

	w = asm(t, func(a *qpu.Asm) {
		a.I(qpu.LoadImm(qpu.R0, 0))
		a.I(qpu.MMov(qpu.Null, qpu.ElemNum).SetFlags()) // add idle: flags from the mul
		ending(a)
	})
	r.run(w, strictGeneral, nil)
	if _, z, _ := r.q.Flags(); z != 0x0001 {
		t.Errorf("flags from mul: Z = %#04x, want 0x0001", z)
	}
}

func TestRegfileReadAfterWriteReturnsOldValue(t *testing.T) {
	r := newRig(t)
	w := asm(t, func(a *qpu.Asm) {
		a.I(qpu.LoadImm(qpu.RA(3), 111))
		a.I()
		a.I(qpu.LoadImm(qpu.RA(3), 222)) // N
		a.I(qpu.Mov(qpu.R0, qpu.RA(3)))  // N+1: no forwarding, old value
		a.I(qpu.Mov(qpu.R1, qpu.RA(3)))  // N+2: new value
		a.I(qpu.LoadImm(qpu.RB(4), 7))   // and for file B
		a.I(qpu.Or(qpu.R2, qpu.RB(4), qpu.RB(4)))
		ending(a)
	})
	// Breaks rule 7, so only a permissive load runs it.
	if _, err := r.load(w, strictGeneral); err == nil || !strings.Contains(err.Error(), "rule 7") {
		t.Fatalf("strict load: %v, want a rule 7 violation", err)
	}
	r.q.RB(4)[0] = 5
	r.run(w, permissiveGeneral, nil)
	if got := r.q.Acc(0)[0]; got != 111 {
		t.Errorf("read at N+1 = %d, want the old 111", got)
	}
	if got := r.q.Acc(1)[0]; got != 222 {
		t.Errorf("read at N+2 = %d, want 222", got)
	}
	if got := r.q.Acc(2)[0]; got != 5 {
		t.Errorf("rb read at N+1 = %d, want the old 5", got)
	}
}

func TestPartialPacksKeepOtherBytes(t *testing.T) {
	r := newRig(t)
	w := asm(t, func(a *qpu.Asm) {
		a.I(qpu.LoadImm(qpu.RA(1), 0x11223344))
		a.I(qpu.LoadImm(qpu.R0, 0xAB))
		a.I(qpu.Mov(qpu.RA(1).Pack(qpu.Pack8B), qpu.R0)) // byte 1 only
		a.I(qpu.LoadImm(qpu.RA(2), 0xFFFFFFFF))
		a.I(qpu.Mov(qpu.RA(2).Pack(qpu.Pack16A), qpu.R0)) // low half, int: 0x00ab
		a.I(qpu.LoadImm(qpu.R1, 300))
		a.I(qpu.Mov(qpu.RA(3).Pack(qpu.Pack8CSat), qpu.R1)) // 300 saturates to 255 in byte 2
		a.I(qpu.LoadImmFloat(qpu.R2, 0.5))
		a.I(qpu.FMul(qpu.R3.ColourPack(qpu.PackMul8D), qpu.R2, qpu.R2)) // 0.25*255 = 63.75 -> 64 into byte 3 of r3
		a.I()
		ending(a)
	})
	r.q.RA(3)[0] = 0x01020304
	r.q.Acc(3)[0] = 0x55667788
	r.run(w, strictGeneral, nil)
	cases := []struct {
		name      string
		got, want uint32
	}{
		{"8b pack", r.q.RA(1)[0], 0x1122AB44},
		{"16a pack", r.q.RA(2)[0], 0xFFFF00AB},
		{"8c saturating pack", r.q.RA(3)[0], 0x01FF0304},
		{"mul colour 8d pack", r.q.Acc(3)[0], 0x40667788},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: %#08x, want %#08x", c.name, c.got, c.want)
		}
	}
}

func TestFloatPack16AndUnpack(t *testing.T) {
	r := newRig(t)
	w := asm(t, func(a *qpu.Asm) {
		a.I(qpu.LoadImmFloat(qpu.R0, 1.5))
		a.I(qpu.LoadImmFloat(qpu.R1, -2))
		a.I(qpu.FMax(qpu.RA(5).Pack(qpu.Pack16A), qpu.R0, qpu.R0)) // float result: float16 0x3e00
		a.I(qpu.FMax(qpu.RA(5).Pack(qpu.Pack16B), qpu.R1, qpu.R1)) // 0xc000 in the high half
		a.I()
		// Float op consuming an unpacked A value: float16 -> float32.
		a.I(qpu.FAdd(qpu.R2, qpu.RA(5).Unpack(qpu.Unpack16A), qpu.SmallFloat(1)))
		// Integer op: the high half sign-extended.
		a.I(qpu.Add(qpu.R3, qpu.RA(5).Unpack(qpu.Unpack16B), qpu.SmallInt(0)))
		ending(a)
	})
	r.run(w, strictGeneral, nil)
	if got := r.q.RA(5)[0]; got != 0xC0003E00 {
		t.Errorf("ra5 = %#08x, want 0xc0003e00", got)
	}
	if got := r.q.Acc(2)[0]; got != fbits(2.5) {
		t.Errorf("fadd(unpack16a, 1.0) = %#08x, want 2.5", got)
	}
	if got := r.q.Acc(3)[0]; got != 0xFFFFC000 {
		t.Errorf("add(unpack16b, 0) = %#08x, want sign-extended 0xffffc000", got)
	}
}

func TestR4UnpackColour(t *testing.T) {
	r := newRig(t)
	r.env.tmuData[0] = []vec{splat(0x80FF4000)}
	w := asm(t, func(a *qpu.Asm) {
		a.I(qpu.LoadImm(qpu.R0, 0))
		a.I(qpu.Mov(qpu.TMU0S, qpu.R0)) // a direct lookup, so no uniform
		a.I(qpu.SigLoadTMU0)
		a.I(qpu.FMax(qpu.R1, qpu.R4.Unpack(qpu.Unpack8B), qpu.R4.Unpack(qpu.Unpack8B)))
		a.I(qpu.FMax(qpu.R2, qpu.R4.Unpack(qpu.Unpack8DRep), qpu.R4.Unpack(qpu.Unpack8DRep)))
		ending(a)
	})
	r.run(w, strictGeneral, nil)
	// Byte 1 = 0x40 = 64 -> 64/255 rounded toward zero.
	if got, want := r.q.Acc(1)[0], rtz32(64.0/255); got != want {
		t.Errorf("r4.8b = %#08x, want %#08x (64/255)", got, want)
	}
	if got := r.q.Acc(2)[0]; got != 0x80808080 {
		t.Errorf("r4.8888 = %#08x, want 0x80808080", got)
	}
}

func TestPerElementLoadImmediates(t *testing.T) {
	r := newRig(t)
	var s, u [16]int8
	for i := range s {
		s[i] = int8(i%4) - 2 // -2, -1, 0, 1
		u[i] = int8(3 - i%4)
	}
	w := asm(t, func(a *qpu.Asm) {
		a.I(qpu.LoadImmPerElement(qpu.R0, s, true))
		a.I(qpu.LoadImmPerElement(qpu.R1, u, false))
		ending(a)
	})
	r.run(w, strictGeneral, nil)
	for i := 0; i < 16; i++ {
		if got := int32(r.q.Acc(0)[i]); got != int32(s[i]) {
			t.Errorf("signed element %d = %d, want %d", i, got, s[i])
		}
		if got := r.q.Acc(1)[i]; got != uint32(u[i]) {
			t.Errorf("unsigned element %d = %d, want %d", i, got, u[i])
		}
	}
}

// TestLoadImmediateBothDestinations: the immediate appears at both ALU
// outputs, each written under its own condition (AG "Load Immediate").
func TestLoadImmediateBothDestinations(t *testing.T) {
	r := newRig(t)
	w := asm(t, func(a *qpu.Asm) {
		a.I(qpu.LoadImm(qpu.R0, 0))
		a.I(qpu.And(qpu.Null, qpu.ElemNum, qpu.SmallInt(1)).SetFlags()) // Z on even elements
		a.I(qpu.LoadImm2(qpu.RA(0), qpu.R1, 77).If(qpu.CondZS))
		a.I()
		a.I(qpu.Mov(qpu.R2, qpu.RA(0)))
		ending(a)
	})
	r.q.RA(0)[1], r.q.Acc(1)[1] = 5, 6
	r.run(w, strictGeneral, nil)
	if r.q.Acc(2)[0] != 77 || r.q.Acc(1)[0] != 77 {
		t.Errorf("element 0: ra0=%d r1=%d, want 77 77", r.q.Acc(2)[0], r.q.Acc(1)[0])
	}
	if r.q.Acc(2)[1] != 5 || r.q.Acc(1)[1] != 6 {
		t.Errorf("element 1 (condition fails): ra0=%d r1=%d, want 5 6 unchanged", r.q.Acc(2)[1], r.q.Acc(1)[1])
	}
}

func TestVectorRotation(t *testing.T) {
	r := newRig(t)
	w := asm(t, func(a *qpu.Asm) {
		a.I(qpu.Mov(qpu.R0, qpu.ElemNum), qpu.MMov(qpu.RA(1), qpu.ElemNum))
		a.I()
		// Both operands in accumulators: a full rotation by 3.
		a.I(qpu.V8Min(qpu.R1, qpu.R0, qpu.R0).Rot(3))
		// An operand from the register file: rotation within quads, by
		// 13 & 3 = 1 (vc4asm addendum).
		a.I(qpu.V8Min(qpu.R2, qpu.RA(1), qpu.RA(1)).Rot(13))
		// Rotation by r5 element 0 (15): wraps element 0 to 15.
		a.I(qpu.LoadImm(qpu.R5Rep, 15))
		a.I()
		a.I(qpu.V8Min(qpu.R3, qpu.R0, qpu.R0).RotR5())
		ending(a)
	})
	r.run(w, strictGeneral, nil)
	for i := 0; i < 16; i++ {
		if got, want := r.q.Acc(1)[i], uint32((i-3)&15); got != want {
			t.Errorf("full rotation by 3: element %d = %d, want %d", i, got, want)
		}
		if got, want := r.q.Acc(2)[i], uint32(i&^3|(i-1)&3); got != want {
			t.Errorf("per-quad rotation: element %d = %d, want %d", i, got, want)
		}
		if got, want := r.q.Acc(3)[i], uint32((i+1)&15); got != want {
			t.Errorf("rotation by r5=15: element %d = %d, want %d", i, got, want)
		}
	}
}

func TestR5Writes(t *testing.T) {
	r := newRig(t)
	w := asm(t, func(a *qpu.Asm) {
		a.I(qpu.Mov(qpu.R5Quad, qpu.ElemNum))
		a.I(qpu.Mov(qpu.R0, qpu.R5))
		a.I(qpu.Add(qpu.R5Rep, qpu.ElemNum, qpu.SmallInt(7)))
		a.I(qpu.Mov(qpu.R1, qpu.R5))
		ending(a)
	})
	r.run(w, strictGeneral, nil)
	for i := 0; i < 16; i++ {
		if got, want := r.q.Acc(0)[i], uint32(i&^3); got != want {
			t.Errorf("r5quad: element %d = %d, want %d (element 0 of its quad)", i, got, want)
		}
		if got := r.q.Acc(1)[i]; got != 7 {
			t.Errorf("r5rep: element %d = %d, want 7 (element 0)", i, got)
		}
	}
}

// TestReadCache: one instruction naming UNIFORM_READ on both ports pops one
// uniform (Linux vc4_validate_shaders.c check_instruction_reads;
// doc/hardware.md#machine).
func TestReadCache(t *testing.T) {
	r := newRig(t)
	in := nopInst()
	in.OpAdd, in.WaddrAdd, in.CondAdd = qpu.AddAdd, qpu.WAcc0, qpu.CondAlways
	in.RaddrA, in.RaddrB, in.AddA, in.AddB = qpu.RUniform, qpu.RUniform, qpu.MuxA, qpu.MuxB
	next := nopInst()
	next.OpAdd, next.WaddrAdd, next.CondAdd = qpu.AddOr, qpu.WAcc1, qpu.CondAlways
	next.RaddrA, next.AddA, next.AddB = qpu.RUniform, qpu.MuxA, qpu.MuxA
	end := nopInst()
	end.Sig = qpu.SigProgramEnd
	w := []uint64{encode(in), encode(next), encode(end), encode(nopInst()), encode(nopInst())}
	addr := r.uniforms(10, 20, 30)
	r.run(w, strictGeneral, &Start{Uniforms: addr})
	if got := r.q.Acc(0)[0]; got != 20 {
		t.Errorf("unif + unif = %d, want 20 (one pop read by both ports)", got)
	}
	if got := r.q.Acc(1)[0]; got != 20 {
		t.Errorf("next uniform = %d, want 20", got)
	}
}

// TestUniformsAddressReset: the new stream starts after two instructions
// (AG §3 "Uniforms").
func TestUniformsAddressReset(t *testing.T) {
	r := newRig(t)
	addr := r.uniforms(1, 2, 3, 100, 200)
	w := asm(t, func(a *qpu.Asm) {
		a.I(qpu.Mov(qpu.R0, qpu.Unif)) // 1
		a.I(qpu.LoadImm(qpu.UnifAddr, addr+12))
		a.I(qpu.Mov(qpu.R1, qpu.Unif)) // too early: still the old stream (2)
		a.I()
		a.I(qpu.Mov(qpu.R2, qpu.Unif)) // new stream: 100
		a.I(qpu.Mov(qpu.R3, qpu.Unif)) // 200
		ending(a)
	})
	if _, err := r.load(w, strictGeneral); err == nil {
		t.Error("strict load accepted a uniform read right after a UNIFORMS_ADDRESS write")
	}
	r.run(w, permissiveGeneral, &Start{Uniforms: addr})
	got := []uint32{r.q.Acc(0)[0], r.q.Acc(1)[0], r.q.Acc(2)[0], r.q.Acc(3)[0]}
	want := []uint32{1, 2, 100, 200}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("uniform read %d = %d, want %d", i, got[i], want[i])
		}
	}
}

// TestUniformsStreamStartReused: threads that start at the same uniforms
// address reuse the memory span the last one found (setUniforms), but
// read the words as they are now, and the view's regions changing (a new
// job) makes the next thread look the address up again: a stream the new
// view does not grant faults.
func TestUniformsStreamStartReused(t *testing.T) {
	r := newRig(t)
	w := asm(t, func(a *qpu.Asm) {
		a.I(qpu.Mov(qpu.R0, qpu.Unif))
		ending(a)
	})
	p := r.mustLoad(w, strictGeneral)
	addr := r.uniforms(7)
	run := func() (uint32, error) {
		_, err := r.q.Run(p, r.env, &Start{Uniforms: addr, VPM: &r.vpm, VPMRead: Segment{0, 64}, VPMWrite: Segment{64, 64}})
		return r.q.Acc(0)[0], err
	}
	if got, err := run(); err != nil || got != 7 {
		t.Fatalf("first run: %d, %v; want 7", got, err)
	}
	r.uniforms(8)
	if got, err := run(); err != nil || got != 8 {
		t.Fatalf("second run, the word rewritten: %d, %v; want 8", got, err)
	}
	r.view.Reset()
	r.view.Add(r.code, mem.Read, "code")
	if got, err := run(); err == nil {
		t.Fatalf("a run after the view lost the uniforms read %d; want a fault", got)
	}
	r.view.Add(r.unif, mem.Read, "uniforms")
	if got, err := run(); err != nil || got != 8 {
		t.Fatalf("a run after the view granted them again: %d, %v; want 8", got, err)
	}
}

func TestSFULatencyAndValue(t *testing.T) {
	r := newRig(t)
	w := asm(t, func(a *qpu.Asm) {
		a.I(qpu.LoadImmFloat(qpu.R0, 4))
		a.I(qpu.Mov(qpu.SFURecip, qpu.R0)) // N
		a.I(qpu.Mov(qpu.R1, qpu.R4))       // N+1: old r4
		a.I(qpu.Mov(qpu.R2, qpu.R4))       // N+2: old r4
		a.I(qpu.Mov(qpu.R3, qpu.R4))       // N+3: 1/4
		ending(a)
	})
	r.q.Acc(4)[0] = 42
	r.run(w, permissiveGeneral, nil)
	if r.q.Acc(1)[0] != 42 || r.q.Acc(2)[0] != 42 {
		t.Errorf("r4 at N+1, N+2 = %d, %d, want the old 42", r.q.Acc(1)[0], r.q.Acc(2)[0])
	}
	if got := r.q.Acc(3)[0]; got != fbits(0.25) {
		t.Errorf("r4 at N+3 = %#08x, want 0.25", got)
	}
}

func TestBranches(t *testing.T) {
	r := newRig(t)
	w := asm(t, func(a *qpu.Asm) {
		a.I(qpu.LoadImm(qpu.R0, 0))
		a.I(qpu.LoadImm(qpu.R1, 0))
		a.I(qpu.Sub(qpu.Null, qpu.ElemNum, qpu.SmallInt(15)).SetFlags()) // Z only in element 15, N elsewhere
		a.I(qpu.Branch(qpu.BranchAllZS, "skip1"))                        // not all Z: not taken
		a.I(qpu.Add(qpu.R0, qpu.R0, qpu.SmallInt(1)))                    // delay slots always run
		a.I(qpu.Add(qpu.R0, qpu.R0, qpu.SmallInt(1)))
		a.I(qpu.Add(qpu.R0, qpu.R0, qpu.SmallInt(1)))
		a.I(qpu.Add(qpu.R1, qpu.R1, qpu.SmallInt(1))) // runs: branch not taken
		a.Label("skip1")
		a.I(qpu.Branch(qpu.BranchAnyZS, "skip2").Link(qpu.RA(7))) // element 15 has Z: taken
		a.I(qpu.Add(qpu.R0, qpu.R0, qpu.SmallInt(1)))
		a.I(qpu.Add(qpu.R0, qpu.R0, qpu.SmallInt(1)))
		a.I(qpu.Add(qpu.R0, qpu.R0, qpu.SmallInt(1)))
		a.I(qpu.Add(qpu.R1, qpu.R1, qpu.SmallInt(2))) // skipped
		a.Label("skip2")
		a.I(qpu.Branch(qpu.BranchAllNC, "skip3").Link(qpu.RA(8))) // N set in 0-14: not taken, no link
		a.I()
		a.I()
		a.I()
		a.Label("skip3")
		ending(a)
	})
	r.q.RA(8)[0] = 99
	r.run(w, strictGeneral, nil)
	if got := r.q.Acc(0)[0]; got != 6 {
		t.Errorf("delay slots: r0 = %d, want 6", got)
	}
	if got := r.q.Acc(1)[0]; got != 1 {
		t.Errorf("r1 = %d, want 1 (first branch not taken, second taken)", got)
	}
	// The taken branch is instruction 8; its link is the address of
	// instruction 12 (AG Table 10: PC + 4).
	if got, want := r.q.RA(7)[3], r.code.Addr+8*12; got != want {
		t.Errorf("link = %#x, want %#x", got, want)
	}
	if got := r.q.RA(8)[0]; got != 99 {
		t.Errorf("untaken branch wrote its link: ra8 = %#x", got)
	}
}

// TestBranchSpacing: two branches with fewer than two non-branch
// instructions between them — "Otherwise no branch is taken or the thread
// will crash" (vc4asm addendum, "Distance of branch instructions"). A
// strict load refuses the program (shaders/hazard); a permissive run takes
// neither branch and records the warning.
func TestBranchSpacing(t *testing.T) {
	r := newRig(t)
	w := asm(t, func(a *qpu.Asm) {
		a.I(qpu.LoadImm(qpu.R1, 0))
		a.I(qpu.Branch(qpu.BranchAlways, "first"))
		a.I(qpu.Branch(qpu.BranchAlways, "second"))
		a.I()
		a.I()
		a.I()
		a.I(qpu.Add(qpu.R1, qpu.R1, qpu.SmallInt(1))) // runs only when neither branch is taken
		a.Label("first")
		a.I(qpu.Add(qpu.R1, qpu.R1, qpu.SmallInt(2)))
		a.Label("second")
		a.I(qpu.Add(qpu.R1, qpu.R1, qpu.SmallInt(4)))
		ending(a)
	})
	if _, err := r.load(w, strictGeneral); err == nil {
		t.Error("strict load of adjacent branches succeeded")
	}
	r.q.Warnings = nil
	r.run(w, permissiveGeneral, nil)
	if got := r.q.Acc(1)[0]; got != 1+2+4 {
		t.Errorf("adjacent branches: r1 = %d, want 7 (neither taken: every add runs once)", got)
	}
	if len(r.q.Warnings) != 1 || r.q.Warnings[0].Rule != "branch spacing" {
		t.Errorf("warnings %v, want one branch-spacing warning", r.q.Warnings)
	}
}

// TestBranchRegisterUsesElement15 follows the addendum's measurement.
func TestBranchRegisterUsesElement15(t *testing.T) {
	r := newRig(t)
	var w []uint64
	br := qpu.Inst{Sig: qpu.SigBranch, CondBr: qpu.BranchAlways, Reg: true, RaddrA: 2, WaddrAdd: qpu.WNop, WaddrMul: qpu.WNop, Imm: 0}
	w = append(w, encode(nopInst()), encode(nopInst()), encode(br))
	one := nopInst()
	one.OpAdd, one.WaddrAdd, one.CondAdd, one.Sig = qpu.AddOr, qpu.WAcc0, qpu.CondAlways, qpu.SigSmallImm
	one.SmallImmed, one.AddA, one.AddB = 1, qpu.MuxB, qpu.MuxB
	two := one
	two.SmallImmed = 2
	end := nopInst()
	end.Sig = qpu.SigProgramEnd
	w = append(w, encode(nopInst()), encode(nopInst()), encode(nopInst()), encode(one), encode(two), encode(end), encode(nopInst()), encode(nopInst()))
	// Target = ra2 element 15 = address of the "two" instruction (index 7).
	for i := range r.q.RA(2) {
		r.q.RA(2)[i] = r.code.Addr + 8*6 // element 0..14 point at "one"
	}
	r.q.RA(2)[15] = r.code.Addr + 8*7
	r.run(w, permissiveGeneral, nil)
	if got := r.q.Acc(0)[0]; got != 2 {
		t.Errorf("r0 = %d: the register branch should use element 15 (vc4asm addendum)", got)
	}
}

func TestProgramEndDelaySlotsAndLocation14(t *testing.T) {
	r := newRig(t)
	w := asm(t, func(a *qpu.Asm) {
		a.I(qpu.LoadImm(qpu.R0, 1))
		a.I(qpu.LoadImm(qpu.R1, 1))
		a.I(qpu.Add(qpu.R0, qpu.R0, qpu.R0), qpu.SigProgramEnd) // 2
		a.I(qpu.Add(qpu.R0, qpu.R0, qpu.R0))                    // 4: delay slot 1
		a.I(qpu.Add(qpu.R0, qpu.R0, qpu.R0))                    // 8: delay slot 2
		a.I(qpu.Add(qpu.R0, qpu.R0, qpu.R0))                    // never runs (not even fetched)
	})
	r.q.RA(14)[0] = 1234
	res := r.run(w, strictGeneral, nil)
	if got := r.q.Acc(0)[0]; got != 8 {
		t.Errorf("r0 = %d, want 8: the two delay slots run, nothing after", got)
	}
	if res.Instructions != 5 {
		t.Errorf("executed %d instructions, want 5", res.Instructions)
	}
	if got := r.q.RA(14)[0]; got != poison {
		t.Errorf("ra14 after program end = %#x, want the next thread's W (poison)", got)
	}
}

func TestVaryingsAndR5(t *testing.T) {
	r := newRig(t)
	r.env.varyVP = []vec{seq(func(i int) uint32 { return fbits(float32(i)) })}
	r.env.varyC = []vec{splat(fbits(100))}
	w := asm(t, func(a *qpu.Asm) {
		a.I()
		a.I()
		// Mesa's interpolation: vary * W, then + C from r5. The read
		// instruction itself still sees the old r5.
		a.I(qpu.Mov(qpu.R1, qpu.R5), qpu.FMul(qpu.R0, qpu.RA(15), qpu.Vary))
		a.I(qpu.FAdd(qpu.R0, qpu.R0, qpu.R5))
		ending(a)
	})
	s := &Start{W: splat(fbits(2))}
	r.q.Acc(5)[0] = 7
	r.run(w, strictFragment, s)
	for i := 0; i < 16; i++ {
		if got, want := r.q.Acc(0)[i], fbits(float32(2*i+100)); got != want {
			t.Errorf("element %d: vary*W + C = %#08x, want %#08x", i, got, want)
		}
	}
	if got := r.q.Acc(1)[0]; got != 7 {
		t.Errorf("r5 in the reading instruction = %d, want the old 7", got)
	}
}

func TestTMUParametersAndDirectLookups(t *testing.T) {
	r := newRig(t)
	addr := r.uniforms(0xA0, 0xA1, 0xB0, 0xB1, 0xB2)
	r.env.tmuData[0] = []vec{splat(1), splat(2)}
	r.env.tmuData[1] = []vec{splat(3)}
	w := asm(t, func(a *qpu.Asm) {
		a.I(qpu.LoadImmFloat(qpu.R0, 0.5))
		a.I(qpu.Mov(qpu.TMU0T, qpu.R0)) // pops p0 = 0xA0
		a.I(qpu.Mov(qpu.TMU0S, qpu.R0)) // pops p1 = 0xA1, submits
		a.I(qpu.Mov(qpu.TMU0S, qpu.R0)) // alone: direct lookup, no uniform
		a.I(qpu.Mov(qpu.TMU1R, qpu.R0)) // TMU1: p0 = 0xB0
		a.I(qpu.Mov(qpu.TMU1B, qpu.R0)) // p1 = 0xB1
		a.I(qpu.Mov(qpu.TMU1S, qpu.R0)) // p2 = 0xB2
		a.I(qpu.SigLoadTMU0)
		a.I(qpu.Mov(qpu.R1, qpu.R4), qpu.SigLoadTMU0)
		a.I(qpu.Mov(qpu.R2, qpu.R4), qpu.SigLoadTMU1)
		a.I(qpu.Mov(qpu.R3, qpu.R4))
		ending(a)
	})
	r.run(w, strictGeneral, &Start{Uniforms: addr})
	want := []tmuWrite{
		{0, TMUT, splat(fbits(0.5)), 0xFFFF, 0xA0, false},
		{0, TMUS, splat(fbits(0.5)), 0xFFFF, 0xA1, false},
		{0, TMUS, splat(fbits(0.5)), 0xFFFF, 0, true},
		{1, TMUR, splat(fbits(0.5)), 0xFFFF, 0xB0, false},
		{1, TMUB, splat(fbits(0.5)), 0xFFFF, 0xB1, false},
		{1, TMUS, splat(fbits(0.5)), 0xFFFF, 0xB2, false},
	}
	if len(r.env.tmuWrites) != len(want) {
		t.Fatalf("%d TMU writes, want %d", len(r.env.tmuWrites), len(want))
	}
	for i := range want {
		if r.env.tmuWrites[i] != want[i] {
			t.Errorf("TMU write %d = %+v, want %+v", i, r.env.tmuWrites[i], want[i])
		}
	}
	if r.q.Acc(1)[0] != 1 || r.q.Acc(2)[0] != 2 || r.q.Acc(3)[0] != 3 {
		t.Errorf("ldtmu results r1 r2 r3 = %d %d %d, want 1 2 3", r.q.Acc(1)[0], r.q.Acc(2)[0], r.q.Acc(3)[0])
	}

	// QPU 2 of a slice sees the TMUs swapped (AG §4), unless TMU_NOSWAP.
	r2 := newRig(t)
	r2.q.Num = 2
	r2.env.tmuData[1] = []vec{splat(9)}
	w = asm(t, func(a *qpu.Asm) {
		a.I(qpu.LoadImm(qpu.R0, 0))
		a.I(qpu.Mov(qpu.TMU0S, qpu.R0))
		a.I(qpu.SigLoadTMU0)
		ending(a)
	})
	r2.run(w, strictGeneral, nil)
	if len(r2.env.tmuWrites) != 1 || r2.env.tmuWrites[0].unit != 1 || r2.q.Acc(4)[0] != 9 {
		t.Errorf("QPU 2: writes %+v r4 %d, want TMU0 accesses to reach TMU1", r2.env.tmuWrites, r2.q.Acc(4)[0])
	}
}

func TestTLBWritesScoreboardAndMSFlags(t *testing.T) {
	r := newRig(t)
	r.env.tlbData = []vec{splat(0x11)}
	w := asm(t, func(a *qpu.Asm) {
		a.I()
		a.I()
		a.I(qpu.Mov(qpu.TLBZ, qpu.RB(15)))
		a.I()
		a.I()
		a.I(qpu.Mov(qpu.R0, qpu.MSFlags))
		a.I(qpu.LoadImm(qpu.TLBColourAll, 0xFF00FF00))
		a.I(qpu.SigColourLoad)
		a.I(qpu.Mov(qpu.R1, qpu.R4), qpu.SigProgramEnd)
		a.I()
		a.I(qpu.SigScoreboardUnlock)
	})
	s := &Start{Z: splat(0x123456), MSFlags: splat(0xF)}
	r.run(w, strictFragment, s)
	wantLog := "sbwait tlb_z tlb_colour_all tlbload colour sbdone"
	if got := strings.Join(r.env.log, " "); got != wantLog {
		t.Errorf("Env calls: %s\nwant %s", got, wantLog)
	}
	for i := 0; i < 16; i++ {
		want := uint32(0xF)
		if i%2 == 1 {
			want = 0
		}
		if got := r.q.Acc(0)[i]; got != want {
			t.Errorf("MS_FLAGS element %d after the Z test = %#x, want %#x", i, got, want)
		}
	}
	if r.env.tlbWrites[0].v != splat(0x123456) {
		t.Errorf("TLB Z write got %v", r.env.tlbWrites[0].v)
	}
	if r.q.Acc(1)[0] != 0x11 {
		t.Errorf("colour load: r4 = %#x", r.q.Acc(1)[0])
	}
}

func TestThreadSwitchClobbersAccumulators(t *testing.T) {
	r := newRig(t)
	w := asm(t, func(a *qpu.Asm) {
		a.I(qpu.LoadImm(qpu.R0, 5))
		a.I(qpu.LoadImm(qpu.RA(0), 6))
		a.I(qpu.Mov(qpu.Null, qpu.R0).SetFlags(), qpu.SigLastThreadSwitch)
		a.I() // the two delay slots still see r0
		a.I(qpu.Mov(qpu.RA(1), qpu.R0))
		a.I(qpu.Mov(qpu.R2, qpu.R0)) // after the switch: whatever the other thread left
		a.I(qpu.Mov(qpu.R3, qpu.RA(0)))
		ending(a)
	})
	opts := Options{Stage: strictFragment.Stage, Threaded: true}
	r.run(w, opts, nil)
	if r.q.RA(1)[0] != 5 {
		t.Errorf("delay slot read r0 = %d, want 5", r.q.RA(1)[0])
	}
	if r.q.Acc(2)[0] == 5 {
		t.Error("r0 survived a thread switch; the hardware does not preserve accumulators (AG §3)")
	}
	if r.q.Acc(3)[0] != 6 {
		t.Errorf("ra0 after the switch = %d, want 6 (register files are kept)", r.q.Acc(3)[0])
	}
	// A single-threaded record with a thread switch is refused at run time.
	if _, err := r.q.Run(r.mustLoad(w, strictFragment), r.env, &Start{}); err == nil {
		t.Error("thread switch in a single-threaded program ran")
	}
}

// TestThreadSwitchKeepsFlags checks that a thread reads, after its
// switches, the flags it set before them, as Mesa's vc4 compiler expects:
// its repeated-SF peephole (vc4_opt_peephole_sf.c) drops a flag update
// that repeats one made before a THRSW, so that a shader selecting between
// two uniform-indexed values (piglit's fs-input-array-*-index-rd, which
// pass on a Pi 3 in Mesa CI's record) reads flags set three switches
// earlier (doc/hardware.md#threads says why the model keeps them).
func TestThreadSwitchKeepsFlags(t *testing.T) {
	r := newRig(t)
	w := asm(t, func(a *qpu.Asm) {
		a.I(qpu.Sub(qpu.Null, qpu.ElemNum, qpu.SmallInt(8)).SetFlags()) // N in 0-7, Z in 8
		a.I(qpu.LoadImm(qpu.RA(1), 0))
		a.I(qpu.LoadImm(qpu.RB(1), 0))
		a.I(qpu.SigThreadSwitch)
		a.I()
		a.I()
		a.I(qpu.SigLastThreadSwitch)
		a.I()
		a.I()
		a.I(qpu.LoadImm(qpu.RA(1), 1).If(qpu.CondNS))
		a.I(qpu.LoadImm(qpu.RB(1), 1).If(qpu.CondZS))
		ending(a)
	})
	r.run(w, Options{Stage: strictFragment.Stage, Threaded: true}, nil)
	if n, z, _ := r.q.Flags(); n != 0x00FF || z != 0x0100 {
		t.Errorf("flags after two switches: N %#04x Z %#04x, want N 0x00ff Z 0x0100 as set before them", n, z)
	}
	for i := range 16 {
		wantN, wantZ := uint32(0), uint32(0)
		if i < 8 {
			wantN = 1
		}
		if i == 8 {
			wantZ = 1
		}
		if got := r.q.RA(1)[i]; got != wantN {
			t.Errorf("element %d: mov.ns after the switches wrote %d, want %d", i, got, wantN)
		}
		if got := r.q.RB(1)[i]; got != wantZ {
			t.Errorf("element %d: mov.zs after the switches wrote %d, want %d", i, got, wantZ)
		}
	}
}

func TestThreadedProgramRegisterHalf(t *testing.T) {
	r := newRig(t)
	w := asm(t, func(a *qpu.Asm) {
		a.I(qpu.LoadImm(qpu.RA(20), 5))
		ending(a)
	})
	_, err := r.load(w, Options{Stage: strictFragment.Stage, Threaded: true})
	if err == nil || !strings.Contains(err.Error(), "ra20") {
		t.Errorf("threaded program writing ra20 loaded: %v", err)
	}
}

func TestHostInterruptAndMutex(t *testing.T) {
	r := newRig(t)
	w := asm(t, func(a *qpu.Asm) {
		a.I(qpu.Mov(qpu.R0, qpu.Mutex))
		a.I(qpu.Mov(qpu.Mutex, qpu.R0))
		a.I(qpu.LoadImm(qpu.HostInt, 1))
		ending(a)
	})
	res := r.run(w, strictGeneral, nil)
	if !res.HostInterrupt {
		t.Error("HOST_INT write not reported")
	}
	if r.q.Acc(0)[5] != 5 {
		t.Errorf("mutex read = %d, want the element number (AG §3)", r.q.Acc(0)[5])
	}
}

func TestMemoryFaultsAreErrors(t *testing.T) {
	r := newRig(t)
	// A program with no program end runs off its buffer: the fetch faults.
	w := make([]uint64, (64<<10)/8)
	for i := range w {
		w[i] = encode(nopInst())
	}
	_, err := r.load(w, strictGeneral)
	var f *mem.Fault
	if !errors.As(err, &f) {
		t.Fatalf("load of an endless program: %v, want a memory fault", err)
	}
	if n, _ := r.view.Faults(); n == 0 {
		t.Error("the View recorded no fault")
	}
	// Uniform reads outside the job's memory fail the run.
	w = asm(t, func(a *qpu.Asm) {
		a.I(qpu.Mov(qpu.R0, qpu.Unif))
		ending(a)
	})
	p := r.mustLoad(w, strictGeneral)
	if _, err := r.q.Run(p, r.env, &Start{Uniforms: 0x1000}); !errors.As(err, &f) {
		t.Errorf("uniform read at 0x1000: %v, want a memory fault", err)
	}
}

func TestNopReadReturnsLastValues(t *testing.T) {
	r := newRig(t)
	in := nopInst()
	in.OpAdd, in.WaddrAdd, in.CondAdd = qpu.AddOr, qpu.WAcc0, qpu.CondAlways
	in.RaddrA, in.AddA, in.AddB = qpu.RElementQPU, qpu.MuxA, qpu.MuxA
	nop39 := in
	nop39.RaddrA, nop39.WaddrAdd = qpu.RNop, qpu.WAcc1
	end := nopInst()
	end.Sig = qpu.SigProgramEnd
	r.run([]uint64{encode(in), encode(nop39), encode(end), encode(nopInst()), encode(nopInst())}, strictGeneral, nil)
	for i := 0; i < 16; i++ {
		if got, want := r.q.Acc(1)[i], uint32(12+i%4); got != want {
			t.Errorf("ra39 element %d = %d, want %d (vc4asm addendum)", i, got, want)
		}
	}
}

func TestRunDoesNotAllocate(t *testing.T) {
	r := newRig(t)
	addr := r.uniforms(1, 2, 3, 4)
	w := asm(t, func(a *qpu.Asm) {
		a.I(qpu.Mov(qpu.R0, qpu.Unif))
		a.I(qpu.FMul(qpu.R1, qpu.RA(15), qpu.Vary))
		a.I(qpu.FAdd(qpu.R1, qpu.R1, qpu.R5))
		a.I(qpu.Mov(qpu.TMU0T, qpu.R1))
		a.I(qpu.Mov(qpu.TMU0S, qpu.R1))
		a.I(qpu.SigLoadTMU0)
		a.I(qpu.Mov(qpu.TLBColourAll, qpu.R4))
		a.I(qpu.SigProgramEnd)
		a.I()
		a.I(qpu.SigScoreboardUnlock)
	})
	p := r.mustLoad(w, strictFragment)
	env := &countingEnv{}
	s := &Start{Uniforms: addr}
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := r.q.Run(p, env, s); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Run allocates %v times per call", allocs)
	}
}

// countingEnv is an Env that does nothing but count, without allocating.
type countingEnv struct{ calls int }

func (e *countingEnv) Varying(vp, c *[16]uint32) error { e.calls++; return nil }
func (e *countingEnv) TMUWrite(int, TMUReg, *[16]uint32, uint16, uint32, bool) error {
	e.calls++
	return nil
}
func (e *countingEnv) TMULoad(unit int, r4 *[16]uint32) error { e.calls++; return nil }
func (e *countingEnv) TLBWrite(TLBReg, *[16]uint32, uint16, *[16]uint32) error {
	e.calls++
	return nil
}
func (e *countingEnv) TLBLoad(TLBLoad, *[16]uint32) error { e.calls++; return nil }
func (e *countingEnv) Scoreboard(bool) error              { e.calls++; return nil }
func (e *countingEnv) Semaphore(int, bool) error          { e.calls++; return nil }

// TestStaleMulResult reproduces the vc4asm addendum's example of "mnop":
// a mul NOP with a write address writes the last mul result's elements
// 12-15, replicated per quad.
func TestStaleMulResult(t *testing.T) {
	r := newRig(t)
	vals := [16]int8{0, 1, 2, 3, 1, 2, 3, 0, 2, 3, 0, 1, 3, 0, 1, 2}
	w := asm(t, func(a *qpu.Asm) {
		a.I(qpu.LoadImmPerElement(qpu.R0, vals, false))
		a.I(qpu.MV8Adds(qpu.R1, qpu.ElemNum, qpu.R0))
	})
	mnop := nopInst()
	mnop.WaddrMul, mnop.CondMul = qpu.WAcc2, qpu.CondAlways
	end := nopInst()
	end.Sig = qpu.SigProgramEnd
	w = append(w, encode(mnop), encode(end), encode(nopInst()), encode(nopInst()))
	r.run(w, permissiveGeneral, nil)
	want1 := []uint32{0, 2, 4, 6, 5, 7, 9, 7, 10, 12, 10, 12, 15, 13, 15, 17}
	for i := 0; i < 16; i++ {
		if got := r.q.Acc(1)[i]; got != want1[i] {
			t.Errorf("v8adds element %d = %d, want %d", i, got, want1[i])
		}
		if got := r.q.Acc(2)[i]; got != want1[12+i%4] {
			t.Errorf("mnop element %d = %d, want %d", i, got, want1[12+i%4])
		}
	}
}

// TestUnmappedReads: unmapped I/O read addresses return the element number
// (file A) or the QPU number (file B), AG §3 "Inter-Processor Mutex".
func TestUnmappedReads(t *testing.T) {
	r := newRig(t)
	r.q.Num = 9
	in := nopInst()
	in.OpAdd, in.WaddrAdd, in.CondAdd = qpu.AddOr, qpu.WAcc0, qpu.CondAlways
	in.RaddrA, in.AddA, in.AddB = 33, qpu.MuxA, qpu.MuxA
	in.OpMul, in.WaddrMul, in.CondMul = qpu.MulV8Min, qpu.WAcc1, qpu.CondAlways
	in.RaddrB, in.MulA, in.MulB = 60, qpu.MuxB, qpu.MuxB
	end := nopInst()
	end.Sig = qpu.SigProgramEnd
	r.run([]uint64{encode(in), encode(end), encode(nopInst()), encode(nopInst())}, strictGeneral, nil)
	if r.q.Acc(0)[6] != 6 || r.q.Acc(1)[6] != 9 {
		t.Errorf("unmapped reads: A %d (want element 6), B %d (want QPU 9)", r.q.Acc(0)[6], r.q.Acc(1)[6])
	}
}

// TestWriteDelayAcrossJumps: a register written by the instruction
// executed just before a jump lands still reads its old value at the
// target, as after any write (AG §3: no forwarding paths). The write is
// the branch's third delay slot, not the target's predecessor in address
// order, so hazard rule 7 does not see it: the loader must keep the delay
// for such a program (Program.jumpsNeedWriteDelay), and may drop it when
// the target reads another register.
func TestWriteDelayAcrossJumps(t *testing.T) {
	for _, c := range []struct {
		read  int    // the register of file A the target reads
		want  uint32 // what it reads
		delay bool   // the loader keeps the write delay
	}{
		{read: 5, want: 1, delay: true},
		{read: 6, want: 2, delay: false},
	} {
		r := newRig(t)
		w := asm(t, func(a *qpu.Asm) {
			a.I(qpu.LoadImm(qpu.RA(5), 1))
			a.I(qpu.LoadImm(qpu.RA(6), 2))
			a.I()
			a.I(qpu.Branch(qpu.BranchAlways, "target"))
			a.I()
			a.I()
			a.I(qpu.LoadImm(qpu.RA(5), 7)) // the third delay slot
			a.I(qpu.LoadImm(qpu.R1, 99))   // skipped
			a.Label("target")
			a.I(qpu.Mov(qpu.R0, qpu.RA(c.read)))
			ending(a)
		})
		if p := r.mustLoad(w, strictGeneral); p.delayWrites != c.delay {
			t.Errorf("target reads ra%d: delayWrites = %v, want %v", c.read, p.delayWrites, c.delay)
		}
		r.run(w, strictGeneral, nil)
		if got := r.q.Acc(0)[0]; got != c.want {
			t.Errorf("target reads ra%d: r0 = %d, want %d", c.read, got, c.want)
		}
		if got := r.q.Acc(1)[0]; got == 99 {
			t.Error("the branch was not taken")
		}
	}

	// A branch in the third delay slot of another: its own delay slots
	// are the first jump's target and the two after it, so the write in
	// the last of those precedes its landing.
	r := newRig(t)
	w := asm(t, func(a *qpu.Asm) {
		a.I(qpu.LoadImm(qpu.RA(5), 1))
		a.I(qpu.LoadImm(qpu.R1, 0))
		a.I()
		a.I(qpu.Branch(qpu.BranchAlways, "first"))
		a.I()
		a.I()
		a.I(qpu.Branch(qpu.BranchAlways, "second")) // lands after "first"+2
		a.I(qpu.LoadImm(qpu.R1, 99))                // skipped
		a.Label("first")
		a.I()
		a.I()
		a.I(qpu.LoadImm(qpu.RA(5), 7))
		a.I(qpu.LoadImm(qpu.R1, 98)) // skipped
		a.Label("second")
		a.I(qpu.Mov(qpu.R0, qpu.RA(5)))
		ending(a)
	})
	if p := r.mustLoad(w, strictGeneral); !p.delayWrites {
		t.Error("chained branches: delayWrites = false, want true")
	}
	r.run(w, strictGeneral, nil)
	if got, skipped := r.q.Acc(0)[0], r.q.Acc(1)[0]; got != 1 || skipped != 0 {
		t.Errorf("chained branches: r0 = %d, r1 = %d; want 1 and 0", got, skipped)
	}
}
