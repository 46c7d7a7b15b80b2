package qpu

import "testing"

// word joins a pair as the sources print it: low word first, then high.
func word(lo, hi uint32) uint64 { return uint64(hi)<<32 | uint64(lo) }

// Known instruction words with their documented meaning. The expected
// fields were worked out by hand from AG Figure 3 / Table 1 bit positions
// (hex digit by hex digit; see the comments) and agree with the
// annotations next to the words in their sources.
var knownWords = []struct {
	name    string
	lo, hi  uint32
	want    Inst
	listing string
}{
	{
		// The JayStation "Texturing" post (doc/hardware.md#public-write-ups):
		// "add op: No operation, add cond: never; mul pipe: Floating point
		// multiply, ACC0, R15, VARYING_READ, cond: always". High 0x110059E0: sig 1, pm 1 (bit
		// 56, harmless), cond_mul 1, ws 1, waddr_add 39, waddr_mul 32.
		// Low 0x203E3DF7: op_mul 1, raddr_a 15, raddr_b 35, muxes 6 7 6 7.
		name: "JayStation fmul r0, ra15, vary", lo: 0x203E3DF7, hi: 0x110059E0,
		want: Inst{Sig: SigNone, PM: true, CondAdd: CondNever, CondMul: CondAlways, WS: true,
			WaddrAdd: WNop, WaddrMul: WAcc0, OpMul: MulFMul, OpAdd: AddNop,
			RaddrA: 15, RaddrB: RVarying, AddA: MuxA, AddB: MuxB, MulA: MuxA, MulB: MuxB},
		listing: "nop ; fmul r0, ra15, vary",
	},
	{
		// JayStation: "Floating point add, ACC0, acc r0, acc r5; Floating
		// point multiply, ACC1, R15, VARYING_READ". High 0x11024821:
		// cond_add 1, cond_mul 1, waddr_add 32, waddr_mul 33. Low
		// 0x213E3177: op_mul 1, op_add 1, raddr 15/35, muxes 0 5 6 7.
		name: "JayStation fadd r0, r0, r5 ; fmul r1, ra15, vary", lo: 0x213E3177, hi: 0x11024821,
		want: Inst{Sig: SigNone, PM: true, CondAdd: CondAlways, CondMul: CondAlways,
			WaddrAdd: WAcc0, WaddrMul: WAcc1, OpMul: MulFMul, OpAdd: AddFAdd,
			RaddrA: 15, RaddrB: RVarying, AddA: MuxR0, AddB: MuxR5, MulA: MuxA, MulB: MuxB},
		listing: "fadd r0, r0, r5 ; fmul r1, ra15, vary",
	},
	{
		// JayStation: "Floating point add, TMU0_T, acc r1, acc r5; mul op: No
		// operation". High 0x11020E67: waddr_add 57, waddr_mul 39, cond_mul
		// never. Low 0x013E3377: op_add 1, muxes 1 5. Note raddr_b is still
		// 35: this hand-assembled word reads VARYING_READ a third time,
		// which ReadsVarying reports (PeterLemon's word below is a clean
		// variant).
		name: "JayStation fadd tmu0_t, r1, r5", lo: 0x013E3377, hi: 0x11020E67,
		want: Inst{Sig: SigNone, PM: true, CondAdd: CondAlways, CondMul: CondNever,
			WaddrAdd: WTMU0T, WaddrMul: WNop, OpMul: MulNop, OpAdd: AddFAdd,
			RaddrA: 15, RaddrB: RVarying, AddA: MuxR1, AddB: MuxR5, MulA: MuxA, MulB: MuxB},
		listing: "fadd tmu0_t, r1, r5 ; nop",
	},
	{
		// JayStation: "Bitwise OR, TMU0_S_RETIRING, acc r0, acc r0". High
		// 0x10020E27: waddr_add 56. Low 0x159E7000: op_add 21, raddrs 39.
		name: "JayStation or tmu0_s, r0, r0", lo: 0x159E7000, hi: 0x10020E27,
		want: Inst{Sig: SigNone, CondAdd: CondAlways, CondMul: CondNever,
			WaddrAdd: WTMU0S, WaddrMul: WNop, OpAdd: AddOr, RaddrA: RNop, RaddrB: RNop},
		listing: "mov tmu0_s, r0 ; nop",
	},
	{
		// JayStation: "signal: load data from tmu0 to r4"; sig 10 on a NOP.
		name: "JayStation ldtmu0", lo: 0x009E7000, hi: 0xA00009E7,
		want:    Inst{Sig: SigLoadTMU0, WaddrAdd: WNop, WaddrMul: WNop, RaddrA: RNop, RaddrB: RNop},
		listing: "nop ; nop ; ldtmu0",
	},
	{
		// JayStation: "Bitwise OR, TLB_COLOUR_ALL, acc r4, acc r4". High
		// 0x10020BA7: waddr_add 46. Low 0x159E7924: muxes 4 4 4 4.
		name: "JayStation or tlb_colour_all, r4, r4", lo: 0x159E7924, hi: 0x10020BA7,
		want: Inst{Sig: SigNone, CondAdd: CondAlways, CondMul: CondNever,
			WaddrAdd: WTLBColourAll, WaddrMul: WNop, OpAdd: AddOr, RaddrA: RNop, RaddrB: RNop,
			AddA: MuxR4, AddB: MuxR4, MulA: MuxR4, MulB: MuxR4},
		listing: "mov tlb_colour_all, r4 ; nop",
	},
	{
		// The canonical NOP 0x100009E7_009E7000
		// (Mesa qpu_NOP): sig 1, waddrs 39, raddrs 39, ops 0, conds never.
		name: "nop", lo: 0x009E7000, hi: 0x100009E7,
		want:    Inst{Sig: SigNone, WaddrAdd: WNop, WaddrMul: WNop, RaddrA: RNop, RaddrB: RNop},
		listing: "nop ; nop",
	},
	{
		// PeterLemon's textured-triangle fragment shader
		// (PeterLemon/RaspberryPi
		// V3D/ControlList/NV/Vertex_Array/Triangle/Texture):
		// 0x100049E0_203E3037 = fmul r0, ra15, vary: cond_mul 1, waddr_mul
		// 32, op_mul 1, raddr_a 15, raddr_b 35, mul_a 6, mul_b 7.
		name: "PeterLemon fmul r0, ra15, vary", lo: 0x203E3037, hi: 0x100049E0,
		want: Inst{Sig: SigNone, CondMul: CondAlways, WaddrAdd: WNop, WaddrMul: WAcc0,
			OpMul: MulFMul, RaddrA: 15, RaddrB: RVarying, MulA: MuxA, MulB: MuxB},
		listing: "nop ; fmul r0, ra15, vary",
	},
	{
		// PeterLemon's textured triangle: 0x10020E67_019E7340 = fadd tmu0_t, r1, r5:
		// waddr_add 57, op_add 1, add_a 1, add_b 5.
		name: "PeterLemon fadd tmu0_t, r1, r5", lo: 0x019E7340, hi: 0x10020E67,
		want: Inst{Sig: SigNone, CondAdd: CondAlways, WaddrAdd: WTMU0T, WaddrMul: WNop,
			OpAdd: AddFAdd, RaddrA: RNop, RaddrB: RNop, AddA: MuxR1, AddB: MuxR5},
		listing: "fadd tmu0_t, r1, r5 ; nop",
	},
	{
		// PeterLemon's textured triangle: 0x30020BA7_159E7900 = or tlb_colour_all, r4, r4 +
		// thrend (sig 3).
		name: "PeterLemon or tlb_colour_all + thrend", lo: 0x159E7900, hi: 0x30020BA7,
		want: Inst{Sig: SigProgramEnd, CondAdd: CondAlways, WaddrAdd: WTLBColourAll, WaddrMul: WNop,
			OpAdd: AddOr, RaddrA: RNop, RaddrB: RNop, AddA: MuxR4, AddB: MuxR4},
		listing: "mov tlb_colour_all, r4 ; nop ; thrend",
	},
	{
		// The Broadcom driver's constant-colour shader (hermanhermitage/videocoreiv-qpu
		// Traces1.md):
		// 0x10020BA7_15827D80 = or tlb_colour_all, unif, unif: raddr_a 32,
		// muxes 6/6.
		name: "Broadcom or tlb_colour_all, unif, unif", lo: 0x15827D80, hi: 0x10020BA7,
		want: Inst{Sig: SigNone, CondAdd: CondAlways, WaddrAdd: WTLBColourAll, WaddrMul: WNop,
			OpAdd: AddOr, RaddrA: RUniform, RaddrB: RNop, AddA: MuxA, AddB: MuxA},
		listing: "mov tlb_colour_all, unif ; nop",
	},
	{
		// the post "vc4: cube demo – 'from scratch'" (2023-07-04,
		// doc/hardware.md#public-write-ups): "or r0, element_number, element_number":
		// raddr_a 38 (A: ELEMENT_NUMBER), waddr_add 32.
		name: "cube demo mov r0, elem_num", lo: 0x159a7d80, hi: 0x10020827,
		want: Inst{Sig: SigNone, CondAdd: CondAlways, WaddrAdd: WAcc0, WaddrMul: WNop,
			OpAdd: AddOr, RaddrA: RElementQPU, RaddrB: RNop, AddA: MuxA, AddB: MuxA},
		listing: "mov r0, elem_num ; nop",
	},
	{
		// cube demo: "li r1, -, 0xff000000": sig 14 mode 0, cond_add 1,
		// waddr_add 33.
		name: "cube demo ldi r1", lo: 0xff000000, hi: 0xe0020867,
		want: Inst{Sig: SigLoadImm, LoadMode: LoadImm32, CondAdd: CondAlways, WaddrAdd: WAcc1,
			WaddrMul: WNop, RaddrA: RNop, RaddrB: RNop, Imm: 0xff000000},
		listing: "ldi r1, 0xff000000",
	},
	{
		// cube demo: "sub r2, r0, 0 sf": sig 13, small immediate 0, sf,
		// op_add 13, add_a 0 (r0), add_b 7 (the immediate).
		name: "cube demo sub.sf r2, r0, 0", lo: 0x0d9c01c0, hi: 0xd00228a7,
		want: Inst{Sig: SigSmallImm, CondAdd: CondAlways, SF: true, WaddrAdd: WAcc2, WaddrMul: WNop,
			OpAdd: AddSub, RaddrA: RNop, RaddrB: RNop, SmallImmed: 0, AddA: MuxR0, AddB: MuxB},
		listing: "sub.sf r2, r0, 0 ; nop",
	},
	{
		// cube demo: "li.zs.never r1, -, 0xffffffff": cond_add 2 (zs).
		name: "cube demo ldi r1.zs", lo: 0xffffffff, hi: 0xe0040867,
		want: Inst{Sig: SigLoadImm, CondAdd: CondZS, WaddrAdd: WAcc1, WaddrMul: WNop,
			RaddrA: RNop, RaddrB: RNop, Imm: 0xffffffff},
		listing: "ldi r1.zs, 0xffffffff",
	},
	{
		// cube demo: "score_board_unlock": sig 5 on a NOP.
		name: "cube demo sbdone", lo: 0x009e7000, hi: 0x500009e7,
		want:    Inst{Sig: SigScoreboardUnlock, WaddrAdd: WNop, WaddrMul: WNop, RaddrA: RNop, RaddrB: RNop},
		listing: "nop ; nop ; sbdone",
	},
	{
		// cube demo: "v8min.zs a0, r0, r0, rot15": sig 13, small immediate
		// 63 (rotate by 15), cond_mul 2, ws 1 (mul writes file A),
		// waddr_mul 0, op_mul 4, muxes r0.
		name: "cube demo v8min.zs ra0, r0, r0, rot15", lo: 0x809ff000, hi: 0xd00099c0,
		want: Inst{Sig: SigSmallImm, CondMul: CondZS, WS: true, WaddrAdd: WNop, WaddrMul: 0,
			OpMul: MulV8Min, RaddrA: RNop, RaddrB: RNop, SmallImmed: 63},
		listing: "nop ; v8min.zs ra0, r0, r0, rot15",
	},
	{
		// cube demo: "fsub.zs a0, a0, r0": cond_add 2, waddr_add 0 (A),
		// op_add 2, raddr_a 0, add_a 6, add_b 0.
		name: "cube demo fsub.zs ra0, ra0, r0", lo: 0x02027c00, hi: 0x10040027,
		want: Inst{Sig: SigNone, CondAdd: CondZS, WaddrAdd: 0, WaddrMul: WNop,
			OpAdd: AddFSub, RaddrA: 0, RaddrB: RNop, AddA: MuxA, AddB: MuxR0},
		listing: "fsub.zs ra0, ra0, r0 ; nop",
	},
}

func TestKnownWordsDecode(t *testing.T) {
	for _, k := range knownWords {
		w := word(k.lo, k.hi)
		got := Decode(w)
		if got != k.want {
			t.Errorf("%s: Decode(%#016x)\n got  %+v\n want %+v", k.name, w, got, k.want)
		}
		if e := got.Encode(); e != w {
			t.Errorf("%s: Encode(Decode(%#016x)) = %#016x", k.name, w, e)
		}
		if s := got.String(); s != k.listing {
			t.Errorf("%s: listing %q, want %q", k.name, s, k.listing)
		}
	}
}

// The meaning of the posts' words, asked through the helpers the simulated
// kernel and GPU use.
func TestKnownWordsHelpers(t *testing.T) {
	fmulVary := Decode(word(0x203E3DF7, 0x110059E0))
	if !fmulVary.ReadsVarying() || fmulVary.ReadsUniform() || fmulVary.AddUsed() || !fmulVary.MulUsed() {
		t.Errorf("JayStation fmul: varying %v uniform %v add %v mul %v", fmulVary.ReadsVarying(),
			fmulVary.ReadsUniform(), fmulVary.AddUsed(), fmulVary.MulUsed())
	}
	if !fmulVary.UsesPhysical(FileA, 15) || !fmulVary.WritesR5() {
		t.Error("JayStation fmul should use ra15 (W) and load r5 (C)")
	}
	tmuT := Decode(word(0x013E3377, 0x11020E67))
	if !tmuT.WritesTMU() || tmuT.Writes(WTMU0S) || !tmuT.Writes(WTMU0T) {
		t.Error("JayStation fadd tmu0_t: TMU write flags wrong")
	}
	if !tmuT.ReadsVarying() {
		t.Error("JayStation fadd tmu0_t: its raddr_b 35 reads VARYING_READ")
	}
	if tmuT.UsesRead(FileB, RVarying) {
		t.Error("JayStation fadd tmu0_t: no used operand takes the varying")
	}
	tlb := Decode(word(0x15827D80, 0x10020BA7))
	if !tlb.ReadsUniform() || !tlb.WritesTLB() {
		t.Error("blob constant-colour write: reads a uniform and writes the TLB")
	}
	ldtmu := Decode(word(0x009E7000, 0xA00009E7))
	if !ldtmu.Sig.LoadsR4() || ldtmu.Kind() != KindALU {
		t.Error("ldtmu0 loads r4")
	}
	rot := Decode(word(0x809ff000, 0xd00099c0))
	if n, byR5, ok := rot.Rotation(); !ok || byR5 || n != 15 {
		t.Errorf("cube demo rot15: Rotation() = %d %v %v", n, byR5, ok)
	}
	if !rot.WritesPhysical(FileA, 0) || rot.WritesPhysical(FileB, 0) {
		t.Error("cube demo v8min with ws: writes ra0")
	}
	fsub := Decode(word(0x02027c00, 0x10040027))
	if !fsub.UsesPhysical(FileA, 0) {
		t.Error("cube demo fsub reads ra0")
	}
}

// AG Table 5, written out from the table rather than from the formula.
func TestSmallImmediateTable(t *testing.T) {
	want := map[SmallImm]uint32{
		0: 0, 1: 1, 14: 14, 15: 15, 16: 0xfffffff0, 17: 0xfffffff1, 30: 0xfffffffe, 31: 0xffffffff,
		32: 0x3f800000, 33: 0x40000000, 38: 0x42800000, 39: 0x43000000,
		40: 0x3b800000, 41: 0x3c000000, 46: 0x3e800000, 47: 0x3f000000,
	}
	for s, v := range want {
		got, ok := s.Value()
		if !ok || got != v {
			t.Errorf("SmallImm(%d).Value() = %#x %v, want %#x", s, got, ok, v)
		}
	}
	for s := SmallImm(48); s < 64; s++ {
		if _, ok := s.Value(); ok || !s.IsRotation() {
			t.Errorf("SmallImm(%d) should be a rotation", s)
		}
	}
	if n, r5 := SmallImm(48).Rotation(); n != 0 || !r5 {
		t.Error("48 rotates by r5")
	}
	if n, r5 := SmallImm(49).Rotation(); n != 1 || r5 {
		t.Error("49 rotates by 1")
	}
	names := map[SmallImm]string{3: "3", 20: "-12", 32: "1.0", 35: "8.0", 40: "0.00390625", 47: "0.5", 48: "rot_r5", 55: "rot7"}
	for s, n := range names {
		if s.String() != n {
			t.Errorf("SmallImm(%d).String() = %q, want %q", s, s.String(), n)
		}
	}
}

// Load immediate per-element modes (AG Figure 5): element i takes bit 16+i
// as its MS bit and bit i as its LS bit.
func TestPerElementLoadImmediate(t *testing.T) {
	// Elements 0..3 = 1, 2, 3, 0 as unsigned: LS bits 0b0101, MS bits 0b0110.
	in := Decode(uint64(0xE6020867)<<32 | 0x0006_0005)
	if in.Kind() != KindLoadImm || in.LoadMode != LoadImmPerElUnsign {
		t.Fatalf("mode: kind %v mode %v", in.Kind(), in.LoadMode)
	}
	v, ok := in.PerElementValues()
	if !ok || v[0] != 1 || v[1] != 2 || v[2] != 3 || v[3] != 0 || v[4] != 0 {
		t.Errorf("unsigned values %v", v)
	}
	in.LoadMode = LoadImmPerElSigned
	v, _ = in.PerElementValues()
	if v[0] != 1 || v[1] != -2 || v[2] != -1 || v[3] != 0 {
		t.Errorf("signed values %v", v)
	}
	if got := in.String(); got != "ldi.signed r1, [1 -2 -1 0 0 0 0 0 0 0 0 0 0 0 0 0]" {
		t.Errorf("listing %q", got)
	}
}

// Semaphore (AG Figure 6): sig 14, mode 4, sa bit 4, number bits 3:0.
func TestSemaphore(t *testing.T) {
	w := uint64(0xE80009E7)<<32 | 0x13 // decrement semaphore 3
	in := Decode(w)
	if in.Kind() != KindSemaphore || !in.SA || in.Semaphore != 3 {
		t.Fatalf("decoded %+v", in)
	}
	if in.Encode() != w {
		t.Error("round trip")
	}
	if s := in.String(); s != "sacq -, 3" {
		t.Errorf("listing %q", s)
	}
}

// Branch (AG Figure 7, Table 10).
func TestBranch(t *testing.T) {
	// brr.anyz, rel, link into ra1 from the add ALU, offset +32 bytes.
	hi := uint32(0xF<<28 | 2<<20 | 1<<19 | 1<<6 | 39)
	in := Decode(word(32, hi))
	if in.Kind() != KindBranch || in.CondBr != BranchAnyZS || !in.Rel || in.Reg ||
		in.WaddrAdd != 1 || in.WaddrMul != WNop || in.BranchOffset() != 32 {
		t.Fatalf("decoded %+v", in)
	}
	if tgt, ok := in.BranchTarget(10); !ok || tgt != 18 {
		t.Errorf("target %d %v, want 18", tgt, ok)
	}
	if s := string(AppendInst(nil, &in, 10)); s != "brr.anyz ra1, -, +32 (@18)" {
		t.Errorf("listing %q", s)
	}
	// Unassigned bits 59:56 survive.
	w := word(0xfffffff8, hi|0x0f000000)
	if d := Decode(w); d.Spare == 0 || d.Encode() != w {
		t.Errorf("spare bits lost: %+v", d)
	}
}
