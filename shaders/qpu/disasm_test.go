package qpu

import (
	"strings"
	"testing"
)

// Listing forms, from hand-built instructions (fields set directly, not
// through the assembler), each checking one feature of the format.
func TestListingForms(t *testing.T) {
	alu := func(f func(*Inst)) Inst {
		in := Inst{Sig: SigNone, WaddrAdd: WNop, WaddrMul: WNop, RaddrA: RNop, RaddrB: RNop}
		f(&in)
		return in
	}
	cases := []struct {
		in   Inst
		want string
	}{
		// Regfile-A unpack on a file-A operand; pack on the file-A write.
		{alu(func(in *Inst) {
			in.OpAdd, in.CondAdd, in.WaddrAdd, in.RaddrA, in.AddA, in.AddB = AddFAdd, CondAlways, 3, 9, MuxA, MuxR1
			in.Unpack, in.Pack = Unpack16B, Pack8ASat
		}), "fadd ra3.8a.sat, ra9.16b, r1 ; nop"},
		// pm = 1: r4 unpack, mul colour pack; the regfile-A pack is not shown.
		{alu(func(in *Inst) {
			in.PM, in.Unpack, in.Pack = true, Unpack8C, PackMul8888
			in.OpMul, in.CondMul, in.WaddrMul, in.MulA, in.MulB = MulFMul, CondAlways, WAcc2, MuxR4, MuxR3
		}), "nop ; fmul r2.8888, r4.8c, r3"},
		// Conditions, set flags from the mul when the add is idle.
		{alu(func(in *Inst) {
			in.SF, in.OpMul, in.CondMul, in.WaddrMul, in.MulA, in.MulB = true, MulMul24, CondNC, 7, MuxR0, MuxR1
		}), "nop ; mul24.sf.nc rb7, r0, r1"},
		// .sf on the add when it is busy; write swap puts the add in file B.
		{alu(func(in *Inst) {
			in.SF, in.WS = true, true
			in.OpAdd, in.CondAdd, in.WaddrAdd, in.AddA, in.AddB = AddSub, CondNever, 2, MuxR0, MuxR1
			in.OpMul, in.CondMul, in.WaddrMul, in.MulA, in.MulB = MulV8Min, CondAlways, 4, MuxR2, MuxR2
		}), "sub.sf.never rb2, r0, r1 ; mov ra4, r2"},
		// Small immediates: negative integer, rotation by r5.
		{alu(func(in *Inst) {
			in.Sig, in.SmallImmed = SigSmallImm, 28
			in.OpAdd, in.CondAdd, in.WaddrAdd, in.AddA, in.AddB = AddShl, CondAlways, WAcc0, MuxR0, MuxB
		}), "shl r0, r0, -4 ; nop"},
		{alu(func(in *Inst) {
			in.Sig, in.SmallImmed = SigSmallImm, SmallImmRotateR5
			in.OpMul, in.CondMul, in.WaddrMul, in.MulA, in.MulB = MulFMul, CondAlways, WAcc1, MuxR2, MuxR3
		}), "nop ; fmul r1, r2, r3, rot_r5"},
		// I/O names that differ between files; a NOP op with a write address.
		{alu(func(in *Inst) {
			in.OpAdd, in.CondAdd, in.WaddrAdd, in.RaddrA, in.AddA, in.AddB = AddOr, CondAlways, WQuadXY, RPixelCoord, MuxA, MuxA
			in.WaddrMul, in.RaddrB = WVPMVCDSetup, RMSFlagsRev
		}), "mov quad_x, x_coord ; nop vw_setup"},
		{alu(func(in *Inst) {
			in.Sig, in.OpAdd, in.CondAdd, in.WaddrAdd, in.RaddrB, in.AddA, in.AddB = SigColourLoad, AddOr, CondAlways, WAcc5, RMSFlagsRev, MuxB, MuxB
		}), "mov r5quad, rev_flag ; nop ; loadc"},
		{alu(func(in *Inst) {
			in.OpAdd, in.CondAdd, in.WaddrAdd, in.RaddrA, in.AddA, in.AddB = AddFToI, CondAlways, WAcc0, 33, MuxA, MuxA
		}), "ftoi r0, ra_io33 ; nop"},
		// Load immediate: two destinations with conditions, a float value.
		{Inst{Sig: SigLoadImm, WaddrAdd: 1, WaddrMul: WAcc3, CondAdd: CondZC, CondMul: CondAlways, RaddrA: RNop, RaddrB: RNop, Imm: 0x3f000000},
			"ldi ra1.zc, r3, 0x3f000000 (0.5)"},
		{Inst{Sig: SigLoadImm, WaddrAdd: WNop, WaddrMul: WTMU0S, CondMul: CondAlways, RaddrA: RNop, RaddrB: RNop, Imm: 0},
			"ldi -, tmu0_s, 0x00000000"},
		{Inst{Sig: SigLoadImm, LoadMode: 6, WaddrAdd: WNop, WaddrMul: WNop, RaddrA: RNop, RaddrB: RNop, Imm: 1},
			"ldi.reserved6 -, 0x00000001"},
		// Semaphore with extra immediate bits; release.
		{Inst{Sig: SigLoadImm, LoadMode: LoadSemaphore, WaddrAdd: WNop, WaddrMul: WNop, RaddrA: RNop, RaddrB: RNop,
			Imm: 0x100 | 9, Semaphore: 9}, "srel -, 9 ; imm 0x00000109"},
		// Branches: absolute with register, relative with a negative offset.
		{Inst{Sig: SigBranch, CondBr: BranchAllCC, Reg: true, RaddrA: 5, WaddrAdd: WNop, WaddrMul: WNop, RaddrB: RNop, Imm: 0x10},
			"bra.allnc -, -, ra5 + 16"},
		{Inst{Sig: SigBranch, CondBr: BranchAlways, Rel: true, RaddrA: 3, WaddrAdd: WNop, WaddrMul: 2, WS: true, RaddrB: RNop, Imm: 0xffffffe0},
			"brr -, ra2, -32 ; raddr_a 3"},
		// A breakpoint and a reserved add opcode still print.
		{alu(func(in *Inst) {
			in.Sig, in.OpAdd, in.CondAdd, in.WaddrAdd = SigBreakpoint, 27, CondAlways, WAcc0
		}), "reserved27 r0, r0, r0 ; nop ; bkpt"},
	}
	for _, c := range cases {
		if got := c.in.String(); got != c.want {
			t.Errorf("listing %q, want %q (%+v)", got, c.want, c.in)
		}
		// Every hand-built instruction survives encoding.
		if d := Decode(c.in.Encode()); d.String() != c.want {
			t.Errorf("after Encode/Decode: %q, want %q", d.String(), c.want)
		}
	}
}

func TestDisassembleProgram(t *testing.T) {
	var a Asm
	a.Label("top")
	for i := 0; i < 10; i++ {
		a.I()
	}
	a.I(Branch(BranchAnyNS, "top"))
	a.I()
	a.I()
	a.I(SigProgramEnd)
	a.I()
	a.I()
	got := Disassemble(a.MustAssemble())
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != 16 || lines[0] != " 0: nop ; nop" || lines[10] != "10: brr.anyn -, -, -112 (@0)" {
		t.Errorf("listing:\n%s", got)
	}
	if Listing(DecodeProgram(nil, a.MustAssemble())) != got {
		t.Error("Listing and Disassemble differ")
	}
}

// The helpers the validator and interpreter use, on the kinds where a
// careless reading of the fields would mislead.
func TestHelpersByKind(t *testing.T) {
	ldi := Decode(loadImmWord(t, LoadImm(RB(3), 32)))
	if ldi.ReadsUniform() || ldi.UsesPhysical(FileA, 0) || !ldi.WritesPhysical(FileB, 3) || ldi.AddUsed() {
		t.Errorf("load immediate of 32 into rb3: %+v", ldi)
	}
	if _, n := ldi.Operands(); n != 0 {
		t.Error("a load immediate has no operands")
	}
	br := Inst{Sig: SigBranch, Reg: true, RaddrA: 4, Rel: true, WaddrAdd: WNop, WaddrMul: WNop}
	if !br.UsesPhysical(FileA, 4) || br.Reads(FileB, 4) || br.ReadsUniform() {
		t.Error("register branch reads ra4 only")
	}
	if _, ok := br.BranchTarget(0); ok {
		t.Error("a register branch has no static target")
	}
	if !(&Inst{Sig: SigBranch, RaddrA: 3}).SetsFlags() {
		t.Error("odd raddr_a on a branch sets flags (vc4asm addendum)")
	}
	small := Inst{Sig: SigSmallImm, SmallImmed: 32, RaddrA: RNop, RaddrB: RNop}
	if small.Reads(FileB, 32) {
		t.Error("sig 13 does not read raddr_b")
	}
	nopWithMuxes := Inst{Sig: SigNone, RaddrA: 7, AddA: MuxA, MulA: MuxA}
	if nopWithMuxes.UsesPhysical(FileA, 7) {
		t.Error("NOP ops use no operands")
	}
}

func loadImmWord(t *testing.T, l LoadImmItem) uint64 {
	t.Helper()
	var a Asm
	a.I(l)
	w, err := a.Assemble()
	if err != nil {
		t.Fatal(err)
	}
	return w[0]
}
