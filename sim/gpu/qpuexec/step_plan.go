package qpuexec

import "github.com/vccube/vccube/shaders/qpu"

// executor runs the instruction of step st, the pc-th of its program.
type executor func(q *QPU, st *step, pc int) error

// step is one instruction as the run loop (loop.go) runs it.
type step struct {
	exec executor
	// planned says planFast accepted the instruction when the program
	// was loaded (its plan fields are set); a program is shared by the
	// render workers' QPUs, so binding reads this and never plans again.
	planned    bool
	in         *inst
	addK, mulK kernel // the ALUs' operations, nil for NOP
	imm        *vec   // port B's small immediate (rdImm); a planned load immediate's value in every element
	// dAdd and dMul say where a result goes when it can be stored as a
	// whole vector (every element's condition passes, no pack): dirNone,
	// or a register below.
	dAdd, dMul uint8
	nAdd, nMul uint8 // register number
	// execFast's plan: what each port reads, and how each result is
	// written.
	portA, portB uint8 // port*
	regA, regB   uint8 // physical register of a portPhys read
	wkAdd, wkMul uint8 // wk*
	tmu          uint8 // TMU unit (0-1) and register of a wkTMU write: unit·tmuRegs + reg
	tmuMul       uint8
	colD, colN   uint8 // the register of a wkColour write (dir*, number)
	// addCopy and mulCopy say the kernel is kCopy.
	addCopy, mulCopy bool
	// conditional says a planned instruction sets flags or writes under a
	// condition: its write masks and flags are worked out after the
	// kernels (ref_exec.go conditionsAndFlags). carry gives the C flags of the
	// ALU the flags come from, whose operands are muxes flagA and flagB.
	conditional bool
	carry       carryFunc
	// flagsAll says the flags come from the add ALU, whose condition is
	// always: every element's flags are set (stepFlags), by the C rule
	// carryKind (addCarryKind).
	flagsAll     bool
	carryKind    uint8
	flagA, flagB uint8
}

// Port reads execFast does itself.
const (
	portNone = iota // NOP, or a register no operand uses: the port's scratch
	portPhys        // physical register regA / regB
	portImm         // small immediate (port B)
	portUnif        // UNIFORM_READ
	portVary        // VARYING_READ
	portSame        // port B names the FIFO port A read: the same value
)

// Writes execFast does itself.
const (
	wkNone    = iota
	wkPlain   // dAdd/dMul register, whole vector
	wkTMU     // a TMU parameter register
	wkTLB     // a tile-buffer register
	wkGeneral // ref_exec.go writeALU (a pack that needs no flags, SFU, VPM, r5, ...)
	wkColour  // the mul ALU's colour pack into colD/colN
)

// Plain destinations of a step.
const (
	dirNone = iota
	dirAcc
	dirRA
	dirRB
)

// generalExec returns the general executor (ref_exec.go) of an
// instruction of kind k.
func generalExec(k uint8) executor {
	switch k {
	case kALU:
		return execRefALU
	case kBranch:
		return execBranch
	}
	return execLoadImm
}

// compileSteps builds p's two step tables from p.code: p.ref, every
// instruction on its general executor, and p.steps, the compiled one.
func (p *Program) compileSteps() {
	p.ref = make([]step, len(p.code))
	p.steps = make([]step, len(p.code))
	// A plain 32-bit load immediate's value as a vector (planLoadImm),
	// appended before any step takes a pointer into p.vecs.
	ldVec := make([]int32, len(p.code))
	for i := range p.code {
		ldVec[i] = p.code[i].vec
		if c := &p.code[i]; c.kind == kLoadImm && c.vec < 0 && p.plainLoadImm(c) {
			var x vec
			for e := range x {
				x[e] = c.imm
			}
			ldVec[i] = int32(len(p.vecs))
			p.vecs = append(p.vecs, x)
		}
	}
	for i := range p.code {
		c := &p.code[i]
		p.ref[i] = step{exec: generalExec(c.kind), in: c}
		st := &p.steps[i]
		*st = p.ref[i]
		if c.kind == kLoadImm && ldVec[i] >= 0 && p.plainLoadImm(c) {
			st.imm, st.planned = &p.vecs[ldVec[i]], true
			st.dAdd, st.nAdd = p.plainDest(c, c.wAdd, c.packAdd)
			st.dMul, st.nMul = p.plainDest(c, c.wMul, c.packMul)
			continue
		}
		if c.kind != kALU || p.usesLast {
			continue
		}
		st.addK, st.mulK = addKernel(c.opAdd), mulKernel(c.opMul)
		if c.addA == c.addB && addSameIsCopy(c.opAdd) {
			st.addK, st.addCopy = kCopy, true
		}
		if c.mulA == c.mulB && mulSameIsCopy(c.opMul) {
			st.mulK, st.mulCopy = kCopy, true
		}
		if c.rdB == rdImm {
			st.imm = &p.vecs[c.vec]
		}
		st.dAdd, st.nAdd = p.plainDest(c, c.wAdd, c.packAdd)
		st.dMul, st.nMul = p.plainDest(c, c.wMul, c.packMul)
		st.exec = execALU
		if p.planFast(c, st) {
			st.exec, st.planned = execFast, true
		}
		if p.onlyComputes(c, st) {
			st.exec = execOps
		}
	}
}

// planFast fills st's plan and reports whether execFast can run the
// instruction: no rotation, no sbwait, every ALU that writes has an
// operation, no port reads what only the general read code serves, and
// no regfile-A pack needs the add's flags.
func (p *Program) planFast(c *inst, st *step) bool {
	if c.rot != 0 || c.sig == qpu.SigScoreboardWait {
		return false
	}
	port := func(rd uint8) (uint8, bool) {
		switch rd {
		case rdNone:
			return portNone, true
		case rdPhys:
			return portPhys, true
		case rdImm:
			return portImm, true
		case rdUniform:
			return portUnif, true
		case rdVarying:
			return portVary, true
		}
		return 0, false
	}
	var ok bool
	if st.portA, ok = port(c.rdA); !ok {
		return false
	}
	if st.portB, ok = port(c.rdB); !ok {
		return false
	}
	if c.sameFIFO {
		st.portB = portSame
	}
	st.regA, st.regB = c.regA&31, c.regB&31
	kind := func(t wtarget, cond qpu.Cond, k kernel, d uint8, pack uint8, flagsForPack bool) (uint8, bool) {
		if t.kind == wNone {
			return wkNone, true
		}
		if k == nil {
			return 0, false
		}
		st.conditional = st.conditional || cond != qpu.CondAlways
		switch {
		case d != dirNone:
			return wkPlain, true
		case t.kind == wTMU && pack == packNone:
			return wkTMU, true
		case t.kind == wTLB && pack == packNone:
			return wkTLB, true
		case flagsForPack:
			return 0, false // writeALU would read q.src
		}
		return wkGeneral, true
	}
	if st.wkAdd, ok = kind(c.wAdd, c.condAdd, st.addK, st.dAdd, c.packAdd, c.flagsForPack); !ok {
		return false
	}
	if st.wkMul, ok = kind(c.wMul, c.condMul, st.mulK, st.dMul, c.packMul, false); !ok {
		return false
	}
	if st.wkMul == wkGeneral && c.packMul == packColour && c.condMul == qpu.CondAlways {
		// A colour pack into an accumulator or a register that takes the
		// write at once: the colour kernel, then the pack's bytes.
		if d, n := p.plainDest(c, c.wMul, packNone); d != dirNone {
			st.wkMul, st.colD, st.colN = wkColour, d, n
		}
	}
	st.tmu, st.tmuMul = c.wAdd.n, c.wMul.n
	if c.sf {
		st.conditional = true
		st.carry, st.flagA, st.flagB = addCarryFunc(c.opAdd), c.addA, c.addB
		if c.flagsMul {
			st.carry, st.flagA, st.flagB = mulCarryFunc(c.opMul), c.mulA, c.mulB
		}
		st.flagsAll = !c.flagsMul && c.condAdd == qpu.CondAlways
		st.carryKind = addCarryKind(c.opAdd)
	}
	return true
}

// plainLoadImm reports whether a bound program can run load immediate c
// as two copies of its value, into the result latches and on into their
// plain destinations (bound_bind.go bindLoadImm): no flags, no condition
// on a write, no pack, and every write to a register that takes it at
// once (plainDest). What execLoadImm (ref_exec.go) does with it is then
// exactly that: both latches hold the value, and writeALU makes each
// write whole.
func (p *Program) plainLoadImm(c *inst) bool {
	if c.kind != kLoadImm || c.sf || c.pack != 0 {
		return false
	}
	for _, w := range [2]struct {
		t    wtarget
		cond qpu.Cond
	}{{c.wAdd, c.condAdd}, {c.wMul, c.condMul}} {
		if w.t.kind == wNone {
			continue
		}
		if w.cond != qpu.CondAlways {
			return false
		}
		if d, _ := p.plainDest(c, w.t, packNone); d == dirNone {
			return false
		}
	}
	return true
}

// plainDest says whether a write to t can be a whole-vector store when
// every element's condition passes: an accumulator r0-r3 unpacked, or a
// physical register unpacked when writes land at once (no write delay to
// model) and not in a program-end instruction (whose register writes are
// lost, ref_exec.go write).
func (p *Program) plainDest(c *inst, t wtarget, pack uint8) (uint8, uint8) {
	if pack != packNone {
		return dirNone, 0
	}
	switch t.kind {
	case wAcc:
		return dirAcc, t.n
	case wPhysA, wPhysB:
		if p.delayWrites || c.sig.EndsProgram() {
			return dirNone, 0
		}
		if t.kind == wPhysA {
			return dirRA, t.n
		}
		return dirRB, t.n
	}
	return dirNone, 0
}

// onlyComputes reports whether execOps can run the instruction (see the
// list at the top of this file).
func (p *Program) onlyComputes(c *inst, st *step) bool {
	if c.sig != qpu.SigNone && c.sig != qpu.SigSmallImm {
		return false
	}
	if c.rdA != rdNone && c.rdA != rdPhys {
		return false
	}
	if c.rdB != rdNone && c.rdB != rdPhys && c.rdB != rdImm {
		return false
	}
	if c.unpack != qpu.UnpackNone || c.sf || c.rot != 0 {
		return false
	}
	if c.wAdd.kind != wNone && (st.dAdd == dirNone || c.condAdd != qpu.CondAlways || st.addK == nil) {
		return false
	}
	if c.wMul.kind != wNone && (st.dMul == dirNone || c.condMul != qpu.CondAlways || st.mulK == nil) {
		return false
	}
	return true
}
