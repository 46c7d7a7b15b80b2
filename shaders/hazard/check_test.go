package hazard

import (
	"fmt"
	"strings"
	"testing"

	q "github.com/vccube/vccube/shaders/qpu"
)

// build assembles a program from rows of items; each row is one
// instruction.
func build(t *testing.T, rows ...[]q.Item) []uint64 {
	t.Helper()
	var a q.Asm
	for _, r := range rows {
		a.I(r...)
	}
	w, err := a.Assemble()
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func row(items ...q.Item) []q.Item { return items }

var (
	nop    = row()
	thrend = row(q.SigProgramEnd)
	sbdone = row(q.SigScoreboardUnlock)
)

// end is a clean program end: thread end and two delay slots.
func end() [][]q.Item { return [][]q.Item{thrend, nop, nop} }

func prog(rows ...[]q.Item) [][]q.Item { return rows }

func cat(parts ...[][]q.Item) [][]q.Item {
	var all [][]q.Item
	for _, p := range parts {
		all = append(all, p...)
	}
	return all
}

type found struct {
	index int
	rule  Rule
}

func summarize(vs []Violation) []found {
	var f []found
	for _, v := range vs {
		f = append(f, found{v.Index, v.Rule})
	}
	return f
}

// expect checks that the program breaks exactly the given rules at the
// given instructions (so nothing else is falsely raised).
func expect(t *testing.T, name string, stage Stage, words []uint64, want ...found) {
	t.Helper()
	for _, check := range []func() []Violation{
		func() []Violation { return CheckWords(words, stage) },
		func() []Violation { return Check(q.DecodeProgram(nil, words), stage) },
	} {
		got := summarize(check())
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: violations %v, want %v\n%s", name, got, want, listing(check(), words))
		}
	}
}

func listing(vs []Violation, words []uint64) string {
	var b strings.Builder
	b.WriteString(q.Disassemble(words))
	for _, v := range vs {
		b.WriteString(v.Error())
		b.WriteByte('\n')
	}
	return b.String()
}

// One test per rule: a program that breaks it (caught) and a close variant
// that does not (not raised). Each case's comment says what differs.
func TestRules(t *testing.T) {
	type tc struct {
		name  string
		stage Stage
		rows  [][]q.Item
		want  []found
	}
	cases := []tc{
		// Rule 1: no uniform/varying/VPM in the last three instructions.
		{"1 uniform read on thrend", Fragment, prog(nop, nop, row(q.Mov(q.R0, q.Unif), q.SigProgramEnd), nop, nop),
			[]found{{2, Rule1EndFIFO}}},
		{"1 uniform read just before thrend", Fragment, cat(prog(nop, nop, row(q.Mov(q.R0, q.Unif))), end()), nil},
		{"1 varying read in delay slot", Fragment, prog(nop, nop, thrend, row(q.FMul(q.R0, q.RA(15), q.Vary)), nop),
			[]found{{3, Rule1EndFIFO}}},
		{"1 VPM write in last delay slot", Vertex, prog(row(q.LoadImm(q.VWSetup, 0x1a00)), thrend, nop, row(q.Mov(q.VPM, q.R0))),
			[]found{{3, Rule1EndFIFO}}},
		{"1 VPM write before thrend", Vertex, cat(prog(row(q.LoadImm(q.VWSetup, 0x1a00)), row(q.Mov(q.VPM, q.R0))), end()), nil},
		{"1 TMU parameter write (implicit uniform) in delay slot", Fragment,
			prog(nop, nop, row(q.Mov(q.TMU0T, q.R0)), thrend, row(q.Mov(q.TMU0S, q.R0)), nop), []found{{4, Rule1EndFIFO}}},

		// Rule 2: thrend writes no physical register.
		{"2 thrend writes ra3", Fragment, prog(nop, nop, row(q.Mov(q.RA(3), q.R0), q.SigProgramEnd), nop, nop),
			[]found{{2, Rule2EndRegfileWrite}}},
		{"2 thrend writes r3", Fragment, prog(nop, nop, row(q.Mov(q.R3, q.R0), q.SigProgramEnd), nop, nop), nil},

		// Rule 3: location 14 in the last three.
		{"3 delay slot reads ra14", Fragment, prog(nop, nop, thrend, row(q.Mov(q.R0, q.RA(14))), nop),
			[]found{{3, Rule3EndLocation14}}},
		{"3 delay slot writes rb14", Fragment, prog(nop, nop, thrend, nop, row(q.FMul(q.RB(14), q.R0, q.R0))),
			[]found{{4, Rule3EndLocation14}}},
		{"3 delay slot reads ra13", Fragment, prog(nop, nop, thrend, row(q.Mov(q.R0, q.RA(13))), nop), nil},

		// Rule 4: final instruction writes no TLB Z.
		{"4 TLB_Z in final instruction", Fragment, prog(nop, nop, row(q.Mov(q.TLBColourAll, q.R0)), nop, thrend, nop, row(q.Mov(q.TLBZ, q.RB(15)))),
			[]found{{6, Rule4FinalTLBZ}}},
		{"4 TLB_Z in first delay slot", Fragment, prog(nop, nop, row(q.Mov(q.TLBColourAll, q.R0)), nop, thrend, row(q.Mov(q.TLBZ, q.RB(15))), nop),
			nil},

		// Rule 5: no scoreboard wait in the first two FS instructions.
		{"5 colour write at 0", Fragment, cat(prog(row(q.Mov(q.TLBColourAll, q.R0)), nop), end()), []found{{0, Rule5EarlyScoreboard}}},
		{"5 sbwait at 1", Fragment, cat(prog(nop, row(q.SigScoreboardWait)), end()), []found{{1, Rule5EarlyScoreboard}}},
		{"5 sbwait at 2", Fragment, cat(prog(nop, nop, row(q.SigScoreboardWait)), end()), nil},
		{"5 not a fragment shader", General, cat(prog(nop, row(q.SigScoreboardWait)), end()), nil},

		// Rule 6: TMU_NOSWAP three instructions before the first TMU write.
		{"6 TMU write 2 after noswap", Fragment, cat(prog(row(q.Mov(q.TMUNoSwap, q.R0)), nop, row(q.Mov(q.TMU0T, q.R0)), row(q.Mov(q.TMU0S, q.R0))), end()),
			[]found{{2, Rule6TMUNoSwap}}},
		{"6 TMU write 3 after noswap", Fragment, cat(prog(row(q.Mov(q.TMUNoSwap, q.R0)), nop, nop, row(q.Mov(q.TMU0T, q.R0)), row(q.Mov(q.TMU0S, q.R0))), end()),
			nil},
		{"6 noswap after a TMU write", Fragment, cat(prog(row(q.Mov(q.TMU0T, q.R0)), row(q.Mov(q.TMU0S, q.R0)), row(q.Mov(q.TMUNoSwap, q.R0))), end()),
			[]found{{2, Rule6TMUNoSwap}}},

		// Rule 7: the cube demo post's hazard (rotation into ra0, then fsub
		// reading ra0) and the fix with a NOP between.
		{"7 read of ra0 written just before", Fragment, cat(prog(
			row(q.V8Min(q.RA(0), q.R0, q.R0).Rot(15).If(q.CondZS)),
			row(q.FSub(q.RA(0), q.RA(0), q.R0).If(q.CondZS))), end()),
			[]found{{1, Rule7RegfileReadAfterWrite}}},
		{"7 NOP between", Fragment, cat(prog(
			row(q.V8Min(q.RA(0), q.R0, q.R0).Rot(15).If(q.CondZS)), nop,
			row(q.FSub(q.RA(0), q.RA(0), q.R0).If(q.CondZS))), end()), nil},
		{"7 same number, other file", Fragment, cat(prog(
			row(q.FMul(q.RB(0), q.R0, q.R0)), row(q.FSub(q.R1, q.RA(0), q.R0))), end()), nil},
		{"7 load immediate to rb2 then read", Vertex, cat(prog(row(q.LoadImm(q.RB(2), 7)), row(q.Add(q.R0, q.RB(2), q.R1))), end()),
			[]found{{1, Rule7RegfileReadAfterWrite}}},

		// Rule 8: r4 after an SFU write.
		{"8 r4 read 2 after SFU", Vertex, cat(prog(row(q.Mov(q.SFURecip, q.R0)), nop, row(q.Mov(q.R1, q.R4))), end()),
			[]found{{2, Rule8SFUR4}}},
		{"8 r4 read 3 after SFU", Vertex, cat(prog(row(q.Mov(q.SFURecip, q.R0)), nop, nop, row(q.Mov(q.R1, q.R4))), end()), nil},
		{"8 ldtmu 1 after SFU", Fragment, cat(prog(nop, row(q.Mov(q.SFURecip, q.R0)), row(q.SigLoadTMU0)), end()),
			[]found{{2, Rule8SFUR4}}},
		{"8 SFU 2 after SFU", Vertex, cat(prog(row(q.Mov(q.SFURecip, q.R0)), nop, row(q.Mov(q.SFULog, q.R0))), end()),
			[]found{{2, Rule8SFUR4}}},

		// Rule 9: rotate by r5 right after an r5 write.
		{"9 rot_r5 after r5 write", General, cat(prog(row(q.Mov(q.R5Rep, q.R0)), row(q.FMul(q.R1, q.R2, q.R2).RotR5())), end()),
			[]found{{1, Rule9RotateR5}}},
		{"9 rot_r5 after a varying read", Fragment, cat(prog(row(q.FMul(q.R0, q.RA(15), q.Vary)), row(q.FMul(q.R1, q.R2, q.R2).RotR5())), end()),
			[]found{{1, Rule9RotateR5}}},
		{"9 rot_r5 two after", General, cat(prog(row(q.Mov(q.R5Rep, q.R0)), nop, row(q.FMul(q.R1, q.R2, q.R2).RotR5())), end()), nil},

		// Rule 10: rotate right after a write of the rotated accumulator.
		{"10 rotate r0 just written", General, cat(prog(row(q.Mov(q.R0, q.R1)), row(q.FMul(q.R1, q.R0, q.R0).Rot(1))), end()),
			[]found{{1, Rule10RotateAccumulator}}},
		{"10 rotate r2, r0 just written", General, cat(prog(row(q.Mov(q.R0, q.R1)), row(q.FMul(q.R1, q.R2, q.R2).Rot(1))), end()), nil},

		// Rule 11: MS_FLAGS two instructions after TLB_Z.
		{"11 ms_flags right after Z", Fragment, cat(prog(nop, nop, row(q.Mov(q.TLBZ, q.RB(15))), row(q.Mov(q.R0, q.MSFlags))), end()),
			[]found{{3, Rule11TLBZMSFlags}}},
		{"11 ms_flags 3 after Z", Fragment, cat(prog(nop, nop, row(q.Mov(q.TLBZ, q.RB(15))), nop, nop, row(q.Mov(q.R0, q.MSFlags))), end()), nil},
		{"11 colour write right after Z", Fragment, cat(prog(nop, nop, row(q.Mov(q.TLBZ, q.RB(15))), row(q.Mov(q.TLBColourAll, q.R0))), end()), nil},

		// Rule 12: one closely coupled peripheral access.
		{"12 TMU write and TMU read", Fragment, cat(prog(nop, nop, row(q.Mov(q.TMU0T, q.R0)), row(q.Mov(q.TMU0S, q.R0), q.SigLoadTMU0)), end()),
			[]found{{3, Rule12Peripherals}}},
		{"12 SFU and TLB", Fragment, cat(prog(nop, nop, row(q.Mov(q.SFURecip, q.R0), q.MMov(q.TLBColourAll, q.R1))), end()),
			[]found{{2, Rule12Peripherals}}},
		{"12 SFU and VPM (exempt)", Vertex, cat(prog(row(q.LoadImm(q.VWSetup, 0x1a00)), row(q.Mov(q.VPM, q.R0), q.MMov(q.SFURecip, q.R1))), end()), nil},
		{"12 combined colour read and write", Fragment, cat(prog(nop, nop, row(q.Mov(q.TLBColourMS, q.R0), q.SigColourLoad)), end()), nil},

		// A TMU parameter write does not read a uniform.
		{"tmu-uniform T with uniform", Fragment, cat(prog(nop, nop, row(q.FAdd(q.TMU0T, q.R0, q.Unif)), row(q.Mov(q.TMU0S, q.R0))), end()),
			[]found{{2, RuleTMUUniform}}},
		{"tmu-uniform direct lookup", Fragment, cat(prog(nop, nop, row(q.Add(q.TMU0S, q.R0, q.Unif))), end()), nil},

		// Writes to TMUn_S and VPM are unconditional.
		{"conditional TMU0_S", Fragment, cat(prog(nop, nop, row(q.Mov(q.TMU0T, q.R0)), row(q.Mov(q.TMU0S, q.R0).If(q.CondZS))), end()),
			[]found{{3, RuleConditionalFIFOWrite}}},
		{"conditional TMU0_T", Fragment, cat(prog(nop, nop, row(q.Mov(q.TMU0T, q.R0).If(q.CondZS)), row(q.Mov(q.TMU0S, q.R0))), end()), nil},
		{"conditional VPM write", Vertex, cat(prog(row(q.LoadImm(q.VWSetup, 0x1a00)), row(q.Mov(q.VPM, q.R0).If(q.CondNC))), end()),
			[]found{{1, RuleConditionalFIFOWrite}}},

		// Threads.
		{"thrsw holding the scoreboard", Fragment, cat(prog(nop, nop, row(q.Mov(q.TLBZ, q.RB(15))), nop, row(q.SigLastThreadSwitch), nop, nop), end()),
			[]found{{4, RuleThreadSwitchScoreboard}}},
		{"thrsw before the TLB", Fragment, cat(prog(nop, nop, row(q.SigLastThreadSwitch), nop, nop, row(q.Mov(q.TLBZ, q.RB(15))), nop), end()), nil},
		{"thrsw after lthrsw", Fragment, cat(prog(nop, nop, row(q.SigLastThreadSwitch), nop, nop, row(q.SigThreadSwitch), nop, nop), end()),
			[]found{{5, RuleThreadSwitchAfterLast}}},
		{"thrsw then lthrsw", Fragment, cat(prog(nop, nop, row(q.SigThreadSwitch), nop, nop, row(q.SigLastThreadSwitch), nop, nop), end()), nil},
		{"thrsw in delay slots", Fragment, cat(prog(nop, nop, row(q.SigThreadSwitch), nop, row(q.SigLastThreadSwitch), nop, nop), end()),
			[]found{{4, RuleThreadSwitchSpacing}}},
		{"texture result unread at next thrsw", Fragment, cat(prog(nop, nop,
			row(q.Mov(q.TMU0T, q.R0)), row(q.Mov(q.TMU0S, q.R0)), row(q.SigThreadSwitch), nop, nop,
			nop, row(q.SigLastThreadSwitch), nop, nop, nop), end()),
			[]found{{8, RuleThreadSwitchTexture}}},
		{"texture result read before next thrsw", Fragment, cat(prog(nop, nop,
			row(q.Mov(q.TMU0T, q.R0)), row(q.Mov(q.TMU0S, q.R0)), row(q.SigThreadSwitch), nop, nop,
			row(q.SigLoadTMU0), row(q.SigLastThreadSwitch), nop, nop, nop), end()), nil},

		// HW-2806: an instruction between TLB_Z and a thread signal.
		{"HW-2806 thrend right after Z", Fragment, prog(nop, nop, row(q.Mov(q.TLBColourAll, q.R0)), row(q.Mov(q.TLBZ, q.RB(15))), thrend, nop, nop),
			[]found{{4, RuleZWriteThreadSignal}}},
		{"HW-2806 one between", Fragment, prog(nop, nop, row(q.Mov(q.TLBZ, q.RB(15))), row(q.Mov(q.TLBColourAll, q.R0)), thrend, nop, nop), nil},

		// VPM.
		{"VPM read 2 after setup", Vertex, cat(prog(row(q.LoadImm(q.VRSetup, 0x00101a00)), nop, row(q.Mov(q.R0, q.VPM))), end()),
			[]found{{2, RuleVPMReadLatency}}},
		{"VPM read 3 after setup", Vertex, cat(prog(row(q.LoadImm(q.VRSetup, 0x00101a00)), nop, nop, row(q.Mov(q.R0, q.VPM))), end()), nil},
		{"VPM reads not consumed", Vertex, cat(prog(row(q.LoadImm(q.VRSetup, 0x00201a00)), nop, nop, row(q.Mov(q.R0, q.VPM))), end()),
			[]found{{4, RuleVPMReadCount}}},
		{"VPM read beyond count", Vertex, cat(prog(row(q.LoadImm(q.VRSetup, 0x00101a00)), nop, nop, row(q.Mov(q.R0, q.VPM)), row(q.Mov(q.R1, q.VPM))), end()),
			[]found{{4, RuleVPMReadCount}}},
		{"VPM third pending setup", Vertex, cat(prog(
			row(q.LoadImm(q.VRSetup, 0x00101a00)), row(q.LoadImm(q.VRSetup, 0x00101a01)), row(q.LoadImm(q.VRSetup, 0x00101a02)),
			row(q.Mov(q.R0, q.VPM)), row(q.Mov(q.R0, q.VPM))), end()),
			[]found{{2, RuleVPMReadCount}}},
		{"VPM two setups, all read", Vertex, cat(prog(
			row(q.LoadImm(q.VRSetup, 0x00101a00)), row(q.LoadImm(q.VRSetup, 0x00201a01)), nop,
			row(q.Mov(q.R0, q.VPM)), row(q.Mov(q.R0, q.VPM)), row(q.Mov(q.R0, q.VPM))), end()), nil},
		{"VPM 16 reads (NUM 0)", Vertex, cat(prog(row(q.LoadImm(q.VRSetup, 0x00001a00)), nop, nop),
			func() [][]q.Item {
				var r [][]q.Item
				for i := 0; i < 16; i++ {
					r = append(r, row(q.Mov(q.R0, q.VPM)))
				}
				return r
			}(), end()), nil},
		{"fragment shader reads VPM", Fragment, cat(prog(nop, nop, row(q.Mov(q.R0, q.VPM))), end()),
			[]found{{2, RuleFragmentVPM}}},

		// UNIFORMS_ADDRESS.
		{"uniform 2 after address write", General, cat(prog(row(q.Add(q.UnifAddr, q.R0, q.Unif)), nop, row(q.Mov(q.R1, q.Unif))), end()),
			[]found{{2, RuleUniformsAddress}}},
		{"uniform 3 after address write", General, cat(prog(row(q.Add(q.UnifAddr, q.R0, q.Unif)), nop, nop, row(q.Mov(q.R1, q.Unif))), end()), nil},

		// Mesa: no implicit scoreboard wait in the program-end instruction.
		{"thrend is the first TLB access", Fragment, prog(nop, nop, row(q.Mov(q.TLBColourAll, q.R0), q.SigProgramEnd), nop, nop),
			[]found{{2, RuleEndImplicitWait}}},
		{"thrend after an earlier TLB access", Fragment, prog(nop, nop, row(q.Mov(q.TLBZ, q.RB(15))), nop, row(q.Mov(q.TLBColourAll, q.R0), q.SigProgramEnd), nop, nop), nil},

		// Program end.
		{"no thrend", General, prog(nop, nop), []found{{1, RuleProgramEnd}}},
		{"one delay slot", General, prog(nop, thrend, nop), []found{{2, RuleProgramEnd}}},
		{"instructions after the end are not checked", General, prog(nop, thrend, nop, nop, row(q.Mov(q.R0, q.RA(14)))), nil},
	}
	for _, c := range cases {
		expect(t, c.name, c.stage, build(t, c.rows...), c.want...)
	}
}

// At least two non-branch instructions between branches.
func TestBranchSpacing(t *testing.T) {
	for _, c := range []struct {
		gap  int
		want []found
	}{{1, []found{{2, RuleBranchSpacing}}}, {2, nil}} {
		var a q.Asm
		a.I(q.Branch(q.BranchAlways, "x"))
		for i := 0; i < c.gap; i++ {
			a.I()
		}
		a.I(q.Branch(q.BranchAlways, "x"))
		a.I()
		a.I()
		a.I()
		a.Label("x")
		a.I(q.SigProgramEnd)
		a.I()
		a.I()
		expect(t, fmt.Sprintf("branches %d apart", c.gap+1), General, a.MustAssemble(), c.want...)
	}
}

// Encodings the assembler refuses, built by hand.
func TestSameDestination(t *testing.T) {
	words := build(t, nop, nop, row(q.Mov(q.TLBZ, q.R0), q.MMov(q.R1, q.R1)), nop, thrend, nop, nop)
	in := q.Decode(words[2])
	in.WaddrMul = q.WTLBZ
	words[2] = in.Encode()
	expect(t, "both write TLB_Z", Fragment, words, found{2, Rule12Peripherals}, found{2, RuleSameDestination})

	words = build(t, row(q.LoadImm2(q.VRSetup, q.VWSetup, 0x00101a00)), nop, nop, row(q.Mov(q.R0, q.VPM)), thrend, nop, nop)
	expect(t, "vr_setup and vw_setup differ", Vertex, words)
}

// The derivative code of the post "vc4: cube demo – 'from scratch'"
// (2023-07-04; doc/hardware.md#public-write-ups), word for word. The post
// shows two listings:
// three rotations followed by three fsubs (wrong output on hardware), and
// the fix, each fsub one NOP after the rotation that writes its operand.
// Its author explains the NOPs by the register-file read-after-write rule:
// without them each fsub would read the A register the rotation before it
// has just written. That adjacent form is caught (rule 7), the fix passes.
// The first listing as printed does not put any fsub right after its
// rotation, and breaks no rule we know of; the code elided around it in
// the post ("...") cannot be checked, so this test does not claim it.
func TestCubeDemoDerivatives(t *testing.T) {
	w := func(lo, hi uint32) uint64 { return uint64(hi)<<32 | uint64(lo) }
	rotA0 := w(0x809ff000, 0xd00099c0) // v8min.zs a0, r0, rot15
	rotA1 := w(0x809ff009, 0xd00099c1) // v8min.zs a1, r1, rot15
	rotA2 := w(0x809ff012, 0xd00099c2) // v8min.zs a2, r2, rot15
	subA0 := w(0x02027c00, 0x10040027) // fsub.zs a0, a0, r0
	subA1 := w(0x02067c40, 0x10040067) // fsub.zs a1, a1, r1
	subA2 := w(0x020a7c80, 0x100400a7) // fsub.zs a2, a2, r2
	nopW := w(0x009e7000, 0x100009e7)
	tail := []uint64{w(0x009e7000, 0x300009e7), nopW, nopW}
	printed := append([]uint64{nopW, nopW, rotA0, rotA1, rotA2, subA0, subA1, subA2}, tail...)
	expect(t, "cube demo first listing", Fragment, printed)
	adjacent := append([]uint64{nopW, nopW, rotA0, subA0, rotA1, subA1, rotA2, subA2}, tail...)
	expect(t, "cube demo without the NOPs", Fragment, adjacent,
		found{3, Rule7RegfileReadAfterWrite}, found{5, Rule7RegfileReadAfterWrite}, found{7, Rule7RegfileReadAfterWrite})
	fixed := append([]uint64{nopW, nopW, rotA0, nopW, subA0, rotA1, nopW, subA1, rotA2, nopW, subA2}, tail...)
	expect(t, "cube demo fixed", Fragment, fixed)
}

// Two known fragment shaders: our textured one, composed by Mesa's rules
// (vc4_program.c ntq_emit_tex, vc4_qpu_emit.c's ending), passes; the
// Broadcom driver's constant-colour shader (hermanhermitage/videocoreiv-qpu
// Traces1.md), with sbwait on its second instruction, breaks rule 5
// (erratum HW-2796).
func TestKnownFragmentShaders(t *testing.T) {
	good := build(t,
		row(q.FMul(q.R0, q.RA(15), q.Vary)),
		row(q.FAdd(q.R0, q.R0, q.R5), q.FMul(q.R1, q.RA(15), q.Vary)),
		row(q.FAdd(q.TMU0T, q.R1, q.R5)),
		row(q.Mov(q.TMU0S, q.R0)),
		row(q.SigLoadTMU0),
		row(q.Mov(q.TLBColourAll, q.R4)),
		thrend, nop, sbdone)
	expect(t, "textured FS", Fragment, good)
	blob := build(t, nop, row(q.SigScoreboardWait), row(q.Mov(q.TLBColourAll, q.Unif)), thrend, nop, sbdone)
	expect(t, "blob constant colour", Fragment, blob, found{1, Rule5EarlyScoreboard})
}

func TestViolationError(t *testing.T) {
	words := build(t, row(q.Mov(q.SFURecip, q.R0)), row(q.Mov(q.R1, q.R4)), thrend, nop, nop)
	vs := CheckWords(words, Vertex)
	if len(vs) != 1 {
		t.Fatalf("violations %v", vs)
	}
	msg := vs[0].Error()
	for _, want := range []string{"instruction 1", "mov r1, r4 ; nop", "rule 8", "Summary of Instruction Restrictions", "1 instruction(s) after"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	for _, r := range All() {
		if r.Title() == "" || r.Source() == "" || r.String() == "" {
			t.Errorf("rule %d lacks a title, source or name", r)
		}
	}
}

// A clean program is checked without allocating.
func TestCleanNoAlloc(t *testing.T) {
	words := build(t,
		row(q.FMul(q.R0, q.RA(15), q.Vary)),
		row(q.FAdd(q.R0, q.R0, q.R5), q.FMul(q.R1, q.RA(15), q.Vary)),
		row(q.FAdd(q.TMU0T, q.R1, q.R5)),
		row(q.Mov(q.TMU0S, q.R0)),
		row(q.SigLoadTMU0),
		row(q.Mov(q.TLBZ, q.RB(15))),
		row(q.Mov(q.TLBColourAll, q.R4)),
		thrend, nop, sbdone)
	insts := q.DecodeProgram(nil, words)
	if n := testing.AllocsPerRun(50, func() {
		if CheckWords(words, Fragment) != nil || Check(insts, Fragment) != nil {
			panic("violation")
		}
	}); n != 0 {
		t.Errorf("clean check allocates %v times", n)
	}
}

func BenchmarkCheckWords(b *testing.B) {
	var a q.Asm
	for i := 0; i < 60; i++ {
		a.I(q.FAdd(q.RB(i%8), q.RB(i%8), q.R3), q.FMul(q.R3, q.R1, q.Unif))
	}
	a.I(q.SigProgramEnd)
	a.I()
	a.I()
	words := a.MustAssemble()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if CheckWords(words, Vertex) != nil {
			b.Fatal("violation")
		}
	}
}

// Only the VPM read latency is known to be tolerated by the hardware
// (Mesa's shaders break it on every Pi); the checker still reports it.
func TestTolerated(t *testing.T) {
	for r := Rule(1); r < numRules; r++ {
		_, ok := r.Tolerated()
		if ok != (r == RuleVPMReadLatency) {
			t.Errorf("%v tolerated = %v", r, ok)
		}
	}
}
