package qpuexec

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/vccube/vccube/shaders/hazard"
	"github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/sim/mem"
)

// Start is what the hardware sets up for a thread before its first
// instruction.
type Start struct {
	// Uniforms is the address of the thread's uniform stream: the shader
	// record's uniforms address for the stage (AG §3 "Uniforms"; AG Table
	// 45).
	Uniforms uint32

	// Fragment shaders (AG §6 Table 29, doc/hardware.md#varyings): W lands in ra15
	// and Z (24-bit unsigned) in rb15; X and Y are the pixel coordinates
	// X_PIXEL_COORD and Y_PIXEL_COORD read; MSFlags is the multisample
	// mask MS_FLAGS reads and TLB Z writes update; RevFlag is REV_FLAG (1
	// for a back-facing primitive).
	W, Z    [16]uint32
	X, Y    [16]uint32
	MSFlags [16]uint32
	RevFlag uint32

	// Vertex and coordinate shaders: the VPM and the batch's read segment
	// (where the VCD put the attributes) and write segment (where the PSE
	// or PTB will read the shaded vertices), see vpm.go.
	VPM               *VPM
	VPMRead, VPMWrite Segment
}

// Result is what a run reports besides its effects.
type Result struct {
	// Instructions is the number of instructions executed, delay slots
	// included. A QPU takes four clocks per instruction (AG §3), which is
	// what the V3D's QPU cycle counters count.
	Instructions int
	// HostInterrupt is set when the program wrote a non-zero value to
	// HOST_INT (AG §3 "Host Interrupt"; "You need to write a non-zero
	// value", vc4asm addendum).
	HostInterrupt bool
}

// A RunError is a failure while running a program: a strict-mode rule
// violation, an Env error, a memory fault or something the model cannot
// do.
type RunError struct {
	Addr  uint32   // the program's address
	Index int      // the instruction's index
	Inst  qpu.Inst // the instruction
	Err   error
}

// Error names the program, the instruction and what went wrong.
func (e *RunError) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("qpuexec: program at %#08x: %v", e.Addr, e.Err)
	}
	return fmt.Sprintf("qpuexec: program at %#08x, instruction %d (%v): %v", e.Addr, e.Index, e.Inst, e.Err)
}

// Unwrap returns the underlying error (an Env error, a *mem.Fault, ...).
func (e *RunError) Unwrap() error { return e.Err }

// MaxInstructions bounds one run: a program still running after this many
// instructions is reported as a hang (the hardware would spin until the
// kernel's hang check resets the GPU, Linux vc4_gem.c
// vc4_hangcheck_elapsed).
const MaxInstructions = 1 << 24

// runLimit is MaxInstructions, which tests lower to reach it quickly.
var runLimit = MaxInstructions

// poison is the value of registers whose content the hardware leaves to
// another thread: accumulators after a thread switch (AG §3 Thread Control:
// "The QPU accumulator registers (and flags) are not preserved across thread
// switches"), and ra14/rb14 after a program end, which receive the next
// thread's W and Z (AG §3). A program that relies on them computes with
// this value, as it would compute with garbage on a Pi.
const poison = 0xDEADBEEF

var elementNumbers = vec{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}

// poisonVec is poison in every element.
var poisonVec = vec{poison, poison, poison, poison, poison, poison, poison, poison,
	poison, poison, poison, poison, poison, poison, poison, poison}

// QPU is one processor's state: the register files, accumulators, flags
// and the state of its closely coupled units. Create it with NewQPU; a QPU
// runs one program at a time and is not safe for concurrent use (give each
// goroutine its own). Registers keep their values from one run to the next,
// as on the hardware.
type QPU struct {
	// Num is the QPU number (0-15): what QPU_NUMBER reads, and QPUs 2 and
	// 3 of each slice of four see TMU0 and TMU1 swapped (AG §4).
	Num int
	// Mem is the job's memory, through which uniforms are read.
	Mem *mem.View
	// Warnings collects the restrictions broken while running programs
	// loaded in permissive mode. The caller may reset it.
	Warnings []Violation
	// Reference runs programs on the general interpreter, instruction by
	// instruction as decoded, instead of their compiled steps (step_exec.go).
	// Both give the same results; the general interpreter is the
	// reference the fast path is tested against.
	Reference bool

	ra, rb  [32]vec
	acc     [6]vec // r0-r5
	n, z, c uint16

	src         [8]*vec // input muxes 0-7
	portA       vec     // scratch for port reads
	portB       vec
	unpA, unpR4 vec
	unifStart   unifSpan // the span of the last uniform stream's start (setUniforms)
	resAdd      vec      // ALU results; kept: a NOP op re-writes the last one (vc4asm addendum)
	resMul      vec
	packed      vec
	mAdd, mMul  uint16 // a bound conditional instruction's write masks (bound_bind.go opFlags)
	banksStale  bool   // a bound run switched threads: registers 16-31 are due their poison (bound_bind.go settleBanks)
	endPoison   bool   // a bound run's program end: location 14 of each file is due its poison (bound_bind.go landEnd)
	qpuNum      vec
	lastA       vec // elements 12-15 of the last reads, for rdLast
	lastB       vec

	// One run's state.
	prog      *Program
	env       Env
	start     *Start
	seq       int // instructions executed so far in this run
	pend      [8]pendingWrite
	npend     int
	varyC     vec
	varyPend  bool
	sfuVal    vec
	sfuAt     int // seq at which sfuVal lands in r4, 0 if none
	unifAddr  uint32
	unifBuf   []byte
	unifOff   int
	unifNext  uint32
	unifAt    int
	tmuParams [2]int
	noSwap    bool
	sbWaited  bool
	mutex     bool
	hostInt   bool
	ms, rev   vec
	vpm       *VPM
	vrq       [2]vpmRead
	vrn       int
	vw        vpmSetup
	vwSet     bool
	endAt     int
	switchAt  int
	jumps     [2]jump
	njumps    int
	lastBr    int

	// Programs bound to this QPU (bound_bind.go).
	bnd     [maxBound]boundProg
	bndNext int
	seqBase int // a bound run's instruction count less the address (runBound)
}

type pendingWrite struct {
	b     bool // file B
	reg   uint8
	lanes uint16
	bits  uint32
	v     vec
}

type vpmRead struct {
	s       vpmSetup
	readyAt int
}

type jump struct {
	at, to int
}

// NewQPU returns QPU number num reading uniforms through m.
func NewQPU(num int, m *mem.View) *QPU {
	q := &QPU{Num: num, Mem: m}
	q.init()
	return q
}

func (q *QPU) init() {
	for i := 0; i < 6; i++ {
		q.src[i] = &q.acc[i]
	}
	q.src[6], q.src[7] = &q.portA, &q.portB
}

// RA returns physical register n (0-31) of file A, for tests and debugging.
func (q *QPU) RA(n int) *[16]uint32 { return &q.ra[n&31] }

// RB returns physical register n (0-31) of file B.
func (q *QPU) RB(n int) *[16]uint32 { return &q.rb[n&31] }

// Acc returns accumulator n (0-5).
func (q *QPU) Acc(n int) *[16]uint32 { return &q.acc[n] }

// Flags returns the N, Z and C flags, bit i for element i.
func (q *QPU) Flags() (n, z, c uint16) { return q.n, q.z, q.c }

// Run executes p on one batch from s until its program end and two delay
// slots. env serves the varyings, TMU, TLB, scoreboard and semaphore
// accesses; it may be nil for a program that makes none. Run does not
// allocate, except to record warnings in permissive mode.
func (q *QPU) Run(p *Program, env Env, s *Start) (Result, error) {
	if q.src[0] == nil {
		q.init()
	}
	if p.Opts.Stage != hazard.Fragment && s.VPM != nil {
		for _, seg := range [2]Segment{s.VPMRead, s.VPMWrite} {
			if err := seg.Check(); err != nil {
				return Result{}, &RunError{Addr: p.Addr, Index: -1, Err: err}
			}
		}
	}
	if !q.Reference {
		if p.straight {
			return q.runBound(p, env, s)
		}
		return q.runSteps(p, env, s)
	}
	q.begin(p, env, s)
	code := p.code
	pc := 0
	for {
		if pc < 0 || pc >= len(code) {
			q.commit()
			return q.result(), &RunError{Addr: p.Addr, Index: pc, Err: fmt.Errorf("execution left the program (%d instructions)", len(code))}
		}
		in := &code[pc]
		q.seq++
		if q.seq > runLimit {
			return q.result(), q.fail(pc, fmt.Errorf("still running after %d instructions: a hang on hardware", runLimit))
		}
		if q.sfuAt == q.seq {
			q.acc[4] = q.sfuVal
			q.sfuAt = 0
		}
		if q.unifAt == q.seq {
			q.setUniforms(q.unifNext)
			q.unifAt = 0
		}
		old := q.npend
		var err error
		switch in.kind {
		case kALU:
			err = q.alu(in, pc)
		case kBranch:
			err = q.branch(in, pc)
		default:
			err = q.loadImm(in, pc)
		}
		if err != nil {
			return q.result(), q.fail(pc, err)
		}
		if q.npend > 0 {
			q.retire(old)
		}

		if q.seq == q.switchAt {
			q.threadSwitch()
		}
		if q.seq == q.endAt {
			q.commit()
			if q.vrn > 0 {
				if err := q.violate(pc, "VPM read count", "all programmed VPM reads must be consumed before program end [AG §7]; reads remain at program end"); err != nil {
					return q.result(), err
				}
			}
			return q.result(), nil
		}
		pc++
		if q.njumps > 0 && q.jumps[0].at == q.seq {
			pc = q.jumps[0].to
			q.jumps[0] = q.jumps[1]
			q.njumps--
		}
	}
}

func (q *QPU) result() Result {
	return Result{Instructions: q.seq, HostInterrupt: q.hostInt}
}

// fail ends a run with err at instruction pc. The writes still waiting
// for the register files' delay land first: the run ends with them made,
// whether the interpreter delayed them or, where nothing reads them
// early, made them at once.
func (q *QPU) fail(pc int, err error) error {
	q.commit()
	var re *RunError
	if errors.As(err, &re) {
		return err
	}
	e := &RunError{Addr: q.prog.Addr, Index: pc, Err: err}
	if pc >= 0 && pc < len(q.prog.Insts) {
		e.Inst = q.prog.Insts[pc]
	}
	return e
}

// violate reports a rule broken at run time: an error in strict mode, a
// warning in permissive mode.
func (q *QPU) violate(pc int, rule, text string) error {
	v := Violation{Index: pc, Inst: q.prog.Insts[pc], Rule: rule, Text: text}
	if !q.prog.Opts.Permissive {
		return &RunError{Addr: q.prog.Addr, Index: pc, Inst: v.Inst, Err: fmt.Errorf("%s: %s", rule, text)}
	}
	if len(q.Warnings) < 256 {
		q.Warnings = append(q.Warnings, v)
	}
	return nil
}

func (q *QPU) begin(p *Program, env Env, s *Start) {
	q.prog, q.env, q.start = p, env, s
	q.seq = 0
	q.npend = 0
	q.varyPend = false
	q.sfuAt = 0
	q.unifAt = 0
	q.setUniforms(s.Uniforms)
	q.tmuParams = [2]int{}
	q.noSwap = false
	q.sbWaited = false
	q.mutex = false
	q.hostInt = false
	q.vrn = 0
	q.vwSet = false
	q.endAt = -1
	q.switchAt = -1
	q.njumps = 0
	q.lastBr = -10
	if q.qpuNum[0] != uint32(q.Num) { // QPU_NUMBER is read-only: fill it when Num changes
		for i := range q.qpuNum {
			q.qpuNum[i] = uint32(q.Num)
		}
	}
	if p.Opts.Stage == hazard.Fragment {
		copyVec(&q.ra[15], &s.W)
		copyVec(&q.rb[15], &s.Z)
		copyVec(&q.ms, &s.MSFlags)
		fill(&q.rev, s.RevFlag)
		q.vpm = nil
	} else {
		q.vpm = s.VPM
	}
}

// cond returns the elements whose condition passes (AG Table 2).
func (q *QPU) cond(c qpu.Cond) uint16 {
	switch c {
	case qpu.CondAlways:
		return 0xFFFF
	case qpu.CondZS:
		return q.z
	case qpu.CondZC:
		return ^q.z
	case qpu.CondNS:
		return q.n
	case qpu.CondNC:
		return ^q.n
	case qpu.CondCS:
		return q.c
	case qpu.CondCC:
		return ^q.c
	}
	return 0
}

// setFlags updates the flags from result r in the elements of lanes: the
// flags change only where the condition passed (vc4asm addendum, "set
// flags").
func (q *QPU) setFlags(r *vec, c, lanes uint16) {
	n, z := nzFlags(r)
	q.n = q.n&^lanes | n&lanes
	q.z = q.z&^lanes | z&lanes
	q.c = q.c&^lanes | c&lanes
}

// read performs a port read and returns the vector it yields.
func (q *QPU) read(rd, reg uint8, fileB bool, scratch *vec, in *inst, pc int) (*vec, error) {
	switch rd {
	case rdPhys:
		if fileB {
			return &q.rb[reg], nil
		}
		return &q.ra[reg], nil
	case rdUniform:
		u, err := q.popUniform()
		if err != nil {
			return nil, err
		}
		for i := range scratch {
			scratch[i] = u
		}
		return scratch, nil
	case rdVarying:
		if q.env == nil {
			return nil, errors.New("varying read with no Env")
		}
		if err := q.env.Varying(scratch, &q.varyC); err != nil {
			return nil, err
		}
		q.varyPend = true
		return scratch, nil
	case rdElem, rdMutexA:
		if rd == rdMutexA {
			q.mutex = true
		}
		return &elementNumbers, nil
	case rdQPUNum, rdMutexB:
		if rd == rdMutexB {
			q.mutex = true
		}
		return &q.qpuNum, nil
	case rdXCoord:
		return &q.start.X, nil
	case rdYCoord:
		return &q.start.Y, nil
	case rdMSFlags:
		return &q.ms, nil
	case rdRevFlag:
		return &q.rev, nil
	case rdVPM:
		if err := q.vpmReadVector(scratch, pc); err != nil {
			return nil, err
		}
		return scratch, nil
	case rdImm:
		return &q.prog.vecs[in.vec], nil
	case rdLast:
		last := &q.lastA
		if fileB {
			last = &q.lastB
		}
		for i := range scratch {
			scratch[i] = last[12+i&3]
		}
		return scratch, nil
	}
	*scratch = vec{}
	return scratch, nil
}

// alu runs an ALU instruction (sig 0-13).
func (q *QPU) alu(in *inst, pc int) error {
	// Read phase. A FIFO named on both ports pops once and both ports see
	// the value (doc/hardware.md#machine; Linux vc4_validate_shaders.c counts one
	// uniform; VC4C Emulator.cpp readRegister caches the read).
	var pa, pb *vec
	var err error
	switch in.rdA {
	case rdNone:
		pa = &q.portA
	case rdPhys:
		pa = &q.ra[in.regA]
	default:
		if pa, err = q.read(in.rdA, in.regA, false, &q.portA, in, pc); err != nil {
			return err
		}
	}
	switch {
	case in.rdB == rdNone:
		pb = &q.portB
	case in.rdB == rdPhys:
		pb = &q.rb[in.regB]
	case in.sameFIFO:
		pb = pa
	default:
		if pb, err = q.read(in.rdB, in.regB, true, &q.portB, in, pc); err != nil {
			return err
		}
	}
	if q.prog.tracksLast() {
		for i := 0; i < 4; i++ {
			if in.rdA != rdNone {
				q.lastA[12+i] = pa[12+i]
			}
			if in.rdB != rdNone {
				q.lastB[12+i] = pb[12+i]
			}
		}
	}
	if err := q.sources(in, pa, pb); err != nil {
		return err
	}

	// Execute.
	if in.opAdd != qpu.AddNop {
		addALU(in.opAdd, &q.resAdd, q.src[in.addA], q.src[in.addB])
	} else if in.wAdd.kind != wNone {
		staleResult(&q.resAdd)
	}
	if in.opMul != qpu.MulNop {
		mulALU(in.opMul, &q.resMul, q.src[in.mulA], q.src[in.mulB])
		q.rotateMul(in)
	} else if in.wMul.kind != wNone {
		staleResult(&q.resMul)
	}
	mAdd, mMul := q.conditionsAndFlags(in)

	// Write back.
	q.landVarying()
	// The common case first: an unpacked write to r0-r3 in every element.
	if in.wAdd.kind == wAcc && in.packAdd == packNone && mAdd == 0xFFFF {
		q.acc[in.wAdd.n] = q.resAdd
	} else if in.wAdd.kind != wNone {
		if err := q.writeALU(in, pc, in.wAdd, &q.resAdd, mAdd, in.packAdd, in.addFloat, true); err != nil {
			return err
		}
	}
	if in.wMul.kind == wAcc && in.packMul == packNone && mMul == 0xFFFF {
		q.acc[in.wMul.n] = q.resMul
	} else if in.wMul.kind != wNone {
		if err := q.writeALU(in, pc, in.wMul, &q.resMul, mMul, in.packMul, in.mulFloat, false); err != nil {
			return err
		}
	}
	if in.sig == qpu.SigNone || in.sig == qpu.SigSmallImm {
		return nil
	}
	return q.signal(in, pc)
}

// sources finishes an ALU instruction's read phase, for alu and the
// fast path's execALU alike: the regfile-A and r4 unpacks, the operand
// table q.src the ALU mux indices select from, and sbwait's stall until
// the tile buffer is safe to use.
func (q *QPU) sources(in *inst, pa, pb *vec) error {
	if in.unpackA {
		for i := range q.unpA {
			q.unpA[i] = unpackA(in.unpack, in.unpackFloat, pa[i])
		}
		pa = &q.unpA
	}
	q.src[6], q.src[7] = pa, pb
	if in.unpackR4 {
		for i := range q.unpR4 {
			q.unpR4[i] = unpackR4(in.unpack, q.acc[4][i])
		}
		q.src[4] = &q.unpR4
	} else {
		q.src[4] = &q.acc[4]
	}
	if in.sig == qpu.SigScoreboardWait {
		return q.scoreboardWait()
	}
	return nil
}

// rotateMul applies the instruction's vector rotation to the mul result.
func (q *QPU) rotateMul(in *inst) {
	if in.rot != 0 {
		n := int(in.rot)
		if in.rot == rotByR5 {
			n = int(q.acc[5][0] & 15)
		}
		rotate(&q.resMul, n, in.rotFull)
	}
}

// conditionsAndFlags returns the elements each ALU writes (its condition)
// and, for an instruction with SF, sets the flags from the add result, or
// from the mul result when the add ALU is a NOP.
func (q *QPU) conditionsAndFlags(in *inst) (mAdd, mMul uint16) {
	mAdd, mMul = q.cond(in.condAdd), q.cond(in.condMul)
	if in.sf {
		if !in.flagsMul {
			q.setFlags(&q.resAdd, addCarry(in.opAdd, q.src[in.addA], q.src[in.addB], &q.resAdd), mAdd)
		} else if in.opMul != qpu.MulNop {
			q.setFlags(&q.resMul, mulCarry(in.opMul, q.src[in.mulA], q.src[in.mulB]), mMul)
		}
	}
	return mAdd, mMul
}

// landVarying puts the C term of a varying this instruction read into r5,
// at the start of its write phase: before the ALU results, so an ALU
// write to r5 in the same instruction is what stays (doc/hardware.md#varyings).
func (q *QPU) landVarying() {
	if q.varyPend {
		copyVec(&q.acc[5], &q.varyC)
		q.varyPend = false
	}
}

// staleResult is what an ALU whose op is NOP writes when given a write
// address: its last result, of which only elements 12-15 survive,
// replicated to every quad (vc4asm addendum, "Secret access to previous MUL
// ALU result"; assumed the same for the add ALU).
func staleResult(r *vec) {
	for i := 0; i < 12; i++ {
		r[i] = r[12+i&3]
	}
}

// rotate rotates a mul result upwards by n elements (element 0 moves to
// element n, AG Table 5): across all 16 elements, or within each quad by n
// & 3 (vc4asm addendum).
func rotate(r *vec, n int, full bool) {
	t := *r
	if full {
		for i := range t {
			r[(i+n)&15] = t[i]
		}
		return
	}
	n &= 3
	for i := range t {
		r[i&^3|(i+n)&3] = t[i]
	}
}

// writeALU writes one ALU's result to its target under the lane mask,
// through the instruction's pack if it applies to this ALU.
func (q *QPU) writeALU(in *inst, pc int, t wtarget, r *vec, lanes uint16, pack uint8, float, isAdd bool) error {
	v, bits := r, uint32(0xFFFFFFFF)
	switch pack {
	case packRegA:
		var fl packFlags
		var ov, cf, nf, zf uint16
		if isAdd && in.flagsForPack {
			ov = addOverflow(in.opAdd, q.src[in.addA], q.src[in.addB], r)
			cf = addCarry(in.opAdd, q.src[in.addA], q.src[in.addB], r)
			nf, zf = nzFlags(r)
		}
		for i := range q.packed {
			if ov != 0 {
				b := uint16(1) << i
				fl = packFlags{overflow: ov&b != 0, c: cf&b != 0, n: nf&b != 0, z: zf&b != 0}
			}
			q.packed[i] = packA(in.pack, float, r[i], fl)
		}
		v, bits = &q.packed, packMask(in.pack)
	case packColour:
		for i := range q.packed {
			q.packed[i] = colourPack(in.pack, r[i])
		}
		v, bits = &q.packed, colourPackMask(in.pack)
	}
	return q.write(in, pc, t, v, lanes, bits)
}

// write stores v into target t in the elements of lanes, changing only the
// bits in bits.
func (q *QPU) write(in *inst, pc int, t wtarget, v *vec, lanes uint16, bits uint32) error {
	switch t.kind {
	case wPhysA, wPhysB:
		if in.sig.EndsProgram() && in.kind == kALU {
			// The program-end instruction's write cycle writes the next
			// thread's W and Z instead (AG §3 Thread Control): the write
			// is lost. (A strict load refuses this, rule 2.)
			return nil
		}
		if lanes == 0 {
			return nil
		}
		if !q.prog.delayWrites && !q.Reference {
			// The program never reads a register in the instruction
			// after the write (Program.delayWrites), so the write can
			// land at once. The general interpreter always models the
			// delay: it is what the fast paths are held to.
			d := &q.ra[t.n]
			if t.kind == wPhysB {
				d = &q.rb[t.n]
			}
			mergeLanes(d, v, lanes, bits)
			return nil
		}
		p := &q.pend[q.npend]
		q.npend++
		p.b, p.reg, p.lanes, p.bits, p.v = t.kind == wPhysB, t.n, lanes, bits, *v
	case wAcc:
		mergeLanes(&q.acc[t.n], v, lanes, bits)
	case wR5Quad:
		// A-file write: element 0 of each quad to the whole quad; B-file:
		// element 0 to all (vc4asm addendum "Writing to r5", against AG
		// §3's byte concatenation; VC4C emulates the addendum).
		var x vec
		for i := range x {
			x[i] = v[i&^3]
		}
		mergeLanes(&q.acc[5], &x, lanes, bits)
	case wR5Rep:
		var x vec
		for i := range x {
			x[i] = v[0]
		}
		mergeLanes(&q.acc[5], &x, lanes, bits)
	case wTMU:
		return q.tmuWrite(int(t.n)/tmuRegs, TMUReg(int(t.n)%tmuRegs), v, lanes)
	case wTLB:
		if err := q.scoreboardWait(); err != nil {
			return err
		}
		if q.env == nil {
			return errors.New("TLB write with no Env")
		}
		return q.env.TLBWrite(TLBReg(t.n), v, lanes, &q.ms)
	case wSFU:
		// The SFU gets the whole vector; the condition only gates the
		// register write, and a peripheral write happens regardless
		// (vc4asm addendum).
		sfuVec(int(t.n), &q.sfuVal, v)
		q.sfuAt = q.seq + 3
	case wVPM:
		// All 16 elements are written whatever the condition: the FIFO
		// takes the vector regardless (vc4asm addendum, "No conditional
		// write to peripheral registers").
		return q.vpmWrite(v, pc)
	case wVPMReadSetup:
		return q.vpmReadSetup(v[0], pc)
	case wVPMWriteSetup:
		return q.vpmWriteSetup(v[0], pc)
	case wVPMDMA:
		return errors.New("VPM DMA (VPM_LD_ADDR/VPM_ST_ADDR) is not modelled; the vc4 kernel refuses it (Linux vc4_validate_shaders.c check_reg_write)")
	case wUnifAddr:
		// The new stream starts after two more instructions (AG §3
		// "Uniforms": "there must be at least two nonuniform-accessing
		// instructions following a pointer change"); uniform reads in
		// between still see the old stream's prefetched values.
		q.unifNext, q.unifAt = v[0], q.seq+3
	case wHostInt:
		for i := range v {
			if lanes&(1<<i) != 0 && v[i] != 0 {
				q.hostInt = true
			}
		}
	case wNoSwap:
		q.noSwap = v[0] != 0 // element 0, any non-zero value (vc4asm addendum)
	case wMSFlags:
		mergeLanes(&q.ms, v, lanes, bits)
	case wRevFlag:
		mergeLanes(&q.rev, v, lanes, bits)
	case wQuadXY:
		return errors.New("QUAD_X/QUAD_Y writes are not modelled (AG Table 14 names them without describing them)")
	case wMutexRelease:
		q.mutex = false
	}
	return nil
}

// mergeLanes writes the bits of v selected by bits into d, in lanes.
func mergeLanes(d, v *vec, lanes uint16, bits uint32) {
	if lanes == 0xFFFF && bits == 0xFFFFFFFF {
		copyVec(d, v)
		return
	}
	if lanes == 0xFFFF {
		// Every element, some bits: the colour packs (8a-8d) of
		// Mesa's fragment shaders, one byte per write. Two elements
		// per word (pairs): the same bits of each.
		m := uint64(bits) | uint64(bits)<<32
		dp, vp := pairs(d), pairs(v)
		for i := range dp {
			dp[i] = dp[i]&^m | vp[i]&m
		}
		return
	}
	for i := range d {
		if lanes&(1<<i) != 0 {
			d[i] = d[i]&^bits | v[i]&bits
		}
	}
}

// Register-file writes are delayed: a physical register written by
// instruction N reads its old value at N+1 (AG §3: "one cannot write data to
// a physical QPU register-file in one instruction and then read that same
// data for use in the next instruction (no forwarding paths are
// provided)"), and the new one from N+2. Each instruction's writes wait in
// pend; retire applies those of the previous instruction once the current
// one is complete.

// retire applies the first old pending writes (the previous instruction's)
// and keeps the rest (the current instruction's) for the next.
func (q *QPU) retire(old int) {
	for i := 0; i < old; i++ {
		q.apply(&q.pend[i])
	}
	copy(q.pend[:], q.pend[old:q.npend])
	q.npend -= old
}

// commit applies every pending write (at program end).
func (q *QPU) commit() {
	for i := 0; i < q.npend; i++ {
		q.apply(&q.pend[i])
	}
	q.npend = 0
}

func (q *QPU) apply(p *pendingWrite) {
	d := &q.ra[p.reg]
	if p.b {
		d = &q.rb[p.reg]
	}
	mergeLanes(d, &p.v, p.lanes, p.bits)
}

// signal handles the signal of an ALU instruction after its writes.
func (q *QPU) signal(in *inst, pc int) error {
	switch in.sig {
	case qpu.SigBreakpoint:
		return errors.New("software breakpoint (sig 0): the hardware halts for a debugger; the vc4 kernel refuses it")
	case qpu.SigThreadSwitch, qpu.SigLastThreadSwitch:
		if !q.prog.Opts.Threaded {
			return errors.New("thread switch in a program run single-threaded (shader record flag bit 0 set); the kernel refuses the pair")
		}
		q.switchAt = q.seq + 2
	case qpu.SigProgramEnd:
		q.programEnd()
	case qpu.SigScoreboardUnlock:
		if q.env == nil {
			return errors.New("scoreboard unlock with no Env")
		}
		return q.env.Scoreboard(true)
	case qpu.SigCoverageLoad, qpu.SigColourLoad, qpu.SigColourLoadProgramEnd, qpu.SigAlphaMaskLoad:
		if err := q.scoreboardWait(); err != nil {
			return err
		}
		kind := TLBLoad(in.sig)
		if in.sig == qpu.SigColourLoadProgramEnd {
			kind = TLBLoadColour
			q.programEnd()
		}
		if q.env == nil {
			return errors.New("TLB load with no Env")
		}
		return q.env.TLBLoad(kind, &q.acc[4])
	case qpu.SigLoadTMU0, qpu.SigLoadTMU1:
		if q.env == nil {
			return errors.New("TMU load with no Env")
		}
		return q.env.TMULoad(q.tmuUnit(int(in.sig-qpu.SigLoadTMU0)), &q.acc[4])
	}
	return nil
}

// programEnd schedules the end after two delay slots and writes the next
// thread's W and Z into location 14 of each file (AG §3 Thread Control),
// which this model fills with poison.
func (q *QPU) programEnd() {
	q.endAt = q.seq + 2
	if q.npend+2 <= len(q.pend) {
		q.pend[q.npend] = pendingWrite{b: false, reg: 14, lanes: 0xFFFF, bits: 0xFFFFFFFF, v: poisonVec}
		q.pend[q.npend+1] = pendingWrite{b: true, reg: 14, lanes: 0xFFFF, bits: 0xFFFFFFFF, v: poisonVec}
		q.npend += 2
	}
}

// threadSwitch models the other thread running: accumulators are not
// preserved (AG §3 Thread Control), and the other thread owns physical
// registers 16-31 of each file (this thread's view). The flags stay: see
// switchAccumulators.
func (q *QPU) threadSwitch() {
	q.switchAccumulators()
	q.poisonBanks()
}

// switchAccumulators is threadSwitch but for the registers 16-31 of each
// file: the accumulators the other thread leaves.
//
// The flags are kept. The guide says they are not preserved (AG §3 Thread
// Control), but Mesa's vc4 compiler reads flags set before a switch after
// it (vc4_opt_peephole_sf.c drops a flag update that repeats one made
// before a THRSW), and such shaders pass on a Pi 3 (piglit's
// fs-input-array-*-index-rd in Mesa CI's record): the two threads of a
// QPU run the same program in step, so the flags the other thread leaves
// at a switch are those it set at the same instruction, which equal this
// thread's when their inputs are uniforms (DERIVED, doc/hardware.md#threads).
func (q *QPU) switchAccumulators() {
	for a := range q.acc {
		copyVec(&q.acc[a], &poisonVec)
	}
	q.switchAt = -1
}

// poisonBanks is threadSwitch's registers 16-31 of each file.
func (q *QPU) poisonBanks() {
	*(*[16]vec)(q.ra[16:]) = poisonBank
	*(*[16]vec)(q.rb[16:]) = poisonBank
}

// poisonBank is registers 16-31 of a file as a thread switch leaves them.
var poisonBank = func() (b [16]vec) {
	for r := range b {
		b[r] = poisonVec
	}
	return b
}()

func (q *QPU) scoreboardWait() error {
	if q.sbWaited {
		return nil
	}
	q.sbWaited = true
	if q.env == nil {
		return errors.New("scoreboard wait with no Env")
	}
	return q.env.Scoreboard(false)
}

// tmuUnit maps a TMU number in the program to the physical unit: QPUs 2
// and 3 of each slice of four use the other TMU unless TMU_NOSWAP was
// written (AG §4 "QPU Interface").
func (q *QPU) tmuUnit(u int) int {
	if q.Num&2 != 0 && !q.noSwap {
		return u ^ 1
	}
	return u
}

func (q *QPU) tmuWrite(u int, reg TMUReg, v *vec, lanes uint16) error {
	if q.env == nil {
		return errors.New("TMU write with no Env")
	}
	u = q.tmuUnit(u)
	direct := reg == TMUS && q.tmuParams[u] == 0
	var param uint32
	if !direct {
		var err error
		if param, err = q.popUniform(); err != nil {
			return err
		}
		q.tmuParams[u]++
	}
	if reg == TMUS {
		q.tmuParams[u] = 0
	}
	return q.env.TMUWrite(u, reg, v, lanes, param, direct)
}

func (q *QPU) setUniforms(addr uint32) {
	q.unifAddr, q.unifBuf, q.unifOff = addr, nil, 0
	// A fragment shader's threads start at the same uniforms address
	// block after block: reuse the span the last stream from there
	// found while the view's regions are the same.
	if c := &q.unifStart; c.buf != nil && c.addr == addr && c.view == q.Mem && c.gen == q.Mem.Generation() {
		q.unifBuf, q.unifOff = c.buf, c.off
	}
}

// unifSpan is a uniform stream's start address and the memory span found
// for it in a view, valid while the view's generation is gen.
type unifSpan struct {
	view *mem.View
	gen  uint64
	addr uint32
	buf  []byte
	off  int
}

// popUniform reads the next uniform of the stream (AG §3 "Uniforms").
func (q *QPU) popUniform() (uint32, error) {
	if q.unifOff+4 > len(q.unifBuf) {
		if q.Mem == nil {
			return 0, errors.New("uniform read with no memory view (QPU.Mem)")
		}
		buf, off, err := q.Mem.Span(q.unifAddr, false, "QPU uniform read")
		if err != nil {
			return 0, err
		}
		if int(off)+4 > len(buf) {
			_, err := q.Mem.Read(q.unifAddr, 4, "QPU uniform read")
			return 0, err
		}
		q.unifBuf, q.unifOff = buf, int(off)
		if q.start != nil && q.unifAddr == q.start.Uniforms {
			q.unifStart = unifSpan{view: q.Mem, gen: q.Mem.Generation(), addr: q.unifAddr, buf: buf, off: int(off)}
		}
	}
	u := binary.LittleEndian.Uint32(q.unifBuf[q.unifOff:])
	q.unifOff += 4
	q.unifAddr += 4
	return u, nil
}

// loadImm runs a load immediate or semaphore instruction: the immediate
// appears at both ALU outputs and is written like an ALU result (AG "Load
// Immediate Instructions", "Semaphore Instruction").
func (q *QPU) loadImm(in *inst, pc int) error {
	if in.vec >= 0 {
		q.resAdd = q.prog.vecs[in.vec]
	} else {
		for i := range q.resAdd {
			q.resAdd[i] = in.imm
		}
	}
	q.resMul = q.resAdd
	mAdd, mMul := q.cond(in.condAdd), q.cond(in.condMul)
	if in.sf {
		q.setFlags(&q.resAdd, 0, mAdd)
	}
	if in.kind == kSemaphore {
		if q.env == nil {
			return errors.New("semaphore with no Env")
		}
		if err := q.env.Semaphore(int(in.semN), in.semAcq); err != nil {
			return err
		}
	}
	if in.wAdd.kind != wNone {
		if err := q.writeALU(in, pc, in.wAdd, &q.resAdd, mAdd, in.packAdd, false, true); err != nil {
			return err
		}
	}
	if in.wMul.kind != wNone {
		if err := q.writeALU(in, pc, in.wMul, &q.resMul, mMul, in.packMul, false, false); err != nil {
			return err
		}
	}
	return nil
}

// branch runs a branch instruction (AG "Branch Instruction", Tables 10-11).
func (q *QPU) branch(in *inst, pc int) error {
	var target uint32
	if in.brReg {
		// The register's element 15 (vc4asm addendum, measured; AG says
		// element 0).
		target = q.ra[in.brRaddr][15]
	}
	if q.seq-q.lastBr < 3 {
		// "There must be at least two non branch instructions between
		// every two branch instructions. Otherwise no branch is taken or
		// the thread will crash" (vc4asm addendum). We take none: this
		// one, and the earlier one whose jump is still pending (a jump
		// lands three instructions after its branch, so every pending
		// jump is that branch's).
		q.lastBr = q.seq
		q.njumps = 0
		return q.violate(pc, "branch spacing", "at least two non-branch instructions must separate branches [vc4asm addendum]; neither branch is taken")
	}
	q.lastBr = q.seq
	if !q.branchTaken(in.brCond) {
		return nil
	}
	link := q.prog.link(pc)
	target += in.imm
	if in.brRel {
		target += link
	}
	to, ok := q.prog.index(target)
	if !ok {
		return fmt.Errorf("branch target %#08x is not an instruction of the program [%#08x, %#08x)", target, q.prog.Addr, q.prog.Addr+uint32(8*len(q.prog.code)))
	}
	q.jumps[q.njumps] = jump{at: q.seq + 3, to: to}
	q.njumps++
	// The link address appears at both ALU outputs and is written only when
	// the branch is taken, as are the flags of an odd raddr_a (vc4asm
	// addendum).
	for i := range q.resAdd {
		q.resAdd[i] = link
	}
	q.resMul = q.resAdd
	if in.brSF {
		q.setFlags(&q.resAdd, 0, 0xFFFF)
	}
	if in.wAdd.kind != wNone {
		if err := q.write(in, pc, in.wAdd, &q.resAdd, 0xFFFF, 0xFFFFFFFF); err != nil {
			return err
		}
	}
	if in.wMul.kind != wNone {
		if err := q.write(in, pc, in.wMul, &q.resMul, 0xFFFF, 0xFFFFFFFF); err != nil {
			return err
		}
	}
	return nil
}

// branchTaken evaluates cond_br over all 16 elements (AG Table 11).
func (q *QPU) branchTaken(c qpu.BranchCond) bool {
	var f uint16
	switch c >> 2 {
	case 0:
		f = q.z
	case 1:
		f = q.n
	case 2:
		f = q.c
	default:
		return true // 15: always (12-14 are refused at load)
	}
	if c&1 != 0 {
		f = ^f
	}
	if c&2 != 0 {
		return f != 0 // any
	}
	return f == 0xFFFF // all
}

// vpmReadSetup handles a write to VPMVCD_RD_SETUP.
func (q *QPU) vpmReadSetup(v uint32, pc int) error {
	if q.vpm == nil {
		return errors.New("VPM read setup with no VPM (fragment shaders cannot use it, AG §7)")
	}
	s, generic := decodeVPMSetup(v, true)
	if !generic {
		return nil // a VCD DMA load setup: it does nothing until VPM_LD_ADDR, which is not modelled
	}
	if s.size == 3 {
		return q.violate(pc, "VPM setup", "SIZE 3 is reserved [AG Table 33]; setup ignored")
	}
	// A new setup is accepted only when at most one value of the previous
	// ones is still to be read (vc4asm addendum, measured: "the VPM read
	// setups cannot be queued"); the guide allows two queued setups (AG §7).
	out := 0
	for i := 0; i < q.vrn; i++ {
		out += q.vrq[i].s.num
	}
	if out > 1 || q.vrn == len(q.vrq) {
		return q.violate(pc, "VPM read setup", fmt.Sprintf("a read setup written while %d reads of the previous one are outstanding is ignored [vc4asm addendum; AG §7 allows two queued setups]", out))
	}
	q.vrq[q.vrn] = vpmRead{s: s, readyAt: q.seq + 3}
	q.vrn++
	return nil
}

// vpmReadVector serves a VPM_READ.
func (q *QPU) vpmReadVector(dst *vec, pc int) error {
	if q.vpm == nil {
		return errors.New("VPM read with no VPM (fragment shaders cannot use it, AG §7)")
	}
	if q.vrn == 0 {
		for i := range dst {
			dst[i] = poison
		}
		return q.violate(pc, "VPM read count", "a VPM read beyond the number programmed returns undefined data [AG §7]")
	}
	r := &q.vrq[0]
	// A read less than three instructions after its setup stalls until
	// the data is there. AG §7 says such a read "returns immediately with
	// undefined data", but Mesa's vertex and coordinate shaders read the
	// VPM right after the setup and render correctly on every Pi
	// (hazard.RuleVPMReadLatency is tolerated), and the vc4asm addendum
	// measured the stall. The model returns the data, as the stall does.
	q.vpm.readVector(q.start.VPMRead, &r.s, dst)
	r.s.num--
	if r.s.num == 0 {
		q.vrq[0] = q.vrq[1]
		q.vrn--
	}
	return nil
}

func (q *QPU) vpmWriteSetup(v uint32, pc int) error {
	if q.vpm == nil {
		return errors.New("VPM write setup with no VPM (fragment shaders cannot use it, AG §7)")
	}
	s, generic := decodeVPMSetup(v, false)
	if !generic {
		return nil // a VDW DMA setup: it does nothing until VPM_ST_ADDR, which is not modelled
	}
	if s.size == 3 {
		return q.violate(pc, "VPM setup", "SIZE 3 is reserved [AG Table 32]; setup ignored")
	}
	q.vw, q.vwSet = s, true
	return nil
}

func (q *QPU) vpmWrite(v *vec, pc int) error {
	if q.vpm == nil {
		return errors.New("VPM write with no VPM (fragment shaders cannot use it, AG §7)")
	}
	if !q.vwSet {
		return q.violate(pc, "VPM write setup", "a VPM write before any write setup goes to an undefined place [AG §7]; dropped")
	}
	q.vpm.writeVector(q.start.VPMWrite, &q.vw, v)
	return nil
}
