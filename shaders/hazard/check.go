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

type checker struct {
	stage Stage
	out   []Violation

	prev          qpu.Inst
	hasPrev       bool
	endAt         int
	lastSFU       int
	lastNoSwap    int
	firstTMUWrite int
	lastZWrite    int
	lastUnifAddr  int
	lastBranch    int
	branchSeen    bool

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

	vpmKnown     bool   // the read setups so far were load immediates
	vpmQueue     [2]int // reads still to come, per pending setup
	vpmSetupAt   [2]int // where each pending setup was written
	vpmQueued    int
	lastVPMSetup int
}

func newChecker(stage Stage) checker {
	return checker{
		stage: stage, endAt: -1, lastSFU: never, lastNoSwap: never, firstTMUWrite: -1,
		lastZWrite: never, lastUnifAddr: never, lastBranch: never, lastSwitch: never,
		switchAt: never, vpmKnown: true, lastVPMSetup: never,
	}
}

func (c *checker) report(i int, in *qpu.Inst, r Rule, detail string) {
	c.out = append(c.out, Violation{Index: i, Rule: r, Inst: *in, Detail: detail})
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
func (c *checker) step(i int, in *qpu.Inst) bool {
	alu := in.IsALU()
	sig := in.Sig
	if !alu {
		sig = qpu.SigNone // sig 14/15 are kinds, not signals
	}
	if in.EndsProgram() && c.endAt < 0 {
		c.endAt = i
	}
	inEnd := c.endAt >= 0 && i >= c.endAt && i <= c.endAt+2

	// TMU parameter tracking: which writes pop a uniform (all but a direct
	// lookup: an S write with no parameter written before it, AG §4).
	implicitUniform := false
	tmuWrites := 0
	for _, w := range [2]qpu.WAddr{in.WaddrAdd, in.WaddrMul} {
		if !w.IsTMU() {
			continue
		}
		tmuWrites++
		t := int(w-qpu.WTMU0S) / 4
		if w.IsTMUSubmit() {
			if c.tmuPending[t] > 0 {
				implicitUniform = true
			}
			c.tmuPending[t] = 0
			c.requests++
		} else {
			c.tmuPending[t]++
			implicitUniform = true
		}
	}
	readsUnif := in.ReadsUniform()

	// Rules 1-4: program end and its delay slots.
	if inEnd {
		switch {
		case in.ReadsVarying():
			c.report(i, in, Rule1EndFIFO, "reads a varying")
		case readsUnif || implicitUniform:
			c.report(i, in, Rule1EndFIFO, "reads a uniform")
		case vpmAccess(in):
			c.report(i, in, Rule1EndFIFO, "accesses the VPM")
		}
		if in.WaddrAdd == 14 || in.WaddrMul == 14 || in.UsesPhysical(qpu.FileA, 14) || in.UsesPhysical(qpu.FileB, 14) {
			c.report(i, in, Rule3EndLocation14, "the next thread's W and Z arrive at location 14")
		}
	}
	if i == c.endAt {
		for _, w := range [2]qpu.WAddr{in.WaddrAdd, in.WaddrMul} {
			if w.IsPhysical() {
				c.report(i, in, Rule2EndRegfileWrite, "writes register "+strconv.Itoa(int(w)))
				break
			}
		}
		if c.stage == Fragment && tlbAccess(in) && !c.tlbSeen {
			c.report(i, in, RuleEndImplicitWait, "")
		}
		if c.vpmKnown && !c.branchSeen && c.vpmQueued > 0 {
			left := 0
			for k := 0; k < c.vpmQueued; k++ {
				left += c.vpmQueue[k]
			}
			c.report(i, in, RuleVPMReadCount, strconv.Itoa(left)+" programmed VPM reads not consumed")
		}
	}
	if c.endAt >= 0 && i == c.endAt+2 && in.Writes(qpu.WTLBZ) {
		c.report(i, in, Rule4FinalTLBZ, "")
	}

	// Rule 5: scoreboard wait in the first two fragment-shader instructions.
	if c.stage == Fragment && i < 2 && (sig == qpu.SigScoreboardWait || tlbAccess(in)) {
		c.report(i, in, Rule5EarlyScoreboard, "")
	}

	// Rule 6: TMU_NOSWAP before the first TMU write.
	if in.Writes(qpu.WTMUNoSwap) {
		if c.firstTMUWrite >= 0 {
			c.report(i, in, Rule6TMUNoSwap, "written after the first TMU write (instruction "+strconv.Itoa(c.firstTMUWrite)+")")
		}
		c.lastNoSwap = i
	}
	if tmuWrites > 0 && c.firstTMUWrite < 0 {
		c.firstTMUWrite = i
		if i-c.lastNoSwap < 3 {
			c.report(i, in, Rule6TMUNoSwap, "TMU_NOSWAP written at instruction "+strconv.Itoa(c.lastNoSwap))
		}
	}

	if c.hasPrev {
		p := &c.prev
		// Rule 7: no forwarding from the register files.
		for k, w := range [2]qpu.WAddr{p.WaddrAdd, p.WaddrMul} {
			f := p.AddFile()
			if k == 1 {
				f = p.MulFile()
			}
			if w.IsPhysical() && in.UsesPhysical(f, uint8(w)) {
				c.report(i, in, Rule7RegfileReadAfterWrite, w.Name(f)+" was written by instruction "+strconv.Itoa(i-1))
			}
		}
		// Rules 9 and 10: rotations.
		if _, byR5, ok := in.Rotation(); ok && in.MulUsed() {
			if byR5 && p.WritesR5() {
				c.report(i, in, Rule9RotateR5, "r5 was written by instruction "+strconv.Itoa(i-1))
			}
			for _, m := range [2]qpu.Mux{in.MulA, in.MulB} {
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
					c.report(i, in, Rule10RotateAccumulator, m.String()+" was written by instruction "+strconv.Itoa(i-1))
					break
				}
			}
		}
	}

	// Rule 8: r4 after an SFU write.
	if i-c.lastSFU <= 2 {
		switch {
		case in.ReadsAccumulator(4):
			c.report(i, in, Rule8SFUR4, "reads r4 "+strconv.Itoa(i-c.lastSFU)+" instruction(s) after the SFU write")
		case in.WritesSFU() || sig.LoadsR4():
			c.report(i, in, Rule8SFUR4, "writes r4 "+strconv.Itoa(i-c.lastSFU)+" instruction(s) after the SFU write")
		}
	}
	if in.WritesSFU() {
		c.lastSFU = i
	}

	// Rule 11: MS_FLAGS after TLB_Z.
	if i-c.lastZWrite <= 2 && in.UsesRead(qpu.FileA, qpu.RMSFlagsRev) {
		c.report(i, in, Rule11TLBZMSFlags, "TLB_Z written at instruction "+strconv.Itoa(c.lastZWrite))
	}
	if in.Writes(qpu.WTLBZ) {
		c.lastZWrite = i
	}

	// Rule 12: closely coupled peripherals.
	if n := peripheralAccesses(in, tmuWrites); n > 1 {
		c.report(i, in, Rule12Peripherals, strconv.Itoa(n)+" accesses")
	}

	// The rules listed after the summary.
	if readsUnif && implicitUniform {
		c.report(i, in, RuleTMUUniform, "")
	}
	for k, w := range [2]qpu.WAddr{in.WaddrAdd, in.WaddrMul} {
		cond := in.CondAdd
		if k == 1 {
			cond = in.CondMul
		}
		if (w.IsTMUSubmit() || w == qpu.WVPM) && cond != qpu.CondAlways && !in.IsBranch() {
			c.report(i, in, RuleConditionalFIFOWrite, w.Name(qpu.FileA)+" written with condition "+cond.String())
		}
	}
	if !in.IsBranch() && in.WaddrAdd == in.WaddrMul && in.WaddrAdd >= 32 && in.WaddrAdd != qpu.WNop {
		switch in.WaddrAdd {
		case qpu.WQuadXY, qpu.WMSFlagsRev, qpu.WVPMVCDSetup, qpu.WVPMAddr:
			// different registers in files A and B; the ALUs always
			// write different files.
		default:
			c.report(i, in, RuleSameDestination, in.WaddrAdd.Name(in.AddFile()))
		}
	}
	if in.IsBranch() {
		if i-c.lastBranch < 3 {
			c.report(i, in, RuleBranchSpacing, "previous branch at instruction "+strconv.Itoa(c.lastBranch))
		}
		c.lastBranch = i
		c.branchSeen = true
	}
	if i-c.lastUnifAddr <= 2 && (readsUnif || implicitUniform) {
		c.report(i, in, RuleUniformsAddress, "UNIFORMS_ADDRESS written at instruction "+strconv.Itoa(c.lastUnifAddr))
	}
	if in.Writes(qpu.WUniformsAddress) {
		c.lastUnifAddr = i
	}
	if (sig == qpu.SigThreadSwitch || sig == qpu.SigLastThreadSwitch || sig.EndsProgram()) && i-c.lastZWrite < 2 {
		c.report(i, in, RuleZWriteThreadSignal, "TLB_Z written at instruction "+strconv.Itoa(c.lastZWrite))
	}

	// Threads.
	// A switch takes effect after its two delay slots (Mesa's
	// vc4_qpu_validate.c checks there too); it is reported at the switch.
	if i == c.switchAt {
		if c.reads < c.reqBeforePrev {
			c.report(c.lastSwitch, &c.switchInst, RuleThreadSwitchTexture, strconv.Itoa(c.reqBeforePrev-c.reads)+
				" texture results requested before the previous thread switch are unread when this one takes effect")
		}
		c.reqBeforePrev = c.reqAtSwitch
	}
	if isThreadSwitch(sig) {
		if c.tlbLocked {
			c.report(i, in, RuleThreadSwitchScoreboard, "")
		}
		if c.lastSwitchSeen {
			c.report(i, in, RuleThreadSwitchAfterLast, "")
		}
		if i-c.lastSwitch < 3 {
			c.report(i, in, RuleThreadSwitchSpacing, "previous thread switch at instruction "+strconv.Itoa(c.lastSwitch))
		}
		c.lastSwitch, c.switchInst = i, *in
		c.switchAt = i + 3 // the switch happens after two delay slots
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

	// VPM.
	if c.stage == Fragment && vpmAccess(in) {
		c.report(i, in, RuleFragmentVPM, "")
	}
	if in.ReadsVPM() && c.stage != Fragment {
		// The read is served by the oldest pending setup when the
		// setups are known, else assume the latest one.
		setup := c.lastVPMSetup
		counted := c.vpmKnown && !c.branchSeen
		if counted && c.vpmQueued > 0 {
			setup = c.vpmSetupAt[0]
		}
		if i-setup < 3 {
			c.report(i, in, RuleVPMReadLatency, "read setup at instruction "+strconv.Itoa(setup))
		}
		if counted {
			if c.vpmQueued == 0 {
				c.report(i, in, RuleVPMReadCount, "read beyond the programmed count")
			} else if c.vpmQueue[0]--; c.vpmQueue[0] == 0 {
				c.vpmQueue[0], c.vpmQueue[1] = c.vpmQueue[1], 0
				c.vpmSetupAt[0] = c.vpmSetupAt[1]
				c.vpmQueued--
			}
		}
	}
	if in.WritesFileIO(qpu.FileA, qpu.WVPMVCDSetup) && c.stage != Fragment {
		c.vpmSetup(i, in)
	}

	c.prev, c.hasPrev = *in, true
	return c.endAt >= 0 && i >= c.endAt+2
}

// vpmSetup records a write to VPMVCD_RD_SETUP. Only a load immediate's
// value is known; a generic block read setup has bits 31:30 = 0 and NUM
// in bits 23:20, 0 meaning 16 (AG Table 33).
func (c *checker) vpmSetup(i int, in *qpu.Inst) {
	if in.Kind() != qpu.KindLoadImm || in.LoadMode != qpu.LoadImm32 {
		c.vpmKnown = false
		c.lastVPMSetup = i
		return
	}
	v := in.Imm
	if v>>30 != 0 {
		return // a VCD DMA setup, not a read of the VPM by this QPU
	}
	c.lastVPMSetup = i
	num := int(v >> 20 & 15)
	if num == 0 {
		num = 16
	}
	if !c.vpmKnown || c.branchSeen {
		return
	}
	if c.vpmQueued == 2 {
		c.report(i, in, RuleVPMReadCount, "two read setups already pending: this setup is ignored")
		return
	}
	c.vpmQueue[c.vpmQueued] = num
	c.vpmSetupAt[c.vpmQueued] = i
	c.vpmQueued++
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
