// Package hazard checks QPU programs against the VideoCore IV's instruction
// restrictions: the reference guide's "Summary of Instruction Restrictions"
// (AG §3, page 37; doc/hardware.md#qpu-restrictions), the further rules
// listed there, and the VPM read-setup latency (AG §7 "QPU Reading and
// Writing of VPM"; doc/hardware.md#vpm). Real hardware does not trap when a
// rule is broken: it computes something else, silently. The project's
// shaders pass this checker; it is fast and allocation-free on clean
// programs so that the GPU model can run it on every program it is given.
//
// The checker walks the program in address order up to the first program
// end and its two delay slots, as the kernel's validator does (Linux
// vc4_validate_shaders.c); instructions after that never run. Rules that
// count (VPM reads) assume straight-line code and are not applied to
// programs with branches.
//
// Conventions (following Mesa's vc4_qpu_validate.c and the kernel): a
// write is any write address other than NOP, whatever the opcode and
// condition; a physical register is "read" when a used operand (the mux of
// an add or mul op that is not NOP) takes it; a FIFO (uniforms, varyings,
// VPM) is "read" when a read address names it, since that alone pops it.
package hazard

import "strconv"

// Rule identifies one restriction.
type Rule uint8

// The rules. Rule1..Rule12 are the twelve items of the guide's summary in
// its order; the others are the further rules of
// doc/hardware.md#qpu-restrictions, each with the source named in its
// entry below.
const (
	Rule1EndFIFO               Rule = iota + 1 // last three instructions: no varyings, uniforms or VPM/VDR/VDW
	Rule2EndRegfileWrite                       // program-end instruction writes no physical register
	Rule3EndLocation14                         // last three instructions: no access to location 14
	Rule4FinalTLBZ                             // final instruction: no TLB Z write
	Rule5EarlyScoreboard                       // FS: no scoreboard wait in the first two instructions
	Rule6TMUNoSwap                             // TMU_NOSWAP written 3+ instructions before the first TMU write
	Rule7RegfileReadAfterWrite                 // no read of a physical location written by the previous instruction
	Rule8SFUR4                                 // 2 instructions after an SFU write: no r4 read, no other r4 producer
	Rule9RotateR5                              // rotate by r5 not right after an r5 write
	Rule10RotateAccumulator                    // rotate not right after a write to the rotated accumulator
	Rule11TLBZMSFlags                          // 2 instructions after a TLB Z write: no MS_FLAGS read
	Rule12Peripherals                          // one closely coupled peripheral access per instruction

	RuleTMUUniform           // a TMU parameter write does not also read a uniform
	RuleConditionalFIFOWrite // writes to TMUn_S and VPM are unconditional
	RuleThreadSwitchScoreboard
	RuleThreadSwitchAfterLast
	RuleThreadSwitchSpacing
	RuleThreadSwitchTexture
	RuleZWriteThreadSignal // HW-2806
	RuleVPMReadLatency
	RuleVPMReadCount
	RuleFragmentVPM
	RuleUniformsAddress
	RuleEndImplicitWait
	RuleProgramEnd
	RuleSameDestination
	RuleBranchSpacing

	numRules
)

type ruleInfo struct {
	title  string
	source string
}

const summary = `AG §3 "Summary of Instruction Restrictions"`

var rules = [numRules]ruleInfo{
	Rule1EndFIFO: {"the program-end instruction and its two delay slots must not read varyings or uniforms or access the VPM, VDR or VDW", summary},
	Rule2EndRegfileWrite: {"the program-end instruction must not write physical register file A or B", summary +
		`; AG §3 "Thread Control"`},
	Rule3EndLocation14: {"the program-end instruction and its two delay slots must not read or write location 14 of file A or B", summary},
	Rule4FinalTLBZ:     {"the final instruction (second delay slot) must not write TLB_Z", summary},
	Rule5EarlyScoreboard: {"a fragment shader must not wait for the scoreboard (sbwait, or its first tile-buffer access) in its first two instructions",
		summary + "; erratum HW-2796 (AG Appendix A)"},
	Rule6TMUNoSwap: {"TMU_NOSWAP must be written at least three instructions before the first TMU write", summary},
	Rule7RegfileReadAfterWrite: {"an instruction must not read a physical register-file location written by the previous instruction",
		summary},
	Rule8SFUR4: {"for two instructions after an SFU write, r4 must not be read and no other r4 write (SFU, TMU read, tile-buffer read) may start",
		summary + `; AG §3 "Special Functions Unit"`},
	Rule9RotateR5:           {"a rotate by r5 must not directly follow a write to r5 (a varying read writes r5 too)", summary + `; AG §3 "Varyings"`},
	Rule10RotateAccumulator: {"a rotate must not directly follow a write to the accumulator being rotated", summary},
	Rule11TLBZMSFlags:       {"MS_FLAGS must not be read in the two instructions after a TLB_Z write", summary},
	Rule12Peripherals: {"at most one of TMU write, TMU read, TLB write, TLB read, TLB combined colour read and write, SFU write, mutex read or semaphore access per instruction",
		summary + `; AG §5 "Tile Buffer Access Restrictions"`},
	RuleTMUUniform: {"an instruction writing a TMU parameter (which pops a uniform) must not also read a uniform",
		`AG §3 "Texture and Memory Units"; Linux vc4_validate_shaders.c check_tmu_write`},
	RuleConditionalFIFOWrite: {"writes to TMU0_S, TMU1_S and VPM must not be conditional: the FIFO is triggered whatever the condition",
		`vc4asm addendum "No conditional write to peripheral registers"`},
	RuleThreadSwitchScoreboard: {"no thread switch while holding the scoreboard", `Mesa vc4_qpu_validate.c (threaded fragment shaders)`},
	RuleThreadSwitchAfterLast:  {"no thread switch after the last thread switch", `AG §3 "Thread Control"; Mesa vc4_qpu_validate.c`},
	RuleThreadSwitchSpacing: {"a thread switch must not be in the two delay slots of another",
		`AG §3 "Thread Control"; Linux vc4_validate_shaders.c; Mesa vc4_qpu_validate.c`},
	RuleThreadSwitchTexture: {"texture results requested before a thread switch must be read before the next thread switch",
		`Mesa vc4_qpu_validate.c`},
	RuleZWriteThreadSignal: {"leave at least one instruction between a TLB_Z write and a thread switch or end signal",
		"erratum HW-2806 (AG Appendix A); spacing as Mesa's vc4_qpu_emit.c emits it"},
	RuleVPMReadLatency: {"a VPM read must be at least three instructions after the VPM read setup",
		`AG §7 "QPU Reading and Writing of VPM"`},
	RuleVPMReadCount: {"VPM reads must match the read setups: none beyond the programmed count, at most two setups pending, all consumed before program end",
		`AG §3 "Vertex Pipeline Memory", AG §7 "QPU Reading and Writing of VPM"`},
	RuleFragmentVPM: {"a fragment shader must not access the VPM", `AG §3 "Vertex Pipeline Memory"`},
	RuleUniformsAddress: {"after a write to UNIFORMS_ADDRESS, two instructions must pass before uniforms are accessed",
		`AG §3 "Uniforms"`},
	RuleEndImplicitWait: {"the program-end instruction must not be a fragment shader's first tile-buffer access (implicit scoreboard wait)",
		`Mesa vc4_qpu_validate.c, vc4_qpu_emit.c`},
	RuleProgramEnd: {"a program must end with a program-end signal followed by two delay-slot instructions",
		`AG §3 "Thread Control"; Linux vc4_validate_shaders.c`},
	RuleSameDestination: {"the add and mul ALUs must not write the same accumulator or I/O register", `AG §3 "ALU Instructions"`},
	RuleBranchSpacing: {"at least two non-branch instructions between two branches",
		`vc4asm addendum "Distance of branch instructions"; AG §3 "Branch Instruction"`},
}

// tolerated says, for the rules the hardware is known to tolerate, why.
var tolerated = map[Rule]string{
	RuleVPMReadLatency: "Mesa's vc4 compiler gives a VPM read setup a latency of one instruction (vc4_qpu_schedule.c waddr_latency) " +
		"and its vertex and coordinate shaders read the VPM in the very next instruction, which every Raspberry Pi 0-3 " +
		"runs correctly: the read stalls until its data is there, as the vc4asm addendum measured",
}

// Tolerated reports whether the hardware is known to run code that breaks
// the rule correctly, and why: the guide asks for it, but hardware-proven
// code (Mesa's vc4 driver on every Pi) breaks it and works. Our own
// shaders still keep such a rule (a checker of our encoders reports it);
// the GPU model runs code that breaks it as the hardware does.
func (r Rule) Tolerated() (why string, ok bool) {
	why, ok = tolerated[r]
	return why, ok
}

// Title states the rule.
func (r Rule) Title() string {
	if r == 0 || r >= numRules {
		return "unknown rule"
	}
	return rules[r].title
}

// Source names where the rule comes from.
func (r Rule) Source() string {
	if r == 0 || r >= numRules {
		return ""
	}
	return rules[r].source
}

// Number returns 1-12 for the items of the guide's summary, 0 for the
// others.
func (r Rule) Number() int {
	if r >= Rule1EndFIFO && r <= Rule12Peripherals {
		return int(r)
	}
	return 0
}

var ruleNames = [numRules]string{
	RuleTMUUniform: "tmu-uniform", RuleConditionalFIFOWrite: "conditional-fifo-write",
	RuleThreadSwitchScoreboard: "thrsw-scoreboard", RuleThreadSwitchAfterLast: "thrsw-after-last",
	RuleThreadSwitchSpacing: "thrsw-spacing", RuleThreadSwitchTexture: "thrsw-texture",
	RuleZWriteThreadSignal: "hw-2806", RuleVPMReadLatency: "vpm-read-latency", RuleVPMReadCount: "vpm-read-count",
	RuleFragmentVPM: "fragment-vpm", RuleUniformsAddress: "uniforms-address", RuleEndImplicitWait: "end-implicit-wait",
	RuleProgramEnd: "program-end", RuleSameDestination: "same-destination", RuleBranchSpacing: "branch-spacing",
}

// String returns "rule N" for the guide's twelve, or a short name.
func (r Rule) String() string {
	if n := r.Number(); n != 0 {
		return "rule " + strconv.Itoa(n)
	}
	if r < numRules && ruleNames[r] != "" {
		return ruleNames[r]
	}
	return "rule?" + strconv.Itoa(int(r))
}

// All returns every rule the checker applies.
func All() []Rule {
	r := make([]Rule, 0, numRules-1)
	for i := Rule(1); i < numRules; i++ {
		r = append(r, i)
	}
	return r
}
