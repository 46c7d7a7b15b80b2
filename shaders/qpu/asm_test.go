package qpu

import (
	"strings"
	"testing"
)

// The assembler reproduces the known words whose every bit is canonical
// (the JayStation post's words set pm and ws where it does not matter, so
// only the clean variants — Mesa's NOP, PeterLemon's words and the cube
// demo post's — are used; see known_test.go).
func TestAssembleKnownWords(t *testing.T) {
	cases := []struct {
		name   string
		items  []Item
		lo, hi uint32
	}{
		{"nop", nil, 0x009E7000, 0x100009E7},
		{"fmul r0, ra15, vary", []Item{FMul(R0, RA(15), Vary)}, 0x203E3037, 0x100049E0},
		{"fadd tmu0_t, r1, r5", []Item{FAdd(TMU0T, R1, R5)}, 0x019E7340, 0x10020E67},
		{"mov tlb_colour_all, r4 ; thrend", []Item{Mov(TLBColourAll, R4), SigProgramEnd}, 0x159E7900, 0x30020BA7},
		{"mov tlb_colour_all, unif", []Item{Mov(TLBColourAll, Unif)}, 0x15827D80, 0x10020BA7},
		{"mov r0, elem_num", []Item{Mov(R0, ElemNum)}, 0x159a7d80, 0x10020827},
		{"ldi r1", []Item{LoadImm(R1, 0xff000000)}, 0xff000000, 0xe0020867},
		{"ldi r1.zs", []Item{LoadImm(R1, 0xffffffff).If(CondZS)}, 0xffffffff, 0xe0040867},
		{"sub.sf r2, r0, 0", []Item{Sub(R2, R0, SmallInt(0)).SetFlags()}, 0x0d9c01c0, 0xd00228a7},
		{"or tlb_colour_all, r1, r1", []Item{Mov(TLBColourAll, R1)}, 0x159e7240, 0x10020ba7},
		{"sbdone", []Item{SigScoreboardUnlock}, 0x009e7000, 0x500009e7},
		{"thrend", []Item{SigProgramEnd}, 0x009e7000, 0x300009e7},
		{"v8min.zs ra0, r0, r0, rot15", []Item{V8Min(RA(0), R0, R0).Rot(15).If(CondZS)}, 0x809ff000, 0xd00099c0},
		{"fsub.zs ra0, ra0, r0", []Item{FSub(RA(0), RA(0), R0).If(CondZS)}, 0x02027c00, 0x10040027},
	}
	for _, c := range cases {
		var a Asm
		a.I(c.items...)
		got, err := a.Assemble()
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if want := word(c.lo, c.hi); got[0] != want {
			t.Errorf("%s: assembled %#016x, want %#016x\n got  %v\n want %v", c.name, got[0], want,
				Decode(got[0]), Decode(want))
		}
	}
}

// The assembler's choices: ports, ws, pm, sig 13.
func TestAssembleChoices(t *testing.T) {
	var a Asm
	// Uniform goes to whichever port is free; rb0 forces B, so unif is A.
	a.I(FAdd(RB(0), RB(0), R3), FMul(R3, R1, Unif))
	// ra7.16a: regfile-A pack, pm 0; the add writes A (ws 0).
	a.I(FToI(RA(7).Pack(Pack16A), R0), FMul(R0, RB(5), R3))
	// Small float immediate and a uniform: unif to A, immediate in raddr_b.
	a.I(Mov(R0, SmallFloat(1)), FMul(R3, R1, Unif))
	// Load immediate to a B-only destination sets ws (Mesa qpu_load_imm_ui).
	a.I(LoadImm(VWSetup, 0x1a00))
	// Colour pack on the mul, r4 unpack: pm 1.
	a.I(FMax(R1, R4.Unpack(Unpack8A), R4.Unpack(Unpack8A)), FMul(RB(3).ColourPack(PackMul8A), R1, R2))
	// A branch with a link register, resolved to a label two instructions on.
	a.I(Branch(BranchAnyZC, "end").Link(RA(3)))
	a.I()
	a.I()
	a.I()
	a.Label("end")
	a.I(SigProgramEnd)
	words, err := a.Assemble()
	if err != nil {
		t.Fatal(err)
	}
	in := DecodeProgram(nil, words)
	if !in[0].WS || in[0].RaddrA != RUniform || in[0].RaddrB != 0 || in[0].MulB != MuxA || in[0].AddA != MuxB {
		t.Errorf("0: %+v", in[0])
	}
	if in[1].WS || in[1].PM || in[1].Pack != Pack16A || in[1].WaddrAdd != 7 || in[1].RaddrB != 5 {
		t.Errorf("1: %+v", in[1])
	}
	if in[2].Sig != SigSmallImm || in[2].SmallImmed != 32 || in[2].RaddrA != RUniform || in[2].AddA != MuxB {
		t.Errorf("2: %+v", in[2])
	}
	if in[3].Kind() != KindLoadImm || !in[3].WS || in[3].WaddrAdd != WVPMVCDSetup || in[3].Imm != 0x1a00 {
		t.Errorf("3: %+v", in[3])
	}
	if !in[4].PM || in[4].Unpack != Unpack8A || in[4].Pack != PackMul8A || in[4].AddA != MuxR4 {
		t.Errorf("4: %+v", in[4])
	}
	if tgt, ok := in[5].BranchTarget(5); !ok || tgt != 9 || in[5].WaddrAdd != 3 || in[5].WS {
		t.Errorf("5: target %d %v %+v", tgt, ok, in[5])
	}
	want := []string{
		"fadd rb0, rb0, r3 ; fmul r3, r1, unif",
		"ftoi ra7.16a, r0 ; fmul r0, rb5, r3",
		"mov r0, 1.0 ; fmul r3, r1, unif",
		"ldi vw_setup, 0x00001a00",
		"fmax r1, r4.8a, r4.8a ; fmul rb3.8a, r1, r2",
		"brr.anynz ra3, -, +0 (@9)",
	}
	for i, w := range want {
		if got := string(AppendInst(nil, &in[i], i)); got != w {
			t.Errorf("listing %d: %q, want %q", i, got, w)
		}
	}
}

// A mul result packed into one byte of a file-A register: ws set, pm 0.
func TestAssembleMulBytePack(t *testing.T) {
	var a Asm
	a.I(FMul(RA(2).Pack(Pack8B), R1, R1))
	in := Decode(a.MustAssemble()[0])
	if !in.WS || in.PM || in.Pack != Pack8B || in.WaddrMul != 2 {
		t.Errorf("%+v", in)
	}
	if s := in.String(); s != "nop ; fmul ra2.8b, r1, r1" {
		t.Errorf("listing %q", s)
	}
}

// What cannot be encoded is reported with the instruction's index.
func TestAssembleErrors(t *testing.T) {
	cases := []struct {
		items []Item
		want  string
	}{
		{[]Item{FAdd(R0, RA(1), RA(2))}, "two regfile-A reads"},
		{[]Item{FAdd(R0, RB(1), RB(2))}, "two regfile-B reads"},
		{[]Item{FAdd(RA(0), R1, R2), FMul(RA(1), R1, R2)}, "ws"},
		{[]Item{FAdd(R0, R1, SmallInt(3)), SigLoadTMU0}, "small immediate"},
		{[]Item{FAdd(R0, RB(1), SmallInt(3))}, "small immediate"},
		{[]Item{FAdd(R0, R1, SmallInt(99))}, "not a small immediate"},
		{[]Item{FAdd(R0, R1, SmallFloat(3))}, "not a small immediate"},
		{[]Item{Mov(Unif, R1)}, "cannot be written"},
		{[]Item{Mov(R0, TMU0S)}, "cannot be read"},
		{[]Item{Mov(R0, R1), Mov(R2, R3)}, "two add-ALU ops"},
		{[]Item{Mov(TLBZ, R1), MMov(TLBZ, R2)}, "both ALUs write"},
		{[]Item{Mov(R0, R1), FMul(R2, R1, R1).SetFlags()}, "flags"},
		{[]Item{Mov(R0.Pack(Pack16A), R1)}, "regfile-A pack"},
		{[]Item{FMul(RA(2).Pack(Pack16A), R1, R1)}, "mul ALU"},
		{[]Item{Mov(R0.ColourPack(PackMul8A), R1)}, "colour pack"},
		{[]Item{FAdd(R0, RA(1).Unpack(Unpack16A), R4.Unpack(Unpack8A))}, "pm"},
		{[]Item{LoadImm(R0, 1), Mov(R1, R2)}, "whole instruction"},
		{[]Item{Branch(BranchAlways, "nowhere")}, "undefined label"},
		{[]Item{SigLoadImm}, "instruction kind"},
		{[]Item{FMul(R0, R1, R2).Rot(0)}, "rotation"},
		{[]Item{LoadImmPerElement(R0, [16]int8{5}, false)}, "outside"},
		{[]Item{Mov(RA(32), R0)}, "0-31"},
	}
	for _, c := range cases {
		var a Asm
		a.I()
		a.I(c.items...)
		_, err := a.Assemble()
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "instruction 1") {
			t.Errorf("%v: error %v, want one about %q at instruction 1", c.items, err, c.want)
		}
	}
}

// Every add- and mul-ALU operation of AG Tables 12 and 13 has its
// constructor: each assembles to its opcode with its operands in order,
// a unary one with its operand in both input slots (as Mesa's qpu_a_*
// do), and disassembles under the guide's name.
func TestOpConstructors(t *testing.T) {
	binary := []struct {
		op   func(dst, a, b Reg) Op
		add  AddOp
		mul  MulOp
		name string
	}{
		{FAdd, AddFAdd, 0, "fadd"}, {FSub, AddFSub, 0, "fsub"}, {FMin, AddFMin, 0, "fmin"}, {FMax, AddFMax, 0, "fmax"},
		{FMinAbs, AddFMinAbs, 0, "fminabs"}, {FMaxAbs, AddFMaxAbs, 0, "fmaxabs"}, {Add, AddAdd, 0, "add"}, {Sub, AddSub, 0, "sub"},
		{Shr, AddShr, 0, "shr"}, {Asr, AddAsr, 0, "asr"}, {Ror, AddRor, 0, "ror"}, {Shl, AddShl, 0, "shl"},
		{Min, AddMin, 0, "min"}, {Max, AddMax, 0, "max"}, {And, AddAnd, 0, "and"}, {Or, AddOr, 0, "or"},
		{Xor, AddXor, 0, "xor"}, {V8Adds, AddV8Adds, 0, "v8adds"}, {V8Subs, AddV8Subs, 0, "v8subs"},
		{FMul, 0, MulFMul, "fmul"}, {Mul24, 0, MulMul24, "mul24"}, {V8Muld, 0, MulV8Muld, "v8muld"},
		{V8Min, 0, MulV8Min, "v8min"}, {V8Max, 0, MulV8Max, "v8max"}, {MV8Adds, 0, MulV8Adds, "v8adds"},
		{MV8Subs, 0, MulV8Subs, "v8subs"},
	}
	for _, c := range binary {
		var a Asm
		a.I(c.op(R2, R0, R1))
		w, err := a.Assemble()
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		in := Decode(w[0])
		if c.mul == 0 {
			if in.OpAdd != c.add || in.OpMul != MulNop || in.WaddrAdd != WAcc0+2 || in.AddA != MuxR0 || in.AddB != MuxR1 {
				t.Errorf("%s assembled as %v", c.name, in)
			}
		} else if in.OpMul != c.mul || in.OpAdd != AddNop || in.WaddrMul != WAcc0+2 || in.MulA != MuxR0 || in.MulB != MuxR1 {
			t.Errorf("%s assembled as %v", c.name, in)
		}
		if l := Disassemble(w); !strings.Contains(l, c.name+" r2, r0, r1") {
			t.Errorf("%s disassembles as %q", c.name, l)
		}
	}
	unary := []struct {
		op   func(dst, a Reg) Op
		add  AddOp
		mul  MulOp
		name string
	}{
		{FToI, AddFToI, 0, "ftoi"}, {IToF, AddIToF, 0, "itof"}, {Not, AddNot, 0, "not"}, {Clz, AddClz, 0, "clz"},
		{Mov, AddOr, 0, "mov"}, {MMov, 0, MulV8Min, "mov"},
	}
	for _, c := range unary {
		var a Asm
		a.I(c.op(R2, R3))
		w, err := a.Assemble()
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		in := Decode(w[0])
		if c.mul == 0 && (in.OpAdd != c.add || in.AddA != MuxR3 || in.AddB != MuxR3) ||
			c.mul != 0 && (in.OpMul != c.mul || in.MulA != MuxR3 || in.MulB != MuxR3) {
			t.Errorf("%s assembled as %v", c.name, in)
		}
		if l := Disassemble(w); !strings.Contains(l, c.name+" r2, r3") {
			t.Errorf("%s disassembles as %q", c.name, l)
		}
	}
}

// Len counts the instructions so far: the index the next I returns.
func TestAsmLen(t *testing.T) {
	var a Asm
	if a.Len() != 0 {
		t.Errorf("empty: %d", a.Len())
	}
	a.I()
	if i := a.I(SigProgramEnd); i != 1 || a.Len() != 2 {
		t.Errorf("second instruction at %d, Len %d", i, a.Len())
	}
}
