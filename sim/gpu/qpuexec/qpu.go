package qpuexec

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/vccube/vccube/shaders/hazard"
	"github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/sim/gpu/tmu"
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
	// WZInRegs says the caller has written W and Z straight into ra15
	// and rb15 of the QPU that runs the thread (RA(15), RB(15)), so the
	// thread's start does not copy them from W and Z, which it then
	// leaves unread.
	WZInRegs bool
	// MSUnseen says nothing reads the thread's MS_FLAGS: its program
	// neither reads nor writes the register, and the Env's TLB writes
	// ignore the ms they are given. The thread's start then leaves the
	// QPU's MS_FLAGS as they are instead of copying MSFlags, which it
	// leaves unread.
	MSUnseen bool
	// InOrder says the caller runs the tile's fragment threads one at a
	// time in primitive order, the order the scoreboard enforces (AG §5
	// "Scoreboard"), so that its waits and unlocks have nothing to do:
	// the QPU makes no Env.Scoreboard call for them.
	InOrder bool

	// TMU, if set, are the thread's texture units, physical TMU0 and
	// TMU1 (after the QPU2/QPU3 swap, as Env.TMUWrite's unit). The QPU
	// then writes their parameters and pops their results itself
	// (tmu.Unit.Write and Receive) instead of calling Env.TMUWrite and
	// Env.TMULoad: a call and an interface dispatch fewer a TMU access.
	// The unit receives all 16 lanes of a write whatever its condition,
	// as Env's contract says the hardware's FIFO does (mask 0xFFFF). Set
	// both or neither.
	TMU [2]*tmu.Unit

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
	// The vectors come first, one after another, 64 bytes each: with
	// the QPU at a multiple of 64 bytes, which NewQPU and Batch keep,
	// none straddles two cache lines (batch.go batchQPU, TestQPULayout).
	ra, rb      [32]vec
	acc         [6]vec // r0-r5
	portA       vec    // scratch for port reads
	portB       vec
	unpA, unpR4 vec
	resAdd      vec // ALU results; kept: a NOP op re-writes the last one (vc4asm addendum)
	resMul      vec
	packed      vec
	qpuNum      vec
	lastA       vec // elements 12-15 of the last reads, for rdLast
	lastB       vec
	// One run's state (below).
	varyC   vec
	sfuVal  vec
	ms, rev vec

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

	n, z, c uint16

	src       [8]*vec  // input muxes 0-7
	unifStart unifSpan // the span of the last uniform stream's start (setUniforms)

	// One run's state.
	prog      *Program
	env       Env
	start     *Start
	seq       int // instructions executed so far in this run
	pend      [8]pendingWrite
	npend     int
	varyPend  bool
	sfuAt     int // seq at which sfuVal lands in r4, 0 if none
	unifAddr  uint32
	unifBuf   []byte
	unifOff   int
	unifNext  uint32
	unifAt    int
	tmuParams [2]int
	tmuAtOnce bool // the TMU accesses take tmu.Unit's at-once entries (begin)
	tmuSwap   int  // with tmuAtOnce: the physical TMU of program TMU 0 (tmuUnit)
	// tmuAtOnceOK is begin's decision for a program and a Start's
	// units, which RunAgain keeps: tmuAtOnce but for the units'
	// idleness.
	tmuAtOnceOK bool
	noSwap      bool
	sbWaited    bool
	mutex       bool
	hostInt     bool
	// revStale says a program wrote REV_FLAG since begin last filled
	// rev: its elements may differ from each other.
	revStale bool
	vpm      *VPM
	vrq      [2]vpmRead
	vrn      int
	vw       vpmSetup
	vwSet    bool
	endAt    int
	switchAt int
	jumps    [2]jump
	njumps   int
	lastBr   int

	// The bound tier's own state (bound_run.go).
	boundState
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
	q := newQPU()
	q.Num, q.Mem = num, m
	q.init()
	return q
}

func (q *QPU) init() {
	for i := 0; i < 6; i++ {
		q.src[i] = &q.acc[i]
	}
	q.src[6], q.src[7] = &q.portA, &q.portB
}

// RA returns physical register n (0-31) of file A, for tests and
// debugging. A pointer to one of registers 16-31 holds their value
// until the next Run (a thread switch's poison may land in them later).
// Register 14 may be written through the pointer until the next Run (a
// program's end leaves its poison there only if it is not there
// already: landEnd).
func (q *QPU) RA(n int) *[16]uint32 {
	if n&16 != 0 {
		q.landBanks()
	}
	if n&31 == 14 {
		q.poison14 = false
	}
	return &q.ra[n&31]
}

// RB returns physical register n (0-31) of file B, as RA.
func (q *QPU) RB(n int) *[16]uint32 {
	if n&16 != 0 {
		q.landBanks()
	}
	if n&31 == 14 {
		q.poison14 = false
	}
	return &q.rb[n&31]
}

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
	steps := p.steps
	switch {
	case q.Reference:
		steps = p.ref
	case p.straight:
		return q.runBound(p, env, s)
	}
	q.begin(p, env, s)
	return q.run(p, steps, 0)
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

// RunAgain runs the program of q's last Run, with its Env, as another
// thread of the same kind on s: a fragment shader's next block of the
// same primitive. It is Run(p, env, s) with p and env the last Run's,
// less what Run decides once for a program, an Env and a Start's units
// (begin): the VPM segments' checks, whether registers 16-31 take their
// poison at the start, the TMU's at-once entries but for the units'
// idleness, the TMU swap, QPU_NUMBER, the VPM, the uniform span's check
// against the view. The cube's frame at 1920x1080 starts some 25,000
// threads so.
//
// The caller promises that since the last Run nothing those decisions
// read has changed: q's Num, Mem (and its view's regions) and
// Reference; s's TMU, VPM, VPMRead and VPMWrite are the last Run's
// Start's; the units' Reference is as it was. The rest of s, the
// registers, and the units' contents may differ. Before any Run it
// fails.
func (q *QPU) RunAgain(s *Start) (Result, error) { return q.startThread(s, true) }

// errNoRun is RunAgain's error before any Run.
var errNoRun = errors.New("qpuexec: RunAgain before any Run")

// begin sets q up for a run of p with env from s: what a run decides
// once for its program, Env and Start, then a thread's own start
// (startThread), which RunAgain does alone.
func (q *QPU) begin(p *Program, env Env, s *Start) {
	q.prog, q.env, q.start = p, env, s
	// A strict threaded program cannot use registers 16-31 (deferBanks).
	// Only such a program's bound run leaves their poison due, so a
	// thread that RunAgain starts never has any to land.
	if q.banksDue && (!p.Opts.Threaded || p.Opts.Permissive || q.Reference) {
		q.landBanks()
	}
	// The thread's TMU accesses take tmu.Unit's at-once entries
	// (WriteAtOnce, ReceiveAtOnce) when no request of the program waits
	// in a request FIFO (Program.tmuAtOnce) and the units are
	// Start.TMU's, idle and not Reference: decided here, once a thread,
	// not at each access; the units' idleness at each thread's start
	// (startThread).
	q.tmuAtOnceOK = false
	if t := &s.TMU; p.tmuAtOnce && t[0] != nil && t[1] != nil && !q.Reference {
		q.tmuAtOnceOK = !t[0].Reference && !t[1].Reference
		q.tmuSwap = q.Num >> 1 & 1 // tmuUnit with no TMU_NOSWAP write
	}
	if q.qpuNum[0] != uint32(q.Num) { // QPU_NUMBER is read-only: fill it when Num changes
		for i := range q.qpuNum {
			q.qpuNum[i] = uint32(q.Num)
		}
	}
	// The span of the last uniform stream's start serves while the
	// view's regions are the same (setUniforms): forget it here if they
	// are not, so that a thread's start need only compare the address.
	if c := &q.unifStart; c.buf != nil && (c.view != q.Mem || c.gen != q.Mem.Generation()) {
		*c = unifSpan{}
	}
	if p.Opts.Stage == hazard.Fragment {
		q.vpm = nil
	} else {
		q.vpm = s.VPM
	}
	q.startThread(s, false)
}

// startThread is a thread's own start on s: the run's state reset, the
// uniform stream at s.Uniforms, and the fragment shader's inputs. With
// run set it then runs q's program, as RunAgain: one function, not a
// start and a run called in turn, saves a call and its spills a thread
// (begin calls it with run false).
func (q *QPU) startThread(s *Start, run bool) (Result, error) {
	p := q.prog
	if p == nil {
		return Result{}, errNoRun
	}
	q.start = s
	if p.names14 {
		q.poison14 = false // the run may write location 14 (landEnd)
	}
	q.seq = 0
	q.npend = 0
	q.varyPend = false
	q.sfuAt = 0
	q.unifAt = 0
	// setUniforms, whose view check begin made.
	if c := &q.unifStart; c.buf != nil && c.addr == s.Uniforms {
		q.unifAddr, q.unifBuf, q.unifOff = c.addr, c.buf, c.off
	} else {
		q.unifAddr, q.unifBuf, q.unifOff = s.Uniforms, nil, 0
	}
	q.tmuParams = [2]int{}
	q.tmuAtOnce = q.tmuAtOnceOK && s.TMU[0].Idle() && s.TMU[1].Idle()
	q.noSwap = false
	q.sbWaited = s.InOrder // the wait has nothing to do
	q.mutex = false
	q.hostInt = false
	q.vrn = 0
	q.vwSet = false
	q.endAt = -1
	q.switchAt = -1
	q.njumps = 0
	q.lastBr = -10
	if p.Opts.Stage == hazard.Fragment {
		if !s.WZInRegs {
			copyVec(&q.ra[15], &s.W)
			copyVec(&q.rb[15], &s.Z)
		}
		if !s.MSUnseen {
			copyVec(&q.ms, &s.MSFlags)
		}
		// REV_FLAG changes only by a program's write, which marks it
		// stale (writeIO), or here: fill it when it changes.
		if q.revStale || q.rev[0] != s.RevFlag {
			fill(&q.rev, s.RevFlag)
			q.revStale = false
		}
	}
	if !run {
		return Result{}, nil
	}
	if p.straight && !q.Reference {
		// runBound's start less begin, which the above did.
		q.banksStale, q.endPoison = false, false
		q.seqBase = 0
		return q.resumeBound(p, 0)
	}
	steps := p.steps
	if q.Reference {
		steps = p.ref
	}
	return q.run(p, steps, 0)
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

// scoreboardWait is the implicit scoreboard wait of a thread's first
// tile-buffer access (AG §5 "Scoreboard"): small enough to be inlined
// at every TLB access, which after the first have nothing to do.
func (q *QPU) scoreboardWait() error {
	if q.sbWaited {
		return nil
	}
	return q.scoreboardWaitFirst()
}

// scoreboardWaitFirst is scoreboardWait's first wait of a thread.
func (q *QPU) scoreboardWaitFirst() error {
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
	if q.tmuAtOnce {
		return q.tmuWriteAtOnce(u, reg, v)
	}
	u = q.tmuUnit(u)
	if q.env == nil && q.start.TMU[u] == nil {
		return errors.New("TMU write with no Env")
	}
	direct := reg == TMUS && q.tmuParams[u] == 0
	var param uint32
	if !direct {
		// popUniform, its common case inlined as runBound's opUniform
		// has it.
		if q.unifOff+4 <= len(q.unifBuf) {
			param = binary.LittleEndian.Uint32(q.unifBuf[q.unifOff:])
			q.unifOff += 4
			q.unifAddr += 4
		} else {
			var err error
			if param, err = q.popUniform(); err != nil {
				return err
			}
		}
		q.tmuParams[u]++
	}
	if reg == TMUS {
		q.tmuParams[u] = 0
	}
	if t := q.start.TMU[u]; t != nil {
		return t.Write(int(reg), v, 0xFFFF, param, direct)
	}
	return q.env.TMUWrite(u, reg, v, lanes, param, direct)
}

// tmuWriteAtOnce is tmuWrite for a thread with tmuAtOnce set: the
// program never writes TMU_NOSWAP, so the swap is the QPU number's
// (tmuSwap), and the units are Start.TMU's. Its uniform pop repeats
// tmuWrite's on purpose: a shared helper is over the inliner's budget
// (cost 131 of 80), and calling it made the cube's 800x600 frame 1.0 %
// more instructions (bench/icount: 34.54 M against 34.89 M, 2026-12-05).
func (q *QPU) tmuWriteAtOnce(u int, reg TMUReg, v *vec) error {
	u ^= q.tmuSwap
	direct := reg == TMUS && q.tmuParams[u] == 0
	var param uint32
	if !direct {
		if q.unifOff+4 <= len(q.unifBuf) {
			param = binary.LittleEndian.Uint32(q.unifBuf[q.unifOff:])
			q.unifOff += 4
			q.unifAddr += 4
		} else {
			var err error
			if param, err = q.popUniform(); err != nil {
				return err
			}
		}
		q.tmuParams[u]++
	}
	if reg == TMUS {
		q.tmuParams[u] = 0
	}
	return q.start.TMU[u].WriteAtOnce(int(reg), v, param, direct)
}

// tmuLoad serves an ldtmu0/ldtmu1 signal for program TMU u (AG Table 4):
// the oldest result of its physical unit into r4, from Start.TMU's unit
// when there is one, else through Env.TMULoad.
func (q *QPU) tmuLoad(u int) error {
	if q.tmuAtOnce {
		q.start.TMU[u^q.tmuSwap].ReceiveAtOnce(&q.acc[4])
		return nil
	}
	u = q.tmuUnit(u)
	if t := q.start.TMU[u]; t != nil {
		return t.Receive(&q.acc[4])
	}
	if q.env == nil {
		return errors.New("TMU load with no Env")
	}
	return q.env.TMULoad(u, &q.acc[4])
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
