package hazard

import (
	"fmt"
	"strconv"

	"github.com/vccube/vccube/shaders/qpu"
)

// Stage is the kind of program: some rules apply to fragment shaders only
// (scoreboard), and fragment shaders may not touch the VPM.
type Stage uint8

// The program kinds.
const (
	Fragment   Stage = iota + 1 // fragment shader
	Vertex                      // vertex shader (GL render pass)
	Coordinate                  // coordinate shader (GL binning pass)
	General                     // general-purpose (user) program
)

var stageNames = [...]string{"?", "fragment", "vertex", "coordinate", "general"}

// String names the stage.
func (s Stage) String() string {
	if int(s) < len(stageNames) {
		return stageNames[s]
	}
	return "stage" + strconv.Itoa(int(s))
}

// Violation is one broken rule at one instruction.
type Violation struct {
	Index  int      // instruction index (-1 for an empty program)
	Rule   Rule     // the rule broken
	Inst   qpu.Inst // the instruction at Index
	Detail string   // what exactly, e.g. which register
}

// Error formats the violation: the instruction's index and listing, the
// rule, its source and the detail.
func (v Violation) Error() string {
	var b []byte
	b = append(b, "instruction "...)
	b = strconv.AppendInt(b, int64(v.Index), 10)
	if v.Index >= 0 {
		b = append(b, " ("...)
		b = qpu.AppendInst(b, &v.Inst, v.Index)
		b = append(b, ')')
	}
	b = append(b, ": "...)
	b = append(b, v.Rule.String()...)
	b = append(b, ": "...)
	b = append(b, v.Rule.Title()...)
	b = append(b, " ["...)
	b = append(b, v.Rule.Source()...)
	b = append(b, ']')
	if v.Detail != "" {
		b = append(b, ": "...)
		b = append(b, v.Detail...)
	}
	return string(b)
}

// Check returns every violation in a decoded program, in instruction order,
// or nil. It allocates only when it finds a violation.
func Check(prog []qpu.Inst, stage Stage) []Violation {
	c := newChecker(stage)
	for i := range prog {
		if c.step(i, &prog[i]) {
			break
		}
	}
	c.finish(prog)
	return c.out
}

// CheckWords is Check for instruction words, decoded on the fly.
func CheckWords(words []uint64, stage Stage) []Violation {
	c := newChecker(stage)
	n := len(words)
	for i, w := range words {
		in := qpu.Decode(w)
		if c.step(i, &in) {
			break
		}
	}
	if c.endAt < 0 || c.endAt+2 >= n {
		c.finish(qpu.DecodeProgram(nil, words)) // allocates, but only to report
	}
	return c.out
}

const never = -1000 // index of an event that has not happened

// checker walks a program once. Its fields are the history the rules
// need: record updates them after every check has seen the instruction,
// so each check sees the program as it was before that instruction.
type checker struct {
	stage Stage
	out   []Violation

	prev               qpu.Inst
	hasPrev            bool
	prevWritesPhysical bool // prev writes a register-file location
	endAt              int  // the program-end instruction, -1 before it
	lastSFU            int
	lastNoSwap         int
	firstTMUWrite      int
	lastZWrite         int
	lastUnifAddr       int
	lastBranch         int
	branchSeen         bool

	tlbSeen    bool // a tile-buffer access or sbwait has happened
	tlbLocked  bool // ... and no sbdone since
	tmuPending [2]int

	lastSwitch     int
	switchInst     qpu.Inst // the last thread-switch instruction
	switchAt       int      // index at which the last thread switch takes effect
	lastSwitchSeen bool
	requests       int
	reads          int
	reqBeforePrev  int
	reqAtSwitch    int

	vpmKnown     bool     // the read setups so far were load immediates
	vpm          vpmQueue // the read setups still pending
	lastVPMSetup int
}

// vpmQueue is the VPM read setups still pending (at most two, AG §7
// "QPU Reading and Writing of VPM").
type vpmQueue struct {
	left    [2]int // reads still to come, per pending setup
	setupAt [2]int // where each pending setup was written
	queued  int
}

func newChecker(stage Stage) checker {
	return checker{
		stage: stage, endAt: -1, lastSFU: never, lastNoSwap: never, firstTMUWrite: -1,
		lastZWrite: never, lastUnifAddr: never, lastBranch: never, lastSwitch: never,
		switchAt: never, vpmKnown: true, lastVPMSetup: never,
	}
}

// inst is one instruction as the checks see it, with the facts several of
// them need, worked out once by observe.
type inst struct {
	i   int
	in  *qpu.Inst
	sig qpu.Signal // the ALU signal; SigNone for load immediates, semaphores and branches (sig 14, 15 are kinds)

	inEnd           bool // the program end or one of its two delay slots
	tmuWrites       int  // TMU registers written
	implicitUniform bool // a TMU parameter write pops a uniform
	readsUnif       bool // a read address names UNIFORM_READ
	writesNoSwap    bool // TMU_NOSWAP is written
	fifoWrite       bool // TMU0_S, TMU1_S or VPM is written
	peripherals     int  // closely coupled peripheral accesses (rule 12)
	branch          bool
	threadSwitch    bool // a thread switch or last thread switch signal
	rotates, byR5   bool // a mul op with a vector rotation, by r5
	readsVPM        bool // a read of VPM_READ
	vpmSetup        bool // a write to VPMVCD_RD_SETUP
}

func (c *checker) report(x *inst, r Rule, detail string) {
	c.out = append(c.out, Violation{Index: x.i, Rule: r, Inst: *x.in, Detail: detail})
}

// tlbAccess reports a tile-buffer read or write: TLB_Z, colour or alpha
// mask writes, and the coverage, colour and alpha-mask load signals (AG §5).
func tlbAccess(in *qpu.Inst) bool {
	if in.WritesTLB() {
		return true
	}
	switch in.Sig {
	case qpu.SigCoverageLoad, qpu.SigColourLoad, qpu.SigColourLoadProgramEnd, qpu.SigAlphaMaskLoad:
		return in.IsALU()
	}
	return false
}

func vpmAccess(in *qpu.Inst) bool {
	for _, r := range [3]qpu.RAddr{qpu.RVPM, qpu.RVPMBusy, qpu.RVPMWait} {
		if in.ReadsEither(r) {
			return true
		}
	}
	return in.Writes(qpu.WVPM) || in.Writes(qpu.WVPMVCDSetup) || in.Writes(qpu.WVPMAddr)
}

func isThreadSwitch(s qpu.Signal) bool {
	return s == qpu.SigThreadSwitch || s == qpu.SigLastThreadSwitch
}

// step checks instruction i and reports whether the program has ended
// (i is the second delay slot of the program end).
//
// Its body is the table of the checks: one method per rule, named after
// the rule it checks (rules.go states each rule and its source), called
// in the order of one instruction's violations. Each method tests its
// whole rule; the conditions around the calls only skip those that
// cannot fire, so that a clean instruction costs a few comparisons (the
// GPU model checks every program it is given). RuleVPMReadCount has two
// methods, the count left at the program end and the reads and setups
// along the way; RuleProgramEnd is checked once the walk is over (finish).
// The history the methods read is updated by record, after all of them.
func (c *checker) step(i int, in *qpu.Inst) bool {
	x := c.observe(i, in)
	if x.inEnd {
		c.rule1EndFIFO(&x)
		c.rule3EndLocation14(&x)
		if i == c.endAt {
			c.rule2EndRegfileWrite(&x)
			c.ruleEndImplicitWait(&x)
			c.ruleVPMReadCountAtEnd(&x)
		}
		c.rule4FinalTLBZ(&x)
	}
	if i < 2 {
		c.rule5EarlyScoreboard(&x)
	}
	if x.tmuWrites > 0 || x.writesNoSwap {
		c.rule6TMUNoSwap(&x)
	}
	if c.prevWritesPhysical {
		c.rule7RegfileReadAfterWrite(&x)
	}
	if x.rotates && c.hasPrev {
		c.rule9RotateR5(&x)
		c.rule10RotateAccumulator(&x)
	}
	if i-c.lastSFU <= 2 {
		c.rule8SFUR4(&x)
	}
	if i-c.lastZWrite <= 2 {
		c.rule11TLBZMSFlags(&x)
	}
	if x.peripherals > 1 {
		c.rule12Peripherals(&x)
	}
	if x.readsUnif && x.implicitUniform {
		c.ruleTMUUniform(&x)
	}
	if x.fifoWrite {
		c.ruleConditionalFIFOWrite(&x)
	}
	if in.WaddrAdd == in.WaddrMul {
		c.ruleSameDestination(&x)
	}
	if x.branch {
		c.ruleBranchSpacing(&x)
	}
	if i-c.lastUnifAddr <= 2 {
		c.ruleUniformsAddress(&x)
	}
	if x.threadSwitch || x.sig.EndsProgram() {
		c.ruleZWriteThreadSignal(&x)
	}
	if i == c.switchAt {
		c.ruleThreadSwitchTexture(&x)
	}
	if x.threadSwitch {
		c.ruleThreadSwitchScoreboard(&x)
		c.ruleThreadSwitchAfterLast(&x)
		c.ruleThreadSwitchSpacing(&x)
	}
	if c.stage == Fragment {
		c.ruleFragmentVPM(&x)
	} else if x.readsVPM || x.vpmSetup {
		c.ruleVPMReadLatency(&x)
		c.ruleVPMReadCount(&x)
	}
	c.record(&x)
	return c.endAt >= 0 && i >= c.endAt+2
}

// observe works out the facts about instruction i that several checks
// need. It is where the program end is found and where TMU writes are
// counted, since whether a TMU write pops a uniform depends on the writes
// before it in the same request (all but a direct lookup, an S write with
// no parameter written before it, AG §4 "TMU Setup").
func (c *checker) observe(i int, in *qpu.Inst) inst {
	x := inst{i: i, in: in, sig: in.Sig}
	if !in.IsALU() {
		x.sig = qpu.SigNone
	}
	if in.EndsProgram() && c.endAt < 0 {
		c.endAt = i
	}
	x.inEnd = c.endAt >= 0 && i >= c.endAt && i <= c.endAt+2
	for _, w := range [2]qpu.WAddr{in.WaddrAdd, in.WaddrMul} {
		if !w.IsTMU() {
			continue
		}
		x.tmuWrites++
		t := int(w-qpu.WTMU0S) / 4
		if w.IsTMUSubmit() {
			if c.tmuPending[t] > 0 {
				x.implicitUniform = true
			}
			c.tmuPending[t] = 0
			c.requests++
		} else {
			c.tmuPending[t]++
			x.implicitUniform = true
		}
	}
	x.readsUnif = in.ReadsUniform()
	x.writesNoSwap = in.Writes(qpu.WTMUNoSwap)
	x.fifoWrite = in.WaddrAdd.IsTMUSubmit() || in.WaddrMul.IsTMUSubmit() || in.WaddrAdd == qpu.WVPM || in.WaddrMul == qpu.WVPM
	x.peripherals = peripheralAccesses(in, x.tmuWrites)
	x.branch = in.IsBranch()
	x.threadSwitch = isThreadSwitch(x.sig)
	_, x.byR5, x.rotates = in.Rotation()
	x.rotates = x.rotates && in.MulUsed()
	x.readsVPM = in.ReadsVPM()
	x.vpmSetup = in.WritesFileIO(qpu.FileA, qpu.WVPMVCDSetup)
	return x
}

// record adds instruction x to the history, once every check has seen it.
func (c *checker) record(x *inst) {
	i, in, sig := x.i, x.in, x.sig
	if x.writesNoSwap {
		c.lastNoSwap = i
	}
	if x.tmuWrites > 0 && c.firstTMUWrite < 0 {
		c.firstTMUWrite = i
	}
	if in.WritesSFU() {
		c.lastSFU = i
	}
	if in.Writes(qpu.WTLBZ) {
		c.lastZWrite = i
	}
	if x.branch {
		c.lastBranch = i
		c.branchSeen = true
	}
	if in.Writes(qpu.WUniformsAddress) {
		c.lastUnifAddr = i
	}

	// Threads. A switch takes effect after its two delay slots (Mesa's
	// vc4_qpu_validate.c checks there too).
	if i == c.switchAt {
		c.reqBeforePrev = c.reqAtSwitch
	}
	if x.threadSwitch {
		c.lastSwitch, c.switchInst = i, *in
		c.switchAt = i + 3
		if sig == qpu.SigLastThreadSwitch {
			c.lastSwitchSeen = true
		}
	}
	if i+1 == c.switchAt {
		c.reqAtSwitch = c.requests
	}
	if sig == qpu.SigLoadTMU0 || sig == qpu.SigLoadTMU1 {
		c.reads++
	}
	if tlbAccess(in) || sig == qpu.SigScoreboardWait {
		c.tlbSeen, c.tlbLocked = true, true
	}
	if sig == qpu.SigScoreboardUnlock {
		c.tlbLocked = false
	}

	if c.stage != Fragment {
		if x.readsVPM || x.vpmSetup {
			c.vpm, _, _ = c.vpmAfter(x)
		}
		if x.vpmSetup {
			if in.Kind() != qpu.KindLoadImm || in.LoadMode != qpu.LoadImm32 {
				c.vpmKnown = false
				c.lastVPMSetup = i
			} else if in.Imm>>30 == 0 {
				c.lastVPMSetup = i
			}
		}
	}

	c.prev, c.hasPrev = *in, true
	c.prevWritesPhysical = in.WaddrAdd.IsPhysical() || in.WaddrMul.IsPhysical()
}

// rule1EndFIFO checks Rule1EndFIFO: no varying, uniform or VPM access in the
// program end and its delay slots.
func (c *checker) rule1EndFIFO(x *inst) {
	if !x.inEnd {
		return
	}
	switch {
	case x.in.ReadsVarying():
		c.report(x, Rule1EndFIFO, "reads a varying")
	case x.readsUnif || x.implicitUniform:
		c.report(x, Rule1EndFIFO, "reads a uniform")
	case vpmAccess(x.in):
		c.report(x, Rule1EndFIFO, "accesses the VPM")
	}
}

// rule3EndLocation14 checks Rule3EndLocation14: location 14 of either file is
// neither read nor written in the program end and its delay slots.
func (c *checker) rule3EndLocation14(x *inst) {
	in := x.in
	if x.inEnd && (in.WaddrAdd == 14 || in.WaddrMul == 14 || in.UsesPhysical(qpu.FileA, 14) || in.UsesPhysical(qpu.FileB, 14)) {
		c.report(x, Rule3EndLocation14, "the next thread's W and Z arrive at location 14")
	}
}

// rule2EndRegfileWrite checks Rule2EndRegfileWrite: the program-end
// instruction writes no physical register.
func (c *checker) rule2EndRegfileWrite(x *inst) {
	if x.i != c.endAt {
		return
	}
	for _, w := range [2]qpu.WAddr{x.in.WaddrAdd, x.in.WaddrMul} {
		if w.IsPhysical() {
			c.report(x, Rule2EndRegfileWrite, "writes register "+strconv.Itoa(int(w)))
			return
		}
	}
}

// ruleEndImplicitWait checks RuleEndImplicitWait: a fragment shader's
// program-end instruction is not its first tile-buffer access.
func (c *checker) ruleEndImplicitWait(x *inst) {
	if x.i == c.endAt && c.stage == Fragment && tlbAccess(x.in) && !c.tlbSeen {
		c.report(x, RuleEndImplicitWait, "")
	}
}

// ruleVPMReadCountAtEnd checks RuleVPMReadCount at the program end: every
// programmed VPM read has been made.
func (c *checker) ruleVPMReadCountAtEnd(x *inst) {
	if x.i != c.endAt || !c.vpmKnown || c.branchSeen || c.vpm.queued == 0 {
		return
	}
	left := 0
	for k := 0; k < c.vpm.queued; k++ {
		left += c.vpm.left[k]
	}
	c.report(x, RuleVPMReadCount, strconv.Itoa(left)+" programmed VPM reads not consumed")
}

// rule4FinalTLBZ checks Rule4FinalTLBZ: the second delay slot does not write
// TLB_Z.
func (c *checker) rule4FinalTLBZ(x *inst) {
	if c.endAt >= 0 && x.i == c.endAt+2 && x.in.Writes(qpu.WTLBZ) {
		c.report(x, Rule4FinalTLBZ, "")
	}
}

// rule5EarlyScoreboard checks Rule5EarlyScoreboard: no scoreboard wait,
// explicit or implied by a tile-buffer access, in a fragment shader's
// first two instructions.
func (c *checker) rule5EarlyScoreboard(x *inst) {
	if c.stage == Fragment && x.i < 2 && (x.sig == qpu.SigScoreboardWait || tlbAccess(x.in)) {
		c.report(x, Rule5EarlyScoreboard, "")
	}
}

// rule6TMUNoSwap checks Rule6TMUNoSwap: TMU_NOSWAP is written three or more
// instructions before the first TMU write, never after it.
func (c *checker) rule6TMUNoSwap(x *inst) {
	noSwap := c.lastNoSwap
	if x.writesNoSwap {
		if c.firstTMUWrite >= 0 {
			c.report(x, Rule6TMUNoSwap, "written after the first TMU write (instruction "+strconv.Itoa(c.firstTMUWrite)+")")
		}
		noSwap = x.i
	}
	if x.tmuWrites > 0 && c.firstTMUWrite < 0 && x.i-noSwap < 3 {
		c.report(x, Rule6TMUNoSwap, "TMU_NOSWAP written at instruction "+strconv.Itoa(noSwap))
	}
}

// rule7RegfileReadAfterWrite checks Rule7RegfileReadAfterWrite: no forwarding
// from the register files, so a location written by the previous
// instruction is not read.
func (c *checker) rule7RegfileReadAfterWrite(x *inst) {
	if !c.hasPrev {
		return
	}
	p := &c.prev
	for k, w := range [2]qpu.WAddr{p.WaddrAdd, p.WaddrMul} {
		f := p.AddFile()
		if k == 1 {
			f = p.MulFile()
		}
		if w.IsPhysical() && x.in.UsesPhysical(f, uint8(w)) {
			c.report(x, Rule7RegfileReadAfterWrite, w.Name(f)+" was written by instruction "+strconv.Itoa(x.i-1))
		}
	}
}

// rule9RotateR5 checks Rule9RotateR5: a rotate by r5 does not directly follow
// a write to r5.
func (c *checker) rule9RotateR5(x *inst) {
	if x.rotates && x.byR5 && c.hasPrev && c.prev.WritesR5() {
		c.report(x, Rule9RotateR5, "r5 was written by instruction "+strconv.Itoa(x.i-1))
	}
}

// rule10RotateAccumulator checks Rule10RotateAccumulator: a rotate does not
// directly follow a write to the accumulator it rotates.
func (c *checker) rule10RotateAccumulator(x *inst) {
	if !x.rotates || !c.hasPrev {
		return
	}
	p := &c.prev
	for _, m := range [2]qpu.Mux{x.in.MulA, x.in.MulB} {
		written := false
		switch {
		case m <= qpu.MuxR3:
			written = p.Writes(qpu.WAcc0 + qpu.WAddr(m))
		case m == qpu.MuxR4:
			written = p.IsALU() && p.Sig.LoadsR4()
		case m == qpu.MuxR5:
			written = p.WritesR5()
		}
		if written {
			c.report(x, Rule10RotateAccumulator, m.String()+" was written by instruction "+strconv.Itoa(x.i-1))
			return
		}
	}
}

// rule8SFUR4 checks Rule8SFUR4: for two instructions after an SFU write, r4
// is neither read nor written again.
func (c *checker) rule8SFUR4(x *inst) {
	d := x.i - c.lastSFU
	if d > 2 {
		return
	}
	switch {
	case x.in.ReadsAccumulator(4):
		c.report(x, Rule8SFUR4, "reads r4 "+strconv.Itoa(d)+" instruction(s) after the SFU write")
	case x.in.WritesSFU() || x.sig.LoadsR4():
		c.report(x, Rule8SFUR4, "writes r4 "+strconv.Itoa(d)+" instruction(s) after the SFU write")
	}
}

// rule11TLBZMSFlags checks Rule11TLBZMSFlags: MS_FLAGS is not read in the two
// instructions after a TLB_Z write.
func (c *checker) rule11TLBZMSFlags(x *inst) {
	if x.i-c.lastZWrite <= 2 && x.in.UsesRead(qpu.FileA, qpu.RMSFlagsRev) {
		c.report(x, Rule11TLBZMSFlags, "TLB_Z written at instruction "+strconv.Itoa(c.lastZWrite))
	}
}

// rule12Peripherals checks Rule12Peripherals: one closely coupled peripheral
// access per instruction.
func (c *checker) rule12Peripherals(x *inst) {
	if x.peripherals > 1 {
		c.report(x, Rule12Peripherals, strconv.Itoa(x.peripherals)+" accesses")
	}
}

// ruleTMUUniform checks RuleTMUUniform: an instruction whose TMU write pops a
// uniform does not also read one.
func (c *checker) ruleTMUUniform(x *inst) {
	if x.readsUnif && x.implicitUniform {
		c.report(x, RuleTMUUniform, "")
	}
}

// ruleConditionalFIFOWrite checks RuleConditionalFIFOWrite: TMUn_S and VPM
// are written unconditionally.
func (c *checker) ruleConditionalFIFOWrite(x *inst) {
	in := x.in
	if x.branch {
		return
	}
	for k, w := range [2]qpu.WAddr{in.WaddrAdd, in.WaddrMul} {
		cond := in.CondAdd
		if k == 1 {
			cond = in.CondMul
		}
		if (w.IsTMUSubmit() || w == qpu.WVPM) && cond != qpu.CondAlways {
			c.report(x, RuleConditionalFIFOWrite, w.Name(qpu.FileA)+" written with condition "+cond.String())
		}
	}
}

// ruleSameDestination checks RuleSameDestination: the two ALUs do not write
// the same accumulator or I/O register.
func (c *checker) ruleSameDestination(x *inst) {
	in := x.in
	if x.branch || in.WaddrAdd != in.WaddrMul || in.WaddrAdd < 32 || in.WaddrAdd == qpu.WNop {
		return
	}
	switch in.WaddrAdd {
	case qpu.WQuadXY, qpu.WMSFlagsRev, qpu.WVPMVCDSetup, qpu.WVPMAddr:
		// different registers in files A and B; the ALUs always
		// write different files.
	default:
		c.report(x, RuleSameDestination, in.WaddrAdd.Name(in.AddFile()))
	}
}

// ruleBranchSpacing checks RuleBranchSpacing: two non-branch instructions at
// least between two branches.
func (c *checker) ruleBranchSpacing(x *inst) {
	if x.branch && x.i-c.lastBranch < 3 {
		c.report(x, RuleBranchSpacing, "previous branch at instruction "+strconv.Itoa(c.lastBranch))
	}
}

// ruleUniformsAddress checks RuleUniformsAddress: no uniform is read in the
// two instructions after a UNIFORMS_ADDRESS write.
func (c *checker) ruleUniformsAddress(x *inst) {
	if x.i-c.lastUnifAddr <= 2 && (x.readsUnif || x.implicitUniform) {
		c.report(x, RuleUniformsAddress, "UNIFORMS_ADDRESS written at instruction "+strconv.Itoa(c.lastUnifAddr))
	}
}

// ruleZWriteThreadSignal checks RuleZWriteThreadSignal (HW-2806): a thread
// switch or program end is not in the same instruction as a TLB_Z write,
// nor in the next.
func (c *checker) ruleZWriteThreadSignal(x *inst) {
	if !x.threadSwitch && !x.sig.EndsProgram() {
		return
	}
	z := c.lastZWrite
	if x.in.Writes(qpu.WTLBZ) {
		z = x.i
	}
	if x.i-z < 2 {
		c.report(x, RuleZWriteThreadSignal, "TLB_Z written at instruction "+strconv.Itoa(z))
	}
}

// ruleThreadSwitchTexture checks RuleThreadSwitchTexture: when a thread
// switch takes effect (after its delay slots), the texture results
// requested before the previous one have been read. It is reported at the
// switch.
func (c *checker) ruleThreadSwitchTexture(x *inst) {
	if x.i == c.switchAt && c.reads < c.reqBeforePrev {
		c.out = append(c.out, Violation{Index: c.lastSwitch, Rule: RuleThreadSwitchTexture, Inst: c.switchInst, Detail: strconv.Itoa(c.reqBeforePrev-c.reads) +
			" texture results requested before the previous thread switch are unread when this one takes effect"})
	}
}

// ruleThreadSwitchScoreboard checks RuleThreadSwitchScoreboard: no thread
// switch while the scoreboard is held.
func (c *checker) ruleThreadSwitchScoreboard(x *inst) {
	if x.threadSwitch && c.tlbLocked {
		c.report(x, RuleThreadSwitchScoreboard, "")
	}
}

// ruleThreadSwitchAfterLast checks RuleThreadSwitchAfterLast: no thread
// switch after the last one.
func (c *checker) ruleThreadSwitchAfterLast(x *inst) {
	if x.threadSwitch && c.lastSwitchSeen {
		c.report(x, RuleThreadSwitchAfterLast, "")
	}
}

// ruleThreadSwitchSpacing checks RuleThreadSwitchSpacing: no thread switch in
// the delay slots of another.
func (c *checker) ruleThreadSwitchSpacing(x *inst) {
	if x.threadSwitch && x.i-c.lastSwitch < 3 {
		c.report(x, RuleThreadSwitchSpacing, "previous thread switch at instruction "+strconv.Itoa(c.lastSwitch))
	}
}

// ruleFragmentVPM checks RuleFragmentVPM: a fragment shader does not touch
// the VPM.
func (c *checker) ruleFragmentVPM(x *inst) {
	if c.stage == Fragment && vpmAccess(x.in) {
		c.report(x, RuleFragmentVPM, "")
	}
}

// vpmCounted reports whether VPM reads are counted at x: the read setups
// so far are known and the code is straight so far (x included).
func (c *checker) vpmCounted(x *inst) bool {
	return c.vpmKnown && !c.branchSeen && !x.branch
}

// ruleVPMReadLatency checks RuleVPMReadLatency: a VPM read comes three or
// more instructions after the setup that serves it: the oldest pending
// one when the setups are known, else the latest.
func (c *checker) ruleVPMReadLatency(x *inst) {
	if c.stage == Fragment || !x.readsVPM {
		return
	}
	setup := c.lastVPMSetup
	if c.vpmCounted(x) && c.vpm.queued > 0 {
		setup = c.vpm.setupAt[0]
	}
	if x.i-setup < 3 {
		c.report(x, RuleVPMReadLatency, "read setup at instruction "+strconv.Itoa(setup))
	}
}

// ruleVPMReadCount checks RuleVPMReadCount along the program: no read beyond
// the programmed count, no third pending setup.
func (c *checker) ruleVPMReadCount(x *inst) {
	if c.stage == Fragment {
		return
	}
	_, beyond, ignored := c.vpmAfter(x)
	if beyond {
		c.report(x, RuleVPMReadCount, "read beyond the programmed count")
	}
	if ignored {
		c.report(x, RuleVPMReadCount, "two read setups already pending: this setup is ignored")
	}
}

// vpmAfter returns the pending read setups after instruction x (its VPM
// read first, then its read setup), whether x reads beyond the programmed
// count and whether its setup finds two pending and is ignored. Only a
// load immediate's value is known; a generic block read setup has bits
// 31:30 = 0 and NUM in bits 23:20, 0 meaning 16 (AG Table 33). A setup
// with bits 31:30 set is a VCD DMA setup, not a read of the VPM by this
// QPU.
func (c *checker) vpmAfter(x *inst) (q vpmQueue, beyond, ignored bool) {
	in := x.in
	q = c.vpm
	counted := c.vpmCounted(x)
	if x.readsVPM && counted {
		if q.queued == 0 {
			beyond = true
		} else if q.left[0]--; q.left[0] == 0 {
			q.left[0], q.left[1] = q.left[1], 0
			q.setupAt[0] = q.setupAt[1]
			q.queued--
		}
	}
	if !counted || !x.vpmSetup ||
		in.Kind() != qpu.KindLoadImm || in.LoadMode != qpu.LoadImm32 || in.Imm>>30 != 0 {
		return q, beyond, false
	}
	if q.queued == 2 {
		return q, beyond, true
	}
	num := int(in.Imm >> 20 & 15)
	if num == 0 {
		num = 16
	}
	q.left[q.queued] = num
	q.setupAt[q.queued] = x.i
	q.queued++
	return q, beyond, false
}

// peripheralAccesses counts the closely coupled peripheral accesses of
// rule 12. A colour load together with a TLB_COLOUR_MS write is the
// "combined colour read and write" and counts once (AG §5 "Tile Buffer
// Access Restrictions").
func peripheralAccesses(in *qpu.Inst, tmuWrites int) int {
	n := tmuWrites
	colourMSWrite := false
	for _, w := range [2]qpu.WAddr{in.WaddrAdd, in.WaddrMul} {
		switch {
		case w.IsSFU(), w.IsTLB():
			n++
		}
		if w == qpu.WTLBColourMS {
			colourMSWrite = true
		}
	}
	if in.IsALU() {
		switch in.Sig {
		case qpu.SigLoadTMU0, qpu.SigLoadTMU1, qpu.SigCoverageLoad, qpu.SigAlphaMaskLoad:
			n++
		case qpu.SigColourLoad, qpu.SigColourLoadProgramEnd:
			if !colourMSWrite {
				n++
			}
		}
	}
	if in.ReadsEither(qpu.RMutexAcquire) {
		n++
	}
	if in.Kind() == qpu.KindSemaphore {
		n++
	}
	return n
}

// finish reports a missing program end or missing delay slots.
func (c *checker) finish(prog []qpu.Inst) {
	n := len(prog)
	last := n - 1
	var in qpu.Inst
	if last >= 0 {
		in = prog[last]
	}
	switch {
	case c.endAt < 0:
		c.out = append(c.out, Violation{Index: last, Rule: RuleProgramEnd, Inst: in, Detail: "no program-end signal"})
	case c.endAt+2 >= n:
		c.out = append(c.out, Violation{Index: last, Rule: RuleProgramEnd, Inst: in,
			Detail: fmt.Sprintf("program end at instruction %d has only %d delay slot(s)", c.endAt, n-1-c.endAt)})
	}
}
